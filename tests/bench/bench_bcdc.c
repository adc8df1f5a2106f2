/* BCDC fidelity and speed (notes: /work/shared/notes/bcdc.md):
 *   1. Table 1 for n = 3..10: BRouting's mean and stdev of hop count over all
 *      ordered pairs, against all-pairs BFS and the paper, and ABT = 2N/L.
 *   2. BFRouting under random server faults, 1 <= |F| <= 2n-3, n = 4..10: how
 *      often the recursion itself finds the path, its excess over the BFS
 *      distance in B_n - F, and the corrected Thm 8 bound.
 *   3. Fig. 7-style path failure under random server or switch failures in
 *      B_8 and B_9 (20 runs x 1000 live pairs per ratio): the share of pairs
 *      whose fault-oblivious BRouting path crosses a failure, and the share
 *      that no path connects at all (BFRouting finds a path for every other).
 *   4. Time per call (ns) of brouting, bfrouting (|F| = 2n-3) and pathset.
 *
 * usage: bench_bcdc [--out FILE | --no-save]
 * Prints the report and, from a Release build, saves it to
 * results/bench/bcdc.txt (or FILE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchlib.h"
#include "topo/bfs.h"
#include "topo/families/bcdc_route.h"
#include "topo/family.h"
#include "topo/rng.h"
#include "topo/topo.h"

static volatile uint64_t sink;

static double median(double *v, size_t n) { return bench_quantile(v, n, 0.5); }

static void build(dcn_topo *t, unsigned n)
{
    char arg[16], err[256];
    snprintf(arg, sizeof arg, "n=%u", n);
    char *argv[] = {arg};
    if (dcn_topo_build(t, "bcdc", 1, argv, err, sizeof err) < 0) {
        fprintf(stderr, "bench_bcdc: %s\n", err);
        exit(1);
    }
}

/* Scratch state for BFRouting plus the matching dcn_failures. */
typedef struct faults {
    uint8_t *failed;
    uint32_t *list, *parent, *queue;
    bcdc_fault_ctx fc;
    dcn_failures f;
} faults;

static void faults_init(faults *x, const dcn_topo *t)
{
    uint32_t ns = t->n_servers;
    x->failed = calloc(ns, 1);
    x->list = calloc(ns, sizeof *x->list);
    x->parent = malloc(ns * sizeof *x->parent);
    x->queue = malloc(ns * sizeof *x->queue);
    if (!x->failed || !x->list || !x->parent || !x->queue || dcn_failures_init(&x->f, t) < 0) {
        fprintf(stderr, "bench_bcdc: out of memory\n");
        exit(1);
    }
    for (uint32_t i = 0; i < ns; i++)
        x->parent[i] = UINT32_MAX;
    x->fc = (bcdc_fault_ctx){t->priv, x->failed, x->list, 0, x->parent, x->queue};
}

static void faults_free(faults *x)
{
    free(x->failed);
    free(x->list);
    free(x->parent);
    free(x->queue);
    dcn_failures_free(&x->f);
}

/* Fails `count` distinct random nodes among [first, first+range). */
static void faults_draw(faults *x, const dcn_topo *t, dcn_rng *rng, uint32_t first, uint32_t range, uint32_t count)
{
    for (uint32_t i = 0; i < x->fc.n_faults; i++)
        x->failed[x->list[i]] = 0;
    x->fc.n_faults = 0;
    dcn_failures_clear(&x->f, t);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v;
        do
            v = first + dcn_rng_below(rng, range);
        while (x->f.node_down[v]);
        dcn_fail_node(&x->f, v);
        if (v < t->n_servers) {
            x->failed[v] = 1;
            x->list[x->fc.n_faults++] = v;
        }
    }
}

static void live_pair(const faults *x, const dcn_topo *t, dcn_rng *rng, uint32_t *u, uint32_t *v)
{
    do {
        *u = dcn_rng_below(rng, t->n_servers);
        *v = dcn_rng_below(rng, t->n_servers);
    } while (*u == *v || x->f.node_down[*u] || x->f.node_down[*v]);
}

