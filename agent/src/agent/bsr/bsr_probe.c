/* BSR probe rounds and path choice (BCube paper §4.2, PathSelection):
 *
 *   set = BuildPathSet(src, dst) under the failed-link database
 *   probe every path of the set; a probe not answered in time (or whose
 *   path a path-failure message names) failed: replace that path by the BFS
 *   path avoiding the failed links and the nodes of the other paths, probe it
 *   when the round has nothing outstanding: keep the path with the most
 *   available bandwidth (the flow's own rate counted back on its current path,
 *   and on the first hop of the paths that share its local port).
 */
#include <string.h>

#include "bsr_internal.h"
#include "topo/bfs.h"

bool bsr_paths_equal(const dcn_path *a, const dcn_path *b)
{
    return a->len == b->len && memcmp(a->node, b->node, a->len * sizeof a->node[0]) == 0;
}

static bool path_usable(const bsr *b, const dcn_path *p, uint32_t dst)
{
    return p->len >= 2 && p->node[0] == b->self && p->node[p->len - 1] == dst &&
           dcn_path_valid(p, b->t, NULL, NULL);
}

int bsr_family_set(bsr *b, uint32_t dst, const dcn_failures *f, dcn_pathset *out)
{
    dcn_route_ctx ctx = {.failures = f, .rng = &b->algo_rng};
    int n = b->algo->fn(b->t, b->self, dst, &ctx, out);
    if (n < 0 || out->count > DCN_PATHSET_MAX) {
        out->count = 0;
        return n < 0 ? -1 : 0;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < out->count; i++)
        if (path_usable(b, &out->path[i], dst)) {
            if (kept != i)
                out->path[kept] = out->path[i];
            kept++;
        }
    out->count = kept;
    return (int)kept;
}

int bsr_compute_set(bsr *b, uint32_t dst, dcn_pathset *out, uint32_t limit)
{
    out->count = 0;
    if (dst >= b->t->n_servers || dst == b->self)
        return -1;
    const dcn_failures *f = bsr_faildb_view(&b->db);
    int n = bsr_family_set(b, dst, f, out);
    if (dcn_pathset_repair(b->t, f, out) < 0) {
        /* Out of memory in the repair: keep the paths that are fine as they are. */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < out->count; i++)
            if (bsr_faildb_path_ok(&b->db, &out->path[i]))
                out->path[kept++] = out->path[i];
        out->count = kept;
    }
    if (out->count == 0 && n >= 0) {
        /* The family found nothing under the failures: BSR's BFS still may. */
        if (dcn_bfs_path(b->t, b->self, dst, f, NULL, &out->path[0]) == 0)
            out->count = 1;
    }
    if (out->count > limit)
        out->count = limit;
    return (int)out->count;
}

static int32_t local_port_of(const bsr *b, const dcn_path *p)
{
    return p->len >= 2 ? dcn_topo_port_to(b->t, b->self, p->node[1]) : -1;
}

static void port_count(bsr *b, const bsr_flow *f, int delta)
{
    if (f->cur_port < 0)
        return;
    b->port_flows[f->cur_port] += (uint32_t)delta;
    if (f->bulk)
        b->port_bulk[f->cur_port] += (uint32_t)delta;
}

void bsr_set_current(bsr *b, bsr_flow *f, const dcn_path *p, int32_t index)
{
    if (p && f->cur.len && bsr_paths_equal(p, &f->cur)) {
        f->cur_index = index;
        return;
    }
    port_count(b, f, -1);
    if (!f->cur.len != !p) /* from no path to one, or back */
        b->pathless[f->dst] += p ? (uint32_t)-1 : 1u;
    if (p && f->cur.len) {
        f->switches++;
        f->moved_ms = b->now_ms ? b->now_ms : 1;
        b->c.path_switches++;
    }
    if (p) {
        dcn_path_copy(&f->cur, p);
        f->cur_port = local_port_of(b, p);
        f->cur_index = index;
    } else {
        f->cur.len = 0;
        f->cur_port = -1;
        f->cur_index = -1;
    }
    port_count(b, f, +1);
}

static bool slot_usable(bsr *b, const bsr_path_slot *s)
{
    return s->state != BSR_PATH_FAILED && bsr_faildb_path_ok(&b->db, &s->path);
}

