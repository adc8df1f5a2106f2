/* HCN / BCN / FiConn fidelity and speed (notes: /work/shared/notes/hcn-bcn.md):
 *   1. E1/E2: BCN(alpha, n-alpha, 1, 1) server counts, the best alpha for
 *      n = 32, 48, 56 (paper: 155,904 at 21; 787,968 at 32; > 1,000,000).
 *   2. E6: n = 8..16, best alpha: N_BCN, N_FiConn, their ratio, and over all
 *      ordered pairs the mean BCN shortest path, BCN routing path (Fdim/Bdim)
 *      and FiConn shortest path (server hops).
 *   3. E8/E9: BCN(6,10,1,1) under both slave rules and FiConn(16,2): share of
 *      shortest paths and of routing paths (BdimRouting, TOR) of length 7.
 *   4. E7-style: reroute on BCN(6,10,1,1) under random server failures: mean
 *      hops of reroute against BFS, share handled by the paper's rules.
 *   5. Time per call (ns): FdimRouting, Lemma 1 path set, BdimRouting, the BCN
 *      path set across copies, reroute without failures, TOR.
 *
 * Sections 1-3 are also reproduced, by other code (dcn-sim's engine and the
 * built networks), in results/sim-hcn-bcn-table2, -fig9 and -fig10.
 *
 * usage: bench_hcn_bcn [--out DIR | --no-save]
 * Prints the report and, from a Release build without sanitizers, saves it
 * as results/sim-hcn-bcn-bench/bench.txt with summary.json beside it (or in DIR). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchlib.h"
#include "topo/bfs.h"
#include "topo/families/hcn_route.h"
#include "topo/family.h"
#include "topo/rng.h"
#include "topo/topo.h"

static FILE *save;

/* The figures summary.json reports, filled by the sections. */
static struct {
    uint32_t alpha32, alpha48, alpha56;
    uint64_t bcn32, bcn48, bcn56, ficonn48;
    double ratio_min, ratio_max;
    double share7[3]; /* shortest paths of length 7: BCN Eq. 3, BCN Eq. 4, FiConn(16,2) */
    double rr20, bfs20, rules20, reach20;
} summ;

static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (save) {
        va_start(ap, fmt);
        vfprintf(save, fmt, ap);
        va_end(ap);
    }
    fflush(stdout);
}

static void build(dcn_topo *t, const char *spec)
{
    char buf[128], err[256], *argv[8];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    char *save_ptr = NULL, *fam = strtok_r(buf, " ", &save_ptr);
    for (char *w = strtok_r(NULL, " ", &save_ptr); w && argc < 8; w = strtok_r(NULL, " ", &save_ptr))
        argv[argc++] = w;
    if (dcn_topo_build(t, fam, argc, argv, err, sizeof err) < 0) {
        fprintf(stderr, "bench_hcn_bcn: %s\n", err);
        exit(1);
    }
}

static uint64_t bcn_servers(uint64_t a, uint64_t n) { return a * n * (a * (n - a) + 1); }

static uint32_t best_alpha(uint32_t n)
{
    uint32_t best = 1;
    for (uint32_t a = 1; a < n; a++)
        if (bcn_servers(a, n) > bcn_servers(best, n))
            best = a;
    return best;
}

static uint64_t ficonn2_servers(uint64_t n)
{
    uint64_t n1 = n * (n / 2 + 1);
    return n1 * (n1 / 4 + 1);
}

/* Mean shortest path (server hops) over all ordered pairs, the share of
 * length 7 and the diameter. */
static uint32_t shortest_stats(const dcn_topo *t, double *mean, double *share7)
{
    uint32_t diam = 0;
    uint32_t *hops = malloc(t->n_servers * sizeof *hops);
    double sum = 0, n7 = 0, pairs = (double)t->n_servers * (t->n_servers - 1);
    for (uint32_t a = 0; a < t->n_servers; a++) {
        dcn_bfs_server_distances(t, a, NULL, NULL, hops);
        for (uint32_t b = 0; b < t->n_servers; b++) {
            sum += hops[b];
            n7 += hops[b] == 7;
            diam = hops[b] > diam ? hops[b] : diam;
        }
    }
    free(hops);
    *mean = sum / pairs;
    *share7 = n7 / pairs;
    return diam;
}