static void table1(FILE *o)
{
    static const double paper[][2] = {{1.67, 0.54}, {2.11, 0.72}, {2.49, 0.77}, {2.90, 0.86},
                                      {3.26, 0.88}, {3.66, 0.96}, {4.00, 0.97}, {4.40, 1.05}};
    fprintf(o, "1. Table 1: BRouting hop count over all ordered pairs (population stdev)\n");
    fprintf(o, "%3s %6s %12s %8s %8s %12s %12s %10s %9s\n", "n", "N", "pairs", "mean", "stdev", "paper mean",
            "paper stdev", "!= BFS", "ABT=2N/L");
    for (unsigned n = 3; n <= 10; n++) {
        dcn_topo t;
        build(&t, n);
        const bcdc_state *st = t.priv;
        bcdc_region all = {n, 0, false};
        uint32_t ns = t.n_servers, *hops = malloc(ns * sizeof *hops);
        uint64_t sum = 0, sq = 0, pairs = 0, differ = 0;
        dcn_path p;
        for (uint32_t u = 0; u < ns; u++) {
            dcn_bfs_server_distances(&t, u, NULL, NULL, hops);
            for (uint32_t v = 0; v < ns; v++) {
                if (u == v)
                    continue;
                bcdc_brouting(st, all, u, v, &p);
                uint64_t len = p.len - 1;
                differ += len != hops[v];
                sum += len;
                sq += len * len;
                pairs++;
            }
        }
        double mean = (double)sum / (double)pairs, sd = sqrt((double)sq / (double)pairs - mean * mean);
        fprintf(o, "%3u %6u %12llu %8.4f %8.4f %12.2f %12.2f %10llu %9.2f\n", n, ns, (unsigned long long)pairs, mean,
                sd, paper[n - 3][0], paper[n - 3][1], (unsigned long long)differ, 2.0 * ns / mean);
        free(hops);
        dcn_topo_free(&t);
    }
    fprintf(o, "\n");
}

static void bfrouting_quality(FILE *o)
{
    fprintf(o, "2. BFRouting, random server faults 1 <= |F| <= 2n-3, random live pairs\n");
    fprintf(o, "   excess = hops - BFS distance in B_n - F; bound = 6m + ceil((n-m+1)/2) + 1, m = floor(log2|F|)+1\n");
    fprintf(o, "%3s %7s %11s %9s %11s %11s %10s %13s\n", "n", "cases", "recursion", "fallback", "mean excess",
            "max excess", "max hops", "over bound");
    dcn_rng rng;
    dcn_rng_seed(&rng, 42);
    for (unsigned n = 4; n <= 10; n++) {
        dcn_topo t;
        build(&t, n);
        faults x;
        faults_init(&x, &t);
        uint32_t *hops = malloc(t.n_servers * sizeof *hops), cases = n <= 8 ? 5000 : 1000;
        uint32_t by_rec = 0, fallback = 0, max_excess = 0, max_hops = 0, over = 0;
        uint64_t excess = 0;
        dcn_path sp, full;
        for (uint32_t c = 0; c < cases; c++) {
            uint32_t nf = 1 + dcn_rng_below(&rng, 2 * n - 3), u, v;
            faults_draw(&x, &t, &rng, 0, t.n_servers, nf);
            live_pair(&x, &t, &rng, &u, &v);
            bcdc_fr_status s = bcdc_bfrouting(&x.fc, u, v, &sp);
            by_rec += s == BCDC_FR_ALGORITHM;
            fallback += s == BCDC_FR_FALLBACK;
            if (s == BCDC_FR_NONE || bcdc_expand(t.priv, &sp, &full) < 0 || !dcn_path_valid(&full, &t, &x.f, NULL)) {
                fprintf(stderr, "bench_bcdc: BFRouting gave no valid path (n=%u, %u->%u)\n", n, u, v);
                exit(1);
            }
            dcn_bfs_server_distances(&t, u, &x.f, NULL, hops);
            uint32_t h = dcn_path_server_hops(&full, &t), e = h - hops[v];
            excess += e;
            max_excess = e > max_excess ? e : max_excess;
            max_hops = h > max_hops ? h : max_hops;
            uint32_t m = 1;
            while ((2u << (m - 1)) <= nf)
                m++; /* m = floor(log2 nf) + 1 */
            int bound = 6 * (int)m + ((int)n - (int)m + 2) / 2 + 1;
            over += (int)h > bound;
        }
        fprintf(o, "%3u %7u %10.2f%% %9u %11.3f %11u %10u %13u\n", n, cases, 100.0 * by_rec / cases, fallback,
                (double)excess / cases, max_excess, max_hops, over);
        free(hops);
        faults_free(&x);
        dcn_topo_free(&t);
    }
    fprintf(o, "\n");
}

