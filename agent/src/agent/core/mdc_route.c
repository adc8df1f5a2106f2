#include "mdc_route.h"

#include <stdlib.h>
#include <string.h>

#include "nha.h"
#include "topo/families/mdcube_geom.h"
#include "topo/families/mdcube_route.h"
#include "topo/family.h"

static const md_geom *geom(const mdc *m) { return (const md_geom *)m->t->priv; }

mdc *mdc_create(const dcn_topo *t, uint32_t self, uint64_t seed)
{
    if (!t->family || strcmp(t->family->name, "mdcube") != 0 || !t->priv || self >= t->n_servers)
        return NULL;
    mdc *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->e = calloc(MDC_SLOTS, sizeof *m->e);
    if (!m->e || dcn_scratch_init(&m->arena, dcn_scratch_size_for(t)) < 0) {
        free(m->e);
        free(m);
        return NULL;
    }
    if (bsr_faildb_init(&m->fail, t) < 0) {
        dcn_scratch_free(&m->arena);
        free(m->e);
        free(m);
        return NULL;
    }
    m->t = t;
    m->self = self;
    m->n_servers_per_c = ((const md_geom *)t->priv)->t;
    m->self_c = self / m->n_servers_per_c;
    dcn_rng_seed(&m->rng, seed ^ ((uint64_t)self << 32) ^ 0x6d646375ull);
    return m;
}

void mdc_destroy(mdc *m)
{
    if (!m)
        return;
    bsr_faildb_free(&m->fail);
    dcn_scratch_free(&m->arena);
    free(m->e);
    free(m);
}

/* ---- the table ---- */

static uint32_t key_hash(uint32_t src, uint32_t dst, uint32_t flow_id)
{
    uint64_t x = ((uint64_t)src << 32 | dst) * 0x9E3779B97F4A7C15ull ^ flow_id * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 31;
    return (uint32_t)(x >> 17);
}

static bool live(const mdc_entry *x, uint64_t now) { return x->used && now - x->last_ms < MDC_IDLE_MS; }

static bool same_rest(const mdc_entry *x, const uint32_t *rest, unsigned nrest)
{
    return x->n_containers == nrest && memcmp(x->container, rest, nrest * sizeof rest[0]) == 0;
}

/* The entry for the key (rest: a relay's containers still to cross, NULL
 * for the source's own flows), or the slot to fill (*found = false). */
static mdc_entry *slot(mdc *m, uint32_t src, uint32_t dst, uint32_t flow_id, const uint32_t *rest, unsigned nrest,
                       uint64_t now, bool *found)
{
    mdc_entry *b = &m->e[(key_hash(src, dst, flow_id) % (MDC_SLOTS / MDC_WAYS)) * MDC_WAYS];
    mdc_entry *victim = NULL;
    for (unsigned w = 0; w < MDC_WAYS; w++) {
        mdc_entry *x = &b[w];
        if (live(x, now) && x->src == src && x->dst == dst && x->flow_id == flow_id &&
            (!rest || same_rest(x, rest, nrest))) {
            *found = true;
            return x;
        }
        if (!live(x, now)) {
            if (!victim || live(victim, now))
                victim = x;
        } else if (!victim || (live(victim, now) && x->last_ms < victim->last_ms))
            victim = x;
    }
    if (live(victim, now))
        m->c.evictions++;
    *found = false;
    return victim;
}

/* ---- segments ---- */

/* Spreads flows over the n switch-to-switch paths and the fibre copies. */
static md_choice choice_of(const mdc *m, uint32_t src, uint32_t dst, uint32_t flow_id)
{
    uint32_t h = key_hash(src, dst, flow_id);
    md_choice ch = {h % geom(m)->n, (h >> 8) % geom(m)->copies};
    return ch;
}

/* Computes x's segment from us through rest[] to dst; false when blocked. */
static bool compute_segment(mdc *m, mdc_entry *x, const uint32_t *rest, unsigned nrest)
{
    dcn_path p;
    md_choice ch = choice_of(m, x->src, x->dst, x->flow_id);
    const dcn_failures *f = bsr_faildb_view(&m->fail);
    dcn_scratch *prev = dcn_scratch_enter(&m->arena);
    int r = md_segment(m->t, m->self, x->dst, rest, nrest, ch, f, &p);
    dcn_scratch_leave(prev);
    if (r < 0 || p.len > MDC_SEG_NODES)
        return false;
    int hops = nha_encode_path(m->t, &p, x->nha, MDC_SEG_NODES);
    if (hops <= 0)
        return false;
    x->seg_hops = (uint8_t)hops;
    x->seg_len = p.len;
    memcpy(x->seg, p.node, p.len * sizeof p.node[0]);
    return true;
}

