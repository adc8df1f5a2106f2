/* BSR (agent/src/agent/bsr/bsr.h) driven by a fake io: a manual clock and a
 * list of the probes it sends, answered by the test. BCube n=4 k=1 with the
 * source h00 unless said otherwise: towards h33 the path set is
 *   P0 = h00 s0_0 h03 s1_3 h33   (leaves on level 0)
 *   P1 = h00 s1_0 h30 s0_3 h33   (leaves on level 1). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bsr/bsr.h"
#include "agent/bsr/bsr_flow_table.h"
#include "testutil.h"
#include "topo/bfs.h"
#include "topo/failures.h"

#define FK_MAX_PROBES 2048
#define TICK_MS 100
#define BSR_FAILDB_LIMIT_FOR_TEST 256 /* bsr_faildb.h: BSR_FAILDB_MAX */

typedef struct fake_probe {
    bsr_flow_key key;
    uint32_t seq;
    dcn_path path;
    uint32_t credit;
} fake_probe;

typedef struct fx {
    dcn_topo t;
    bsr_config cfg;
    bsr *b;
    uint32_t self;
    uint64_t now;
    uint32_t n_probes;
    fake_probe probe[FK_MAX_PROBES];
    int send_fails;
} fx;

static uint64_t fk_now(void *ctx) { return ((fx *)ctx)->now; }

static int fk_send(void *ctx, const bsr_flow_key *k, uint32_t seq, const dcn_path *path, uint32_t credit)
{
    fx *x = ctx;
    ck_assert_uint_lt(x->n_probes, FK_MAX_PROBES);
    ck_assert_uint_ge(path->len, 2);
    ck_assert_uint_eq(path->node[0], x->self); /* a probe path starts here */
    fake_probe *p = &x->probe[x->n_probes++];
    p->key = *k;
    p->seq = seq;
    p->path = *path;
    p->credit = credit;
    return x->send_fails ? -1 : 0;
}

static void fx_create(fx *x, uint64_t seed)
{
    bsr_io io = {.ctx = x, .now_ms = fk_now, .send_probe = fk_send, .port_avail_mbps = NULL};
    x->b = bsr_create(&x->t, x->self, &x->cfg, &io, seed);
    ck_assert_ptr_nonnull(x->b);
}

/* A fixture on "spec" with source `self`; cfg tweaks go between fx_new and fx_create. */
static fx *fx_new(const char *spec, const char *self)
{
    fx *x = calloc(1, sizeof *x);
    ck_assert_ptr_nonnull(x);
    tu_build(&x->t, spec);
    x->self = tu_node(&x->t, self);
    bsr_config_default(&x->cfg);
    x->now = 1000;
    return x;
}

static fx *fx_bcube(void)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    fx_create(x, 1);
    return x;
}

static void fx_free(fx *x)
{
    bsr_destroy(x->b);
    dcn_topo_free(&x->t);
    free(x);
}

static bsr_flow_key key_of(const fx *x, uint32_t dst, uint16_t sport)
{
    bsr_flow_key k = {.src_ip = 0x0a000001u + x->self, .dst_ip = 0x0a000001u + dst, .src_port = sport,
                      .dst_port = 5001, .proto = 6};
    return k;
}

static void advance(fx *x, uint64_t ms)
{
    for (uint64_t t = 0; t < ms; t += TICK_MS) {
        x->now += TICK_MS;
        bsr_tick(x->b);
    }
}

/* Ticks until the next probe round starts (within the interval and its
 * jitter); returns the index of its first probe. */
static uint32_t next_round(fx *x)
{
    uint32_t from = x->n_probes;
    for (uint64_t t = 0; x->n_probes == from; t += TICK_MS) {
        ck_assert_uint_le(t, x->cfg.reselect_ms + x->cfg.jitter_ms + TICK_MS);
        x->now += TICK_MS;
        bsr_tick(x->b);
    }
    return from;
}

static bool same_path(const dcn_path *a, const dcn_path *b)
{
    return a->len == b->len && memcmp(a->node, b->node, a->len * sizeof a->node[0]) == 0;
}

/* The index of the first probe at or after `from` for flow k along path p, or -1. */
static int probe_on(const fx *x, uint32_t from, const bsr_flow_key *k, const dcn_path *p)
{
    for (uint32_t i = from; i < x->n_probes; i++)
        if (x->probe[i].key.src_port == k->src_port && x->probe[i].key.dst_ip == k->dst_ip &&
            same_path(&x->probe[i].path, p))
            return (int)i;
    return -1;
}

static void answer(fx *x, int i, uint32_t avail)
{
    ck_assert_int_ge(i, 0);
    bsr_on_probe_response(x->b, &x->probe[i].key, x->probe[i].seq, avail, NULL);
}

static bool flow_info(const fx *x, const bsr_flow_key *k, bsr_flow_info *out)
{
    static bsr_flow_info all[64];
    size_t n = bsr_flows(x->b, all, 64);
    for (size_t i = 0; i < n; i++)
        if (all[i].key.src_port == k->src_port && all[i].key.dst_ip == k->dst_ip) {
            *out = all[i];
            return true;
        }
    return false;
}

static bsr_counters counters(const fx *x)
{
    bsr_counters c;
    bsr_get_counters(x->b, &c);
    return c;
}

static void family_set(const fx *x, uint32_t dst, dcn_pathset *s)
{
    ck_assert_int_ge(tu_paths(&x->t, NULL, x->self, dst, NULL, 1, s), 1);
}

/* The flow most tests follow, h00 -> h33 (source port 1000), not routed
 * yet: its key; *dst = h33, *set = the family's path set to it (the
 * caller frees it). */
static bsr_flow_key flow_h33(fx *x, uint32_t *dst, dcn_pathset **set)
{
    *dst = tu_node(&x->t, "h33");
    *set = calloc(1, sizeof **set);
    ck_assert_ptr_nonnull(*set);
    family_set(x, *dst, *set);
    return key_of(x, *dst, 1000);
}

static bool crosses(const dcn_path *p, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i + 1 < p->len; i++)
        if ((p->node[i] == a && p->node[i + 1] == b) || (p->node[i] == b && p->node[i + 1] == a))
            return true;
    return false;
}

static bool shares_inner_node(const dcn_path *p, const dcn_path *q)
{
    for (uint32_t i = 1; i + 1 < p->len; i++)
        for (uint32_t j = 1; j + 1 < q->len; j++)
            if (p->node[i] == q->node[j])
                return true;
    return false;
}

/* ---- new flows ---- */

START_TEST(new_flow_gets_path_at_once_and_probes_every_path)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h33");
    dcn_pathset *set = calloc(1, sizeof *set);
    family_set(x, dst, set);
    ck_assert_uint_eq(set->count, 2); /* k+1 */

    bsr_flow_key k = key_of(x, dst, 1000);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(dcn_path_valid(p, &x->t, NULL, NULL), "%s", tu_path_str(&x->t, p));
    ck_assert_uint_eq(p->node[p->len - 1], dst);
    ck_assert(same_path(p, &set->path[0])); /* the default path, before any answer */

    ck_assert_uint_eq(x->n_probes, 2);
    ck_assert_int_ge(probe_on(x, 0, &k, &set->path[0]), 0);
    ck_assert_int_ge(probe_on(x, 0, &k, &set->path[1]), 0);
    ck_assert_uint_ne(x->probe[0].seq, x->probe[1].seq);

    /* Later packets: the same path, no new probe. */
    for (int i = 0; i < 100; i++) {
        const dcn_path *q = bsr_route_bytes(x->b, &k, dst, 1500);
        ck_assert_ptr_eq(q, p);
    }
    ck_assert_uint_eq(x->n_probes, 2);
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.flows, 1);
    ck_assert_uint_eq(c.flows_created, 1);
    ck_assert_uint_eq(c.probes_sent, 2);
    ck_assert_uint_eq(c.path_switches, 0);
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(bcube_k2_probes_three_paths)
{
    fx *x = fx_new("bcube n=3 k=2", "h000");
    fx_create(x, 7);
    uint32_t dst = tu_node(&x->t, "h222");
    bsr_flow_key k = key_of(x, dst, 1);
    ck_assert_ptr_nonnull(bsr_route(x->b, &k, dst));
    ck_assert_uint_eq(x->n_probes, 3);
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t j = i + 1; j < 3; j++)
            ck_assert(dcn_paths_node_disjoint(&x->probe[i].path, &x->probe[j].path));
    fx_free(x);
}
END_TEST

/* ---- selection ---- */

START_TEST(best_bandwidth_wins_one_path_per_flow)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    ck_assert_ptr_nonnull(bsr_route(x->b, &k, dst));

    answer(x, probe_on(x, 0, &k, &set->path[0]), 200);
    /* Half a round answered: still on the default path. */
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[0]));
    answer(x, probe_on(x, 0, &k, &set->path[1]), 800);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_msg(same_path(p, &set->path[1]), "on %s", tu_path_str(&x->t, p));

    bsr_flow_info fi;
    ck_assert(flow_info(x, &k, &fi));
    ck_assert(same_path(&fi.path, &set->path[1]));
    ck_assert_int_eq(fi.path_index, 1);
    ck_assert_uint_eq(fi.n_paths, 2);
    ck_assert_uint_eq(fi.avail_mbps[0], 200);
    ck_assert_uint_eq(fi.avail_mbps[1], 800);
    ck_assert_uint_eq(fi.cur_avail_mbps, 800);
    ck_assert_uint_eq(fi.path_switches, 1);
    ck_assert_uint_eq(fi.probes_sent, 2);

    /* A gain within the margin (10%) does not move the flow ... */
    uint32_t from = next_round(x);
    ck_assert_uint_eq(x->n_probes, from + 2);
    answer(x, probe_on(x, from, &k, &set->path[0]), 850);
    answer(x, probe_on(x, from, &k, &set->path[1]), 800);
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[1]));
    /* ... a larger one does. */
    from = next_round(x);
    answer(x, probe_on(x, from, &k, &set->path[0]), 900);
    answer(x, probe_on(x, from, &k, &set->path[1]), 800);
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[0]));
    ck_assert_uint_eq(counters(x).path_switches, 2);

    /* One path per flow: every packet between two rounds takes the same path. */
    const dcn_path *first = bsr_route(x->b, &k, dst);
    dcn_path copy = *first;
    for (int i = 0; i < 50; i++) {
        x->now += 10;
        ck_assert(same_path(bsr_route(x->b, &k, dst), &copy));
    }
    free(set);
    fx_free(x);
}
END_TEST

/* Answers every outstanding probe with a load model: each path between the
 * pair has `cap` Mb/s, minus the rates of the flows whose current path it is
 * (a flow's own traffic included, as on a real link). With per_link, each
 * cable has `cap` Mb/s in each direction instead, minus the rates of the
 * flows whose current path crosses it that way, and a probe reads the
 * lowest along its path, its first hop raised by its credit up to `cap`
 * (as the engine sends it). With lag_ms, the loads are those of the paths
 * the flows were on lag_ms earlier (hist: one per flow), as the agents'
 * link counters, rates over 0.5-1 s windows, show them. */
