/* The kernel's data path (dcn-agent --data-path kernel, the default;
 * docs/protocol.md, "The kernel's data path"). The relay: BCube relaying
 * of plain data frames in the kernel, at tc ingress (TCX) of each server
 * port. It relays only what the agent has already decided it would relay:
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
 * and reports failures as before.
 *
 * It also does the two ends of a path, still only for what the agent
 * already did once:
 *   - the destination (dcn_kernel_relay, NHI == nhops): a data frame whose
 *     path the agent delivered a frame of, arriving on that path's port,
 *     carrying an IPv4 packet the agent would deliver, loses its Ethernet
 *     and DCN headers and is handed to dcn0's ingress, as the agent's TUN
 *     write would;
 *   - the source (dcn_kernel_send, TCX egress of dcn0): an IPv4 packet of a
 *     flow in "flows" (written by the agent when it sent the flow's packet
 *     on the path BSR gave it), not a GSO packet, whose first hop is up,
 *     gets the flow's DCN header (payload length, packet id and checksum
 *     filled in) and an Ethernet header, and leaves on the first hop's
 *     port. Anything else goes on to the TUN device and the agent. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../core/wire.h"
#include "relay_maps.h"

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
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, KRELAY_FLOWS);
    __type(key, struct krelay_flow_key);
    __type(value, struct krelay_flow);
} flows SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct krelay_config);
} config SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, KRELAY_MAX_PORTS);
    __type(key, __u32);
    __type(value, struct krelay_stats);
} stats SEC(".maps");

static __always_inline struct krelay_stats *port_stats(__u32 port) { return bpf_map_lookup_elem(&stats, &port); }

static __always_inline void count_rx(__u32 port, __u32 len, int delivered)
{
    struct krelay_stats *s = port_stats(port);
    if (!s)
        return;
    s->rx_bytes += len;
    s->rx_frames++;
    s->delivered += delivered;
}

static __always_inline void count_tx(__u32 port, __u32 len, int relayed)
{
    struct krelay_stats *s = port_stats(port);
    if (!s)
        return;
    s->tx_bytes += len;
    s->tx_frames++;
    s->relayed += relayed;
    s->sent += !relayed;
}

/* The 16-bit ones' complement sum of a bpf_csum_diff result, folded. */
static __always_inline __u32 fold(__s64 sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (__u32)sum;
}

static __always_inline struct krelay_config *config_of(void)
{
    __u32 zero = 0;
    return bpf_map_lookup_elem(&config, &zero);
}

/* skb->protocol read again from the frame's EtherType: a VLAN tag pushed
 * twice puts the first one in the frame (skb->protocol becomes VLAN), and
 * popping twice takes it out, setting skb->protocol from the EtherType
 * behind it. There is no helper that sets it, and the kernel keys on it:
 * bpf_skb_adjust_room works only on IPv4 and IPv6, and the links' tc
 * filters (small frames first, orchestrator/linkclass.py) sort DCN frames
 * by it. The frame must carry no tag of its own (vlan_present). */
static __always_inline int reread_ethertype(struct __sk_buff *skb)
{
    return bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), 0) || bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), 0) ||
           bpf_skb_vlan_pop(skb) || bpf_skb_vlan_pop(skb);
}

/* The destination's half: the frame (checked like a
 * relayed one) ends here, on a path the agent delivered a frame of. The
 * agent's checks of the IPv4 packet first (deliver_local), then the
 * headers go: the EtherType becomes IPv4 and the kernel reads it again
 * (reread_ethertype), which bpf_skb_adjust_room needs before it takes the
 * DCN header out; dcn0's ingress then receives the bare IPv4 packet. */