static bool fibre_failed(const mdc *m, uint32_t a, uint32_t b, uint64_t now)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    for (unsigned i = 0; i < MDC_FIBRES_MAX; i++)
        if (m->fibre[i].expires_ms > now && m->fibre[i].a == lo && m->fibre[i].b == hi)
            return true;
    return false;
}

/* The container route src_c, list..., dst_c crosses the fibre a-b. */
static bool route_crosses(uint32_t src_c, const uint32_t *list, unsigned n, uint32_t dst_c, uint32_t a, uint32_t b)
{
    uint32_t prev = src_c;
    for (unsigned i = 0; i <= n; i++) {
        uint32_t c = i < n ? list[i] : dst_c;
        if ((prev == a && c == b) || (prev == b && c == a))
            return true;
        prev = c;
    }
    return false;
}

static bool route_blocked(const mdc *m, const uint32_t *list, unsigned n, uint32_t dst_c, uint64_t now)
{
    uint32_t prev = m->self_c;
    for (unsigned i = 0; i <= n; i++) {
        uint32_t c = i < n ? list[i] : dst_c;
        if (fibre_failed(m, prev, c, now))
            return true;
        prev = c;
    }
    return false;
}

/* Draws jumps in random order until one's route is open and our segment of
 * it can be built. */
static bool draw_jump(mdc *m, mdc_entry *x, uint64_t now)
{
    const md_geom *g = geom(m);
    uint32_t dst_c = mdc_container(m, x->dst);
    uint32_t left[1024 * DCN_MAX_DIMS], nleft = g->G < 1024 * DCN_MAX_DIMS ? g->G : 1024 * DCN_MAX_DIMS;
    for (uint32_t i = 0; i < nleft; i++)
        left[i] = i;
    int32_t old = x->jump;
    while (nleft) {
        uint32_t pick = dcn_rng_below(&m->rng, nleft), j = left[pick];
        left[pick] = left[--nleft];
        uint32_t list[DCN_MAX_CONTAINERS];
        int n = md_jump_containers(m->t, m->self_c, dst_c, j, list, DCN_MAX_CONTAINERS);
        if (n < 0 || route_blocked(m, list, (unsigned)n, dst_c, now))
            continue;
        if (!compute_segment(m, x, list, (unsigned)n))
            continue;
        x->n_containers = (uint8_t)n;
        memcpy(x->container, list, (size_t)n * sizeof list[0]);
        x->jump = (int32_t)j;
        x->jumps++;
        m->c.jumps_drawn++;
        if (old >= 0 && old != x->jump)
            m->c.jump_changes++;
        return true;
    }
    return false;
}

static void fresh(mdc_entry *x, uint32_t src, uint32_t dst, uint32_t flow_id, uint64_t now)
{
    memset(x, 0, sizeof *x);
    x->src = src;
    x->dst = dst;
    x->flow_id = flow_id;
    x->jump = -1;
    x->created_ms = now;
}

/* Books the outcome of a lookup that had to compute: the entry, or NULL
 * (its slot freed) when no route was found. */
static const mdc_entry *settle(mdc *m, mdc_entry *x, bool found, bool ok, uint64_t now)
{
    if (!ok) {
        m->c.segments_failed++;
        x->used = 0;
        return NULL;
    }
    if (found) {
        m->c.segments_rerouted++;
        x->reroutes++;
    } else {
        m->c.segments_new++;
    }
    x->used = 1;
    x->stale = 0;
    x->last_ms = now;
    return x;
}

const mdc_entry *mdc_source(mdc *m, uint32_t dst, uint32_t flow_id, uint64_t now)
{
    if (dst >= m->t->n_servers || mdc_container(m, dst) == m->self_c)
        return NULL;
    bool found;
    mdc_entry *x = slot(m, m->self, dst, flow_id, NULL, 0, now, &found);
    if (found && !x->stale) {
        x->last_ms = now;
        return x;
    }
    if (!found)
        fresh(x, m->self, dst, flow_id, now);
    x->source = 1;
    uint32_t dst_c = mdc_container(m, dst);
    /* an inner failure keeps the jump: only our own segment changes */
    bool ok = found && x->jump >= 0 && !route_blocked(m, x->container, x->n_containers, dst_c, now) &&
              compute_segment(m, x, x->container, x->n_containers);
    return settle(m, x, found, ok || draw_jump(m, x, now), now);
}