#define MODEL_HISTORY 256
typedef struct path_history {
    uint32_t n;
    uint64_t t[MODEL_HISTORY];
    dcn_path path[MODEL_HISTORY];
} path_history;

typedef struct load_model {
    const bsr_flow_key *keys;
    const uint32_t *rate;
    int n;
    uint32_t cap;
    bool per_link;
    uint32_t lag_ms;
    path_history *hist;
    const uint32_t *dead; /* a server that died: probes through it are lost (NULL: none) */
    const uint32_t *dsts; /* each flow's destination (NULL: all to run_model's dst) */
} load_model;

/* The path flow i of the model loads links with now. */
static bool model_path(fx *x, const load_model *m, int i, dcn_path *out)
{
    if (!m->lag_ms) {
        bsr_flow_info fi;
        if (!flow_info(x, &m->keys[i], &fi))
            return false;
        *out = fi.path;
        return true;
    }
    const path_history *h = &m->hist[i];
    if (!h->n)
        return false;
    uint32_t k = 0;
    while (k + 1 < h->n && h->t[k + 1] + m->lag_ms <= x->now)
        k++;
    *out = h->path[k];
    return true;
}

static void model_record(fx *x, const load_model *m)
{
    for (int i = 0; m->lag_ms && i < m->n; i++) {
        bsr_flow_info fi;
        path_history *h = &m->hist[i];
        if (!flow_info(x, &m->keys[i], &fi) || (h->n && same_path(&h->path[h->n - 1], &fi.path)))
            continue;
        ck_assert_uint_lt(h->n, MODEL_HISTORY);
        h->t[h->n] = x->now;
        h->path[h->n++] = fi.path;
    }
}

static bool crosses_from(const dcn_path *p, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i + 1 < p->len; i++)
        if (p->node[i] == a && p->node[i + 1] == b)
            return true;
    return false;
}

static uint32_t path_avail(fx *x, const load_model *m, const fake_probe *pr)
{
    const dcn_path *p = &pr->path;
    uint32_t lowest = m->cap;
    for (uint32_t h = 0; h + 1 < p->len && (m->per_link || h == 0); h++) {
        uint64_t load = 0;
        for (int i = 0; i < m->n; i++) {
            dcn_path on;
            if (model_path(x, m, i, &on) &&
                (m->per_link ? crosses_from(&on, p->node[h], p->node[h + 1]) : same_path(&on, p)))
                load += m->rate[i];
        }
        uint64_t avail = load >= m->cap ? 0 : m->cap - load;
        if (m->per_link && h == 0)
            avail = avail + pr->credit > m->cap ? m->cap : avail + pr->credit;
        if (avail < lowest)
            lowest = (uint32_t)avail;
    }
    return lowest;
}

/* Runs the model for ms: traffic at each flow's rate, every probe answered
 * within the tick it was sent in. Returns the path switches seen. */
static uint64_t run_model(fx *x, const load_model *m, uint32_t dst, uint64_t ms, uint32_t *answered_upto)
{
    uint64_t before = counters(x).path_switches;
    model_record(x, m);
    for (uint64_t t = 0; t < ms; t += TICK_MS) {
        for (int i = 0; i < m->n; i++)
            ck_assert_ptr_nonnull(bsr_route_bytes(x->b, &m->keys[i], m->dsts ? m->dsts[i] : dst,
                                                  (uint32_t)((uint64_t)m->rate[i] * 125000 * TICK_MS / 1000)));
        while (*answered_upto < x->n_probes) {
            fake_probe *p = &x->probe[(*answered_upto)++];
            if (!m->dead || !dcn_path_contains(&p->path, *m->dead))
                bsr_on_probe_response(x->b, &p->key, p->seq, path_avail(x, m, p), NULL);
        }
        x->now += TICK_MS;
        bsr_tick(x->b);
        model_record(x, m);
    }
    return counters(x).path_switches - before;
}

START_TEST(two_flows_of_one_pair_spread_over_the_paths)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h33");
    dcn_pathset *set = calloc(1, sizeof *set);
    family_set(x, dst, set);
    /* Both flows start while level 1 is down, so both begin on P0. */
    uint16_t port1 = (uint16_t)dcn_topo_port_to(&x->t, x->self, set->path[1].node[1]);
    bsr_on_local_port(x->b, port1, 0);
    bsr_flow_key keys[2] = {key_of(x, dst, 1000), key_of(x, dst, 1001)};
    uint32_t rate[2] = {600, 600};
    load_model m = {keys, rate, 2, 1000, false, 0, NULL, NULL, NULL};
    ck_assert(same_path(bsr_route(x->b, &keys[0], dst), &set->path[0]));
    ck_assert(same_path(bsr_route(x->b, &keys[1], dst), &set->path[0]));
    uint32_t answered = 0;
    run_model(x, &m, dst, 5000, &answered);
    bsr_flow_info a, b;
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert(same_path(&a.path, &b.path));

    /* Level 1 is back: the probes show P0 loaded and P1 free, and the first
     * flow to re-select moves; the other one then stays. */
    bsr_on_local_port(x->b, port1, 1);
    run_model(x, &m, dst, 30000, &answered);
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert_msg(!same_path(&a.path, &b.path), "both on %s", tu_path_str(&x->t, &a.path));
    ck_assert_uint_eq(a.path_switches + b.path_switches, 1);
    /* Stable: no flow keeps fleeing its own load. */
    ck_assert_uint_eq(run_model(x, &m, dst, 60000, &answered), 0);
    ck_assert_uint_ge(a.own_rate_mbps, 590);
    ck_assert_uint_le(a.own_rate_mbps, 610);
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(new_flows_of_one_pair_start_on_different_ports)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h33");
    bsr_flow_key k0 = key_of(x, dst, 1), k1 = key_of(x, dst, 2), k2 = key_of(x, dst, 3);
    dcn_path p0 = *bsr_route(x->b, &k0, dst);
    dcn_path p1 = *bsr_route(x->b, &k1, dst);
    ck_assert(!same_path(&p0, &p1));
    ck_assert_uint_ne(p0.node[1], p1.node[1]);
    /* Three flows, two ports: the third shares one. */
    dcn_path p2 = *bsr_route(x->b, &k2, dst);
    ck_assert(same_path(&p2, &p0) || same_path(&p2, &p1));
    fx_free(x);
}
END_TEST

START_TEST(three_flows_balance_by_probed_load)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h33");
    bsr_flow_key keys[3] = {key_of(x, dst, 1), key_of(x, dst, 2), key_of(x, dst, 3)};
    uint32_t rate[3] = {600, 100, 300};
    load_model m = {keys, rate, 3, 1000, false, 0, NULL, NULL, NULL};
    dcn_pathset *set = calloc(1, sizeof *set);
    family_set(x, dst, set);
    uint32_t answered = 0;
    run_model(x, &m, dst, 60000, &answered);
    uint32_t load[2] = {0, 0};
    for (int i = 0; i < 3; i++) {
        bsr_flow_info fi;
        ck_assert(flow_info(x, &keys[i], &fi));
        ck_assert(fi.path_index == 0 || fi.path_index == 1);
        load[fi.path_index] += rate[i];
    }
    ck_assert_uint_le(load[0], 700);
    ck_assert_uint_le(load[1], 700);
    ck_assert_uint_eq(run_model(x, &m, dst, 60000, &answered), 0);
    free(set);
    fx_free(x);
}
END_TEST

/* BCDC n=4, h0d1 -> h14d0: the family's 6 paths leave by 3 on each local
 * port (s0, s2) and enter h14d0 by 3 on each of its ports (s14, s15). Two
 * new flows start on paths apart in both: different local ports, and the
 * second avoids the cable the first enters by. */
START_TEST(new_flows_of_one_pair_start_apart_at_both_ends)
{
    fx *x = fx_new("bcdc n=4", "h0d1");
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, "h14d0");
    bsr_flow_key k0 = key_of(x, dst, 1), k1 = key_of(x, dst, 2);
    dcn_path p0 = *bsr_route(x->b, &k0, dst);
    dcn_path p1 = *bsr_route(x->b, &k1, dst);
    ck_assert_uint_ne(p0.node[1], p1.node[1]);
    ck_assert_msg(p0.node[p0.len - 2] != p1.node[p1.len - 2], "both enter h14d0 from %s",
                  tu_name(&x->t, p0.node[p0.len - 2]));
    fx_free(x);
}
END_TEST

/* Flows to other servers do not push a new flow off the shortest path that
 * the local port counts allow: with one flow h0d1 -> h14d0 out, a flow to
 * any other server of BCDC n=4 starts on the shortest path of its set among
 * those leaving on the other port, even where that path shares a link with
 * the first flow's. */
START_TEST(flows_to_other_servers_do_not_lengthen_the_default_path)
{
    dcn_pathset *set = calloc(1, sizeof *set);
    ck_assert_ptr_nonnull(set);
    uint32_t shared_cases = 0, n_servers = 0;
    for (uint32_t d = 0; d == 0 || d < n_servers; d++) {
        fx *x = fx_new("bcdc n=4", "h0d1");
        fx_create(x, 1);
        n_servers = x->t.n_servers;
        uint32_t dst = tu_node(&x->t, "h14d0");
        if (d == x->self || d == dst) {
            fx_free(x);
            continue;
        }
        bsr_flow_key k = key_of(x, dst, 1);
        dcn_path first = *bsr_route(x->b, &k, dst);
        int32_t busy_port = dcn_topo_port_to(&x->t, x->self, first.node[1]);
        family_set(x, d, set);
        uint32_t shortest = UINT32_MAX, shortest_busy = UINT32_MAX;
        bool shares = false;
        for (uint32_t i = 0; i < set->count; i++) {
            const dcn_path *p = &set->path[i];
            bool on_busy = dcn_topo_port_to(&x->t, x->self, p->node[1]) == busy_port;
            uint32_t *m = on_busy ? &shortest_busy : &shortest;
            if (p->len < *m)
                *m = p->len;
            for (uint32_t a = 0; !on_busy && a + 1 < p->len; a++)
                shares |= crosses_from(&first, p->node[a], p->node[a + 1]);
        }
        if (shortest == UINT32_MAX)
            shortest = shortest_busy; /* every path leaves on the busy port */
        shared_cases += shares;
        bsr_flow_key kd = key_of(x, d, 2);
        const dcn_path *p = bsr_route(x->b, &kd, d);
        ck_assert_ptr_nonnull(p);
        ck_assert_msg(p->len == shortest, "to %s: %s, not the shortest (%u nodes) on the free port",
                      tu_name(&x->t, d), tu_path_str(&x->t, p), shortest);
        fx_free(x);
    }
    ck_assert_uint_gt(shared_cases, 0); /* the case the test is about occurs */
    free(set);
}
END_TEST

