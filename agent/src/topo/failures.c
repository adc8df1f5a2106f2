#include "failures.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

int dcn_failures_init(dcn_failures *f, const dcn_topo *t)
{
    uint32_t n = dcn_n_nodes(t);
    uint32_t ports = t->port_base[n];
    f->node_down = dcn_tmp_calloc(n ? n : 1, 1);
    f->port_down = dcn_tmp_calloc(ports ? ports : 1, 1);
    f->n_nodes_down = f->n_links_down = 0;
    if (!f->node_down || !f->port_down) {
        dcn_failures_free(f);
        return -1;
    }
    return 0;
}

void dcn_failures_free(dcn_failures *f)
{
    dcn_tmp_free(f->node_down);
    dcn_tmp_free(f->port_down);
    f->node_down = f->port_down = NULL;
}

void dcn_failures_clear(dcn_failures *f, const dcn_topo *t)
{
    uint32_t n = dcn_n_nodes(t);
    memset(f->node_down, 0, n);
    memset(f->port_down, 0, t->port_base[n]);
    f->n_nodes_down = f->n_links_down = 0;
}

void dcn_fail_node(dcn_failures *f, uint32_t v)
{
    if (!f->node_down[v]) {
        f->node_down[v] = 1;
        f->n_nodes_down++;
    }
}

void dcn_fail_port(dcn_failures *f, const dcn_topo *t, uint32_t v, uint16_t port)
{
    dcn_end e = dcn_peer(t, v, port);
    uint32_t i = t->port_base[v] + port;
    if (f->port_down[i])
        return;
    f->port_down[i] = 1;
    if (e.node != DCN_NONE)
        f->port_down[t->port_base[e.node] + e.port] = 1;
    f->n_links_down++;
}

int dcn_fail_link(dcn_failures *f, const dcn_topo *t, uint32_t a, uint32_t b)
{
    int p = dcn_topo_port_to(t, a, b);
    if (p < 0)
        return -1;
    dcn_fail_port(f, t, a, (uint16_t)p);
    return 0;
}

bool dcn_hop_ok(const dcn_failures *f, const dcn_topo *t, uint32_t v, uint16_t port)
{
    dcn_end e = dcn_peer(t, v, port);
    if (e.node == DCN_NONE)
        return false;
    if (!f)
        return true;
    return !f->port_down[t->port_base[v] + port] && !f->node_down[e.node];
}

bool dcn_step_ok(const dcn_failures *f, const dcn_topo *t, uint32_t a, uint32_t b)
{
    if (!dcn_node_ok(f, a))
        return false;
    uint16_t np = dcn_nports(t, a);
    for (uint16_t p = 0; p < np; p++)
        if (dcn_peer(t, a, p).node == b && dcn_hop_ok(f, t, a, p))
            return true;
    return false;
}
