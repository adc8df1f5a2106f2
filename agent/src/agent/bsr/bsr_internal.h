/* State shared by the BSR source files (bsr.c: entry points and the flow
 * table's life; bsr_probe.c: probe rounds and path choice; bsr_recovery.c:
 * probes across links held failed). */
#ifndef DCN_AGENT_BSR_INTERNAL_H
#define DCN_AGENT_BSR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "bsr.h"
#include "bsr_faildb.h"
#include "bsr_flow_table.h"
#include "topo/family.h"
#include "topo/rng.h"
#include "topo/scratch.h"

#define BSR_RATE_WINDOW_MS 1000 /* own sending rate measured over this window */
#define BSR_BULK_KBPS 1000      /* a flow sending this fast over a tick is a bulk flow */
#define BSR_BULK_MIN_SPAN_MS 50 /* shortest span its rate is judged over */
/* Below the bulk rate for this long: no longer bulk. Long enough for a TCP
 * flow to stay bulk through its retransmission timeouts and the 3 s a
 * broken path takes to be detected with 1 s hellos. */
#define BSR_BULK_HOLD_MS 5000
/* A probe round that would move a flow within this long after another bulk
 * flow of ours moved onto a link of the flow's path or of the candidate (or
 * towards the same server) does not move it: the link counters the probes
 * read (rates over 0.5-1 s windows) do not show that move yet. The flow
 * probes again this long later (plus jitter), once per move. So does a flow
 * after the round that follows its failover (bsr_flow_link_failed). */
#define BSR_SETTLE_MS 2000

struct bsr {
    const dcn_topo *t;
    uint32_t self;
    bsr_config cfg;
    bsr_io io;
    const dcn_algo *algo; /* the family's parallel path set (algos[0]) */
    bool mdcube;          /* switch-to-switch links are inter-container fibres */
    dcn_rng algo_rng;     /* handed to the family's algorithm */
    dcn_rng rng;          /* jitter and random jumps */
    bsr_faildb db;
    bsr_flow_table ft;
    dcn_pathset *scratch; /* one path set, allocated once */
    dcn_scratch arena;    /* the routing algorithms' temporary arrays (no allocation per flow or message) */
    uint8_t *avoid;       /* one byte per node, for the BFS alternates */
    uint32_t *port_flows; /* our flows whose current path leaves on each local port */
    uint32_t *port_bulk;  /* of those, the bulk flows */
    uint32_t *pathless;   /* per server: our flows towards it without a current path */
    uint16_t nports;
    dcn_rng nonce_rng; /* probe sequence numbers: random nonces, echoed back by the responses */
    uint32_t recovery_rotor; /* the failed link bsr_recovery.c starts from next */
    uint64_t now_ms; /* the clock at the last entry that read it */
    bsr_counters c;
};

typedef enum {
    /* The path whose local port carries the fewest of our bulk flows, then
     * the fewest of our flows, then the shortest (then the set's order). */
    BSR_PICK_DEFAULT,
    BSR_PICK_RANDOM,  /* a uniformly random path (MDCube: another random jump) */
} bsr_pick;

uint64_t bsr_now(bsr *b);
bool bsr_paths_equal(const dcn_path *a, const dcn_path *b);

/* The family's own path set (algos[0]) to dst under failures f (NULL:
 * none), keeping only well-formed paths from us to dst: the family's output
 * is trusted no further than that. Returns the count, -1 on error. */
int bsr_family_set(bsr *b, uint32_t dst, const dcn_failures *f, dcn_pathset *out);
/* Appends p to the flow's set, unprobed and unmeasured (recovery: a path
 * across links held failed, never replaced by a BFS alternate); the caller
 * checks there is room (BSR_MAX_PATHS). */
void bsr_add_slot(bsr_flow *f, const dcn_path *p, bool recovery);
/* The index of p in the flow's set, or -1. */
int32_t bsr_find_in_set(const bsr_flow *f, const dcn_path *p);
/* Adds recovery slots to the flow's set (bsr_recovery.c): the family's paths
 * that cross links the database holds failed and, for a flow with no path
 * under it (unreachable), BFS paths each across one learned link. */
void bsr_add_recovery_paths(bsr *b, bsr_flow *f, bool unreachable);

/* The family's path set to dst under the failed-link database, repaired
 * (BFS alternates), at most limit paths. Returns the count (0: none). */
int bsr_compute_set(bsr *b, uint32_t dst, dcn_pathset *out, uint32_t limit);

/* Makes p (a path of the flow's set at index, or -1) the flow's path; NULL
 * leaves the flow without a path. Counts a switch when a path changes. */
void bsr_set_current(bsr *b, bsr_flow *f, const dcn_path *p, int32_t index);

/* A new probe round: the set is computed afresh (last measurements carried
 * over to equal paths), the flow gets a path if it has none usable (pick),
 * and every path is probed. */
void bsr_round_start(bsr *b, bsr_flow *f, uint64_t now, bsr_pick pick);
/* Probes that timed out are failures: BFS alternate, probed in turn. Ends
 * the round when nothing is outstanding. */
void bsr_round_check(bsr *b, bsr_flow *f, uint64_t now);
void bsr_probe_answer(bsr *b, bsr_flow *f, uint32_t seq, uint32_t avail_mbps, const dcn_path *path, uint64_t now);
/* The link a-b just failed: the flow's paths over it fail, probes on them
 * are replaced, and a flow on it moves at once to a cached path. */
void bsr_flow_link_failed(bsr *b, bsr_flow *f, uint32_t a, uint32_t bnode, uint64_t now);
/* Called every tick: a flow that starts sending at a bulk rate is placed
 * on the path whose local port carries the fewest of our other bulk
 * flows (so concurrent flows of one pair take parallel paths whatever
 * order their connections opened in); one that stops is no longer bulk. */
void bsr_flow_bulk_check(bsr *b, bsr_flow *f, uint64_t now);

#endif
