/* Random failures for the simulator: a ratio of the servers, the switches
 * or the cables, drawn reproducibly from a seed. */
#ifndef DCN_SIM_FAILURES_H
#define DCN_SIM_FAILURES_H

#include <stdint.h>

#include "topo/failures.h"
#include "topo/topo.h"

typedef enum { SIM_FAIL_NONE = 0, SIM_FAIL_SERVER, SIM_FAIL_SWITCH, SIM_FAIL_LINK } sim_fail_kind;

/* "none", "server", "switch", "link"; -1 when unknown. */
int sim_fail_kind_parse(const char *s, sim_fail_kind *out);
const char *sim_fail_kind_name(sim_fail_kind k);

/* Clears f, then fails round(ratio * population) distinct elements of the
 * kind (population: servers, switches, or cables), drawn by a partial
 * Fisher-Yates shuffle from seed. Returns the number failed, or -1 when out
 * of memory. The same (topology, kind, ratio, seed) always fails the same
 * elements. */
long sim_failures_sample(dcn_failures *f, const dcn_topo *t, sim_fail_kind kind, double ratio, uint64_t seed);

#endif
