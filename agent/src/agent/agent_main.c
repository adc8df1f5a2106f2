/* dcn-agent: one per emulated server. One libev loop drives the port
 * sockets, the TUN device, link events, the control socket and a 100 ms
 * tick; every forwarding decision is in engine.c. */
#include <errno.h>
#include <ev.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "agent/core/engine.h"
#include "agent/core/frame_csum.h"
#include "agent/core/nha.h"
#include "agent/core/tun_gro.h"
#include "agent/core/tun_offload.h"
#include "agent/ctl/ctl_server.h"
#include "agent/kernel/kernel_relay.h"
#include "agent/os/linkmon.h"
#include "agent/os/pcap_io.h"
#include "agent/os/pidfile.h"
#include "agent/os/privs.h"
#include "agent/os/syscall_filter.h"
#include "agent/os/rawsock.h"
#include "agent/os/segveth.h"
#include "agent/os/tun.h"
#include "options.h"
#include "topo/bfs.h"

#define TUN_BURST 64
#define RX_BURSTS 4
/* a tick later than this (s) reads the ports before it runs */
#define TICK_LATE_S 0.05

typedef struct agent {
    agent_options opt;
    dcn_topo topo;
    engine *e;
    struct ev_loop *loop;
    rawsock sock[ENGINE_MAX_PORTS];
    ev_io sock_w[ENGINE_MAX_PORTS];
    char ifname[ENGINE_MAX_PORTS][16];
    int tun_fd;
    ev_io tun_w;
    linkmon *lm;
    ev_io lm_w;
    ev_timer tick_w;
    ev_tstamp tick_due; /* when tick_w was armed to fire (loop time) */
    ev_signal sig_w[2];
    ctl_server *ctl;
    pcap_writer *pcap;
    uint8_t *tunbuf;
    tun_gro gro;   /* TCP segments to the local stack, merged per receive batch */
    bool in_batch; /* in on_port: the receive buffers live until gro_flush */
    uint8_t was_up[256];
    uint64_t tx_dropped_seen;
    kernel_relay *kr;        /* --data-path kernel: the kernel's data path, else NULL */
    segveth seg;             /* --data-path kernel: where GSO batches are cut (os/segveth.h) */
    uint64_t ps_events_seen; /* path selection's inputs counted when the kernel's flows were last checked */
    bool kr_attach_failed;
} agent;

static agent A;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "%02d:%02d:%02d.%03ld %s: ", tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
            A.opt.name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- engine I/O ---- */

static uint64_t io_now(void *ctx)
{
    (void)ctx;
    return mono_ms();
}

/* The socket a frame goes out on (NULL: no such port), after the capture. */
static rawsock *io_port(agent *a, unsigned port, const uint8_t *frame, size_t len)
{
    if (port >= ENGINE_MAX_PORTS || a->sock[port].fd < 0)
        return NULL;
    if (a->pcap)
        pcapw_write(a->pcap, frame, len, 0);
    return &a->sock[port];
}

static int io_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    rawsock *s = io_port(ctx, port, frame, len);
    return s ? rawsock_queue(s, frame, len) : -1;
}

/* A relayed frame, still in its port's receive batch: on_port flushes every
 * send queue before that batch is reused (flush_all, then rawsock_recv_done),
 * so the queue holds a reference instead of a copy. */
static int io_send_rx(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    rawsock *s = io_port(ctx, port, frame, len);
    return s ? rawsock_queue_ref(s, frame, len) : -1;
}

/* The engine relayed a data frame: its path is valid, the kernel may take
 * the next ones. */
static void io_relayed_data(void *ctx, unsigned in_port, const dcn_hdr *h)
{
    agent *a = ctx;
    kernel_relay_learn(a->kr, in_port, h);
}

/* The engine delivered a data frame, or sent one from the TUN device; the
 * kernel may take the path's (the flow's) next ones. */
static void io_delivered_data(void *ctx, unsigned in_port, const dcn_hdr *h)
{
    agent *a = ctx;
    kernel_relay_learn_delivery(a->kr, in_port, h);
}

static void io_sent_data(void *ctx, const dcn_flow_key *k, uint32_t dst, const dcn_hdr *h, unsigned port)
{
    agent *a = ctx;
    kernel_relay_learn_flow(a->kr, k, dst, h, port);
}

/* What may move a flow to another path: probe responses and path-failure
 * messages (a tick or a carrier change checks the flows anyway). */