/* Mean routing path over all ordered pairs, and the share of length 7. */
static void route_stats(const dcn_topo *t, const char *algo, double *mean, double *share7)
{
    const dcn_algo *a = dcn_family_algo(t->family, algo);
    dcn_pathset *s = malloc(sizeof *s);
    dcn_rng rng;
    dcn_rng_seed(&rng, 1);
    dcn_route_ctx ctx = {NULL, &rng};
    double sum = 0, n7 = 0, pairs = 0;
    for (uint32_t x = 0; x < t->n_servers; x++)
        for (uint32_t y = 0; y < t->n_servers; y++) {
            if (x == y)
                continue;
            if (a->fn(t, x, y, &ctx, s) != 1) {
                fprintf(stderr, "bench_hcn_bcn: %s failed\n", algo);
                exit(1);
            }
            uint32_t h = dcn_path_server_hops(&s->path[0], t);
            sum += h;
            n7 += h == 7;
            pairs++;
        }
    free(s);
    *mean = sum / pairs;
    *share7 = n7 / pairs;
}

static void section_counts(void)
{
    out("1. E1/E2: BCN(alpha, n-alpha, 1, 1) servers = alpha*n*(alpha*(n-alpha)+1), best alpha\n");
    out("  n  best alpha       servers   2n/3   FiConn(n,2)\n");
    const uint32_t ns[] = {8, 10, 12, 14, 16, 32, 48, 56};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint32_t n = ns[i], a = best_alpha(n);
        if (n == 32 || n == 48 || n == 56) {
            *(n == 32 ? &summ.alpha32 : n == 48 ? &summ.alpha48 : &summ.alpha56) = a;
            *(n == 32 ? &summ.bcn32 : n == 48 ? &summ.bcn48 : &summ.bcn56) = bcn_servers(a, n);
            if (n == 48)
                summ.ficonn48 = ficonn2_servers(n);
        }
        out(" %2u  %10u  %12llu  %5.1f  %12llu\n", n, a, (unsigned long long)bcn_servers(a, n), 2.0 * n / 3,
            (unsigned long long)ficonn2_servers(n));
    }
    out("  paper: 155,904 at alpha=21 (n=32); 787,968 at alpha=32 (n=48) vs FiConn 361,200; > 1,000,000 (n=56)\n\n");
}

static void section_e6(void)
{
    out("2. E6: best alpha, h = gamma = 1, rule 3; means over all ordered pairs (server hops)\n");
    out("  n alpha  N_BCN N_FiConn  ratio  BCN shortest  BCN routing  FiConn shortest  FiConn TOR\n");
    for (uint32_t n = 8; n <= 16; n += 2) {
        uint32_t a = best_alpha(n);
        char spec[96];
        dcn_topo b, f;
        snprintf(spec, sizeof spec, "bcn alpha=%u beta=%u h=1 gamma=1", a, n - a);
        build(&b, spec);
        snprintf(spec, sizeof spec, "ficonn n=%u k=2", n);
        build(&f, spec);
        double bs, br, fs, fr, x;
        shortest_stats(&b, &bs, &x);
        route_stats(&b, "route", &br, &x);
        shortest_stats(&f, &fs, &x);
        route_stats(&f, "route", &fr, &x);
        double ratio = (double)b.n_servers / f.n_servers;
        summ.ratio_min = n == 8 || ratio < summ.ratio_min ? ratio : summ.ratio_min;
        summ.ratio_max = ratio > summ.ratio_max ? ratio : summ.ratio_max;
        out(" %2u %5u %6u %8u %6.4f  %12.3f %12.3f %16.3f %11.3f\n", n, a, b.n_servers, f.n_servers,
            (double)b.n_servers / f.n_servers, bs, br, fs, fr);
        dcn_topo_free(&b);
        dcn_topo_free(&f);
    }
    out("  paper: ratio 1.4545 .. 1.849; routing a little longer than BCN shortest, a little longer than FiConn shortest\n\n");
}

