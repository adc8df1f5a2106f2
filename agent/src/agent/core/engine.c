#include "engine.h"

#include "containers.h"
#include "csum.h"
#include "engine_internal.h"
#include "topo/family.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t eth_broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

void engine_config_default(engine_config *c)
{
    c->hello_ms = 1000;
    c->dead_misses = 3;
    c->seed = 1;
    c->mdcube_routing = ENGINE_MDCUBE_HIER;
    c->max_flows = 0;
}

uint64_t eng_now(const engine *e) { return e->io.now_ms(e->io.ctx); }

uint64_t eng_dead_interval_ms(const engine *e)
{
    return (uint64_t)e->cfg.hello_ms * e->cfg.dead_misses + e->cfg.hello_ms / 4;
}

/* counts what the seam's send returned (rc) for a frame of len bytes */
static int eng_tx_count(engine *e, engine_port *p, size_t len, int rc)
{
    if (rc < 0) {
        e->c.drop_tx_error++;
        return -1;
    }
    p->tx_bytes += len;
    p->tx_frames++;
    e->c.tx_ok++;
    return 0;
}

int eng_tx(engine *e, unsigned port, const uint8_t *frame, size_t len)
{
    engine_port *p = &e->port[port];
    return eng_tx_count(e, p, len, p->present ? e->io.send_frame(e->io.ctx, port, frame, len) : -1);
}

/* a frame from engine_rx_frame, rewritten in place and not touched again */
static int eng_tx_rx_frame(engine *e, unsigned port, const uint8_t *frame, size_t len)
{
    if (!e->io.send_rx_frame)
        return eng_tx(e, port, frame, len);
    engine_port *p = &e->port[port];
    return eng_tx_count(e, p, len, p->present ? e->io.send_rx_frame(e->io.ctx, port, frame, len) : -1);
}

void eng_put_eth(engine *e, uint8_t *frame, const uint8_t dst[6], unsigned port)
{
    memcpy(frame, dst, 6);
    memcpy(frame + 6, e->port[port].mac, 6);
    dcn_put16(frame + 12, DCN_ETHERTYPE);
}

bool eng_hop_usable(const engine *e, const neigh_entry *ne)
{
    return ne->valid && ne->up && e->port[ne->port].present && e->port[ne->port].carrier;
}

uint32_t engine_port_avail(const engine *e, unsigned port, int out)
{
    if (port >= e->nports)
        return 0;
    const engine_port *p = &e->port[port];
    uint32_t used = out ? p->tx_mbps : p->rx_mbps;
    return used >= p->capacity_mbps ? 0 : p->capacity_mbps - used;
}

/* How recently a neighbour must have been heard to vouch for the cables
 * between us (neigh_vouches): two hello intervals. Hellos go out on a grid
 * that every agent shares, so a live neighbour was heard within one
 * interval, and when our own cable falls silent the others behind the
 * switch have not been heard for almost the dead interval (at least three
 * intervals by default) by the time the first of them expires. */
static uint64_t vouch_ms(const engine *e)
{
    return e->cfg.hello_ms ? 2ull * e->cfg.hello_ms : UINT64_MAX;
}

/* The cable reported as failed when the hop from path position pos to the
 * next server (at next) is dead: our own cable when our port lost carrier,
 * or when it goes through a switch behind which no neighbour of several
 * vouches for it; otherwise the last cable into the next server. */
void eng_failed_link(const engine *e, const dcn_path *p, int pos, int next, unsigned port, uint32_t *a,
                        uint32_t *b)
{
    uint64_t now = eng_now(e);
    if (!e->port[port].carrier || (next - pos == 2 && dcn_kind(e->t, p->node[pos + 1]) == DCN_SWITCH &&
                                   neigh_port_unvouched(&e->nt, port, now, vouch_ms(e)))) {
        *a = p->node[pos];
        *b = p->node[pos + 1];
        return;
    }
    *a = p->node[next - 1];
    *b = p->node[next];
    if (next - pos == 3 && dcn_kind(e->t, p->node[pos + 2]) == DCN_SWITCH) {
        /* across an MDCube fibre: a server behind the far switch that
         * vouches means only the next server's cable; none but one behind
         * our own switch means the fibre; nobody, our cable */
        uint32_t near = p->node[pos + 1], far = p->node[pos + 2];
        uint64_t recent = vouch_ms(e);
        bool near_vouches = false;
        for (unsigned i = 0; i < 256; i++) {
            const neigh_entry *ne = &e->nt.e[i];
            if (ne->port != port || !neigh_vouches(ne, now, recent))
                continue;
            if (dcn_topo_port_to(e->t, far, ne->node) >= 0)
                return;
            near_vouches |= dcn_topo_port_to(e->t, near, ne->node) >= 0;
        }
        *a = near_vouches ? near : p->node[pos];
        *b = near_vouches ? far : near;
    }
}

/* Builds a control frame in scratch (NHI = 1, first hop already taken) and
 * sends it along nha. Returns 0 when sent. */
int eng_send_control(engine *e, uint8_t type, uint32_t dst, const uint8_t *nha, unsigned nhops,
                        uint32_t avail, const uint8_t *payload, size_t plen)
{
    if (nhops == 0) {
        e->c.drop_no_route++;
        return -1;
    }
    neigh_entry *ne = &e->nt.e[nha[0]];
    if (!eng_hop_usable(e, ne)) {
        e->c.drop_next_hop_down++;
        return -1;
    }
    dcn_hdr h = {.type = type, .nhops = (uint8_t)nhops, .nhi = 1, .src = e->self, .dst = dst,
                 .pkt_id = e->next_pkt_id++, .payload_len = (uint16_t)plen, .avail_mbps = avail, .nha = nha};
    size_t hl = dcn_hdr_encode(&h, e->scratch + DCN_ETH_HLEN, sizeof e->scratch - DCN_ETH_HLEN - plen);
    if (!hl) {
        e->c.drop_too_long++;
        return -1;
    }
    eng_put_eth(e, e->scratch, ne->mac, ne->port);
    memcpy(e->scratch + DCN_ETH_HLEN + hl, payload, plen);
    return eng_tx(e, ne->port, e->scratch, DCN_ETH_HLEN + hl + plen);
}

