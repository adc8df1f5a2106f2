/* One container's part of an MDCube path: the BCube route from where the
 * path stands (a server, or the switch a fiber entered by) to a server or
 * to the switch of the next fiber. Under failures the container tries its
 * other BCube candidates, then a BFS that stays inside the container, and
 * never reuses a node already on the path (section 4.3: inner failures are
 * repaired inside the container, invisible to the source). */
#ifndef DCN_MDCUBE_SEGMENT_H
#define DCN_MDCUBE_SEGMENT_H

#include <stdint.h>

#include "failures.h"
#include "mdcube_geom.h"
#include "path.h"
#include "topo.h"

typedef struct md_builder {
    const dcn_topo *t;
    const md_geom *g;
    const dcn_failures *f; /* may be NULL */
    dcn_path *p;           /* the path so far; its last node is in container c */
} md_builder;

/* Node id <-> (container, BCube server address or switch index). */
static inline uint32_t md_node_container(const md_builder *b, uint32_t v)
{
    return v < b->t->n_servers ? v / b->g->t : (v - b->t->n_servers) / b->g->g;
}
static inline uint32_t md_node_local(const md_builder *b, uint32_t v)
{
    return v < b->t->n_servers ? v % b->g->t : (v - b->t->n_servers) % b->g->g;
}

/* Appends the nodes of server sequence seq (BCube addresses in container c,
 * consecutive ones one digit apart), then the switch `last_switch` unless it
 * is DCN_NONE. skip_first drops seq[0] (already on the path). Checks every
 * node and link against the failures and the path; on -1 the path is
 * unchanged. */
int md_append_seq(md_builder *b, uint32_t c, const uint32_t *seq, uint32_t len, int skip_first, uint32_t last_switch);

/* From the path's last node, inside container c, to server bsid. */
int md_seg_to_server(md_builder *b, uint32_t c, uint32_t bsid);
/* From the path's last node, inside container c, to switch bwid; transit
 * picks the switch-to-switch candidate (0 = shortest). */
int md_seg_to_switch(md_builder *b, uint32_t c, uint32_t bwid, uint32_t transit);
/* Crosses the fiber from the path's last node (a switch) to peer. */
int md_seg_fiber(md_builder *b, uint32_t peer);

#endif
