/* BCube (Guo et al., SIGCOMM 2009): n-port switches, servers with k+1
 * ports. BCube_0 is n servers on one switch; BCube_k is n BCube_(k-1)s plus
 * n^k level-k switches. `parts` < n builds the paper's partial BCube (5.1):
 * parts BCube_(k-1)s with the full level-k switch layer.
 *
 * Wiring: server port l = level l, cabled to switch <l, A without digit l>
 * on that switch's port A[l]. Node ids, names and the partial-BCube choices
 * are described in bcube_layout.h, bcube_names.h and docs/topologies/bcube.md;
 * the drawing in bcube_figure.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcube_figure.h"
#include "bcube_layout.h"
#include "bcube_names.h"
#include "bfs.h"
#include "family.h"
#include "json.h"

#define BCUBE_MAX_SERVERS 4194304ull /* 2^22: a 2048-server container is 0.05 % of it */
#define BCUBE_MAX_PORTS 67108864ull  /* 2^26 server and switch ports: 512 MB of cabling table */

static const dcn_param_spec bcube_params[] = {
    {"n", DCN_PARAM_INT, 2, 64, 4, "switch ports (servers per BCube_0)"},
    {"k", DCN_PARAM_INT, 0, BC_MAX_LEVELS - 1, 1, "top level; servers have k+1 ports"},
    {"parts", DCN_PARAM_INT, 1, 64, 0,
     "BCube_(k-1)s present, 1..n: partial BCube with the full level-k layer (default: n, the full BCube)"},
};

/* parts as given, or n when absent. */
static uint32_t effective_parts(const dcn_params *p)
{
    long parts = dcn_param(p, "parts");
    return parts >= 1 ? (uint32_t)parts : (uint32_t)dcn_param(p, "n");
}

static int bcube_validate(const dcn_params *p, char *err, size_t errlen)
{
    uint64_t n = (uint64_t)dcn_param(p, "n"), k = (uint64_t)dcn_param(p, "k");
    uint64_t parts = effective_parts(p);
    if (parts > n) {
        snprintf(err, errlen, "bcube: parts=%llu is out of range (allowed 1..n=%llu)", (unsigned long long)parts,
                 (unsigned long long)n);
        return -1;
    }
    if (k == 0 && parts != n) {
        snprintf(err, errlen,
                 "bcube: parts=%llu needs k>=1 (a BCube_0 is one switch and cannot be partial; omit parts or use "
                 "parts=%llu)",
                 (unsigned long long)parts, (unsigned long long)n);
        return -1;
    }
    uint64_t servers = parts; /* parts * n^k, stopping once it is too big */
    for (uint64_t i = 0; i < k && servers <= BCUBE_MAX_SERVERS; i++)
        servers *= n;
    if (servers > BCUBE_MAX_SERVERS) {
        snprintf(err, errlen, "bcube: n=%llu k=%llu parts=%llu is too big (more than %llu servers)",
                 (unsigned long long)n, (unsigned long long)k, (unsigned long long)parts, BCUBE_MAX_SERVERS);
        return -1;
    }
    /* Names must fit (bcube_names.h); only partial BCubes with n > 36 and
     * k >= 4 get past the server limit with longer names. */
    uint32_t longest = bcube_server_name_len((uint32_t)n, (uint32_t)k);
    if (bcube_switch_name_len((uint32_t)n, (uint32_t)k) > longest)
        longest = bcube_switch_name_len((uint32_t)n, (uint32_t)k);
    if (longest > BCUBE_NAME_MAX) {
        snprintf(err, errlen, "bcube: n=%llu k=%llu gives %u-character node names (at most %d)",
                 (unsigned long long)n, (unsigned long long)k, longest, BCUBE_NAME_MAX);
        return -1;
    }
    /* Memory: a small partial BCube still has the full level-k layer of
     * n^k switches with n ports each. */
    uint64_t nk = servers / parts;
    uint64_t ports = servers * (k + 1) + (k * parts * (nk / n) + nk) * n;
    if (ports > BCUBE_MAX_PORTS) {
        snprintf(err, errlen, "bcube: n=%llu k=%llu parts=%llu needs %llu ports, too many (at most %llu)",
                 (unsigned long long)n, (unsigned long long)k, (unsigned long long)parts, (unsigned long long)ports,
                 BCUBE_MAX_PORTS);
        return -1;
    }
    return 0;
}

static void bcube_destroy(dcn_topo *t)
{
    free(t->priv);
    t->priv = NULL;
}

static int bcube_build(dcn_topo *t, char *err, size_t errlen)
{
    uint32_t n = (uint32_t)dcn_param(&t->params, "n"), k = (uint32_t)dcn_param(&t->params, "k");
    uint32_t parts = effective_parts(&t->params);
    /* Record the effective value, so export and stats show parts=n. */
    for (int i = 0; i < t->params.count; i++)
        if (t->params.names[i] && strcmp(t->params.names[i], "parts") == 0)
            t->params.value[i] = parts;
    bcube_layout *lay = malloc(sizeof *lay);
    if (!lay) {
        snprintf(err, errlen, "bcube: out of memory");
        return -1;
    }
    bcube_layout_init(lay, n, k, parts);
    t->priv = lay;
    if (dcn_topo_alloc_uniform(t, lay->n_servers, (uint16_t)(k + 1), lay->n_switches, (uint16_t)n, err, errlen) < 0)
        return -1;
    for (uint32_t a = 0; a < lay->n_servers; a++)
        for (uint32_t l = 0; l <= k; l++) {
            uint32_t sw = bcube_switch_node(lay, bc_switch_of(&lay->d, a, l));
            if (sw == DCN_NONE) {
                snprintf(err, errlen, "bcube: wiring bug: server %u level %u has no switch", a, l);
                return -1;
            }
            if (dcn_topo_connect(t, a, (uint16_t)l, sw, (uint16_t)bc_digit(&lay->d, a, l), err, errlen) < 0)
                return -1;
        }
    return 0;
}