/* ---- probes ---- */

static void put_flow(uint8_t *pl, uint32_t seq, const dcn_flow_key *k)
{
    memset(pl, 0, DCN_PROBE_PAYLOAD);
    dcn_put32(pl, seq);
    dcn_put32(pl + 4, k->src_ip);
    dcn_put32(pl + 8, k->dst_ip);
    dcn_put16(pl + 12, k->src_port);
    dcn_put16(pl + 14, k->dst_port);
    pl[16] = k->proto;
}

static void get_flow(const uint8_t *pl, uint32_t *seq, dcn_flow_key *k)
{
    *seq = dcn_get32(pl);
    k->src_ip = dcn_get32(pl + 4);
    k->dst_ip = dcn_get32(pl + 8);
    k->src_port = dcn_get16(pl + 12);
    k->dst_port = dcn_get16(pl + 14);
    k->proto = pl[16];
}

int eng_send_probe(engine *e, const dcn_flow_key *flow, uint32_t seq, const dcn_path *path, uint32_t credit)
{
    uint8_t nha[DCN_MAX_HOPS];
    if (path->len < 2 || path->node[0] != e->self || path->node[path->len - 1] >= e->t->n_servers)
        return -1;
    int n = nha_encode_path(e->t, path, nha, DCN_MAX_HOPS);
    if (n <= 0) {
        e->c.drop_no_route++;
        return -1;
    }
    uint8_t pl[DCN_PROBE_PAYLOAD];
    put_flow(pl, seq, flow);
    /* The first hop as this flow would see it: its own load on the port
     * counted as free when it would leave with the flow (bsr.h), never
     * above the port's capacity. */
    unsigned port = nha_port(nha[0]);
    uint32_t avail = engine_port_avail(e, port, 1);
    if (port < e->nports) /* avail is at most the capacity */
        avail = credit > e->port[port].capacity_mbps - avail ? e->port[port].capacity_mbps : avail + credit;
    if (eng_send_control(e, DCN_T_PROBE, path->node[path->len - 1], nha, (unsigned)n, avail, pl, sizeof pl) < 0)
        return -1;
    e->c.probe_tx++;
    return 0;
}

static int io_send_probe(void *ctx, const dcn_flow_key *flow, uint32_t seq, const dcn_path *path, uint32_t credit)
{
    return eng_send_probe(ctx, flow, seq, path, credit);
}

static uint64_t io_now(void *ctx) { return eng_now(ctx); }
static uint32_t io_avail(void *ctx, uint16_t port, int out) { return engine_port_avail(ctx, port, out); }

/* ---- setup ---- */

int engine_init(engine *e, const dcn_topo *t, uint32_t self, const engine_config *cfg, const engine_io *io)
{
    memset(e, 0, sizeof *e);
    if (self >= t->n_servers)
        return -1;
    e->t = t;
    e->self = self;
    e->cfg = *cfg;
    e->io = *io;
    e->nports = dcn_nports(t, self) < ENGINE_MAX_PORTS ? dcn_nports(t, self) : ENGINE_MAX_PORTS;
    neigh_build(&e->nt, t, self);
    ps_io pio = {.ctx = e, .now_ms = io_now, .send_probe = io_send_probe, .port_avail_mbps = io_avail};
    e->ps = ps_create(t, self, &pio, cfg->seed, cfg->max_flows);
    if (!e->ps)
        return -1;
    int nc = containers_build(t, &e->container_of);
    e->walk_mark = calloc(t->n_servers, sizeof *e->walk_mark);
    if (nc < 0 || !e->walk_mark) {
        ps_destroy(e->ps);
        e->ps = NULL;
        free(e->container_of);
        e->container_of = NULL;
        free(e->walk_mark);
        e->walk_mark = NULL;
        return -1;
    }
    e->n_containers = (uint32_t)nc;
    if (e->container_of && cfg->mdcube_routing == ENGINE_MDCUBE_HIER && t->family &&
        strcmp(t->family->name, "mdcube") == 0) {
        e->hier = mdc_create(t, self, cfg->seed);
        if (!e->hier) {
            engine_fini(e);
            return -1;
        }
    }
    e->start_ms = eng_now(e);
    return 0;
}

void engine_fini(engine *e)
{
    ps_destroy(e->ps);
    e->ps = NULL;
    free(e->container_of);
    e->container_of = NULL;
    free(e->walk_mark);
    e->walk_mark = NULL;
    mdc_destroy(e->hier);
    e->hier = NULL;
}

/* The full path a header names, in O(nhops). */
nha_walk_result eng_walk(engine *e, const dcn_hdr *h, dcn_path *path)
{
    if (++e->walk_stamp == 0) { /* wrapped: no entry may look visited */
        memset(e->walk_mark, 0, e->t->n_servers * sizeof *e->walk_mark);
        e->walk_stamp = 1;
    }
    unsigned bad;
    /* a segmented path ends where its current segment ends */
    uint32_t dst = (h->flags & DCN_FLAG_SEGMENTED) ? DCN_NONE : h->dst;
    return nha_walk_marked(e->t, h->src, dst, h->nha, h->nhops, path, &bad, e->walk_mark, e->walk_stamp);
}

/* Validates the path of a received frame (any type): it must be walkable
 * from src to dst without a loop and name us as server number NHI, reached
 * over the port it came in on. Counts the drop and returns -1, or returns
 * our position in path. */
