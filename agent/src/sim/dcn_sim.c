/* dcn-sim: the flow-level simulator. Routes every flow of a traffic pattern
 * with the library's routing, under random failures averaged over seeds,
 * and reports ABT, link loads, path lengths and the path failure ratio.
 * Definitions: sim_engine.h and docs/simulator.md. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"
#include "sim_failures.h"
#include "sim_routing.h"
#include "sim_topo.h"

#define EXIT_USAGE 2
#define MAX_WORDS 64
#define MAX_RATIOS 64

static void usage(FILE *out)
{
    fputs("usage: dcn-sim FAMILY key=value... [--routing NAME] [--pattern all-to-all|first:N]\n"
          "               [--fail none|server|switch|link] [--ratio R[,R...]] [--seeds N] [--seed0 S]\n"
          "               [--threads T] [--link-gbps G] [--highspeed-gbps G] [--sample-flows F]\n"
          "               [--csv FILE] [--levels-csv FILE] [--hist-csv FILE] [--quiet]\n"
          "FAMILY: any of `dcn-topo families`, or mlfattree (the BCube paper's multi-level fat-tree).\n"
          "--routing: bsr (the family's path set, a surviving path drawn uniformly: BSR's probe ties\n"
          "read as a uniform draw; the agents take the shorter path), bsr-greedy (the set, the\n"
          "least-loaded path given the flows placed before), ecmp (random path), or an algorithm of\n"
          "the family (route, dfr, shortest, ...), optionally with :first, :least-loaded or :random.\n"
          "One CSV row per (ratio, seed); '-' writes to stdout. Progress on stderr unless --quiet.\n",
          out);
}

typedef struct opts {
    const char *routing, *pattern, *csv, *levels_csv, *hist_csv;
    sim_fail_kind fail;
    double ratios[MAX_RATIOS];
    int n_ratios;
    unsigned seeds, threads;
    uint64_t seed0, sample;
    double link_gbps, highspeed_gbps;
    int quiet;
} opts;

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, "dcn-sim: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int parse_ratios(const char *s, opts *o)
{
    char buf[512];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    o->n_ratios = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->n_ratios == MAX_RATIOS || parse_double(tok, 0, 1, &o->ratios[o->n_ratios]) < 0)
            return -1;
        o->n_ratios++;
    }
    return o->n_ratios ? 0 : -1;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    static const struct option longopts[] = {
        {"routing", required_argument, NULL, 'r'},  {"pattern", required_argument, NULL, 'p'},
        {"fail", required_argument, NULL, 'f'},     {"ratio", required_argument, NULL, 'R'},
        {"seeds", required_argument, NULL, 's'},    {"seed0", required_argument, NULL, 'S'},
        {"threads", required_argument, NULL, 't'},  {"link-gbps", required_argument, NULL, 'l'},
        {"highspeed-gbps", required_argument, NULL, 'H'}, {"sample-flows", required_argument, NULL, 'F'},
        {"csv", required_argument, NULL, 'c'},      {"levels-csv", required_argument, NULL, 'L'},
        {"hist-csv", required_argument, NULL, 'h'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, '?'},           {NULL, 0, NULL, 0}};
    uint64_t v;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': o->routing = optarg; break;
        case 'p': o->pattern = optarg; break;
        case 'f':
            if (sim_fail_kind_parse(optarg, &o->fail) < 0)
                return bad("--fail must be none, server, switch or link, not", optarg);
            break;
        case 'R':
            if (parse_ratios(optarg, o) < 0)
                return bad("--ratio takes up to 64 comma-separated values in 0..1, not", optarg);
            break;
        case 's':
            if (parse_u64(optarg, 1, 100000, &v) < 0)
                return bad("--seeds must be 1..100000, not", optarg);
            o->seeds = (unsigned)v;
            break;
        case 'S':
            if (parse_u64(optarg, 0, UINT64_MAX / 2, &o->seed0) < 0)
                return bad("--seed0 must be a non-negative integer, not", optarg);
            break;
        case 't':
            if (parse_u64(optarg, 1, 64, &v) < 0)
                return bad("--threads must be 1..64, not", optarg);
            o->threads = (unsigned)v;
            break;
        case 'l':
            if (parse_double(optarg, 1e-6, 1e6, &o->link_gbps) < 0)
                return bad("--link-gbps must be a positive number, not", optarg);
            break;
        case 'H':
            if (parse_double(optarg, 1e-6, 1e6, &o->highspeed_gbps) < 0)
                return bad("--highspeed-gbps must be a positive number, not", optarg);
            break;
        case 'F':
            if (parse_u64(optarg, 1, 1ull << 40, &o->sample) < 0)
                return bad("--sample-flows must be 1..2^40, not", optarg);
            break;
        case 'c': o->csv = optarg; break;
        case 'L': o->levels_csv = optarg; break;
        case 'h': o->hist_csv = optarg; break;
        case 'q': o->quiet = 1; break;
        default:
            if (optopt == 0 && strcmp(argv[optind - 1], "--help") == 0) {
                usage(stdout);
                exit(0);
            }
            return bad("unknown option or missing value", argv[optind - 1]);
        }
    }
    return optind == argc ? 0 : bad("unexpected argument", argv[optind]);
}

/* The pattern's servers: NULL for all, else a list (caller frees). */
static int make_pattern(const char *spec, const dcn_topo *t, uint32_t **list, uint32_t *n)
{
    *list = NULL;
    *n = t->n_servers;
    if (!spec || strcmp(spec, "all-to-all") == 0)
        return 0;
    uint64_t cnt;
    if (strncmp(spec, "first:", 6) != 0 || parse_u64(spec + 6, 2, t->n_servers, &cnt) < 0)
        return -1;
    *list = malloc(cnt * sizeof **list);
    if (!*list)
        return -1;
    for (uint64_t i = 0; i < cnt; i++)
        (*list)[i] = (uint32_t)i;
    *n = (uint32_t)cnt;
    return 0;
}

