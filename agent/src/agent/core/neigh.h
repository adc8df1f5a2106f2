/* The neighbour status table: indexed by NHA (256 entries), each with the
 * neighbour's MAC, the out port and the status flag, as in the BCube paper.
 * Entries are derived from the topology; MACs and liveness from hellos. */
#ifndef DCN_AGENT_NEIGH_H
#define DCN_AGENT_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

typedef struct neigh_entry {
    uint8_t valid;  /* this NHA names a neighbour */
    uint8_t up;     /* StatusFlag */
    uint8_t port;   /* OutPort */
    uint8_t heard;  /* a hello has ever arrived */
    uint8_t mac[6]; /* NeighborMAC */
    uint32_t node;  /* the neighbour's server id */
    uint64_t last_heard_ms;
} neigh_entry;

typedef struct neigh_table {
    neigh_entry e[256];
    unsigned n_valid;
    uint32_t gen; /* bumped when an entry's up flag or MAC changes, and by
                   * engine_carrier: the kernel relay copies the table when it moves */
} neigh_table;

/* Fills the table for server self; entries start down. Returns the number
 * of neighbours. */
unsigned neigh_build(neigh_table *nt, const dcn_topo *t, uint32_t self);
/* The NHA of neighbour node on port, or -1. */
int neigh_find(const neigh_table *nt, unsigned port, uint32_t node);
/* A hello from node arrived on port with source MAC mac. Returns the NHA,
 * -1 when node is not a neighbour on that port, or NEIGH_MAC_CONFLICT
 * when the entry is up with another MAC: a live neighbour's MAC is not
 * taken over, and such a hello does not keep the entry alive either (it
 * changes nothing); once the entry has expired or its port lost carrier,
 * the next hello's MAC is learned. *went_up is set when the entry changed
 * from down to up. */
#define NEIGH_MAC_CONFLICT (-2)
int neigh_on_hello(neigh_table *nt, unsigned port, uint32_t node, const uint8_t mac[6], uint64_t now_ms,
                   bool *went_up);
/* Marks entries silent for dead_ms down; returns how many went down. */
unsigned neigh_expire(neigh_table *nt, uint64_t now_ms, uint64_t dead_ms);
/* The first time at which neigh_expire would mark an up entry down (no
 * hello heard meanwhile), or UINT64_MAX when no entry is up. */
uint64_t neigh_next_expiry(const neigh_table *nt, uint64_t dead_ms);
/* Carrier lost on port: every entry on it goes down at once. */
unsigned neigh_port_down(neigh_table *nt, unsigned port);

#endif
