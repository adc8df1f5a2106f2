/* dcn-sim speed: the BCube paper's Fig. 8 point at 2048 servers (all-to-all,
 * 4,192,256 flows, no failure) for the three structures, target < 5 s for
 * BCube with BSR on this 2-core box; plus one failure point.
 *
 * usage: bench_sim [--out FILE | --no-save]
 * Prints the report and, from a Release build, saves it to
 * results/bench/sim.txt (or FILE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchlib.h"
#include "sim_engine.h"
#include "sim_failures.h"
#include "sim_routing.h"
#include "sim_topo.h"

#define REPEATS 3

typedef struct point {
    const char *label, *family, *words[4];
    int nwords;
    const char *routing;
    sim_fail_kind fail;
    double ratio;
    unsigned threads;
} point;

static const point points[] = {
    {"BCube n=8 k=3 parts=4, BSR (random path of the set)", "bcube", {"n=8", "k=3", "parts=4"}, 3, "bsr",
     SIM_FAIL_NONE, 0, 2},
    {"BCube, BSR, 1 thread", "bcube", {"n=8", "k=3", "parts=4"}, 3, "bsr", SIM_FAIL_NONE, 0, 1},
    {"BCube, BSR greedy least-loaded (1 thread by design)", "bcube", {"n=8", "k=3", "parts=4"}, 3, "bsr-greedy",
     SIM_FAIL_NONE, 0, 1},
    {"BCube, BCubeRouting (single shortest path)", "bcube", {"n=8", "k=3", "parts=4"}, 3, "route", SIM_FAIL_NONE, 0,
     2},
    {"BCube, BSR, 2% switch failures", "bcube", {"n=8", "k=3", "parts=4"}, 3, "bsr", SIM_FAIL_SWITCH, 0.02, 2},
    {"fat-tree n=8, 5 layers, ECMP", "mlfattree", {"n=8", "layers=5"}, 2, "ecmp", SIM_FAIL_NONE, 0, 2},
    {"DCell n=8 k=2 servers=2048, DFR", "dcell", {"n=8", "k=2", "servers=2048"}, 3, "dfr", SIM_FAIL_NONE, 0, 2},
};

static int run_point(FILE *o, const point *p)
{
    char err[256];
    dcn_topo t;
    if (sim_topo_build(&t, p->family, p->nwords, (char **)p->words, err, sizeof err) < 0) {
        fprintf(stderr, "bench_sim: %s\n", err);
        return -1;
    }
    sim_routing r;
    dcn_failures f;
    if (sim_routing_resolve(&r, &t, p->routing, err, sizeof err) < 0 || dcn_failures_init(&f, &t) < 0) {
        fprintf(stderr, "bench_sim: %s\n", err);
        dcn_topo_free(&t);
        return -1;
    }
    sim_failures_sample(&f, &t, p->fail, p->ratio, 1);
    sim_config cfg;
    sim_config_default(&cfg);
    cfg.threads = p->threads;
    double wall[REPEATS], abt = 0;
    uint64_t flows = 0;
    for (int i = 0; i < REPEATS; i++) {
        sim_result res;
        double t0 = bench_now_ns();
        if (sim_run(&t, &r, &f, &cfg, &res, err, sizeof err) < 0) {
            fprintf(stderr, "bench_sim: %s\n", err);
            return -1;
        }
        wall[i] = (bench_now_ns() - t0) / 1e9;
        abt = res.abt_gbps;
        flows = res.flows_pattern;
        sim_result_free(&res);
    }
    double med = bench_quantile(wall, REPEATS, 0.5);
    fprintf(o, "%-55s %7u %9llu %8.3f %8.3f %10.2f\n", p->label, p->threads, (unsigned long long)flows, med,
            bench_quantile(wall, REPEATS, 1.0), abt);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    bench_output out = {.prog = "bench_sim", .file = "sim.txt"};
    if (bench_output_args(&out, argc, argv, strcmp(DCN_BUILD_TYPE, "Release") == 0 && !DCN_SANITIZED) != 0)
        return 2;
    char *text = NULL, cpu[128];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return 1;
    fprintf(mem, "bench_sim: dcn-sim, the BCube Fig. 8 point (2048 servers, all-to-all); build: %s; CPU: %s\n",
            DCN_BUILD_TYPE, bench_cpu_model(cpu, sizeof cpu));
    double load[3] = {0, 0, 0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = load[1] = load[2] = 0;
        fclose(la);
    }
    fprintf(mem, "load average at start: %.2f %.2f %.2f (the box is shared; runs are niced)\n", load[0], load[1],
            load[2]);
    fprintf(mem, "wall-clock seconds per full run (median and max of %d), target < 5 s for BCube/BSR\n\n", REPEATS);
    fprintf(mem, "%-55s %7s %9s %8s %8s %10s\n", "point", "threads", "flows", "median", "max", "ABT Gb/s");
    int rc = 0;
    for (size_t i = 0; i < sizeof points / sizeof points[0] && rc == 0; i++)
        rc = run_point(mem, &points[i]);
    fclose(mem);
    return bench_output_done(&out, DCN_RESULTS_DIR, rc, text);
}
