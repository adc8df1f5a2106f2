/* BSR entry points: create/destroy, the per-packet route lookup, failure
 * and probe events, the periodic tick and introspection. The probe rounds
 * and path choice are in bsr_probe.c. */
#include "bsr.h"

#include <stdlib.h>
#include <string.h>

#include "bsr_internal.h"

void bsr_config_default(bsr_config *c)
{
    memset(c, 0, sizeof *c);
    c->reselect_ms = 10000;
    c->jitter_ms = 1000;
    c->probe_timeout_ms = 500;
    c->faildb_timeout_ms = 10000;
    c->flow_idle_ms = 60000;
    c->max_flows = 1024;
    c->switch_margin_pct = 10;
    c->unreachable_retry_ms = 1000;
}

#define BSR_MAX_FLOWS_LIMIT (1u << 16)
#define BSR_MAX_JITTER_MS 3600000u

uint64_t bsr_now(bsr *b)
{
    b->now_ms = b->io.now_ms(b->io.ctx);
    return b->now_ms;
}

bsr *bsr_create(const dcn_topo *t, uint32_t self, const bsr_config *cfg, const bsr_io *io, uint64_t seed)
{
    if (!t || !t->family || !cfg || !io || !io->now_ms || !io->send_probe || self >= t->n_servers)
        return NULL;
    if (!cfg->reselect_ms || !cfg->probe_timeout_ms || !cfg->faildb_timeout_ms || !cfg->flow_idle_ms ||
        !cfg->max_flows || cfg->max_flows > BSR_MAX_FLOWS_LIMIT || cfg->switch_margin_pct > 1000 ||
        cfg->jitter_ms > BSR_MAX_JITTER_MS)
        return NULL;
    bsr *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->t = t;
    b->self = self;
    b->cfg = *cfg;
    if (!b->cfg.unreachable_retry_ms)
        b->cfg.unreachable_retry_ms = 1000; /* a config filled by hand without the added field */
    b->io = *io;
    b->algo = dcn_family_algo(t->family, NULL);
    b->mdcube = t->family->name && strcmp(t->family->name, "mdcube") == 0;
    dcn_rng_seed(&b->algo_rng, seed);
    dcn_rng_seed(&b->rng, seed ^ 0x5DEECE66Dull);
    dcn_rng_seed(&b->nonce_rng, seed ^ 0xC2B2AE3D27D4EB4Full); /* its own: the other draws stay as they were */
    b->nports = dcn_nports(t, self);
    b->scratch = malloc(sizeof *b->scratch);
    b->avoid = calloc(dcn_n_nodes(t), 1);
    b->port_flows = calloc(b->nports ? b->nports : 1, sizeof *b->port_flows);
    b->port_bulk = calloc(b->nports ? b->nports : 1, sizeof *b->port_bulk);
    b->pathless = calloc(t->n_servers, sizeof *b->pathless);
    bool arena_ok = dcn_scratch_init(&b->arena, dcn_scratch_size_for(t)) == 0;
    bool db_ok = bsr_faildb_init(&b->db, t) == 0;
    bool ft_ok = bsr_flow_table_init(&b->ft, cfg->max_flows) == 0;
    if (!b->algo || !b->scratch || !b->avoid || !b->port_flows || !b->port_bulk || !b->pathless || !db_ok || !ft_ok ||
        !arena_ok) {
        if (ft_ok)
            bsr_flow_table_free(&b->ft);
        dcn_scratch_free(&b->arena);
        bsr_faildb_free(&b->db);
        free(b->scratch);
        free(b->avoid);
        free(b->port_flows);
        free(b->port_bulk);
        free(b->pathless);
        free(b);
        return NULL;
    }
    bsr_now(b);
    return b;
}

void bsr_destroy(bsr *b)
{
    if (!b)
        return;
    bsr_flow_table_free(&b->ft);
    bsr_faildb_free(&b->db);
    dcn_scratch_free(&b->arena);
    free(b->scratch);
    free(b->avoid);
    free(b->port_flows);
    free(b->port_bulk);
    free(b->pathless);
    free(b);
}

static void forget_flow(bsr *b, bsr_flow *f)
{
    bsr_set_current(b, f, NULL, -1); /* releases its local port count */
    b->pathless[f->dst]--;
    bsr_flow_remove(&b->ft, f);
}

static bsr_flow *new_flow(bsr *b, const bsr_flow_key *k, uint32_t dst)
{
    uint64_t now = bsr_now(b);
    bsr_flow *f = bsr_flow_insert(&b->ft, k);
    if (!f) {
        /* Full: the least recently used flow makes room. */
        forget_flow(b, bsr_flow_lru_tail(&b->ft));
        b->c.flows_evicted++;
        f = bsr_flow_insert(&b->ft, k);
    }
    f->dst = dst;
    b->pathless[dst]++; /* a new flow has no path yet (cur.len is 0) */
    f->cur_index = -1;
    f->cur_port = -1;
    f->created_ms = f->last_used_ms = f->window_start_ms = f->tick_start_ms = now;
    b->c.flows_created++;
    bsr_round_start(b, f, now, BSR_PICK_DEFAULT);
    return f;
}

