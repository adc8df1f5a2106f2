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
/* mkdir -p; 0 or -1 with errno. */
int bench_mkdir_p(const char *dir);

#endif
