#include "flow_mirror.h"

#include <string.h>

_Static_assert((FLOW_MIRROR_SLOTS & (FLOW_MIRROR_SLOTS - 1)) == 0, "a power of two");

struct krelay_flow_key flow_mirror_key(const dcn_flow_key *k)
{
    struct krelay_flow_key out;
    memset(&out, 0, sizeof out);
    const uint8_t src[4] = {(uint8_t)(k->src_ip >> 24), (uint8_t)(k->src_ip >> 16), (uint8_t)(k->src_ip >> 8),
                            (uint8_t)k->src_ip};
    const uint8_t dst[4] = {(uint8_t)(k->dst_ip >> 24), (uint8_t)(k->dst_ip >> 16), (uint8_t)(k->dst_ip >> 8),
                            (uint8_t)k->dst_ip};
    const uint8_t ports[4] = {(uint8_t)(k->src_port >> 8), (uint8_t)k->src_port, (uint8_t)(k->dst_port >> 8),
                              (uint8_t)k->dst_port};
    memcpy(&out.src_ip, src, 4);
    memcpy(&out.dst_ip, dst, 4);
    memcpy(&out.src_port, ports, 2);
    memcpy(&out.dst_port, ports + 2, 2);
    out.proto = k->proto;
    return out;
}

static unsigned home_of(const struct krelay_flow_key *k)
{
    const uint8_t *b = (const uint8_t *)k;
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < sizeof *k; i++)
        hash = (hash ^ b[i]) * 16777619u;
    return hash & (FLOW_MIRROR_SLOTS - 1);
}

flow_mirror_entry *flow_mirror_find(flow_mirror *m, const struct krelay_flow_key *k)
{
    for (unsigned i = home_of(k), probes = 0; probes < FLOW_MIRROR_SLOTS; i = (i + 1) & (FLOW_MIRROR_SLOTS - 1), probes++) {
        flow_mirror_entry *e = &m->slot[i];
        if (!e->used)
            return NULL;
        if (memcmp(&e->key, k, sizeof *k) == 0)
            return e;
    }
    return NULL;
}

flow_mirror_entry *flow_mirror_add(flow_mirror *m, const struct krelay_flow_key *k)
{
    flow_mirror_entry *e = flow_mirror_find(m, k);
    if (e)
        return e;
    if (m->n >= KRELAY_FLOWS)
        return NULL;
    unsigned i = home_of(k);
    while (m->slot[i].used)
        i = (i + 1) & (FLOW_MIRROR_SLOTS - 1);
    e = &m->slot[i];
    memset(e, 0, sizeof *e);
    e->used = true;
    e->key = *k;
    m->n++;
    return e;
}

/* Backward-shift deletion: the entries after the hole that may move into it
 * do, so that every find still reaches its entry without tombstones. */
void flow_mirror_remove(flow_mirror *m, flow_mirror_entry *e)
{
    unsigned hole = (unsigned)(e - m->slot);
    m->slot[hole].used = false;
    m->n--;
    for (unsigned i = (hole + 1) & (FLOW_MIRROR_SLOTS - 1); m->slot[i].used; i = (i + 1) & (FLOW_MIRROR_SLOTS - 1)) {
        unsigned home = home_of(&m->slot[i].key);
        /* the entry at i may fill the hole when its home is not in (hole, i] */
        bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (stays)
            continue;
        m->slot[hole] = m->slot[i];
        m->slot[i].used = false;
        hole = i;
    }
}
