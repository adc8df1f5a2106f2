/* What engine.c shares with the engine's other files (engine_mdcube.c):
 * not part of the engine's interface (engine.h). */
#ifndef DCN_AGENT_ENGINE_INTERNAL_H
#define DCN_AGENT_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define ENGINE_FAIL_RATE_LIMIT_MS 50

uint64_t eng_now(const engine *e);
/* How long a neighbour may stay silent before it is declared dead: its
 * dead_misses hello intervals and a quarter of one. */
uint64_t eng_dead_interval_ms(const engine *e);
/* Sends a frame on a port, counted; -1 (counted) when it cannot. */
int eng_tx(engine *e, unsigned port, const uint8_t *frame, size_t len);
void eng_put_eth(engine *e, uint8_t *frame, const uint8_t dst[6], unsigned port);
/* The neighbour is up, on a present port with carrier. */
bool eng_hop_usable(const engine *e, const neigh_entry *ne);
/* The cable to report when the hop from path position pos to the server
 * at position next is dead (our cable, the next server's, or a fibre). */
void eng_failed_link(const engine *e, const dcn_path *p, int pos, int next, unsigned port, uint32_t *a,
                     uint32_t *b);
/* A probe for flow along path (self first), starting at the first hop's
 * available bandwidth plus credit, at most the port's capacity (the
 * path selector's send_probe). Returns 0 when sent. */
int eng_send_probe(engine *e, const dcn_flow_key *flow, uint32_t seq, const dcn_path *path, uint32_t credit);
/* A control frame along nha (first hop taken, NHI = 1); 0 when sent. */
int eng_send_control(engine *e, uint8_t type, uint32_t dst, const uint8_t *nha, unsigned nhops, uint32_t avail,
                     const uint8_t *payload, size_t plen);
/* The full path a header names (a segmented one may end short of dst). */
nha_walk_result eng_walk(engine *e, const dcn_hdr *h, dcn_path *path);
/* One failure or unreachable message per destination per
 * ENGINE_FAIL_RATE_LIMIT_MS (counted when suppressed). */
bool eng_failure_rate_ok(engine *e, uint32_t to);
/* The NHAs from path position pos back to position to (to < pos). */
int eng_encode_back(engine *e, const dcn_path *path, int pos, int to, uint8_t *nha);
/* The MDCube extension's flow id: FNV-1a of the 5-tuple. */
uint32_t eng_flow_id(const dcn_flow_key *k);

/* engine_mdcube.c: from TUN to another container (hierarchical routing),
 * and a segmented packet whose path ends here short of its destination. */
void engine_mdc_from_tun(engine *e, uint8_t *ip, size_t len, uint32_t dst, const dcn_flow_key *k);
void engine_mdc_extend(engine *e, const dcn_hdr *h, const uint8_t *payload);
/* "Destination unreachable" for h's flow to its source, from path position
 * pos (ours) back: container next_c cannot be reached from ours. */
void engine_mdc_unreach(engine *e, const dcn_hdr *h, const dcn_path *path, int pos, uint32_t next_c);

#endif