static int check_path(engine *e, unsigned port, const dcn_hdr *h, dcn_path *path)
{
    switch (eng_walk(e, h, path)) {
    case NHA_WALK_OK: break;
    case NHA_WALK_NOT_NEIGHBOR: e->c.drop_not_neighbor++; return -1;
    case NHA_WALK_LOOP: e->c.drop_loop++; return -1;
    case NHA_WALK_BAD_SRC:
    case NHA_WALK_WRONG_DST: e->c.drop_bad_path++; return -1;
    }
    int pos = h->nhi ? nha_server_pos(e->t, path, h->nhi) : -1;
    if (pos < 0 || path->node[pos] != e->self) {
        e->c.drop_not_on_path++;
        return -1;
    }
    if (dcn_topo_port_to(e->t, e->self, path->node[pos - 1]) != (int)port) {
        e->c.drop_wrong_port++; /* the path reaches us over another port */
        return -1;
    }
    return pos;
}

/* The slot of a data header in the validation cache: a hash of src, dst,
 * nhops, NHI and the NHA array (8 bytes for every path of up to 8 hops, so
 * the same work for 2 hops as for 8). */
static engine_path_check *check_slot(engine *e, const dcn_hdr *h)
{
    uint64_t x = ((uint64_t)h->src << 32 | h->dst) ^ ((uint64_t)h->nhops << 8 | h->nhi) * 0x9E3779B97F4A7C15ull;
    size_t nb = dcn_nha_bytes(h->nhops);
    for (size_t i = 0; i < nb; i += 8) {
        uint64_t w;
        memcpy(&w, h->nha + i, 8);
        x = (x ^ w) * 0x100000001B3ull;
        x ^= x >> 29;
    }
    return &e->check[(x >> 32) & (ENGINE_CHECK_SLOTS - 1)];
}

static bool check_hit(const engine_path_check *c, const dcn_hdr *h)
{
    return c->used && c->src == h->src && c->dst == h->dst && c->nhops == h->nhops && c->nhi == h->nhi &&
           memcmp(c->nha, h->nha, dcn_nha_bytes(h->nhops)) == 0;
}

/* A data frame's path, validated once per (src, dst, NHAs, NHI) and then
 * only looked up: true when we may deliver or relay it. */
static bool data_path_ok(engine *e, unsigned port, const dcn_hdr *h)
{
    engine_path_check *c = h->nhops <= ENGINE_CHECK_NHA ? check_slot(e, h) : NULL;
    if (c && check_hit(c, h)) {
        if (c->in_port != port) {
            e->c.drop_wrong_port++;
            return false;
        }
        return true;
    }
    dcn_path path;
    int pos = check_path(e, port, h, &path);
    if (pos < 0)
        return false;
    if (c) {
        c->used = 1;
        c->src = h->src;
        c->dst = h->dst;
        c->nhops = h->nhops;
        c->nhi = h->nhi;
        c->in_port = (uint8_t)port;
        memcpy(c->nha, h->nha, dcn_nha_bytes(h->nhops));
    }
    return true;
}

size_t engine_ext_reserve(const engine *e)
{
    if (!e->container_of)
        return 0;
    uint32_t c = e->n_containers > 2 ? e->n_containers - 2 : 0;
    return 8 + 4 * (size_t)(c < DCN_MAX_CONTAINERS ? c : DCN_MAX_CONTAINERS);
}

/* MDCube extension of a data packet: the intermediate containers the
 * source's path crosses (neither the source's nor the destination's), in
 * order. Returns how many, or -1 when more than DCN_MAX_CONTAINERS. */
static int path_containers(const engine *e, const dcn_path *p, uint32_t *out)
{
    uint32_t src_c = e->container_of[p->node[0]], dst_c = e->container_of[p->node[p->len - 1]];
    uint32_t last = src_c;
    int n = 0;
    for (uint32_t i = 1; i < p->len; i++) {
        uint32_t c = e->container_of[p->node[i]];
        if (c == last)
            continue;
        last = c;
        if (c == src_c || c == dst_c)
            continue;
        if (n >= DCN_MAX_CONTAINERS)
            return -1;
        out[n++] = c;
    }
    return n;
}

/* The extension's flow id: FNV-1a of the 5-tuple. */
uint32_t eng_flow_id(const dcn_flow_key *k)
{
    const uint8_t bytes[13] = {(uint8_t)(k->src_ip >> 24), (uint8_t)(k->src_ip >> 16), (uint8_t)(k->src_ip >> 8),
                               (uint8_t)k->src_ip, (uint8_t)(k->dst_ip >> 24), (uint8_t)(k->dst_ip >> 16),
                               (uint8_t)(k->dst_ip >> 8), (uint8_t)k->dst_ip, (uint8_t)(k->src_port >> 8),
                               (uint8_t)k->src_port, (uint8_t)(k->dst_port >> 8), (uint8_t)k->dst_port, k->proto};
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < sizeof bytes; i++)
        hash = (hash ^ bytes[i]) * 16777619u;
    return hash;
}

/* The encoded form of a path from path selection, computed once: its NHAs,
 * its first hop and its MDCube containers. A slot is found by the path's
 * address (path selection keeps a flow's path in place) and trusted only
 * when its copy of the nodes still matches. */
static const engine_tx_path *tx_path(engine *e, const dcn_path *path)
{
    uint64_t x = (uint64_t)(uintptr_t)path * 0x9E3779B97F4A7C15ull;
    engine_tx_path *c = &e->txp[(x >> 40) & (ENGINE_TX_SLOTS - 1)];
    if (c->key == path && c->path.len == path->len &&
        memcmp(c->path.node, path->node, path->len * sizeof path->node[0]) == 0)
        return c;
    c->key = path;
    c->path.len = path->len;
    memcpy(c->path.node, path->node, path->len * sizeof path->node[0]);
    c->nhops = path->len >= 2 && path->node[0] == e->self ? nha_encode_path(e->t, path, c->nha, DCN_PATH_MAX) : -1;
    c->first_pos = c->nhops > 0 ? (uint32_t)nha_server_pos(e->t, path, 1) : 0;
    c->n_containers = 0;
    c->container_idx = 0;
    if (c->nhops > 0 && e->container_of) {
        c->n_containers = path_containers(e, path, c->container);
        /* the first hop may already enter the first listed container */
        if (c->n_containers > 0 && e->container_of[path->node[c->first_pos]] == c->container[0])
            c->container_idx = 1;
    }
    return c;
}

