/* A prototype, for tests/bench/forwarding.sh's mode agent-tcbpf only: the
 * DCN relay as a tc ingress program, to measure what a relay in the kernel
 * would give before anyone builds one into the agent. Not part of the agent:
 * its neighbours are compiled in, one object per relay port, by the bench:
 *   IN_MAC0..IN_MAC5  this port's MAC (frames to other MACs are not ours)
 *   RELAY_CASES       "case NHA: OUT(ifindex, next MAC, own MAC of the out port)"
 * It relays plain data frames (no MDCube extension, NHI 1..7 and below the
 * hop count) to a compiled-in neighbour: NHI + 1 with the header checksum
 * updated (RFC 1624, as dcn_hdr_set_nhi), both MACs rewritten, then a
 * redirect to the out port. Everything else (the last hop, control frames,
 * unknown next hops) goes on to the agent's packet socket, which is bound to
 * the DCN EtherType and so sees only what this program passes. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#define SEC(n) __attribute__((section(n), used))
static long (*skb_pull_data)(void *, __u32) = (void *)BPF_FUNC_skb_pull_data;
static long (*skb_store)(void *, __u32, const void *, __u32, __u64) = (void *)BPF_FUNC_skb_store_bytes;
static long (*l3_csum)(void *, __u32, __u64, __u64, __u64) = (void *)BPF_FUNC_l3_csum_replace;
static long (*redirect)(__u32, __u64) = (void *)BPF_FUNC_redirect;

#define ETH_HLEN 14
#define HDR_MIN 36 /* the fixed header and 8 NHAs */
#define OUT(i, a, b, c, d, e, f, sa, sb, sc, sd, se, sf)                                                \
    {                                                                                                   \
        ifindex = i;                                                                                    \
        m[0] = a, m[1] = b, m[2] = c, m[3] = d, m[4] = e, m[5] = f;                                     \
        m[6] = sa, m[7] = sb, m[8] = sc, m[9] = sd, m[10] = se, m[11] = sf;                             \
        break;                                                                                          \
    }

SEC("dcn_relay") int dcn_relay_prog(struct __sk_buff *skb)
{
    if (skb->protocol != __builtin_bswap16(0x88B5) || skb->len < ETH_HLEN + HDR_MIN)
        return TC_ACT_OK;
    if (skb_pull_data(skb, ETH_HLEN + HDR_MIN)) /* large frames arrive with the header in fragments */
        return TC_ACT_OK;
    __u8 *p = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
    if (p + ETH_HLEN + HDR_MIN > end)
        return TC_ACT_OK;
    if (p[0] != IN_MAC0 || p[1] != IN_MAC1 || p[2] != IN_MAC2 || p[3] != IN_MAC3 || p[4] != IN_MAC4 ||
        p[5] != IN_MAC5)
        return TC_ACT_OK;
    __u8 *h = p + ETH_HLEN;
    if (h[0] != 1 || h[1] != 1 || h[2] != 0) /* version 1, data, no MDCube extension */
        return TC_ACT_OK;
    __u8 nhops = h[3], nhi = h[20];
    if (nhi == 0 || nhi >= nhops || nhi >= 8)
        return TC_ACT_OK;
    __u8 *q = h + 28 + (nhi & 7);
    if (q + 1 > end)
        return TC_ACT_OK;
    __u8 nha = *q;
    __u16 oldw = *(__u16 *)(h + 20); /* NHI and the reserved byte, as they sit in the frame */
    __u8 rsv = h[21];
    __u32 ifindex = 0;
    __u8 m[12];
    switch (nha) {
        RELAY_CASES
    default:
        return TC_ACT_OK;
    }
    __u8 nn = nhi + 1;
    __u16 neww = (__u16)(nn | (rsv << 8));
    if (l3_csum(skb, ETH_HLEN + 18, oldw, neww, 2) || skb_store(skb, ETH_HLEN + 20, &nn, 1, 0) ||
        skb_store(skb, 0, m, 12, 0))
        return TC_ACT_SHOT;
    return redirect(ifindex, 0);
}

char _license[] SEC("license") = "GPL";
