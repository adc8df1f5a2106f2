/* The entries the agent writes into its kernel data path's maps (relay_maps.h),
 * built from the engine's state with no I/O, so the unit tests check them
 * without privileges. */
#ifndef DCN_AGENT_KERNEL_RELAY_ENTRIES_H
#define DCN_AGENT_KERNEL_RELAY_ENTRIES_H

#include <stdbool.h>

#include "agent/core/engine.h"
#include "relay_maps.h"

/* The "paths" key of a data frame's header, when the kernel relay may carry
 * its path: a data frame with no flags (no MDCube extension), at most
 * KRELAY_MAX_NHOPS hops, relayed here (0 < NHI < nhops). False otherwise. */
bool krelay_path_key_of(const dcn_hdr *h, struct krelay_path_key *k);
/* The same key for a data frame delivered here (NHI == nhops), with the
 * same conditions otherwise. */
bool krelay_delivery_key_of(const dcn_hdr *h, struct krelay_path_key *k);
/* The "flows" value of a packet sent with header h (from engine_from_tun)
 * on port, whose interface is ifindex: false when the kernel may not send
 * the flow (MDCube extension, over KRELAY_MAX_NHOPS hops). */
bool krelay_flow_of(const dcn_hdr *h, unsigned port, int ifindex, struct krelay_flow *out);
/* The "neigh" entry of NHA nha: up only when the engine would use the hop
 * (eng_hop_usable); ifindex is the out port's (0 when it has none). */
void krelay_neigh_of(const engine *e, unsigned nha, const int ifindex[ENGINE_MAX_PORTS], struct krelay_neigh *out);

#endif