/* p and q share a link in the same direction. */
static bool share_link(const dcn_path *p, const dcn_path *q)
{
    for (uint32_t i = 0; i + 1 < p->len; i++)
        for (uint32_t j = 0; j + 1 < q->len; j++)
            if (p->node[i] == q->node[j] && p->node[i + 1] == q->node[j + 1])
                return true;
    return false;
}

/* g is another flow of ours to f's destination with a path (a bulk one
 * unless all). */
static bool same_pair(const bsr_flow *f, const bsr_flow *g, bool all)
{
    return g != f && g->dst == f->dst && g->cur.len && (all || g->bulk);
}

/* Our other flows to f's destination (only the bulk ones unless all) whose
 * current path shares a link with p. Flows to other servers are left out:
 * counting them too sent all-to-all flows onto longer paths (bcdc-all-to-all
 * at 8041942: mean path 2.083 server hops against 1.955). */
static uint32_t sharing_flows(const bsr *b, const bsr_flow *f, const dcn_path *p, bool all)
{
    uint32_t n = 0;
    for (const bsr_flow *g = bsr_flow_first(&b->ft); g; g = bsr_flow_next(&b->ft, g))
        if (same_pair(f, g, all) && share_link(&g->cur, p))
            n++;
    return n;
}

/* The load our other bulk flows to f's destination whose current path
 * shares a link with p will bring back: each one's highest rate since it
 * became bulk above its rate now. While such a flow stalls (a TCP timeout,
 * its ACKs on a broken reverse path) or ramps up again, its path measures
 * free of it. */
static uint64_t returning_load(const bsr *b, const bsr_flow *f, const dcn_path *p)
{
    uint64_t load = 0;
    for (const bsr_flow *g = bsr_flow_first(&b->ft); g; g = bsr_flow_next(&b->ft, g))
        if (same_pair(f, g, false) && g->bulk_rate_mbps > g->own_rate_mbps && share_link(&g->cur, p))
            load += g->bulk_rate_mbps - g->own_rate_mbps;
    return load;
}

/* How a path ranks for placing a flow: fewer of our bulk flows on its
 * local port, then fewer of our flows there (when count_flows), then fewer
 * of our flows to the same server (all when count_flows, else the bulk
 * ones) on any of its links (two paths on different ports may meet further
 * on, e.g. into one port of the destination), then fewer hops. Lower is
 * better. */
typedef struct place_rank {
    uint32_t bulk, flows, shared, len;
} place_rank;

static place_rank rank_of(const bsr *b, const bsr_flow *f, const dcn_path *p, bool count_flows)
{
    place_rank r = {0, 0, sharing_flows(b, f, p, count_flows), p->len};
    int32_t port = local_port_of(b, p);
    if (port >= 0) {
        r.bulk = b->port_bulk[port];
        r.flows = count_flows ? b->port_flows[port] : 0;
        if (port == f->cur_port && f->cur.len) { /* the flow itself does not count */
            r.bulk -= f->bulk && r.bulk ? 1 : 0;
            r.flows -= count_flows && r.flows ? 1 : 0;
        }
    }
    return r;
}

static int rank_cmp(place_rank a, place_rank c)
{
    if (a.bulk != c.bulk)
        return a.bulk < c.bulk ? -1 : 1;
    if (a.flows != c.flows)
        return a.flows < c.flows ? -1 : 1;
    if (a.shared != c.shared)
        return a.shared < c.shared ? -1 : 1;
    if (a.len != c.len)
        return a.len < c.len ? -1 : 1;
    return 0;
}

/* The index of the path to put a flow on, among the usable ones. */
static int32_t pick_slot(bsr *b, bsr_flow *f, bsr_pick pick, int32_t exclude)
{
    int32_t best = -1;
    uint32_t seen = 0;
    place_rank best_rank = {0, 0, 0, 0};
    for (uint32_t i = 0; i < f->n_paths; i++) {
        if ((int32_t)i == exclude || !slot_usable(b, &f->paths[i]))
            continue;
        if (pick == BSR_PICK_RANDOM) {
            /* Reservoir sampling: every usable path equally likely. */
            if (dcn_rng_below(&b->rng, ++seen) == 0)
                best = (int32_t)i;
            continue;
        }
        place_rank r = rank_of(b, f, &f->paths[i].path, true);
        if (best < 0 || rank_cmp(r, best_rank) < 0) {
            best = (int32_t)i;
            best_rank = r;
        }
    }
    return best;
}

