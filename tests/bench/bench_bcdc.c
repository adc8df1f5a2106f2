/* BCDC fidelity and speed (notes: /work/shared/notes/bcdc.md):
 *   1. BFRouting under random server faults, 1 <= |F| <= 2n-3, n = 4..10: how
 *      often the recursion itself finds the path, its excess over the BFS
 *      distance in B_n - F, and the corrected Thm 8 bound.
 *   2. Fig. 7-style path failure under random server or switch failures in
 *      B_8 and B_9 (20 runs x 1000 live pairs per ratio): the share of pairs
 *      whose fault-oblivious BRouting path crosses a failure, and the share
 *      that no path connects at all (BFRouting finds a path for every other).
 *   3. Time per call (ns) of brouting, bfrouting (|F| = 2n-3) and pathset.
 * Table 1 (mean and stdev of path lengths) is reproduced by dcn-sim:
 * experiments/sim/fig_bcdc_table1.py, results/sim-bcdc-table1/.
 *
 * usage: bench_bcdc [--out DIR | --no-save]
 * Prints the report and, from a Release build without sanitizers, saves it
 * as results/sim-bcdc-bench/bench.txt with summary.json beside it (or in DIR). */
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

/* The figures summary.json reports, filled by the sections. */
static struct {
    uint64_t cases, by_rec, fallback, over;
    uint32_t max_excess;
    double hit[2][2][2], cut[2][2][2]; /* [n - 8][servers, switches][10 %, 20 %] */
    double ns_n10[3];                  /* brouting, bfrouting, pathset at n = 10 */
} summ;

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

static void bfrouting_quality(FILE *o)
{
    fprintf(o, "1. BFRouting, random server faults 1 <= |F| <= 2n-3, random live pairs\n");
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
        summ.cases += cases;
        summ.by_rec += by_rec;
        summ.fallback += fallback;
        summ.over += over;
        summ.max_excess = max_excess > summ.max_excess ? max_excess : summ.max_excess;
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
    fprintf(o, "2. Path failure under random failures (20 runs x 1000 random live pairs per point)\n");
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
                if (pct[i] == 10 || pct[i] == 20) {
                    summ.hit[n - 8][kind][pct[i] == 20] = (double)hit / (double)total;
                    summ.cut[n - 8][kind][pct[i] == 20] = (double)cut / (double)total;
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
    fprintf(o, "3. Time per call, ns (median over destinations; each timed as a batch of 16 calls)\n");
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
        if (n == 10)
            memcpy(summ.ns_n10, med, sizeof summ.ns_n10);
        fprintf(o, "%3u %14.0f %22.0f %22.0f %14.0f\n", n, med[0], med[1], med[2], med[3]);
        free(s);
        faults_free(&x);
        dcn_topo_free(&t);
    }
    fprintf(o, "\n");
}

/* results/sim-bcdc-bench/summary.json: the layout of the simulated figures
 * (experiment, measured, paper); the paper's figures only under "paper". */
