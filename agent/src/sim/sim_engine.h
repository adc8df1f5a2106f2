/* The flow-level engine: every flow of a traffic pattern is routed by the
 * library's routing under a failure set, and the flows are counted on every
 * directed link.
 *
 * Definitions (docs/simulator.md):
 * - A flow is an ordered pair (src, dst) of distinct servers of the pattern.
 *   Flows with a failed end point are dropped, as the papers do.
 * - A directed link is (node, out port): the global port index
 *   t->port_base[node] + port. Its flow count is the number of routed flows
 *   whose path leaves node on that port.
 * - Bottleneck throughput = min over directed links carrying flows of
 *   capacity / flow count. Under max-min fair sharing this is the rate of the
 *   slowest flow (the first link that water-filling saturates).
 * - ABT = routed flows x bottleneck throughput (BCube paper, Sec. 6).
 * - Path failure ratio = flows with live end points that get no path /
 *   flows with live end points. */
#ifndef DCN_SIM_ENGINE_H
#define DCN_SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_routing.h"
#include "topo/failures.h"
#include "topo/path.h"
#include "topo/topo.h"

typedef struct sim_config {
    double link_gbps;      /* capacity of a link with a server end (1) */
    double highspeed_gbps; /* capacity of a switch-to-switch link (MDCube fibres: 10; fat-tree: 1) */
    unsigned threads;      /* worker threads (greedy selection runs on one) */
    uint64_t seed;         /* routing draws: per source, independent of the thread count */
    const uint32_t *servers; /* the pattern's servers (NULL: all servers) */
    uint32_t n_pattern;      /* their number */
    uint64_t sample_flows;   /* 0: every flow; else this many random flows of the pattern */
    bool progress;           /* progress lines on stderr */
} sim_config;

void sim_config_default(sim_config *c);

typedef struct sim_result {
    uint64_t flows_pattern;   /* flows of the pattern (or samples drawn) */
    uint64_t flows_dropped;   /* an end point failed */
    uint64_t flows_live;      /* both end points up */
    uint64_t flows_routed;    /* got a path */
    uint64_t flows_unrouted;  /* live, but no path */
    uint64_t n_ports;         /* entries of link_flows */
    uint32_t *link_flows;     /* flows per directed link (global port index) */
    uint64_t hist_links[DCN_PATH_MAX + 1]; /* routed flows by path length in links */
    uint64_t hist_hops[DCN_PATH_MAX + 1];  /* ... in server hops */
    uint32_t max_link_flows;
    uint64_t bottleneck_port;  /* global port index of the bottleneck link */
    double bottleneck_gbps;    /* 0 when no flow was routed */
    double abt_gbps;
    double path_failure_ratio;
    double mean_links, mean_hops;
    double seconds;
} sim_result;

/* Runs the pattern. Returns 0, or -1 with err filled. f may be NULL. */
int sim_run(const dcn_topo *t, const sim_routing *r, const dcn_failures *f, const sim_config *cfg, sim_result *res,
            char *err, size_t errlen);
void sim_result_free(sim_result *res);

/* Capacity of the directed link leaving node v on port p. */
double sim_link_capacity(const dcn_topo *t, const sim_config *cfg, uint32_t v, uint16_t p);

#endif