void bsr_flow_bulk_check(bsr *b, bsr_flow *f, uint64_t now)
{
    if (now < f->tick_start_ms) { /* the clock went back */
        f->tick_start_ms = now;
        f->tick_bytes = 0;
        return;
    }
    uint64_t span = now - f->tick_start_ms;
    if (span < BSR_BULK_MIN_SPAN_MS)
        return;
    bool fast = f->tick_bytes * 8 >= (uint64_t)BSR_BULK_KBPS * span;
    f->tick_bytes = 0;
    f->tick_start_ms = now;
    if (fast)
        f->last_bulk_ms = now;
    if (f->bulk) {
        if (!fast && now - f->last_bulk_ms >= BSR_BULK_HOLD_MS) {
            port_count(b, f, -1);
            f->bulk = false;
            f->bulk_rate_mbps = 0;
            port_count(b, f, +1);
        }
        return;
    }
    if (!fast || !f->cur.len)
        return;
    /* It just became a bulk flow: away from our other bulk flows if a
     * usable path of its set has fewer of them on its local port, or as
     * many there and fewer on its links; the shortest such path. */
    place_rank cur = rank_of(b, f, &f->cur, false);
    int32_t best = -1;
    place_rank best_rank = cur;
    for (uint32_t i = 0; i < f->n_paths; i++) {
        if (!slot_usable(b, &f->paths[i]) || bsr_paths_equal(&f->paths[i].path, &f->cur))
            continue;
        place_rank r = rank_of(b, f, &f->paths[i].path, false);
        bool fewer = r.bulk < cur.bulk || (r.bulk == cur.bulk && r.shared < cur.shared); /* not just shorter */
        if (fewer && (best < 0 || rank_cmp(r, best_rank) < 0)) {
            best = (int32_t)i;
            best_rank = r;
        }
    }
    if (best >= 0)
        bsr_set_current(b, f, &f->paths[best].path, best);
    port_count(b, f, -1);
    f->bulk = true;
    port_count(b, f, +1);
}

static void send_probe(bsr *b, bsr_flow *f, uint32_t i, uint64_t now)
{
    bsr_path_slot *s = &f->paths[i];
    do /* a nonce: a response must echo it, so one cannot be made up without seeing the probe */
        s->seq = (uint32_t)(dcn_rng_next(&b->nonce_rng) >> 32);
    while (s->seq == 0);
    s->sent_ms = now;
    s->state = BSR_PATH_PENDING;
    f->pending++;
    f->probes_sent++;
    b->c.probes_sent++;
    /* Our own rate leaves the first hop with us when the path shares our
     * current local port: without that credit such a path measures our own
     * load against itself, and two flows herded onto one bottleneck further
     * on see their way out exactly as good as staying (a tie). */
    uint32_t credit = 0;
    if (f->cur.len && f->cur_port >= 0 && local_port_of(b, &s->path) == f->cur_port &&
        !bsr_paths_equal(&s->path, &f->cur))
        credit = f->own_rate_mbps;
    if (b->io.send_probe(b->io.ctx, &f->key, s->seq, &s->path, credit) < 0)
        b->c.probe_send_errors++; /* left pending: it times out like a lost probe */
}

void bsr_add_slot(bsr_flow *f, const dcn_path *p, bool recovery)
{
    bsr_path_slot *s = &f->paths[f->n_paths++];
    dcn_path_copy(&s->path, p);
    s->avail_mbps = BSR_AVAIL_UNKNOWN;
    s->state = BSR_PATH_UNPROBED;
    s->seq = 0;
    s->recovery = recovery;
}

int32_t bsr_find_in_set(const bsr_flow *f, const dcn_path *p)
{
    if (!p->len)
        return -1;
    for (uint32_t i = 0; i < f->n_paths; i++)
        if (bsr_paths_equal(&f->paths[i].path, p))
            return (int32_t)i;
    return -1;
}

