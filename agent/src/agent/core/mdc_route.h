/* MDCube's hierarchical routing (CoNEXT 2009, section 4.3), as one agent
 * runs it: the source chooses only the intermediate containers, by a random
 * jump; inside each container the server where the packet's segment ends
 * (the source, or the entry server of a container) routes on its own to
 * the next container and repairs that route itself.
 *
 * A segment is cached under (src, dst, flow id) and the containers still to
 * cross, so a connection keeps one path; a reroute replaces the entry. The
 * table is fixed-size (MDC_SLOTS entries, MDC_WAYS per bucket, the least
 * recently used one replaced) and entries idle for MDC_IDLE_MS are free:
 * nothing is allocated after mdc_create. Wire format: docs/protocol.md. */
#ifndef DCN_AGENT_MDC_ROUTE_H
#define DCN_AGENT_MDC_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/bsr/bsr_faildb.h"
#include "proto.h"
#include "topo/path.h"
#include "topo/rng.h"
#include "topo/scratch.h"
#include "topo/topo.h"

#define MDC_SLOTS 1024
#define MDC_WAYS 4
#define MDC_SEG_NODES 48          /* nodes of one segment */
#define MDC_IDLE_MS 60000         /* an entry unused this long is free */
#define MDC_FAIL_MS 10000         /* learned failed links and fibres are kept this long */
#define MDC_FIBRES_MAX 32         /* failed fibres (container pairs) remembered by a source */

typedef struct mdc_entry {
    uint32_t src, dst, flow_id;
    uint8_t used;
    uint8_t stale;           /* a link of the segment failed: recompute on the next packet */
    uint8_t source;          /* we are src: the container list is ours */
    uint8_t seg_hops;        /* NHAs of the segment */
    uint8_t nha[MDC_SEG_NODES];
    uint8_t n_containers;    /* source: the whole list; relay: the containers still to cross */
    uint32_t container[DCN_MAX_CONTAINERS];
    int32_t jump;            /* source: jump number, -1 when none */
    uint32_t seg_len;        /* nodes of the segment, self first */
    uint32_t seg[MDC_SEG_NODES];
    uint32_t reroutes;       /* segment recomputed after a failure */
    uint32_t jumps;          /* source: jumps drawn for this flow */
    uint64_t created_ms, last_ms;
} mdc_entry;

typedef struct mdc_fibre {
    uint32_t a, b; /* containers, a < b */
    uint64_t expires_ms;
} mdc_fibre;

typedef struct mdc_counters {
    uint64_t segments_new, segments_rerouted, segments_failed, jumps_drawn, jump_changes, evictions,
        unreach_rx, unreach_unknown;
} mdc_counters;

typedef struct mdc {
    const dcn_topo *t;
    uint32_t self, self_c;
    uint32_t n_servers_per_c; /* t: servers per container */
    dcn_rng rng;
    bsr_faildb fail;          /* links this server knows are down */
    dcn_scratch arena;        /* the routing library's temporary arrays */
    mdc_fibre fibre[MDC_FIBRES_MAX];
    mdc_entry *e;             /* MDC_SLOTS entries */
    mdc_counters c;
} mdc;

/* NULL when t is not an MDCube or out of memory. */
mdc *mdc_create(const dcn_topo *t, uint32_t self, uint64_t seed);
void mdc_destroy(mdc *m);

static inline uint32_t mdc_container(const mdc *m, uint32_t server) { return server / m->n_servers_per_c; }

/* The source's segment for a flow to dst (another container), choosing a
 * random jump for a new flow or after its route failed. NULL when no jump
 * leads anywhere. */
const mdc_entry *mdc_source(mdc *m, uint32_t dst, uint32_t flow_id, uint64_t now_ms);
/* A relay's segment: a packet from src to dst whose NHA path ended here,
 * with the containers still to cross (the header's list from its index).
 * NULL when no route leads to the next container (a fibre down, the
 * container cut): the caller tells the source. */
const mdc_entry *mdc_relay(mdc *m, uint32_t src, uint32_t dst, uint32_t flow_id, const uint32_t *rest,
                           unsigned nrest, uint64_t now_ms);
/* A path-failure message addressed to us names a-b: does a segment we own
 * go through the reporter (to_reporter: our path to it) and over a-b? */
bool mdc_failure_match(const mdc *m, const dcn_path *to_reporter, uint32_t a, uint32_t b);
/* Learns the failed link (from a path-failure message, or a dead first hop
 * of our own) and marks every segment over it for rerouting. */
void mdc_on_path_failure(mdc *m, uint32_t a, uint32_t b, uint64_t now_ms);
/* "Destination unreachable" for one of our flows: the fibre from container
 * from_c to to_c is down. Returns false (counted) when no flow of ours to
 * dst with that flow id crosses it; otherwise the fibre is avoided for
 * MDC_FAIL_MS and the flow draws another jump on its next packet. */
bool mdc_on_unreach(mdc *m, uint32_t dst, uint32_t flow_id, uint32_t from_c, uint32_t to_c, uint64_t now_ms);
/* Expires learned failures. */
void mdc_tick(mdc *m, uint64_t now_ms);

/* Live entries, for the control socket; returns how many were written. */
int mdc_entries(const mdc *m, const mdc_entry **out, int max, uint64_t now_ms);

#endif