/* A relay whose next hop enters the next listed container advances the
 * extension's container index (checksum updated incrementally). */
static void advance_container(engine *e, uint8_t *hdr, const dcn_hdr *h, uint32_t next_server)
{
    if (h->container_idx >= h->n_containers || e->container_of[next_server] != h->container[h->container_idx])
        return;
    uint8_t *ext = hdr + DCN_OFF_NHA + dcn_nha_bytes(h->nhops);
    uint16_t old = dcn_get16(ext);
    ext[1] = (uint8_t)(h->container_idx + 1);
    dcn_put16(hdr + DCN_OFF_CSUM, csum_update16(dcn_get16(hdr + DCN_OFF_CSUM), old, dcn_get16(ext)));
}

/* ---- receive ---- */

static void on_hello(engine *e, unsigned port, const uint8_t *frame, const dcn_hdr *h, const uint8_t *pl)
{
    if (h->payload_len < DCN_HELLO_PAYLOAD_MIN) {
        e->c.drop_bad_payload++;
        return;
    }
    bool heard_known = h->payload_len >= DCN_HELLO_PAYLOAD && (pl[1] & DCN_HELLO_F_HEARD);
    uint64_t heard = heard_known ? dcn_get64(pl + 8) : 0;
    int change = 0;
    int nha = h->src < e->t->n_servers
                  ? neigh_on_hello(&e->nt, port, h->src, frame + 6, eng_now(e), heard_known, pl[0], heard, &change)
                  : -1;
    if (nha == NEIGH_MAC_CONFLICT) {
        e->c.drop_hello_mac_conflict++;
        return;
    }
    if (nha < 0) {
        e->c.drop_not_neighbor++;
        return;
    }
    if (!e->port[port].carrier) /* a hello proves the carrier: path selection hears it too */
        engine_carrier(e, port, true);
    e->c.rx_ok++;
    e->c.hello_rx++;
    if (change > 0)
        e->c.neighbor_up_events++;
    if (change < 0) {
        e->c.neighbor_one_way++;
        e->c.neighbor_down_events++;
    }
}

static void path_failure_payload(engine *e, const uint8_t *pl)
{
    ps_on_path_failure(e->ps, dcn_get32(pl), dcn_get32(pl + 4));
    if (e->hier)
        mdc_on_path_failure(e->hier, dcn_get32(pl), dcn_get32(pl + 4), eng_now(e));
}

static bool same_link(uint32_t a, uint32_t b, uint32_t u, uint32_t v) { return (a == u && b == v) || (a == v && b == u); }

/* a-b is a cable of one server hop out of the reporter r = path->node[0]
 * (its own cable, a switch's cable to the next server, or an MDCube fiber
 * and the peer switch's cable), and not back towards the node the message
 * went to first, which is where the original packet came from. */
static bool link_beyond_reporter(const dcn_topo *t, const dcn_path *path, uint32_t a, uint32_t b)
{
    uint32_t r = path->node[0], back = path->len > 1 ? path->node[1] : DCN_NONE;
    if (a >= dcn_n_nodes(t) || b >= dcn_n_nodes(t) || a == back || b == back)
        return false;
    uint16_t np = dcn_nports(t, r);
    for (uint16_t p = 0; p < np; p++) {
        uint32_t x = dcn_peer(t, r, p).node;
        if (x == DCN_NONE || x == back)
            continue;
        if (same_link(a, b, r, x))
            return true;
        if (dcn_kind(t, x) != DCN_SWITCH)
            continue;
        uint32_t far = a == x ? b : b == x ? a : DCN_NONE;
        if (far != DCN_NONE && far != r && far < t->n_servers && dcn_topo_port_to(t, x, far) >= 0)
            return true; /* the switch's cable into the next server */
        int f = nha_fiber_port(t, x);
        if (f < 0)
            continue;
        uint32_t x2 = dcn_peer(t, x, (uint16_t)f).node;
        if (same_link(a, b, x, x2))
            return true;
        far = a == x2 ? b : b == x2 ? a : DCN_NONE;
        if (far != DCN_NONE && far < t->n_servers && dcn_topo_port_to(t, x2, far) >= 0)
            return true;
    }
    return false;
}

/* Did frame come from the neighbour its path names as the previous hop
 * (server NHI - 1), by the MAC that neighbour's hellos taught us? (The
 * port is checked for every frame.) */
static bool from_previous_hop(engine *e, unsigned port, const uint8_t *frame, const dcn_hdr *h, const dcn_path *path)
{
    int prev_pos = nha_server_pos(e->t, path, h->nhi - 1u);
    int nha = prev_pos >= 0 ? neigh_find(&e->nt, port, path->node[prev_pos]) : -1;
    return nha >= 0 && e->nt.e[nha].heard && memcmp(e->nt.e[nha].mac, frame + 6, 6) == 0;
}

/* Does link a-b, reported by the server at position 0 of path (we are at
 * pos), concern a flow of ours (or, MDCube hierarchical routing, a segment
 * we own): does one go through the reporter and over the link? */
static ps_fail_match failure_on_our_flows(engine *e, const dcn_path *path, int pos, uint32_t a, uint32_t b)
{
    dcn_path to_reporter = *path;
    to_reporter.len = (uint32_t)pos + 1;
    dcn_path_reverse(&to_reporter);
    if (e->hier && mdc_failure_match(e->hier, &to_reporter, a, b))
        return PS_FAIL_ON_PATH;
    return ps_failure_match(e->ps, &to_reporter, a, b);
}

/* Received path failures: the same report (reporter, addressee, link) is
 * taken once per ENGINE_FAIL_RATE_LIMIT_MS, so a flood of copies costs one
 * scan of the flows each window, not one each; reports of one link to
 * several sources all pass. One slot per reporter and addressee (by the
 * low bytes of their addresses). */
