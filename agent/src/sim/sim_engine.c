#include "sim_engine.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_mdcube_ft.h"
#include "topo/rng.h"

#define SAMPLE_BLOCK 4096u
#define MAX_THREADS 64u

void sim_config_default(sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->link_gbps = 1.0;
    c->highspeed_gbps = 1.0;
    c->threads = 2;
    c->seed = 1;
}

double sim_link_capacity(const dcn_topo *t, const sim_config *cfg, uint32_t v, uint16_t p)
{
    uint32_t w = dcn_peer(t, v, p).node;
    if (dcn_kind(t, v) == DCN_SWITCH && w != DCN_NONE && dcn_kind(t, w) == DCN_SWITCH)
        return cfg->highspeed_gbps;
    return cfg->link_gbps;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A well-mixed seed for source src (or sample block b): the draws of one
 * source do not depend on which thread routes it. */
static uint64_t mix_seed(uint64_t seed, uint64_t x)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + x + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct shared {
    const dcn_topo *t;
    const sim_routing *r;
    const dcn_failures *f;
    const sim_config *cfg;
    const uint32_t *servers;
    uint32_t np;
    unsigned nthreads;
    uint64_t units;     /* sources, or sample blocks */
    atomic_uint_fast64_t next_unit;
    atomic_uint_fast64_t units_done;
    double t0;
} shared;

typedef struct worker {
    shared *sh;
    uint32_t *counts;
    dcn_pathset *ps;
    uint32_t ok[DCN_PATHSET_MAX];
    uint64_t pattern, dropped, live, routed, unrouted;
    uint64_t hist_links[DCN_PATH_MAX + 1], hist_hops[DCN_PATH_MAX + 1];
    int failed; /* the algorithm refused a request */
    unsigned idx;
    /* "shortest" over every flow of a source: one BFS tree per source, the
     * same parents as dcn_bfs_path's search (queue order, port order). */
    uint32_t *tree_parent, *tree_queue;
    uint32_t tree_src;
    pthread_t th;
} worker;

/* Global port index of the hop a -> b, or UINT32_MAX when not cabled. */
static inline uint32_t hop_port(const dcn_topo *t, uint32_t a, uint32_t b)
{
    uint32_t base = t->port_base[a], end = t->port_base[a + 1];
    for (uint32_t gp = base; gp < end; gp++)
        if (t->peer[gp].node == b)
            return gp;
    return UINT32_MAX;
}

/* Routes into w->ps and leaves the indices of the usable paths in w->ok.
 * Returns their number, or -1 on a refused request. */
static int tree_path(worker *w, uint32_t src, uint32_t dst)
{
    const dcn_topo *t = w->sh->t;
    dcn_path *p = &w->ps->path[0];
    if (w->tree_parent[dst] == DCN_NONE)
        return 0;
    uint32_t len = 0;
    for (uint32_t v = dst; v != src; v = w->tree_parent[v])
        len++;
    if (len + 1 > DCN_PATH_MAX)
        return 0;
    p->len = len + 1;
    for (uint32_t v = dst, i = len;; v = w->tree_parent[v], i--) {
        p->node[i] = v;
        if (v == src)
            break;
    }
    (void)t;
    w->ok[0] = 0;
    return 1;
}

static void build_tree(worker *w, uint32_t src)
{
    const dcn_topo *t = w->sh->t;
    const dcn_failures *f = w->sh->f;
    uint32_t n = dcn_n_nodes(t), head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        w->tree_parent[v] = DCN_NONE;
    w->tree_src = src;
    if (!dcn_node_ok(f, src))
        return;
    w->tree_parent[src] = src;
    w->tree_queue[tail++] = src;
    while (head < tail) {
        uint32_t u = w->tree_queue[head++];
        for (uint16_t p = 0; p < dcn_nports(t, u); p++) {
            uint32_t x = dcn_peer(t, u, p).node;
            if (x == DCN_NONE || w->tree_parent[x] != DCN_NONE || !dcn_hop_ok(f, t, u, p))
                continue;
            w->tree_parent[x] = u;
            w->tree_queue[tail++] = x;
        }
    }
}

static int route_into(worker *w, uint32_t src, uint32_t dst, dcn_rng *rng)
{
    const shared *sh = w->sh;
    if (w->tree_parent && w->tree_src == src)
        return tree_path(w, src, dst);
    dcn_route_ctx ctx = {NULL, rng};
    const dcn_failures *f = sh->f;
    bool any_failure = f && (f->n_nodes_down || f->n_links_down);
    if (any_failure && !sh->r->oblivious_first)
        ctx.failures = f;
    int n = sh->r->algo->fn(sh->t, src, dst, &ctx, w->ps);
    if (n < 0)
        return -1;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (!any_failure || dcn_path_valid(&w->ps->path[i], sh->t, f, NULL))
            w->ok[kept++] = (uint32_t)i;
    if (kept == 0 && any_failure && ctx.failures == NULL) {
        ctx.failures = f;
        n = sh->r->algo->fn(sh->t, src, dst, &ctx, w->ps);
        if (n < 0)
            return -1;
        for (int i = 0; i < n; i++)
            if (dcn_path_valid(&w->ps->path[i], sh->t, f, NULL))
                w->ok[kept++] = (uint32_t)i;
    }
    return kept;
}

static double path_load(const worker *w, const dcn_path *p, double *sum)
{
    const shared *sh = w->sh;
    double worst = 0;
    *sum = 0;
    for (uint32_t i = 0; i + 1 < p->len; i++) {
        uint32_t gp = hop_port(sh->t, p->node[i], p->node[i + 1]);
        uint32_t v = p->node[i];
        double load = (double)(w->counts[gp] + 1) / sim_link_capacity(sh->t, sh->cfg, v, (uint16_t)(gp - sh->t->port_base[v]));
        *sum += load;
        if (load > worst)
            worst = load;
    }
    return worst;
}

static uint32_t pick_path(worker *w, int kept, dcn_rng *rng)
{
    switch (w->sh->r->pick) {
    case SIM_PICK_RANDOM:
        return w->ok[dcn_rng_below(rng, (uint32_t)kept)];
    case SIM_PICK_LEAST_LOADED: {
        uint32_t best = w->ok[0];
        double best_max = 0, best_sum = 0;
        for (int i = 0; i < kept; i++) { /* fewest flows on the busiest link, then on all links, then order */
            double sum, mx = path_load(w, &w->ps->path[w->ok[i]], &sum);
            if (i == 0 || mx < best_max || (mx == best_max && sum < best_sum)) {
                best = w->ok[i];
                best_max = mx;
                best_sum = sum;
            }
        }
        return best;
    }
    case SIM_PICK_FIRST:
    default:
        return w->ok[0];
    }
}

static void one_flow(worker *w, uint32_t src, uint32_t dst, dcn_rng *rng)
{
    const shared *sh = w->sh;
    w->pattern++;
    if (sh->f && (!dcn_node_ok(sh->f, src) || !dcn_node_ok(sh->f, dst))) {
        w->dropped++;
        return;
    }
    w->live++;
    int kept = route_into(w, src, dst, rng);
    if (kept < 0) {
        w->failed = 1;
        return;
    }
    if (kept == 0) {
        w->unrouted++;
        return;
    }
    const dcn_path *p = &w->ps->path[pick_path(w, kept, rng)];
    for (uint32_t i = 0; i + 1 < p->len; i++) {
        uint32_t gp = hop_port(sh->t, p->node[i], p->node[i + 1]);
        if (gp == UINT32_MAX) {
            w->failed = 1;
            return;
        }
        w->counts[gp]++;
    }
    w->routed++;
    w->hist_links[p->len - 1]++;
    w->hist_hops[dcn_path_server_hops(p, sh->t)]++;
}

static void report_progress(shared *sh, uint64_t done, double *last)
{
    double now = now_s();
    if (now - *last < 2.0 && done < sh->units)
        return;
    *last = now;
    fprintf(stderr, "dcn-sim: %5.1f%% (%llu of %llu %s) %.1f s\n", 100.0 * (double)done / (double)sh->units,
            (unsigned long long)done, (unsigned long long)sh->units, sh->cfg->sample_flows ? "blocks" : "sources",
            now - sh->t0);
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    double last = sh->t0;
    bool talker = w->idx == 0 && sh->cfg->progress;
    for (;;) {
        uint64_t u = atomic_fetch_add(&sh->next_unit, 1);
        if (u >= sh->units || w->failed)
            break;
        dcn_rng rng;
        if (sh->cfg->sample_flows) {
            dcn_rng_seed(&rng, mix_seed(sh->cfg->seed, u ^ 0x5A5A5A5A00000000ull));
            uint64_t first = u * SAMPLE_BLOCK, end = first + SAMPLE_BLOCK;
            if (end > sh->cfg->sample_flows)
                end = sh->cfg->sample_flows;
            for (uint64_t s = first; s < end; s++) {
                uint32_t a = dcn_rng_below(&rng, sh->np), b = dcn_rng_below(&rng, sh->np - 1);
                if (b >= a)
                    b++;
                one_flow(w, sh->servers ? sh->servers[a] : a, sh->servers ? sh->servers[b] : b, &rng);
            }
        } else {
            uint32_t src = sh->servers ? sh->servers[u] : (uint32_t)u;
            dcn_rng_seed(&rng, mix_seed(sh->cfg->seed, src));
            if (w->tree_parent)
                build_tree(w, src);
            for (uint32_t j = 0; j < sh->np; j++) {
                uint32_t dst = sh->servers ? sh->servers[j] : j;
                if (dst != src)
                    one_flow(w, src, dst, &rng);
            }
        }
        uint64_t done = atomic_fetch_add(&sh->units_done, 1) + 1;
        if (talker)
            report_progress(sh, done, &last);
    }
    sim_mdcube_ft_release();
    return NULL;
}

static void finish(sim_result *res, const dcn_topo *t, const sim_config *cfg)
{
    res->bottleneck_gbps = 0;
    res->max_link_flows = 0;
    res->bottleneck_port = UINT64_MAX;
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++)
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            uint32_t gp = t->port_base[v] + p, c = res->link_flows[gp];
            if (c > res->max_link_flows)
                res->max_link_flows = c;
            if (!c)
                continue;
            double share = sim_link_capacity(t, cfg, v, p) / c;
            if (res->bottleneck_port == UINT64_MAX || share < res->bottleneck_gbps) {
                res->bottleneck_gbps = share;
                res->bottleneck_port = gp;
            }
        }
    res->abt_gbps = (double)res->flows_routed * res->bottleneck_gbps;
    res->path_failure_ratio = res->flows_live ? (double)res->flows_unrouted / (double)res->flows_live : 0;
    double sl = 0, sh = 0;
    for (int i = 0; i <= DCN_PATH_MAX; i++) {
        sl += (double)i * (double)res->hist_links[i];
        sh += (double)i * (double)res->hist_hops[i];
    }
    res->mean_links = res->flows_routed ? sl / (double)res->flows_routed : 0;
    res->mean_hops = res->flows_routed ? sh / (double)res->flows_routed : 0;
}

