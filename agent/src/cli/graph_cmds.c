/* dcn-topo bfs, components and connectivity: the server graph's BFS tree
 * from one server, which servers still reach each other under failures,
 * and how many servers must fail to part the others. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "topo/bfs.h"
#include "topo/components.h"
#include "topo/connectivity.h"
#include "topo/family.h"
#include "topo/graph.h"

static void write_head(dcn_json *j, const dcn_topo *t)
{
    dcn_json_init(j, stdout, 1);
    dcn_json_obj_begin(j, NULL);
    dcn_json_str(j, "family", t->family->name);
    cli_write_params(j, t);
    dcn_json_int(j, "servers", t->n_servers);
}

/* Failures parsed into f: 0, or the exit status after one line. */
static int failures_or_status(const dcn_topo *t, const cli_fail_args *a, dcn_failures *f)
{
    int rc = cli_failures(t, a, f);
    return rc == 0 ? 0 : rc == -1 ? EXIT_USAGE : 1;
}

static void write_tree(dcn_json *j, const dcn_topo *t, const uint32_t *dist, const uint32_t *parent,
                       const uint32_t *order, uint32_t reached)
{
    char name[DCN_NAME_MAX], other[DCN_NAME_MAX];
    dcn_json_int(j, "reached", reached);
    dcn_json_obj_begin(j, "distance");
    for (uint32_t i = 0; i < reached; i++) {
        dcn_node_name(t, order[i], name, sizeof name);
        dcn_json_int(j, name, dist[order[i]]);
    }
    dcn_json_obj_end(j);
    dcn_json_obj_begin(j, "parent");
    for (uint32_t i = 0; i < reached; i++) {
        dcn_node_name(t, order[i], name, sizeof name);
        if (parent[order[i]] == DCN_NONE) {
            dcn_json_null(j, name);
            continue;
        }
        dcn_node_name(t, parent[order[i]], other, sizeof other);
        dcn_json_str(j, name, other);
    }
    dcn_json_obj_end(j);
}

int cmd_bfs(const dcn_topo *t, const char *srcname, const cli_fail_args *a)
{
    uint32_t src = cli_lookup(t, srcname, 1);
    if (src == DCN_NONE)
        return EXIT_USAGE;
    dcn_failures f;
    int rc = failures_or_status(t, a, &f);
    if (rc)
        return rc;
    uint32_t ns = t->n_servers;
    uint32_t *dist = malloc(ns * sizeof *dist), *parent = malloc(ns * sizeof *parent);
    uint32_t *order = malloc(ns * sizeof *order);
    int reached = dist && parent && order ? dcn_bfs_server_tree(t, src, &f, dist, parent, order) : -1;
    if (reached < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        rc = 1;
    } else {
        dcn_json j;
        write_head(&j, t);
        dcn_json_str(&j, "source", srcname);
        write_tree(&j, t, dist, parent, order, (uint32_t)reached);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
    free(dist);
    free(parent);
    free(order);
    dcn_failures_free(&f);
    return rc;
}

int cmd_components(const dcn_topo *t, const cli_fail_args *a)
{
    dcn_failures f;
    int rc = failures_or_status(t, a, &f);
    if (rc)
        return rc;
    uint32_t *comp = malloc(t->n_servers * sizeof *comp);
    int count = comp ? dcn_server_components(t, &f, comp) : -1;
    if (count < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        rc = 1;
    } else {
        char name[DCN_NAME_MAX];
        dcn_json j;
        write_head(&j, t);
        dcn_json_int(&j, "components", count);
        dcn_json_obj_begin(&j, "component");
        for (uint32_t s = 0; s < t->n_servers; s++) {
            dcn_node_name(t, s, name, sizeof name);
            if (comp[s] == DCN_NONE)
                dcn_json_null(&j, name);
            else
                dcn_json_int(&j, name, comp[s]);
        }
        dcn_json_obj_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
    free(comp);
    dcn_failures_free(&f);
    return rc;
}

static void write_names(dcn_json *j, const dcn_topo *t, const char *key, const uint32_t *ids, uint32_t count)
{
    char name[DCN_NAME_MAX];
    dcn_json_arr_begin(j, key);
    for (uint32_t i = 0; i < count; i++) {
        dcn_node_name(t, ids[i], name, sizeof name);
        dcn_json_str(j, NULL, name);
    }
    dcn_json_arr_end(j);
}

/* The server graph, or the exit status after one line. */
static int server_graph_or_status(const dcn_topo *t, dcn_graph *g)
{
    if (t->n_servers > DCN_CONN_MAX_VERTICES) {
        fprintf(stderr, "dcn-topo: connectivity: %u servers, at most %d\n", t->n_servers, DCN_CONN_MAX_VERTICES);
        return EXIT_USAGE;
    }
    int rc = dcn_graph_of_servers(g, t, DCN_CONN_MAX_EDGES);
    if (rc == -2) {
        fprintf(stderr, "dcn-topo: connectivity: the server graph has more than %u edges (at most %u)\n",
                DCN_CONN_MAX_EDGES, DCN_CONN_MAX_EDGES);
        return EXIT_USAGE;
    }
    if (rc < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        return 1;
    }
    return 0;
}

int cmd_connectivity(const dcn_topo *t, const cli_fail_args *a)
{
    if (a->n_nodes || a->n_links) {
        fprintf(stderr, "dcn-topo: connectivity takes no --fail-node or --fail-link (it measures the whole "
                        "server graph)\n");
        return EXIT_USAGE;
    }
    dcn_graph g;
    int rc = server_graph_or_status(t, &g);
    if (rc)
        return rc;
    uint32_t *cut = malloc(g.n * sizeof *cut);
    dcn_conn c;
    if (!cut || dcn_vertex_connectivity(&g, &c, cut) < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        rc = 1;
    } else {
        dcn_json j;
        write_head(&j, t);
        dcn_json_int(&j, "edges", g.m);
        dcn_json_int(&j, "degree_min", c.degree_min);
        dcn_json_int(&j, "connectivity", c.kappa);
        if (c.a == DCN_NONE) {
            dcn_json_null(&j, "separates");
        } else {
            uint32_t pair[2] = {c.a, c.b};
            write_names(&j, t, "separates", pair, 2);
        }
        write_names(&j, t, "cut", cut, c.kappa);
        dcn_json_int(&j, "max_flows", c.flows);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
    free(cut);
    dcn_graph_free(&g);
    return rc;
}
