/* HCN / BCN addresses (Guo et al., IEEE TC 2013): digit labels, the
 * Definition-2 wiring of the first dimension, the slave ids and ranks of the
 * second dimension (Eq. 2, Eq. 5), the slave rules (Eq. 3 corrected, Eq. 4)
 * and the builder shared by the hcn and bcn families.
 *
 * HCN(n,h) is treated as BCN(alpha=n, beta=0, h) with a single copy, so one
 * set of functions serves both. See docs/topologies/hcn-bcn.md. */
#ifndef DCN_HCN_LABEL_H
#define DCN_HCN_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo.h"

#define HCN_MAX_H 4       /* longest paths must fit DCN_PATH_MAX nodes */
#define HCN_MAX_PORTS 63  /* switch ports: the NHA index has 6 bits, 63 = direct cable */
#define HCN_MAX_SERVERS 2000000u

typedef struct hcn_dims {
    uint32_t alpha;     /* digit range of x_1..x_h, and masters' x_0 */
    uint32_t beta;      /* slaves per switch (0 for HCN) */
    uint32_t n;         /* alpha + beta: switch ports, range of x_0 */
    uint32_t h;         /* levels of the first dimension */
    uint32_t gamma;     /* BCN: level of the second dimension's unit */
    uint32_t rule;      /* 3 (corrected Eq. 3) or 4 (DCell rule); 0: no second dimension */
    uint32_t s;         /* s_gamma = alpha^gamma * beta, slaves per BCN(alpha,beta,gamma) */
    uint32_t copies;    /* U = s + 1 when the second dimension exists, else 1 */
    uint32_t per_copy;  /* servers per copy: alpha^h * n */
    uint32_t sw_per_copy; /* switches per copy: alpha^h */
    int bcn_names;      /* 1: names carry the copy ("h<u>_..."), 0: HCN names */
    int name_form;      /* 0: concatenated digits, 1: '_' separated, 2: node id */
} hcn_dims;

typedef struct hcn_label {
    uint32_t u;                 /* copy, 1..U */
    uint8_t x[HCN_MAX_H + 1];   /* x[i] = digit x_i, 1-based values */
} hcn_label;

/* Fills the derived fields from alpha, beta, h, gamma, rule (rule is ignored
 * and set to 0 when beta == 0 or h < gamma). Returns -1 with err filled when
 * the instance is too large. fam names the family in the message. */
int hcn_dims_init(hcn_dims *d, const char *fam, uint32_t alpha, uint32_t beta, uint32_t h, uint32_t gamma,
                  uint32_t rule, char *err, size_t errlen);
uint64_t hcn_ipow(uint64_t b, uint32_t e);

uint32_t hcn_server_id(const hcn_dims *d, const hcn_label *l);
void hcn_server_label(const hcn_dims *d, uint32_t id, hcn_label *l);
/* Switch index (0-based, add n_servers for the node id) of a server's module. */
uint32_t hcn_switch_index(const hcn_dims *d, const hcn_label *l);
void hcn_switch_label(const hcn_dims *d, uint32_t index, hcn_label *l); /* x_0 set to 1 */

bool hcn_is_master(const hcn_dims *d, const hcn_label *l);
/* Number of top digits (x_h first, down to x_1) two labels share; h when on the same switch. */
uint32_t hcn_common_prefix(const hcn_dims *d, const hcn_label *a, const hcn_label *b);
/* Definition 2: the level-r partner of a master (returns r in 1..h), or 0
 * when the server has no first-dimension cable (a slave, or b^(h+1)). */
uint32_t hcn_level_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out);

/* Eq. 2 slave id (1..s) and Eq. 5 rank v (1..alpha^(h-gamma)); High/Low inverses. */
uint32_t hcn_slave_id(const hcn_dims *d, const hcn_label *l);
uint32_t hcn_rank(const hcn_dims *d, const hcn_label *l);
void hcn_slave_label(const hcn_dims *d, uint32_t u, uint32_t v, uint32_t id, hcn_label *out);
/* The slave rule: (u,i) -> (u',i'). */
void hcn_slave_rule(const hcn_dims *d, uint32_t u, uint32_t i, uint32_t *u2, uint32_t *i2);
/* The second-dimension partner of a slave; false for masters or without a second dimension. */
bool hcn_slave_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out);
/* GetInterLink: the cable between copies us != ud inside rank v: dst1 in us, src1 in ud. */
void hcn_inter_link(const hcn_dims *d, uint32_t us, uint32_t ud, uint32_t v, hcn_label *dst1, hcn_label *src1);

/* Port-1 partner of any server (level cable or slave cable). */
bool hcn_port2_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out);

/* Builds the graph: every server has 2 ports (0: its switch, at switch port
 * x_0-1; 1: its Definition-2 or slave cable, or free), every switch n ports.
 * d is copied into t->priv (freed by hcn_destroy). */
int hcn_build(dcn_topo *t, const hcn_dims *d, char *err, size_t errlen);
void hcn_destroy(dcn_topo *t);
static inline const hcn_dims *hcn_dims_of(const dcn_topo *t) { return (const hcn_dims *)t->priv; }

/* Names, see docs/topologies/hcn-bcn.md. */
void hcn_node_name(const dcn_topo *t, uint32_t v, char *buf, size_t len);

#endif
