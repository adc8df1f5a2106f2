#include "testutil.h"

#include "topo/bfs.h"
#include "topo/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int split(const char *spec, char *buf, size_t len, char **words, int max)
{
    snprintf(buf, len, "%s", spec);
    int n = 0;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    return n;
}

void tu_build(dcn_topo *t, const char *spec)
{
    char buf[256], err[512];
    char *w[16];
    int n = split(spec, buf, sizeof buf, w, 16);
    ck_assert_msg(n >= 1, "empty spec");
    int rc = dcn_topo_build(t, w[0], n - 1, w + 1, err, sizeof err);
    ck_assert_msg(rc == 0, "building '%s' failed: %s", spec, err);
}

const char *tu_build_fails(const char *spec)
{
    static char err[512];
    char buf[256];
    char *w[16];
    dcn_topo t;
    int n = split(spec, buf, sizeof buf, w, 16);
    int rc = dcn_topo_build(&t, w[0], n - 1, w + 1, err, sizeof err);
    if (rc == 0)
        dcn_topo_free(&t);
    ck_assert_msg(rc < 0, "building '%s' should have failed", spec);
    ck_assert_msg(strchr(err, '\n') == NULL && strlen(err) > 0, "error must be one line: '%s'", err);
    return err;
}

void tu_build_fails_with(const char *spec, const char *want)
{
    const char *err = tu_build_fails(spec);
    ck_assert_msg(strstr(err, want) != NULL, "building '%s' failed with '%s', not with '%s'", spec, err, want);
}

uint32_t tu_node(const dcn_topo *t, const char *name)
{
    uint32_t v = dcn_node_lookup(t, name);
    ck_assert_msg(v != DCN_NONE, "no node named %s", name);
    return v;
}

const char *tu_path_str(const dcn_topo *t, const dcn_path *p)
{
    static char buf[DCN_PATH_MAX * (DCN_NAME_MAX + 1)];
    size_t off = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < p->len && off < sizeof buf; i++) {
        char name[DCN_NAME_MAX];
        dcn_node_name(t, p->node[i], name, sizeof name);
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? " " : "", name);
    }
    return buf;
}

int tu_paths(const dcn_topo *t, const char *algo, uint32_t src, uint32_t dst, const dcn_failures *f, uint64_t seed,
             dcn_pathset *out)
{
    const dcn_algo *a = dcn_family_algo(t->family, algo);
    ck_assert_msg(a != NULL, "no algorithm %s", algo ? algo : "(default)");
    dcn_rng rng;
    dcn_rng_seed(&rng, seed);
    dcn_route_ctx ctx = {f, &rng};
    return a->fn(t, src, dst, &ctx, out);
}

void tu_check_pathset(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst, const dcn_failures *f,
                      int want_disjoint)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const dcn_path *p = &s->path[i];
        const char *why = NULL;
        ck_assert_msg(dcn_path_valid(p, t, f, &why), "path %u invalid (%s): %s", i, why, tu_path_str(t, p));
        ck_assert_msg(p->node[0] == src && p->node[p->len - 1] == dst, "path %u has wrong ends: %s", i,
                      tu_path_str(t, p));
        if (want_disjoint)
            for (uint32_t j = 0; j < i; j++)
                ck_assert_msg(dcn_paths_node_disjoint(p, &s->path[j]), "paths %u and %u share a node: %s", j, i,
                              tu_path_str(t, p));
    }
}

void tu_check_paths_fast(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst,
                         const dcn_failures *f)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const dcn_path *p = &s->path[i];
        if (!dcn_path_valid(p, t, f, NULL) || p->node[0] != src || p->node[p->len - 1] != dst)
            tu_check_pathset(t, s, src, dst, f, 0); /* reports the details */
    }
}

long long tu_formula(const dcn_topo *t, const char *key)
{
    char *buf = NULL, pat[64];
    size_t len = 0;
    ck_assert_ptr_nonnull(t->family->formulas);
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    dcn_json j;
    dcn_json_init(&j, f, 0);
    dcn_json_obj_begin(&j, NULL);
    t->family->formulas(t, &j);
    dcn_json_obj_end(&j);
    fclose(f);
    snprintf(pat, sizeof pat, "\"%s\":", key);
    char *at = strstr(buf, pat);
    ck_assert_msg(at != NULL, "formula %s missing in %s", key, buf);
    long long v = strtoll(at + strlen(pat), NULL, 10);
    free(buf);
    return v;
}

const char *tu_name(const dcn_topo *t, uint32_t v)
{
    static char buf[DCN_NAME_MAX];
    dcn_node_name(t, v, buf, sizeof buf);
    return buf;
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

uint32_t tu_server_diameter(const dcn_topo *t, double *sum_hops)
{
    uint32_t *hops = malloc(t->n_servers * sizeof *hops), diam = 0;
    ck_assert_ptr_nonnull(hops);
    double sum = 0;
    for (uint32_t a = 0; a < t->n_servers; a++) {
        dcn_bfs_server_distances(t, a, NULL, NULL, hops);
        for (uint32_t b = 0; b < t->n_servers; b++) {
            TU_CHECK(hops[b] != UINT32_MAX, "servers %u and %u disconnected", a, b);
            diam = hops[b] > diam ? hops[b] : diam;
            sum += hops[b];
        }
    }
    free(hops);
    if (sum_hops)
        *sum_hops = sum;
    return diam;
}