static bool failure_rate_ok_rx(engine *e, const dcn_hdr *h, uint32_t a, uint32_t b)
{
    uint64_t t = eng_now(e);
    engine_fail_seen *s = &e->fail_seen[(h->src ^ (h->dst << 4)) & 255];
    if (s->at_ms && t - s->at_ms < ENGINE_FAIL_RATE_LIMIT_MS && s->reporter == h->src && s->to == h->dst &&
        same_link(s->a, s->b, a, b)) {
        e->c.drop_fail_rate_limited_rx++;
        return false;
    }
    *s = (engine_fail_seen){.at_ms = t ? t : 1, .reporter = h->src, .to = h->dst, .a = a, .b = b};
    return true;
}

/* The rules a path-failure message must pass before anyone acts on it or
 * relays it (docs/protocol.md): it came from the neighbour its path names
 * (the ingress port is checked for every frame), it names a link one
 * server hop beyond the server that sent it, and, addressed to us, that
 * link is on the path of a flow we know. */
static bool path_failure_acceptable(engine *e, unsigned port, const uint8_t *frame, const dcn_hdr *h,
                                    const uint8_t *payload, const dcn_path *path, int pos)
{
    if (h->payload_len < DCN_FAIL_PAYLOAD) {
        e->c.drop_bad_payload++;
        return false;
    }
    if (!from_previous_hop(e, port, frame, h, path)) {
        e->c.drop_fail_wrong_neighbor++;
        return false;
    }
    uint32_t a = dcn_get32(payload), b = dcn_get32(payload + 4);
    if (!link_beyond_reporter(e->t, path, a, b)) {
        e->c.drop_fail_link_off_path++;
        return false;
    }
    if (!failure_rate_ok_rx(e, h, a, b))
        return false;
    if (h->nhi != h->nhops)
        return true; /* overheard: relayed; adopted only if it concerns our flows (relay()) */
    switch (failure_on_our_flows(e, path, pos, a, b)) {
    case PS_FAIL_ON_PATH: return true;
    case PS_FAIL_LINK_OFF_PATH: e->c.drop_fail_link_off_path++; return false;
    default: e->c.drop_fail_unknown_flow++; return false;
    }
}

/* One control message per source (and owner) per ENGINE_FAIL_RATE_LIMIT_MS. */
bool eng_failure_rate_ok(engine *e, uint32_t to)
{
    uint64_t t = eng_now(e);
    uint64_t *last = &e->fail_sent_ms[to & 255];
    if (*last && t - *last < ENGINE_FAIL_RATE_LIMIT_MS) {
        e->c.drop_failure_rate_limited++;
        return false;
    }
    *last = t ? t : 1;
    return true;
}

/* The NHAs from path position pos back to position to (to < pos). */
int eng_encode_back(engine *e, const dcn_path *path, int pos, int to, uint8_t *nha)
{
    dcn_path back;
    back.len = 0;
    for (int i = pos; i >= to; i--)
        back.node[back.len++] = path->node[i];
    return nha_encode_path(e->t, &back, nha, DCN_MAX_HOPS);
}

/* A data packet or probe cannot take its next hop: tell the server that
 * chose that hop, the source, or in a segmented MDCube packet the server
 * that wrote the current segment. */
static void report_failure(engine *e, const dcn_hdr *h, const dcn_path *path, int pos, int next, unsigned port)
{
    uint32_t a, b;
    eng_failed_link(e, path, pos, next, port, &a, &b);
    if (e->hier && (h->flags & DCN_FLAG_SEGMENTED) && h->type == DCN_T_DATA && dcn_kind(e->t, a) == DCN_SWITCH &&
        dcn_kind(e->t, b) == DCN_SWITCH) {
        /* the fibre to the next container is down: one fibre joins two
         * containers, so no segment inside ours can repair it, and the
         * source is told at once to take another jump (the segment's owner
         * would tell it only on the flow's next packet, after another of
         * TCP's timeouts); the owner still learns the link below */
        engine_mdc_unreach(e, h, path, pos, e->container_of[path->node[next]]);
    }
    int owner = (h->flags & DCN_FLAG_SEGMENTED) ? nha_server_pos(e->t, path, h->seg_start) : 0;
    if (owner < 0 || owner > pos)
        return;
    if (owner == pos) { /* our own segment: repair it here */
        if (e->hier)
            mdc_on_path_failure(e->hier, a, b, eng_now(e));
        return;
    }
    if (!eng_failure_rate_ok(e, path->node[owner]))
        return;
    uint8_t nha[DCN_MAX_HOPS];
    int n = eng_encode_back(e, path, pos, owner, nha);
    if (n <= 0)
        return;
    uint8_t pl[DCN_FAIL_PAYLOAD] = {0};
    dcn_put32(pl, a);
    dcn_put32(pl + 4, b);
    pl[8] = h->type;
    dcn_put16(pl + 10, h->pkt_id);
    if (eng_send_control(e, DCN_T_PATH_FAIL, path->node[owner], nha, (unsigned)n, 0, pl, sizeof pl) == 0)
        e->c.path_failure_tx++;
}

/* While a flow of ours back to the sender has no path (path selection
 * holds links failed), a data packet delivered here proves every link it
 * crossed is up: path selection learns it before the reply (a TCP ACK) is
 * routed. Only then is the packet's path decoded (O(hops)). */
static void heard_path(engine *e, const dcn_hdr *h)
{
    if (h->flags & DCN_FLAG_SEGMENTED || !ps_wants_path_from(e->ps, h->src))
        return;
    dcn_path p; /* a good walk runs from h->src to h->dst, us */
    if (eng_walk(e, h, &p) == NHA_WALK_OK)
        ps_on_path_heard(e->ps, &p);
}

