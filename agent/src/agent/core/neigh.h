/* The neighbour status table: indexed by NHA (256 entries), each with the
 * neighbour's MAC, the out port and the status flag, as in the BCube paper.
 * Entries are derived from the topology; MACs and liveness from hellos.
 *
 * Liveness is two-way: an entry is heard (alive) while its hellos arrive,
 * and up only while its hellos also say that it hears ours. Each hello
 * carries, for the port it leaves on, the set of neighbours that port
 * hears (neigh_heard_on), by their index in the sender's table; a
 * neighbour whose hellos leave us out cannot receive what we send it
 * (a one-way fault), so it is not used. */
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
    uint8_t alive;  /* its hellos arrive (one-way liveness) */
    uint8_t peer_port;   /* its port towards us */
    uint8_t idx_at_peer; /* our index among that port's neighbours in its table; NEIGH_NO_INDEX: none */
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

#define NEIGH_NO_INDEX 0xff

/* Fills the table for server self; entries start down. Returns the number
 * of neighbours. */
unsigned neigh_build(neigh_table *nt, const dcn_topo *t, uint32_t self);
/* The NHA of neighbour node on port, or -1. */
int neigh_find(const neigh_table *nt, unsigned port, uint32_t node);
/* A hello from node arrived on port with source MAC mac; heard is the set
 * its sender's port hears (bit i: index i of that port's neighbours in the
 * sender's table) and from_port that port, or heard_known false for a
 * hello without the set (the neighbour is then taken to hear us). Returns
 * the NHA, -1 when node is not a neighbour on that port, or
 * NEIGH_MAC_CONFLICT when the entry is alive with another MAC: a live
 * neighbour's MAC is not taken over, and such a hello does not keep the
 * entry alive either (it changes nothing); once the entry has expired or
 * its port lost carrier, the next hello's MAC is learned. *change is +1
 * when the entry went up, -1 when it went down (its hellos stopped
 * listing us), else 0. */
#define NEIGH_MAC_CONFLICT (-2)
int neigh_on_hello(neigh_table *nt, unsigned port, uint32_t node, const uint8_t mac[6], uint64_t now_ms,
                   bool heard_known, unsigned from_port, uint64_t heard, int *change);
/* The set that a hello leaving port carries: bit i for each neighbour of
 * index i on that port whose hellos arrive. */
uint64_t neigh_heard_on(const neigh_table *nt, unsigned port);
/* An entry vouches for the cables between us while it is up and was heard
 * within the last recent_ms. Up alone is not enough: when our own cable
 * falls silent, the entries behind it expire one after the other, a few
 * ms apart, and while the first has expired the others are still up,
 * though not heard for almost the dead interval. */
static inline bool neigh_vouches(const neigh_entry *e, uint64_t now_ms, uint64_t recent_ms)
{
    return e->valid && e->up && now_ms - e->last_heard_ms < recent_ms;
}
/* Does no entry on port, of two or more that it has, vouch for our cable?
 * (A one-way or silent fault on our own cable, seen from our side: none
 * hears us, or we hear none of them.) */
bool neigh_port_unvouched(const neigh_table *nt, unsigned port, uint64_t now_ms, uint64_t recent_ms);
/* Marks entries silent for dead_ms not alive and down; returns how many
 * went down. */
unsigned neigh_expire(neigh_table *nt, uint64_t now_ms, uint64_t dead_ms);
/* The first time at which neigh_expire would mark an alive entry not
 * alive (no hello heard meanwhile), or UINT64_MAX when none is alive. */
uint64_t neigh_next_expiry(const neigh_table *nt, uint64_t dead_ms);
/* Carrier lost on port: every entry on it goes down at once. */
unsigned neigh_port_down(neigh_table *nt, unsigned port);

#endif
