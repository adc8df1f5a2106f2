#include "sim_routing.h"

#include <stdio.h>
#include <string.h>

#include "sim_mdcube_ft.h"

/* Algorithms that may route around failures even when the fault-free
 * answer survives them: always asked with the failures. */
static bool needs_failures_always(const char *algo)
{
    return strcmp(algo, "bfrouting") == 0 || strcmp(algo, "reroute") == 0;
}

static void list_algos(const dcn_topo *t, char *buf, size_t len)
{
    const dcn_family *fam = t->family;
    int off = snprintf(buf, len, "bsr bsr-greedy ecmp");
    for (int i = 0; i < fam->n_algos && off > 0 && (size_t)off < len; i++)
        off += snprintf(buf + off, len - (size_t)off, " %s", fam->algos[i].name);
    if (off > 0 && (size_t)off < len)
        snprintf(buf + off, len - (size_t)off, " shortest%s", strcmp(fam->name, "mdcube") ? "" : " detour-ft");
}

int sim_routing_resolve(sim_routing *r, const dcn_topo *t, const char *name, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char base[32];
    const char *colon = strchr(name, ':');
    size_t blen = colon ? (size_t)(colon - name) : strlen(name);
    if (blen == 0 || blen >= sizeof base) {
        snprintf(err, errlen, "--routing '%s': empty or too long", name);
        return -1;
    }
    memcpy(base, name, blen);
    base[blen] = '\0';
    const char *algo_name = base;
    r->pick = SIM_PICK_FIRST;
    if (strcmp(base, "bsr") == 0) {
        algo_name = "pathset";
        r->pick = SIM_PICK_RANDOM;
    } else if (strcmp(base, "bsr-greedy") == 0) {
        algo_name = "pathset";
        r->pick = SIM_PICK_LEAST_LOADED;
    } else if (strcmp(base, "ecmp") == 0) {
        algo_name = dcn_family_algo(t->family, "ecmp") ? "ecmp" : "pathset";
        r->pick = SIM_PICK_RANDOM;
    }
    r->algo = dcn_family_algo(t->family, algo_name);
    if (!r->algo && strcmp(t->family->name, "mdcube") == 0 && strcmp(algo_name, sim_algo_mdcube_detour_ft.name) == 0)
        r->algo = &sim_algo_mdcube_detour_ft;
    if (!r->algo) {
        char known[256];
        list_algos(t, known, sizeof known);
        snprintf(err, errlen, "--routing %s: %s has no such routing (known: %s)", base, t->family->name, known);
        return -1;
    }
    if (colon) {
        const char *p = colon + 1;
        if (strcmp(p, "first") == 0)
            r->pick = SIM_PICK_FIRST;
        else if (strcmp(p, "least-loaded") == 0)
            r->pick = SIM_PICK_LEAST_LOADED;
        else if (strcmp(p, "random") == 0)
            r->pick = SIM_PICK_RANDOM;
        else {
            snprintf(err, errlen, "--routing %s: unknown path choice '%s' (allowed first, least-loaded, random)",
                     name, p);
            return -1;
        }
    }
    r->oblivious_first = !needs_failures_always(r->algo->name);
    snprintf(r->name, sizeof r->name, "%s", name);
    return 0;
}
