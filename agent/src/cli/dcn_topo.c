/* dcn-topo: the command-line window on the topology and routing library. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topo/bcube_addr.h"
#include "topo/bfs.h"
#include "topo/families/bcube_multicast.h"
#include "topo/family.h"
#include "topo/json.h"
#include "topo/layout.h"
#include "topo/topo.h"

#define MAX_WORDS 512

static void usage(FILE *out)
{
    fputs("usage: dcn-topo export FAMILY key=value...\n"
          "       dcn-topo paths  FAMILY key=value... SRC DST [--algo NAME] [--fail-node NODE]...\n"
          "                       [--fail-link NODE,NODE]... [--seed N]\n"
          "       dcn-topo stats  FAMILY key=value... [--bfs-limit N]\n"
          "       dcn-topo bfs    FAMILY key=value... SRC [--fail-node NODE]... [--fail-link NODE,NODE]...\n"
          "                       (the server graph's BFS tree: hops and parents, neighbours in id order)\n"
          "       dcn-topo components FAMILY key=value... [--fail-node NODE]... [--fail-link NODE,NODE]...\n"
          "                       (each server's connected component under the failures)\n"
          "       dcn-topo connectivity FAMILY key=value...\n"
          "                       (the server graph's vertex connectivity and a smallest cut)\n"
          "       dcn-topo replicas bcube key=value... SRC TARGET... (Theorem 4's complete graph)\n"
          "       dcn-topo trees    bcube key=value... SRC           (BuildMultipleSPTs, Theorem 5)\n"
          "       dcn-topo families\n"
          "Nodes are named as in `dcn-topo export` (or #ID). Output is JSON on stdout.\n",
          out);
}

static const char *link_kind(const dcn_topo *t, uint32_t a, uint32_t b)
{
    dcn_node_kind ka = dcn_kind(t, a), kb = dcn_kind(t, b);
    if (ka == DCN_SERVER && kb == DCN_SERVER)
        return "server-server";
    if (ka == DCN_SWITCH && kb == DCN_SWITCH)
        return "switch-switch";
    return "server-switch";
}

/* "layout": the drawing's size and its unit boxes (the nodes' points are
 * printed with the nodes). */
static void write_layout(dcn_json *j, const dcn_layout *lay)
{
    dcn_json_obj_begin(j, "layout");
    dcn_json_fixed(j, "width", lay->width, 2);
    dcn_json_fixed(j, "height", lay->height, 2);
    dcn_json_arr_begin(j, "groups");
    for (uint32_t i = 0; i < lay->n_groups; i++) {
        const dcn_layout_group *g = &lay->groups[i];
        dcn_json_obj_begin(j, NULL);
        dcn_json_str(j, "name", g->name);
        dcn_json_fixed(j, "x", g->x, 2);
        dcn_json_fixed(j, "y", g->y, 2);
        dcn_json_fixed(j, "w", g->w, 2);
        dcn_json_fixed(j, "h", g->h, 2);
        dcn_json_obj_end(j);
    }
    dcn_json_arr_end(j);
    dcn_json_obj_end(j);
}

static int cmd_export(const dcn_topo *t)
{
    dcn_layout lay;
    if (dcn_layout_compute(t, &lay) < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        return 1;
    }
    dcn_json j;
    char name[DCN_NAME_MAX], other[DCN_NAME_MAX];
    dcn_json_init(&j, stdout, 2);
    dcn_json_obj_begin(&j, NULL);
    dcn_json_str(&j, "family", t->family->name);
    cli_write_params(&j, t);
    for (int kind = 0; kind < 2; kind++) {
        dcn_json_arr_begin(&j, kind ? "switches" : "servers");
        uint32_t first = kind ? t->n_servers : 0, last = kind ? dcn_n_nodes(t) : t->n_servers;
        for (uint32_t v = first; v < last; v++) {
            dcn_node_name(t, v, name, sizeof name);
            dcn_json_obj_begin(&j, NULL);
            dcn_json_int(&j, "id", v);
            dcn_json_str(&j, "name", name);
            dcn_json_int(&j, "ports", dcn_nports(t, v));
            dcn_json_fixed(&j, "x", lay.x[v], 2);
            dcn_json_fixed(&j, "y", lay.y[v], 2);
            dcn_json_obj_end(&j);
        }
        dcn_json_arr_end(&j);
    }
    dcn_json_arr_begin(&j, "links");
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++)
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            dcn_end e = dcn_peer(t, v, p);
            if (e.node == DCN_NONE || e.node < v || (e.node == v && e.port < p))
                continue;
            dcn_node_name(t, v, name, sizeof name);
            dcn_node_name(t, e.node, other, sizeof other);
            dcn_json_obj_begin(&j, NULL);
            dcn_json_str(&j, "a", name);
            dcn_json_int(&j, "a_port", p);
            dcn_json_str(&j, "b", other);
            dcn_json_int(&j, "b_port", e.port);
            dcn_json_str(&j, "kind", link_kind(t, v, e.node));
            dcn_json_obj_end(&j);
        }
    dcn_json_arr_end(&j);
    write_layout(&j, &lay);
    dcn_json_obj_end(&j);
    dcn_json_end(&j);
    dcn_layout_free(&lay);
    return 0;
}

