/* Harness: the topology parameter parser. The input is a spec as typed
 * on a command line ("bcube n=4 k=1"), split at blanks like dcn-agent
 * --topo. Every input goes through the family lookup, dcn_params_parse and
 * the family's validate; inputs that name a small topology (under ~10^4
 * servers, estimated from the parameters) are also built with
 * dcn_topo_build, checked against the NHA limits, and the last word is
 * looked up as a node name. Large valid topologies are legitimate and
 * slow to build, so they stop after validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/nha.h"
#include "fuzz.h"
#include "topo/family.h"

#define SPEC_MAX 256
#define WORDS_MAX 16
#define SMALL 10000.0

static double val(const dcn_params *p, const char *name, double def)
{
    for (int i = 0; i < p->count; i++)
        if (p->names[i] && strcmp(p->names[i], name) == 0)
            return (double)p->value[i];
    return def;
}

static double dims_product(const dcn_params *p, const char *name)
{
    long d[DCN_MAX_DIMS];
    int n = dcn_param_dims(p, name, d);
    double x = 1;
    for (int i = 0; i < n && i < DCN_MAX_DIMS; i++)
        x *= (double)d[i];
    return x;
}

/* An over-estimate of the number of servers. */
static double servers(const char *fam, const dcn_params *p)
{
    double n = val(p, "n", 4), k = val(p, "k", 1), h = val(p, "h", 1);
    if (!strcmp(fam, "bcube"))
        return pow(n, k + 1);
    if (!strcmp(fam, "mdcube"))
        return pow(n, k + 1) * dims_product(p, "m");
    if (!strcmp(fam, "dcell") || !strcmp(fam, "ficonn")) {
        double t = n;
        for (int i = 0; i < (int)k; i++)
            t = t * (t + 1);
        return t;
    }
    if (!strcmp(fam, "hcn"))
        return pow(n, h + 1);
    if (!strcmp(fam, "bcn"))
        return pow(val(p, "alpha", 4) + val(p, "beta", 4), h + val(p, "gamma", 1) + 2);
    if (!strcmp(fam, "bcdc"))
        return n * pow(2, n - 1);
    if (!strcmp(fam, "fattree"))
        return pow(k, 3) / 4;
    if (!strcmp(fam, "tree"))
        return val(p, "leaves", 4) * val(p, "per_leaf", 4);
    double x = 1; /* a family added later: every value multiplied */
    for (int i = 0; i < p->count; i++)
        x *= (double)(p->value[i] > 1 ? p->value[i] : 1);
    return x * x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char spec[SPEC_MAX + 1];
    size_t n = size < SPEC_MAX ? size : SPEC_MAX;
    memcpy(spec, data, n);
    spec[n] = '\0';
    char *words[WORDS_MAX], *save = NULL;
    int nw = 0;
    for (char *w = strtok_r(spec, " \t\n", &save); w && nw < WORDS_MAX; w = strtok_r(NULL, " \t\n", &save))
        words[nw++] = w;
    if (nw == 0)
        return 0;
    char err[256];
    const dcn_family *fam = dcn_family_find(words[0]);
    if (!fam) {
        dcn_topo t;
        if (dcn_topo_build(&t, words[0], nw - 1, words + 1, err, sizeof err) == 0)
            abort(); /* an unknown family must not build */
        return 0;
    }
    dcn_params p;
    if (dcn_params_parse(&p, fam->name, fam->params, fam->n_params, nw - 1, words + 1, err, sizeof err) < 0)
        return 0;
    if (fam->validate && fam->validate(&p, err, sizeof err) < 0)
        return 0;
    if (servers(fam->name, &p) > SMALL)
        return 0;
    dcn_topo t;
    if (dcn_topo_build(&t, words[0], nw - 1, words + 1, err, sizeof err) < 0)
        return 0;
    nha_topology_check(&t, err, sizeof err);
    char name[DCN_NAME_MAX];
    uint32_t last = dcn_n_nodes(&t) - 1;
    dcn_node_name(&t, last, name, sizeof name);
    if (dcn_node_lookup(&t, name) != last)
        abort(); /* names and lookup are inverses */
    dcn_node_lookup(&t, words[nw - 1]);
    dcn_topo_free(&t);
    return 0;
}