/* BCDC n=4, h0d1 -> h14d0: the two flows, already sending (bulk, so their
 * placement is done), are put on paths from the two local ports both into
 * h14d0's cable from s14 by a first round that measures those best (as an
 * idle network with other traffic about may); that cable is then their
 * bottleneck. Each flow's way out is a path
 * into s15 that leaves on its own port, so it shares its first hop with the
 * flow: only the flow's own rate credited there shows it better than
 * staying; without the credit both ways measure the same and the flows stay
 * herded (the testbed's bcdc-one-to-one at 1.0 of the links' rate). With
 * the loads seen lag_ms late, as the agents' link counters show them, the
 * second flow's round (within the 1 s jitter of the first's) still sees
 * s15 free and follows the first there, unless it waits for the counters
 * (BSR_SETTLE_MS). */
static void herded_flows_spread(uint32_t lag_ms)
{
    fx *x = fx_new("bcdc n=4", "h0d1");
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, "h14d0");
    bsr_flow_key keys[2] = {key_of(x, dst, 1000), key_of(x, dst, 1001)};
    dcn_pathset *set = calloc(1, sizeof *set);
    family_set(x, dst, set);
    uint32_t s14 = tu_node(&x->t, "s14");
    dcn_path start[2] = {{.len = 0}, {.len = 0}}; /* into s14: one from each local port */
    for (uint32_t i = 0; i < set->count; i++) {
        const dcn_path *p = &set->path[i];
        if (p->node[p->len - 2] == s14 && !start[0].len)
            start[0] = *p;
        else if (p->node[p->len - 2] == s14 && !start[1].len && p->node[1] != start[0].node[1])
            start[1] = *p;
    }
    ck_assert(start[0].len && start[1].len);
    uint32_t rate[2] = {500, 500};
    for (int i = 0; i < 2; i++)
        ck_assert_ptr_nonnull(bsr_route_bytes(x->b, &keys[i], dst, rate[i] * 125000 / 1000 * TICK_MS));
    x->now += TICK_MS;
    bsr_tick(x->b); /* both bulk now, their probes still out */
    /* The first round's answers: the herded paths measure best, by more
     * than the switch margin (within it, a path apart would win). */
    for (uint32_t i = 0; i < x->n_probes; i++)
        answer(x, (int)i, same_path(&x->probe[i].path, &start[x->probe[i].key.src_port - 1000]) ? 1000 : 800);
    uint32_t answered = x->n_probes;
    bsr_flow_info a, b;
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert(same_path(&a.path, &start[0]) && same_path(&b.path, &start[1]));
    uint32_t switched = a.path_switches + b.path_switches;
    path_history *hist = calloc(2, sizeof *hist);
    ck_assert_ptr_nonnull(hist);
    load_model m = {keys, rate, 2, 1000, true, lag_ms, hist, NULL, NULL};
    ck_assert_uint_eq(run_model(x, &m, dst, 2000, &answered), 0); /* still herded */
    run_model(x, &m, dst, 30000, &answered);
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert_msg(a.path.node[a.path.len - 2] != b.path.node[b.path.len - 2], "lag %u ms: both into h14d0 from %s",
                  lag_ms, tu_path_str(&x->t, &a.path));
    ck_assert_uint_eq(a.path_switches + b.path_switches, switched + 1);
    /* Stable: neither flow comes back to the shared last hop. */
    ck_assert_uint_eq(run_model(x, &m, dst, 60000, &answered), 0);
    if (lag_ms)
        ck_assert_uint_ge(counters(x).moves_deferred, 1);
    free(hist);
    free(set);
    fx_free(x);
}

START_TEST(flows_herded_onto_one_last_hop_spread_over_the_destination_ports)
{
    herded_flows_spread(0);
    herded_flows_spread(1000);
}
END_TEST

static bool share_a_link(const dcn_path *p, const dcn_path *q)
{
    for (uint32_t i = 0; i + 1 < p->len; i++)
        if (crosses_from(q, p->node[i], p->node[i + 1]))
            return true;
    return false;
}

/* On `spec` from `src`: flow 0 to dst0 and flow 1 to dst1, 500 Mb/s each,
 * loads seen 1 s late. offset_ms after they settled apart, a relay server
 * dies and the node before it on the path through it reports the link: the
 * one named, else the middle relay of flow 0's path (as in experiments/
 * family-one-to-one). Returns how long after the failure the two flows
 * shared no link (0: at once, before any tick; UINT64_MAX: not within 15 s). */
static uint64_t failover_apart_after(const char *spec, const char *src, const char *dst0, const char *dst1,
                                     const char *victim_name, uint64_t offset_ms)
{
    fx *x = fx_new(spec, src);
    fx_create(x, 1);
    uint32_t dsts[2] = {tu_node(&x->t, dst0), tu_node(&x->t, dst1)};
    bsr_flow_key keys[2] = {key_of(x, dsts[0], 1000), key_of(x, dsts[1], 1001)};
    uint32_t rate[2] = {500, 500};
    path_history *hist = calloc(2, sizeof *hist);
    ck_assert_ptr_nonnull(hist);
    uint32_t victim = 0;
    load_model m = {keys, rate, 2, 1000, true, 1000, hist, NULL, dsts};
    uint32_t answered = 0;
    run_model(x, &m, dsts[0], 30000 + offset_ms, &answered);
    bsr_flow_info a, b;
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert_msg(!share_a_link(&a.path, &b.path), "not apart before the failure: %s",
                  tu_path_str(&x->t, &a.path));
    const dcn_path *hit = &a.path;
    uint32_t at = 0;
    if (victim_name) {
        victim = tu_node(&x->t, victim_name);
        hit = dcn_path_contains(&a.path, victim) ? &a.path : &b.path;
        while (at < hit->len && hit->node[at] != victim)
            at++;
        ck_assert_msg(at > 0 && at + 1 < hit->len, "%s relays neither flow", victim_name);
    } else {
        uint32_t relay[DCN_PATH_MAX], n_relays = 0;
        for (uint32_t k = 1; k + 1 < a.path.len; k++)
            if (dcn_kind(&x->t, a.path.node[k]) == DCN_SERVER)
                relay[n_relays++] = k;
        ck_assert_uint_gt(n_relays, 0);
        at = relay[n_relays / 2];
        victim = a.path.node[at];
    }
    m.dead = &victim;
    bsr_on_path_failure(x->b, hit->node[at - 1], victim);
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert(!dcn_path_contains(&a.path, victim) && !dcn_path_contains(&b.path, victim));
    uint64_t failed_at = x->now, apart = share_a_link(&a.path, &b.path) ? UINT64_MAX : 0;
    while (apart == UINT64_MAX && x->now - failed_at < 15000) {
        run_model(x, &m, dsts[0], TICK_MS, &answered);
        ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
        if (!share_a_link(&a.path, &b.path))
            apart = x->now - failed_at;
    }
    if (apart != UINT64_MAX)
        ck_assert(!dcn_path_contains(&a.path, victim) && !dcn_path_contains(&b.path, victim));
    free(hist);
    fx_free(x);
    return apart;
}

/* Flow 1 goes to h124, h142's neighbour over its second port. Flow 0 loses
 * its path on the first port and moves at once to its one cached path, over
 * the second port, with flow 1 (another destination: nothing tells it to
 * stay away). The round that follows reads counters that do not show the
 * move yet, so the alternate over flow 0's old port looks loaded by flow 0
 * itself. Unless the flow probes again once the counters show its move
 * (BSR_SETTLE_MS), the two share the port until one of them runs its
 * periodic round, up to reselect_ms + jitter_ms later. */
START_TEST(flows_herded_by_a_failover_spread_within_settling)
{
    /* The round after the failover ends within a probe timeout (its probe
     * of the broken path, to learn when it is back, is lost); the next
     * starts BSR_SETTLE_MS (2 s) plus jitter later and ends as late. */
    bsr_config c;
    bsr_config_default(&c);
    uint64_t bound = 2 * c.probe_timeout_ms + 2000 + c.jitter_ms + 2 * TICK_MS;
    for (uint64_t offset = 0; offset < 10000; offset += 1500) {
        uint64_t apart = failover_apart_after("hcn n=4 h=2", "h142", "h112", "h124", NULL, offset);
        ck_assert_msg(apart <= bound, "failure %" PRIu64 " ms into the interval: apart after %" PRIu64 " ms", offset,
                      apart);
    }
}
END_TEST

/* Both flows go to h112 (the one-to-one). The cached path left after flow
 * 0's breaks is flow 1's: flow 0 takes the repaired set's path instead, at
 * once, and the two never share a link. */
START_TEST(failover_keeps_off_the_path_of_a_flow_to_the_same_server)
{
    for (uint64_t offset = 0; offset < 10000; offset += 1500) {
        uint64_t apart = failover_apart_after("hcn n=4 h=2", "h142", "h112", "h112", NULL, offset);
        ck_assert_msg(apart == 0, "failure %" PRIu64 " ms into the interval: apart after %" PRIu64 " ms", offset,
                      apart);
    }
}
END_TEST

/* The one-to-one of experiments/family-one-to-one on BCN: h4_14 -> h5_14,
 * the relay h6_34 of one connection dies. BCN's reroute around it enters
 * h5_14 by the switch port (s5_1) the other connection uses, so no path of
 * the repaired set is apart from it; the BFS path that avoids the other
 * connection's relays is added, and the flow goes there at once. */
START_TEST(failover_finds_a_path_apart_when_the_family_reroute_meets_the_other_flow)
{
    for (uint64_t offset = 0; offset < 10000; offset += 2500) {
        uint64_t apart = failover_apart_after("bcn alpha=3 beta=2 h=1 gamma=1", "h4_14", "h5_14", "h5_14", "h6_34", offset);
        ck_assert_msg(apart == 0, "failure %" PRIu64 " ms into the interval: apart after %" PRIu64 " ms", offset,
                      apart);
    }
}
END_TEST

/* On `spec`, two flows of 500 Mb/s from src to dst, apart, loads seen 1 s
 * late. offset_ms after they settled, both stall for 4 s (their ACKs on a
 * broken reverse path, say), then resume; with `victim`, that relay server
 * also dies at the start of the stall, silently (no failure report: only
 * lost probes tell). A round during the stall sees the other flow's path as
 * free as any; it must not take a flow onto it. Returns the ms during which
 * the two shared a link. */
