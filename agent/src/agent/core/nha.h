/* Next-hop addresses (NHA): one byte per server hop, the same scheme for
 * every family so forwarding is one table lookup.
 *
 *   NHA = out port (2 high bits) | index (6 low bits)
 *   - through a switch: index = the switch port the next server sits on;
 *   - over a direct server-server cable: index = 63;
 *   - across a fiber between two switches (MDCube): index = f + q, where f is
 *     the first switch-facing port of the local switch (MDCube: f = n) and q
 *     is the port of the peer switch the next server sits on.
 * Server ports >= 4 or switch ports >= 63 cannot be named (reported when the
 * neighbour table is built). */
#ifndef DCN_AGENT_NHA_H
#define DCN_AGENT_NHA_H

#include <stddef.h>
#include <stdint.h>

#include "topo/path.h"
#include "topo/topo.h"

#define NHA_DIRECT 63
#define NHA_MAX_PORTS 4

static inline uint8_t nha_make(unsigned port, unsigned index) { return (uint8_t)(port << 6 | (index & 63)); }
static inline unsigned nha_port(uint8_t nha) { return nha >> 6; }
static inline unsigned nha_index(uint8_t nha) { return nha & 63; }

/* Whether every server-to-server hop of t can be named by one NHA: servers
 * have at most NHA_MAX_PORTS ports, and every switch port index (plus the
 * fiber offset for MDCube) stays below NHA_DIRECT. Returns 0, or -1 with a
 * one-line reason naming the limit. */
int nha_topology_check(const dcn_topo *t, char *err, size_t errlen);

/* The first port of switch sw whose peer is a switch, or -1. */
int nha_fiber_port(const dcn_topo *t, uint32_t sw);

/* One server hop from server u by nha: fills the nodes crossed after u
 * (switches, then the next server) into via[] (at most 3) and returns how
 * many, or 0 when nha names no server from u. */
unsigned nha_step(const dcn_topo *t, uint32_t u, uint8_t nha, uint32_t via[3]);

/* The NHAs of a full node path (self first). Returns the number of server
 * hops, or -1 when the path cannot be expressed (not cabled, port or index
 * out of range, more than max hops). */
int nha_encode_path(const dcn_topo *t, const dcn_path *p, uint8_t *nha, unsigned max);

typedef enum {
    NHA_WALK_OK = 0,
    NHA_WALK_NOT_NEIGHBOR, /* some NHA names no server from its hop */
    NHA_WALK_LOOP,         /* a server appears twice */
    NHA_WALK_BAD_SRC,      /* src is not a server */
    NHA_WALK_WRONG_DST,    /* the path does not end at dst */
} nha_walk_result;

/* Follows nhops NHAs from src and fills the full node path. *bad_hop gets
 * the index of the NHA that failed (NOT_NEIGHBOR, LOOP). dst == DCN_NONE
 * accepts any server at the end (a segmented MDCube path, which ends where
 * its current segment ends). */
nha_walk_result nha_walk(const dcn_topo *t, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                         dcn_path *out, unsigned *bad_hop);
/* nha_walk in O(nhops): servers already on the path are found through
 * mark[] (one entry per server, owned by the caller), where mark[s] ==
 * stamp means visited. The caller passes a stamp no entry holds yet (e.g.
 * one more than the last call's, clearing mark[] when it wraps). */
nha_walk_result nha_walk_marked(const dcn_topo *t, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                                dcn_path *out, unsigned *bad_hop, uint32_t *mark, uint32_t stamp);
/* Index in a full path of the server reached after hop h (0 = src). */
int nha_server_pos(const dcn_topo *t, const dcn_path *p, unsigned h);

#endif