/* A bulk flow whose every usable path shares a link with another of our
 * bulk flows to the same server gets one more path: the BFS path that
 * avoids those flows' relays (and the known failures). Without it, after a
 * relay of one of two BCN connections died, the family's reroute entered
 * the destination by the switch port the other connection used, and the
 * set had no path apart from it (bcn-one-to-one at c687c35: 14.7 s to
 * recover, the two connections on one last hop). */
static void add_apart_path(bsr *b, bsr_flow *f)
{
    if (!f->bulk || f->n_paths >= BSR_MAX_PATHS)
        return;
    for (uint32_t i = 0; i < f->n_paths; i++)
        if (slot_usable(b, &f->paths[i]) && !sharing_flows(b, f, &f->paths[i].path, false))
            return;
    memset(b->avoid, 0, dcn_n_nodes(b->t));
    bool others = false;
    for (const bsr_flow *g = bsr_flow_first(&b->ft); g; g = bsr_flow_next(&b->ft, g))
        if (same_pair(f, g, false)) {
            others = true;
            for (uint32_t k = 1; k + 1 < g->cur.len; k++)
                b->avoid[g->cur.node[k]] = 1;
        }
    dcn_path alt;
    if (!others || dcn_bfs_path(b->t, b->self, f->dst, bsr_faildb_view(&b->db), b->avoid, &alt) < 0 ||
        bsr_find_in_set(f, &alt) >= 0)
        return;
    bsr_add_slot(f, &alt, false);
    b->c.apart_paths_added++;
}

void bsr_round_start(bsr *b, bsr_flow *f, uint64_t now, bsr_pick pick)
{
    dcn_pathset *set = b->scratch;
    int n = bsr_compute_set(b, f->dst, set, BSR_MAX_PATHS);
    if (n < 0)
        n = 0;
    /* Carry the last measurement of paths that stay in the set. */
    uint32_t carried[BSR_MAX_PATHS];
    for (uint32_t j = 0; j < (uint32_t)n; j++) {
        carried[j] = BSR_AVAIL_UNKNOWN;
        for (uint32_t i = 0; i < f->n_paths; i++)
            if (f->paths[i].state != BSR_PATH_FAILED && bsr_paths_equal(&f->paths[i].path, &set->path[j])) {
                carried[j] = f->paths[i].avail_mbps;
                break;
            }
    }
    f->n_paths = (uint32_t)n;
    for (uint32_t j = 0; j < (uint32_t)n; j++) {
        bsr_path_slot *s = &f->paths[j];
        dcn_path_copy(&s->path, &set->path[j]);
        s->avail_mbps = carried[j];
        s->state = BSR_PATH_UNPROBED;
        s->seq = 0;
        s->recovery = 0;
    }
    add_apart_path(b, f);
    bsr_add_recovery_paths(b, f, n == 0);
    f->pending = 0;
    f->replacements = 0;
    f->round_active = false;
    bool cur_ok = f->cur.len && bsr_faildb_path_ok(&b->db, &f->cur);
    f->cur_index = cur_ok ? bsr_find_in_set(f, &f->cur) : -1;
    if (!cur_ok) {
        int32_t i = pick_slot(b, f, pick, -1);
        bsr_set_current(b, f, i >= 0 ? &f->paths[i].path : NULL, i);
    }
    if (f->n_paths == 0) {
        f->next_round_ms = now + b->cfg.unreachable_retry_ms;
        return;
    }
    f->round_active = true;
    for (uint32_t j = 0; j < f->n_paths; j++)
        send_probe(b, f, j, now);
}

static uint64_t jitter(bsr *b) { return dcn_rng_below(&b->rng, b->cfg.jitter_ms + 1); }

/* Another bulk flow of ours moved less than BSR_SETTLE_MS ago onto a link
 * of f's path or of cand, or towards f's destination: the probes of this
 * round may not show its load where it went, nor its absence where it was. */
static bool moved_nearby(bsr *b, const bsr_flow *f, const dcn_path *cand, uint64_t now)
{
    for (const bsr_flow *g = bsr_flow_first(&b->ft); g; g = bsr_flow_next(&b->ft, g))
        if (g != f && g->bulk && g->moved_ms && now >= g->moved_ms && now - g->moved_ms < BSR_SETTLE_MS &&
            (g->dst == f->dst || share_link(&g->cur, cand) || share_link(&g->cur, &f->cur)))
            return true;
    return false;
}

