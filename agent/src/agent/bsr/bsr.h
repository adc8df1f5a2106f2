/* BSR, BCube Source Routing (BCube paper §4), as pure logic without I/O.
 *
 * The source server owns the path of every flow it sends. A flow (5-tuple,
 * simplex) starts at once on a default path of the family's parallel path
 * set (algos[0] under the failed-link database), probes every path of the
 * set, and keeps the path with the most available bandwidth. Probes not
 * answered in time are failures: the path is replaced by the BFS alternate
 * that avoids the failed links and the other paths' nodes, which is probed
 * in turn. Path-failure messages feed a failed-link database whose entries
 * time out; a flow whose path breaks moves at once to the best cached path
 * of its last probe round. See docs/bsr.md.
 *
 * Everything that touches the outside world goes through bsr_io (clock,
 * sending probes), so the module is driven by the data plane in the agent
 * and by a fake in the unit tests. Not thread-safe: one bsr per agent,
 * called from one thread. */
#ifndef DCN_AGENT_BSR_H
#define DCN_AGENT_BSR_H

#include <stddef.h>
#include <stdint.h>

#include "topo/path.h"
#include "topo/topo.h"

/* ---- The fixed interface (docs/interfaces.md) ---- */

typedef struct bsr_flow_key {
    uint32_t src_ip, dst_ip;
    uint16_t src_port, dst_port;
    uint8_t proto;
} bsr_flow_key;

typedef struct bsr_io {
    void *ctx;
    uint64_t (*now_ms)(void *ctx);
    /* Send a probe for this flow along path (full node sequence, self first).
       The probe starts with the first hop's available bandwidth plus
       credit_mbps: the flow's own rate when the path leaves on the local port
       the flow is on now without being its current path (that load would
       leave the hop with the flow), else 0. Called from inside bsr_route,
       bsr_tick and the event functions; it must not call back into the
       module. A return < 0 is counted; the probe then times out like a lost
       one. */
    int (*send_probe)(void *ctx, const bsr_flow_key *flow, uint32_t probe_seq, const dcn_path *path,
                      uint32_t credit_mbps);
    /* Available bandwidth (Mb/s) of a local port: configured capacity minus the measured rate
       in that direction (out = 1: transmit, 0: receive). Optional (may be NULL); BSR itself
       relies on the probe responses, see docs/bsr.md. */
    uint32_t (*port_avail_mbps)(void *ctx, uint16_t port, int out);
} bsr_io;

typedef struct bsr_config {
    uint32_t reselect_ms;       /* 10000: periodic path re-selection */
    uint32_t jitter_ms;         /* random extra 0..jitter_ms per flow and round */
    uint32_t probe_timeout_ms;  /* a probe not answered by then failed */
    uint32_t faildb_timeout_ms; /* failed-link database entry lifetime */
    uint32_t flow_idle_ms;      /* flows unused for this long are forgotten */
    uint32_t max_flows;         /* table size, allocated once at create */
    /* ---- additions (always start from bsr_config_default) ---- */
    /* A probed path replaces the current one only when its available
     * bandwidth beats the current path's by more than this percentage of
     * the current path's (and by at least 1 Mb/s). 0: any gain switches. */
    uint32_t switch_margin_pct; /* 10 */
    /* How long a flow without any usable path waits before it computes its
     * path set again (new flows towards an unreachable server). */
    uint32_t unreachable_retry_ms; /* 1000 */
} bsr_config;

void bsr_config_default(bsr_config *c);

typedef struct bsr bsr;

/* t must outlive the bsr. self is this server's node id. Returns NULL on a
 * bad argument (self not a server, a zero timeout or table size, io or
 * io->now_ms or io->send_probe missing) or when out of memory. */
bsr *bsr_create(const dcn_topo *t, uint32_t self, const bsr_config *cfg, const bsr_io *io, uint64_t seed);
void bsr_destroy(bsr *b);