static void write_summary(FILE *f, const char *stamp)
{
    static const char *kinds[2] = {"server", "switch"};
    fprintf(f, "{\n  \"experiment\": \"sim-bcdc-bench\",\n");
    char commit[64];
    fprintf(f, "  \"git_commit\": \"%s\",\n", bench_git_commit(commit, sizeof commit));
    fprintf(f, "  \"tool\": \"bench_bcdc (tests/bench/bench_bcdc.c), dcntopo library, %s build\",\n", DCN_BUILD_TYPE);
    fprintf(f, "  \"date\": \"%s\",\n", stamp);
    fprintf(f, "  \"headline\": {\n    \"measured\": \"BFRouting: %llu cases, %.2f %% by its recursion, %llu over the "
               "corrected Thm 8 bound; B_8 oblivious BRouting fails %.1f %% / %.1f %% at 10 / 20 %% server failures\",\n",
            (unsigned long long)summ.cases, 100.0 * (double)summ.by_rec / (double)summ.cases,
            (unsigned long long)summ.over, 100 * summ.hit[0][0][0], 100 * summ.hit[0][0][1]);
    fprintf(f, "    \"paper\": \"path failure 9.7 %% at 10 %% server failures (B_8), < 18.2 %% / < 29.6 %% at 20 %% "
               "server / switch failures\"\n  },\n");
    fprintf(f, "  \"measured\": {\n");
    fprintf(f, "    \"bfrouting_cases\": %llu,\n", (unsigned long long)summ.cases);
    fprintf(f, "    \"bfrouting_by_recursion_share\": %.4f,\n", (double)summ.by_rec / (double)summ.cases);
    fprintf(f, "    \"bfrouting_bfs_fallbacks\": %llu,\n", (unsigned long long)summ.fallback);
    fprintf(f, "    \"bfrouting_over_corrected_theorem8_bound\": %llu,\n", (unsigned long long)summ.over);
    fprintf(f, "    \"bfrouting_max_excess_hops\": %u,\n", summ.max_excess);
    for (int n = 0; n < 2; n++)
        for (int k = 0; k < 2; k++)
            for (int r = 0; r < 2; r++)
                fprintf(f, "    \"B%d_%s_%dpct_brouting_oblivious_fails\": %.4f,\n    \"B%d_%s_%dpct_no_live_path\": %.4f,\n",
                        n + 8, kinds[k], 10 + 10 * r, summ.hit[n][k][r], n + 8, kinds[k], 10 + 10 * r,
                        summ.cut[n][k][r]);
    fprintf(f, "    \"ns_per_call_n10\": {\"brouting\": %.0f, \"bfrouting_2n_minus_3_faults\": %.0f, \"pathset\": %.0f}\n",
            summ.ns_n10[0], summ.ns_n10[1], summ.ns_n10[2]);
    fprintf(f, "  },\n  \"paper\": {\n");
    fprintf(f, "    \"path_failure_ratio_10pct_server_failures_B8\": 0.097,\n");
    fprintf(f, "    \"path_failure_ratio_20pct_server_failures_max\": 0.182,\n");
    fprintf(f, "    \"path_failure_ratio_20pct_switch_failures_max\": 0.296,\n");
    fprintf(f, "    \"theorem8_bound\": \"6m + ceil((n-m+1)/2) + 1 (m read as floor(log2|F|)+1, notes)\",\n");
    fprintf(f, "    \"bfrouting_cost\": \"O(ceil(log2|F|) n^3)\",\n");
    fprintf(f, "    \"source\": \"Wang et al., BCDC, JCST 33(2) 2018, Alg. 3-5, Theorem 8, Sec. 6 Fig. 7\"\n  }\n}\n");
}

static int save_to(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fputs(text, f);
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    fprintf(stderr, "saved %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = DCN_RESULTS_DIR "/../sim-bcdc-bench";
    int save = !DCN_SANITIZED && strcmp(DCN_BUILD_TYPE, "Release") == 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-save") == 0) {
            save = 0;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_bcdc [--out DIR | --no-save]\n");
            return 2;
        }
    }
    char *buf = NULL, *js = NULL;
    size_t len = 0, jlen = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o)
        return 1;
    time_t now = time(NULL);
    char stamp[64];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(o, "bench_bcdc: BCDC routing fidelity and speed; build: %s; %s\n\n", DCN_BUILD_TYPE, stamp);
    bfrouting_quality(o);
    failure_ratio(o);
    timing(o);
    fclose(o);
    fputs(buf, stdout);
    int rc = 0;
    if (save) {
        FILE *j = open_memstream(&js, &jlen);
        if (!j) {
            free(buf);
            return 1;
        }
        write_summary(j, stamp);
        fclose(j);
        if (bench_mkdir_p(dir) < 0) {
            perror(dir);
            rc = 1;
        } else if (save_to(dir, "bench.txt", buf) < 0 || save_to(dir, "summary.json", js) < 0) {
            rc = 1;
        }
    }
    free(buf);
    free(js);
    return rc;
}
