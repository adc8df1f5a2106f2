#include "components.h"
#include "bfs.h"
#include "scratch.h"

int dcn_server_components(const dcn_topo *t, const dcn_failures *f, uint32_t *comp_out)
{
    uint32_t n = dcn_n_nodes(t);
    uint32_t *mark = dcn_tmp_alloc(n * sizeof *mark);
    uint32_t *reached = dcn_tmp_alloc(n * sizeof *reached);
    int count = -1;
    if (!mark || !reached)
        goto done;
    for (uint32_t v = 0; v < n; v++)
        mark[v] = UINT32_MAX;
    for (uint32_t s = 0; s < t->n_servers; s++)
        comp_out[s] = DCN_NONE;
    count = 0;
    for (uint32_t s = 0; s < t->n_servers; s++) {
        uint32_t got = dcn_bfs_flood(t, s, f, mark, reached);
        if (!got)
            continue;
        for (uint32_t i = 0; i < got; i++)
            if (dcn_kind(t, reached[i]) == DCN_SERVER)
                comp_out[reached[i]] = (uint32_t)count;
        count++;
    }
done:
    dcn_tmp_free(mark);
    dcn_tmp_free(reached);
    return count;
}