/* Source data path: the path for a packet of this flow (creating the flow on its first
   packet: default path at once, no buffering, probing starts). NULL: unreachable.
   No allocation once the flow exists. The path stays valid until the next call
   into this module. */
const dcn_path *bsr_route(bsr *b, const bsr_flow_key *k, uint32_t dst_server);

/* A probe response for flow k: probe_seq is the probe's nonce, echoed
 * back; path, the path the response came back on, reversed (source
 * first): it must be the path that probe was sent on (NULL: not checked,
 * for callers that model path selection alone). */
void bsr_on_probe_response(bsr *b, const bsr_flow_key *k, uint32_t probe_seq, uint32_t avail_mbps,
                           const dcn_path *path);

/* A path-failure message seen (addressed to us, or overheard while relaying): the failed-link
   DB learns a-b; our flows on it switch at once to a cached good path. Pairs that are not
   adjacent in the topology are ignored (counted in bsr_counters.failures_ignored). */
void bsr_on_path_failure(bsr *b, uint32_t node_a, uint32_t node_b);

/* A local port went down (up = 0) or came back (up = 1): the link to that
   port's peer is a failed link for as long as the port is down. */
void bsr_on_local_port(bsr *b, uint16_t port, int up);

/* A flow of ours towards src has no path while the failed-link database
 * holds links: a data packet from src is worth reading (bsr_on_path_heard).
 * O(1), for the per-packet receive path. */
bool bsr_wants_path_from(const bsr *b, uint32_t src);
/* A data packet came to us along p (p->node[0] its source, the last node
 * us): every link of p is up. The learned links of p leave the database
 * (bsr_counters.faildb_cleared_by_data) and, if any did, our flows towards
 * the source that have no path start a round now, so that the reply (a TCP
 * ACK) finds a path at once instead of after the next retry. */
void bsr_on_path_heard(bsr *b, const dcn_path *p);

void bsr_tick(bsr *b); /* call every ~100 ms */
/* No flow and no failed link known: bsr_tick has nothing to time. */
bool bsr_idle(const bsr *b);

/* ---- Additions ---- */

/* Same as bsr_route, and counts `bytes` (the packet's length) towards the
 * flow's own sending rate. BSR adds a flow's own rate back to the measured
 * available bandwidth of its current path before comparing it with the
 * other paths; without it a busy flow sees its own load on its path and
 * keeps fleeing it. The data plane should call this form. */
const dcn_path *bsr_route_bytes(bsr *b, const bsr_flow_key *k, uint32_t dst_server, uint32_t bytes);
/* The path a known flow towards dst_server is on, with no side effect (the
 * flow is neither created nor touched); NULL when there is none. */
const dcn_path *bsr_current_path(const bsr *b, const bsr_flow_key *k, uint32_t dst_server);
/* bsr_wants_path_from, for any source: while it holds, every data packet
 * delivered to us should be shown to bsr_on_path_heard. */
bool bsr_wants_any_path(const bsr *b);

/* Whether a path-failure message concerns one of our flows. to_reporter is
 * the node path from us to the server that sent it (the reverse of the path
 * the message travelled). BSR_FAIL_ON_PATH: some flow's current or probed
 * path starts with to_reporter and crosses the link a-b within its next
 * server hop; BSR_FAIL_LINK_OFF_PATH: flows go through the reporter, but
 * none over a-b there; BSR_FAIL_UNKNOWN_FLOW: no flow's path goes through
 * the reporter that way. Reads only; no allocation. */
typedef enum {
    BSR_FAIL_ON_PATH = 0,
    BSR_FAIL_LINK_OFF_PATH,
    BSR_FAIL_UNKNOWN_FLOW,
} bsr_fail_match;
bsr_fail_match bsr_failure_match(const bsr *b, const dcn_path *to_reporter, uint32_t node_a, uint32_t node_b);

