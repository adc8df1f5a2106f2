/* The forwarding engine: every decision of the data plane, with no I/O of
 * its own. Frames come in through engine_rx_frame() / engine_from_tun() and
 * leave through the engine_io callbacks, so tests drive it from pcap files
 * and capture what it sends (the I/O seam). */
#ifndef DCN_AGENT_ENGINE_H
#define DCN_AGENT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "mdc_route.h"
#include "neigh.h"
#include "nha.h"
#include "path_select.h"
#include "proto.h"
#include "topo/topo.h"

#define ENGINE_MAX_PORTS NHA_MAX_PORTS
#define ENGINE_HEADROOM (DCN_ETH_HLEN + DCN_HDR_MAX) /* needed before an IP packet from TUN */
#define ENGINE_FRAME_MAX 9216 + ENGINE_HEADROOM

typedef struct engine_io {
    void *ctx;
    uint64_t (*now_ms)(void *ctx);
    /* Sends one Ethernet frame on a port; the buffer is only valid during the call. */
    int (*send_frame)(void *ctx, unsigned port, const uint8_t *frame, size_t len);
    /* Optional (NULL: send_frame). Sends a frame that came in through
     * engine_rx_frame, rewritten in place (a relayed frame): the engine
     * neither reads nor writes it again, and the caller keeps its receive
     * buffers unchanged until it has flushed what it queued, so it may
     * queue a reference to the frame instead of a copy. */
    int (*send_rx_frame)(void *ctx, unsigned port, const uint8_t *frame, size_t len);
    /* Delivers one IPv4 packet to the local stack (TUN). */
    void (*deliver_ip)(void *ctx, const uint8_t *ip, size_t len);
    /* Optional: a data frame that came in on in_port was relayed, so its
     * path (h, before the NHI was advanced) is valid here and its next hop
     * usable; the kernel relay takes the path's next frames. */
    void (*relayed_data)(void *ctx, unsigned in_port, const dcn_hdr *h);
    /* Optional: a data frame that came in on in_port was delivered to the
     * local stack; the kernel may deliver the path's next frames. */
    void (*delivered_data)(void *ctx, unsigned in_port, const dcn_hdr *h);
    /* Optional: a packet of flow k from the TUN device was sent with header
     * h on port (no MDCube extension); the kernel may send the flow's next
     * packets on that path, while path selection keeps it there. */
    void (*sent_data)(void *ctx, const dcn_flow_key *k, uint32_t dst_server, const dcn_hdr *h, unsigned port);
} engine_io;

typedef struct engine_port {
    bool present; /* an interface is bound to it */
    bool carrier;
    char ifname[16];
    uint8_t mac[6];
    uint32_t capacity_mbps;
    uint64_t rx_bytes, tx_bytes, rx_frames, tx_frames;
    uint64_t rate_mark_ms, rx_mark, tx_mark;
    uint32_t rx_mbps, tx_mbps; /* measured over the last rate interval */
} engine_port;

/* Data frames: the outcome of validating a header's path once, for its
 * (src, dst, NHAs, NHI), so a relay's per-packet work does not grow with
 * the path (docs/protocol.md, "Forwarding"). Direct-mapped; paths of more
 * than ENGINE_CHECK_NHA hops are validated on every packet. */
#define ENGINE_CHECK_SLOTS 1024
#define ENGINE_CHECK_NHA 64
typedef struct engine_path_check {
    uint32_t src, dst;
    uint8_t used, nhops, nhi;
    uint8_t in_port; /* the port the path reaches us over */
    uint8_t nha[ENGINE_CHECK_NHA];
} engine_path_check;

/* Source: the encoded NHAs of a path from path selection, so a flow's
 * packets do not encode its path again (docs/protocol.md). Found by the
 * path's address and checked against a copy of its nodes. */
#define ENGINE_TX_SLOTS 128
typedef struct engine_tx_path {
    const dcn_path *key;
    dcn_path path;      /* copy of the nodes the NHAs encode */
    int nhops;          /* <= 0: not expressible */
    uint8_t nha[DCN_PATH_MAX];
    uint32_t first_pos; /* index in path of the server after the first hop */
    /* MDCube extension: the intermediate containers (-1: too many) */
    int n_containers;
    uint32_t container[DCN_MAX_CONTAINERS];
    uint8_t container_idx;
} engine_tx_path;

/* How data crosses MDCube containers (docs/protocol.md). */
typedef enum {
    ENGINE_MDCUBE_HIER = 0, /* the paper's: random jump, each container routes and repairs its segment */
    ENGINE_MDCUBE_SOURCE,   /* the source's path selection writes the whole path */
} engine_mdcube_routing;