static uint64_t ps_events(const engine *e)
{
    return e->c.probe_resp_rx + e->c.path_failure_rx + e->c.path_failure_overheard + e->c.rerouted_at_send;
}

/* The kernel's flows against path selection: each tick, and at once after
 * a receive batch that may have moved a flow. */
static void kr_flows(agent *a, bool always)
{
    if (!a->kr)
        return;
    uint64_t now = ps_events(a->e);
    if (!always && now == a->ps_events_seen)
        return;
    a->ps_events_seen = now;
    kernel_relay_sync_flows(a->kr, a->e);
}

/* The kernel's view of the neighbours, after anything that may have
 * changed them (cheap when nothing did). */
static void kr_sync(agent *a)
{
    if (a->kr)
        kernel_relay_sync(a->kr, a->e);
}

static void kr_fold_stats(agent *a)
{
    if (a->kr)
        kernel_relay_fold_stats(a->kr, a->e);
}

/* Before the control socket answers: the kernel's packets in the counters,
 * the port meters and the flows' rates. */
static void kr_fold(void *ctx)
{
    agent *a = ctx;
    kr_fold_stats(a);
    kr_flows(a, true);
}

static void tun_write_one(agent *a, const uint8_t *ip, size_t len)
{
    ssize_t rc;
    if (a->opt.tun_offload) {
        /* no offload asked of the kernel: a plain packet, checksums checked */
        struct virtio_net_hdr vh = {.gso_type = VIRTIO_NET_HDR_GSO_NONE};
        struct iovec iov[2] = {{.iov_base = &vh, .iov_len = sizeof vh}, {.iov_base = (void *)ip, .iov_len = len}};
        rc = writev(a->tun_fd, iov, 2);
    } else {
        rc = write(a->tun_fd, ip, len);
    }
    if (rc < 0)
        a->e->c.drop_tx_error++;
}

static void gro_flush(agent *a)
{
    struct iovec *iov;
    uint64_t merged = a->gro.merged;
    int n = tun_gro_take(&a->gro, &iov);
    if (n == 0)
        return;
    if (writev(a->tun_fd, iov, n) < 0)
        a->e->c.drop_tx_error++;
    a->e->c.tun_gro_merged += a->gro.merged - merged;
}

static void io_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    agent *a = ctx;
    if (!a->opt.tun_offload || !a->in_batch) {
        tun_write_one(a, ip, len);
        return;
    }
    switch (tun_gro_offer(&a->gro, ip, len)) {
    case TUN_GRO_HELD:
        return;
    case TUN_GRO_FLUSH:
        gro_flush(a);
        if (tun_gro_offer(&a->gro, ip, len) == TUN_GRO_HELD)
            return;
        break;
    case TUN_GRO_ALONE:
        gro_flush(a); /* keep the order of one connection's packets */
        break;
    }
    tun_write_one(a, ip, len);
}

static void flush_all(agent *a)
{
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        if (a->sock[p].fd >= 0 && a->sock[p].tn)
            rawsock_flush(&a->sock[p]);
}

/* ---- ports ---- */

static void on_port(struct ev_loop *loop, ev_io *w, int revents);

static int attach_port(agent *a, unsigned p)
{
    char err[200];
    if (rawsock_open(&a->sock[p], a->ifname[p], a->opt.rx_ring, err, sizeof err) < 0) {
        a->sock[p].fd = -1;
        logf_("port %u: %s (port unused)", p, err);
        return -1;
    }
    engine_port *ep = &a->e->port[p];
    ep->present = true;
    ep->carrier = a->sock[p].carrier;
    memcpy(ep->mac, a->sock[p].mac, 6);
    snprintf(ep->ifname, sizeof ep->ifname, "%s", a->ifname[p]);
    ep->capacity_mbps = a->opt.port_capacity[p] ? a->opt.port_capacity[p] : a->opt.capacity_mbps;
    if (a->kr && kernel_relay_attach(a->kr, p, a->sock[p].ifindex, err, sizeof err) < 0) {
        logf_("port %u: %s (its frames are relayed by the agent)", p, err);
        a->kr_attach_failed = true;
    }
    if (a->loop) {
        ev_io_init(&a->sock_w[p], on_port, a->sock[p].fd, EV_READ);
        a->sock_w[p].data = (void *)(uintptr_t)p;
        ev_io_start(a->loop, &a->sock_w[p]);
    }
    logf_("port %u: %s bound, carrier %s", p, a->ifname[p], ep->carrier ? "up" : "down");
    return 0;
}

