/* dcn-dump: prints the DCN frames (EtherType 0x88B5) of an interface or a
 * pcap file, one line per frame, and a summary of flows and path switches
 * at the end (or on SIGINT). Usage in docs/inspection.md. */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump_decode.h"
#include "dump_flows.h"
#include "dump_format.h"
#include "dump_topo.h"

#define DUMP_SNAPLEN 65535
#define DUMP_FLOW_CAP 65536

typedef struct dump_opts {
    const char *iface, *file, *topo;
    long count; /* -1: no limit */
    int numeric;
} dump_opts;

typedef struct dump_ctx {
    const dcn_topo *t;
    const dump_opts *o;
    dump_flows flows;
    dump_frame frame;
    char line[8192];
} dump_ctx;

static pcap_t *volatile g_pcap;

static void on_sigint(int sig)
{
    (void)sig;
    if (g_pcap)
        pcap_breakloop(g_pcap);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: dcn-dump (-i IFACE | -r FILE) [-c COUNT] [-n] [--topo \"FAMILY k=v ...\"]\n"
               "  -i IFACE   capture live on IFACE (EtherType 0x88B5 only)\n"
               "  -r FILE    read a pcap file\n"
               "  -c COUNT   stop after COUNT frames\n"
               "  -n         print server numbers, not names\n"
               "  --topo S   the topology (as dcn-agent --topo): server names and path checks\n");
}

static int bad_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "dcn-dump: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

static int parse_args(int argc, char **argv, dump_opts *o)
{
    static const struct option longopts[] = {
        {"topo", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->count = -1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":i:r:c:nh", longopts, NULL)) != -1) {
        switch (c) {
        case 'i': o->iface = optarg; break;
        case 'r': o->file = optarg; break;
        case 't': o->topo = optarg; break;
        case 'n': o->numeric = 1; break;
        case 'c': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 1)
                return bad_usage("-c wants a positive number", optarg);
            o->count = v;
            break;
        }
        case 'h': usage(stdout); exit(0);
        case ':': return bad_usage("missing value for", argv[optind - 1]);
        default: return bad_usage("unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument", argv[optind]);
    if (!o->iface == !o->file)
        return bad_usage("give exactly one of -i IFACE and -r FILE", NULL);
    return 0;
}

static void print_time(const struct timeval *tv)
{
    struct tm tm;
    time_t s = tv->tv_sec;
    if (!gmtime_r(&s, &tm))
        memset(&tm, 0, sizeof tm);
    printf("%02d:%02d:%02d.%06ld ", tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv->tv_usec);
}

static void on_frame(u_char *user, const struct pcap_pkthdr *ph, const u_char *bytes)
{
    dump_ctx *c = (dump_ctx *)user;
    dump_decode(c->t, bytes, ph->caplen, &c->frame);
    bool switched = dump_flows_add(&c->flows, &c->frame);
    dump_format_line(c->t, &c->frame, c->o->numeric, c->line, sizeof c->line);
    print_time(&ph->ts);
    printf("%s%s\n", c->line, switched ? " [path switch]" : "");
}

static pcap_t *open_live(const char *iface, char *err)
{
    pcap_t *p = pcap_create(iface, err);
    if (!p)
        return NULL;
    if (pcap_set_snaplen(p, DUMP_SNAPLEN) || pcap_set_promisc(p, 1) || pcap_set_timeout(p, 100) ||
        pcap_set_immediate_mode(p, 1) || pcap_activate(p) < 0) {
        snprintf(err, PCAP_ERRBUF_SIZE, "%s: %s", iface, pcap_geterr(p));
        pcap_close(p);
        return NULL;
    }
    struct bpf_program prog;
    if (pcap_compile(p, &prog, "ether proto 0x88b5", 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog)) {
        snprintf(err, PCAP_ERRBUF_SIZE, "%s: filter: %s", iface, pcap_geterr(p));
        pcap_close(p);
        return NULL;
    }
    pcap_freecode(&prog);
    return p;
}

int main(int argc, char **argv)
{
    dump_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    static dcn_topo topo;
    char err[PCAP_ERRBUF_SIZE + 256];
    if (o.topo && dump_topo_build(&topo, o.topo, err, sizeof err) < 0)
        return bad_usage(err, NULL);
    static dump_ctx ctx;
    ctx.t = o.topo ? &topo : NULL;
    ctx.o = &o;
    if (dump_flows_init(&ctx.flows, DUMP_FLOW_CAP) < 0) {
        fprintf(stderr, "dcn-dump: out of memory\n");
        return 1;
    }
    pcap_t *p = o.file ? pcap_open_offline(o.file, err) : open_live(o.iface, err);
    if (!p) {
        fprintf(stderr, "dcn-dump: %s\n", err);
        return 1;
    }
    if (pcap_datalink(p) != DLT_EN10MB) {
        fprintf(stderr, "dcn-dump: %s: not Ethernet (link type %d)\n", o.file ? o.file : o.iface, pcap_datalink(p));
        pcap_close(p);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    g_pcap = p;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rc = pcap_loop(p, o.count > 0 ? (int)(o.count > 2147483647L ? 2147483647L : o.count) : -1, on_frame,
                   (u_char *)&ctx);
    if (rc == PCAP_ERROR)
        fprintf(stderr, "dcn-dump: %s\n", pcap_geterr(p));
    g_pcap = NULL;
    pcap_close(p);
    dump_flows_print(&ctx.flows, ctx.t, o.numeric, stdout);
    dump_flows_free(&ctx.flows);
    if (o.topo)
        dcn_topo_free(&topo);
    return rc == PCAP_ERROR ? 1 : 0;
}
