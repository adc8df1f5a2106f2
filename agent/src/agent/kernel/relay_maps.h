/* What the agent and its kernel relay (relay.bpf.c) share: the layout of
 * the relay's maps. Included by the BPF program (clang -target bpf) and by
 * the agent (kernel_relay.c), so only <linux/types.h> types. Addresses and
 * NHAs are kept as they sit in the frame (network byte order). */
#ifndef DCN_AGENT_KERNEL_RELAY_MAPS_H
#define DCN_AGENT_KERNEL_RELAY_MAPS_H

#include <linux/types.h>

#define KRELAY_MAX_PORTS 4    /* NHA_MAX_PORTS */
#define KRELAY_MAX_NHOPS 8    /* longer paths are relayed by the agent */
#define KRELAY_HDR_LEN 36     /* the DCN header of a path of <= 8 hops */
#define KRELAY_PATHS 4096     /* validated paths kept (least recently used go) */

/* "paths": a data path the agent validated at this relay (walkable from
 * src to dst without a loop, naming us at NHI over in_port), as its
 * validation cache (engine_path_check) holds it. */
struct krelay_path_key {
    __u32 src, dst; /* as in the frame */
    __u8 nhops, nhi, pad[2];
    __u8 nha[KRELAY_MAX_NHOPS];
};
struct krelay_path_val {
    __u32 in_ifindex; /* the port the path reaches us over */
    __u32 in_port;
};

/* "neigh": the neighbour status table, indexed by NHA. up is the agent's
 * "usable" (eng_hop_usable: heard, port present, carrier); mac and own_mac
 * are consecutive, the Ethernet destination and source of a relayed frame. */
struct krelay_neigh {
    __u32 ifindex; /* the out port's */
    __u8 up, port, pad[2];
    __u8 mac[6];
    __u8 own_mac[6];
};

/* "stats": per CPU, per port index: what the kernel relay took in and sent
 * out, added by the agent to its port meters and counters. */
struct krelay_stats {
    __u64 rx_bytes, rx_frames, tx_bytes, tx_frames;
};

#endif