static uint64_t shared_ms_through_a_stall(const char *spec, const char *src, const char *dst_name,
                                          const char *victim_name, uint64_t offset_ms)
{
    fx *x = fx_new(spec, src);
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, dst_name);
    bsr_flow_key keys[2] = {key_of(x, dst, 1000), key_of(x, dst, 1001)};
    uint32_t rate[2] = {500, 500};
    path_history *hist = calloc(2, sizeof *hist);
    ck_assert_ptr_nonnull(hist);
    load_model m = {keys, rate, 2, 1000, true, 1000, hist, NULL, NULL};
    uint32_t answered = 0;
    run_model(x, &m, dst, 30000 + offset_ms, &answered);
    uint32_t victim = victim_name ? tu_node(&x->t, victim_name) : 0;
    bsr_flow_info a, b;
    ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
    ck_assert(!share_a_link(&a.path, &b.path));
    if (victim_name) {
        ck_assert(dcn_path_contains(&a.path, victim) || dcn_path_contains(&b.path, victim));
        m.dead = &victim;
    }
    uint64_t shared = 0;
    for (uint64_t t = 0; t < 20000; t += TICK_MS) {
        rate[0] = rate[1] = t < 4000 ? 0 : 500;
        run_model(x, &m, dst, TICK_MS, &answered);
        ck_assert(flow_info(x, &keys[0], &a) && flow_info(x, &keys[1], &b));
        if (share_a_link(&a.path, &b.path))
            shared += TICK_MS;
    }
    if (victim_name) /* both flows off the dead relay by then */
        ck_assert(!dcn_path_contains(&a.path, victim) && !dcn_path_contains(&b.path, victim));
    free(hist);
    fx_free(x);
    return shared;
}

/* HCN n=4 h=2, h142 -> h112 (the one-to-one): the two paths are 5 and 6
 * nodes long, so a round of the flow on the longer one during the stall
 * finds the other's shorter path as free as its own. */
START_TEST(a_stall_does_not_herd_the_flows_of_one_pair)
{
    for (uint64_t offset = 0; offset < 10000; offset += 1500) {
        uint64_t shared = shared_ms_through_a_stall("hcn n=4 h=2", "h142", "h112", NULL, offset);
        ck_assert_msg(shared == 0, "stall %" PRIu64 " ms into the interval: shared a link for %" PRIu64 " ms", offset,
                      shared);
    }
}
END_TEST

/* BCube n=4 k=1, h00 -> h13 (bcube-one-to-one, server 03 fails): the flow
 * through h03 loses its probe. Of the answered paths, the other flow's (5
 * nodes) was measured while that flow stalled, free of it; the BFS
 * alternate (9 nodes) after it resumed, with the lost flow's own load still
 * on its first hop. Counting the load the stalled flow will bring back, the
 * flow takes the alternate (bcube-one-to-one at 41af4bc, paper timers: the
 * two shared a path for 11 s). */
START_TEST(a_lost_path_during_a_stall_does_not_herd_the_flows_of_one_pair)
{
    for (uint64_t offset = 0; offset < 10000; offset += 1500) {
        uint64_t shared = shared_ms_through_a_stall("bcube n=4 k=1", "h00", "h13", "h03", offset);
        ck_assert_msg(shared == 0, "stall %" PRIu64 " ms into the interval: shared a link for %" PRIu64 " ms", offset,
                      shared);
    }
}
END_TEST

/* On an idle network a flow to a same-switch neighbour takes the one-hop
 * path, from its first packet and after a round of equal answers. */
START_TEST(idle_flow_takes_the_shortest_path)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h30");
    bsr_flow_key k = key_of(x, dst, 1000);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_msg(p->len == 3, "default path %s", tu_path_str(&x->t, p));
    for (uint32_t i = 0; i < x->n_probes; i++)
        answer(x, (int)i, 1000);
    ck_assert_uint_eq(bsr_route(x->b, &k, dst)->len, 3);
    ck_assert_uint_eq(counters(x).path_switches, 0);
    fx_free(x);
}
END_TEST

/* A flow that had to take the long path while the short one was down comes
 * back to the short one when a round measures both equal. */
START_TEST(bandwidth_tie_goes_to_the_shorter_path)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h30");
    uint16_t port1 = (uint16_t)dcn_topo_port_to(&x->t, x->self, tu_node(&x->t, "s1_0"));
    bsr_on_local_port(x->b, port1, 0);
    bsr_flow_key k = key_of(x, dst, 1000);
    ck_assert_uint_eq(bsr_route(x->b, &k, dst)->len, 7);
    for (uint32_t i = 0; i < x->n_probes; i++)
        answer(x, (int)i, 1000);
    ck_assert_uint_eq(bsr_route(x->b, &k, dst)->len, 7);
    bsr_on_local_port(x->b, port1, 1);
    uint32_t from = next_round(x);
    for (uint32_t i = from; i < x->n_probes; i++)
        answer(x, (int)i, 1000);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_msg(p->len == 3, "after a tie: %s", tu_path_str(&x->t, p));
    fx_free(x);
}
END_TEST

/* Two iperf3-like clients towards one server: each opens a control
 * connection (a few bytes) and a data connection (bulk), in the orders
 * `order` gives (0,1: control of client 0,1; 2,3: data of client 0,1), one
 * per `gap_ms`. Whatever the order, the two data connections end on
 * parallel paths within a second, long before the first re-selection. */
static void two_clients(const int order[4], uint64_t gap_ms)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h13");
    bsr_flow_key k[4] = {key_of(x, dst, 100), key_of(x, dst, 101), key_of(x, dst, 200), key_of(x, dst, 201)};
    bool open[4] = {false, false, false, false};
    uint32_t answered = 0;
    uint64_t t0 = x->now;
    int next = 0;
    for (uint64_t t = 0; t < 1500; t += TICK_MS / 4) {
        while (next < 4 && x->now - t0 >= (uint64_t)next * gap_ms) {
            ck_assert_ptr_nonnull(bsr_route_bytes(x->b, &k[order[next]], dst, 60));
            open[order[next++]] = true;
        }
        for (int i = 0; i < 4; i++)
            if (open[i])
                ck_assert_ptr_nonnull(bsr_route_bytes(x->b, &k[i], dst, i >= 2 ? 300000 : (t % 500 ? 0 : 80)));
        while (answered < x->n_probes) /* an idle network: every path answers its capacity */
            answer(x, (int)answered++, 1000);
        x->now += TICK_MS / 4;
        if (t % TICK_MS == 0)
            bsr_tick(x->b);
    }
    bsr_flow_info a, b;
    ck_assert(flow_info(x, &k[2], &a) && flow_info(x, &k[3], &b));
    ck_assert_msg(a.path.node[1] != b.path.node[1], "order %d%d%d%d gap %llu: both data flows on %s", order[0],
                  order[1], order[2], order[3], (unsigned long long)gap_ms, tu_path_str(&x->t, &a.path));
    fx_free(x);
}

START_TEST(concurrent_flows_of_one_pair_take_parallel_paths_in_any_order)
{
    static const int orders[][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {0, 1, 3, 2}};
    static const uint64_t gaps[] = {0, 10, 150};
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
            two_clients(orders[o], gaps[g]);
}
END_TEST

/* ---- failures ---- */

START_TEST(path_failure_switches_at_once_to_cached_path)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    bsr_route(x->b, &k, dst);
    answer(x, probe_on(x, 0, &k, &set->path[0]), 300);
    answer(x, probe_on(x, 0, &k, &set->path[1]), 900);
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[1]));

    /* Another flow, to h01 over s0_0 only, is not concerned. */
    uint32_t other = tu_node(&x->t, "h01");
    bsr_flow_key ko = key_of(x, other, 7);
    dcn_path op = *bsr_route(x->b, &ko, other);
    ck_assert_str_eq(tu_path_str(&x->t, &op), "h00 s0_0 h01");
    for (uint32_t i = 2; i < x->n_probes; i++)
        answer(x, (int)i, 500);

    /* h30-s0_3 on P1 fails; a relay reports it. */
    uint32_t a = tu_node(&x->t, "h30"), b = tu_node(&x->t, "s0_3");
    uint32_t from = x->n_probes;
    bsr_on_path_failure(x->b, a, b);
    ck_assert(same_path(bsr_route(x->b, &ko, other), &op));
    for (uint32_t i = from; i < x->n_probes; i++)
        ck_assert_uint_ne(x->probe[i].key.src_port, ko.src_port);
    /* No probe answered, no tick: the flow is already on P0. */
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_msg(same_path(p, &set->path[0]), "on %s", tu_path_str(&x->t, p));
    bsr_flow_info fi;
    ck_assert(flow_info(x, &k, &fi));
    ck_assert_uint_eq(fi.path_switches, 2);
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.failures_heard, 1);
    ck_assert_uint_eq(c.faildb_entries, 1);

    /* Then it probes again: P0, the BFS alternate of P1 (avoiding the
     * failed link and P0's nodes), and P1 itself to learn when it is back. */
    ck_assert_uint_eq(x->n_probes, from + 3);
    ck_assert_int_ge(probe_on(x, from, &k, &set->path[0]), 0);
    ck_assert_int_ge(probe_on(x, from, &k, &set->path[1]), 0);
    int alt = -1;
    for (uint32_t i = from; i < x->n_probes; i++)
        if (!same_path(&x->probe[i].path, &set->path[0]) && !same_path(&x->probe[i].path, &set->path[1]))
            alt = (int)i;
    ck_assert_int_ge(alt, 0);
    const dcn_path *ap = &x->probe[alt].path;
    ck_assert(dcn_path_valid(ap, &x->t, NULL, NULL));
    ck_assert(!crosses(ap, a, b));
    ck_assert_msg(!shares_inner_node(ap, &set->path[0]), "alternate %s", tu_path_str(&x->t, ap));

    /* The same failure overheard again changes nothing. */
    from = x->n_probes;
    bsr_on_path_failure(x->b, b, a);
    ck_assert_uint_eq(x->n_probes, from);
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[0]));
    ck_assert_uint_eq(counters(x).faildb_entries, 1);
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(failure_without_cached_path_uses_repaired_set)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    bsr_route(x->b, &k, dst); /* on P0, nothing answered yet: no cached path */
    uint32_t a = tu_node(&x->t, "h03"), b = tu_node(&x->t, "s1_3");
    bsr_on_path_failure(x->b, a, b);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_ptr_nonnull(p);
    ck_assert(!crosses(p, a, b));
    ck_assert(dcn_path_valid(p, &x->t, NULL, NULL));
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(probe_timeout_gives_bfs_alternate)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    bsr_route(x->b, &k, dst);
    answer(x, probe_on(x, 0, &k, &set->path[0]), 500);
    /* A link off both paths is known failed; P1's probe is never answered. */
    uint32_t fa = tu_node(&x->t, "h12"), fb = tu_node(&x->t, "s1_2");
    bsr_on_path_failure(x->b, fa, fb);
    uint32_t from = x->n_probes;
    ck_assert_uint_eq(from, 2);
    advance(x, x->cfg.probe_timeout_ms - TICK_MS);
    ck_assert_uint_eq(counters(x).probe_timeouts, 0);
    advance(x, 2 * TICK_MS);
    ck_assert_uint_eq(counters(x).probe_timeouts, 1);
    ck_assert_uint_eq(x->n_probes, from + 1);
    const dcn_path *alt = &x->probe[from].path;
    ck_assert_msg(dcn_path_valid(alt, &x->t, NULL, NULL), "%s", tu_path_str(&x->t, alt));
    ck_assert_uint_eq(alt->node[alt->len - 1], dst);
    ck_assert(!same_path(alt, &set->path[1]));
    ck_assert(!crosses(alt, fa, fb));
    ck_assert_msg(!shares_inner_node(alt, &set->path[0]), "%s", tu_path_str(&x->t, alt));
    /* No failure names a link of P1, so the alternate also avoids P1's relay server. */
    ck_assert(!dcn_path_contains(alt, tu_node(&x->t, "h30")));
    /* The alternate answers best: the round ends there. */
    answer(x, (int)from, 900);
    ck_assert(same_path(bsr_route(x->b, &k, dst), alt));
    /* The timed-out path is never current. */
    bsr_flow_info fi;
    ck_assert(flow_info(x, &k, &fi));
    ck_assert_uint_eq(fi.n_paths, 2);
    ck_assert_int_eq(fi.path_index, 1);
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(failure_during_probe_replaces_that_path)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    bsr_route(x->b, &k, dst); /* on P0; both probes out */
    uint32_t a = tu_node(&x->t, "s1_0"), b = tu_node(&x->t, "h30");
    bsr_on_path_failure(x->b, a, b); /* P1's probe failed */
    ck_assert_uint_eq(x->n_probes, 3);
    const dcn_path *alt = &x->probe[2].path;
    ck_assert(!crosses(alt, a, b));
    ck_assert(!shares_inner_node(alt, &set->path[0]));
    ck_assert(dcn_path_valid(alt, &x->t, NULL, NULL));
    /* The stale answer of the failed probe is ignored. */
    answer(x, probe_on(x, 0, &k, &set->path[1]), 1000);
    ck_assert_uint_eq(counters(x).probe_responses_stale, 1);
    answer(x, probe_on(x, 0, &k, &set->path[0]), 100);
    answer(x, 2, 700);
    ck_assert(same_path(bsr_route(x->b, &k, dst), alt));
    free(set);
    fx_free(x);
}
END_TEST

