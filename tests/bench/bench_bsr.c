/* What BSR (agent/src/agent/bsr/bsr.h) costs on the agent's CPU, on BCube n=8
 * k=3 (4096 servers, 4 paths per pair), source server 0, a table of 1024
 * flows to random destinations, probes sent into a no-op and answered
 * by the bench:
 *   - route lookup of a known flow (the per-packet cost), ns per packet;
 *   - a new flow (path set, default path, 4 probes), us per flow;
 *   - a tick with nothing due, and a tick where every flow starts a round;
 *   - a new failed link on the source's own level-0 cable (a quarter of the
 *     flows move at once, every flow's set is checked), ms.
 * Each figure is the median (and maximum) over REPEAT repetitions.
 *
 * usage: bench_bsr [--out FILE | --no-save]
 * Prints the report and, from a Release build, saves it to
 * results/bench/bsr.txt (or FILE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "benchlib.h"
#include "agent/bsr/bsr.h"
#include "topo/family.h"
#include "topo/rng.h"
#include "topo/topo.h"

#define FLOWS 1024
#define PACKETS 2000000
#define REPEAT 7

static volatile uint64_t sink;

typedef struct bench_io {
    uint64_t now;
    uint64_t probes;
    /* the last probe of each flow's round, answered by the bench */
    bsr_flow_key key[FLOWS * 8];
    uint32_t seq[FLOWS * 8];
    uint32_t n;
} bench_io;

static uint64_t io_now(void *ctx) { return ((bench_io *)ctx)->now; }

static int io_send(void *ctx, const bsr_flow_key *k, uint32_t seq, const dcn_path *p, uint32_t credit)
{
    (void)credit;
    bench_io *io = ctx;
    io->probes++;
    sink += p->len;
    if (io->n < FLOWS * 8) {
        io->key[io->n] = *k;
        io->seq[io->n++] = seq;
    }
    return 0;
}

static void answer_all(bsr *b, bench_io *io, dcn_rng *r)
{
    for (uint32_t i = 0; i < io->n; i++)
        bsr_on_probe_response(b, &io->key[i], io->seq[i], 100 + dcn_rng_below(r, 900), NULL);
    io->n = 0;
}

static void stats(double *v, int n, double *median, double *max)
{
    *median = bench_quantile(v, (size_t)n, 0.5);
    *max = v[n - 1];
}

static bsr_flow_key key_of(uint32_t dst, uint16_t sport)
{
    bsr_flow_key k = {.src_ip = 0x0a000001u, .dst_ip = 0x0a000001u + dst, .src_port = sport, .dst_port = 5001,
                      .proto = 6};
    return k;
}

