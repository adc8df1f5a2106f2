#include "proto.h"

#include <string.h>

#include "csum.h"

static size_t ext_len(uint8_t n_containers) { return 8 + 4 * (size_t)n_containers; }

size_t dcn_hdr_len(const dcn_hdr *h)
{
    size_t n = DCN_HDR_FIXED + dcn_nha_bytes(h->nhops);
    if (h->flags & DCN_FLAG_MDCUBE)
        n += ext_len(h->n_containers);
    return n;
}

size_t dcn_hdr_encode(const dcn_hdr *h, uint8_t *buf, size_t cap)
{
    if ((h->flags & DCN_FLAG_MDCUBE) && h->n_containers > DCN_MAX_CONTAINERS)
        return 0;
    if ((h->flags & DCN_FLAG_SEGMENTED) && (!(h->flags & DCN_FLAG_MDCUBE) || h->seg_start > h->nhops))
        return 0;
    if (h->nhi > h->nhops)
        return 0;
    size_t len = dcn_hdr_len(h);
    if (len > cap)
        return 0;
    memset(buf, 0, len);
    buf[DCN_OFF_VERSION] = DCN_VERSION;
    buf[DCN_OFF_TYPE] = h->type;
    buf[DCN_OFF_FLAGS] = h->flags;
    buf[DCN_OFF_NHOPS] = h->nhops;
    dcn_put32(buf + DCN_OFF_SRC, h->src);
    dcn_put32(buf + DCN_OFF_DST, h->dst);
    dcn_put16(buf + DCN_OFF_PKTID, h->pkt_id);
    dcn_put16(buf + DCN_OFF_PROTO, h->proto);
    dcn_put16(buf + DCN_OFF_PLEN, h->payload_len);
    buf[DCN_OFF_NHI] = h->nhi;
    dcn_put32(buf + DCN_OFF_AVAIL, h->avail_mbps);
    if (h->nhops)
        memcpy(buf + DCN_OFF_NHA, h->nha, h->nhops);
    if (h->flags & DCN_FLAG_MDCUBE) {
        uint8_t *e = buf + DCN_OFF_NHA + dcn_nha_bytes(h->nhops);
        e[0] = h->n_containers;
        e[1] = h->container_idx;
        e[2] = h->seg_start;
        dcn_put32(e + 4, h->flow_id);
        for (unsigned i = 0; i < h->n_containers; i++)
            dcn_put32(e + 8 + 4 * i, h->container[i]);
    }
    dcn_put16(buf + DCN_OFF_CSUM, csum_compute(buf, len));
    return len;
}

dcn_dec_result dcn_hdr_decode(const uint8_t *buf, size_t len, dcn_hdr *h, size_t *hlen)
{
    if (len < DCN_HDR_FIXED)
        return DCN_DEC_TRUNCATED;
    h->version = buf[DCN_OFF_VERSION];
    if (h->version != DCN_VERSION)
        return DCN_DEC_BAD_VERSION;
    h->type = buf[DCN_OFF_TYPE];
    h->flags = buf[DCN_OFF_FLAGS];
    h->nhops = buf[DCN_OFF_NHOPS];
    h->src = dcn_get32(buf + DCN_OFF_SRC);
    h->dst = dcn_get32(buf + DCN_OFF_DST);
    h->pkt_id = dcn_get16(buf + DCN_OFF_PKTID);
    h->proto = dcn_get16(buf + DCN_OFF_PROTO);
    h->payload_len = dcn_get16(buf + DCN_OFF_PLEN);
    h->csum = dcn_get16(buf + DCN_OFF_CSUM);
    h->nhi = buf[DCN_OFF_NHI];
    h->avail_mbps = dcn_get32(buf + DCN_OFF_AVAIL);
    h->nha = buf + DCN_OFF_NHA;
    size_t n = DCN_HDR_FIXED + dcn_nha_bytes(h->nhops);
    h->n_containers = 0;
    h->container_idx = 0;
    h->seg_start = 0;
    h->flow_id = 0;
    if ((h->flags & DCN_FLAG_SEGMENTED) && !(h->flags & DCN_FLAG_MDCUBE))
        return DCN_DEC_BAD_EXTENSION;
    if (h->flags & DCN_FLAG_MDCUBE) {
        if (len < n + 8)
            return DCN_DEC_TRUNCATED;
        const uint8_t *e = buf + n;
        h->n_containers = e[0];
        h->container_idx = e[1];
        h->seg_start = e[2];
        h->flow_id = dcn_get32(e + 4);
        if (h->n_containers > DCN_MAX_CONTAINERS || h->container_idx > h->n_containers)
            return DCN_DEC_BAD_EXTENSION;
        if (h->seg_start > h->nhops || (h->seg_start && !(h->flags & DCN_FLAG_SEGMENTED)))
            return DCN_DEC_BAD_EXTENSION;
        n += ext_len(h->n_containers);
        if (len < n)
            return DCN_DEC_TRUNCATED;
        for (unsigned i = 0; i < h->n_containers; i++)
            h->container[i] = dcn_get32(e + 8 + 4 * i);
    }
    if (len < n)
        return DCN_DEC_TRUNCATED;
    if (csum_compute(buf, n) != 0)
        return DCN_DEC_BAD_CHECKSUM;
    if (len - n < h->payload_len)
        return DCN_DEC_TRUNCATED;
    *hlen = n;
    return DCN_DEC_OK;
}

void dcn_hdr_set_nhi(uint8_t *hdr, uint8_t nhi)
{
    /* NHI shares its 16-bit word with the reserved byte after it. */
    uint16_t old = dcn_get16(hdr + DCN_OFF_NHI);
    hdr[DCN_OFF_NHI] = nhi;
    uint16_t now = dcn_get16(hdr + DCN_OFF_NHI);
    dcn_put16(hdr + DCN_OFF_CSUM, csum_update16(dcn_get16(hdr + DCN_OFF_CSUM), old, now));
}

void dcn_hdr_set_avail(uint8_t *hdr, uint32_t avail_mbps)
{
    uint32_t old = dcn_get32(hdr + DCN_OFF_AVAIL);
    dcn_put32(hdr + DCN_OFF_AVAIL, avail_mbps);
    dcn_put16(hdr + DCN_OFF_CSUM, csum_update32(dcn_get16(hdr + DCN_OFF_CSUM), old, avail_mbps));
}

const char *dcn_type_name(uint8_t type)
{
    switch (type) {
    case DCN_T_DATA: return "data";
    case DCN_T_PROBE: return "probe";
    case DCN_T_PROBE_RESP: return "probe-response";
    case DCN_T_PATH_FAIL: return "path-failure";
    case DCN_T_HELLO: return "hello";
    case DCN_T_UNREACH: return "unreachable";
    default: return "unknown";
    }
}