static void write_path(dcn_json *j, const dcn_topo *t, const dcn_path *p)
{
    char name[DCN_NAME_MAX];
    dcn_json_arr_begin(j, NULL);
    for (uint32_t i = 0; i < p->len; i++) {
        dcn_node_name(t, p->node[i], name, sizeof name);
        dcn_json_str(j, NULL, name);
    }
    dcn_json_arr_end(j);
}

static int cmd_paths(const dcn_topo *t, const char *srcname, const char *dstname, const char *algo_name,
                     const cli_fail_args *fails, unsigned long seed)
{
    const dcn_algo *algo = dcn_family_algo(t->family, algo_name);
    if (!algo) {
        fprintf(stderr, "dcn-topo: %s has no algorithm '%s' (algorithms:", t->family->name, algo_name);
        for (int i = 0; i < t->family->n_algos; i++)
            fprintf(stderr, " %s", t->family->algos[i].name);
        fprintf(stderr, " shortest)\n");
        return EXIT_USAGE;
    }
    uint32_t src = cli_lookup(t, srcname, 1), dst = cli_lookup(t, dstname, 1);
    if (src == DCN_NONE || dst == DCN_NONE)
        return EXIT_USAGE;
    if (src == dst) {
        fprintf(stderr, "dcn-topo: SRC and DST are the same server\n");
        return EXIT_USAGE;
    }
    dcn_failures f;
    int rc = cli_failures(t, fails, &f);
    if (rc < 0)
        return rc == -1 ? EXIT_USAGE : 1;
    dcn_rng rng;
    dcn_rng_seed(&rng, seed);
    dcn_route_ctx ctx = {(fails->n_nodes || fails->n_links) ? &f : NULL, &rng};
    dcn_pathset *set = calloc(1, sizeof *set);
    if (!set) {
        rc = 1;
        goto out;
    }
    int n = algo->fn(t, src, dst, &ctx, set);
    if (n < 0) {
        fprintf(stderr, "dcn-topo: %s %s failed for %s -> %s\n", t->family->name, algo->name, srcname, dstname);
        rc = 1;
    } else {
        dcn_json j;
        dcn_json_init(&j, stdout, 1);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_str(&j, "family", t->family->name);
        dcn_json_str(&j, "algo", algo->name);
        dcn_json_arr_begin(&j, "paths");
        for (uint32_t i = 0; i < set->count; i++)
            write_path(&j, t, &set->path[i]);
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
        rc = 0;
    }
    free(set);
out:
    dcn_failures_free(&f);
    return rc;
}

static void write_distances(dcn_json *j, const char *key, const uint64_t *hist, uint32_t maxd, uint64_t pairs,
                            int connected)
{
    double sum = 0;
    for (uint32_t d = 0; d <= maxd; d++)
        sum += (double)d * (double)hist[d];
    dcn_json_obj_begin(j, key);
    if (connected)
        dcn_json_int(j, "diameter", maxd);
    else
        dcn_json_null(j, "diameter");
    dcn_json_num(j, "mean", pairs ? sum / (double)pairs : 0);
    dcn_json_arr_begin(j, "histogram");
    for (uint32_t d = 0; d <= maxd; d++)
        dcn_json_int(j, NULL, (long long)hist[d]);
    dcn_json_arr_end(j);
    dcn_json_obj_end(j);
}

