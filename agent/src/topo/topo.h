/* The topology graph: servers, switches, ports and the cables between them.
 *
 * Node ids are dense: servers are 0 .. n_servers-1, switches follow as
 * n_servers .. n_servers+n_switches-1. Every node has a fixed number of
 * ports; a port is either free or cabled to exactly one port of another node.
 * A family's builder fills the graph with dcn_topo_alloc() and
 * dcn_topo_connect(); nothing else writes to it. */
#ifndef DCN_TOPO_H
#define DCN_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

#define DCN_NONE UINT32_MAX
#define DCN_NAME_MAX 16 /* names are at most 10 characters, see docs/topologies.md */

typedef struct dcn_family dcn_family;

typedef struct dcn_end {
    uint32_t node; /* DCN_NONE when the port is free */
    uint16_t port;
} dcn_end;

typedef enum { DCN_SERVER = 0, DCN_SWITCH = 1 } dcn_node_kind;

typedef struct dcn_topo {
    const dcn_family *family;
    dcn_params params;
    uint32_t n_servers;
    uint32_t n_switches;
    uint32_t *port_base; /* n_nodes+1 entries: node v owns ports [port_base[v], port_base[v+1]) */
    dcn_end *peer;       /* one entry per port of the whole graph */
    uint64_t n_links;
    void *priv;          /* family state, freed by family->destroy */
} dcn_topo;

static inline uint32_t dcn_n_nodes(const dcn_topo *t) { return t->n_servers + t->n_switches; }
static inline dcn_node_kind dcn_kind(const dcn_topo *t, uint32_t v)
{
    return v < t->n_servers ? DCN_SERVER : DCN_SWITCH;
}
static inline uint16_t dcn_nports(const dcn_topo *t, uint32_t v)
{
    return (uint16_t)(t->port_base[v + 1] - t->port_base[v]);
}
static inline dcn_end dcn_peer(const dcn_topo *t, uint32_t v, uint16_t port)
{
    return t->peer[t->port_base[v] + port];
}
static inline uint32_t dcn_switch_node(const dcn_topo *t, uint32_t switch_index)
{
    return t->n_servers + switch_index;
}

/* Allocates the node and port tables. server_ports / switch_ports give the
 * port count of every server / switch; pass a uniform count with the
 * *_uniform form. Returns 0, or -1 with err filled. */
int dcn_topo_alloc(dcn_topo *t, uint32_t n_servers, uint32_t n_switches,
                   const uint16_t *server_ports, const uint16_t *switch_ports, char *err, size_t errlen);
int dcn_topo_alloc_uniform(dcn_topo *t, uint32_t n_servers, uint16_t server_ports, uint32_t n_switches,
                           uint16_t switch_ports, char *err, size_t errlen);

/* Cables port ap of node a to port bp of node b. Fails (-1, err filled) when
 * either port is out of range or already cabled: a wiring bug never passes. */
int dcn_topo_connect(dcn_topo *t, uint32_t a, uint16_t ap, uint32_t b, uint16_t bp, char *err, size_t errlen);

/* The port of a that is cabled to b, or -1 when they are not adjacent. */
int dcn_topo_port_to(const dcn_topo *t, uint32_t a, uint32_t b);

/* Builds the named family from "key=value" words. On failure returns -1 with
 * a one-line message naming the bad parameter and its allowed range. */
/* Defined in registry.c, beside the family table. */
int dcn_topo_build(dcn_topo *t, const char *family, int argc, char **argv, char *err, size_t errlen);
void dcn_topo_free(dcn_topo *t);

/* Names in the papers' notation (family-defined), and their inverse. */
void dcn_node_name(const dcn_topo *t, uint32_t v, char *buf, size_t len);
/* Accepts a node name or "#<id>". Returns DCN_NONE when unknown. */
uint32_t dcn_node_lookup(const dcn_topo *t, const char *name);

#endif