static void section_e9(void)
{
    out("3. E8/E9: shares of length 7 (server hops), all ordered pairs\n");
    out("  network                     N   diam  mean shortest  share 7 (shortest)  mean route  share 7 (route)\n");
    const char *specs[] = {"bcn alpha=6 beta=10 h=1 gamma=1 rule=3", "bcn alpha=6 beta=10 h=1 gamma=1 rule=4",
                           "ficonn n=16 k=2"};
    const char *labels[] = {"BCN(6,10,1,1) Eq.3", "BCN(6,10,1,1) Eq.4", "FiConn(16,2)"};
    for (int i = 0; i < 3; i++) {
        dcn_topo t;
        build(&t, specs[i]);
        double sm, s7, rm, r7;
        uint32_t diam = shortest_stats(&t, &sm, &s7);
        route_stats(&t, "route", &rm, &r7);
        summ.share7[i] = s7;
        out("  %-20s %8u   %4u  %13.3f  %17.1f%%  %10.3f  %14.1f%%\n", labels[i], t.n_servers, diam, sm, 100 * s7, rm,
            100 * r7);
        dcn_topo_free(&t);
    }
    out("  paper (E9): about 60%% of FiConn's shortest paths have length 7, about 40%% of BCN's\n\n");
}

static void section_reroute(void)
{
    out("4. Reroute on BCN(6,10,1,1) (rule 3) under random server failures (10 runs x 500 live pairs per ratio)\n");
    out("   rules = the paper's local/remote reroute produced the path; fallback = BFS from the failure point\n");
    out("  failed   reachable   mean reroute   mean BFS   excess   rules   fallback\n");
    dcn_topo t;
    build(&t, "bcn alpha=6 beta=10 h=1 gamma=1");
    dcn_failures f;
    if (dcn_failures_init(&f, &t) < 0)
        exit(1);
    dcn_rng rng;
    dcn_rng_seed(&rng, 2013);
    uint32_t *hops = malloc(t.n_servers * sizeof *hops);
    const double ratios[] = {0, 0.01, 0.02, 0.05, 0.10, 0.20};
    for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
        double sum_rr = 0, sum_bfs = 0, pairs = 0, reach = 0, rules = 0;
        for (int run = 0; run < 10; run++) {
            dcn_failures_clear(&f, &t);
            for (uint32_t k = 0; k < (uint32_t)(ratios[r] * t.n_servers); k++)
                dcn_fail_node(&f, dcn_rng_below(&rng, t.n_servers));
            for (int q = 0; q < 500;) {
                uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
                if (a == b || !dcn_node_ok(&f, a) || !dcn_node_ok(&f, b))
                    continue;
                q++;
                pairs++;
                dcn_bfs_server_distances(&t, a, &f, NULL, hops);
                dcn_path full, trace;
                int n = hcn_reroute(&t, a, b, &f, &full, &trace);
                if (hops[b] == UINT32_MAX || n != 1)
                    continue;
                reach++;
                sum_rr += dcn_path_server_hops(&full, &t);
                sum_bfs += hops[b];
                rules += trace.len > 0;
            }
        }
        if (ratios[r] == 0.20) {
            summ.rr20 = sum_rr / reach;
            summ.bfs20 = sum_bfs / reach;
            summ.rules20 = rules / reach;
            summ.reach20 = reach / pairs;
        }
        out("  %5.0f%%   %8.2f%%   %12.3f   %8.3f   %6.3f  %5.1f%%   %7.1f%%\n", 100 * ratios[r], 100 * reach / pairs,
            sum_rr / reach, sum_bfs / reach, (sum_rr - sum_bfs) / reach, 100 * rules / reach,
            100 * (reach - rules) / reach);
    }
    out("  (the paper's E7 compares with FiConn's own fault-tolerant routing, whose parameters are not stated;\n"
        "   FiConn has only TOR here)\n\n");
    free(hops);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}