static void bcube_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    const bcube_layout *lay = t->priv;
    if (v < t->n_servers)
        bcube_server_name(&lay->d, v, buf, len);
    else
        bcube_switch_name(&lay->d, bcube_switch_index(lay, v), buf, len);
}

static int check_request(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    out->count = 0;
    return (t->priv && src < t->n_servers && dst < t->n_servers && src != dst) ? 0 : -1;
}

/* BuildPathSet (k+1 parallel paths, out->path[i] leaving src on level i;
 * k paths when parts = 1), then BSR's repair of the paths that cross a
 * failure. */
static int bcube_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    if (check_request(t, src, dst, out) < 0)
        return -1;
    const bcube_layout *lay = t->priv;
    uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
    bc_build_pathset_partial(&lay->d, lay->parts, src, dst, seqs, lens);
    for (uint32_t i = 0; i <= lay->d.k; i++) {
        if (lens[i] == 0)
            continue;
        if (bcube_expand(lay, seqs[i], lens[i], &out->path[out->count]) < 0)
            return -1;
        out->count++;
    }
    if (ctx && ctx->failures)
        return dcn_pathset_repair(t, ctx->failures, out);
    return (int)out->count;
}

/* BCubeRouting with Π = [k, k-1, ..., 0]: one shortest path, correcting the
 * highest differing digit first. No detour: 0 paths when it crosses a
 * failure ("pathset" and "shortest" route around failures). */
static int bcube_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    if (check_request(t, src, dst, out) < 0)
        return -1;
    const bcube_layout *lay = t->priv;
    uint32_t perm[BC_MAX_LEVELS], seq[BC_MAX_LEVELS + 3];
    for (uint32_t j = 0; j <= lay->d.k; j++)
        perm[j] = lay->d.k - j;
    uint32_t len = bc_route(&lay->d, src, dst, perm, seq);
    if (bcube_expand(lay, seq, len, &out->path[0]) < 0)
        return -1;
    out->count = 1;
    if (ctx && ctx->failures && !dcn_path_valid(&out->path[0], t, ctx->failures, NULL))
        out->count = 0;
    return (int)out->count;
}

static void bcube_formulas(const dcn_topo *t, struct dcn_json *j)
{
    const bcube_layout *lay = t->priv;
    long long n = lay->d.n, k = lay->d.k, parts = lay->parts, nk = lay->d.pow[k];
    /* The paper's full-BCube counts, then those of what was built. */
    dcn_json_int(j, "full_servers", n * nk);         /* N = n^(k+1) */
    dcn_json_int(j, "full_switches", (k + 1) * nk);  /* (k+1) n^k */
    dcn_json_int(j, "full_links", n * nk * (k + 1)); /* N (k+1) */
    dcn_json_int(j, "servers", parts * nk);                      /* parts n^k */
    dcn_json_int(j, "switches", k * parts * (nk / n) + nk);     /* k parts n^(k-1) + n^k */
    dcn_json_int(j, "links", parts * nk * (k + 1));             /* every server port is cabled */
    dcn_json_int(j, "free_switch_ports", (n - parts) * nk);     /* level-k ports to absent servers */
    dcn_json_int(j, "server_ports", k + 1);
    dcn_json_int(j, "switch_ports", n);
    /* Theorems 1 and 3. With parts = 1 the top digit never differs and the
     * level-k ports lead nowhere: it routes like a BCube_(k-1). */
    long long top = parts == 1 && k > 0 ? k - 1 : k;
    dcn_json_int(j, "diameter_server_hops", top + 1);
    dcn_json_int(j, "parallel_paths", top + 1);
    dcn_json_int(j, "longest_parallel_path_server_hops", top ? top + 2 : 1);
}

static const dcn_algo bcube_algos[] = {
    {"pathset", "BuildPathSet: k+1 node-disjoint paths, path i leaves on level i; BSR's BFS repair under failures",
     bcube_pathset},
    {"route", "BCubeRouting with permutation [k..0]: one shortest path, highest digit first", bcube_route},
};

const dcn_family dcn_family_bcube = {
    .name = "bcube",
    .summary = "BCube_k of n-port switches, servers with k+1 ports (SIGCOMM 2009); parts<n: partial BCube",
    .params = bcube_params,
    .n_params = 3,
    .validate = bcube_validate,
    .build = bcube_build,
    .destroy = bcube_destroy,
    .node_name = bcube_name,
    .algos = bcube_algos,
    .n_algos = 2,
    .metric = DCN_METRIC_HOPS,
    .formulas = bcube_formulas,
    .layout = bcube_figure_layout,
};
