#include "tun_gro.h"

#include <string.h>

#include "csum.h"
#include "proto.h"

#define TCP_PSH 0x08
#define TCP_ACK 0x10

/* TCP data with only ACK (and PSH) set, unfragmented, both checksums good */
static bool candidate(const uint8_t *ip, size_t len, unsigned *ihl_out, unsigned *hl_out)
{
    if (len < 41 || len > TUN_GRO_MAX_BYTES || (ip[0] >> 4) != 4 || ip[9] != 6 || dcn_get16(ip + 2) != len)
        return false;
    unsigned ihl = (ip[0] & 15u) * 4u;
    if (ihl < 20 || ihl + 20 > len || (dcn_get16(ip + 6) & 0x3fff))
        return false;
    const uint8_t *th = ip + ihl;
    unsigned thl = (th[12] >> 4) * 4u, hl = ihl + thl;
    if (thl < 20 || hl >= len || (th[13] & (uint8_t)~TCP_PSH) != TCP_ACK)
        return false;
    if (csum_compute(ip, ihl) != 0)
        return false;
    uint32_t sum = csum_partial(ip + 12, 8, 6u + (uint32_t)(len - ihl));
    if (csum_finish(csum_partial(th, len - ihl, sum)) != 0)
        return false;
    *ihl_out = ihl;
    *hl_out = hl;
    return true;
}

static bool joins(const tun_gro *g, const uint8_t *ip, size_t len, unsigned ihl, unsigned hl)
{
    const uint8_t *h = g->hdr, *th = ip + ihl, *gh = h + ihl;
    size_t pl = len - hl;
    return g->n < TUN_GRO_MAX_SEGS && !g->closed && ihl == g->ihl && hl == g->hl && pl <= g->mss &&
           g->hl + g->payload + pl <= TUN_GRO_MAX_BYTES &&
           memcmp(ip, h, 2) == 0 &&                       /* version, IHL, TOS */
           memcmp(ip + 6, h + 6, 4) == 0 &&               /* DF, TTL, protocol */
           memcmp(ip + 12, h + 12, ihl - 12) == 0 &&      /* addresses, options */
           memcmp(th, gh, 4) == 0 &&                      /* ports */
           dcn_get32(th + 4) == g->next_seq &&
           memcmp(th + 8, gh + 8, 5) == 0 &&              /* ACK number, data offset */
           memcmp(th + 14, gh + 14, 2) == 0 &&            /* window */
           memcmp(th + 18, gh + 18, hl - ihl - 18) == 0;  /* urgent pointer, options */
}

enum tun_gro_verdict tun_gro_offer(tun_gro *g, const uint8_t *ip, size_t len)
{
    unsigned ihl, hl;
    if (!candidate(ip, len, &ihl, &hl))
        return TUN_GRO_ALONE;
    size_t pl = len - hl;
    if (g->n == 0) {
        memcpy(g->hdr, ip, hl);
        g->ihl = ihl;
        g->hl = hl;
        g->mss = pl;
        g->payload = 0;
        g->psh = false;
    } else if (!joins(g, ip, len, ihl, hl)) {
        return TUN_GRO_FLUSH;
    }
    g->iov[2 + g->n] = (struct iovec){.iov_base = (void *)(ip + hl), .iov_len = pl};
    g->n++;
    g->payload += pl;
    g->next_seq = dcn_get32(ip + ihl + 4) + (uint32_t)pl;
    g->psh = (ip[ihl + 13] & TCP_PSH) != 0;
    g->closed = g->psh || pl < g->mss;
    return TUN_GRO_HELD;
}

int tun_gro_take(tun_gro *g, struct iovec **iov)
{
    if (g->n == 0)
        return 0;
    memset(&g->vh, 0, sizeof g->vh);
    if (g->n > 1) {
        uint8_t *ip = g->hdr, *th = g->hdr + g->ihl;
        size_t len = g->hl + g->payload;
        dcn_put16(ip + 2, (uint16_t)len);
        dcn_put16(ip + 10, 0);
        dcn_put16(ip + 10, csum_compute(ip, g->ihl));
        if (g->psh)
            th[13] |= TCP_PSH;
        /* CHECKSUM_PARTIAL: the field holds the pseudo header's sum */
        dcn_put16(th + 16, (uint16_t)~csum_finish(csum_partial(ip + 12, 8, 6u + (uint32_t)(len - g->ihl))));
        g->vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
        g->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
        g->vh.gso_size = (uint16_t)g->mss;
        g->vh.hdr_len = (uint16_t)g->hl;
        g->vh.csum_start = (uint16_t)g->ihl;
        g->vh.csum_offset = 16;
        g->merged += g->n - 1;
    }
    g->iov[0] = (struct iovec){.iov_base = &g->vh, .iov_len = sizeof g->vh};
    g->iov[1] = (struct iovec){.iov_base = g->hdr, .iov_len = g->hl};
    int cnt = 2 + (int)g->n;
    g->n = 0;
    g->closed = false;
    *iov = g->iov;
    return cnt;
}
