#include "sim_failures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/rng.h"

static const char *const kind_names[] = {"none", "server", "switch", "link"};

int sim_fail_kind_parse(const char *s, sim_fail_kind *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, kind_names[i]) == 0) {
            *out = (sim_fail_kind)i;
            return 0;
        }
    return -1;
}

const char *sim_fail_kind_name(sim_fail_kind k) { return kind_names[k]; }

/* Every cable once, as the global index of its lower port. */
static uint64_t list_cables(const dcn_topo *t, uint32_t *out)
{
    uint64_t n = 0;
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++)
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            dcn_end e = dcn_peer(t, v, p);
            if (e.node == DCN_NONE || e.node < v || (e.node == v && e.port < p))
                continue;
            out[n++] = t->port_base[v] + p;
        }
    return n;
}

/* The node that owns global port index gp (binary search in port_base). */
static uint32_t port_owner(const dcn_topo *t, uint32_t gp)
{
    uint32_t lo = 0, hi = dcn_n_nodes(t);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->port_base[mid] <= gp)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

long sim_failures_sample(dcn_failures *f, const dcn_topo *t, sim_fail_kind kind, double ratio, uint64_t seed)
{
    dcn_failures_clear(f, t);
    if (kind == SIM_FAIL_NONE || ratio <= 0)
        return 0;
    uint64_t pop = kind == SIM_FAIL_SERVER ? t->n_servers : kind == SIM_FAIL_SWITCH ? t->n_switches : t->n_links;
    uint32_t *items = malloc((pop ? pop : 1) * sizeof *items);
    if (!items)
        return -1;
    if (kind == SIM_FAIL_LINK)
        pop = list_cables(t, items);
    else
        for (uint64_t i = 0; i < pop; i++)
            items[i] = (uint32_t)(kind == SIM_FAIL_SERVER ? i : t->n_servers + i);
    uint64_t want = (uint64_t)llround(ratio * (double)pop);
    if (want > pop)
        want = pop;
    dcn_rng rng;
    dcn_rng_seed(&rng, seed * 0x9E3779B97F4A7C15ull + (uint64_t)kind);
    for (uint64_t i = 0; i < want; i++) {
        uint64_t j = i + dcn_rng_below(&rng, (uint32_t)(pop - i));
        uint32_t x = items[j];
        items[j] = items[i];
        items[i] = x;
        if (kind == SIM_FAIL_LINK) {
            uint32_t v = port_owner(t, x);
            dcn_fail_port(f, t, v, (uint16_t)(x - t->port_base[v]));
        } else {
            dcn_fail_node(f, x);
        }
    }
    free(items);
    return (long)want;
}