const mdc_entry *mdc_relay(mdc *m, uint32_t src, uint32_t dst, uint32_t flow_id, const uint32_t *rest,
                           unsigned nrest, uint64_t now)
{
    if (dst >= m->t->n_servers || src >= m->t->n_servers || nrest > DCN_MAX_CONTAINERS)
        return NULL;
    bool found;
    mdc_entry *x = slot(m, src, dst, flow_id, rest, nrest, now, &found);
    if (found && !x->stale) {
        x->last_ms = now;
        return x;
    }
    if (!found)
        fresh(x, src, dst, flow_id, now);
    bool ok = compute_segment(m, x, rest, nrest);
    if (ok) {
        x->n_containers = (uint8_t)nrest;
        memcpy(x->container, rest, nrest * sizeof rest[0]);
    }
    return settle(m, x, found, ok, now);
}

/* ---- failures ---- */

static bool seg_crosses(const mdc_entry *x, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i + 1 < x->seg_len; i++)
        if ((x->seg[i] == a && x->seg[i + 1] == b) || (x->seg[i] == b && x->seg[i + 1] == a))
            return true;
    return false;
}

void mdc_on_path_failure(mdc *m, uint32_t a, uint32_t b, uint64_t now)
{
    if (bsr_faildb_add(&m->fail, a, b, now + MDC_FAIL_MS, false) == BSR_FAILDB_BAD)
        return;
    for (unsigned i = 0; i < MDC_SLOTS; i++)
        if (m->e[i].used && seg_crosses(&m->e[i], a, b))
            m->e[i].stale = 1;
}

bool mdc_failure_match(const mdc *m, const dcn_path *to_reporter, uint32_t a, uint32_t b)
{
    if (to_reporter->len == 0)
        return false;
    uint32_t reporter = to_reporter->node[to_reporter->len - 1];
    for (unsigned i = 0; i < MDC_SLOTS; i++) {
        const mdc_entry *x = &m->e[i];
        if (!x->used || !seg_crosses(x, a, b))
            continue;
        for (uint32_t k = 0; k < x->seg_len; k++)
            if (x->seg[k] == reporter)
                return true;
    }
    return false;
}

bool mdc_on_unreach(mdc *m, uint32_t dst, uint32_t flow_id, uint32_t from_c, uint32_t to_c, uint64_t now)
{
    uint32_t dst_c = dst < m->t->n_servers ? mdc_container(m, dst) : 0;
    bool known = false;
    for (unsigned i = 0; i < MDC_SLOTS && !known; i++) {
        const mdc_entry *x = &m->e[i];
        known = x->used && x->source && x->dst == dst && x->flow_id == flow_id &&
                route_crosses(m->self_c, x->container, x->n_containers, dst_c, from_c, to_c);
    }
    if (!known) {
        m->c.unreach_unknown++;
        return false;
    }
    m->c.unreach_rx++;
    uint32_t lo = from_c < to_c ? from_c : to_c, hi = from_c < to_c ? to_c : from_c;
    unsigned victim = 0;
    for (unsigned i = 0; i < MDC_FIBRES_MAX; i++) {
        if (m->fibre[i].a == lo && m->fibre[i].b == hi) {
            victim = i;
            break;
        }
        if (m->fibre[i].expires_ms < m->fibre[victim].expires_ms)
            victim = i;
    }
    m->fibre[victim] = (mdc_fibre){lo, hi, now + MDC_FAIL_MS};
    for (unsigned i = 0; i < MDC_SLOTS; i++) {
        mdc_entry *x = &m->e[i];
        if (x->used && x->source &&
            route_crosses(m->self_c, x->container, x->n_containers, mdc_container(m, x->dst), from_c, to_c))
            x->stale = 1;
    }
    return true;
}

void mdc_tick(mdc *m, uint64_t now) { bsr_faildb_expire(&m->fail, now); }

int mdc_entries(const mdc *m, const mdc_entry **out, int max, uint64_t now)
{
    int n = 0;
    for (unsigned i = 0; i < MDC_SLOTS && n < max; i++)
        if (live(&m->e[i], now))
            out[n++] = &m->e[i];
    return n;
}
