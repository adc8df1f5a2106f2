#include "dump_format.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t len, off;
} out;

__attribute__((format(printf, 2, 3))) static void add(out *o, const char *fmt, ...)
{
    if (o->off + 1 >= o->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->off, o->len - o->off, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->off = o->off + (size_t)n >= o->len ? o->len - 1 : o->off + (size_t)n;
}

void dump_type_text(uint8_t type, char *buf, size_t len)
{
    if (type >= DCN_T_DATA && type <= DCN_T_UNREACH)
        snprintf(buf, len, "%s", dcn_type_name(type));
    else
        snprintf(buf, len, "type-%u", type);
}

/* Any node (servers and the switches named in path failures). */
static void node_text(const dcn_topo *t, uint32_t v, bool numeric, char *buf, size_t len)
{
    if (t && !numeric && v < dcn_n_nodes(t))
        dcn_node_name(t, v, buf, len);
    else
        snprintf(buf, len, "%u", v);
}

static void ip_text(uint32_t a, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

static void details(out *o, const dcn_topo *t, const dump_frame *f, bool numeric)
{
    const uint8_t *pl = f->payload;
    size_t n = f->payload_avail;
    char a[32], b[32];
    switch (f->h.type) {
    case DCN_T_DATA:
        if (!f->inner.present)
            return;
        ip_text(f->inner.src, a, sizeof a);
        ip_text(f->inner.dst, b, sizeof b);
        if (f->inner.has_ports)
            add(o, " ip %s:%u > %s:%u %s", a, f->inner.sport, b, f->inner.dport, f->inner.proto == 6 ? "tcp" : "udp");
        else
            add(o, " ip %s > %s proto %u", a, b, f->inner.proto);
        return;
    case DCN_T_PROBE:
    case DCN_T_PROBE_RESP:
        if (pl && n >= DCN_PROBE_PAYLOAD)
            add(o, " seq %u", dcn_get32(pl));
        return;
    case DCN_T_PATH_FAIL:
        if (pl && n >= DCN_FAIL_PAYLOAD) {
            node_text(t, dcn_get32(pl), numeric, a, sizeof a);
            node_text(t, dcn_get32(pl + 4), numeric, b, sizeof b);
            char ty[16];
            dump_type_text(pl[8], ty, sizeof ty);
            add(o, " failed %s-%s (%s id %u)", a, b, ty, dcn_get16(pl + 10));
        }
        return;
    case DCN_T_UNREACH:
        if (pl && n >= DCN_UNREACH_PAYLOAD) {
            node_text(t, dcn_get32(pl + 4), numeric, a, sizeof a);
            add(o, " flow 0x%08x to %s: container %u to %u down", dcn_get32(pl), a, dcn_get32(pl + 8),
                dcn_get32(pl + 12));
        }
        return;
    case DCN_T_HELLO:
        if (pl && n >= DCN_HELLO_PAYLOAD_MIN)
            add(o, " port %u interval %ums", pl[0], dcn_get16(pl + 2));
        if (pl && n >= DCN_HELLO_PAYLOAD && (pl[1] & DCN_HELLO_F_HEARD))
            add(o, " heard 0x%" PRIx64, dcn_get64(pl + 8));
        return;
    default:
        return;
    }
}

void dump_format_line(const dcn_topo *t, const dump_frame *f, bool numeric, char *buf, size_t len)
{
    out o = {buf, len, 0};
    if (!len)
        return;
    buf[0] = '\0';
    if (f->kind == DUMP_NOT_DCN) {
        if (f->malformed)
            add(&o, "ether MALFORMED %s (%zu bytes)", f->malformed, f->caplen);
        else
            add(&o, "ethertype 0x%04x, not DCN (%zu bytes)", f->ethertype, f->caplen);
        return;
    }
    if (!f->have_fields) {
        if (f->h.version != DCN_VERSION && f->malformed && strcmp(f->malformed, "bad-version") == 0)
            add(&o, "dcn version %u MALFORMED %s (%zu bytes)", f->h.version, f->malformed, f->caplen);
        else
            add(&o, "dcn MALFORMED %s (%zu bytes)", f->malformed ? f->malformed : "truncated", f->caplen);
        return;
    }
    const dcn_hdr *h = &f->h;
    char ty[16], src[32], dst[32], path[4096];
    dump_type_text(h->type, ty, sizeof ty);
    dump_addr_text(t, h->src, numeric, src, sizeof src);
    dump_addr_text(t, h->dst, numeric, dst, sizeof dst);
    dump_path_text(t, f, numeric, path, sizeof path);
    add(&o, "%s %s > %s id %u nhi %u/%u path %s len %u", ty, src, dst, h->pkt_id, h->nhi, h->nhops, path,
        h->payload_len);
    if (h->type == DCN_T_PROBE || h->type == DCN_T_PROBE_RESP)
        add(&o, " bw %u", h->avail_mbps);
    if (f->have_ext) {
        add(&o, " mdcube %u/%u flow 0x%08x", h->container_idx, h->n_containers, h->flow_id);
        if (h->flags & DCN_FLAG_SEGMENTED)
            add(&o, " segment %u", h->seg_start);
        add(&o, " containers ");
        if (!h->n_containers)
            add(&o, "-");
        for (unsigned i = 0; i < h->n_containers; i++)
            add(&o, i ? ",%u" : "%u", h->container[i]);
    }
    if (!f->malformed || strcmp(f->malformed, "truncated") != 0)
        details(&o, t, f, numeric);
    if (f->malformed)
        add(&o, " MALFORMED %s", f->malformed);
}