static void deliver_local(engine *e, unsigned port, const dcn_hdr *h, const uint8_t *payload,
                          const dcn_path *path)
{
    switch (h->type) {
    case DCN_T_DATA:
        if (h->proto != DCN_PROTO_IPV4 || h->payload_len < 20 || (payload[0] >> 4) != 4 ||
            dcn_get16(payload + 2) > h->payload_len) {
            e->c.drop_bad_payload++;
            return;
        }
        if (dcn_get16(payload + 2) < 20 || dcn_get16(payload + 2) < (payload[0] & 15u) * 4u) {
            e->c.drop_bad_ip_length++; /* would be an empty or headless TUN write */
            return;
        }
        e->c.rx_ok++;
        e->c.rx_data_delivered++;
        e->io.deliver_ip(e->io.ctx, payload, dcn_get16(payload + 2));
        if (e->io.delivered_data)
            e->io.delivered_data(e->io.ctx, port, h);
        return;
    case DCN_T_PROBE: {
        if (h->payload_len < DCN_PROBE_PAYLOAD) {
            e->c.drop_bad_payload++;
            return;
        }
        e->c.rx_ok++;
        e->c.probe_rx++;
        uint32_t avail = min_u32(h->avail_mbps, engine_port_avail(e, port, 0));
        dcn_path back = *path;
        dcn_path_reverse(&back);
        uint8_t nha[DCN_MAX_HOPS];
        int n = nha_encode_path(e->t, &back, nha, DCN_MAX_HOPS);
        if (n > 0 && eng_send_control(e, DCN_T_PROBE_RESP, h->src, nha, (unsigned)n, avail, payload,
                                  DCN_PROBE_PAYLOAD) == 0)
            e->c.probe_resp_tx++;
        return;
    }
    case DCN_T_PROBE_RESP: {
        if (h->payload_len < DCN_PROBE_PAYLOAD) {
            e->c.drop_bad_payload++;
            return;
        }
        e->c.rx_ok++;
        e->c.probe_resp_rx++;
        uint32_t seq, avail = h->avail_mbps;
        dcn_flow_key k;
        get_flow(payload, &seq, &k);
        if (avail > e->port[port].capacity_mbps) { /* no path carries more than our own port onto it */
            avail = e->port[port].capacity_mbps;
            e->c.probe_resp_capped++;
        }
        dcn_path probed = *path; /* the response came back along the probed path */
        dcn_path_reverse(&probed);
        ps_on_probe_response(e->ps, &k, seq, avail, &probed);
        return;
    }
    case DCN_T_PATH_FAIL: /* already checked by path_failure_acceptable */
        e->c.rx_ok++;
        e->c.path_failure_rx++;
        path_failure_payload(e, payload);
        return;
    case DCN_T_UNREACH:
        if (h->payload_len < DCN_UNREACH_PAYLOAD) {
            e->c.drop_bad_payload++;
            return;
        }
        if (!e->hier || !mdc_on_unreach(e->hier, dcn_get32(payload + 4), dcn_get32(payload), dcn_get32(payload + 8),
                                        dcn_get32(payload + 12), eng_now(e))) {
            e->c.drop_fail_unknown_flow++;
            return;
        }
        e->c.rx_ok++;
        e->c.unreach_rx++;
        return;
    }
}

static void relay(engine *e, unsigned port, uint8_t *frame, size_t len, const dcn_hdr *h, const uint8_t *payload,
                  const dcn_path *path, int pos)
{
    uint8_t *hdr = frame + DCN_ETH_HLEN;
    neigh_entry *ne = &e->nt.e[h->nha[h->nhi]];
    if (!ne->valid) {
        e->c.drop_not_neighbor++;
        return;
    }
    if (h->type == DCN_T_PATH_FAIL) { /* already checked by path_failure_acceptable */
        /* adopted only under the rule the flows' source applies: it must
         * concern a flow of ours; otherwise only relayed */
        if (failure_on_our_flows(e, path, pos, dcn_get32(payload), dcn_get32(payload + 4)) == PS_FAIL_ON_PATH) {
            e->c.path_failure_overheard++;
            path_failure_payload(e, payload);
        } else {
            e->c.path_failure_not_adopted++;
        }
    }
    if (!eng_hop_usable(e, ne)) {
        e->c.drop_next_hop_down++;
        if (h->type != DCN_T_DATA && h->type != DCN_T_PROBE)
            return;
        dcn_path walked;
        if (!path) { /* a data frame from the cache: walk its path now (it was valid) */
            if (eng_walk(e, h, &walked) != NHA_WALK_OK)
                return;
            path = &walked;
            pos = nha_server_pos(e->t, path, h->nhi);
        }
        report_failure(e, h, path, pos, nha_server_pos(e->t, path, h->nhi + 1u), ne->port);
        return;
    }
    if (h->type == DCN_T_PROBE) {
        uint32_t avail = min_u32(h->avail_mbps,
                                 min_u32(engine_port_avail(e, port, 0), engine_port_avail(e, ne->port, 1)));
        dcn_hdr_set_avail(hdr, avail);
        e->c.probe_relayed++;
    }
    if (h->flags & DCN_FLAG_MDCUBE)
        advance_container(e, hdr, h, ne->node);
    dcn_hdr_set_nhi(hdr, (uint8_t)(h->nhi + 1));
    eng_put_eth(e, frame, ne->mac, ne->port);
    e->c.rx_ok++;
    e->c.relayed++;
    if (eng_tx_rx_frame(e, ne->port, frame, len) == 0 && h->type == DCN_T_DATA && e->io.relayed_data)
        e->io.relayed_data(e->io.ctx, port, h);
}