static void detach_port(agent *a, unsigned p)
{
    if (a->sock[p].fd < 0)
        return;
    if (a->loop)
        ev_io_stop(a->loop, &a->sock_w[p]);
    if (a->kr)
        kernel_relay_detach(a->kr, p);
    rawsock_close(&a->sock[p]);
    engine_carrier(a->e, p, false);
    a->e->port[p].present = false;
    logf_("port %u: %s gone", p, a->ifname[p]);
}

/* The tick is a one-shot timer, armed again after each tick for as long as
 * the engine may wait (engine_tick_wait_ms): 100 ms while flows or failures
 * are being timed, else until the next hello or neighbour expiry. */
static void arm_tick(agent *a, uint32_t ms)
{
    ev_timer_stop(a->loop, &a->tick_w);
    ev_timer_set(&a->tick_w, ms / 1000.0, 0.);
    ev_timer_start(a->loop, &a->tick_w);
    a->tick_due = ev_now(a->loop) + ms / 1000.0;
}

/* After I/O: a first flow or failure makes the engine busy; its timers
 * then need the short tick at once, not at the end of a long wait. */
static void hurry_tick(agent *a)
{
    if (!engine_idle(a->e) && ev_timer_remaining(a->loop, &a->tick_w) > ENGINE_TICK_MS / 1000.0)
        arm_tick(a, ENGINE_TICK_MS);
}

static void on_port(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    agent *a = &A;
    unsigned p = (unsigned)(uintptr_t)w->data;
    rawsock *s = &a->sock[p];
    a->in_batch = true;
    for (int burst = 0; burst < RX_BURSTS; burst++) {
        int n = rawsock_recv_batch(s);
        for (int i = 0; i < n; i++) {
            uint8_t *f = s->riov[i].iov_base;
            size_t len = s->rmsg[i].msg_len;
            if (s->rfrom[i].sll_pkttype == PACKET_OTHERHOST) {
                a->e->c.drop_other_host++;
                continue;
            }
            if (s->rcsum_partial[i] && dcn_frame_complete_l4_csum(f, len) == 0)
                a->e->c.rx_csum_completed++; /* a kernel's frame (--data-path kernel) that the agent takes */
            if (a->pcap)
                pcapw_write(a->pcap, f, len, 0);
            engine_rx_frame(a->e, p, f, len);
        }
        gro_flush(a);
        flush_all(a); /* the batch buffers are reused by the next recvmmsg */
        rawsock_recv_done(s); /* ring frames back to the kernel */
        a->e->c.drop_truncated += s->rx_truncated;
        s->rx_truncated = 0;
        if (n < RAWSOCK_BATCH)
            break;
    }
    a->in_batch = false;
    kr_sync(a); /* a hello may have brought a neighbour up */
    kr_flows(a, false);
    hurry_tick(a);
}

static void emit_from_tun(void *ctx, uint8_t *buf, size_t len)
{
    agent *a = ctx;
    engine_from_tun(a->e, buf, len);
}

static void on_tun(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    (void)w;
    agent *a = &A;
    for (int i = 0; i < TUN_BURST; i++) {
        if (!a->opt.tun_offload) {
            ssize_t n = read(a->tun_fd, a->tunbuf + ENGINE_HEADROOM, TUN_OFFLOAD_MAX);
            if (n <= 0)
                break;
            engine_from_tun(a->e, a->tunbuf, (size_t)n);
            continue;
        }
        /* the virtio-net header lands just before the packet's headroom,
         * the packet where engine_from_tun expects it */
        uint8_t *at = a->tunbuf + ENGINE_HEADROOM - TUN_VNET_HDR_LEN;
        ssize_t n = read(a->tun_fd, at, TUN_VNET_HDR_LEN + TUN_OFFLOAD_MAX);
        if (n <= 0)
            break;
        if (n < TUN_VNET_HDR_LEN) {
            a->e->c.drop_bad_offload++;
            continue;
        }
        struct virtio_net_hdr vh;
        memcpy(&vh, at, sizeof vh);
        if (vh.gso_type != VIRTIO_NET_HDR_GSO_NONE)
            a->e->c.tun_gso_in++;
        if (tun_offload_in(&vh, a->tunbuf, ENGINE_HEADROOM, (size_t)n - TUN_VNET_HDR_LEN, emit_from_tun, a) < 0)
            a->e->c.drop_bad_offload++;
    }
    flush_all(a);
    hurry_tick(a);
}

