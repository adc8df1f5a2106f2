/* How long BuildPathSet takes for BCube n=8 k=3 (4096 servers), from one
 * source to all 4095 destinations: at the address level, with the BCube
 * family's full-node expansion (what the agent calls per flow), with the
 * generic expansion for comparison, and one BFS (the paper's "under 1 ms").
 *
 * Each destination is timed as a batch of BATCH calls (CLOCK_MONOTONIC),
 * the sweep over all destinations is repeated SWEEPS times, and each
 * destination keeps its median; the report gives the median, p90 and
 * maximum of those per-destination times in ns per call.
 *
 * usage: bench_pathset [--out FILE | --no-save]
 * Prints the report and, from a Release build, saves it to
 * results/bench/pathset.txt (or FILE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "benchlib.h"
#include "topo/bcube_addr.h"
#include "topo/bfs.h"
#include "topo/family.h"
#include "topo/topo.h"

#define SWEEPS 15
#define BATCH 32
#define BFS_DESTS 256
#define BFS_SWEEPS 5
#define TARGET_NS 10000.0    /* the project's target: well under 10 us */
#define PAPER_BFS_NS 1.0e6   /* the paper: BFS under 1 ms on a 2.33 GHz CPU */

static volatile uint64_t sink; /* keeps the optimiser from dropping the work */

typedef struct bench_ctx {
    const dcn_topo *t;
    const dcn_algo *pathset;
    bc_dims d;
    uint32_t src;
    dcn_pathset *set;
    dcn_rng rng;
} bench_ctx;

typedef enum { V_ADDRESS, V_FULL, V_GENERIC, V_COUNT } variant;

static const char *const variant_label[V_COUNT] = {
    "address level (bc_build_pathset)",
    "full nodes (bcube \"pathset\" algorithm)",
    "address level + generic dcn_path_expand_servers",
};

/* One BuildPathSet from ctx->src to dst in the given variant. */
static int run_once(bench_ctx *c, variant v, uint32_t dst)
{
    uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
    switch (v) {
    case V_ADDRESS:
        bc_build_pathset(&c->d, c->src, dst, seqs, lens);
        sink += lens[0] + seqs[c->d.k][1];
        return 0;
    case V_FULL: {
        dcn_route_ctx rc = {NULL, &c->rng};
        int n = c->pathset->fn(c->t, c->src, dst, &rc, c->set);
        sink += (uint64_t)n + c->set->path[0].node[1];
        return n == (int)c->d.k + 1 ? 0 : -1;
    }
    case V_GENERIC:
        bc_build_pathset(&c->d, c->src, dst, seqs, lens);
        for (uint32_t i = 0; i <= c->d.k; i++) {
            dcn_path *p = &c->set->path[i];
            p->len = lens[i];
            memcpy(p->node, seqs[i], lens[i] * sizeof seqs[i][0]);
            if (dcn_path_expand_servers(p, c->t) < 0)
                return -1;
            sink += p->len;
        }
        return 0;
    default:
        return -1;
    }
}

/* Per-destination median time (ns per call) over SWEEPS sweeps, in out[]
 * indexed by destination (the source's own slot is skipped). Returns the
 * number of destinations, or 0 on a routing error. */
static size_t time_variant(bench_ctx *c, variant v, double *out, double *sweep_samples)
{
    uint32_t ns = c->t->n_servers;
    size_t nd = 0;
    for (uint32_t dst = 0; dst < ns; dst++) {
        if (dst == c->src)
            continue;
        if (run_once(c, v, dst) < 0) /* also warms caches */
            return 0;
        nd++;
    }
    for (int s = 0; s < SWEEPS; s++)
        for (uint32_t dst = 0; dst < ns; dst++) {
            if (dst == c->src)
                continue;
            double t0 = bench_now_ns();
            for (int r = 0; r < BATCH; r++)
                run_once(c, v, dst);
            sweep_samples[(size_t)s * ns + dst] = (bench_now_ns() - t0) / BATCH;
        }
    size_t i = 0;
    for (uint32_t dst = 0; dst < ns; dst++) {
        if (dst == c->src)
            continue;
        double per[SWEEPS];
        for (int s = 0; s < SWEEPS; s++)
            per[s] = sweep_samples[(size_t)s * ns + dst];
        out[i++] = bench_quantile(per, SWEEPS, 0.5);
    }
    return nd;
}