void engine_rx_frame(engine *e, unsigned port, uint8_t *frame, size_t len)
{
    if (port >= e->nports)
        return;
    e->port[port].rx_bytes += len;
    e->port[port].rx_frames++;
    if (len < DCN_ETH_HLEN) {
        e->c.drop_truncated++;
        return;
    }
    if (dcn_get16(frame + 12) != DCN_ETHERTYPE) {
        e->c.drop_not_dcn++;
        return;
    }
    dcn_hdr h;
    size_t hl = 0;
    switch (dcn_hdr_decode(frame + DCN_ETH_HLEN, len - DCN_ETH_HLEN, &h, &hl)) {
    case DCN_DEC_OK: break;
    case DCN_DEC_TRUNCATED: e->c.drop_truncated++; return;
    case DCN_DEC_BAD_VERSION: e->c.drop_bad_version++; return;
    case DCN_DEC_BAD_CHECKSUM: e->c.drop_bad_checksum++; return;
    case DCN_DEC_BAD_EXTENSION: e->c.drop_bad_extension++; return;
    }
    if (h.flags & DCN_FLAG_MDCUBE) {
        bool ok = e->container_of != NULL;
        for (unsigned i = 0; ok && i < h.n_containers; i++)
            ok = h.container[i] < e->n_containers;
        if (!ok) {
            e->c.drop_bad_extension++;
            return;
        }
    }
    const uint8_t *payload = frame + DCN_ETH_HLEN + hl;
    switch (h.type) {
    case DCN_T_HELLO: on_hello(e, port, frame, &h, payload); return;
    case DCN_T_DATA:
    case DCN_T_PROBE:
    case DCN_T_PROBE_RESP:
    case DCN_T_PATH_FAIL:
    case DCN_T_UNREACH: break;
    default: e->c.drop_unknown_type++; return;
    }
    if (h.nhi > h.nhops) {
        e->c.drop_nhi_beyond_path++;
        return;
    }
    if (h.type == DCN_T_DATA) { /* the fast path: no walk once the path is known good */
        if (!data_path_ok(e, port, &h))
            return;
        if (h.nhi == h.nhops && h.dst != e->self && (h.flags & DCN_FLAG_SEGMENTED))
            engine_mdc_extend(e, &h, payload);
        else if (h.nhi == h.nhops && h.dst != e->self)
            e->c.drop_bad_path++; /* a cached walk of a segmented twin */
        else if (h.nhi == h.nhops) {
            heard_path(e, &h);
            deliver_local(e, port, &h, payload, NULL);
        } else
            relay(e, port, frame, len, &h, payload, NULL, -1);
        return;
    }
    dcn_path path;
    int pos = check_path(e, port, &h, &path);
    if (pos < 0)
        return;
    if (h.type == DCN_T_PATH_FAIL && !path_failure_acceptable(e, port, frame, &h, payload, &path, pos))
        return;
    if (h.type == DCN_T_PROBE_RESP && h.nhi == h.nhops && !from_previous_hop(e, port, frame, &h, &path)) {
        e->c.drop_probe_resp_wrong_neighbor++; /* only the probed path's first hop hands us its answer */
        return;
    }
    if (h.nhi == h.nhops && h.dst != e->self)
        e->c.drop_bad_path++; /* control messages are never segmented */
    else if (h.nhi == h.nhops)
        deliver_local(e, port, &h, payload, &path);
    else
        relay(e, port, frame, len, &h, payload, &path, pos);
}

/* ---- from the local stack ---- */

void engine_from_tun(engine *e, uint8_t *buf, size_t len)
{
    uint8_t *ip = buf + ENGINE_HEADROOM;
    if (len < 20 || (ip[0] >> 4) != 4 || len > 0xffff) {
        e->c.drop_bad_payload++;
        return;
    }
    uint32_t dst_ip = dcn_get32(ip + 16);
    uint32_t dst = engine_server_of_ip(dst_ip);
    if ((dst_ip >> 24) != 10 || dst >= e->t->n_servers || dst == e->self) {
        e->c.drop_no_route++;
        return;
    }
    dcn_flow_key k = {.src_ip = dcn_get32(ip + 12), .dst_ip = dst_ip, .proto = ip[9]};
    unsigned ihl = (ip[0] & 15u) * 4u;
    /* ports only for unfragmented packets: every fragment of a datagram (MF
     * set or an offset, the first one included) is keyed on the 3-tuple, so
     * all of them take one path */
    if ((k.proto == 6 || k.proto == 17) && (dcn_get16(ip + 6) & 0x3fff) == 0 && len >= ihl + 4) {
        k.src_port = dcn_get16(ip + ihl);
        k.dst_port = dcn_get16(ip + ihl + 2);
    }
    if (e->hier && e->container_of[dst] != e->container_of[e->self]) {
        engine_mdc_from_tun(e, ip, len, dst, &k);
        return;
    }
    /* a first hop found down tells path selection at once (as a path
     * failure message would), and the packet is routed again, once: the
     * packet that finds the failure (often TCP's retransmission, after a
     * back-off) goes out on the new path instead of being lost */
    const dcn_path *path;
    const engine_tx_path *tp;
    neigh_entry *ne;
    for (int attempt = 0;; attempt++) {
        path = ps_route(e->ps, &k, dst, attempt ? 0u : (uint32_t)len);
        tp = path ? tx_path(e, path) : NULL;
        if (!tp || tp->nhops <= 0) {
            e->c.drop_no_route++;
            return;
        }
        ne = &e->nt.e[tp->nha[0]];
        if (eng_hop_usable(e, ne))
            break;
        uint32_t a, b;
        eng_failed_link(e, path, 0, (int)tp->first_pos, ne->port, &a, &b);
        ps_on_path_failure(e->ps, a, b);
        if (attempt) {
            e->c.drop_next_hop_down++;
            return;
        }
        e->c.rerouted_at_send++;
    }
    dcn_hdr h = {.type = DCN_T_DATA, .nhops = (uint8_t)tp->nhops, .nhi = 1, .src = e->self, .dst = dst,
                 .pkt_id = e->next_pkt_id++, .proto = DCN_PROTO_IPV4, .payload_len = (uint16_t)len, .nha = tp->nha};
    if (e->container_of) {
        if (tp->n_containers < 0) {
            e->c.drop_too_long++;
            return;
        }
        h.flags |= DCN_FLAG_MDCUBE;
        h.n_containers = (uint8_t)tp->n_containers;
        memcpy(h.container, tp->container, (size_t)tp->n_containers * sizeof h.container[0]);
        h.container_idx = tp->container_idx;
        h.flow_id = eng_flow_id(&k);
    }
    size_t hl = dcn_hdr_len(&h);
    uint8_t *frame = ip - hl - DCN_ETH_HLEN;
    dcn_hdr_encode(&h, frame + DCN_ETH_HLEN, hl);
    eng_put_eth(e, frame, ne->mac, ne->port);
    e->c.tx_data_from_tun++;
    if (eng_tx(e, ne->port, frame, DCN_ETH_HLEN + hl + len) == 0 && e->io.sent_data && !e->container_of)
        e->io.sent_data(e->io.ctx, &k, dst, &h, ne->port);
}