int sim_run(const dcn_topo *t, const sim_routing *r, const dcn_failures *f, const sim_config *cfg, sim_result *res,
            char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    uint32_t np = cfg->servers ? cfg->n_pattern : t->n_servers;
    if (np < 2) {
        snprintf(err, errlen, "the traffic pattern needs at least 2 servers (has %u)", np);
        return -1;
    }
    unsigned nthreads = cfg->threads ? cfg->threads : 1;
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    if (r->pick == SIM_PICK_LEAST_LOADED)
        nthreads = 1; /* greedy: every choice sees all the flows placed before it */
    shared sh = {.t = t, .r = r, .f = f, .cfg = cfg, .servers = cfg->servers, .np = np, .nthreads = nthreads,
                 .t0 = now_s()};
    sh.units = cfg->sample_flows ? (cfg->sample_flows + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK : np;
    atomic_init(&sh.next_unit, 0);
    atomic_init(&sh.units_done, 0);
    res->n_ports = t->port_base[dcn_n_nodes(t)];
    worker *ws = calloc(nthreads, sizeof *ws);
    int rc = -1;
    if (!ws)
        goto oom;
    for (unsigned i = 0; i < nthreads; i++) {
        ws[i].sh = &sh;
        ws[i].idx = i;
        ws[i].counts = calloc(res->n_ports ? res->n_ports : 1, sizeof *ws[i].counts);
        ws[i].ps = malloc(sizeof *ws[i].ps);
        if (!ws[i].counts || !ws[i].ps)
            goto oom;
        ws[i].tree_src = DCN_NONE;
        if (r->algo->fn == dcn_algo_shortest && !cfg->sample_flows) {
            ws[i].tree_parent = malloc(dcn_n_nodes(t) * sizeof *ws[i].tree_parent);
            ws[i].tree_queue = malloc(dcn_n_nodes(t) * sizeof *ws[i].tree_queue);
            if (!ws[i].tree_parent || !ws[i].tree_queue)
                goto oom;
        }
    }
    unsigned started = 1;
    for (unsigned i = 1; i < nthreads; i++, started++)
        if (pthread_create(&ws[i].th, NULL, work, &ws[i]) != 0)
            break;
    work(&ws[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(ws[i].th, NULL);
    if (started < nthreads && atomic_load(&sh.units_done) < sh.units) {
        snprintf(err, errlen, "could not start worker threads");
        goto out;
    }
    res->link_flows = ws[0].counts;
    ws[0].counts = NULL;
    for (unsigned i = 0; i < nthreads; i++) {
        worker *w = &ws[i];
        if (w->failed) {
            snprintf(err, errlen, "routing %s refused a request or returned a broken path", r->name);
            goto out;
        }
        if (i)
            for (uint64_t p = 0; p < res->n_ports; p++)
                res->link_flows[p] += w->counts[p];
        res->flows_pattern += w->pattern;
        res->flows_dropped += w->dropped;
        res->flows_live += w->live;
        res->flows_routed += w->routed;
        res->flows_unrouted += w->unrouted;
        for (int k = 0; k <= DCN_PATH_MAX; k++) {
            res->hist_links[k] += w->hist_links[k];
            res->hist_hops[k] += w->hist_hops[k];
        }
    }
    finish(res, t, cfg);
    res->seconds = now_s() - sh.t0;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    if (ws)
        for (unsigned i = 0; i < nthreads; i++) {
            free(ws[i].counts);
            free(ws[i].ps);
            free(ws[i].tree_parent);
            free(ws[i].tree_queue);
        }
    free(ws);
    if (rc < 0)
        sim_result_free(res);
    return rc;
}

void sim_result_free(sim_result *res)
{
    free(res->link_flows);
    res->link_flows = NULL;
}