static void params_str(const dcn_topo *t, char *buf, size_t len)
{
    const dcn_family *fam = t->family;
    int off = 0;
    buf[0] = '\0';
    for (int i = 0; i < fam->n_params && off >= 0 && (size_t)off < len; i++) {
        if (fam->params[i].type == DCN_PARAM_DIMS) {
            off += snprintf(buf + off, len - (size_t)off, "%s%s=", i ? " " : "", fam->params[i].name);
            for (long d = 0; d < t->params.value[i] && (size_t)off < len; d++)
                off += snprintf(buf + off, len - (size_t)off, "%s%ld", d ? "x" : "", t->params.dims[i][d]);
        } else {
            off += snprintf(buf + off, len - (size_t)off, "%s%s=%ld", i ? " " : "", fam->params[i].name,
                            t->params.value[i]);
        }
    }
}

/* Level of a directed link: the port number at its server end, -1 between switches. */
static int link_level(const dcn_topo *t, uint32_t v, uint16_t p)
{
    if (dcn_kind(t, v) == DCN_SERVER)
        return p;
    dcn_end e = dcn_peer(t, v, p);
    return e.node != DCN_NONE && dcn_kind(t, e.node) == DCN_SERVER ? e.port : -1;
}

static void write_levels(FILE *out, const dcn_topo *t, const sim_result *res, const char *prefix)
{
    enum { LV = 17 };
    uint64_t links[LV] = {0}, sum[LV] = {0};
    uint32_t mx[LV] = {0}, mn[LV];
    for (int i = 0; i < LV; i++)
        mn[i] = UINT32_MAX;
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++)
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            if (dcn_peer(t, v, p).node == DCN_NONE)
                continue;
            int l = link_level(t, v, p) + 1;
            if (l >= LV)
                continue;
            uint32_t c = res->link_flows[t->port_base[v] + p];
            links[l]++;
            sum[l] += c;
            if (c > mx[l])
                mx[l] = c;
            if (c < mn[l])
                mn[l] = c;
        }
    for (int l = 0; l < LV; l++)
        if (links[l])
            fprintf(out, "%s,%d,%llu,%u,%u,%.3f\n", prefix, l - 1, (unsigned long long)links[l], mx[l], mn[l],
                    (double)sum[l] / (double)links[l]);
}

