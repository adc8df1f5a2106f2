#include "neigh.h"

#include <string.h>

#include "nha.h"

/* Where self sits in neighbour node's table: the port of node whose NHA
 * of index *idx leads to self (NEIGH_NO_INDEX when none does). */
static void index_at_peer(const dcn_topo *t, uint32_t self, uint32_t node, uint8_t *port, uint8_t *idx)
{
    *port = 0;
    *idx = NEIGH_NO_INDEX;
    uint16_t np = dcn_nports(t, node);
    for (unsigned p = 0; p < np && p < NHA_MAX_PORTS; p++)
        for (unsigned i = 0; i < 64; i++) {
            uint32_t via[3];
            unsigned nv = nha_step(t, node, nha_make(p, i), via);
            if (nv && via[nv - 1] == self) {
                *port = (uint8_t)p;
                *idx = (uint8_t)i;
                return;
            }
        }
}

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
            index_at_peer(t, self, e->node, &e->peer_port, &e->idx_at_peer);
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
                   bool heard_known, unsigned from_port, uint64_t heard, int *change)
{
    *change = 0;
    int i = neigh_find(nt, port, node);
    if (i < 0)
        return -1;
    neigh_entry *e = &nt->e[i];
    if (memcmp(e->mac, mac, 6) != 0) {
        if (e->alive)
            return NEIGH_MAC_CONFLICT;
        nt->gen++;
    }
    memcpy(e->mac, mac, 6);
    e->last_heard_ms = now_ms;
    e->heard = 1;
    e->alive = 1;
    /* a set about another port of the sender than the one towards us, or
     * with us at no index, says nothing of us */
    uint8_t hears_us = !heard_known || from_port != e->peer_port || e->idx_at_peer == NEIGH_NO_INDEX ||
                       (heard >> e->idx_at_peer & 1);
    if (hears_us != e->up) {
        e->up = hears_us;
        nt->gen++;
        *change = e->up ? 1 : -1;
    }
    return i;
}

uint64_t neigh_heard_on(const neigh_table *nt, unsigned port)
{
    uint64_t set = 0;
    for (unsigned i = 0; i < 64; i++) {
        const neigh_entry *e = &nt->e[nha_make(port, i)];
        if (e->valid && e->alive) /* the entries of NHA (port, i) are on port */
            set |= 1ull << i;
    }
    return set;
}

bool neigh_port_unvouched(const neigh_table *nt, unsigned port, uint64_t now_ms, uint64_t recent_ms)
{
    unsigned valid = 0;
    for (unsigned i = 0; i < 64; i++) {
        const neigh_entry *e = &nt->e[nha_make(port, i)];
        if (!e->valid)
            continue;
        if (neigh_vouches(e, now_ms, recent_ms))
            return false;
        valid++;
    }
    return valid >= 2;
}

/* An entry no longer heard: not alive, and down. Returns 1 when it was up. */
static unsigned silenced(neigh_table *nt, neigh_entry *e)
{
    e->alive = 0;
    if (!e->up)
        return 0;
    e->up = 0;
    nt->gen++;
    return 1;
}

unsigned neigh_expire(neigh_table *nt, uint64_t now_ms, uint64_t dead_ms)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 256; i++) {
        neigh_entry *e = &nt->e[i];
        if (e->valid && e->alive && now_ms - e->last_heard_ms > dead_ms)
            n += silenced(nt, e);
    }
    return n;
}

uint64_t neigh_next_expiry(const neigh_table *nt, uint64_t dead_ms)
{
    uint64_t first = UINT64_MAX;
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *e = &nt->e[i];
        if (e->valid && e->alive && e->last_heard_ms + dead_ms + 1 < first)
            first = e->last_heard_ms + dead_ms + 1;
    }
    return first;
}

unsigned neigh_port_down(neigh_table *nt, unsigned port)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 256; i++) {
        neigh_entry *e = &nt->e[i];
        if (e->valid && e->port == port && e->alive) /* up implies alive */
            n += silenced(nt, e);
    }
    return n;
}
