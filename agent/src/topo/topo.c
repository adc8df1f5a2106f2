#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

int dcn_topo_alloc(dcn_topo *t, uint32_t n_servers, uint32_t n_switches, const uint16_t *server_ports,
                   const uint16_t *switch_ports, char *err, size_t errlen)
{
    uint64_t nodes = (uint64_t)n_servers + n_switches;
    if (nodes == 0 || nodes >= DCN_NONE) {
        snprintf(err, errlen, "%s: %llu nodes is not a buildable size", t->family ? t->family->name : "topo",
                 (unsigned long long)nodes);
        return -1;
    }
    t->n_servers = n_servers;
    t->n_switches = n_switches;
    t->port_base = malloc((nodes + 1) * sizeof *t->port_base);
    if (!t->port_base)
        goto oom;
    uint64_t total = 0;
    for (uint64_t v = 0; v < nodes; v++) {
        t->port_base[v] = (uint32_t)total;
        total += v < n_servers ? server_ports[v] : switch_ports[v - n_servers];
        if (total >= DCN_NONE)
            goto oom;
    }
    t->port_base[nodes] = (uint32_t)total;
    t->peer = malloc((total ? total : 1) * sizeof *t->peer);
    if (!t->peer)
        goto oom;
    for (uint64_t i = 0; i < total; i++)
        t->peer[i] = (dcn_end){DCN_NONE, 0};
    t->n_links = 0;
    return 0;
oom:
    free(t->port_base);
    t->port_base = NULL;
    snprintf(err, errlen, "%s: out of memory for %llu nodes", t->family ? t->family->name : "topo",
             (unsigned long long)nodes);
    return -1;
}

int dcn_topo_alloc_uniform(dcn_topo *t, uint32_t n_servers, uint16_t server_ports, uint32_t n_switches,
                           uint16_t switch_ports, char *err, size_t errlen)
{
    uint16_t *sp = malloc((n_servers ? n_servers : 1) * sizeof *sp);
    uint16_t *wp = malloc((n_switches ? n_switches : 1) * sizeof *wp);
    int rc = -1;
    if (!sp || !wp) {
        snprintf(err, errlen, "out of memory");
    } else {
        for (uint32_t i = 0; i < n_servers; i++)
            sp[i] = server_ports;
        for (uint32_t i = 0; i < n_switches; i++)
            wp[i] = switch_ports;
        rc = dcn_topo_alloc(t, n_servers, n_switches, sp, wp, err, errlen);
    }
    free(sp);
    free(wp);
    return rc;
}

int dcn_topo_connect(dcn_topo *t, uint32_t a, uint16_t ap, uint32_t b, uint16_t bp, char *err, size_t errlen)
{
    uint32_t n = dcn_n_nodes(t);
    if (a >= n || b >= n || a == b || ap >= dcn_nports(t, a) || bp >= dcn_nports(t, b)) {
        snprintf(err, errlen, "wiring bug: cannot cable node %u port %u to node %u port %u", a, ap, b, bp);
        return -1;
    }
    dcn_end *ea = &t->peer[t->port_base[a] + ap];
    dcn_end *eb = &t->peer[t->port_base[b] + bp];
    if (ea->node != DCN_NONE || eb->node != DCN_NONE) {
        snprintf(err, errlen, "wiring bug: node %u port %u or node %u port %u is already cabled", a, ap, b, bp);
        return -1;
    }
    *ea = (dcn_end){b, bp};
    *eb = (dcn_end){a, ap};
    t->n_links++;
    return 0;
}

int dcn_topo_port_to(const dcn_topo *t, uint32_t a, uint32_t b)
{
    if (a >= dcn_n_nodes(t))
        return -1;
    uint16_t np = dcn_nports(t, a);
    for (uint16_t p = 0; p < np; p++)
        if (dcn_peer(t, a, p).node == b)
            return p;
    return -1;
}

void dcn_topo_free(dcn_topo *t)
{
    if (t->family && t->family->destroy && t->priv)
        t->family->destroy(t);
    free(t->port_base);
    free(t->peer);
    t->port_base = NULL;
    t->peer = NULL;
    t->priv = NULL;
}

void dcn_node_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    if (v >= dcn_n_nodes(t)) {
        snprintf(buf, len, "?%u", v);
        return;
    }
    t->family->node_name(t, v, buf, len);
}

uint32_t dcn_node_lookup(const dcn_topo *t, const char *name)
{
    uint32_t n = dcn_n_nodes(t);
    if (name[0] == '#') {
        char *end;
        unsigned long v = strtoul(name + 1, &end, 10);
        return (*end || end == name + 1 || v >= n) ? DCN_NONE : (uint32_t)v;
    }
    char buf[DCN_NAME_MAX];
    for (uint32_t v = 0; v < n; v++) {
        dcn_node_name(t, v, buf, sizeof buf);
        if (strcmp(buf, name) == 0)
            return v;
    }
    return DCN_NONE;
}