START_TEST(faildb_entries_expire)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    x->cfg.faildb_timeout_ms = 5000;
    fx_create(x, 3);
    bsr_on_path_failure(x->b, tu_node(&x->t, "h30"), tu_node(&x->t, "s0_3"));
    bsr_faildb_info e[4];
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 1);
    ck_assert_uint_eq(e[0].expires_in_ms, 5000);
    advance(x, 4900);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 1);
    advance(x, 100);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 0);
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.faildb_expired, 1);
    ck_assert_uint_eq(c.faildb_entries, 0);
    /* Hearing it again re-learns it; hearing it while known extends it. */
    bsr_on_path_failure(x->b, tu_node(&x->t, "h30"), tu_node(&x->t, "s0_3"));
    advance(x, 3000);
    bsr_on_path_failure(x->b, tu_node(&x->t, "h30"), tu_node(&x->t, "s0_3"));
    advance(x, 3000);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 1);
    advance(x, 2000);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 0);
    fx_free(x);
}
END_TEST

START_TEST(probe_across_failed_link_clears_it)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    x->cfg.faildb_timeout_ms = 600000;
    fx_create(x, 3);
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    bsr_route(x->b, &k, dst);
    answer(x, probe_on(x, 0, &k, &set->path[0]), 500);
    answer(x, probe_on(x, 0, &k, &set->path[1]), 500);
    uint32_t a = tu_node(&x->t, "h30"), b = tu_node(&x->t, "s0_3");
    bsr_on_path_failure(x->b, a, b); /* P1 breaks; the flow is on P0 */
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[0]));
    uint32_t from = next_round(x);
    ck_assert_uint_eq(x->n_probes, from + 3);
    /* The next round probes P1 too, to see whether it is back. */
    int rec = probe_on(x, from, &k, &set->path[1]);
    ck_assert_int_ge(rec, 0);
    answer(x, rec, 800);
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.faildb_entries, 0);
    ck_assert_uint_eq(c.faildb_cleared_by_probe, 1);
    fx_free(x);
    free(set);
}
END_TEST

START_TEST(local_port_down_is_a_failed_link)
{
    fx *x = fx_bcube();
    uint32_t dst;
    dcn_pathset *set;
    bsr_flow_key k = flow_h33(x, &dst, &set);
    ck_assert(same_path(bsr_route(x->b, &k, dst), &set->path[0]));
    uint16_t port0 = (uint16_t)dcn_topo_port_to(&x->t, x->self, set->path[0].node[1]);
    bsr_on_local_port(x->b, port0, 0);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert(same_path(p, &set->path[1]));
    bsr_faildb_info e[4];
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 1);
    ck_assert_uint_eq(e[0].expires_in_ms, UINT64_MAX);
    advance(x, 3 * x->cfg.faildb_timeout_ms);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 1); /* no timeout while the port is down */
    /* New flows avoid the port too, and no probe tries to leave by it. */
    bsr_flow_key k2 = key_of(x, dst, 1001);
    uint32_t from = x->n_probes;
    ck_assert_uint_ne(bsr_route(x->b, &k2, dst)->node[1], set->path[0].node[1]);
    next_round(x);
    for (uint32_t i = from; i < x->n_probes; i++)
        ck_assert_msg(x->probe[i].path.node[1] != set->path[0].node[1], "probe %s",
                      tu_path_str(&x->t, &x->probe[i].path));
    bsr_on_local_port(x->b, port0, 1);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 0);
    /* Ports out of range or not cabled are ignored. */
    bsr_on_local_port(x->b, 99, 0);
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 0);
    free(set);
    fx_free(x);
}
END_TEST

/* The soak's 19 s HCN stall (docs/soak.md, results/soak-agent at ced83e4): h42's
 * cable to h24 came back at the instant its cable to s4 failed, and h14
 * still held h24-h42 as failed (learned 10 s before) with h42-s4 and h21-s2
 * really down. Under that database h42 is cut off, and every path of the
 * family's own set that crosses h24-h42 also crosses h21-s2, so no recovery
 * probe could show the link was back: the ACK flow stayed without a path
 * until the entry expired. An unreachable flow also probes, for each learned
 * link, the BFS path under the database without that link; here
 * h14 s1 h13 h31 s3 h32 h23 s2 h24 h42, answered at once. */
static bool crosses_any(const fx *x, const dcn_path *p, const char *const (*links)[2], int n)
{
    for (int i = 0; i < n; i++)
        if (crosses(p, tu_node(&x->t, links[i][0]), tu_node(&x->t, links[i][1])))
            return true;
    return false;
}

START_TEST(unreachable_flow_probes_through_a_stale_learned_link)
{
    fx *x = fx_new("hcn n=4 h=1", "h14");
    fx_create(x, 11);
    static const char *const really_down[][2] = {{"h42", "s4"}, {"h21", "s2"}};
    static const char *const learned[][2] = {{"h42", "s4"}, {"h21", "s2"}, {"h24", "h42"}};
    for (int i = 0; i < 3; i++)
        bsr_on_path_failure(x->b, tu_node(&x->t, learned[i][0]), tu_node(&x->t, learned[i][1]));
    uint32_t dst = tu_node(&x->t, "h42");
    bsr_flow_key k = key_of(x, dst, 40000);
    ck_assert_ptr_null(bsr_route(x->b, &k, dst)); /* no path under what h14 believes */
    /* The network answers every probe whose path crosses no link really down. */
    uint32_t seen = 0;
    const dcn_path *p = NULL;
    for (uint64_t t = 0; t < 3000 && !p; t += TICK_MS) {
        for (; seen < x->n_probes; seen++)
            if (!crosses_any(x, &x->probe[seen].path, really_down, 2))
                answer(x, (int)seen, 900);
        p = bsr_route(x->b, &k, dst);
        x->now += TICK_MS;
        bsr_tick(x->b);
    }
    ck_assert_msg(p != NULL, "still no path 3 s later, 7 s before the stale entry expires");
    ck_assert_str_eq(tu_path_str(&x->t, p), "h14 s1 h13 h31 s3 h32 h23 s2 h24 h42");
    /* Only the stale link left the database. */
    bsr_faildb_info e[4];
    ck_assert_uint_eq(bsr_faildb_list(x->b, e, 4), 2);
    for (int i = 0; i < 2; i++)
        ck_assert_msg(!(e[i].node_a == tu_node(&x->t, "h24") && e[i].node_b == tu_node(&x->t, "h42")) &&
                          !(e[i].node_a == tu_node(&x->t, "h42") && e[i].node_b == tu_node(&x->t, "h24")),
                      "h24-h42 still held failed");
    fx_free(x);
}
END_TEST

/* Such probes stay bounded: a server cut off by many learned links costs at
 * most BSR_MAX_PATHS probes per round, and only learned links are probed
 * across, never a local port that is down. */
START_TEST(unreachable_flow_probes_stay_bounded)
{
    fx *x = fx_new("bcube n=8 k=1", "h00");
    fx_create(x, 12);
    uint32_t dst = tu_node(&x->t, "h77");
    /* Every cable of h77's two switches: 16 learned links, h77 cut off. */
    for (uint16_t p = 0; p < dcn_nports(&x->t, dst); p++) {
        uint32_t sw = dcn_peer(&x->t, dst, p).node;
        for (uint16_t q = 0; q < dcn_nports(&x->t, sw); q++)
            bsr_on_path_failure(x->b, sw, dcn_peer(&x->t, sw, q).node);
    }
    bsr_on_local_port(x->b, 0, 0);
    bsr_flow_key k = key_of(x, dst, 7);
    ck_assert_ptr_null(bsr_route(x->b, &k, dst));
    for (int round = 0; round < 4; round++) {
        uint32_t from = x->n_probes;
        advance(x, x->cfg.unreachable_retry_ms + x->cfg.probe_timeout_ms);
        ck_assert_uint_gt(x->n_probes, from);
        ck_assert_uint_le(x->n_probes - from, BSR_MAX_PATHS);
        for (uint32_t i = from; i < x->n_probes; i++)
            ck_assert_uint_ne(x->probe[i].path.node[1], dcn_peer(&x->t, x->self, 0).node);
    }
    ck_assert_ptr_null(bsr_route(x->b, &k, dst));
    fx_free(x);
}
END_TEST

/* A path from node names separated by spaces ("h22 s2 h24"). */
static void path_of(const fx *x, const char *names, dcn_path *p)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    dcn_path_clear(p);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        dcn_path_push(p, tu_node(&x->t, w));
}

/* The soak's long stalls after a cable came back (docs/soak.md): the
 * receiver still held the cable failed, so its ACK flow had no path when the
 * first data came through, and that ACK was lost. A data packet delivered
 * to us proves its links are up: they leave the database and our pathless
 * flows to its source get a path at once, before any tick. */
