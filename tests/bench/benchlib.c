#include "benchlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
double bench_cpu_ns(void) { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

const char *bench_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(buf, len, "%s", colon + 2);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    fclose(f);
    return buf;
}

/* First line of `git -C DCN_SOURCE_DIR ARGS` (at most len - 1 bytes), or
 * -1 when git fails or the source path cannot be quoted. */
static int git_line(const char *args, char *out, size_t len)
{
#ifdef DCN_SOURCE_DIR
    const char *dir = DCN_SOURCE_DIR;
    char cmd[1200];
    if (strchr(dir, '\'') || snprintf(cmd, sizeof cmd, "git -C '%s' %s 2>/dev/null", dir, args) >= (int)sizeof cmd)
        return -1;
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    out[0] = '\0';
    if (!fgets(out, (int)len, p))
        out[0] = '\0';
    while (fgetc(p) != EOF) /* drain: git must not see a closed pipe */
        ;
    int rc = pclose(p);
    out[strcspn(out, "\n")] = '\0';
    return rc == 0 ? 0 : -1;
#else
    (void)args;
    (void)out;
    (void)len;
    return -1;
#endif
}

const char *bench_git_commit(char *buf, size_t len)
{
    char head[64], dirty[256];
    snprintf(buf, len, "unknown");
    if (git_line("rev-parse HEAD", head, sizeof head) < 0 || strlen(head) != 40 ||
        strspn(head, "0123456789abcdef") != 40)
        return buf;
    int is_dirty = git_line("status --porcelain --untracked-files=no -- . ':!results'", dirty, sizeof dirty) == 0 &&
                   dirty[0] != '\0';
    snprintf(buf, len, "%s%s", head, is_dirty ? "-dirty" : "");
    return buf;
}

int bench_mkdir_p(const char *dir)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int bench_output_args(bench_output *o, int argc, char **argv, int release_build)
{
    o->path = NULL;
    o->save = release_build;
    o->no_save_asked = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-save")) {
            o->save = 0;
            o->no_save_asked = 1;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            o->path = argv[++i];
            o->save = 1;
        } else {
            fprintf(stderr, "usage: %s [--out FILE | --no-save]\n", o->prog);
            return 2;
        }
    }
    return 0;
}

int bench_output_finish(const bench_output *o, const char *results_dir, const char *text)
{
    fputs(text, stdout);
    if (!o->save) {
        if (o->no_save_asked)
            printf("(not saved: --no-save)\n");
        else
            printf("(not saved: only a Release build without sanitizers writes results/bench/%s)\n", o->file);
        return 0;
    }
    char def[1024];
    const char *path = o->path;
    if (!path) {
        snprintf(def, sizeof def, "%s/%s", results_dir, o->file);
        path = def;
        if (bench_mkdir_p(results_dir) < 0)
            fprintf(stderr, "%s: cannot create %s: %s\n", o->prog, results_dir, strerror(errno));
    }
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", o->prog, path, strerror(errno));
        return -1;
    }
    printf("saved to %s\n", path);
    return 0;
}

int bench_output_done(const bench_output *o, const char *results_dir, int rc, char *text)
{
    if (rc == 0)
        rc = bench_output_finish(o, results_dir, text);
    else
        fputs(text, stdout);
    free(text);
    return rc == 0 ? 0 : 1;
}
