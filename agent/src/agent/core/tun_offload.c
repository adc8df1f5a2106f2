#include "tun_offload.h"

#include <stdbool.h>
#include <string.h>

#include "csum.h"
#include "proto.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static int complete_csum(const struct virtio_net_hdr *vh, uint8_t *ip, size_t len)
{
    if (vh->csum_offset < 2 || vh->csum_start >= len)
        return -1;
    unsigned ihl = (ip[0] & 15u) * 4u;
    bool udp = ip[9] == 17 && vh->csum_start == ihl;
    return csum_complete_partial(ip, len, vh->csum_start, (size_t)vh->csum_start + vh->csum_offset, udp);
}

static uint32_t pseudo_sum(const uint8_t *ip, unsigned l4_len)
{
    uint32_t sum = csum_partial(ip + 12, 8, 0); /* source and destination */
    return sum + 6u + l4_len;
}

static int tcp4_segment(const struct virtio_net_hdr *vh, uint8_t *buf, size_t headroom, size_t len, tun_emit_fn emit,
                        void *ctx)
{
    uint8_t *ip = buf + headroom;
    if (len < 40 || len > TUN_OFFLOAD_MAX || (ip[0] >> 4) != 4 || ip[9] != 6)
        return -1;
    unsigned ihl = (ip[0] & 15u) * 4u;
    if (ihl < 20 || ihl + 20 > len)
        return -1;
    unsigned thl = (ip[ihl + 12] >> 4) * 4u;
    unsigned hl = ihl + thl;
    if (thl < 20 || hl >= len || vh->gso_size == 0)
        return -1;
    if (dcn_get16(ip + 6) & 0x3fff)
        return -1; /* a fragment cannot be a TCP segment to cut */
    size_t mss = vh->gso_size, payload = len - hl;
    uint8_t hdr[120];
    memcpy(hdr, ip, hl);
    uint32_t seq0 = dcn_get32(hdr + ihl + 4);
    uint16_t id0 = dcn_get16(hdr + 4);
    uint8_t flags0 = hdr[ihl + 13];
    int n = 0;
    for (size_t off = 0; off < payload; off += mss) {
        size_t chunk = payload - off < mss ? payload - off : mss;
        bool last = off + chunk == payload;
        uint8_t *seg = ip + off; /* payload stays where it is; headers go before it */
        if (off)
            memcpy(seg, hdr, hl);
        dcn_put16(seg + 2, (uint16_t)(hl + chunk));
        dcn_put16(seg + 4, (uint16_t)(id0 + n));
        dcn_put16(seg + 10, 0);
        dcn_put16(seg + 10, csum_compute(seg, ihl));
        uint8_t *th = seg + ihl;
        dcn_put32(th + 4, seq0 + (uint32_t)off);
        uint8_t fl = flags0;
        if (!last)
            fl &= (uint8_t)~(TCP_FIN | TCP_PSH);
        if (off)
            fl &= (uint8_t)~TCP_CWR;
        th[13] = fl;
        dcn_put16(th + 16, 0);
        uint32_t sum = pseudo_sum(seg, (unsigned)(thl + chunk));
        sum = csum_partial(th, thl, sum);
        sum = csum_partial(seg + hl, chunk, sum);
        dcn_put16(th + 16, csum_finish(sum));
        emit(ctx, seg - headroom, hl + chunk);
        n++;
    }
    return n;
}

int tun_offload_in(const struct virtio_net_hdr *vh, uint8_t *buf, size_t headroom, size_t len, tun_emit_fn emit,
                   void *ctx)
{
    uint8_t *ip = buf + headroom;
    switch (vh->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN) {
    case VIRTIO_NET_HDR_GSO_NONE:
        if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && complete_csum(vh, ip, len) < 0)
            return -1;
        emit(ctx, buf, len);
        return 1;
    case VIRTIO_NET_HDR_GSO_TCPV4:
        return tcp4_segment(vh, buf, headroom, len, emit, ctx);
    default:
        return -1; /* only TSO4 is offered to the kernel */
    }
}