static FILE *open_out(const char *path)
{
    if (!path)
        return NULL;
    if (strcmp(path, "-") == 0)
        return stdout;
    return fopen(path, "w");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    int nwords = 0;
    char *words[MAX_WORDS];
    int i = 2;
    for (; i < argc && strncmp(argv[i], "--", 2) != 0; i++) {
        if (nwords == MAX_WORDS)
            return bad("too many key=value words", NULL);
        words[nwords++] = argv[i];
    }
    opts o = {.routing = NULL, .fail = SIM_FAIL_NONE, .ratios = {0}, .n_ratios = 1, .seeds = 1, .seed0 = 1,
              .threads = 2, .link_gbps = 1, .highspeed_gbps = 0};
    char *rest[128];
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (; i < argc && nrest < 127; i++)
        rest[nrest++] = argv[i];
    if (i < argc)
        return bad("too many options", NULL);
    rest[nrest] = NULL;
    int rc = parse_opts(nrest, rest, &o);
    if (rc)
        return rc;
    char err[512];
    dcn_topo t;
    if (sim_topo_build(&t, argv[1], nwords, words, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-sim: %s\n", err);
        return EXIT_USAGE;
    }
    sim_routing r;
    const char *rname = o.routing ? o.routing : (t.family->n_algos ? t.family->algos[0].name : "shortest");
    if (sim_routing_resolve(&r, &t, rname, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-sim: %s\n", err);
        dcn_topo_free(&t);
        return EXIT_USAGE;
    }
    sim_config cfg;
    sim_config_default(&cfg);
    cfg.link_gbps = o.link_gbps;
    cfg.highspeed_gbps = o.highspeed_gbps > 0 ? o.highspeed_gbps : o.link_gbps;
    cfg.threads = o.threads;
    cfg.sample_flows = o.sample;
    cfg.progress = !o.quiet;
    uint32_t *pattern = NULL;
    if (make_pattern(o.pattern, &t, &pattern, &cfg.n_pattern) < 0) {
        fprintf(stderr, "dcn-sim: --pattern must be all-to-all or first:N with N in 2..%u, not %s\n", t.n_servers,
                o.pattern);
        dcn_topo_free(&t);
        return EXIT_USAGE;
    }
    cfg.servers = pattern;
    FILE *csv = open_out(o.csv), *lv = open_out(o.levels_csv), *hist = open_out(o.hist_csv);
    if ((o.csv && !csv) || (o.levels_csv && !lv) || (o.hist_csv && !hist)) {
        fprintf(stderr, "dcn-sim: cannot open an output file: %s\n", strerror(errno));
        return 1;
    }
    char pstr[128];
    params_str(&t, pstr, sizeof pstr);
    const char *pat = o.pattern ? o.pattern : "all-to-all";
    if (csv)
        fprintf(csv, "family,params,routing,pattern,fail,ratio,seed,failed_elements,flows_pattern,flows_dropped,"
                     "flows_live,flows_routed,flows_unrouted,path_failure_ratio,max_link_flows,bottleneck_gbps,"
                     "abt_gbps,mean_links,mean_hops,seconds,bottleneck_link_flows\n");
    if (lv)
        fprintf(lv, "fail,ratio,seed,level,directed_links,max_flows,min_flows,mean_flows\n");
    if (hist)
        fprintf(hist, "fail,ratio,seed,length,flows_by_links,flows_by_server_hops\n");
    dcn_failures f;
    if (dcn_failures_init(&f, &t) < 0) {
        fprintf(stderr, "dcn-sim: out of memory\n");
        return 1;
    }
    rc = 0;
    for (int ri = 0; ri < o.n_ratios && !rc; ri++) {
        double sum_abt = 0, sum_pfr = 0;
        for (unsigned s = 0; s < o.seeds; s++) {
            uint64_t seed = o.seed0 + s;
            long nf = sim_failures_sample(&f, &t, o.fail, o.ratios[ri], seed);
            cfg.seed = seed;
            sim_result res;
            if (nf < 0 || sim_run(&t, &r, &f, &cfg, &res, err, sizeof err) < 0) {
                fprintf(stderr, "dcn-sim: %s\n", nf < 0 ? "out of memory" : err);
                rc = 1;
                break;
            }
            sum_abt += res.abt_gbps;
            sum_pfr += res.path_failure_ratio;
            if (csv)
                fprintf(csv, "%s,%s,%s,%s,%s,%g,%llu,%ld,%llu,%llu,%llu,%llu,%llu,%.6f,%u,%.9g,%.6f,%.6f,%.6f,%.3f,%u\n",
                        t.family->name, pstr, r.name, pat, sim_fail_kind_name(o.fail), o.ratios[ri],
                        (unsigned long long)seed, nf, (unsigned long long)res.flows_pattern,
                        (unsigned long long)res.flows_dropped, (unsigned long long)res.flows_live,
                        (unsigned long long)res.flows_routed, (unsigned long long)res.flows_unrouted,
                        res.path_failure_ratio, res.max_link_flows, res.bottleneck_gbps, res.abt_gbps,
                        res.mean_links, res.mean_hops, res.seconds,
                        res.bottleneck_port == UINT64_MAX ? 0 : res.link_flows[res.bottleneck_port]);
            char prefix[96];
            snprintf(prefix, sizeof prefix, "%s,%g,%llu", sim_fail_kind_name(o.fail), o.ratios[ri],
                     (unsigned long long)seed);
            if (lv)
                write_levels(lv, &t, &res, prefix);
            if (hist)
                for (int k = 0; k <= DCN_PATH_MAX; k++)
                    if (res.hist_links[k] || res.hist_hops[k])
                        fprintf(hist, "%s,%d,%llu,%llu\n", prefix, k, (unsigned long long)res.hist_links[k],
                                (unsigned long long)res.hist_hops[k]);
            sim_result_free(&res);
        }
        if (!rc && !o.quiet)
            fprintf(stderr, "dcn-sim: %s %s %s %s=%g: ABT %.2f Gb/s, path failure ratio %.4f (mean of %u seeds)\n",
                    t.family->name, pstr, r.name, sim_fail_kind_name(o.fail), o.ratios[ri], sum_abt / o.seeds,
                    sum_pfr / o.seeds, o.seeds);
    }
    dcn_failures_free(&f);
    free(pattern);
    dcn_topo_free(&t);
    FILE *outs[3] = {csv, lv, hist};
    for (int k = 0; k < 3; k++)
        if (outs[k] && outs[k] != stdout && fclose(outs[k]) != 0)
            rc = 1;
    return rc;
}
