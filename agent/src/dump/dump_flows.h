/* dcn-dump's summary: frames by type, malformed frames, and the data flows
 * seen with the paths they took. A flow is (source server, destination
 * server, inner IP protocol and TCP/UDP ports); its path is the NHA array.
 * A path switch is a data frame of a flow whose NHAs differ from the flow's
 * previous frame. The table is allocated once (no allocation per frame);
 * flows beyond its capacity are counted, not tracked. */
#ifndef DCN_DUMP_FLOWS_H
#define DCN_DUMP_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dump_decode.h"

#define DUMP_FLOW_PATHS 8 /* distinct paths remembered per flow */

typedef struct dump_flow {
    bool used;
    uint32_t src, dst;
    uint8_t proto;
    uint16_t sport, dport;
    uint64_t frames, bytes;
    uint64_t last_path;
    uint32_t n_paths; /* distinct paths seen (counted up to DUMP_FLOW_PATHS) */
    uint64_t path[DUMP_FLOW_PATHS];
    uint32_t switches;
} dump_flow;

typedef struct dump_flows {
    dump_flow *slot;
    uint32_t cap, n, *order; /* order: slots in order of first appearance */
    uint64_t frames, dcn, malformed, other, untracked, switches;
    uint64_t by_type[256];
} dump_flows;

/* cap is rounded up to a power of two. Returns 0, or -1 out of memory. */
int dump_flows_init(dump_flows *s, uint32_t cap);
void dump_flows_free(dump_flows *s);
/* Counts one decoded frame; returns true when it is a path switch. */
bool dump_flows_add(dump_flows *s, const dump_frame *f);
/* Prints the summary (names through t when given, unless numeric). */
void dump_flows_print(const dump_flows *s, const dcn_topo *t, bool numeric, FILE *out);

#endif
