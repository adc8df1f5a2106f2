/* Fallback source path selection, used only while BSR (bsr.c) is not in
 * the tree. This is NOT BSR: it never probes and does not measure
 * bandwidth. A destination's path is the first path of the family's
 * parallel path set (algos[0]) computed around the links named in
 * path-failure messages; those are forgotten after FAIL_FORGET_MS. */
#include <stdlib.h>

#include "path_select.h"
#include "topo/family.h"

#define FAIL_FORGET_MS 10000

struct path_select {
    const dcn_topo *t;
    uint32_t self;
    ps_io io;
    dcn_rng rng;
    dcn_failures fail;
    uint64_t fail_since_ms; /* 0: nothing failed */
    uint32_t generation;
    dcn_path *path;       /* one per destination server */
    uint32_t *path_gen;   /* generation the path was computed in; 0 = never */
    dcn_pathset *scratch; /* allocated once */
};

const char *ps_name(void) { return "fallback-first-path"; }

path_select *ps_create(const dcn_topo *t, uint32_t self, const ps_io *io, uint64_t seed)
{
    path_select *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->t = t;
    ps->self = self;
    ps->io = *io;
    ps->generation = 1;
    dcn_rng_seed(&ps->rng, seed);
    ps->path = calloc(t->n_servers, sizeof *ps->path);
    ps->path_gen = calloc(t->n_servers, sizeof *ps->path_gen);
    ps->scratch = malloc(sizeof *ps->scratch);
    if (!ps->path || !ps->path_gen || !ps->scratch || dcn_failures_init(&ps->fail, t) < 0) {
        free(ps->path);
        free(ps->path_gen);
        free(ps->scratch);
        free(ps);
        return NULL;
    }
    return ps;
}

void ps_destroy(path_select *ps)
{
    if (!ps)
        return;
    dcn_failures_free(&ps->fail);
    free(ps->path);
    free(ps->path_gen);
    free(ps->scratch);
    free(ps);
}

const dcn_path *ps_route(path_select *ps, const dcn_flow_key *k, uint32_t dst, uint32_t bytes)
{
    (void)k;
    (void)bytes;
    if (dst >= ps->t->n_servers || dst == ps->self)
        return NULL;
    if (ps->path_gen[dst] == ps->generation)
        return ps->path[dst].len ? &ps->path[dst] : NULL;
    dcn_route_ctx ctx = {.failures = ps->fail_since_ms ? &ps->fail : NULL, .rng = &ps->rng};
    const dcn_family *fam = ps->t->family;
    int n = fam->n_algos > 0 ? fam->algos[0].fn(ps->t, ps->self, dst, &ctx, ps->scratch) : -1;
    if (n > 0 && ctx.failures)
        n = dcn_pathset_repair(ps->t, ctx.failures, ps->scratch);
    if (n <= 0)
        n = dcn_algo_shortest(ps->t, ps->self, dst, &ctx, ps->scratch);
    ps->path_gen[dst] = ps->generation;
    ps->path[dst].len = 0;
    if (n > 0)
        ps->path[dst] = ps->scratch->path[0];
    return ps->path[dst].len ? &ps->path[dst] : NULL;
}

void ps_on_probe_response(path_select *ps, const dcn_flow_key *k, uint32_t seq, uint32_t avail)
{
    (void)ps;
    (void)k;
    (void)seq;
    (void)avail;
}

void ps_on_path_failure(path_select *ps, uint32_t a, uint32_t b)
{
    if (a >= dcn_n_nodes(ps->t) || b >= dcn_n_nodes(ps->t))
        return;
    if (!dcn_step_ok(&ps->fail, ps->t, a, b))
        return; /* not adjacent, or already known */
    if (dcn_fail_link(&ps->fail, ps->t, a, b) < 0)
        return;
    if (!ps->fail_since_ms)
        ps->fail_since_ms = ps->io.now_ms(ps->io.ctx);
    ps->generation++;
}

void ps_on_local_port(path_select *ps, uint16_t port, int up)
{
    if (port >= dcn_nports(ps->t, ps->self))
        return;
    if (!up) {
        dcn_fail_port(&ps->fail, ps->t, ps->self, port);
        if (!ps->fail_since_ms)
            ps->fail_since_ms = ps->io.now_ms(ps->io.ctx);
    }
    ps->generation++;
}

void ps_tick(path_select *ps)
{
    if (ps->fail_since_ms && ps->io.now_ms(ps->io.ctx) - ps->fail_since_ms >= FAIL_FORGET_MS) {
        dcn_failures_clear(&ps->fail, ps->t);
        ps->fail_since_ms = 0;
        ps->generation++;
    }
}

int ps_flows(path_select *ps, ps_flow_info *out, int max)
{
    (void)ps;
    (void)out;
    (void)max;
    return 0; /* the fallback keeps no flows */
}

int ps_pathset(path_select *ps, uint32_t dst, dcn_pathset *out)
{
    if (dst >= ps->t->n_servers || dst == ps->self)
        return -1;
    dcn_route_ctx ctx = {.failures = ps->fail_since_ms ? &ps->fail : NULL, .rng = &ps->rng};
    const dcn_family *fam = ps->t->family;
    int n = fam->n_algos > 0 ? fam->algos[0].fn(ps->t, ps->self, dst, &ctx, out) : -1;
    if (n > 0 && ctx.failures)
        n = dcn_pathset_repair(ps->t, ctx.failures, out);
    return n < 0 ? 0 : n;
}

int ps_counters(path_select *ps, ps_counter *out, int max)
{
    (void)ps;
    (void)out;
    (void)max;
    return 0;
}

/* The fallback keeps no flows: it cannot tell which flow a message is for,
 * so only the data plane's own checks (port, neighbour, link beyond the
 * reporter) apply. */
ps_fail_match ps_failure_match(path_select *ps, const dcn_path *to_reporter, uint32_t a, uint32_t b)
{
    (void)ps;
    (void)to_reporter;
    (void)a;
    (void)b;
    return PS_FAIL_ON_PATH;
}
