#include "kernel_relay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "agent/core/engine_internal.h"
#include "flow_mirror.h"
#include "relay_entries.h"
#include "relay_maps.h"

/* The program, compiled with clang -target bpf and embedded at build time
 * (CMakeLists.txt: relay_bpf_obj.c). */
extern const unsigned char krelay_bpf_obj[];
extern const size_t krelay_bpf_obj_len;

/* TCX, Linux 6.6: not in the 6.1 UAPI headers Debian 12 builds with */
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS 47
#endif

struct kernel_relay {
    struct bpf_object *obj;
    int prog_fd, paths_fd, neigh_fd, stats_fd;
    int send_prog_fd, seg_prog_fd, flows_fd, config_fd;
    int tun_link_fd;   /* dcn_kernel_send at dcn0's egress (kernel_relay_enable_ends) */
    int seg_link_fd;   /* and dcn_kernel_segment at the segmenting veth's far end */
    flow_mirror *fm;   /* the flows the kernel sends */
    struct krelay_config config; /* what the map holds */
    int link_fd[ENGINE_MAX_PORTS];
    int ifindex[ENGINE_MAX_PORTS];
    unsigned ncpus;
    struct krelay_stats *percpu;              /* ncpus entries, read buffer */
    struct krelay_stats seen[ENGINE_MAX_PORTS]; /* totals already folded */
    struct krelay_neigh shadow[256];          /* what the map holds */
    bool synced;
    uint32_t synced_gen;
};

/* libbpf's own messages: warnings and errors only, on stderr (the log) */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int map_fd(kernel_relay *kr, const char *name, char *err, size_t errlen)
{
    int fd = bpf_object__find_map_fd_by_name(kr->obj, name);
    if (fd < 0)
        snprintf(err, errlen, "kernel relay: no map '%s' in the program", name);
    return fd;
}

static int prog_fd(kernel_relay *kr, const char *name, char *err, size_t errlen)
{
    struct bpf_program *prog = bpf_object__find_program_by_name(kr->obj, name);
    int fd = prog ? bpf_program__fd(prog) : -1;
    if (fd < 0)
        snprintf(err, errlen, "kernel relay: no program '%s' in the object", name);
    return fd;
}

/* Is the relay's program attached to this port? */
static bool attached(const kernel_relay *kr, unsigned port)
{
    return port < ENGINE_MAX_PORTS && kr->link_fd[port] >= 0;
}

kernel_relay *kernel_relay_open(char *err, size_t errlen)
{
    libbpf_set_print(libbpf_log);
    kernel_relay *kr = calloc(1, sizeof *kr);
    if (!kr) {
        snprintf(err, errlen, "kernel relay: out of memory");
        return NULL;
    }
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        kr->link_fd[p] = -1;
    kr->tun_link_fd = kr->seg_link_fd = -1;
    int n = libbpf_num_possible_cpus();
    if (n <= 0) {
        snprintf(err, errlen, "kernel relay: cannot count the CPUs: %s", strerror(-n));
        goto fail;
    }
    kr->ncpus = (unsigned)n;
    kr->percpu = calloc(kr->ncpus, sizeof *kr->percpu);
    kr->fm = calloc(1, sizeof *kr->fm);
    if (!kr->percpu || !kr->fm) {
        snprintf(err, errlen, "kernel relay: out of memory");
        goto fail;
    }
    LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "dcn_kernel_relay");
    kr->obj = bpf_object__open_mem(krelay_bpf_obj, krelay_bpf_obj_len, &oo);
    if (!kr->obj) {
        snprintf(err, errlen, "kernel relay: cannot open the program: %s", strerror(errno));
        goto fail;
    }
    int rc = bpf_object__load(kr->obj);
    if (rc) {
        snprintf(err, errlen, "kernel relay: the kernel refused the program: %s (needs root, BPF and TCX, Linux >= 6.6)",
                 strerror(-rc));
        goto fail;
    }
    if ((kr->prog_fd = prog_fd(kr, "dcn_kernel_relay", err, errlen)) < 0 ||
        (kr->send_prog_fd = prog_fd(kr, "dcn_kernel_send", err, errlen)) < 0 ||
        (kr->seg_prog_fd = prog_fd(kr, "dcn_kernel_segment", err, errlen)) < 0)
        goto fail;
    if ((kr->paths_fd = map_fd(kr, "paths", err, errlen)) < 0 || (kr->neigh_fd = map_fd(kr, "neigh", err, errlen)) < 0 ||
        (kr->stats_fd = map_fd(kr, "stats", err, errlen)) < 0 || (kr->flows_fd = map_fd(kr, "flows", err, errlen)) < 0 ||
        (kr->config_fd = map_fd(kr, "config", err, errlen)) < 0)
        goto fail;
    return kr;