START_TEST(data_heard_along_a_path_clears_it_and_routes_the_reply)
{
    fx *x = fx_new("hcn n=4 h=1", "h43");
    x->cfg.faildb_timeout_ms = 600000;
    fx_create(x, 13);
    uint32_t h22 = tu_node(&x->t, "h22"), s2 = tu_node(&x->t, "s2");
    bsr_on_path_failure(x->b, h22, s2); /* h22's only cable */
    bsr_flow_key k = key_of(x, h22, 5201);
    ck_assert_ptr_null(bsr_route(x->b, &k, h22));
    ck_assert(bsr_wants_path_from(x->b, h22));
    ck_assert(bsr_wants_any_path(x->b)); /* the kernel's deliveries go back to the agent (--data-path kernel) */
    ck_assert_ptr_null(bsr_current_path(x->b, &k, h22));
    ck_assert(!bsr_wants_path_from(x->b, tu_node(&x->t, "h21"))); /* no flow of ours to it */
    /* A packet from elsewhere, or one that crosses no link held failed, changes nothing. */
    dcn_path other;
    path_of(x, "h21 s2 h24 h42 s4 h43", &other);
    bsr_on_path_heard(x->b, &other);
    ck_assert_ptr_null(bsr_route(x->b, &k, h22));
    dcn_path in;
    path_of(x, "h22 s2 h24 h42 s4 h43", &in);
    bsr_on_path_heard(x->b, &in);
    const dcn_path *p = bsr_route(x->b, &k, h22); /* no tick in between */
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->node[p->len - 1], h22);
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.faildb_cleared_by_data, 1);
    ck_assert_uint_eq(c.faildb_entries, 0);
    ck_assert(!bsr_wants_path_from(x->b, h22));
    ck_assert(!bsr_wants_any_path(x->b));
    ck_assert_ptr_eq(bsr_current_path(x->b, &k, h22), p);
    fx_free(x);
}
END_TEST

/* bsr_wants_path_from counts flows without a path per destination through
 * every way a flow gains, loses or gives up its path (a learned link off
 * their path keeps the database non-empty throughout). */
START_TEST(pathless_count_follows_the_flows)
{
    fx *x = fx_new("tree leaves=2 per_leaf=2", "h0");
    x->cfg.faildb_timeout_ms = 600000;
    x->cfg.flow_idle_ms = 5000;
    fx_create(x, 14);
    uint32_t dst = tu_node(&x->t, "h3"), s0 = tu_node(&x->t, "s0"), root = tu_node(&x->t, "root");
    bsr_on_path_failure(x->b, tu_node(&x->t, "s1"), tu_node(&x->t, "h2"));
    bsr_flow_key k1 = key_of(x, dst, 1), k2 = key_of(x, dst, 2);
    ck_assert_ptr_nonnull(bsr_route(x->b, &k1, dst));
    ck_assert(!bsr_wants_path_from(x->b, dst));
    bsr_on_path_failure(x->b, s0, root);
    ck_assert(bsr_wants_path_from(x->b, dst)); /* k1 lost its path */
    ck_assert_ptr_null(bsr_route(x->b, &k2, dst));
    dcn_path in;
    path_of(x, "h3 s1 root s0 h0", &in);
    bsr_on_path_heard(x->b, &in); /* both get their path back */
    ck_assert_ptr_nonnull(bsr_route(x->b, &k1, dst));
    ck_assert_ptr_nonnull(bsr_route(x->b, &k2, dst));
    ck_assert(!bsr_wants_path_from(x->b, dst));
    bsr_on_path_failure(x->b, s0, root);
    ck_assert(bsr_wants_path_from(x->b, dst));
    advance(x, 5000 + 2 * TICK_MS); /* both expire idle while pathless */
    ck_assert_uint_eq(counters(x).flows, 0);
    ck_assert_uint_eq(counters(x).faildb_entries, 2);
    ck_assert(!bsr_wants_path_from(x->b, dst));
    ck_assert(!bsr_wants_any_path(x->b)); /* failures held, but no flow waits for a path */
    fx_free(x);
}
END_TEST

START_TEST(unreachable_on_tree_then_back)
{
    fx *x = fx_new("tree leaves=2 per_leaf=2", "h0");
    x->cfg.faildb_timeout_ms = 3000;
    fx_create(x, 5);
    uint32_t dst = tu_node(&x->t, "h3");
    bsr_flow_key k = key_of(x, dst, 9);
    const dcn_path *p = bsr_route(x->b, &k, dst);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(tu_path_str(&x->t, p), "h0 s0 root s1 h3");
    ck_assert_uint_eq(x->n_probes, 1);
    answer(x, 0, 1000);
    bsr_on_path_failure(x->b, tu_node(&x->t, "s0"), tu_node(&x->t, "root"));
    ck_assert_ptr_null(bsr_route(x->b, &k, dst));
    ck_assert_uint_ge(counters(x).unreachable, 1);
    /* Within its own leaf, fine. */
    bsr_flow_key k2 = key_of(x, 1, 9);
    ck_assert_ptr_nonnull(bsr_route(x->b, &k2, 1));
    advance(x, 3000 + 1000 + 2 * TICK_MS);
    p = bsr_route(x->b, &k, dst);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(tu_path_str(&x->t, p), "h0 s0 root s1 h3");
    fx_free(x);
}
END_TEST

/* ---- timing ---- */

START_TEST(periodic_reselection_at_interval_plus_jitter)
{
    fx *x = fx_bcube();
    uint32_t dst = tu_node(&x->t, "h33");
    enum { NF = 8 };
    bsr_flow_key k[NF];
    uint64_t delay[NF];
    for (int i = 0; i < NF; i++) {
        k[i] = key_of(x, dst, (uint16_t)(100 + i));
        bsr_route(x->b, &k[i], dst);
        delay[i] = 0;
    }
    uint64_t t0 = x->now;
    for (uint32_t i = 0; i < x->n_probes; i++)
        answer(x, (int)i, 500); /* every round ends now */
    uint32_t from = x->n_probes;
    while (x->now - t0 <= x->cfg.reselect_ms + x->cfg.jitter_ms + 2 * TICK_MS) {
        advance(x, TICK_MS);
        for (uint32_t i = from; i < x->n_probes; i++)
            for (int f = 0; f < NF; f++)
                if (x->probe[i].key.src_port == k[f].src_port && !delay[f])
                    delay[f] = x->now - t0;
        from = x->n_probes;
    }
    bool varied = false;
    for (int f = 0; f < NF; f++) {
        ck_assert_msg(delay[f] >= x->cfg.reselect_ms, "flow %d re-probed after %llu ms", f,
                      (unsigned long long)delay[f]);
        ck_assert_msg(delay[f] <= x->cfg.reselect_ms + x->cfg.jitter_ms + TICK_MS, "flow %d after %llu ms", f,
                      (unsigned long long)delay[f]);
        varied |= delay[f] != delay[0];
    }
    ck_assert_msg(varied, "jitter: every flow re-selected after the same delay");
    fx_free(x);
}
END_TEST

START_TEST(no_jitter_means_exact_interval)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    x->cfg.jitter_ms = 0;
    x->cfg.reselect_ms = 2000;
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, "h33");
    bsr_flow_key k = key_of(x, dst, 1);
    bsr_route(x->b, &k, dst);
    for (int round = 0; round < 3; round++) {
        uint32_t from = x->n_probes;
        answer(x, (int)from - 2, 500);
        answer(x, (int)from - 1, 500);
        advance(x, 1900);
        ck_assert_uint_eq(x->n_probes, from);
        advance(x, 100);
        ck_assert_uint_eq(x->n_probes, from + 2);
    }
    fx_free(x);
}
END_TEST

/* ---- the flow table ---- */

START_TEST(full_table_evicts_least_recently_used)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    x->cfg.max_flows = 3;
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, "h33");
    bsr_flow_key k1 = key_of(x, dst, 1), k2 = key_of(x, dst, 2), k3 = key_of(x, dst, 3), k4 = key_of(x, dst, 4);
    bsr_route(x->b, &k1, dst);
    bsr_route(x->b, &k2, dst);
    bsr_route(x->b, &k3, dst);
    bsr_route(x->b, &k1, dst); /* k2 is now the least recently used */
    ck_assert_ptr_nonnull(bsr_route(x->b, &k4, dst));
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.flows, 3);
    ck_assert_uint_eq(c.flows_evicted, 1);
    bsr_flow_info fi;
    ck_assert(!flow_info(x, &k2, &fi));
    ck_assert(flow_info(x, &k1, &fi) && flow_info(x, &k3, &fi) && flow_info(x, &k4, &fi));
    /* The evicted flow's answers are stale, not a crash. */
    answer(x, 2, 100);
    ck_assert_uint_eq(counters(x).probe_responses_stale, 1);
    /* Many more flows than room: every packet still gets a path. */
    for (uint16_t s = 10; s < 2000; s++) {
        bsr_flow_key k = key_of(x, (uint32_t)(s % 15) + 1, s);
        x->send_fails = s & 1; /* and probes that cannot be sent are survived */
        ck_assert_ptr_nonnull(bsr_route(x->b, &k, (uint32_t)(s % 15) + 1));
        if (x->n_probes > FK_MAX_PROBES - 8)
            x->n_probes = 0;
    }
    ck_assert_uint_eq(counters(x).flows, 3);
    ck_assert_uint_gt(counters(x).probe_send_errors, 0);
    advance(x, 2000);
    fx_free(x);
}
END_TEST

START_TEST(new_flow_writes_only_what_it_uses)
{
    /* A new flow clears its scalars and the current path's length, not the
     * ~11 KB of node arrays: a long-lived agent's resident memory then
     * follows the paths its flows hold (results/soak-agent memory verdict). */
    bsr_flow_table ft;
    ck_assert_int_eq(bsr_flow_table_init(&ft, 2), 0);
    memset(ft.flows, 0xAB, 2 * sizeof *ft.flows); /* a slot reused after an earlier flow */
    bsr_flow_key k = {.src_ip = 1, .dst_ip = 2, .src_port = 3, .dst_port = 4, .proto = 6};
    bsr_flow *f = bsr_flow_insert(&ft, &k);
    ck_assert_ptr_nonnull(f);
    ck_assert(f->used && f->n_paths == 0 && f->cur.len == 0 && f->probes_sent == 0 && f->created_ms == 0);
    ck_assert(bsr_flow_find(&ft, &k) == f);
    const unsigned char *untouched = (const unsigned char *)f->cur.node;
    size_t n = sizeof *f - offsetof(bsr_flow, cur.node);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(untouched[i], 0xAB);
    /* and a path copy writes its used nodes only */
    dcn_path src = {.len = 3, .node = {7, 8, 9}};
    dcn_path_copy(&f->paths[0].path, &src);
    ck_assert_uint_eq(f->paths[0].path.len, 3);
    ck_assert_uint_eq(f->paths[0].path.node[2], 9);
    ck_assert_uint_eq(f->paths[0].path.node[3], 0xABABABABu);
    bsr_flow_table_free(&ft);
}
END_TEST