static void time_algo(const char *spec, const char *algo, const char *label, int cross_copy_only)
{
    dcn_topo t;
    build(&t, spec);
    const dcn_algo *a = dcn_family_algo(t.family, algo);
    dcn_pathset *s = malloc(sizeof *s);
    dcn_rng rng, pick;
    dcn_rng_seed(&rng, 1);
    dcn_rng_seed(&pick, 5);
    dcn_route_ctx ctx = {NULL, &rng};
    enum { PAIRS = 2000 };
    uint32_t src[PAIRS], dst[PAIRS];
    uint32_t per_copy = t.n_servers;
    if (cross_copy_only) {
        const char *p = strstr(spec, "alpha=");
        uint32_t alpha = (uint32_t)atoi(p + 6), beta = (uint32_t)atoi(strstr(spec, "beta=") + 5);
        per_copy = alpha * (alpha + beta); /* h = 1 */
    }
    for (int i = 0; i < PAIRS;) {
        src[i] = dcn_rng_below(&pick, t.n_servers);
        dst[i] = dcn_rng_below(&pick, t.n_servers);
        if (src[i] == dst[i] || (cross_copy_only && src[i] / per_copy == dst[i] / per_copy))
            continue;
        i++;
    }
    double t0 = bench_cpu_ns();
    uint64_t paths = 0;
    for (int i = 0; i < PAIRS; i++)
        paths += (uint64_t)a->fn(&t, src[i], dst[i], &ctx, s);
    double per = (bench_cpu_ns() - t0) / PAIRS;
    out("  %-44s %-8s %10.0f ns  (%.2f paths/call)\n", label, algo, per, (double)paths / PAIRS);
    free(s);
    dcn_topo_free(&t);
}

static void section_timing(void)
{
    out("5. CPU time per call, 2000 random pairs (includes the pathset struct fill)\n");
    time_algo("hcn n=4 h=2", "fdim", "HCN(4,2)", 0);
    time_algo("hcn n=8 h=4", "fdim", "HCN(8,4) (32,768 servers)", 0);
    time_algo("hcn n=8 h=4", "pathset", "HCN(8,4) Lemma 1", 0);
    time_algo("hcn n=8 h=4", "reroute", "HCN(8,4) no failures", 0);
    time_algo("bcn alpha=6 beta=10 h=1 gamma=1", "route", "BCN(6,10,1,1)", 0);
    time_algo("bcn alpha=6 beta=10 h=1 gamma=1", "pathset", "BCN(6,10,1,1) across copies (max-flow)", 1);
    time_algo("bcn alpha=6 beta=10 h=1 gamma=1", "reroute", "BCN(6,10,1,1) no failures", 0);
    time_algo("ficonn n=16 k=2", "route", "FiConn(16,2) TOR", 0);
    out("\n");
}

/* results/sim-hcn-bcn-bench/summary.json: the layout of the simulated
 * figures (experiment, measured, paper); the paper's figures only under "paper". */
