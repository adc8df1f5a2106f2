/* The kernel relay: BCube relaying of plain data frames in the kernel, at
 * tc ingress (TCX) of each server port, for dcn-agent --kernel-relay=on
 * (docs/protocol.md, "The kernel relay"). It relays only what the agent has
 * already decided it would relay:
 *   - a data frame for this host (not flooded), version 1, no MDCube
 *     extension, at most 8 hops, 0 < NHI < nhops, its header checksum and
 *     payload length good;
 *   - whose path the agent validated at this relay ("paths", written by the
 *     agent when it relays the path's first frame), arriving on that path's
 *     port;
 *   - whose next hop is up in the agent's neighbour table ("neigh").
 * It then does the agent's rewrite: NHI + 1 with the checksum updated
 * (RFC 1624), both MACs, and a redirect to the out port. Anything else goes
 * on, untouched, to the agent's packet socket (bound to the DCN EtherType,
 * so it sees only what this program passes), which decides, counts drops
 * and reports failures as before. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "relay_maps.h"

#define DCN_ETHERTYPE 0x88B5
#define OFF_NHI 20

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, KRELAY_PATHS);
    __type(key, struct krelay_path_key);
    __type(value, struct krelay_path_val);
} paths SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 256);
    __type(key, __u32);
    __type(value, struct krelay_neigh);
} neigh SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, KRELAY_MAX_PORTS);
    __type(key, __u32);
    __type(value, struct krelay_stats);
} stats SEC(".maps");

static __always_inline void count(__u32 port, int out, __u32 len)
{
    struct krelay_stats *s = bpf_map_lookup_elem(&stats, &port);
    if (!s)
        return;
    if (out) {
        s->tx_bytes += len;
        s->tx_frames++;
    } else {
        s->rx_bytes += len;
        s->rx_frames++;
    }
}

SEC("tc")
int dcn_kernel_relay(struct __sk_buff *skb)
{
    if (skb->protocol != bpf_htons(DCN_ETHERTYPE) || skb->pkt_type != PACKET_HOST ||
        skb->len < ETH_HLEN + KRELAY_HDR_LEN)
        return TC_ACT_UNSPEC;
    if (bpf_skb_pull_data(skb, ETH_HLEN + KRELAY_HDR_LEN)) /* large frames arrive with the header in fragments */
        return TC_ACT_UNSPEC;
    __u8 *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
    __u8 *h = data + ETH_HLEN;
    if (h + KRELAY_HDR_LEN > end)
        return TC_ACT_UNSPEC;
    if (h[0] != 1 || h[1] != 1 || h[2] != 0) /* version 1, data, no flags */
        return TC_ACT_UNSPEC;
    __u8 nhops = h[3], nhi = h[OFF_NHI];
    if (nhops > KRELAY_MAX_NHOPS || nhi == 0 || nhi >= nhops)
        return TC_ACT_UNSPEC;
    __u32 plen = (__u32)h[16] << 8 | h[17];
    if (skb->len < ETH_HLEN + KRELAY_HDR_LEN + plen)
        return TC_ACT_UNSPEC;
    __s64 sum = bpf_csum_diff(0, 0, (__be32 *)h, KRELAY_HDR_LEN, 0);
    if (sum < 0)
        return TC_ACT_UNSPEC;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    if (sum != 0xffff) /* the agent counts it */
        return TC_ACT_UNSPEC;

    __u8 *q = h + 28 + (nhi & (KRELAY_MAX_NHOPS - 1)); /* the next hop's NHA */
    if (q + 1 > end)
        return TC_ACT_UNSPEC;
    __u32 nha = *q;
    struct krelay_path_key k = {.nhops = nhops, .nhi = nhi};
    __builtin_memcpy(&k.src, h + 4, 4);
    __builtin_memcpy(&k.dst, h + 8, 4);
    __builtin_memcpy(k.nha, h + 28, KRELAY_MAX_NHOPS);
    struct krelay_path_val *pv = bpf_map_lookup_elem(&paths, &k);
    if (!pv || pv->in_ifindex != skb->ifindex)
        return TC_ACT_UNSPEC;
    struct krelay_neigh *ne = bpf_map_lookup_elem(&neigh, &nha);
    if (!ne || !ne->up)
        return TC_ACT_UNSPEC; /* the agent reports the failure */

    __u16 oldw, neww;
    __builtin_memcpy(&oldw, h + OFF_NHI, 2); /* NHI and the reserved byte, as in the frame */
    __u8 next[2] = {nhi + 1, h[OFF_NHI + 1]};
    __builtin_memcpy(&neww, next, 2);
    __u32 len = skb->len, in_port = pv->in_port, out_port = ne->port, ifindex = ne->ifindex;
    if (bpf_l3_csum_replace(skb, ETH_HLEN + 18, oldw, neww, 2) ||
        bpf_skb_store_bytes(skb, ETH_HLEN + OFF_NHI, next, 1, 0) || bpf_skb_store_bytes(skb, 0, ne->mac, 12, 0))
        return TC_ACT_SHOT;
    count(in_port, 0, len);
    count(out_port, 1, len);
    return bpf_redirect(ifindex, 0);
}

char _license[] SEC("license") = "GPL";
