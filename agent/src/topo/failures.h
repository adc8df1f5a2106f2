/* A set of failed nodes and failed links, consulted by every routing
 * algorithm. A failed link marks both of its ports. */
#ifndef DCN_FAILURES_H
#define DCN_FAILURES_H

#include <stdbool.h>
#include <stdint.h>

#include "topo.h"

typedef struct dcn_failures {
    uint8_t *node_down; /* one byte per node */
    uint8_t *port_down; /* one byte per port of the graph */
    uint32_t n_nodes_down;
    uint32_t n_links_down;
} dcn_failures;

int dcn_failures_init(dcn_failures *f, const dcn_topo *t);
void dcn_failures_free(dcn_failures *f);
void dcn_failures_clear(dcn_failures *f, const dcn_topo *t);
void dcn_fail_node(dcn_failures *f, uint32_t v);
/* Fails the cable between adjacent nodes a and b; -1 when they are not adjacent. */
int dcn_fail_link(dcn_failures *f, const dcn_topo *t, uint32_t a, uint32_t b);
void dcn_fail_port(dcn_failures *f, const dcn_topo *t, uint32_t v, uint16_t port);

/* f may be NULL, meaning nothing has failed. */
static inline bool dcn_node_ok(const dcn_failures *f, uint32_t v) { return !f || !f->node_down[v]; }
/* The cable on (v, port) and the node at its far end are both up. */
bool dcn_hop_ok(const dcn_failures *f, const dcn_topo *t, uint32_t v, uint16_t port);
/* a and b are adjacent through a live cable and both are up. */
bool dcn_step_ok(const dcn_failures *f, const dcn_topo *t, uint32_t a, uint32_t b);

#endif