static int write_summary(const char *dir, const char *stamp)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fprintf(f, "{\n  \"experiment\": \"sim-hcn-bcn-bench\",\n");
    char commit[64];
    fprintf(f, "  \"git_commit\": \"%s\",\n", bench_git_commit(commit, sizeof commit));
    fprintf(f, "  \"tool\": \"bench_hcn_bcn (tests/bench/bench_hcn_bcn.c), dcntopo library, %s build\",\n",
            DCN_BUILD_TYPE);
    fprintf(f, "  \"date\": \"%s\",\n", stamp);
    fprintf(f, "  \"headline\": {\n    \"measured\": \"best BCN %llu (alpha %u, n=32), %llu (alpha %u, n=48), %llu "
               "(n=56); ratio %.4f..%.4f; length-7 shares %.1f %% BCN, %.1f %% FiConn; reroute at 20 %% %.3f hops\",\n",
            (unsigned long long)summ.bcn32, summ.alpha32, (unsigned long long)summ.bcn48, summ.alpha48,
            (unsigned long long)summ.bcn56, summ.ratio_min, summ.ratio_max, 100 * summ.share7[0],
            100 * summ.share7[2], summ.rr20);
    fprintf(f, "    \"paper\": \"155,904 (alpha 21), 787,968 (alpha 32), > 1,000,000 (n=56); ratio 1.4545..1.849; "
               "about 40 %% / 60 %%\"\n  },\n");
    fprintf(f, "  \"measured\": {\n");
    fprintf(f, "    \"bcn_best_order_n32\": %llu,\n    \"bcn_best_alpha_n32\": %u,\n", (unsigned long long)summ.bcn32,
            summ.alpha32);
    fprintf(f, "    \"bcn_best_order_n48\": %llu,\n    \"bcn_best_alpha_n48\": %u,\n", (unsigned long long)summ.bcn48,
            summ.alpha48);
    fprintf(f, "    \"bcn_best_order_n56\": %llu,\n    \"ficonn_order_n48\": %llu,\n", (unsigned long long)summ.bcn56,
            (unsigned long long)summ.ficonn48);
    fprintf(f, "    \"order_ratio_range_n8_16\": [%.4f, %.4f],\n", summ.ratio_min, summ.ratio_max);
    fprintf(f, "    \"share_of_shortest_paths_of_length_7\": {\"bcn_eq3\": %.4f, \"bcn_eq4\": %.4f, \"ficonn\": %.4f},\n",
            summ.share7[0], summ.share7[1], summ.share7[2]);
    fprintf(f, "    \"bcn_reroute_20pct_server_failures\": {\"reachable\": %.4f, \"mean_hops\": %.4f, "
               "\"mean_bfs_hops\": %.4f, \"by_paper_rules\": %.4f}\n",
            summ.reach20, summ.rr20, summ.bfs20, summ.rules20);
    fprintf(f, "  },\n  \"paper\": {\n");
    fprintf(f, "    \"bcn_best_order\": {\"32\": 155904, \"48\": 787968}, \"bcn_best_alpha\": {\"32\": 21, \"48\": 32},\n");
    fprintf(f, "    \"bcn_order_n56\": \"more than 1,000,000\", \"ficonn_order_n48\": 361200,\n");
    fprintf(f, "    \"order_ratio_range_n8_16\": [1.4545, 1.849],\n");
    fprintf(f, "    \"share_of_shortest_paths_of_length_7\": {\"bcn\": 0.4, \"ficonn\": 0.6},\n");
    fprintf(f, "    \"source\": \"Guo et al., IEEE TC 62(7) 2013, Sec. 5, Figs. 7-10 (text)\"\n  }\n}\n");
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    printf("saved %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = DCN_RESULTS_DIR "/../sim-hcn-bcn-bench";
    int no_save = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-save"))
            no_save = 1;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_hcn_bcn [--out DIR | --no-save]\n");
            return 2;
        }
    }
    int release = !strcmp(DCN_BUILD_TYPE, "Release") && !DCN_SANITIZED;
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.txt", dir);
    if (!no_save && release) {
        if (bench_mkdir_p(dir) < 0) {
            perror(dir);
            return 1;
        }
        save = fopen(path, "w");
        if (!save) {
            perror(path);
            return 1;
        }
    }
    time_t now = time(NULL);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    out("bench_hcn_bcn: HCN/BCN/FiConn fidelity and speed; build: %s%s; %s\n\n", DCN_BUILD_TYPE,
        DCN_SANITIZED ? " (sanitized)" : "", stamp);
    section_counts();
    section_e6();
    section_e9();
    section_reroute();
    section_timing();
    if (save) {
        if (fclose(save) != 0) {
            perror(path);
            return 1;
        }
        printf("saved %s\n", path);
        if (write_summary(dir, stamp) < 0)
            return 1;
    } else if (!release) {
        printf("not saved: only a Release build saves results\n");
    }
    return 0;
}