START_TEST(idle_flows_expire)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    x->cfg.flow_idle_ms = 3000;
    fx_create(x, 1);
    uint32_t dst = tu_node(&x->t, "h33");
    bsr_flow_key busy = key_of(x, dst, 1), idle = key_of(x, dst, 2);
    bsr_route(x->b, &busy, dst);
    bsr_route(x->b, &idle, dst);
    for (int s = 0; s < 5; s++) {
        advance(x, 1000);
        bsr_route(x->b, &busy, dst);
    }
    bsr_flow_info fi;
    ck_assert(flow_info(x, &busy, &fi));
    ck_assert(!flow_info(x, &idle, &fi));
    bsr_counters c = counters(x);
    ck_assert_uint_eq(c.flows, 1);
    ck_assert_uint_eq(c.flows_expired, 1);
    ck_assert(flow_info(x, &busy, &fi));
    ck_assert_uint_ge(fi.age_ms, 4900);
    ck_assert_uint_le(fi.idle_ms, 100);
    /* A forgotten flow that sends again is a new flow with a path at once. */
    ck_assert_ptr_nonnull(bsr_route(x->b, &idle, dst));
    ck_assert_uint_eq(counters(x).flows_created, 3);
    fx_free(x);
}
END_TEST

/* ---- bad input ---- */

START_TEST(bad_input_is_rejected)
{
    fx *x = fx_new("bcube n=4 k=1", "h00");
    bsr_io io = {.ctx = x, .now_ms = fk_now, .send_probe = fk_send};
    bsr_io no_clock = {.ctx = x, .send_probe = fk_send};
    ck_assert_ptr_null(bsr_create(&x->t, 0, &x->cfg, &no_clock, 1));
    ck_assert_ptr_null(bsr_create(&x->t, 0, &x->cfg, NULL, 1));
    ck_assert_ptr_null(bsr_create(&x->t, tu_node(&x->t, "s0_0"), &x->cfg, &io, 1)); /* a switch */
    bsr_config c = x->cfg;
    c.max_flows = 0;
    ck_assert_ptr_null(bsr_create(&x->t, 0, &c, &io, 1));
    c = x->cfg;
    c.probe_timeout_ms = 0;
    ck_assert_ptr_null(bsr_create(&x->t, 0, &c, &io, 1));
    c = x->cfg;
    c.jitter_ms = UINT32_MAX;
    ck_assert_ptr_null(bsr_create(&x->t, 0, &c, &io, 1));
    c = x->cfg;
    c.unreachable_retry_ms = 0; /* a config filled by hand without the added fields */
    c.switch_margin_pct = 0;
    bsr *ok = bsr_create(&x->t, 0, &c, &io, 1);
    ck_assert_ptr_nonnull(ok);
    bsr_destroy(ok);
    fx_create(x, 1);
    bsr_flow_key k = key_of(x, 0, 1);
    ck_assert_ptr_null(bsr_route(x->b, &k, x->self));     /* to ourselves */
    ck_assert_ptr_null(bsr_route(x->b, &k, 16));          /* a switch */
    ck_assert_ptr_null(bsr_route(x->b, &k, 1u << 30));    /* nothing */
    ck_assert_ptr_null(bsr_route(x->b, NULL, 3));
    ck_assert_uint_eq(counters(x).flows, 0);
    bsr_on_path_failure(x->b, 0, 15);                     /* not adjacent */
    bsr_on_path_failure(x->b, 0, 0);
    bsr_on_path_failure(x->b, 0, UINT32_MAX);
    bsr_counters cc = counters(x);
    ck_assert_uint_eq(cc.failures_ignored, 3);
    ck_assert_uint_eq(cc.faildb_entries, 0);
    bsr_on_probe_response(x->b, &k, 12345, 10, NULL);
    ck_assert_uint_eq(counters(x).probe_responses_stale, 1);
    /* The same 5-tuple towards another server restarts the flow. */
    bsr_flow_key kk = key_of(x, 5, 1);
    ck_assert_uint_eq(bsr_route(x->b, &kk, 5)->node[bsr_route(x->b, &kk, 5)->len - 1], 5);
    ck_assert_uint_eq(bsr_route(x->b, &kk, 6)->node[bsr_route(x->b, &kk, 6)->len - 1], 6);
    ck_assert_uint_eq(counters(x).flows, 1);
    /* NULL everywhere is harmless. */
    bsr_tick(NULL);
    bsr_on_path_failure(NULL, 0, 1);
    bsr_on_local_port(NULL, 0, 0);
    bsr_on_probe_response(NULL, &k, 1, 1, NULL);
    ck_assert_uint_eq(bsr_flows(NULL, NULL, 0), 0);
    bsr_destroy(NULL);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(bsr_pathset(x->b, x->self, s), -1);
    ck_assert_int_eq(bsr_pathset(x->b, 15, s), 2);
    free(s);
    fx_free(x);
}
END_TEST

/* ---- MDCube: a fibre (switch-to-switch link) failing moves to a random other jump ---- */

/* A hand-built stand-in: src - swA = X1|X2|X3 = swD - dst, where swA-Xi
 * and Xi-swD are switch-to-switch links, one "jump" per Xi. */
enum { J_SRC, J_DST, J_SWA, J_SWD, J_X1 };

static void jumps_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    (void)t;
    static const char *names[] = {"src", "dst", "swA", "swD"};
    if (v < 4)
        snprintf(buf, len, "%s", names[v]);
    else
        snprintf(buf, len, "X%u", v - J_X1 + 1);
}

static int jumps_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    (void)ctx;
    out->count = 0;
    if (src != J_SRC || dst != J_DST)
        return dcn_algo_shortest(t, src, dst, ctx, out);
    for (uint32_t j = 0; j < 3; j++) {
        dcn_path *p = &out->path[out->count++];
        dcn_path_clear(p);
        uint32_t seq[] = {J_SRC, J_SWA, J_X1 + j, J_SWD, J_DST};
        for (int i = 0; i < 5; i++)
            dcn_path_push(p, seq[i]);
    }
    return 3;
}

static const dcn_algo jumps_algos[] = {{"jumps", "one path per jump", jumps_paths}};
/* BSR applies the random-jump rule to the family named mdcube only. */
static const dcn_family jumps_as_mdcube = {
    .name = "mdcube", .node_name = jumps_name, .algos = jumps_algos, .n_algos = 1};
static const dcn_family jumps_plain = {.name = "jumps", .node_name = jumps_name, .algos = jumps_algos, .n_algos = 1};

static void build_jumps(dcn_topo *t, const dcn_family *fam)
{
    char err[256];
    memset(t, 0, sizeof *t);
    t->family = fam;
    uint16_t server_ports[] = {1, 1};
    uint16_t switch_ports[] = {4, 4, 2, 2, 2};
    ck_assert_int_eq(dcn_topo_alloc(t, 2, 5, server_ports, switch_ports, err, sizeof err), 0);
    ck_assert_int_eq(dcn_topo_connect(t, J_SRC, 0, J_SWA, 0, err, sizeof err), 0);
    ck_assert_int_eq(dcn_topo_connect(t, J_DST, 0, J_SWD, 0, err, sizeof err), 0);
    for (uint16_t j = 0; j < 3; j++) {
        ck_assert_int_eq(dcn_topo_connect(t, J_SWA, (uint16_t)(1 + j), J_X1 + j, 0, err, sizeof err), 0);
        ck_assert_int_eq(dcn_topo_connect(t, J_SWD, (uint16_t)(1 + j), J_X1 + j, 1, err, sizeof err), 0);
    }
}

START_TEST(fibre_failure_moves_to_random_other_jump)
{
    int chosen[3] = {0, 0, 0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        fx *x = calloc(1, sizeof *x);
        build_jumps(&x->t, &jumps_as_mdcube);
        x->self = J_SRC;
        bsr_config_default(&x->cfg);
        x->now = 1000;
        fx_create(x, seed);
        bsr_flow_key k = key_of(x, J_DST, 1);
        const dcn_path *p = bsr_route(x->b, &k, J_DST);
        ck_assert_uint_eq(p->node[2], J_X1);
        ck_assert_uint_eq(x->n_probes, 3);
        /* X3 measures best, but a fibre failure picks a random other jump. */
        answer(x, 0, 500);
        answer(x, 1, 100);
        answer(x, 2, 400);
        ck_assert_uint_eq(bsr_route(x->b, &k, J_DST)->node[2], J_X1);
        bsr_on_path_failure(x->b, J_SWA, J_X1);
        p = bsr_route(x->b, &k, J_DST);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_ne(p->node[2], J_X1);
        chosen[p->node[2] - J_X1]++;
        fx_free(x);
    }
    ck_assert_int_eq(chosen[0], 0);
    ck_assert_int_gt(chosen[1], 5);
    ck_assert_int_gt(chosen[2], 5);
}
END_TEST

START_TEST(switch_link_failure_elsewhere_takes_best_cached_path)
{
    /* The same graph in a family that is not MDCube: best cached wins. */
    for (uint64_t seed = 1; seed <= 10; seed++) {
        fx *x = calloc(1, sizeof *x);
        build_jumps(&x->t, &jumps_plain);
        x->self = J_SRC;
        bsr_config_default(&x->cfg);
        fx_create(x, seed);
        bsr_flow_key k = key_of(x, J_DST, 1);
        bsr_route(x->b, &k, J_DST);
        answer(x, 0, 500);
        answer(x, 1, 100);
        answer(x, 2, 400);
        bsr_on_path_failure(x->b, J_SWA, J_X1);
        ck_assert_uint_eq(bsr_route(x->b, &k, J_DST)->node[2], J_X1 + 2);
        /* dst's only link: nothing else to take; the flow has no path. */
        bsr_on_path_failure(x->b, J_DST, J_SWD);
        ck_assert_ptr_null(bsr_route(x->b, &k, J_DST));
        fx_free(x);
    }
}
END_TEST

/* ---- every family ---- */