static void on_link(void *ctx, int ifindex, const char *ifname, bool exists, bool carrier)
{
    agent *a = ctx;
    for (unsigned p = 0; p < a->e->nports; p++) {
        if (a->sock[p].fd >= 0 && a->sock[p].ifindex == ifindex) {
            if (!exists) {
                detach_port(a, p);
            } else if (a->e->port[p].carrier != carrier) {
                logf_("port %u: %s carrier %s", p, a->ifname[p], carrier ? "up" : "down");
                engine_carrier(a->e, p, carrier);
            }
        } else if (a->sock[p].fd < 0 && exists && strcmp(ifname, a->ifname[p]) == 0) {
            if (attach_port(a, p) == 0 && a->e->port[p].carrier)
                engine_send_hellos(a->e);
        }
    }
    flush_all(a);
    kr_sync(a);
    kr_flows(a, true);
    hurry_tick(a);
}

static void on_linkmon(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    linkmon_read(A.lm);
}

static void log_neighbor_changes(agent *a)
{
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &a->e->nt.e[i];
        if (!ne->valid || ne->up == a->was_up[i])
            continue;
        char name[DCN_NAME_MAX];
        dcn_node_name(&a->topo, ne->node, name, sizeof name);
        logf_("neighbor %s (NHA 0x%02x, port %u) %s", name, i, ne->port, ne->up ? "up" : "down");
        a->was_up[i] = ne->up;
    }
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    agent *a = &A;
    /* A tick that fires late means the agent waited for the CPU (a box
     * busy starting thousands of agents): the hellos that arrived
     * meanwhile are read before the tick judges the neighbours, which
     * would otherwise expire neighbours whose hellos sit in the sockets.
     * (libev calls an expired timer before the sockets that became
     * readable with it, and after a SIGSTOP the wait returns no events.) */
    if (ev_now(loop) - a->tick_due > TICK_LATE_S)
        for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
            if (a->sock[p].fd >= 0)
                ev_invoke(loop, &a->sock_w[p], EV_READ);
    kr_fold_stats(a); /* the kernel relay's frames count in the port meters */
    engine_tick(a->e);
    a->e->c.syscall_denied = syscall_filter_denied();
    flush_all(a);
    kr_sync(a);
    kr_flows(a, true); /* the kernel's bytes into the flows' rates; flows the tick moved taken back */
    uint64_t dropped = 0;
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        if (a->sock[p].fd >= 0)
            dropped += a->sock[p].tx_dropped;
    if (dropped > a->tx_dropped_seen) {
        a->e->c.drop_tx_error += dropped - a->tx_dropped_seen;
        a->e->c.tx_ok -= a->e->c.tx_ok >= dropped - a->tx_dropped_seen ? dropped - a->tx_dropped_seen : 0;
    }
    a->tx_dropped_seen = dropped;
    log_neighbor_changes(a);
    if (a->pcap)
        pcapw_flush(a->pcap);
    arm_tick(a, engine_tick_wait_ms(a->e));
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

/* ---- setup ---- */

static int build_topology(agent *a, char *err, size_t errlen)
{
    char spec[sizeof a->opt.topo];
    memcpy(spec, a->opt.topo, sizeof spec);
    char *words[64];
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(spec, " \t", &save); w && n < 64; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    if (n == 0) {
        snprintf(err, errlen, "--topo is empty");
        return -1;
    }
    if (dcn_topo_build(&a->topo, words[0], n - 1, words + 1, err, errlen) < 0)
        return -1;
    return 0;
}

/* Header bytes to reserve below the link MTU: paths of up to twice the
 * server-hop eccentricity plus two hops (BSR's BFS alternates). */
static size_t header_reserve(const dcn_topo *t, uint32_t self)
{
    uint32_t *hops = calloc(t->n_servers, sizeof *hops);
    uint32_t ecc = 8;
    if (hops) {
        dcn_bfs_server_distances(t, self, NULL, NULL, hops);
        ecc = 0;
        for (uint32_t i = 0; i < t->n_servers; i++)
            if (hops[i] != UINT32_MAX && hops[i] > ecc)
                ecc = hops[i];
        free(hops);
    }
    uint32_t bound = 2 * ecc + 2;
    if (bound > DCN_MAX_HOPS)
        bound = DCN_MAX_HOPS;
    return DCN_HDR_FIXED + dcn_nha_bytes(bound);
}