fail:
    kernel_relay_close(kr);
    return NULL;
}

int kernel_relay_attach(kernel_relay *kr, unsigned port, int ifindex, char *err, size_t errlen)
{
    if (port >= ENGINE_MAX_PORTS || ifindex <= 0) {
        snprintf(err, errlen, "kernel relay: bad port %u or interface index %d", port, ifindex);
        return -1;
    }
    kernel_relay_detach(kr, port);
    int fd = bpf_link_create(kr->prog_fd, ifindex, (enum bpf_attach_type)BPF_TCX_INGRESS, NULL);
    if (fd < 0) {
        snprintf(err, errlen, "kernel relay: cannot attach to interface %d at TCX ingress: %s (Linux >= 6.6)", ifindex,
                 strerror(-fd));
        return -1;
    }
    kr->link_fd[port] = fd;
    kr->ifindex[port] = ifindex;
    kr->synced = false; /* the out port's interface index is in the neighbour entries */
    return 0;
}

void kernel_relay_detach(kernel_relay *kr, unsigned port)
{
    if (!attached(kr, port))
        return;
    close(kr->link_fd[port]); /* the link is the agent's: closing it detaches the program */
    kr->link_fd[port] = -1;
    kr->ifindex[port] = 0;
    kr->synced = false;
}

static int attach_tcx(int prog, int ifindex, int where, const char *what, char *err, size_t errlen)
{
    int fd = bpf_link_create(prog, ifindex, (enum bpf_attach_type)where, NULL);
    if (fd < 0)
        snprintf(err, errlen, "kernel relay: cannot attach to %s: %s", what, strerror(-fd));
    return fd;
}

int kernel_relay_enable_ends(kernel_relay *kr, int tun_ifindex, int seg_near, int seg_far, unsigned port_mtu, char *err,
                             size_t errlen)
{
    if (tun_ifindex <= 0 || seg_near <= 0 || seg_far <= 0) {
        snprintf(err, errlen, "kernel relay: no interface index for the TUN device or the segmenting veth");
        return -1;
    }
    __u32 zero = 0;
    struct krelay_config c = {.tun_ifindex = (__u32)tun_ifindex, .seg_ifindex = (__u32)seg_near, .port_mtu = port_mtu};
    kr->config = c;
    if (bpf_map_update_elem(kr->config_fd, &zero, &c, BPF_ANY) != 0) {
        snprintf(err, errlen, "kernel relay: cannot write its configuration: %s", strerror(errno));
        return -1;
    }
    if ((kr->seg_link_fd = attach_tcx(kr->seg_prog_fd, seg_far, BPF_TCX_INGRESS, "the segmenting veth at TCX ingress",
                                      err, errlen)) < 0 ||
        (kr->tun_link_fd = attach_tcx(kr->send_prog_fd, tun_ifindex, BPF_TCX_EGRESS, "the TUN device at TCX egress", err,
                                      errlen)) < 0)
        return -1;
    return 0;
}

/* The "paths" entry of key k: its frames that come in on in_port (whose
 * program is attached) are the kernel's from now on. */