static void failure_ratio(FILE *o)
{
    static const unsigned pct[] = {0, 1, 2, 5, 10, 15, 20};
    fprintf(o, "3. Path failure under random failures (20 runs x 1000 random live pairs per point)\n");
    fprintf(o, "   hit = BRouting's fault-oblivious path crosses a failure; cut = no path exists at all;\n");
    fprintf(o, "   BFRouting (server faults) / BFS baseline (switch faults) found a path for every pair not cut\n");
    fprintf(o, "%3s %8s %6s %10s %10s\n", "n", "failed", "pct", "hit", "cut");
    dcn_rng rng;
    dcn_rng_seed(&rng, 7);
    for (unsigned n = 8; n <= 9; n++) {
        dcn_topo t;
        build(&t, n);
        faults x;
        faults_init(&x, &t);
        const dcn_algo *br = dcn_family_algo(t.family, "brouting"), *bf = dcn_family_algo(t.family, "bfrouting");
        dcn_pathset *s = malloc(sizeof *s);
        uint32_t *hops = malloc(t.n_servers * sizeof *hops);
        for (int kind = 0; kind < 2; kind++)
            for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
                uint32_t range = kind == 0 ? t.n_servers : t.n_switches, first = kind == 0 ? 0 : t.n_servers;
                uint64_t hit = 0, cut = 0, total = 0;
                for (int run = 0; run < 20; run++) {
                    faults_draw(&x, &t, &rng, first, range, range * pct[i] / 100);
                    dcn_route_ctx ctx = {&x.f, &rng};
                    for (int q = 0; q < 1000; q++) {
                        uint32_t u, v;
                        live_pair(&x, &t, &rng, &u, &v);
                        hit += br->fn(&t, u, v, &ctx, s) == 0;
                        int found = bf->fn(&t, u, v, &ctx, s);
                        if (found == 1 && !dcn_path_valid(&s->path[0], &t, &x.f, NULL))
                            found = -1;
                        if (found != 1) {
                            dcn_bfs_server_distances(&t, u, &x.f, NULL, hops);
                            if (hops[v] != UINT32_MAX) {
                                fprintf(stderr, "bench_bcdc: bfrouting missed a connected pair\n");
                                exit(1);
                            }
                            cut++;
                        }
                        total++;
                    }
                }
                fprintf(o, "%3u %8s %5u%% %9.2f%% %9.2f%%\n", n, kind == 0 ? "servers" : "switches", pct[i],
                        100.0 * hit / total, 100.0 * cut / total);
            }
        free(s);
        free(hops);
        faults_free(&x);
        dcn_topo_free(&t);
    }
    fprintf(o, "\n");
}

static void timing(FILE *o)
{
    fprintf(o, "4. Time per call, ns (median over destinations; each timed as a batch of 16 calls)\n");
    fprintf(o, "%3s %14s %22s %22s %14s\n", "n", "brouting", "bfrouting |F|=2n-3", "pathset (2n-2)", "one BFS path");
    dcn_rng rng;
    dcn_rng_seed(&rng, 3);
    enum { DESTS = 200, BATCH = 16 };
    for (unsigned n = 6; n <= 10; n += 2) {
        dcn_topo t;
        build(&t, n);
        faults x;
        faults_init(&x, &t);
        faults_draw(&x, &t, &rng, 0, t.n_servers, 2 * n - 3);
        dcn_pathset *s = malloc(sizeof *s);
        dcn_route_ctx ctx = {&x.f, &rng}, clean = {NULL, &rng};
        const dcn_algo *algo[3] = {dcn_family_algo(t.family, "brouting"), dcn_family_algo(t.family, "bfrouting"),
                                   dcn_family_algo(t.family, NULL)};
        const dcn_route_ctx *which[3] = {&clean, &ctx, &clean};
        double med[4], v[DESTS];
        for (int a = 0; a < 4; a++) {
            dcn_rng pr;
            dcn_rng_seed(&pr, 11);
            for (int d = 0; d < DESTS; d++) {
                uint32_t src, dst;
                live_pair(&x, &t, &pr, &src, &dst);
                int batch = a == 2 ? 1 : BATCH;
                double t0 = bench_now_ns();
                for (int b = 0; b < batch; b++) {
                    if (a < 3) {
                        sink += (uint64_t)algo[a]->fn(&t, src, dst, which[a], s);
                    } else {
                        dcn_path p;
                        sink += (uint64_t)dcn_bfs_path(&t, src, dst, NULL, NULL, &p);
                    }
                }
                v[d] = (bench_now_ns() - t0) / batch;
            }
            med[a] = median(v, DESTS);
        }
        fprintf(o, "%3u %14.0f %22.0f %22.0f %14.0f\n", n, med[0], med[1], med[2], med[3]);
        free(s);
        faults_free(&x);
        dcn_topo_free(&t);
    }
    fprintf(o, "\n");
}

int main(int argc, char **argv)
{
    const char *out = DCN_RESULTS_DIR "/bcdc.txt";
    int save = !DCN_SANITIZED && strcmp(DCN_BUILD_TYPE, "Release") == 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-save") == 0) {
            save = 0;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_bcdc [--out FILE | --no-save]\n");
            return 2;
        }
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o)
        return 1;
    time_t now = time(NULL);
    char stamp[64];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(o, "bench_bcdc: BCDC routing fidelity and speed; build: %s; %s\n\n", DCN_BUILD_TYPE, stamp);
    table1(o);
    bfrouting_quality(o);
    failure_ratio(o);
    timing(o);
    fclose(o);
    fputs(buf, stdout);
    if (save) {
        FILE *f = fopen(out, "w");
        if (!f) {
            perror(out);
            free(buf);
            return 1;
        }
        fputs(buf, f);
        fclose(f);
        fprintf(stderr, "saved %s\n", out);
    }
    free(buf);
    return 0;
}