/* What path i of f's set offers f: its last measurement, plus f's own rate
 * on its current path (our own load is not a reason to leave), less, for a
 * bulk flow, the load our other bulk flows to the same server will bring
 * back to it (returning_load). */
static uint64_t offered(const bsr *b, const bsr_flow *f, uint32_t i)
{
    uint64_t eff = f->paths[i].avail_mbps;
    if ((int32_t)i == f->cur_index)
        eff += f->own_rate_mbps;
    if (f->bulk) {
        uint64_t back = returning_load(b, f, &f->paths[i].path);
        eff = eff > back ? eff - back : 0;
    }
    return eff;
}

/* Path i answered this round and crosses no known failed link. */
static bool slot_answered(bsr *b, const bsr_flow *f, uint32_t i)
{
    return f->paths[i].state == BSR_PATH_GOOD && bsr_faildb_path_ok(&b->db, &f->paths[i].path);
}

/* Path i, offering eff, beats path other (-1: none yet) offering other_eff:
 * more bandwidth; on a tie the shorter path, then the current one. */
static bool beats(const bsr_flow *f, uint32_t i, uint64_t eff, int32_t other, uint64_t other_eff)
{
    if (other < 0 || eff != other_eff)
        return other < 0 || eff > other_eff;
    uint32_t len = f->paths[i].path.len, other_len = f->paths[other].path.len;
    return len < other_len || (len == other_len && (int32_t)i == f->cur_index);
}

static uint64_t margin_of(const bsr *b, uint64_t eff)
{
    uint64_t margin = b->cfg.switch_margin_pct ? eff * b->cfg.switch_margin_pct / 100 : 0;
    return b->cfg.switch_margin_pct && margin < 1 ? 1 : margin;
}

/* The answered path the bulk flow f should take instead of best when best
 * shares a link with our other bulk flows to the same server: the one with
 * the most bandwidth among the paths shared with fewer of them that measure
 * within the switch margin of best (ties: shorter, then the current one).
 * While another flow of the pair stalls (a TCP timeout, its ACKs on a broken
 * reverse path), its path looks as free as any, and the shorter wins the
 * tie: bcube-one-to-one at 41af4bc, paper timers, the connection whose relay
 * died went to the other's path and the two stayed herded for 11 s. */
static int32_t apart_within_margin(bsr *b, const bsr_flow *f, int32_t best, uint64_t *best_avail)
{
    uint32_t shared = sharing_flows(b, f, &f->paths[best].path, false);
    if (!shared)
        return best;
    uint64_t margin = margin_of(b, *best_avail);
    uint64_t floor = *best_avail > margin ? *best_avail - margin : 0;
    int32_t pick = -1;
    uint64_t pick_eff = 0;
    for (uint32_t i = 0; i < f->n_paths; i++) {
        if ((int32_t)i == best || !slot_answered(b, f, i))
            continue;
        uint64_t eff = offered(b, f, i);
        if (eff < floor || sharing_flows(b, f, &f->paths[i].path, false) >= shared)
            continue;
        if (beats(f, i, eff, pick, pick_eff)) {
            pick = (int32_t)i;
            pick_eff = eff;
        }
    }
    if (pick < 0)
        return best;
    *best_avail = pick_eff;
    return pick;
}

/* SelectBestPath over the answered paths. Returns true when it put off a
 * move because another flow just moved nearby (moved_nearby; at most once
 * in a row, may_defer). */