static const dcn_path *route_bytes(bsr *b, const bsr_flow_key *k, uint32_t dst_server, uint32_t bytes)
{
    if (dst_server >= b->t->n_servers || dst_server == b->self) {
        b->c.unreachable++;
        return NULL;
    }
    bsr_flow *f = bsr_flow_find(&b->ft, k);
    if (f && f->dst != dst_server) {
        forget_flow(b, f); /* the same 5-tuple towards another server: a new flow */
        f = NULL;
    }
    if (!f)
        f = new_flow(b, k, dst_server);
    else {
        bsr_flow_touch(&b->ft, f);
        f->last_used_ms = b->now_ms;
    }
    f->window_bytes += bytes;
    f->tick_bytes += bytes;
    if (!f->cur.len) {
        b->c.unreachable++;
        return NULL;
    }
    return &f->cur;
}

/* Every entry that may run the routing algorithms does so in the bsr's own
 * arena (topo/scratch.h): no allocation per flow, message or round. */
const dcn_path *bsr_route_bytes(bsr *b, const bsr_flow_key *k, uint32_t dst_server, uint32_t bytes)
{
    if (!b || !k)
        return NULL;
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    const dcn_path *p = route_bytes(b, k, dst_server, bytes);
    dcn_scratch_leave(prev);
    return p;
}

const dcn_path *bsr_current_path(const bsr *b, const bsr_flow_key *k, uint32_t dst_server)
{
    const bsr_flow *f = b && k ? bsr_flow_find((bsr_flow_table *)&b->ft, k) : NULL;
    return f && f->dst == dst_server && f->cur.len ? &f->cur : NULL;
}

const dcn_path *bsr_route(bsr *b, const bsr_flow_key *k, uint32_t dst_server)
{
    return bsr_route_bytes(b, k, dst_server, 0);
}

void bsr_on_probe_response(bsr *b, const bsr_flow_key *k, uint32_t probe_seq, uint32_t avail_mbps,
                           const dcn_path *path)
{
    if (!b || !k)
        return;
    uint64_t now = bsr_now(b);
    bsr_flow *f = bsr_flow_find(&b->ft, k);
    if (!f) {
        b->c.probe_responses_stale++;
        return;
    }
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    bsr_probe_answer(b, f, probe_seq, avail_mbps, path, now);
    dcn_scratch_leave(prev);
}

static void link_failed_in_arena(bsr *b, uint32_t a, uint32_t bnode, bool local);

static void link_failed(bsr *b, uint32_t a, uint32_t bnode, bool local)
{
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    link_failed_in_arena(b, a, bnode, local);
    dcn_scratch_leave(prev);
}

static void link_failed_in_arena(bsr *b, uint32_t a, uint32_t bnode, bool local)
{
    uint64_t now = bsr_now(b);
    b->c.failures_heard++;
    bsr_faildb_add_result r = bsr_faildb_add(&b->db, a, bnode, now + b->cfg.faildb_timeout_ms, local);
    if (r == BSR_FAILDB_BAD) {
        b->c.failures_ignored++;
        return;
    }
    if (r == BSR_FAILDB_KNOWN)
        return; /* already acted on; the entry's lifetime was refreshed */
    for (bsr_flow *f = bsr_flow_first(&b->ft); f; f = bsr_flow_next(&b->ft, f))
        bsr_flow_link_failed(b, f, a, bnode, now);
}

void bsr_on_path_failure(bsr *b, uint32_t node_a, uint32_t node_b)
{
    if (b)
        link_failed(b, node_a, node_b, false);
}

void bsr_on_local_port(bsr *b, uint16_t port, int up)
{
    if (!b || port >= b->nports)
        return;
    dcn_end peer = dcn_peer(b->t, b->self, port);
    if (peer.node == DCN_NONE)
        return;
    if (up) {
        bsr_now(b);
        bsr_faildb_remove(&b->db, b->self, peer.node, true);
        return;
    }
    link_failed(b, b->self, peer.node, true);
}

bool bsr_wants_path_from(const bsr *b, uint32_t src)
{
    return b && b->db.n && src < b->t->n_servers && b->pathless[src];
}

bool bsr_wants_any_path(const bsr *b)
{
    if (!b || !b->db.n)
        return false;
    for (uint32_t s = 0; s < b->t->n_servers; s++)
        if (b->pathless[s])
            return true;
    return false;
}