static void learn_path(kernel_relay *kr, unsigned in_port, const struct krelay_path_key *k)
{
    struct krelay_path_val v = {.in_ifindex = (__u32)kr->ifindex[in_port], .in_port = in_port};
    (void)bpf_map_update_elem(kr->paths_fd, k, &v, BPF_ANY); /* a failure leaves the path with the agent */
}

void kernel_relay_learn_delivery(kernel_relay *kr, unsigned in_port, const dcn_hdr *h)
{
    struct krelay_path_key k;
    if (attached(kr, in_port) && krelay_delivery_key_of(h, &k))
        learn_path(kr, in_port, &k);
}

/* The kernel's entry sends on this path, over this port's interface (an
 * interface removed and made again has a new index). */
static bool same_path(const flow_mirror_entry *m, const dcn_hdr *h, unsigned port, int ifindex)
{
    return m->nhops == h->nhops && m->port == port && m->ifindex == ifindex && memcmp(m->nha, h->nha, h->nhops) == 0;
}

void kernel_relay_learn_flow(kernel_relay *kr, const dcn_flow_key *k, uint32_t dst, const dcn_hdr *h, unsigned port)
{
    if (!attached(kr, port))
        return;
    struct krelay_flow_key key = flow_mirror_key(k);
    flow_mirror_entry *m = flow_mirror_find(kr->fm, &key);
    if (m && same_path(m, h, port, kr->ifindex[port]))
        return; /* the kernel has it: this packet came to the agent for another reason (a GSO packet, a hop down) */
    struct krelay_flow v;
    if (!krelay_flow_of(h, port, kr->ifindex[port], &v)) {
        if (m) { /* the flow's path is no longer one the kernel may send on */
            (void)bpf_map_delete_elem(kr->flows_fd, &key);
            flow_mirror_remove(kr->fm, m);
        }
        return;
    }
    if (!m && !(m = flow_mirror_add(kr->fm, &key)))
        return; /* KRELAY_FLOWS flows in the kernel already: this one stays with the agent */
    if (bpf_map_update_elem(kr->flows_fd, &key, &v, BPF_ANY) != 0) {
        (void)bpf_map_delete_elem(kr->flows_fd, &key);
        flow_mirror_remove(kr->fm, m);
        return;
    }
    m->flow = *k;
    m->dst = dst;
    m->nhops = h->nhops;
    m->port = (uint8_t)port;
    m->ifindex = kr->ifindex[port];
    memcpy(m->nha, h->nha, h->nhops);
    m->counted = 0; /* the map's count starts again at 0 */
}

/* Does path selection still send the flow on the path the kernel has? */
static bool still_on(const engine *e, const flow_mirror_entry *m, const dcn_path *p)
{
    uint8_t nha[DCN_PATH_MAX];
    if (!p || p->len < 2 || p->node[0] != e->self)
        return false;
    int n = nha_encode_path(e->t, p, nha, DCN_PATH_MAX);
    return n == m->nhops && memcmp(nha, m->nha, (size_t)n) == 0;
}

void kernel_relay_sync_flows(kernel_relay *kr, engine *e)
{
    /* while path selection waits to hear a path back to some source, the
     * agent delivers (engine.c, heard_path) */
    __u32 want = ps_wants_any_path(e->ps);
    if (want != kr->config.deliver_to_agent) {
        struct krelay_config c = kr->config;
        __u32 zero = 0;
        c.deliver_to_agent = want;
        if (bpf_map_update_elem(kr->config_fd, &zero, &c, BPF_ANY) == 0)
            kr->config = c;
    }
    for (unsigned i = 0; i < FLOW_MIRROR_SLOTS; i++) {
        flow_mirror_entry *m = &kr->fm->slot[i];
        if (!m->used)
            continue;
        struct krelay_flow v;
        bool keep = bpf_map_lookup_elem(kr->flows_fd, &m->key, &v) == 0;
        if (keep) {
            /* the kernel's bytes count towards the flow's rate and keep it
             * alive, as the agent's own packets would (ps_route) */
            uint64_t fresh = v.bytes >= m->counted ? v.bytes - m->counted : 0;
            m->counted = v.bytes;
            const dcn_path *p = fresh ? ps_route(e->ps, &m->flow, m->dst, fresh > UINT32_MAX ? UINT32_MAX : (uint32_t)fresh)
                                      : ps_current(e->ps, &m->flow, m->dst);
            keep = still_on(e, m, p);
        }
        if (keep)
            continue;
        /* the flow moved, or path selection forgot it: its next packet goes
         * to the agent, which routes it and gives the kernel the new path */
        (void)bpf_map_delete_elem(kr->flows_fd, &m->key);
        flow_mirror_remove(kr->fm, m);
        i--; /* backward-shift deletion may have moved an entry into slot i */
    }
}