static int cmd_stats(const dcn_topo *t, unsigned long bfs_limit)
{
    dcn_json j;
    dcn_json_init(&j, stdout, 2);
    dcn_json_obj_begin(&j, NULL);
    dcn_json_str(&j, "family", t->family->name);
    cli_write_params(&j, t);
    dcn_json_int(&j, "servers", t->n_servers);
    dcn_json_int(&j, "switches", t->n_switches);
    uint64_t kinds[3] = {0, 0, 0}, used_ports = 0;
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++)
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            dcn_end e = dcn_peer(t, v, p);
            if (e.node == DCN_NONE)
                continue;
            used_ports++;
            if (e.node > v || (e.node == v && e.port > p))
                kinds[dcn_kind(t, v) + dcn_kind(t, e.node)]++;
        }
    dcn_json_int(&j, "links", (long long)t->n_links);
    dcn_json_obj_begin(&j, "links_by_kind");
    dcn_json_int(&j, "server-server", (long long)kinds[0]);
    dcn_json_int(&j, "server-switch", (long long)kinds[1]);
    dcn_json_int(&j, "switch-switch", (long long)kinds[2]);
    dcn_json_obj_end(&j);
    dcn_json_int(&j, "free_ports", (long long)(t->port_base[dcn_n_nodes(t)] - used_ports));
    dcn_json_str(&j, "paper_metric", t->family->metric == DCN_METRIC_LINKS ? "links" : "server_hops");
    if (t->family->formulas) {
        dcn_json_obj_begin(&j, "formulas");
        t->family->formulas(t, &j);
        dcn_json_obj_end(&j);
    }
    if (t->n_servers <= bfs_limit) {
        uint32_t ns = t->n_servers;
        uint32_t *links = malloc(ns * sizeof *links), *hops = malloc(ns * sizeof *hops);
        uint64_t *hl = calloc(DCN_PATH_MAX + 1, sizeof *hl), *hh = calloc(DCN_PATH_MAX + 1, sizeof *hh);
        if (!links || !hops || !hl || !hh) {
            fprintf(stderr, "dcn-topo: out of memory\n");
            return 1;
        }
        uint32_t ml = 0, mh = 0;
        uint64_t pairs = 0;
        int connected = 1;
        for (uint32_t s = 0; s < ns; s++) {
            dcn_bfs_server_distances(t, s, NULL, links, hops);
            for (uint32_t d = 0; d < ns; d++) {
                if (d == s)
                    continue;
                if (links[d] == UINT32_MAX || links[d] > DCN_PATH_MAX) {
                    connected = 0;
                    continue;
                }
                pairs++;
                hl[links[d]]++;
                hh[hops[d]]++;
                ml = links[d] > ml ? links[d] : ml;
                mh = hops[d] > mh ? hops[d] : mh;
            }
        }
        dcn_json_obj_begin(&j, "bfs");
        dcn_json_int(&j, "ordered_pairs", (long long)pairs);
        dcn_json_str(&j, "connected", connected ? "yes" : "no");
        write_distances(&j, "links", hl, ml, pairs, connected);
        write_distances(&j, "server_hops", hh, mh, pairs, connected);
        dcn_json_obj_end(&j);
        free(links);
        free(hops);
        free(hl);
        free(hh);
    } else {
        dcn_json_null(&j, "bfs");
    }
    dcn_json_obj_end(&j);
    dcn_json_end(&j);
    return 0;
}

static int cmd_families(void)
{
    int n;
    const dcn_family *const *all = dcn_families(&n);
    for (int i = 0; i < n; i++) {
        const dcn_family *f = all[i];
        printf("%-8s %s\n", f->name, f->summary);
        for (int k = 0; k < f->n_params; k++) {
            const dcn_param_spec *s = &f->params[k];
            printf("    %s=%ld..%ld%s", s->name, s->min, s->max, s->type == DCN_PARAM_DIMS ? " (AxBx..)" : "");
            if (s->def == DCN_PARAM_REQUIRED)
                printf(" [required]");
            else if (s->def >= s->min && s->def <= s->max)
                printf(" [default %ld]", s->def);
            else
                printf(" [default: derived]"); /* e.g. bcube parts: n */
            printf("  %s\n", s->help);
        }
        printf("    algorithms:");
        for (int k = 0; k < f->n_algos; k++)
            printf(" %s", f->algos[k].name);
        printf(" shortest\n");
    }
    return 0;
}