void bsr_on_path_heard(bsr *b, const dcn_path *p)
{
    if (!b || !p || p->len < 2 || !bsr_wants_path_from(b, p->node[0]) || p->node[p->len - 1] != b->self)
        return;
    uint32_t cleared = bsr_faildb_clear_path(&b->db, p);
    if (!cleared)
        return;
    b->c.faildb_cleared_by_data += cleared;
    uint64_t now = bsr_now(b);
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    for (bsr_flow *f = bsr_flow_first(&b->ft); f; f = bsr_flow_next(&b->ft, f))
        if (f->dst == p->node[0] && !f->cur.len)
            bsr_round_start(b, f, now, BSR_PICK_DEFAULT);
    dcn_scratch_leave(prev);
}

static void update_rate(bsr_flow *f, uint64_t now)
{
    uint64_t span = now - f->window_start_ms;
    if (span < BSR_RATE_WINDOW_MS)
        return;
    uint64_t mbps = f->window_bytes * 8 / (span * 1000);
    f->own_rate_mbps = mbps > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)mbps;
    if (f->bulk && f->own_rate_mbps > f->bulk_rate_mbps)
        f->bulk_rate_mbps = f->own_rate_mbps;
    f->window_bytes = 0;
    f->window_start_ms = now;
}

static void tick(bsr *b);

void bsr_tick(bsr *b)
{
    if (!b)
        return;
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    tick(b);
    dcn_scratch_leave(prev);
}

bool bsr_idle(const bsr *b) { return !b || (b->ft.count == 0 && b->db.n == 0); }

static void tick(bsr *b)
{
    uint64_t now = bsr_now(b);
    b->c.faildb_expired += bsr_faildb_expire(&b->db, now);
    for (bsr_flow *f = bsr_flow_lru_tail(&b->ft); f; f = bsr_flow_lru_tail(&b->ft)) {
        if (now < f->last_used_ms || now - f->last_used_ms < b->cfg.flow_idle_ms)
            break; /* the least recently used flow is recent enough: all are */
        forget_flow(b, f);
        b->c.flows_expired++;
    }
    for (bsr_flow *f = bsr_flow_first(&b->ft); f; f = bsr_flow_next(&b->ft, f)) {
        update_rate(f, now);
        bsr_flow_bulk_check(b, f, now);
        if (f->round_active)
            bsr_round_check(b, f, now);
        else if (now >= f->next_round_ms)
            bsr_round_start(b, f, now, BSR_PICK_DEFAULT);
    }
}

size_t bsr_flows(const bsr *b, bsr_flow_info *out, size_t max)
{
    if (!b || !out)
        return 0;
    size_t n = 0;
    for (const bsr_flow *f = bsr_flow_first(&b->ft); f && n < max; f = bsr_flow_next(&b->ft, f), n++) {
        bsr_flow_info *o = &out[n];
        memset(o, 0, sizeof *o);
        o->key = f->key;
        o->dst_server = f->dst;
        dcn_path_copy(&o->path, &f->cur);
        o->path_index = f->cur_index;
        o->n_paths = f->n_paths;
        for (uint32_t i = 0; i < BSR_MAX_PATHS; i++) {
            o->avail_mbps[i] = i < f->n_paths ? f->paths[i].avail_mbps : BSR_AVAIL_UNKNOWN;
            o->path_state[i] = i < f->n_paths ? f->paths[i].state : BSR_PATH_UNPROBED;
        }
        o->cur_avail_mbps = f->cur_index >= 0 ? f->paths[f->cur_index].avail_mbps : BSR_AVAIL_UNKNOWN;
        o->own_rate_mbps = f->own_rate_mbps;
        o->probes_sent = f->probes_sent;
        o->path_switches = f->switches;
        o->age_ms = b->now_ms > f->created_ms ? b->now_ms - f->created_ms : 0;
        o->idle_ms = b->now_ms > f->last_used_ms ? b->now_ms - f->last_used_ms : 0;
    }
    return n;
}

void bsr_get_counters(const bsr *b, bsr_counters *out)
{
    if (!b || !out)
        return;
    *out = b->c;
    out->flows = b->ft.count;
    out->faildb_entries = b->db.n;
}

size_t bsr_faildb_list(const bsr *b, bsr_faildb_info *out, size_t max)
{
    if (!b || !out)
        return 0;
    size_t n = 0;
    for (uint32_t i = 0; i < b->db.n && n < max; i++, n++) {
        const bsr_faildb_entry *e = &b->db.e[i];
        out[n].node_a = e->a;
        out[n].node_b = e->b;
        if (e->local)
            out[n].expires_in_ms = UINT64_MAX;
        else
            out[n].expires_in_ms = e->expires_ms > b->now_ms ? e->expires_ms - b->now_ms : 0;
    }
    return n;
}

int bsr_pathset(bsr *b, uint32_t dst_server, dcn_pathset *out)
{
    if (!b || !out)
        return -1;
    bsr_now(b);
    dcn_scratch *prev = dcn_scratch_enter(&b->arena);
    int n = bsr_compute_set(b, dst_server, out, DCN_PATHSET_MAX);
    dcn_scratch_leave(prev);
    return n;
}