static __always_inline int deliver(struct __sk_buff *skb, const __u8 *h, __u32 plen, __u32 in_port)
{
    if (h[DCN_OFF_PROTO] != (DCN_PROTO_IPV4 >> 8) || h[DCN_OFF_PROTO + 1] != (DCN_PROTO_IPV4 & 0xff))
        return TC_ACT_UNSPEC;
    struct krelay_config *c = config_of();
    if (!c || !c->tun_ifindex || c->deliver_to_agent || skb->vlan_present) /* the tags below must be ours */
        return TC_ACT_UNSPEC;
    __u8 ip[4];
    if (bpf_skb_load_bytes(skb, ETH_HLEN + KRELAY_HDR_LEN, ip, sizeof ip))
        return TC_ACT_UNSPEC;
    __u32 tot = (__u32)ip[2] << 8 | ip[3];
    if ((ip[0] >> 4) != 4 || tot < 20 || tot < (ip[0] & 15u) * 4u || tot > plen)
        return TC_ACT_UNSPEC; /* the agent counts it */
    __u32 len = skb->len, tun = c->tun_ifindex;
    __be16 ipv4 = bpf_htons(DCN_PROTO_IPV4);
    if (bpf_skb_store_bytes(skb, 12, &ipv4, 2, 0) || reread_ethertype(skb) || skb->protocol != ipv4 ||
        bpf_skb_adjust_room(skb, -KRELAY_HDR_LEN, BPF_ADJ_ROOM_MAC, 0))
        return TC_ACT_SHOT; /* the frame is no longer whole */
    count_rx(in_port, len, 1);
    return bpf_redirect(tun, BPF_F_INGRESS);
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
    if (h[DCN_OFF_VERSION] != DCN_VERSION || h[DCN_OFF_TYPE] != DCN_T_DATA || h[DCN_OFF_FLAGS] != 0)
        return TC_ACT_UNSPEC;
    __u8 nhops = h[DCN_OFF_NHOPS], nhi = h[DCN_OFF_NHI];
    if (nhops > KRELAY_MAX_NHOPS || nhi == 0 || nhi > nhops)
        return TC_ACT_UNSPEC;
    __u32 plen = (__u32)h[DCN_OFF_PLEN] << 8 | h[DCN_OFF_PLEN + 1];
    if (skb->len < ETH_HLEN + KRELAY_HDR_LEN + plen)
        return TC_ACT_UNSPEC;
    if (fold(bpf_csum_diff(0, 0, (__be32 *)h, KRELAY_HDR_LEN, 0)) != 0xffff) /* the agent counts it */
        return TC_ACT_UNSPEC;

    struct krelay_path_key k = {.nhops = nhops, .nhi = nhi};
    __builtin_memcpy(&k.src, h + DCN_OFF_SRC, 4);
    __builtin_memcpy(&k.dst, h + DCN_OFF_DST, 4);
    __builtin_memcpy(k.nha, h + DCN_OFF_NHA, KRELAY_MAX_NHOPS);
    struct krelay_path_val *pv = bpf_map_lookup_elem(&paths, &k);
    if (!pv || pv->in_ifindex != skb->ifindex)
        return TC_ACT_UNSPEC;
    if (nhi == nhops)
        return deliver(skb, h, plen, pv->in_port);

    __u8 *q = h + DCN_OFF_NHA + (nhi & (KRELAY_MAX_NHOPS - 1)); /* the next hop's NHA */
    if (q + 1 > end)
        return TC_ACT_UNSPEC;
    __u32 nha = *q;
    struct krelay_neigh *ne = bpf_map_lookup_elem(&neigh, &nha);
    if (!ne || !ne->up)
        return TC_ACT_UNSPEC; /* the agent reports the failure */

    __u16 oldw, neww;
    __builtin_memcpy(&oldw, h + DCN_OFF_NHI, 2); /* NHI and the reserved byte, as in the frame */
    __u8 next[2] = {nhi + 1, h[DCN_OFF_NHI + 1]};
    __builtin_memcpy(&neww, next, 2);
    __u32 len = skb->len, in_port = pv->in_port, out_port = ne->port, ifindex = ne->ifindex;
    if (bpf_l3_csum_replace(skb, ETH_HLEN + DCN_OFF_CSUM, oldw, neww, 2) ||
        bpf_skb_store_bytes(skb, ETH_HLEN + DCN_OFF_NHI, next, 1, 0) || bpf_skb_store_bytes(skb, 0, ne->mac, 12, 0))
        return TC_ACT_SHOT;
    count_rx(in_port, len, 0);
    count_tx(out_port, len, 1);
    return bpf_redirect(ifindex, 0);
}