/* ---- replicas / trees: BCube's one-to-several and one-to-all structures.
 * words = FAMILY key=value... NAME...; builds t and returns the index of
 * the first name, or -1 after printing one line. */
static int build_for_names(const char *cmd, int nwords, char **words, dcn_topo *t)
{
    if (nwords < 1 || strcmp(words[0], "bcube")) {
        fprintf(stderr, "dcn-topo: %s works on the bcube family only%s%s\n", cmd, nwords ? ", not " : "",
                nwords ? words[0] : "");
        return -1;
    }
    int first = 1;
    while (first < nwords && strchr(words[first], '='))
        first++;
    char err[512];
    if (dcn_topo_build(t, words[0], first - 1, words + 1, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-topo: %s\n", err);
        return -1;
    }
    return first;
}

static void bcube_dims_of(const dcn_topo *t, bc_dims *d)
{
    bc_dims_init(d, (uint32_t)dcn_param(&t->params, "n"), (uint32_t)dcn_param(&t->params, "k"));
}

/* The full node path of a server sequence, from the wiring; -1 when two
 * consecutive servers share no switch or cable. */
static int expand_seq(const dcn_topo *t, const uint32_t *seq, uint32_t len, dcn_path *p)
{
    p->len = 0;
    for (uint32_t i = 0; i < len; i++)
        if (dcn_path_push(p, seq[i]) < 0)
            return -1;
    return dcn_path_expand_servers(p, t);
}

static void write_server_seq_path(dcn_json *j, const dcn_topo *t, const char *key, const uint32_t *seq, uint32_t len)
{
    char name[DCN_NAME_MAX];
    dcn_path p;
    if (expand_seq(t, seq, len, &p) < 0)
        p.len = 0; /* checked by the callers before writing */
    dcn_json_arr_begin(j, key);
    for (uint32_t i = 0; i < p.len; i++) {
        dcn_node_name(t, p.node[i], name, sizeof name);
        dcn_json_str(j, NULL, name);
    }
    dcn_json_arr_end(j);
}

static int replicas_graph(const dcn_topo *t, char **names, int nnames)
{
    bc_dims d;
    bcube_dims_of(t, &d);
    if (nnames < 2) {
        fprintf(stderr, "dcn-topo: replicas needs SRC and at least one TARGET\n");
        return EXIT_USAGE;
    }
    if ((uint32_t)(nnames - 1) > d.k + 1) {
        fprintf(stderr, "dcn-topo: replicas: %d targets, at most k+1 = %u (one per level)\n", nnames - 1, d.k + 1);
        return EXIT_USAGE;
    }
    uint32_t src = cli_lookup(t, names[0], 1), targets[BC_MAX_LEVELS];
    if (src == DCN_NONE)
        return EXIT_USAGE;
    for (int i = 1; i < nnames; i++)
        if ((targets[i - 1] = cli_lookup(t, names[i], 1)) == DCN_NONE)
            return EXIT_USAGE;
    bc_graph_edge edges[BC_GRAPH_MAX_EDGES];
    const char *why;
    uint32_t bad;
    int m = bc_complete_graph(&d, src, targets, (uint32_t)nnames - 1, edges, &why, &bad);
    if (m < 0) {
        fprintf(stderr, "dcn-topo: replicas: target %s %s (source %s)\n", names[1 + bad], why, names[0]);
        return EXIT_USAGE;
    }
    for (int i = 0; i < m; i++) {
        dcn_path p;
        if (expand_seq(t, edges[i].seq, edges[i].hops + 1, &p) < 0 || !dcn_path_valid(&p, t, NULL, NULL)) {
            fprintf(stderr, "dcn-topo: replicas: edge %d is not a path in this topology (library bug)\n", i);
            return 1;
        }
    }
    char name[DCN_NAME_MAX];
    dcn_json j;
    dcn_json_init(&j, stdout, 2);
    dcn_json_obj_begin(&j, NULL);
    dcn_json_str(&j, "family", t->family->name);
    cli_write_params(&j, t);
    dcn_json_str(&j, "source", names[0]);
    dcn_json_obj_begin(&j, "targets");
    for (int i = 0; i < m && edges[i].from == src; i++) {
        dcn_node_name(t, edges[i].to, name, sizeof name);
        dcn_json_int(&j, name, edges[i].level[0]);
    }
    dcn_json_obj_end(&j);
    dcn_json_arr_begin(&j, "edges");
    for (int i = 0; i < m; i++) {
        const bc_graph_edge *e = &edges[i];
        dcn_json_obj_begin(&j, NULL);
        dcn_node_name(t, e->from, name, sizeof name);
        dcn_json_str(&j, "from", name);
        dcn_node_name(t, e->to, name, sizeof name);
        dcn_json_str(&j, "to", name);
        dcn_json_int(&j, "server_hops", e->hops);
        if (e->hops == 2) {
            dcn_node_name(t, e->seq[1], name, sizeof name);
            dcn_json_str(&j, "via", name);
        } else {
            dcn_json_null(&j, "via");
        }
        dcn_json_arr_begin(&j, "levels");
        for (uint32_t h = 0; h < e->hops; h++)
            dcn_json_int(&j, NULL, e->level[h]);
        dcn_json_arr_end(&j);
        write_server_seq_path(&j, t, "path", e->seq, e->hops + 1);
        dcn_json_obj_end(&j);
    }
    dcn_json_arr_end(&j);
    dcn_json_obj_end(&j);
    dcn_json_end(&j);
    return 0;
}

static int cmd_replicas(int nwords, char **words)
{
    dcn_topo t;
    int first = build_for_names("replicas", nwords, words, &t);
    if (first < 0)
        return EXIT_USAGE;
    int rc = replicas_graph(&t, words + first, nwords - first);
    dcn_topo_free(&t);
    return rc;
}

/* Scratch for one tree: breadth-first order, depths, children lists. */
typedef struct tree_scratch {
    uint32_t *order, *hops, *first_child, *next_sibling;
} tree_scratch;

/* One tree as JSON: parents, edge levels, children, depths, and its edges
 * in breadth-first order from the source (parents before children). */
static int write_tree(dcn_json *j, const dcn_topo *t, uint32_t src, uint32_t index, const uint32_t *parent,
                      const uint8_t *level, tree_scratch *w)
{
    uint32_t ns = t->n_servers, head = 0, tail = 0, depth = 0;
    char name[DCN_NAME_MAX], other[DCN_NAME_MAX];
    for (uint32_t s = 0; s < ns; s++)
        w->first_child[s] = DCN_NONE;
    for (uint32_t s = ns; s-- > 0;) /* children in increasing id order */
        if (parent[s] < ns) {
            w->next_sibling[s] = w->first_child[parent[s]];
            w->first_child[parent[s]] = s;
        }
    w->order[tail++] = src;
    w->hops[src] = 0;
    while (head < tail) {
        uint32_t v = w->order[head++];
        for (uint32_t s = w->first_child[v]; s != DCN_NONE && tail < ns; s = w->next_sibling[s]) {
            w->hops[s] = w->hops[v] + 1;
            depth = w->hops[s] > depth ? w->hops[s] : depth;
            w->order[tail++] = s;
        }
    }
    if (tail != ns) {
        fprintf(stderr, "dcn-topo: trees: tree %u spans %u of %u servers (library bug)\n", index, tail, ns);
        return 1;
    }
    dcn_json_obj_begin(j, NULL);
    dcn_json_int(j, "index", index);
    dcn_node_name(t, w->order[1], name, sizeof name);
    dcn_json_str(j, "root", name);
    dcn_json_int(j, "root_level", index);
    dcn_json_int(j, "depth", depth);
    const char *maps[3] = {"parent", "level", "hops"};
    for (int m = 0; m < 3; m++) {
        dcn_json_obj_begin(j, maps[m]);
        for (uint32_t s = 0; s < ns; s++) {
            if (s == src)
                continue;
            dcn_node_name(t, s, name, sizeof name);
            if (m == 0) {
                dcn_node_name(t, parent[s], other, sizeof other);
                dcn_json_str(j, name, other);
            } else {
                dcn_json_int(j, name, m == 1 ? level[s] : w->hops[s]);
            }
        }
        dcn_json_obj_end(j);
    }
    dcn_json_obj_begin(j, "children");
    for (uint32_t v = 0; v < ns; v++) {
        dcn_node_name(t, v, name, sizeof name);
        dcn_json_arr_begin(j, name);
        for (uint32_t s = w->first_child[v]; s != DCN_NONE; s = w->next_sibling[s]) {
            dcn_node_name(t, s, other, sizeof other);
            dcn_json_str(j, NULL, other);
        }
        dcn_json_arr_end(j);
    }
    dcn_json_obj_end(j);
    dcn_json_arr_begin(j, "edges");
    for (uint32_t i = 1; i < ns; i++) {
        uint32_t s = w->order[i], seq[2] = {parent[s], s};
        dcn_json_obj_begin(j, NULL);
        dcn_node_name(t, parent[s], name, sizeof name);
        dcn_json_str(j, "parent", name);
        dcn_node_name(t, s, name, sizeof name);
        dcn_json_str(j, "child", name);
        dcn_json_int(j, "level", level[s]);
        write_server_seq_path(j, t, "path", seq, 2);
        dcn_json_obj_end(j);
    }
    dcn_json_arr_end(j);
    dcn_json_obj_end(j);
    return 0;
}

#define TREES_MAX_SERVERS 4096 /* the JSON lists every server in every tree; the paper's largest BCube */

static int spanning_trees(const dcn_topo *t, char **names, int nnames)
{
    bc_dims d;
    bcube_dims_of(t, &d);
    if (nnames != 1) {
        fprintf(stderr, "dcn-topo: trees needs exactly one SRC after the parameters\n");
        return EXIT_USAGE;
    }
    if ((uint32_t)dcn_param(&t->params, "parts") != d.n) {
        fprintf(stderr, "dcn-topo: trees needs a full BCube (parts=n); BuildMultipleSPTs spans every digit value\n");
        return EXIT_USAGE;
    }
    if (t->n_servers > TREES_MAX_SERVERS) {
        fprintf(stderr, "dcn-topo: trees: %u servers, at most %d\n", t->n_servers, TREES_MAX_SERVERS);
        return EXIT_USAGE;
    }
    uint32_t src = cli_lookup(t, names[0], 1);
    if (src == DCN_NONE)
        return EXIT_USAGE;
    uint32_t ns = t->n_servers, levels = d.k + 1;
    uint32_t *parent = malloc((size_t)ns * levels * sizeof *parent);
    uint8_t *level = malloc((size_t)ns * levels);
    tree_scratch w = {malloc(ns * sizeof *w.order), malloc(ns * sizeof *w.hops), malloc(ns * sizeof *w.first_child),
                      malloc(ns * sizeof *w.next_sibling)};
    int rc = 1;
    if (!parent || !level || !w.order || !w.hops || !w.first_child || !w.next_sibling ||
        bc_build_multiple_spts(&d, src, parent, level) < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        goto out;
    }
    dcn_json j;
    dcn_json_init(&j, stdout, 2);
    dcn_json_obj_begin(&j, NULL);
    dcn_json_str(&j, "family", t->family->name);
    cli_write_params(&j, t);
    dcn_json_str(&j, "source", names[0]);
    dcn_json_int(&j, "servers", ns);
    dcn_json_arr_begin(&j, "trees");
    rc = 0;
    for (uint32_t i = 0; i < levels && rc == 0; i++)
        rc = write_tree(&j, t, src, i, parent + (size_t)i * ns, level + (size_t)i * ns, &w);
    dcn_json_arr_end(&j);
    dcn_json_obj_end(&j);
    dcn_json_end(&j);
out:
    free(parent);
    free(level);
    free(w.order);
    free(w.hops);
    free(w.first_child);
    free(w.next_sibling);
    return rc;
}

static int cmd_trees(int nwords, char **words)
{
    dcn_topo t;
    int first = build_for_names("trees", nwords, words, &t);
    if (first < 0)
        return EXIT_USAGE;
    int rc = spanning_trees(&t, words + first, nwords - first);
    dcn_topo_free(&t);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"algo", required_argument, NULL, 'a'},
                                         {"fail-node", required_argument, NULL, 'n'},
                                         {"fail-link", required_argument, NULL, 'l'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"bfs-limit", required_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *algo = NULL;
    static char *fail_nodes[MAX_WORDS], *fail_links[MAX_WORDS], *pos[MAX_WORDS];
    int n_fail_nodes = 0, n_fail_links = 0, c;
    unsigned long seed = 1, bfs_limit = 4096;
    char *end;
    if (argc >= MAX_WORDS) {
        fprintf(stderr, "dcn-topo: too many arguments (at most %d)\n", MAX_WORDS - 1);
        return EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': algo = optarg; break;
        case 'n': fail_nodes[n_fail_nodes++] = optarg; break;
        case 'l': fail_links[n_fail_links++] = optarg; break;
        case 's':
        case 'b': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || end == optarg) {
                fprintf(stderr, "dcn-topo: --%s takes a non-negative integer\n", c == 's' ? "seed" : "bfs-limit");
                return EXIT_USAGE;
            }
            *(c == 's' ? &seed : &bfs_limit) = v;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    /* Options may also follow the positional words. */
    int npos = 0;
    for (int i = optind; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0 && strlen(argv[i]) > 2) {
            const char *opt = argv[i] + 2;
            const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
            if (!val) {
                fprintf(stderr, "dcn-topo: option %s needs a value\n", argv[i]);
                return EXIT_USAGE;
            }
            if (!strcmp(opt, "algo"))
                algo = val;
            else if (!strcmp(opt, "fail-node"))
                fail_nodes[n_fail_nodes++] = argv[i + 1];
            else if (!strcmp(opt, "fail-link"))
                fail_links[n_fail_links++] = argv[i + 1];
            else if (!strcmp(opt, "seed") || !strcmp(opt, "bfs-limit")) {
                unsigned long v = strtoul(val, &end, 10);
                if (*end || end == val) {
                    fprintf(stderr, "dcn-topo: %s takes a non-negative integer\n", argv[i]);
                    return EXIT_USAGE;
                }
                *(!strcmp(opt, "seed") ? &seed : &bfs_limit) = v;
            } else {
                fprintf(stderr, "dcn-topo: unknown option %s\n", argv[i]);
                usage(stderr);
                return EXIT_USAGE;
            }
            i++;
            continue;
        }
        pos[npos++] = argv[i];
    }
    if (npos < 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = pos[0];
    if (!strcmp(cmd, "families"))
        return cmd_families();
    if (!strcmp(cmd, "replicas"))
        return cmd_replicas(npos - 1, pos + 1);
    if (!strcmp(cmd, "trees"))
        return cmd_trees(npos - 1, pos + 1);
    /* the node names after the parameters: paths SRC DST, bfs SRC */
    int names = !strcmp(cmd, "paths") ? 2 : !strcmp(cmd, "bfs") ? 1 : 0;
    if (!names && strcmp(cmd, "export") && strcmp(cmd, "stats") && strcmp(cmd, "components") &&
        strcmp(cmd, "connectivity")) {
        fprintf(stderr, "dcn-topo: unknown command '%s'\n", cmd);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (npos < 2 + names) {
        usage(stderr);
        return EXIT_USAGE;
    }
    /* export and stats describe the whole topology: a failure given to them
     * would change nothing in what they print, so it is refused */
    if ((!strcmp(cmd, "export") || !strcmp(cmd, "stats")) && (n_fail_nodes || n_fail_links)) {
        fprintf(stderr, "dcn-topo: %s takes no --fail-node or --fail-link (it describes the whole topology)\n", cmd);
        return EXIT_USAGE;
    }
    int nparams = npos - 2 - names;
    cli_fail_args fails = {fail_nodes, n_fail_nodes, fail_links, n_fail_links};
    char err[512];
    dcn_topo t;
    if (dcn_topo_build(&t, pos[1], nparams, pos + 2, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-topo: %s\n", err);
        return EXIT_USAGE;
    }
    int rc;
    if (!strcmp(cmd, "export"))
        rc = cmd_export(&t);
    else if (!strcmp(cmd, "stats"))
        rc = cmd_stats(&t, bfs_limit);
    else if (!strcmp(cmd, "bfs"))
        rc = cmd_bfs(&t, pos[npos - 1], &fails);
    else if (!strcmp(cmd, "components"))
        rc = cmd_components(&t, &fails);
    else if (!strcmp(cmd, "connectivity"))
        rc = cmd_connectivity(&t, &fails);
    else
        rc = cmd_paths(&t, pos[npos - 2], pos[npos - 1], algo, &fails, seed);
    dcn_topo_free(&t);
    return rc;
}
