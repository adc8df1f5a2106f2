/* What a topology family provides: its parameters, its builder, its names,
 * its routing algorithms and its drawing. Each family lives in
 * families/<name>.c and exports one `const dcn_family dcn_family_<name>`. */
#ifndef DCN_FAMILY_H
#define DCN_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "failures.h"
#include "params.h"
#include "path.h"
#include "rng.h"
#include "topo.h"

struct dcn_json;
struct dcn_layout;

/* Routing context handed to every algorithm. */
typedef struct dcn_route_ctx {
    const dcn_failures *failures; /* NULL: nothing failed */
    dcn_rng *rng;                 /* for algorithms that draw (MDCube detours); never NULL */
} dcn_route_ctx;

/* Fills out with one or more paths from server src to server dst (node ids),
 * each a full node sequence. Returns the number of paths (>= 0; 0 means no
 * path exists under the failures), or -1 on a bad request. */
typedef int (*dcn_algo_fn)(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                           dcn_pathset *out);

typedef struct dcn_algo {
    const char *name; /* e.g. "pathset", "route", "detour" */
    const char *help;
    dcn_algo_fn fn;
} dcn_algo;

typedef enum { DCN_METRIC_LINKS, DCN_METRIC_HOPS } dcn_metric;

struct dcn_family {
    const char *name;
    const char *summary;
    const dcn_param_spec *params;
    int n_params;
    /* Cross-parameter checks and size limits, after each value passed its range. */
    int (*validate)(const dcn_params *p, char *err, size_t errlen);
    int (*build)(dcn_topo *t, char *err, size_t errlen);
    void (*destroy)(dcn_topo *t);
    void (*node_name)(const dcn_topo *t, uint32_t v, char *buf, size_t len);
    /* algos[0] is what `dcn-topo paths` runs by default: the family's
     * parallel path set. The generic "shortest" is added by the core. */
    const dcn_algo *algos;
    int n_algos;
    dcn_metric metric; /* the papers' own path-length unit for this family */
    /* Optional: prints the paper's closed-form counts (JSON members, no braces)
     * for `dcn-topo stats`. */
    void (*formulas)(const dcn_topo *t, struct dcn_json *j);
    /* Optional: places every node and outlines the natural units as the
     * paper's figures draw them (layout.h); NULL: dcn_layout_generic().
     * Returns 0, or -1 when out of memory. */
    int (*layout)(const dcn_topo *t, struct dcn_layout *lay);
};

const dcn_family *dcn_family_find(const char *name);
const dcn_family *const *dcn_families(int *count);
const dcn_algo *dcn_family_algo(const dcn_family *fam, const char *name);

/* The generic algorithm every family offers: one shortest path (BFS). */
int dcn_algo_shortest(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);

#endif