int main(int argc, char **argv)
{
    agent *a = &A;
    char err[300];
    a->tun_fd = -1;
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        a->sock[p].fd = -1;
    if (agent_options_parse(&a->opt, argc, argv, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-agent: %s\n", err);
        return 2;
    }
    if (build_topology(a, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-agent: --topo: %s\n", err);
        return 2;
    }
    if (nha_topology_check(&a->topo, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-agent: --topo %s: %s\n", a->opt.topo, err);
        return 2;
    }
    uint32_t self = dcn_node_lookup(&a->topo, a->opt.name);
    if (self == DCN_NONE || self >= a->topo.n_servers) {
        fprintf(stderr, "dcn-agent: --name %s is not a server of %s\n", a->opt.name, a->opt.topo);
        return 2;
    }
    if (a->opt.check) {
        printf("dcn-agent: %s: %s can run here (%u servers, NHA limits respected)\n", a->opt.topo, a->opt.name,
               a->topo.n_servers);
        dcn_topo_free(&a->topo);
        return 0;
    }
    /* before anything is created: a pidfile that cannot be written is a
     * usage error and leaves nothing behind */
    if (a->opt.pidfile[0] && pidfile_open(a->opt.pidfile, err, sizeof err) < 0) {
        fprintf(stderr, "dcn-agent: %s\n", err);
        dcn_topo_free(&a->topo);
        return 2;
    }
    if (a->opt.log[0] && !freopen(a->opt.log, "a", stderr)) {
        fprintf(stdout, "dcn-agent: cannot open log %s: %s\n", a->opt.log, strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    a->e = calloc(1, sizeof *a->e);
    a->tunbuf = malloc(ENGINE_HEADROOM + TUN_OFFLOAD_MAX + 1);
    if (!a->e || !a->tunbuf) {
        logf_("out of memory");
        return 1;
    }
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.hello_ms = a->opt.hello_ms;
    cfg.dead_misses = a->opt.dead_misses;
    cfg.seed = a->opt.seed;
    cfg.mdcube_routing = a->opt.mdcube_routing;
    engine_io io = {.ctx = a, .now_ms = io_now, .send_frame = io_send, .send_rx_frame = io_send_rx,
                    .deliver_ip = io_deliver};
    if (a->opt.relay_copy)
        io.send_rx_frame = NULL; /* relayed frames go through send_frame, copied */
    if (a->opt.data_path == DATA_PATH_KERNEL) { /* the paths and flows the kernel may take next */
        io.relayed_data = io_relayed_data;
        io.delivered_data = io_delivered_data;
        io.sent_data = io_sent_data;
    }
    if (engine_init(a->e, &a->topo, self, &cfg, &io) < 0) {
        logf_("engine setup failed");
        return 1;
    }
    if (a->opt.pcap[0] && !(a->pcap = pcapw_open(a->opt.pcap, err, sizeof err))) {
        logf_("--pcap: %s", err);
        return 1;
    }
    for (unsigned p = 0; p < a->e->nports; p++) {
        if (agent_ifname(&a->opt, p, a->ifname[p], sizeof a->ifname[p]) < 0) {
            fprintf(stderr, "dcn-agent: interface name of port %u is longer than 15 characters\n", p);
            return 2;
        }
    }
    /* the control socket first: a conflict at its path is a usage error (2)
     * found before any port or device is opened, and its line is the only one */
    ctl_server_config ccfg;
    ctl_server_config_default(&ccfg);
    ccfg.gid = a->opt.ctl_gid;
    ccfg.before_answer = kr_fold;
    ccfg.ctx = a;
    int ctl_rc = 1;
    a->ctl = ctl_server_open(a->opt.ctl_path, &ccfg, a->e, err, sizeof err, &ctl_rc);
    if (!a->ctl) {
        fprintf(stderr, "dcn-agent: %s\n", err);
        return ctl_rc;
    }
    if (a->opt.data_path == DATA_PATH_KERNEL && !(a->kr = kernel_relay_open(err, sizeof err))) {
        fprintf(stderr, "dcn-agent: --data-path kernel: %s (--data-path agent needs no BPF)\n", err);
        ctl_server_close(a->ctl);
        return 1;
    }
    for (unsigned p = 0; p < a->e->nports; p++)
        attach_port(a, p);
    if (a->kr_attach_failed) {
        fprintf(stderr, "dcn-agent: --data-path kernel: the program could not be attached to every port (above)\n");
        kernel_relay_close(a->kr);
        ctl_server_close(a->ctl);
        return 1;
    }
    kr_sync(a);
    size_t reserve = header_reserve(&a->topo, self) + engine_ext_reserve(a->e);
    unsigned tun_mtu = (unsigned)(a->opt.mtu - reserve);
    a->tun_fd = tun_open(a->opt.tun, engine_ip_of(self), tun_mtu, a->opt.tun_offload, err, sizeof err);
    if (a->tun_fd < 0) {
        logf_("%s", err);
        ctl_server_close(a->ctl);
        return 1;
    }
    if (a->kr &&
        (segveth_open(&a->seg, a->opt.tun, tun_mtu, err, sizeof err) < 0 ||
         kernel_relay_enable_ends(a->kr, (int)if_nametoindex(a->opt.tun), a->seg.near_ifindex, a->seg.far_ifindex,
                                  a->opt.mtu, err, sizeof err) < 0)) {
        fprintf(stderr, "dcn-agent: --data-path kernel: %s\n", err);
        kernel_relay_close(a->kr);
        segveth_close(&a->seg);
        ctl_server_close(a->ctl);
        tun_close(a->tun_fd);
        return 1;
    }
    a->lm = linkmon_open(on_link, a);
    if (!a->lm)
        logf_("netlink link monitor unavailable: carrier changes only through hellos");
    if (!a->opt.foreground && daemon(1, a->opt.log[0] ? 1 : 0) < 0) {
        logf_("daemon: %s", strerror(errno));
        return 1;
    }
    if (pidfile_write(err, sizeof err) < 0) {
        logf_("%s", err);
        ctl_server_close(a->ctl);
        kernel_relay_close(a->kr);
        segveth_close(&a->seg);
        tun_close(a->tun_fd);
        return 1;
    }
    a->loop = ev_default_loop(EVFLAG_AUTO);
    for (unsigned p = 0; p < a->e->nports; p++) {
        if (a->sock[p].fd < 0)
            continue;
        ev_io_init(&a->sock_w[p], on_port, a->sock[p].fd, EV_READ);
        a->sock_w[p].data = (void *)(uintptr_t)p;
        ev_io_start(a->loop, &a->sock_w[p]);
    }
    ev_io_init(&a->tun_w, on_tun, a->tun_fd, EV_READ);
    ev_io_start(a->loop, &a->tun_w);
    if (a->lm) {
        ev_io_init(&a->lm_w, on_linkmon, linkmon_fd(a->lm), EV_READ);
        ev_io_start(a->loop, &a->lm_w);
    }
    ctl_server_start(a->ctl, a->loop);
    ev_timer_init(&a->tick_w, on_tick, 0., 0.);
    arm_tick(a, ENGINE_TICK_MS);
    ev_signal_init(&a->sig_w[0], on_signal, SIGTERM);
    ev_signal_init(&a->sig_w[1], on_signal, SIGINT);
    ev_signal_start(a->loop, &a->sig_w[0]);
    ev_signal_start(a->loop, &a->sig_w[1]);
    /* set up: from here on only what the running agent uses (os/privs.h) */
    if (privs_drop(err, sizeof err) < 0) {
        logf_("least privilege: %s", err);
        return 1;
    }
    if (syscall_filter_install(err, sizeof err) < 0) {
        logf_("least privilege: %s", err);
        return 1;
    }
    char name[DCN_NAME_MAX];
    dcn_node_name(&a->topo, self, name, sizeof name);
    logf_("server %s id %u ip 10.%u.%u.%u, %u neighbours, tun %s mtu %u, ctl %s, path selection %s, data path %s%s",
          name, self, (engine_ip_of(self) >> 16) & 255, (engine_ip_of(self) >> 8) & 255, engine_ip_of(self) & 255,
          a->e->nt.n_valid, a->opt.tun, tun_mtu, a->opt.ctl_path, ps_name(), agent_data_path_name(a->opt.data_path),
          a->e->hier ? ", MDCube hierarchical routing" : a->e->container_of ? ", MDCube source routing" : "");
    if (a->pcap && a->kr)
        logf_("--pcap: the frames the kernel takes are not in the capture (--data-path agent captures every one)");
    engine_send_hellos(a->e);
    flush_all(a);
    ev_run(a->loop, 0);

    logf_("exiting");
    ctl_server_close(a->ctl);
    linkmon_close(a->lm);
    tun_close(a->tun_fd);
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        if (a->sock[p].fd >= 0)
            rawsock_close(&a->sock[p]);
    kernel_relay_close(a->kr);
    segveth_close(&a->seg);
    pcapw_close(a->pcap);
    engine_fini(a->e);
    free(a->e);
    free(a->tunbuf);
    dcn_topo_free(&a->topo);
    return 0; /* the pidfile is removed at exit */
}
