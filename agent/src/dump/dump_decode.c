#include "dump_decode.h"

#include <stdio.h>
#include <string.h>

#include "agent/core/csum.h"

static const char *walk_reason(nha_walk_result r)
{
    switch (r) {
    case NHA_WALK_NOT_NEIGHBOR: return "not-neighbor";
    case NHA_WALK_LOOP: return "loop";
    case NHA_WALK_BAD_SRC: return "bad-src";
    case NHA_WALK_WRONG_DST: return "wrong-dst";
    default: return NULL;
    }
}

/* Header length when the bytes that give it (nhops, flags, the container
 * count) are captured, else 0. */
static size_t full_header_len(const uint8_t *p, size_t len)
{
    if (len < DCN_HDR_FIXED)
        return 0;
    size_t n = DCN_HDR_FIXED + dcn_nha_bytes(p[DCN_OFF_NHOPS]);
    if (p[DCN_OFF_FLAGS] & DCN_FLAG_MDCUBE) {
        if (len < n + 1)
            return 0;
        n += 8 + 4 * (size_t)p[n];
    }
    return n;
}

static void decode_inner(dump_frame *f)
{
    const uint8_t *ip = f->payload;
    size_t n = f->payload_avail < f->h.payload_len ? f->payload_avail : f->h.payload_len;
    if (f->h.type != DCN_T_DATA || f->h.proto != DCN_PROTO_IPV4 || !ip || n < 20 || ip[0] >> 4 != 4)
        return;
    dump_inner *in = &f->inner;
    in->present = true;
    in->src = dcn_get32(ip + 12);
    in->dst = dcn_get32(ip + 16);
    in->proto = ip[9];
    size_t ihl = (size_t)(ip[0] & 15) * 4;
    bool fragment = (dcn_get16(ip + 6) & 0x3fff) != 0;
    if ((in->proto == 6 || in->proto == 17) && !fragment && ihl >= 20 && n >= ihl + 4) {
        in->has_ports = true;
        in->sport = dcn_get16(ip + ihl);
        in->dport = dcn_get16(ip + ihl + 2);
    }
}

static void check_header(const dcn_topo *t, dump_frame *f)
{
    const dcn_hdr *h = &f->h;
    if (h->type < DCN_T_DATA || h->type > DCN_T_UNREACH) {
        f->malformed = "unknown-type";
        return;
    }
    if (h->type == DCN_T_HELLO)
        return;
    if (h->nhi > h->nhops) {
        f->malformed = "nhi-beyond-path";
        return;
    }
    if (h->nhi == 0) {
        f->malformed = "nhi-zero";
        return;
    }
    if (!t)
        return;
    unsigned bad;
    /* a segmented MDCube path ends where its current segment ends */
    uint32_t end = (h->flags & DCN_FLAG_SEGMENTED) ? DCN_NONE : h->dst;
    nha_walk_result r = nha_walk(t, h->src, end, h->nha, h->nhops, &f->path, &bad);
    f->malformed = walk_reason(r);
    f->walked = r == NHA_WALK_OK;
}

void dump_decode(const dcn_topo *t, const uint8_t *frame, size_t caplen, dump_frame *f)
{
    memset(f, 0, sizeof *f);
    f->caplen = caplen;
    if (caplen < DCN_ETH_HLEN) {
        f->kind = DUMP_NOT_DCN;
        f->malformed = "truncated";
        return;
    }
    f->ethertype = dcn_get16(frame + 12);
    if (f->ethertype != DCN_ETHERTYPE) {
        f->kind = DUMP_NOT_DCN;
        return;
    }
    const uint8_t *p = frame + DCN_ETH_HLEN;
    size_t len = caplen - DCN_ETH_HLEN;
    dcn_dec_result r = dcn_hdr_decode(p, len, &f->h, &f->hlen);
    size_t full = full_header_len(p, len);
    bool complete = full && len >= full;
    f->have_fields = len >= DCN_HDR_FIXED && r != DCN_DEC_BAD_VERSION;
    if (!f->have_fields)
        f->h.version = len ? p[0] : 0;
    f->have_ext = complete && r != DCN_DEC_BAD_EXTENSION && (f->h.flags & DCN_FLAG_MDCUBE);
    if (complete) {
        f->hlen = full;
        f->payload = p + full;
        f->payload_avail = len - full;
        f->csum_checked = r != DCN_DEC_BAD_VERSION && r != DCN_DEC_BAD_EXTENSION;
        f->csum_ok = f->csum_checked && csum_compute(p, full) == 0;
    }
    switch (r) {
    case DCN_DEC_OK: check_header(t, f); break;
    case DCN_DEC_TRUNCATED: f->malformed = "truncated"; break;
    case DCN_DEC_BAD_VERSION: f->malformed = "bad-version"; break;
    case DCN_DEC_BAD_CHECKSUM: f->malformed = "bad-checksum"; break;
    case DCN_DEC_BAD_EXTENSION: f->malformed = "bad-extension"; break;
    }
    decode_inner(f);
}

/* Appends s, never past len (the text is cut, always terminated). */
static size_t put(char *buf, size_t len, size_t off, const char *s)
{
    while (*s && off + 1 < len)
        buf[off++] = *s++;
    buf[off] = '\0';
    return off;
}

void dump_addr_text(const dcn_topo *t, uint32_t addr, bool numeric, char *buf, size_t len)
{
    if (addr == DCN_BROADCAST_ADDR)
        snprintf(buf, len, "*");
    else if (t && !numeric && addr < t->n_servers)
        dcn_node_name(t, addr, buf, len);
    else
        snprintf(buf, len, "%u", addr);
}

void dump_path_text(const dcn_topo *t, const dump_frame *f, bool numeric, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    const dcn_hdr *h = &f->h;
    if (!f->have_fields || h->nhops == 0) {
        snprintf(buf, len, "-");
        return;
    }
    size_t off = 0;
    if (f->walked && t) {
        unsigned s = 0;
        for (uint32_t i = 0; i < f->path.len; i++) {
            uint32_t v = f->path.node[i];
            if (v >= t->n_servers)
                continue;
            char name[DCN_NAME_MAX + 12];
            dump_addr_text(t, v, numeric, name, sizeof name);
            if (s)
                off = put(buf, len, off, ",");
            off = put(buf, len, off, s == h->nhi ? "[" : "");
            off = put(buf, len, off, name);
            off = put(buf, len, off, s == h->nhi ? "]" : "");
            s++;
        }
        return;
    }
    size_t avail = f->caplen > DCN_ETH_HLEN + DCN_OFF_NHA ? f->caplen - DCN_ETH_HLEN - DCN_OFF_NHA : 0;
    for (unsigned i = 0; i < h->nhops; i++) {
        if (i > 0)
            off = put(buf, len, off, ",");
        if (i >= avail) {
            off = put(buf, len, off, "...");
            break;
        }
        uint8_t a = h->nha[i];
        char one[16];
        if (i + 1 == h->nhi)
            snprintf(one, sizeof one, "[%u/%u]", nha_port(a), nha_index(a));
        else
            snprintf(one, sizeof one, "%u/%u", nha_port(a), nha_index(a));
        off = put(buf, len, off, one);
    }
}
