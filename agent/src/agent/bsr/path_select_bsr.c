/* Source path selection by BSR (bsr.c): a thin adapter from the data
 * plane's path_select interface to the BSR module. */
#include <stdlib.h>
#include <string.h>

#include "bsr.h"
#include "bsr_faildb.h"
#include "agent/core/path_select.h"

struct path_select {
    bsr *b;
    ps_io io;
};

const char *ps_name(void) { return "bsr"; }

static uint64_t a_now(void *ctx) { return ((path_select *)ctx)->io.now_ms(((path_select *)ctx)->io.ctx); }

static int a_send_probe(void *ctx, const bsr_flow_key *flow, uint32_t seq, const dcn_path *path, uint32_t credit)
{
    path_select *ps = ctx;
    dcn_flow_key k = {.src_ip = flow->src_ip, .dst_ip = flow->dst_ip, .src_port = flow->src_port,
                      .dst_port = flow->dst_port, .proto = flow->proto};
    return ps->io.send_probe(ps->io.ctx, &k, seq, path, credit);
}

static uint32_t a_avail(void *ctx, uint16_t port, int out)
{
    path_select *ps = ctx;
    return ps->io.port_avail_mbps(ps->io.ctx, port, out);
}

static bsr_flow_key to_bsr(const dcn_flow_key *k)
{
    bsr_flow_key b = {.src_ip = k->src_ip, .dst_ip = k->dst_ip, .src_port = k->src_port,
                      .dst_port = k->dst_port, .proto = k->proto};
    return b;
}

path_select *ps_create(const dcn_topo *t, uint32_t self, const ps_io *io, uint64_t seed, uint32_t max_flows)
{
    path_select *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->io = *io;
    bsr_config cfg;
    bsr_config_default(&cfg);
    if (max_flows)
        cfg.max_flows = max_flows;
    bsr_io bio = {.ctx = ps, .now_ms = a_now, .send_probe = a_send_probe, .port_avail_mbps = a_avail};
    ps->b = bsr_create(t, self, &cfg, &bio, seed);
    if (!ps->b) {
        free(ps);
        return NULL;
    }
    return ps;
}

void ps_destroy(path_select *ps)
{
    if (!ps)
        return;
    bsr_destroy(ps->b);
    free(ps);
}

const dcn_path *ps_route(path_select *ps, const dcn_flow_key *k, uint32_t dst, uint32_t bytes)
{
    bsr_flow_key bk = to_bsr(k);
    return bsr_route_bytes(ps->b, &bk, dst, bytes);
}

const dcn_path *ps_current(const path_select *ps, const dcn_flow_key *k, uint32_t dst)
{
    bsr_flow_key bk = to_bsr(k);
    return bsr_current_path(ps->b, &bk, dst);
}

int ps_pathset(path_select *ps, uint32_t dst, dcn_pathset *out) { return bsr_pathset(ps->b, dst, out); }

void ps_on_probe_response(path_select *ps, const dcn_flow_key *k, uint32_t seq, uint32_t avail, const dcn_path *path)
{
    bsr_flow_key bk = to_bsr(k);
    bsr_on_probe_response(ps->b, &bk, seq, avail, path);
}

void ps_on_path_failure(path_select *ps, uint32_t a, uint32_t b) { bsr_on_path_failure(ps->b, a, b); }
void ps_on_local_port(path_select *ps, uint16_t port, int up) { bsr_on_local_port(ps->b, port, up); }
bool ps_wants_path_from(const path_select *ps, uint32_t src) { return bsr_wants_path_from(ps->b, src); }
void ps_on_path_heard(path_select *ps, const dcn_path *p) { bsr_on_path_heard(ps->b, p); }
bool ps_wants_any_path(const path_select *ps) { return bsr_wants_any_path(ps->b); }

ps_fail_match ps_failure_match(path_select *ps, const dcn_path *to_reporter, uint32_t a, uint32_t b)
{
    switch (bsr_failure_match(ps->b, to_reporter, a, b)) {
    case BSR_FAIL_ON_PATH: return PS_FAIL_ON_PATH;
    case BSR_FAIL_LINK_OFF_PATH: return PS_FAIL_LINK_OFF_PATH;
    default: return PS_FAIL_UNKNOWN_FLOW;
    }
}
void ps_tick(path_select *ps) { bsr_tick(ps->b); }
bool ps_idle(const path_select *ps) { return !ps || bsr_idle(ps->b); }

int ps_flows(path_select *ps, ps_flow_info *out, int max)
{
    if (max <= 0)
        return 0;
    bsr_flow_info *fi = calloc((size_t)max, sizeof *fi);
    if (!fi)
        return 0;
    size_t n = bsr_flows(ps->b, fi, (size_t)max);
    for (size_t i = 0; i < n; i++) {
        ps_flow_info *o = &out[i];
        memset(o, 0, sizeof *o);
        o->key = (dcn_flow_key){.src_ip = fi[i].key.src_ip, .dst_ip = fi[i].key.dst_ip,
                                .src_port = fi[i].key.src_port, .dst_port = fi[i].key.dst_port,
                                .proto = fi[i].key.proto};
        o->dst_server = fi[i].dst_server;
        o->path = fi[i].path;
        o->path_index = fi[i].path_index;
        o->avail_known = fi[i].cur_avail_mbps != BSR_AVAIL_UNKNOWN;
        o->avail_mbps = o->avail_known ? fi[i].cur_avail_mbps : 0;
        o->rate_mbps = fi[i].own_rate_mbps;
        o->probes = fi[i].probes_sent;
        o->switches = fi[i].path_switches;
        o->age_ms = fi[i].age_ms;
    }
    free(fi);
    return (int)n;
}

int ps_failed_links(path_select *ps, ps_failed_link *out, int max)
{
    if (max <= 0)
        return 0;
    bsr_faildb_info e[BSR_FAILDB_MAX];
    size_t n = bsr_faildb_list(ps->b, e, (size_t)max < BSR_FAILDB_MAX ? (size_t)max : BSR_FAILDB_MAX);
    for (size_t i = 0; i < n; i++) {
        bool local = e[i].expires_in_ms == UINT64_MAX;
        out[i] = (ps_failed_link){.node_a = e[i].node_a, .node_b = e[i].node_b, .local = local,
                                  .expires_in_ms = local ? 0 : e[i].expires_in_ms};
    }
    return (int)n;
}

int ps_counters(path_select *ps, ps_counter *out, int max)
{
    bsr_counters c;
    bsr_get_counters(ps->b, &c);
    const ps_counter all[] = {
        {"flows", c.flows},
        {"flows_created", c.flows_created},
        {"flows_expired", c.flows_expired},
        {"flows_evicted", c.flows_evicted},
        {"probes_sent", c.probes_sent},
        {"probe_send_errors", c.probe_send_errors},
        {"probe_responses", c.probe_responses},
        {"probe_responses_stale", c.probe_responses_stale},
        {"probe_responses_wrong_path", c.probe_responses_wrong_path},
        {"probe_timeouts", c.probe_timeouts},
        {"path_switches", c.path_switches},
        {"moves_deferred", c.moves_deferred},
        {"apart_paths_added", c.apart_paths_added},
        {"failures_heard", c.failures_heard},
        {"failures_ignored", c.failures_ignored},
        {"faildb_entries", c.faildb_entries},
        {"faildb_expired", c.faildb_expired},
        {"faildb_cleared_by_probe", c.faildb_cleared_by_probe},
        {"faildb_cleared_by_data", c.faildb_cleared_by_data},
        {"unreachable", c.unreachable},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}