/* The source's half. The flow of an IPv4 packet
 * that starts at offset off (as engine_from_tun keys it: ports only for
 * unfragmented TCP and UDP); false when it is not one. */
static __always_inline int flow_key_of(struct __sk_buff *skb, __u32 off, struct krelay_flow_key *k)
{
    __u8 iph[20];
    if (bpf_skb_load_bytes(skb, off, iph, sizeof iph) || (iph[0] >> 4) != 4)
        return 0;
    __u32 ihl = (iph[0] & 15u) * 4u;
    __builtin_memset(k, 0, sizeof *k);
    k->proto = iph[9];
    __builtin_memcpy(&k->src_ip, iph + 12, 4);
    __builtin_memcpy(&k->dst_ip, iph + 16, 4);
    if ((k->proto == 6 || k->proto == 17) && ((iph[6] & 0x3f) | iph[7]) == 0 && skb->len >= off + ihl + 4) {
        __u16 ports[2];
        if (bpf_skb_load_bytes(skb, (off + (ihl & 63)) & 127, ports, sizeof ports))
            return 0;
        k->src_port = ports[0];
        k->dst_port = ports[1];
    }
    return 1;
}

/* The flow's entry, when the kernel may send its packet of len IP bytes:
 * the flow is in "flows" and its first hop is up on the flow's port. */
static __always_inline struct krelay_flow *sendable(struct krelay_flow_key *k, __u32 len, struct krelay_neigh **nep)
{
    struct krelay_flow *f = bpf_map_lookup_elem(&flows, k);
    if (!f)
        return 0;
    __u32 nha = f->first_nha;
    struct krelay_neigh *ne = bpf_map_lookup_elem(&neigh, &nha);
    struct krelay_config *c = config_of();
    if (!ne || !ne->up || ne->ifindex != f->ifindex || !c || len + KRELAY_HDR_LEN > c->port_mtu)
        return 0; /* the agent routes it again, or drops and counts it */
    *nep = ne;
    return f;
}

/* Writes the Ethernet and DCN headers of an IPv4 packet of len bytes over
 * the frame's first ETH_HLEN + KRELAY_HDR_LEN bytes (room the caller made
 * with bpf_skb_adjust_room, so that the network header is the DCN
 * header's) and sends it on the flow's port, a DCN frame to the kernel
 * (skb->protocol) as the agent's are: the links' qdiscs sort it alike. */
static __always_inline int encap_send(struct __sk_buff *skb, struct krelay_flow *f, struct krelay_neigh *ne, __u32 len)
{
    __u8 fr[ETH_HLEN + KRELAY_HDR_LEN];
    __builtin_memcpy(fr, ne->mac, 12);
    fr[12] = DCN_ETHERTYPE >> 8;
    fr[13] = DCN_ETHERTYPE & 0xff;
    __builtin_memcpy(fr + ETH_HLEN, f->hdr, KRELAY_HDR_LEN);
    __u8 *h = fr + ETH_HLEN;
    __u64 id = __sync_fetch_and_add(&f->packets, 1);
    h[DCN_OFF_PKTID] = (__u8)(id >> 8);
    h[DCN_OFF_PKTID + 1] = (__u8)id;
    h[DCN_OFF_PLEN] = (__u8)(len >> 8);
    h[DCN_OFF_PLEN + 1] = (__u8)len;
    h[DCN_OFF_CSUM] = h[DCN_OFF_CSUM + 1] = 0;
    __u16 csum = (__u16)~fold(bpf_csum_diff(0, 0, (__be32 *)h, KRELAY_HDR_LEN, 0));
    __builtin_memcpy(h + DCN_OFF_CSUM, &csum, 2);
    __u32 port = f->port, ifindex = f->ifindex;
    if (bpf_skb_store_bytes(skb, 0, fr, sizeof fr, 0) || reread_ethertype(skb) ||
        skb->protocol != bpf_htons(DCN_ETHERTYPE))
        return TC_ACT_SHOT;
    __sync_fetch_and_add(&f->bytes, len);
    count_tx(port, len + sizeof fr, 0);
    return bpf_redirect(ifindex, 0);
}

