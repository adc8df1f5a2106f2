/* DCell's sizes and DCellRouting, shared by the builder (dcell.c) and DFR
 * (dcell_dfr.c), so that neither needs the other. */
#include "dcell_shape.h"

#include "../path.h"

void dcell_sizes(long n, long k, long *t)
{
    t[0] = n;
    for (long l = 1; l <= k; l++)
        t[l] = t[l - 1] > DCELL_MAX_SERVERS ? DCELL_MAX_SERVERS + 1 : t[l - 1] * (t[l - 1] + 1);
}

dcell_shape dcell_shape_of(const dcn_topo *t)
{
    dcell_shape s = {(uint32_t)dcn_param(&t->params, "n"), (uint32_t)dcn_param(&t->params, "k"), {0}, 0};
    long sz[DCELL_MAX_K + 1];
    dcell_sizes(s.n, s.k, sz);
    for (uint32_t l = 0; l <= s.k; l++)
        s.t[l] = (uint32_t)sz[l];
    long ns = dcn_param(&t->params, "servers");
    s.n_present = ns ? (uint32_t)ns : s.t[s.k];
    return s;
}

/* DCellRouting on uids inside one DCell_l: the servers of the link between
 * the two sub-DCells, and recursion on both sides. */
int dcell_route_servers(const dcell_shape *s, uint32_t src, uint32_t dst, uint32_t l, dcn_path *out)
{
    if (src == dst)
        return dcn_path_push(out, src);
    while (l > 0 && src / s->t[l - 1] == dst / s->t[l - 1])
        l--;
    if (l == 0) { /* one DCell_0: through the switch */
        if (dcn_path_push(out, src) < 0)
            return -1;
        return dcn_path_push(out, dst);
    }
    uint32_t sub = s->t[l - 1], base = src - src % s->t[l];
    uint32_t a = (src % s->t[l]) / sub, b = (dst % s->t[l]) / sub;
    uint32_t n1 = base + a * sub + (a < b ? b - 1 : b);
    uint32_t n2 = base + b * sub + (a < b ? a : a - 1);
    if (dcell_route_servers(s, src, n1, l - 1, out) < 0)
        return -1;
    return dcell_route_servers(s, n2, dst, l - 1, out);
}