START_TEST(every_family_routes_probes_and_fails_over)
{
    int nf;
    const dcn_family *const *fams = dcn_families(&nf);
    dcn_pathset *set = calloc(1, sizeof *set);
    for (int fi = 0; fi < nf; fi++) {
        fx *x = calloc(1, sizeof *x);
        char err[256];
        ck_assert_msg(dcn_topo_build(&x->t, fams[fi]->name, 0, NULL, err, sizeof err) == 0, "%s: %s",
                      fams[fi]->name, err);
        bsr_config_default(&x->cfg);
        x->self = 0;
        x->now = 1000;
        fx_create(x, 5);
        dcn_rng r;
        dcn_rng_seed(&r, 9);
        uint32_t ns = x->t.n_servers;
        uint32_t dsts[] = {1, ns / 2, ns - 1};
        for (int d = 0; d < 3; d++) {
            uint32_t dst = dsts[d];
            if (dst == 0 || dst >= ns)
                continue;
            int n = tu_paths(&x->t, NULL, 0, dst, NULL, 1, set);
            ck_assert_int_ge(n, 1);
            /* A fresh BSR for each pair: nothing failed yet. */
            bsr_destroy(x->b);
            fx_create(x, 5);
            x->n_probes = 0;
            bsr_flow_key k = key_of(x, dst, (uint16_t)d);
            uint32_t from = x->n_probes;
            const dcn_path *p = bsr_route(x->b, &k, dst);
            ck_assert_msg(p != NULL, "%s: no path 0 -> %u", fams[fi]->name, dst);
            ck_assert_msg(dcn_path_valid(p, &x->t, NULL, NULL) && p->node[p->len - 1] == dst, "%s: %s",
                          fams[fi]->name, tu_path_str(&x->t, p));
            ck_assert_msg(x->n_probes - from == (uint32_t)(n < BSR_MAX_PATHS ? n : BSR_MAX_PATHS),
                          "%s 0->%u: %u probes for %d paths", fams[fi]->name, dst, x->n_probes - from, n);
            for (uint32_t i = from; i < x->n_probes; i++)
                answer(x, (int)i, 100 + dcn_rng_below(&r, 900));
            dcn_path cur = *bsr_route(x->b, &k, dst);
            ck_assert_int_ge(probe_on(x, from, &k, &cur), 0);
            /* Fail the middle link of the current path. */
            uint32_t m = (cur.len - 1) / 2;
            uint32_t a = cur.node[m], b = cur.node[m + 1];
            bsr_on_path_failure(x->b, a, b);
            dcn_failures f;
            ck_assert_int_eq(dcn_failures_init(&f, &x->t), 0);
            dcn_fail_link(&f, &x->t, a, b);
            dcn_path any;
            bool exists = dcn_bfs_path(&x->t, 0, dst, &f, NULL, &any) == 0;
            p = bsr_route(x->b, &k, dst);
            if (exists) {
                ck_assert_msg(p != NULL, "%s: no path 0 -> %u after failing a link", fams[fi]->name, dst);
                ck_assert_msg(dcn_path_valid(p, &x->t, &f, NULL), "%s: %s", fams[fi]->name, tu_path_str(&x->t, p));
            } else {
                ck_assert_ptr_null(p);
            }
            dcn_failures_free(&f);
            advance(x, 2 * x->cfg.probe_timeout_ms); /* unanswered probes time out */
            if (exists)
                ck_assert_ptr_nonnull(bsr_route(x->b, &k, dst));
        }
        fx_free(x);
    }
    free(set);
}
END_TEST

START_TEST(mdcube_fibre_failure_changes_jump)
{
    if (!dcn_family_find("mdcube"))
        return; /* the family is not in this tree */
    fx *x = fx_new("mdcube n=2 k=1 m=4", "#0");
    fx_create(x, 11);
    /* A server in another container: the last one. */
    uint32_t dst = x->t.n_servers - 1;
    dcn_pathset *set = calloc(1, sizeof *set);
    int n = tu_paths(&x->t, NULL, x->self, dst, NULL, 1, set);
    ck_assert_int_ge(n, 2);
    bsr_flow_key k = key_of(x, dst, 1);
    dcn_path p = *bsr_route(x->b, &k, dst);
    ck_assert_uint_eq(x->n_probes, (uint32_t)n);
    for (uint32_t i = 0; i < x->n_probes; i++)
        answer(x, (int)i, 500);
    /* Its first fibre (switch to switch). */
    uint32_t a = DCN_NONE, b = DCN_NONE;
    for (uint32_t i = 0; i + 1 < p.len; i++)
        if (dcn_kind(&x->t, p.node[i]) == DCN_SWITCH && dcn_kind(&x->t, p.node[i + 1]) == DCN_SWITCH) {
            a = p.node[i];
            b = p.node[i + 1];
            break;
        }
    ck_assert_uint_ne(a, DCN_NONE);
    bsr_on_path_failure(x->b, a, b);
    const dcn_path *q = bsr_route(x->b, &k, dst);
    ck_assert_ptr_nonnull(q);
    ck_assert(!crosses(q, a, b));
    ck_assert(dcn_path_valid(q, &x->t, NULL, NULL));
    free(set);
    fx_free(x);
}
END_TEST

/* ---- random churn: packets, answers, failures, ports, ticks ---- */

START_TEST(random_churn_keeps_the_state_consistent)
{
    fx *x = fx_new("bcube n=4 k=2", "h000");
    x->cfg.max_flows = 32;
    x->cfg.flow_idle_ms = 4000;
    x->cfg.faildb_timeout_ms = 3000;
    x->cfg.reselect_ms = 1000;
    x->cfg.jitter_ms = 300;
    fx_create(x, 77);
    dcn_rng r;
    dcn_rng_seed(&r, 1234);
    uint32_t n_nodes = dcn_n_nodes(&x->t);
    static bsr_flow_info info[64];
    for (int step = 0; step < 30000; step++) {
        uint32_t op = dcn_rng_below(&r, 100);
        if (op < 60) {
            uint32_t dst = 1 + dcn_rng_below(&r, x->t.n_servers - 1);
            bsr_flow_key k = key_of(x, dst, (uint16_t)dcn_rng_below(&r, 100));
            const dcn_path *p = bsr_route_bytes(x->b, &k, dst, 1500);
            if (p)
                ck_assert(dcn_path_valid(p, &x->t, NULL, NULL) && p->node[0] == x->self &&
                          p->node[p->len - 1] == dst);
        } else if (op < 80 && x->n_probes) {
            uint32_t i = dcn_rng_below(&r, x->n_probes);
            answer(x, (int)i, dcn_rng_below(&r, 1000));
        } else if (op < 84) {
            /* a real link, or nonsense */
            uint32_t a = dcn_rng_below(&r, n_nodes), b;
            uint16_t np = dcn_nports(&x->t, a);
            if (np && dcn_rng_below(&r, 4))
                b = dcn_peer(&x->t, a, (uint16_t)dcn_rng_below(&r, np)).node;
            else
                b = dcn_rng_below(&r, n_nodes + 3);
            bsr_on_path_failure(x->b, a, b);
        } else if (op < 86) {
            bsr_on_local_port(x->b, (uint16_t)dcn_rng_below(&r, 4), (int)dcn_rng_below(&r, 2));
        } else {
            x->now += dcn_rng_below(&r, 150);
            bsr_tick(x->b);
        }
        if (x->n_probes > FK_MAX_PROBES - 64)
            x->n_probes = 0; /* old probes are forgotten by the fake network */
        if (step % 500 == 0) {
            size_t n = bsr_flows(x->b, info, 64);
            bsr_counters c = counters(x);
            ck_assert_uint_eq(n, c.flows);
            ck_assert_uint_le(n, 32);
            for (size_t i = 0; i < n; i++) {
                ck_assert_uint_le(info[i].n_paths, BSR_MAX_PATHS);
                ck_assert(info[i].path_index >= -1 && info[i].path_index < (int32_t)info[i].n_paths);
                if (info[i].path.len)
                    ck_assert(dcn_path_valid(&info[i].path, &x->t, NULL, NULL) &&
                              info[i].path.node[info[i].path.len - 1] == info[i].dst_server);
            }
            ck_assert_uint_le(c.faildb_entries, BSR_FAILDB_LIMIT_FOR_TEST);
        }
    }
    ck_assert_uint_gt(counters(x).path_switches, 0);
    ck_assert_uint_gt(counters(x).flows_evicted + counters(x).flows_expired, 0);
    fx_free(x);
}
END_TEST

static Suite *bsr_suite(void)
{
    Suite *s = suite_create("agent_bsr");
    TCase *tc = tcase_create("bsr");
    tcase_add_test(tc, new_flow_gets_path_at_once_and_probes_every_path);
    tcase_add_test(tc, bcube_k2_probes_three_paths);
    tcase_add_test(tc, best_bandwidth_wins_one_path_per_flow);
    tcase_add_test(tc, two_flows_of_one_pair_spread_over_the_paths);
    tcase_add_test(tc, new_flows_of_one_pair_start_on_different_ports);
    tcase_add_test(tc, new_flows_of_one_pair_start_apart_at_both_ends);
    tcase_add_test(tc, flows_to_other_servers_do_not_lengthen_the_default_path);
    tcase_add_test(tc, three_flows_balance_by_probed_load);
    tcase_add_test(tc, flows_herded_onto_one_last_hop_spread_over_the_destination_ports);
    tcase_add_test(tc, flows_herded_by_a_failover_spread_within_settling);
    tcase_add_test(tc, failover_keeps_off_the_path_of_a_flow_to_the_same_server);
    tcase_add_test(tc, failover_finds_a_path_apart_when_the_family_reroute_meets_the_other_flow);
    tcase_add_test(tc, a_stall_does_not_herd_the_flows_of_one_pair);
    tcase_add_test(tc, a_lost_path_during_a_stall_does_not_herd_the_flows_of_one_pair);
    tcase_add_test(tc, idle_flow_takes_the_shortest_path);
    tcase_add_test(tc, bandwidth_tie_goes_to_the_shorter_path);
    tcase_add_test(tc, concurrent_flows_of_one_pair_take_parallel_paths_in_any_order);
    tcase_add_test(tc, path_failure_switches_at_once_to_cached_path);
    tcase_add_test(tc, failure_without_cached_path_uses_repaired_set);
    tcase_add_test(tc, probe_timeout_gives_bfs_alternate);
    tcase_add_test(tc, failure_during_probe_replaces_that_path);
    tcase_add_test(tc, faildb_entries_expire);
    tcase_add_test(tc, probe_across_failed_link_clears_it);
    tcase_add_test(tc, local_port_down_is_a_failed_link);
    tcase_add_test(tc, unreachable_flow_probes_through_a_stale_learned_link);
    tcase_add_test(tc, unreachable_flow_probes_stay_bounded);
    tcase_add_test(tc, data_heard_along_a_path_clears_it_and_routes_the_reply);
    tcase_add_test(tc, pathless_count_follows_the_flows);
    tcase_add_test(tc, unreachable_on_tree_then_back);
    tcase_add_test(tc, periodic_reselection_at_interval_plus_jitter);
    tcase_add_test(tc, no_jitter_means_exact_interval);
    tcase_add_test(tc, full_table_evicts_least_recently_used);
    tcase_add_test(tc, idle_flows_expire);
    tcase_add_test(tc, new_flow_writes_only_what_it_uses);
    tcase_add_test(tc, bad_input_is_rejected);
    tcase_add_test(tc, fibre_failure_moves_to_random_other_jump);
    tcase_add_test(tc, switch_link_failure_elsewhere_takes_best_cached_path);
    tcase_add_test(tc, every_family_routes_probes_and_fails_over);
    tcase_add_test(tc, random_churn_keeps_the_state_consistent);
    tcase_add_test(tc, mdcube_fibre_failure_changes_jump);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(bsr_suite()); }
