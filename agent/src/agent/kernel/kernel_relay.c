#include "kernel_relay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "relay_entries.h"
#include "relay_maps.h"

/* The program, compiled with clang -target bpf and embedded at build time
 * (CMakeLists.txt: relay_bpf_obj.c). */
extern const unsigned char krelay_bpf_obj[];
extern const size_t krelay_bpf_obj_len;

/* TCX, Linux 6.6: not in the 6.1 UAPI headers Debian 12 builds with */
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#endif

struct kernel_relay {
    struct bpf_object *obj;
    int prog_fd, paths_fd, neigh_fd, stats_fd;
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
    int n = libbpf_num_possible_cpus();
    if (n <= 0) {
        snprintf(err, errlen, "kernel relay: cannot count the CPUs: %s", strerror(-n));
        goto fail;
    }
    kr->ncpus = (unsigned)n;
    kr->percpu = calloc(kr->ncpus, sizeof *kr->percpu);
    if (!kr->percpu) {
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
    struct bpf_program *prog = bpf_object__find_program_by_name(kr->obj, "dcn_kernel_relay");
    kr->prog_fd = prog ? bpf_program__fd(prog) : -1;
    if (kr->prog_fd < 0) {
        snprintf(err, errlen, "kernel relay: no program 'dcn_kernel_relay' in the object");
        goto fail;
    }
    if ((kr->paths_fd = map_fd(kr, "paths", err, errlen)) < 0 || (kr->neigh_fd = map_fd(kr, "neigh", err, errlen)) < 0 ||
        (kr->stats_fd = map_fd(kr, "stats", err, errlen)) < 0)
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
    if (port >= ENGINE_MAX_PORTS || kr->link_fd[port] < 0)
        return;
    close(kr->link_fd[port]); /* the link is the agent's: closing it detaches the program */
    kr->link_fd[port] = -1;
    kr->ifindex[port] = 0;
    kr->synced = false;
}

void kernel_relay_learn(kernel_relay *kr, unsigned in_port, const dcn_hdr *h)
{
    struct krelay_path_key k;
    if (in_port >= ENGINE_MAX_PORTS || kr->link_fd[in_port] < 0 || !krelay_path_key_of(h, &k))
        return;
    struct krelay_path_val v = {.in_ifindex = (__u32)kr->ifindex[in_port], .in_port = in_port};
    (void)bpf_map_update_elem(kr->paths_fd, &k, &v, BPF_ANY); /* a failure leaves the path with the agent */
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
        }
        struct krelay_stats *s = &kr->seen[p];
        engine_port *ep = &e->port[p];
        ep->rx_bytes += t.rx_bytes - s->rx_bytes;
        ep->rx_frames += t.rx_frames - s->rx_frames;
        ep->tx_bytes += t.tx_bytes - s->tx_bytes;
        ep->tx_frames += t.tx_frames - s->tx_frames;
        e->c.relayed_in_kernel += t.tx_frames - s->tx_frames;
        *s = t;
    }
}

void kernel_relay_close(kernel_relay *kr)
{
    if (!kr)
        return;
    for (unsigned p = 0; p < ENGINE_MAX_PORTS; p++)
        kernel_relay_detach(kr, p);
    bpf_object__close(kr->obj);
    free(kr->percpu);
    free(kr);
}