static bool select_best(bsr *b, bsr_flow *f, uint64_t now, bool may_defer)
{
    /* The current path may have entered the set as a BFS alternate. */
    f->cur_index = bsr_find_in_set(f, &f->cur);
    int32_t best = -1;
    uint64_t best_avail = 0;
    uint64_t cur_eff = 0;
    bool cur_measured = false;
    for (uint32_t i = 0; i < f->n_paths; i++) {
        if (!slot_answered(b, f, i))
            continue;
        uint64_t eff = offered(b, f, i);
        if ((int32_t)i == f->cur_index) {
            cur_eff = eff;
            cur_measured = true;
        }
        if (beats(f, i, eff, best, best_avail)) {
            best = (int32_t)i;
            best_avail = eff;
        }
    }
    if (best < 0) {
        /* Nothing answered. Keep a path that is not known broken; else
         * take any path of the set that is not known broken. */
        if (f->cur.len && bsr_faildb_path_ok(&b->db, &f->cur))
            return false;
        int32_t i = pick_slot(b, f, BSR_PICK_DEFAULT, -1);
        bsr_set_current(b, f, i >= 0 ? &f->paths[i].path : NULL, i);
        return false;
    }
    if (f->bulk)
        best = apart_within_margin(b, f, best, &best_avail);
    if (best == f->cur_index)
        return false;
    bool shorter_tie = cur_measured && best_avail >= cur_eff && f->paths[best].path.len < f->cur.len;
    if (cur_measured && !shorter_tie) {
        uint64_t margin = margin_of(b, cur_eff);
        if (best_avail <= cur_eff + margin)
            return false;
    }
    if (may_defer && f->cur.len && f->bulk && moved_nearby(b, f, &f->paths[best].path, now)) {
        b->c.moves_deferred++;
        return true;
    }
    bsr_set_current(b, f, &f->paths[best].path, best);
    return false;
}

static void round_finish(bsr *b, bsr_flow *f, uint64_t now)
{
    f->round_active = false;
    f->deferred = select_best(b, f, now, !f->deferred);
    bool settle = f->deferred || f->failed_over;
    f->failed_over = false;
    if (f->cur.len)
        f->next_round_ms = now + (settle ? BSR_SETTLE_MS : b->cfg.reselect_ms) + jitter(b);
    else
        f->next_round_ms = now + b->cfg.unreachable_retry_ms;
}

/* Replaces the failed path at i by its BFS alternate (avoiding the failed
 * links and the inner nodes of the other live paths) and probes it. A probe
 * lost without any failure heard leaves the failed links unchanged, and the
 * BFS would give the same path again: then the alternate also avoids the
 * relay servers of the path that failed (each may be the one that died). */
static void replace_failed(bsr *b, bsr_flow *f, uint32_t i, uint64_t now)
{
    bsr_path_slot *failed = &f->paths[i];
    if (failed->recovery || f->replacements >= BSR_MAX_PATHS)
        return; /* bounded work per round; the next round starts afresh */
    uint32_t n = dcn_n_nodes(b->t);
    memset(b->avoid, 0, n);
    for (uint32_t j = 0; j < f->n_paths; j++) {
        const bsr_path_slot *s = &f->paths[j];
        if (j == i || s->state == BSR_PATH_FAILED || s->recovery)
            continue;
        for (uint32_t k = 1; k + 1 < s->path.len; k++)
            b->avoid[s->path.node[k]] = 1;
    }
    const dcn_failures *fl = bsr_faildb_view(&b->db);
    dcn_path alt;
    int rc = dcn_bfs_path(b->t, b->self, f->dst, fl, b->avoid, &alt);
    if (rc == 0 && bsr_paths_equal(&alt, &failed->path)) {
        for (uint32_t k = 1; k + 1 < failed->path.len; k++)
            if (dcn_kind(b->t, failed->path.node[k]) == DCN_SERVER)
                b->avoid[failed->path.node[k]] = 1;
        rc = dcn_bfs_path(b->t, b->self, f->dst, fl, b->avoid, &alt);
    }
    /* Nothing, or nothing new: this round goes on without that path. */
    if (rc < 0 || bsr_paths_equal(&alt, &failed->path) || bsr_find_in_set(f, &alt) >= 0)
        return;
    f->replacements++;
    if (f->cur_index == (int32_t)i)
        f->cur_index = -1;
    dcn_path_copy(&failed->path, &alt);
    failed->avail_mbps = BSR_AVAIL_UNKNOWN;
    send_probe(b, f, i, now);
}

static void fail_slot(bsr *b, bsr_flow *f, uint32_t i, uint64_t now, bool replace)
{
    bsr_path_slot *s = &f->paths[i];
    bool was_pending = s->state == BSR_PATH_PENDING;
    s->state = BSR_PATH_FAILED;
    if (was_pending) {
        f->pending--;
        if (replace)
            replace_failed(b, f, i, now);
    }
}