/* ---- Introspection for dcn-ctl ---- */

#define BSR_MAX_PATHS 16             /* paths kept per flow (larger sets are cut) */
#define BSR_AVAIL_UNKNOWN UINT32_MAX /* no probe answer for that path yet */

typedef enum {
    BSR_PATH_UNPROBED = 0, /* not probed in the current round yet */
    BSR_PATH_PENDING,      /* probe sent, no answer yet */
    BSR_PATH_GOOD,         /* answered; avail_mbps is its bandwidth */
    BSR_PATH_FAILED,       /* timed out or crosses a failed link */
} bsr_path_state;

typedef struct bsr_flow_info {
    bsr_flow_key key;
    uint32_t dst_server;
    dcn_path path;           /* the current path (len 0: none, unreachable) */
    int32_t path_index;      /* index of the current path in paths[], -1 when it is not in the set */
    uint32_t n_paths;        /* paths in the flow's set */
    uint32_t avail_mbps[BSR_MAX_PATHS]; /* last measured per path, BSR_AVAIL_UNKNOWN if none */
    uint8_t path_state[BSR_MAX_PATHS];  /* bsr_path_state per path */
    uint32_t cur_avail_mbps; /* last measured on the current path, BSR_AVAIL_UNKNOWN if none */
    uint32_t own_rate_mbps;  /* the flow's own sending rate (from bsr_route_bytes) */
    uint32_t probes_sent;
    uint32_t path_switches;
    uint64_t age_ms;         /* since the flow's first packet */
    uint64_t idle_ms;        /* since its last packet */
} bsr_flow_info;

typedef struct bsr_counters {
    uint64_t flows;            /* flows in the table now */
    uint64_t flows_created;
    uint64_t flows_expired;    /* idle too long */
    uint64_t flows_evicted;    /* least recently used, to make room in a full table */
    uint64_t probes_sent;
    uint64_t probe_send_errors; /* send_probe returned < 0 */
    uint64_t probe_responses;
    uint64_t probe_responses_stale; /* unknown flow or sequence (late, or of an old round) */
    uint64_t probe_responses_wrong_path; /* the right nonce, back on another path than the probe's: ignored */
    uint64_t probe_timeouts;
    uint64_t path_switches;
    uint64_t moves_deferred;   /* rounds that put off a move: another flow of ours had just moved nearby */
    uint64_t apart_paths_added; /* BFS paths added to a set whose every path a bulk flow to the same server shared */
    uint64_t failures_heard;   /* path-failure messages and local ports going down */
    uint64_t failures_ignored; /* messages naming two nodes that are not adjacent */
    uint64_t faildb_entries;   /* links in the failed-link database now */
    uint64_t faildb_expired;
    uint64_t faildb_cleared_by_probe;
    uint64_t faildb_cleared_by_data; /* links a received data packet crossed (bsr_on_path_heard) */
    uint64_t unreachable;      /* bsr_route calls answered NULL */
} bsr_counters;

/* Copies up to max flows (most recently used first) into out; returns the
 * number written. out may be NULL when max is 0. */
size_t bsr_flows(const bsr *b, bsr_flow_info *out, size_t max);
void bsr_get_counters(const bsr *b, bsr_counters *out);

/* One entry of the failed-link database. */
typedef struct bsr_faildb_info {
    uint32_t node_a, node_b;
    uint64_t expires_in_ms; /* UINT64_MAX: a local port that is down (no timeout) */
} bsr_faildb_info;

size_t bsr_faildb_list(const bsr *b, bsr_faildb_info *out, size_t max);

/* The path set a new flow towards dst would probe now: algos[0] of the
 * family, repaired under the failed-link database. Returns the number of
 * paths (0: unreachable), or -1 on a bad dst. For `dcn-ctl paths DST`. */
int bsr_pathset(bsr *b, uint32_t dst_server, dcn_pathset *out);

#endif