#define SEG_MARK 0x44434e53 /* "DCNS": a segment the kernel hands back to the agent */

/* At TCX egress of dcn0, where a packet of the local stack starts at its
 * IPv4 header. A plain packet gets its headers here; a GSO batch (TCP
 * sends 64 KB at a time whatever the device says) goes, with a bare
 * Ethernet header, through the segmenting veth (kernel_relay.h), whose
 * far end runs dcn_kernel_segment on each segment. */
SEC("tc")
int dcn_kernel_send(struct __sk_buff *skb)
{
    if (skb->mark == SEG_MARK) { /* from dcn_kernel_segment: the agent's */
        skb->mark = 0;
        return TC_ACT_UNSPEC;
    }
    if (skb->protocol != bpf_htons(DCN_PROTO_IPV4))
        return TC_ACT_UNSPEC;
    struct krelay_flow_key k;
    struct krelay_neigh *ne;
    struct krelay_flow *f;
    if (!flow_key_of(skb, 0, &k))
        return TC_ACT_UNSPEC;
    if (skb->gso_size) {
        struct krelay_config *c = config_of();
        if (!c || !c->seg_ifindex || !bpf_map_lookup_elem(&flows, &k))
            return TC_ACT_UNSPEC; /* the agent cuts it */
        __u32 seg = c->seg_ifindex;
        __u8 eth[ETH_HLEN] = {[12] = DCN_PROTO_IPV4 >> 8, [13] = DCN_PROTO_IPV4 & 0xff};
        if (bpf_skb_change_head(skb, ETH_HLEN, 0))
            return TC_ACT_UNSPEC;
        if (bpf_skb_store_bytes(skb, 0, eth, ETH_HLEN, 0))
            return TC_ACT_SHOT;
        return bpf_redirect(seg, 0);
    }
    __u32 len = skb->len;
    if (len > 0xffff || !(f = sendable(&k, len, &ne)))
        return TC_ACT_UNSPEC;
    if (bpf_skb_change_head(skb, ETH_HLEN, 0)) /* an Ethernet header, then the DCN header behind it */
        return TC_ACT_UNSPEC;
    if (bpf_skb_adjust_room(skb, KRELAY_HDR_LEN, BPF_ADJ_ROOM_MAC, 0))
        return TC_ACT_SHOT; /* no longer the packet the agent would get */
    return encap_send(skb, f, ne, len);
}

/* At TCX ingress of the segmenting veth's far end: one segment of a GSO
 * batch from dcn0, an Ethernet frame. Its DCN header goes in after the
 * Ethernet header (skb->protocol is IPv4 here, which
 * bpf_skb_adjust_room wants) and it leaves on the flow's port; a segment
 * the kernel may no longer send (its first hop went down meanwhile) goes
 * back out of dcn0 to the agent. */
SEC("tc")
int dcn_kernel_segment(struct __sk_buff *skb)
{
    struct krelay_config *c = config_of();
    if (!c)
        return TC_ACT_SHOT;
    __u32 tun = c->tun_ifindex;
    if (skb->protocol != bpf_htons(DCN_PROTO_IPV4) || skb->len <= ETH_HLEN)
        return TC_ACT_SHOT; /* nothing else comes this way */
    __u32 len = skb->len - ETH_HLEN;
    struct krelay_flow_key k;
    struct krelay_neigh *ne;
    struct krelay_flow *f;
    if (len > 0xffff || !flow_key_of(skb, ETH_HLEN, &k) || !(f = sendable(&k, len, &ne)) ||
        bpf_skb_adjust_room(skb, KRELAY_HDR_LEN, BPF_ADJ_ROOM_MAC, 0)) {
        skb->mark = SEG_MARK;
        return bpf_redirect(tun, 0);
    }
    return encap_send(skb, f, ne, len);
}

char _license[] SEC("license") = "GPL";