void bsr_round_check(bsr *b, bsr_flow *f, uint64_t now)
{
    if (!f->round_active)
        return;
    for (uint32_t i = 0; i < f->n_paths; i++) {
        bsr_path_slot *s = &f->paths[i];
        if (s->state == BSR_PATH_PENDING && now >= s->sent_ms && now - s->sent_ms >= b->cfg.probe_timeout_ms) {
            b->c.probe_timeouts++;
            fail_slot(b, f, i, now, true);
        }
    }
    if (f->pending == 0)
        round_finish(b, f, now);
}

void bsr_probe_answer(bsr *b, bsr_flow *f, uint32_t seq, uint32_t avail_mbps, const dcn_path *path, uint64_t now)
{
    for (uint32_t i = 0; i < f->n_paths; i++) {
        bsr_path_slot *s = &f->paths[i];
        if (s->state != BSR_PATH_PENDING || s->seq != seq)
            continue;
        if (path && !bsr_paths_equal(path, &s->path)) {
            b->c.probe_responses_wrong_path++;
            return;
        }
        b->c.probe_responses++;
        s->state = BSR_PATH_GOOD;
        s->avail_mbps = avail_mbps == BSR_AVAIL_UNKNOWN ? BSR_AVAIL_UNKNOWN - 1 : avail_mbps;
        /* The probe crossed every link of the path: none of them is down. */
        b->c.faildb_cleared_by_probe += bsr_faildb_clear_path(&b->db, &s->path);
        f->pending--;
        if (f->pending == 0)
            round_finish(b, f, now);
        return;
    }
    b->c.probe_responses_stale++;
}

void bsr_flow_link_failed(bsr *b, bsr_flow *f, uint32_t a, uint32_t bnode, uint64_t now)
{
    bool cur_hit = f->cur.len && bsr_path_crosses(&f->cur, a, bnode);
    /* Every path of the set over the link failed; a probe on one is
     * answered by this message, and its BFS alternate is probed. */
    for (uint32_t i = 0; i < f->n_paths; i++)
        if (f->paths[i].state != BSR_PATH_FAILED && bsr_path_crosses(&f->paths[i].path, a, bnode))
            fail_slot(b, f, i, now, !cur_hit); /* when the path broke, a new round follows anyway */
    if (!cur_hit) {
        if (f->round_active && f->pending == 0)
            round_finish(b, f, now);
        return;
    }
    /* The flow's path broke: move at once to the cached path with the
     * best last measurement (MDCube, a fibre between two containers'
     * switches: to a random other jump), then probe afresh. A bulk flow
     * skips a cached path that shares a link with another of our bulk
     * flows to the same server: with one path per port (a dual-port
     * family), the one left is the other connection's, which would halve
     * both; the new round then places it on its repaired set instead. */
    bool fibre = b->mdcube && dcn_kind(b->t, a) == DCN_SWITCH && dcn_kind(b->t, bnode) == DCN_SWITCH;
    int32_t pick = -1;
    if (fibre)
        pick = pick_slot(b, f, BSR_PICK_RANDOM, f->cur_index);
    else
        for (uint32_t i = 0; i < f->n_paths; i++) {
            const bsr_path_slot *s = &f->paths[i];
            if ((int32_t)i == f->cur_index || s->avail_mbps == BSR_AVAIL_UNKNOWN || !slot_usable(b, s) ||
                (f->bulk && sharing_flows(b, f, &s->path, false)))
                continue;
            if (pick < 0 || s->avail_mbps > f->paths[pick].avail_mbps)
                pick = (int32_t)i;
        }
    if (pick >= 0)
        bsr_set_current(b, f, &f->paths[pick].path, pick);
    /* The round below reads link counters that still show this flow where
     * it was, not where it went: the cached path may be another flow's, and
     * the alternates on its old links look loaded. One more round
     * BSR_SETTLE_MS after it sees the move. */
    f->failed_over = true;
    /* No cached path: the new round computes the repaired set and puts
     * the flow on one of its paths before probing. */
    bsr_round_start(b, f, now, fibre ? BSR_PICK_RANDOM : BSR_PICK_DEFAULT);
}
