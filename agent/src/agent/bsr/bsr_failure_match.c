/* Which of our flows a path-failure message concerns (bsr_failure_match):
 * the data plane accepts a message addressed to us only when it names a
 * link on the path of a flow we know. */
#include "bsr_internal.h"

/* p starts with prefix and crosses a-b (either direction) between the
 * prefix's last node and the next server after it. -1: p does not start
 * with prefix; 0: it does, but not over a-b; 1: it does, over a-b. */
static int path_match(const bsr *b, const dcn_path *p, const dcn_path *prefix, uint32_t na, uint32_t nb)
{
    if (prefix->len == 0 || p->len <= prefix->len)
        return -1;
    for (uint32_t i = 0; i < prefix->len; i++)
        if (p->node[i] != prefix->node[i])
            return -1;
    for (uint32_t i = prefix->len - 1; i + 1 < p->len; i++) {
        uint32_t u = p->node[i], v = p->node[i + 1];
        if ((u == na && v == nb) || (u == nb && v == na))
            return 1;
        if (v < b->t->n_servers)
            break; /* the next server: the hop beyond the reporter ends here */
    }
    return 0;
}

bsr_fail_match bsr_failure_match(const bsr *b, const dcn_path *to_reporter, uint32_t node_a, uint32_t node_b)
{
    if (!b || !to_reporter)
        return BSR_FAIL_UNKNOWN_FLOW;
    bool through = false;
    for (const bsr_flow *f = bsr_flow_first(&b->ft); f; f = bsr_flow_next(&b->ft, f)) {
        int m = path_match(b, &f->cur, to_reporter, node_a, node_b);
        for (uint32_t i = 0; m < 1 && i < f->n_paths; i++) {
            int mi = path_match(b, &f->paths[i].path, to_reporter, node_a, node_b);
            m = mi > m ? mi : m;
        }
        if (m == 1)
            return BSR_FAIL_ON_PATH;
        through |= m == 0;
    }
    return through ? BSR_FAIL_LINK_OFF_PATH : BSR_FAIL_UNKNOWN_FLOW;
}
