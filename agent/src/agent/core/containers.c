#include "containers.h"

#include <stdlib.h>

static int is_fiber(const dcn_topo *t, uint32_t v, dcn_end e)
{
    return e.node != DCN_NONE && dcn_kind(t, v) == DCN_SWITCH && dcn_kind(t, e.node) == DCN_SWITCH;
}

int containers_build(const dcn_topo *t, uint32_t **of)
{
    *of = NULL;
    uint32_t n = dcn_n_nodes(t);
    int any = 0;
    for (uint32_t v = t->n_servers; v < n && !any; v++)
        for (uint16_t p = 0; p < dcn_nports(t, v) && !any; p++)
            any = is_fiber(t, v, dcn_peer(t, v, p));
    if (!any)
        return 0;
    uint32_t *c = malloc((size_t)n * sizeof *c);
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    if (!c || !queue) {
        free(c);
        free(queue);
        return -1;
    }
    for (uint32_t v = 0; v < n; v++)
        c[v] = DCN_NONE;
    uint32_t count = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (c[s] != DCN_NONE)
            continue;
        uint32_t head = 0, tail = 0;
        queue[tail++] = s;
        c[s] = count;
        while (head < tail) {
            uint32_t v = queue[head++];
            for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
                dcn_end e = dcn_peer(t, v, p);
                if (e.node == DCN_NONE || is_fiber(t, v, e) || c[e.node] != DCN_NONE)
                    continue;
                c[e.node] = count;
                queue[tail++] = e.node;
            }
        }
        count++;
    }
    free(queue);
    *of = c;
    return (int)count;
}
