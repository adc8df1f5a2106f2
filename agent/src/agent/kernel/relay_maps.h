/* What the agent and its kernel data path (relay.bpf.c) share: the layout
 * of the programs' maps. Included by the BPF program (clang -target bpf)
 * and by the agent (kernel_relay.c), so only <linux/types.h> types.
 * Addresses and NHAs are kept as they sit in the frame (network byte
 * order). */
#ifndef DCN_AGENT_KERNEL_RELAY_MAPS_H
#define DCN_AGENT_KERNEL_RELAY_MAPS_H

#include <linux/types.h>

#include "../core/wire.h"

#define KRELAY_MAX_PORTS 4    /* NHA_MAX_PORTS */
#define KRELAY_MAX_NHOPS 8    /* longer paths are relayed by the agent */
#define KRELAY_HDR_LEN DCN_HDR_BASE /* the DCN header of a path of <= 8 hops */
#define KRELAY_PATHS 4096     /* validated paths kept (least recently used go) */
#define KRELAY_FLOWS 1024     /* flows sent by the kernel */

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
/* A path that ends here (nhi == nhops) is in "paths" too once the agent
 * delivered one of its data frames: the kernel then takes the header off
 * the next ones and hands them to dcn0. */

/* "flows": a flow the agent sent, on the path its
 * path selection (BSR) gave it; the kernel sends the flow's next packets
 * from dcn0's egress. The key is the agent's flow key (engine_from_tun:
 * ports only for unfragmented TCP and UDP), in network byte order. */
struct krelay_flow_key {
    __u32 src_ip, dst_ip;
    __u16 src_port, dst_port;
    __u8 proto, pad[3];
};
struct krelay_flow {
    __u8 hdr[KRELAY_HDR_LEN]; /* the DCN header, packet id, payload length and checksum 0 */
    __u32 ifindex;            /* the first hop's port */
    __u8 port, first_nha, pad[2];
    __u64 bytes, packets;     /* sent by the kernel (atomic adds), IP bytes */
};

/* "config", one entry: dcn0, the segmenting veth and the ports' MTU (all 0
 * until the agent enables the two ends: the kernel then only relays). */
struct krelay_config {
    __u32 tun_ifindex;
    __u32 seg_ifindex; /* the near end of the segmenting veth: GSO batches go out there */
    __u32 port_mtu;    /* a frame's DCN header and IP packet fit in it */
    __u32 deliver_to_agent; /* path selection wants to hear delivered paths (ps_wants_any_path) */
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

/* "stats": per CPU, per port index: what the kernel took in and sent out
 * on the port, added by the agent to its port meters and counters. */
struct krelay_stats {
    __u64 rx_bytes, rx_frames, tx_bytes, tx_frames;
    __u64 relayed, sent, delivered; /* frames, by what the kernel did with them */
};

#endif
