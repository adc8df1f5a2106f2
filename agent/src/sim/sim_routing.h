/* How the simulator routes one flow: a library algorithm, plus the choice of
 * one path from the set it returns. */
#ifndef DCN_SIM_ROUTING_H
#define DCN_SIM_ROUTING_H

#include <stdbool.h>
#include <stddef.h>

#include "topo/family.h"

typedef enum {
    SIM_PICK_FIRST,        /* the algorithm's first path */
    SIM_PICK_LEAST_LOADED, /* greedy: the path whose busiest link has the fewest flows so far */
    SIM_PICK_RANDOM,       /* uniformly among the paths returned */
} sim_pick;

typedef struct sim_routing {
    char name[32];
    const dcn_algo *algo;
    sim_pick pick;
    /* Route as if nothing failed and keep the paths that are still valid;
     * only when none is, ask the algorithm again with the failures. Right
     * for algorithms whose answer under failures keeps the fault-free paths
     * that survive (BuildPathSet + BSR repair, DCellRouting + DFR, ECMP). */
    bool oblivious_first;
} sim_routing;

/* Resolves NAME for the family of t:
 *   bsr       the family's parallel path set ("pathset"), a uniformly drawn path of it: at the
 *             start of an all-to-all every path of the set probes the same idle network, so
 *             BSR's choice of the path with most available bandwidth is a tie (docs/simulator.md)
 *   bsr-greedy the same set, the least-loaded path given the flows placed before (flow order)
 *   ecmp      the algorithm "ecmp" if the family has it, else "pathset"; random path
 *   ALGO      any algorithm of the family (route, dfr, fdim, brouting, bfrouting, detour,
 *             shortest, ...): its first path
 *   ALGO:least-loaded | ALGO:random | ALGO:first   an explicit choice
 * Returns 0, or -1 with a one-line message listing what exists. */
int sim_routing_resolve(sim_routing *r, const dcn_topo *t, const char *name, char *err, size_t errlen);

#endif
