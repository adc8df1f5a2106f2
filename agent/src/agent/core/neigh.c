#include "neigh.h"

#include <string.h>

#include "nha.h"

unsigned neigh_build(neigh_table *nt, const dcn_topo *t, uint32_t self)
{
    memset(nt, 0, sizeof *nt);
    uint16_t np = dcn_nports(t, self);
    for (unsigned p = 0; p < np && p < NHA_MAX_PORTS; p++) {
        for (unsigned idx = 0; idx < 64; idx++) {
            uint8_t nha = nha_make(p, idx);
            uint32_t via[3];
            unsigned nv = nha_step(t, self, nha, via);
            if (!nv)
                continue;
            neigh_entry *e = &nt->e[nha];
            e->valid = 1;
            e->port = (uint8_t)p;
            e->node = via[nv - 1];
            nt->n_valid++;
        }
    }
    return nt->n_valid;
}

int neigh_find(const neigh_table *nt, unsigned port, uint32_t node)
{
    for (unsigned i = 0; i < 256; i++)
        if (nt->e[i].valid && nt->e[i].port == port && nt->e[i].node == node)
            return (int)i;
    return -1;
}

int neigh_on_hello(neigh_table *nt, unsigned port, uint32_t node, const uint8_t mac[6], uint64_t now_ms,
                   bool *went_up)
{
    *went_up = false;
    int i = neigh_find(nt, port, node);
    if (i < 0)
        return -1;
    neigh_entry *e = &nt->e[i];
    if (memcmp(e->mac, mac, 6) != 0) {
        if (e->up)
            return NEIGH_MAC_CONFLICT;
        nt->gen++;
    }
    memcpy(e->mac, mac, 6);
    e->last_heard_ms = now_ms;
    e->heard = 1;
    if (!e->up) {
        e->up = 1;
        nt->gen++;
        *went_up = true;
    }
    return i;
}

unsigned neigh_expire(neigh_table *nt, uint64_t now_ms, uint64_t dead_ms)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 256; i++) {
        neigh_entry *e = &nt->e[i];
        if (e->valid && e->up && now_ms - e->last_heard_ms > dead_ms) {
            e->up = 0;
            nt->gen++;
            n++;
        }
    }
    return n;
}

uint64_t neigh_next_expiry(const neigh_table *nt, uint64_t dead_ms)
{
    uint64_t first = UINT64_MAX;
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *e = &nt->e[i];
        if (e->valid && e->up && e->last_heard_ms + dead_ms + 1 < first)
            first = e->last_heard_ms + dead_ms + 1;
    }
    return first;
}

unsigned neigh_port_down(neigh_table *nt, unsigned port)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 256; i++) {
        neigh_entry *e = &nt->e[i];
        if (e->valid && e->port == port && e->up) {
            e->up = 0;
            nt->gen++;
            n++;
        }
    }
    return n;
}