static int report(FILE *out, const dcn_topo *t)
{
    bench_io io;
    memset(&io, 0, sizeof io);
    io.now = 1000;
    bsr_io bio = {.ctx = &io, .now_ms = io_now, .send_probe = io_send};
    bsr_config cfg;
    bsr_config_default(&cfg);
    cfg.max_flows = FLOWS;
    cfg.flow_idle_ms = UINT32_MAX; /* the bench's clock jumps by rounds; no flow may expire */
    bsr *b = bsr_create(t, 0, &cfg, &bio, 1);
    if (!b)
        return -1;
    dcn_rng r;
    dcn_rng_seed(&r, 42);
    uint32_t dst[FLOWS];
    bsr_flow_key keys[FLOWS];
    double v[REPEAT], med, max;

    /* New flows: fill the table, then keep creating (each one evicts). */
    for (int rep = 0; rep < REPEAT; rep++) {
        double t0 = bench_now_ns();
        for (uint32_t i = 0; i < FLOWS; i++) {
            dst[i] = 1 + dcn_rng_below(&r, t->n_servers - 1);
            keys[i] = key_of(dst[i], (uint16_t)(rep * FLOWS + i));
            if (!bsr_route(b, &keys[i], dst[i]))
                return -1;
        }
        v[rep] = (bench_now_ns() - t0) / FLOWS / 1000.0;
        if (rep + 1 < REPEAT)
            io.n = 0; /* those flows are evicted by the next repetition */
    }
    stats(v, REPEAT, &med, &max);
    fprintf(out, "new flow (path set, default path, %u probes): median %.1f us, max %.1f us per flow\n",
            (unsigned)(io.probes / ((uint64_t)FLOWS * REPEAT)), med, max);
    /* Answer the current flows' first round. */
    answer_all(b, &io, &r);

    /* Per packet: random known flows. */
    uint32_t *order = malloc(PACKETS * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < PACKETS; i++)
        order[i] = dcn_rng_below(&r, FLOWS);
    for (int rep = 0; rep < REPEAT; rep++) {
        double t0 = bench_now_ns();
        for (uint32_t i = 0; i < PACKETS; i++) {
            const dcn_path *p = bsr_route_bytes(b, &keys[order[i]], dst[order[i]], 1500);
            sink += p->len;
        }
        v[rep] = (bench_now_ns() - t0) / PACKETS;
    }
    stats(v, REPEAT, &med, &max);
    fprintf(out, "route lookup, known flow (%u flows in the table): median %.1f ns, max %.1f ns per packet\n",
            FLOWS, med, max);
    free(order);

    /* Ticks with nothing due. */
    for (int rep = 0; rep < REPEAT; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < 100; i++) {
            io.now += 1; /* rounds are >= 10 s away */
            bsr_tick(b);
        }
        v[rep] = (bench_now_ns() - t0) / 100 / 1000.0;
    }
    stats(v, REPEAT, &med, &max);
    fprintf(out, "tick, nothing due (%u flows): median %.1f us, max %.1f us\n", FLOWS, med, max);

    /* A tick where every flow starts its round. */
    for (int rep = 0; rep < REPEAT; rep++) {
        io.now += cfg.reselect_ms + cfg.jitter_ms + 1;
        double t0 = bench_now_ns();
        bsr_tick(b);
        v[rep] = (bench_now_ns() - t0) / 1e6;
        answer_all(b, &io, &r);
        io.now += 1;
        bsr_tick(b); /* rounds end */
    }
    stats(v, REPEAT, &med, &max);
    fprintf(out, "tick starting %u probe rounds (%u probes): median %.2f ms, max %.2f ms\n", FLOWS, FLOWS * 4, med,
            max);

    /* A new failed link on our level-0 cable, then its recovery. */
    uint32_t sw = t->peer[t->port_base[0]].node;
    for (int rep = 0; rep < REPEAT; rep++) {
        bsr_counters c0, c1;
        bsr_get_counters(b, &c0);
        double t0 = bench_now_ns();
        bsr_on_path_failure(b, 0, sw);
        v[rep] = (bench_now_ns() - t0) / 1e6;
        bsr_get_counters(b, &c1);
        if (rep == 0)
            fprintf(out, "failed link h0-<level-0 switch>: %llu of %u flows moved at once, %llu probes re-sent\n",
                    (unsigned long long)(c1.path_switches - c0.path_switches), FLOWS,
                    (unsigned long long)(c1.probes_sent - c0.probes_sent));
        answer_all(b, &io, &r);
        bsr_on_local_port(b, 0, 1); /* forget it */
        io.now += cfg.reselect_ms + cfg.jitter_ms + 1;
        bsr_tick(b);
        answer_all(b, &io, &r);
        io.now += 1;
        bsr_tick(b);
    }
    stats(v, REPEAT, &med, &max);
    fprintf(out, "failover on a new failed link (%u flows checked): median %.2f ms, max %.2f ms\n", FLOWS, med, max);
    bsr_destroy(b);
    return 0;
}

int main(int argc, char **argv)
{
    bench_output out = {.prog = "bench_bsr", .file = "bsr.txt"};
    if (bench_output_args(&out, argc, argv, strcmp(DCN_BUILD_TYPE, "Release") == 0 && !DCN_SANITIZED) != 0)
        return 2;
    char err[256];
    char *words[] = {"n=8", "k=3"};
    dcn_topo t;
    if (dcn_topo_build(&t, "bcube", 2, words, err, sizeof err) < 0) {
        fprintf(stderr, "bench_bsr: %s\n", err);
        return 1;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return 1;
    char cpu[256];
    fprintf(mem, "BSR on BCube n=8 k=3 (4096 servers), source h0, %u flows to random destinations\n", FLOWS);
    fprintf(mem, "machine: %s; build: %s%s\n", bench_cpu_model(cpu, sizeof cpu), DCN_BUILD_TYPE,
            DCN_SANITIZED ? " with ASan/UBSan" : "");
    int rc = report(mem, &t);
    fclose(mem);
    if (rc != 0)
        fprintf(stderr, "bench_bsr: setup failed\n");
    rc = bench_output_done(&out, DCN_RESULTS_DIR, rc, text);
    dcn_topo_free(&t);
    return rc;
}
