/* Small helpers every benchmark uses: clocks, quantiles, the machine's CPU
 * name, and creating the results folder. */
#ifndef DCN_BENCHLIB_H
#define DCN_BENCHLIB_H

#include <stddef.h>

/* Wall-clock (CLOCK_MONOTONIC) and this process's CPU time, in ns. */
double bench_now_ns(void);
double bench_cpu_ns(void);
/* Quantile q (0..1) of v[0..n), n > 0; sorts v in place. */
double bench_quantile(double *v, size_t n, double q);
/* The "model name" of /proc/cpuinfo, or "unknown CPU"; returns buf. */
const char *bench_cpu_model(char *buf, size_t len);
/* The commit of the source tree the benchmark was built from, as the
 * experiments write it ("<40 hex>", "-dirty" appended when tracked files
 * outside results/ differ), or "unknown"; returns buf. */
const char *bench_git_commit(char *buf, size_t len);
/* Where a benchmark's report goes: results/bench/<file> from a Release build
 * without sanitizers (the only build whose numbers are committed), --out FILE
 * anywhere, nowhere with --no-save. */
typedef struct bench_output {
    const char *prog; /* "bench_pathset" */
    const char *file; /* "pathset.txt" under results/bench */
    const char *path; /* --out FILE, or NULL for the default */
    int save;
    int no_save_asked;
} bench_output;
/* Parses [--out FILE | --no-save]; 0, or 2 after printing the usage. */
int bench_output_args(bench_output *o, int argc, char **argv, int release_build);
/* Prints the report and saves it as decided; 0, or -1 when writing failed. */
int bench_output_finish(const bench_output *o, const char *results_dir, const char *text);
/* The end of a run whose report is text (from malloc, freed here) and
 * whose measurement returned rc: the report printed, and saved as
 * bench_output_finish decides when rc is 0. 0 when all went right, else 1. */
int bench_output_done(const bench_output *o, const char *results_dir, int rc, char *text);
/* mkdir -p; 0 or -1 with errno. */
int bench_mkdir_p(const char *dir);

#endif