typedef struct engine_config {
    uint32_t hello_ms;    /* 1000 */
    uint32_t dead_misses; /* 3 */
    uint64_t seed;
    engine_mdcube_routing mdcube_routing; /* ENGINE_MDCUBE_HIER */
    uint32_t max_flows;   /* flows the selector's table holds, allocated at init (0: its default) */
} engine_config;

/* The last path failure taken from a reporter: the same report again
 * within ENGINE_FAIL_RATE_LIMIT_MS is dropped. */
typedef struct engine_fail_seen {
    uint64_t at_ms; /* 0: none */
    uint32_t reporter, to, a, b;
} engine_fail_seen;

typedef struct engine {
    const dcn_topo *t;
    uint32_t self;
    unsigned nports;
    engine_port port[ENGINE_MAX_PORTS];
    neigh_table nt;
    dcn_counters c;
    path_select *ps;
    /* MDCube: container of every node (NULL without switch-to-switch
     * links); data packets then carry the MDCube extension */
    uint32_t *container_of;
    uint32_t n_containers;
    mdc *hier; /* MDCube hierarchical routing (NULL: source routing, or not an MDCube) */
    engine_io io;
    engine_config cfg;
    uint16_t next_pkt_id;
    uint64_t start_ms, last_hello_ms;
    uint64_t fail_sent_ms[256]; /* rate limit of path-failure messages, by source & 255 */
    engine_fail_seen fail_seen[256]; /* rate limit of received ones, by reporter and addressee */
    uint32_t *walk_mark;        /* per server, for O(L) loop checks (nha_walk_marked) */
    uint32_t walk_stamp;
    engine_path_check check[ENGINE_CHECK_SLOTS];
    engine_tx_path txp[ENGINE_TX_SLOTS];
    uint8_t scratch[ENGINE_FRAME_MAX];
} engine;

static inline uint32_t engine_ip_of(uint32_t server) { return 0x0A000001u + server; }
static inline uint32_t engine_server_of_ip(uint32_t ip) { return ip - 0x0A000001u; }

void engine_config_default(engine_config *c);
/* Sets up the neighbour table and the path selector. Ports start absent:
 * the caller fills port[] (present, ifname, mac, capacity, carrier). */
int engine_init(engine *e, const dcn_topo *t, uint32_t self, const engine_config *cfg, const engine_io *io);
void engine_fini(engine *e);

/* One received Ethernet frame (any content) on port. The frame may be
 * rewritten in place and sent on. */
void engine_rx_frame(engine *e, unsigned port, uint8_t *frame, size_t len);
/* One IP packet from TUN at buf + ENGINE_HEADROOM, len bytes; the headroom
 * is used to prepend the headers without copying. */
void engine_from_tun(engine *e, uint8_t *buf, size_t len);
/* Periodic work: hellos when due, neighbour expiry, rate meters, path
 * selection timers. Call it again after engine_tick_wait_ms(). */
void engine_tick(engine *e);
/* The tick period while path selection or MDCube routing has timers
 * running (flows, probes, failed links). */
#define ENGINE_TICK_MS 100
/* How long the agent may wait before the next engine_tick: until the next
 * hello is due or the first neighbour would be declared dead, at least
 * ENGINE_TICK_MIN_MS, and at most ENGINE_TICK_MS while engine_idle() is
 * false, else at most the longer of the hello interval and ENGINE_TICK_MS.
 * An idle agent with 1 s hellos ticks about once a second instead of ten
 * times (thousands of agents share 2 cores); hellos of 50 ms go out every
 * 50 ms, and a neighbour is declared dead when its interval ends. */
#define ENGINE_TICK_MIN_MS 5
uint32_t engine_tick_wait_ms(const engine *e);
/* Nothing but hellos and neighbour expiry to time. */
bool engine_idle(const engine *e);
/* Carrier change reported by netlink. */
void engine_carrier(engine *e, unsigned port, bool up);
/* Sends a hello on every present port with carrier. */
void engine_send_hellos(engine *e);
/* Header bytes needed for the MDCube extension on this topology (0 when
 * the topology has no containers). */
size_t engine_ext_reserve(const engine *e);
/* Available bandwidth of a port in one direction (out = 1: transmit). */
uint32_t engine_port_avail(const engine *e, unsigned port, int out);
/* Every expected neighbour (on a present port) has been heard from. */
bool engine_ready(const engine *e, unsigned *up, unsigned *total);

#endif
