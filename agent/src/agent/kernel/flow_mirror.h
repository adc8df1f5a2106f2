/* The agent's copy of the kernel's "flows" map (--data-path kernel): for
 * each flow the kernel sends, the flow as path selection knows it, the path
 * the kernel was given, and the bytes already counted towards the flow.
 * An open-addressing table of fixed size, allocated once: nothing is
 * allocated per packet or per flow. No I/O, so the unit tests drive it. */
#ifndef DCN_AGENT_FLOW_MIRROR_H
#define DCN_AGENT_FLOW_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/path_select.h"
#include "relay_maps.h"

#define FLOW_MIRROR_SLOTS (2 * KRELAY_FLOWS) /* a power of two; at most KRELAY_FLOWS used */

typedef struct flow_mirror_entry {
    bool used;
    struct krelay_flow_key key; /* as in the map */
    dcn_flow_key flow;          /* as path selection has it */
    uint32_t dst;               /* the destination server */
    int ifindex;                /* the port's interface when the entry was written */
    uint8_t nhops, port;
    uint8_t nha[KRELAY_MAX_NHOPS];
    uint64_t counted; /* the kernel's byte count already told to path selection */
} flow_mirror_entry;

typedef struct flow_mirror {
    flow_mirror_entry slot[FLOW_MIRROR_SLOTS];
    unsigned n;
} flow_mirror;

/* The map key of a flow (network byte order, as dcn_kernel_send builds it). */
struct krelay_flow_key flow_mirror_key(const dcn_flow_key *k);
flow_mirror_entry *flow_mirror_find(flow_mirror *m, const struct krelay_flow_key *k);
/* The entry of k, new (zeroed but for its key) or existing; NULL when
 * KRELAY_FLOWS entries are used. */
flow_mirror_entry *flow_mirror_add(flow_mirror *m, const struct krelay_flow_key *k);
void flow_mirror_remove(flow_mirror *m, flow_mirror_entry *e);

#endif