void kernel_relay_learn(kernel_relay *kr, unsigned in_port, const dcn_hdr *h)
{
    struct krelay_path_key k;
    if (attached(kr, in_port) && krelay_path_key_of(h, &k))
        learn_path(kr, in_port, &k);
}

void kernel_relay_sync(kernel_relay *kr, const engine *e)
{
    if (kr->synced && kr->synced_gen == e->nt.gen)
        return;
    bool all_written = true;
    for (unsigned nha = 0; nha < 256; nha++) {
        struct krelay_neigh n;
        krelay_neigh_of(e, nha, kr->ifindex, &n);
        if (kr->synced && memcmp(&n, &kr->shadow[nha], sizeof n) == 0)
            continue;
        __u32 key = nha;
        if (bpf_map_update_elem(kr->neigh_fd, &key, &n, BPF_ANY) == 0)
            kr->shadow[nha] = n;
        else
            all_written = false; /* tried again on the next call */
    }
    kr->synced = all_written;
    kr->synced_gen = e->nt.gen;
}

void kernel_relay_fold_stats(kernel_relay *kr, engine *e)
{
    for (unsigned p = 0; p < ENGINE_MAX_PORTS && p < e->nports; p++) {
        __u32 key = p;
        if (bpf_map_lookup_elem(kr->stats_fd, &key, kr->percpu) != 0)
            continue;
        struct krelay_stats t = {0};
        for (unsigned c = 0; c < kr->ncpus; c++) {
            t.rx_bytes += kr->percpu[c].rx_bytes;
            t.rx_frames += kr->percpu[c].rx_frames;
            t.tx_bytes += kr->percpu[c].tx_bytes;
            t.tx_frames += kr->percpu[c].tx_frames;
            t.relayed += kr->percpu[c].relayed;
            t.sent += kr->percpu[c].sent;
            t.delivered += kr->percpu[c].delivered;
        }
        struct krelay_stats *s = &kr->seen[p];
        engine_port *ep = &e->port[p];
        ep->rx_bytes += t.rx_bytes - s->rx_bytes;
        ep->rx_frames += t.rx_frames - s->rx_frames;
        ep->tx_bytes += t.tx_bytes - s->tx_bytes;
        ep->tx_frames += t.tx_frames - s->tx_frames;
        e->c.relayed_in_kernel += t.relayed - s->relayed;
        e->c.sent_in_kernel += t.sent - s->sent;
        e->c.delivered_in_kernel += t.delivered - s->delivered;
        *s = t;
    }
}

void kernel_relay_close(kernel_relay *kr)
{
    if (!kr)
        return;
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        kernel_relay_detach(kr, p);
    if (kr->tun_link_fd >= 0)
        close(kr->tun_link_fd);
    if (kr->seg_link_fd >= 0)
        close(kr->seg_link_fd);
    bpf_object__close(kr->obj);
    free(kr->fm);
    free(kr->percpu);
    free(kr);
}

int kernel_relay_fd(const kernel_relay *kr, const char *name)
{
    struct bpf_program *prog = bpf_object__find_program_by_name(kr->obj, name);
    return prog ? bpf_program__fd(prog) : bpf_object__find_map_fd_by_name(kr->obj, name);
}