static int report(FILE *out, bench_ctx *c)
{
    uint32_t ns = c->t->n_servers;
    double *vals = malloc(ns * sizeof *vals), *samples = malloc((size_t)SWEEPS * ns * sizeof *samples);
    if (!vals || !samples) {
        free(vals);
        free(samples);
        return -1;
    }
    char cpu[128], date[64];
    bench_cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "bench_pathset: BuildPathSet, BCube n=8 k=3 (%u servers), source h0000 to all %u others\n", ns,
            ns - 1);
    fprintf(out, "machine: %s; build: %s%s; %s\n", cpu, DCN_BUILD_TYPE, DCN_SANITIZED ? " with ASan/UBSan" : "",
            date);
    fprintf(out, "method: each destination timed as %d back-to-back calls (CLOCK_MONOTONIC), %d sweeps over all\n"
                 "        destinations, per-destination median; quantiles over the %u destinations, ns per call\n\n",
            BATCH, SWEEPS, ns - 1);
    fprintf(out, "%-50s %9s %9s %9s\n", "variant", "median", "p90", "max");
    double median[V_COUNT];
    int rc = 0;
    for (int v = 0; v < V_COUNT; v++) {
        size_t nd = time_variant(c, (variant)v, vals, samples);
        if (nd == 0) {
            fprintf(out, "%-50s routing error\n", variant_label[v]);
            rc = -1;
            continue;
        }
        median[v] = bench_quantile(vals, nd, 0.5);
        double p90 = bench_quantile(vals, nd, 0.9), max = vals[nd - 1];
        fprintf(out, "%-50s %9.0f %9.0f %9.0f\n", variant_label[v], median[v], p90, max);
    }
    /* One BFS path per destination, on the whole graph (the paper's BSR
     * fallback), over BFS_DESTS destinations spread evenly. */
    size_t nb = 0;
    for (uint32_t i = 1; i <= BFS_DESTS; i++) {
        uint32_t dst = (uint32_t)((uint64_t)i * (ns - 1) / BFS_DESTS);
        double per[BFS_SWEEPS];
        for (int s = 0; s < BFS_SWEEPS; s++) {
            double t0 = bench_now_ns();
            if (dcn_bfs_path(c->t, c->src, dst, NULL, NULL, &c->set->path[0]) < 0)
                rc = -1;
            per[s] = bench_now_ns() - t0;
            sink += c->set->path[0].len;
        }
        vals[nb++] = bench_quantile(per, BFS_SWEEPS, 0.5);
    }
    double bfs_median = bench_quantile(vals, nb, 0.5), bfs_p90 = bench_quantile(vals, nb, 0.9);
    fprintf(out, "%-50s %9.0f %9.0f %9.0f\n", "one BFS path (dcn_bfs_path), 256 destinations", bfs_median, bfs_p90,
            vals[nb - 1]);
    if (rc == 0) {
        fprintf(out, "\ntarget \"well under 10 us\": address level %.1f%% of it, full nodes %.1f%% of it\n",
                100.0 * median[V_ADDRESS] / TARGET_NS, 100.0 * median[V_FULL] / TARGET_NS);
        fprintf(out, "paper \"BFS under 1 ms\" (2.33 GHz): our BFS %.0f us; full-node BuildPathSet is %.0fx faster"
                     " than one BFS\n",
                bfs_median / 1000.0, bfs_median / median[V_FULL]);
        fprintf(out, "bcube expansion vs generic expansion: %.1fx faster\n", median[V_GENERIC] / median[V_FULL]);
    }
    free(vals);
    free(samples);
    return rc;
}

int main(int argc, char **argv)
{
    bench_output out = {.prog = "bench_pathset", .file = "pathset.txt"};
    if (bench_output_args(&out, argc, argv, strcmp(DCN_BUILD_TYPE, "Release") == 0 && !DCN_SANITIZED) != 0)
        return 2;
    char err[256];
    char *words[] = {"n=8", "k=3"};
    dcn_topo t;
    if (dcn_topo_build(&t, "bcube", 2, words, err, sizeof err) < 0) {
        fprintf(stderr, "bench_pathset: %s\n", err);
        return 1;
    }
    bench_ctx c = {.t = &t, .pathset = dcn_family_algo(t.family, "pathset"), .src = 0};
    bc_dims_init(&c.d, 8, 3);
    dcn_rng_seed(&c.rng, 1);
    c.set = calloc(1, sizeof *c.set);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!c.pathset || !c.set || !mem) {
        fprintf(stderr, "bench_pathset: setup failed\n");
        return 1;
    }
    int rc = report(mem, &c);
    fclose(mem);
    rc = bench_output_done(&out, DCN_RESULTS_DIR, rc, text);
    free(c.set);
    dcn_topo_free(&t);
    return rc;
}