/* ---- timers and links ---- */

static void send_hello(engine *e, unsigned port)
{
    if (!e->port[port].present || !e->port[port].carrier)
        return;
    uint8_t *f = e->scratch;
    dcn_hdr h = {.type = DCN_T_HELLO, .src = e->self, .dst = DCN_BROADCAST_ADDR, .pkt_id = e->next_pkt_id++,
                 .payload_len = DCN_HELLO_PAYLOAD, .nha = NULL};
    size_t hl = dcn_hdr_encode(&h, f + DCN_ETH_HLEN, sizeof e->scratch - DCN_ETH_HLEN);
    eng_put_eth(e, f, eth_broadcast, port);
    uint8_t *pl = f + DCN_ETH_HLEN + hl;
    memset(pl, 0, DCN_HELLO_PAYLOAD);
    pl[0] = (uint8_t)port;
    pl[1] = DCN_HELLO_F_HEARD;
    dcn_put16(pl + 2, (uint16_t)(e->cfg.hello_ms > 0xffff ? 0xffff : e->cfg.hello_ms));
    dcn_put64(pl + 8, neigh_heard_on(&e->nt, port));
    if (eng_tx(e, port, f, DCN_ETH_HLEN + hl + DCN_HELLO_PAYLOAD) == 0)
        e->c.hello_tx++;
}

void engine_send_hellos(engine *e)
{
    for (unsigned p = 0; p < e->nports; p++)
        send_hello(e, p);
    e->last_hello_ms = eng_now(e);
}

static void update_rates(engine *e, uint64_t t)
{
    for (unsigned p = 0; p < e->nports; p++) {
        engine_port *ep = &e->port[p];
        uint64_t dt = t - ep->rate_mark_ms;
        if (dt < 500)
            continue;
        ep->rx_mbps = (uint32_t)((ep->rx_bytes - ep->rx_mark) * 8 / (dt * 1000));
        ep->tx_mbps = (uint32_t)((ep->tx_bytes - ep->tx_mark) * 8 / (dt * 1000));
        ep->rx_mark = ep->rx_bytes;
        ep->tx_mark = ep->tx_bytes;
        ep->rate_mark_ms = t;
    }
}

/* Hellos go out on a grid of the hello interval on the monotonic clock,
 * which every agent of the box shares: the hellos of all agents arrive
 * close together, and a receiver busy or asleep reads several in one
 * wake-up instead of one per neighbour. */
enum { HELLO_SLACK_MS = 5 }; /* a tick that fires just early still sends */

static uint64_t hello_due_ms(const engine *e)
{
    if (!e->cfg.hello_ms)
        return e->last_hello_ms;
    return ((e->last_hello_ms + HELLO_SLACK_MS) / e->cfg.hello_ms + 1) * e->cfg.hello_ms;
}

bool engine_idle(const engine *e) { return !e->hier && ps_idle(e->ps); }

uint32_t engine_tick_wait_ms(const engine *e)
{
    /* at most the short tick while path selection has timers running, at
     * most the hello interval (and the short tick) while only hellos and
     * expiries are timed; never past the next hello or expiry, so that
     * hellos shorter than the short tick keep their interval and a silent
     * neighbour is declared dead when its interval ends, not up to a tick
     * later */
    uint64_t cap = ENGINE_TICK_MS;
    if (engine_idle(e) && e->cfg.hello_ms > ENGINE_TICK_MS)
        cap = e->cfg.hello_ms;
    if (!e->cfg.hello_ms)
        return (uint32_t)cap;
    uint64_t t = eng_now(e);
    uint64_t due = hello_due_ms(e);
    uint64_t expiry = neigh_next_expiry(&e->nt, eng_dead_interval_ms(e));
    if (expiry < due)
        due = expiry;
    uint64_t wait = due > t ? due - t : 0;
    if (wait < ENGINE_TICK_MIN_MS)
        wait = ENGINE_TICK_MIN_MS;
    if (wait > cap)
        wait = cap;
    return (uint32_t)wait;
}

void engine_tick(engine *e)
{
    uint64_t t = eng_now(e);
    /* a few ms of slack: a tick that fires just early must not push the
     * hello a whole tick late */
    if (t + HELLO_SLACK_MS >= hello_due_ms(e))
        engine_send_hellos(e);
    e->c.neighbor_down_events += neigh_expire(&e->nt, t, eng_dead_interval_ms(e));
    update_rates(e, t);
    ps_tick(e->ps);
    if (e->hier)
        mdc_tick(e->hier, t);
}

void engine_carrier(engine *e, unsigned port, bool up)
{
    if (port >= e->nports || e->port[port].carrier == up)
        return;
    e->port[port].carrier = up;
    e->nt.gen++; /* the hops over this port become usable or not */
    e->c.carrier_events++;
    if (!up) {
        e->c.neighbor_down_events += neigh_port_down(&e->nt, port);
        ps_on_local_port(e->ps, (uint16_t)port, 0);
    } else {
        ps_on_local_port(e->ps, (uint16_t)port, 1);
        send_hello(e, port);
    }
}

bool engine_ready(const engine *e, unsigned *up, unsigned *total)
{
    unsigned u = 0, n = 0;
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &e->nt.e[i];
        if (!ne->valid || !e->port[ne->port].present)
            continue;
        n++;
        if (ne->up)
            u++;
    }
    if (up)
        *up = u;
    if (total)
        *total = n;
    return u == n;
}
