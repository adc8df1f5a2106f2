#include "dump_flows.h"

#include <stdlib.h>
#include <string.h>

#include "dump_format.h"

int dump_flows_init(dump_flows *s, uint32_t cap)
{
    memset(s, 0, sizeof *s);
    uint32_t c = 16;
    while (c < cap && c < (1u << 24))
        c <<= 1;
    s->slot = calloc(c, sizeof *s->slot);
    s->order = calloc(c, sizeof *s->order);
    if (!s->slot || !s->order) {
        dump_flows_free(s);
        return -1;
    }
    s->cap = c;
    return 0;
}

void dump_flows_free(dump_flows *s)
{
    free(s->slot);
    free(s->order);
    s->slot = NULL;
    s->order = NULL;
    s->cap = 0;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t key_hash(const dump_flow *k)
{
    uint8_t b[13];
    dcn_put32(b, k->src);
    dcn_put32(b + 4, k->dst);
    b[8] = k->proto;
    dcn_put16(b + 9, k->sport);
    dcn_put16(b + 11, k->dport);
    return fnv(0xcbf29ce484222325ull, b, sizeof b);
}

static bool same_key(const dump_flow *a, const dump_flow *b)
{
    return a->src == b->src && a->dst == b->dst && a->proto == b->proto && a->sport == b->sport &&
           a->dport == b->dport;
}

/* The flow's slot, created when new; NULL when the table is full. */
static dump_flow *lookup(dump_flows *s, const dump_flow *k)
{
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)key_hash(k) & mask, probes = 0; probes < s->cap; i = (i + 1) & mask, probes++) {
        dump_flow *f = &s->slot[i];
        if (f->used && same_key(f, k))
            return f;
        if (!f->used) {
            if (s->n + 1 > s->cap / 2 + s->cap / 4)
                return NULL; /* keep probing short: at most 3/4 full */
            *f = *k;
            f->used = true;
            s->order[s->n++] = i;
            return f;
        }
    }
    return NULL;
}

bool dump_flows_add(dump_flows *s, const dump_frame *f)
{
    s->frames++;
    if (f->malformed)
        s->malformed++;
    if (f->kind != DUMP_DCN) {
        if (!f->malformed)
            s->other++;
        return false;
    }
    s->dcn++;
    if (!f->have_fields)
        return false;
    s->by_type[f->h.type]++;
    if (f->malformed || f->h.type != DCN_T_DATA || f->h.nhops == 0)
        return false;
    dump_flow k = {.src = f->h.src, .dst = f->h.dst};
    if (f->inner.present) {
        k.proto = f->inner.proto;
        if (f->inner.has_ports) {
            k.sport = f->inner.sport;
            k.dport = f->inner.dport;
        }
    }
    dump_flow *fl = lookup(s, &k);
    if (!fl) {
        s->untracked++;
        return false;
    }
    uint8_t nh = f->h.nhops;
    uint64_t fp = fnv(fnv(0xcbf29ce484222325ull, &nh, 1), f->h.nha, nh);
    bool switched = fl->frames > 0 && fp != fl->last_path;
    fl->frames++;
    fl->bytes += f->h.payload_len;
    fl->last_path = fp;
    bool known = false;
    for (uint32_t i = 0; i < fl->n_paths && i < DUMP_FLOW_PATHS; i++)
        known |= fl->path[i] == fp;
    if (!known) {
        if (fl->n_paths < DUMP_FLOW_PATHS)
            fl->path[fl->n_paths] = fp;
        if (fl->n_paths < UINT32_MAX)
            fl->n_paths++;
    }
    if (switched) {
        fl->switches++;
        s->switches++;
    }
    return switched;
}

void dump_flows_print(const dump_flows *s, const dcn_topo *t, bool numeric, FILE *out)
{
    fprintf(out, "summary: %llu frames, %llu DCN, %llu malformed, %llu other\n", (unsigned long long)s->frames,
            (unsigned long long)s->dcn, (unsigned long long)s->malformed, (unsigned long long)s->other);
    fprintf(out, "types:");
    for (unsigned ty = 0; ty < 256; ty++) {
        if (!s->by_type[ty])
            continue;
        char name[16];
        dump_type_text((uint8_t)ty, name, sizeof name);
        fprintf(out, " %s %llu", name, (unsigned long long)s->by_type[ty]);
    }
    fprintf(out, "\nflows: %u, path switches: %llu", s->n, (unsigned long long)s->switches);
    if (s->untracked)
        fprintf(out, ", %llu data frames of untracked flows (table full)", (unsigned long long)s->untracked);
    fprintf(out, "\n");
    for (uint32_t i = 0; i < s->n; i++) {
        const dump_flow *f = &s->slot[s->order[i]];
        char a[32], b[32];
        dump_addr_text(t, f->src, numeric, a, sizeof a);
        dump_addr_text(t, f->dst, numeric, b, sizeof b);
        fprintf(out, "  flow %s > %s", a, b);
        if (f->proto == 6 || f->proto == 17)
            fprintf(out, " %s %u > %u", f->proto == 6 ? "tcp" : "udp", f->sport, f->dport);
        else if (f->proto)
            fprintf(out, " proto %u", f->proto);
        fprintf(out, ": %llu frames, %llu bytes, %u paths, %u switches\n", (unsigned long long)f->frames,
                (unsigned long long)f->bytes, f->n_paths, f->switches);
    }
}
