/* Source-side path selection as the data plane sees it. One
 * implementation, chosen by name in CMake (DCN_PATH_SELECT=bsr):
 * path_select_bsr.c, the adapter to BSR (bsr.c). docs/architecture.md,
 * "Build: the path selector". */
#ifndef DCN_AGENT_PATH_SELECT_H
#define DCN_AGENT_PATH_SELECT_H

#include <stdint.h>

#include "topo/path.h"
#include "topo/topo.h"

typedef struct dcn_flow_key {
    uint32_t src_ip, dst_ip;
    uint16_t src_port, dst_port;
    uint8_t proto;
} dcn_flow_key;

typedef struct ps_io {
    void *ctx;
    uint64_t (*now_ms)(void *ctx);
    /* credit_mbps: see bsr_io.send_probe (agent/bsr/bsr.h) */
    int (*send_probe)(void *ctx, const dcn_flow_key *flow, uint32_t probe_seq, const dcn_path *path,
                      uint32_t credit_mbps);
    uint32_t (*port_avail_mbps)(void *ctx, uint16_t port, int out);
} ps_io;

typedef struct ps_flow_info {
    dcn_flow_key key;
    uint32_t dst_server;
    dcn_path path; /* len 0: none */
    int path_index;
    int avail_known;
    uint32_t avail_mbps;
    uint32_t rate_mbps; /* the flow's own sending rate, when known */
    uint32_t probes, switches;
    uint64_t age_ms;
} ps_flow_info;

typedef struct path_select path_select;

/* The selector's name: "bsr". */
const char *ps_name(void);
/* max_flows: the flow table's size, allocated here (0: the selector's
 * default). */
path_select *ps_create(const dcn_topo *t, uint32_t self, const ps_io *io, uint64_t seed, uint32_t max_flows);
void ps_destroy(path_select *ps);
/* bytes: the packet's length, counted towards the flow's own rate. */
const dcn_path *ps_route(path_select *ps, const dcn_flow_key *k, uint32_t dst_server, uint32_t bytes);
/* The path a known flow is on, with no side effect; NULL when none. */
const dcn_path *ps_current(const path_select *ps, const dcn_flow_key *k, uint32_t dst_server);
/* The path set a new flow towards dst would use; -1 on a bad dst. */
int ps_pathset(path_select *ps, uint32_t dst_server, dcn_pathset *out);
/* path: the path the response came back on, reversed (source first); it
 * must be the probed one. */
void ps_on_probe_response(path_select *ps, const dcn_flow_key *k, uint32_t probe_seq, uint32_t avail_mbps,
                          const dcn_path *path);
void ps_on_path_failure(path_select *ps, uint32_t node_a, uint32_t node_b);
/* A path-failure message addressed to us: does it concern a flow we know?
 * to_reporter: the node path from us to the server that sent it. */
typedef enum {
    PS_FAIL_ON_PATH = 0,    /* a flow's path goes through the reporter and over the link */
    PS_FAIL_LINK_OFF_PATH,  /* flows go through the reporter, none over that link */
    PS_FAIL_UNKNOWN_FLOW,   /* no flow's path goes through the reporter */
} ps_fail_match;
ps_fail_match ps_failure_match(path_select *ps, const dcn_path *to_reporter, uint32_t node_a, uint32_t node_b);
void ps_on_local_port(path_select *ps, uint16_t port, int up);
/* bsr_wants_path_from / bsr_on_path_heard: a data packet delivered to us
 * proves the links it crossed are up (read only while a flow of ours back
 * to its source has no path). */
bool ps_wants_path_from(const path_select *ps, uint32_t src);
void ps_on_path_heard(path_select *ps, const dcn_path *p);
/* ps_wants_path_from for some source (the kernel then leaves deliveries to
 * the agent, which shows them to ps_on_path_heard). */
bool ps_wants_any_path(const path_select *ps);
void ps_tick(path_select *ps);
/* ps_tick has nothing to time (no flow, no failure state): the agent may
 * then tick only when the engine's own deadlines come. */
bool ps_idle(const path_select *ps);
/* Named counters of the selector (BSR's bsr_counters); returns how many
 * were written (0 for the fallback). */
typedef struct ps_counter {
    const char *name;
    uint64_t value;
} ps_counter;
int ps_counters(path_select *ps, ps_counter *out, int max);
/* Up to max flows for introspection; returns how many were written. */
int ps_flows(path_select *ps, ps_flow_info *out, int max);
/* One link the selector holds failed (`dcn-ctl failures`). */
typedef struct ps_failed_link {
    uint32_t node_a, node_b;
    bool local;             /* our own port to the peer is down: no timeout */
    uint64_t expires_in_ms; /* learned from a path-failure message (when not local) */
} ps_failed_link;
/* Up to max links of the failed-link database; returns how many were written. */
int ps_failed_links(path_select *ps, ps_failed_link *out, int max);

#endif
