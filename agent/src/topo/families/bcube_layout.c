#include "bcube_layout.h"

#include "topo.h"

void bcube_layout_init(bcube_layout *lay, uint32_t n, uint32_t k, uint32_t parts)
{
    bc_dims_init(&lay->d, n, k);
    lay->parts = parts;
    lay->n_servers = parts * lay->d.pow[k];
    lay->low_switches = k ? parts * lay->d.pow[k - 1] : 0;
    lay->n_switches = k * lay->low_switches + lay->d.pow[k];
}

uint32_t bcube_switch_node(const bcube_layout *lay, uint32_t sw)
{
    uint32_t k = lay->d.k, l = bc_switch_level(&lay->d, sw), label = sw % lay->d.pow[k];
    if (l > k)
        return DCN_NONE;
    if (l == k)
        return lay->n_servers + k * lay->low_switches + label;
    if (label >= lay->low_switches)
        return DCN_NONE;
    return lay->n_servers + l * lay->low_switches + label;
}

uint32_t bcube_switch_index(const bcube_layout *lay, uint32_t v)
{
    uint32_t j = v - lay->n_servers, k = lay->d.k;
    if (j >= k * lay->low_switches)
        return k * lay->d.pow[k] + (j - k * lay->low_switches);
    return j / lay->low_switches * lay->d.pow[k] + j % lay->low_switches;
}

uint32_t bcube_diff_level(const bcube_layout *lay, uint32_t x, uint32_t y)
{
    uint32_t diff = x > y ? x - y : y - x, l = 0;
    while (l < lay->d.k && lay->d.pow[l + 1] <= diff)
        l++;
    return l;
}

int bcube_expand(const bcube_layout *lay, const uint32_t *seq, uint32_t len, dcn_path *out)
{
    out->len = 0;
    if (len == 0 || 2 * len - 1 > DCN_PATH_MAX)
        return -1;
    out->node[out->len++] = seq[0];
    for (uint32_t i = 1; i < len; i++) {
        uint32_t l = bcube_diff_level(lay, seq[i - 1], seq[i]);
        uint32_t sw = bcube_switch_node(lay, bc_switch_of(&lay->d, seq[i - 1], l));
        if (sw == DCN_NONE)
            return -1;
        out->node[out->len++] = sw;
        out->node[out->len++] = seq[i];
    }
    return 0;
}
