#include "options.h"

#include "agent/os/rawsock.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "on" or "off" for the option `name`; else -1 with err filled */
/* An option with two values: 0 for `first`, 1 for `second`, -1 (and err
 * naming both) for anything else. */
static int parse_choice(const char *name, const char *s, const char *first, const char *second, char *err,
                        size_t errlen)
{
    if (strcmp(s, first) == 0)
        return 0;
    if (strcmp(s, second) == 0)
        return 1;
    snprintf(err, errlen, "%s must be %s or %s, got '%s'", name, first, second, s);
    return -1;
}

static int parse_on_off(const char *name, const char *s, bool *out, char *err, size_t errlen)
{
    int c = parse_choice(name, s, "on", "off", err, errlen);
    if (c < 0)
        return -1;
    *out = c == 0;
    return 0;
}

static int copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

int agent_ifname_fmt_ok(const char *fmt)
{
    for (const char *c = fmt; *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c != 's' && *c != 'u' && *c != '%')
            return -1;
    }
    return 0;
}

int agent_ifname(const agent_options *o, unsigned port, char *out, size_t len)
{
    if (port < ENGINE_MAX_PORTS && o->port_ifname[port][0])
        return copy(out, len, o->port_ifname[port]);
    size_t n = 0;
    char num[12];
    for (const char *c = o->ifname_fmt; *c; c++) {
        const char *piece;
        char one[2] = {*c, 0};
        if (*c == '%') {
            c++;
            if (*c == 's') {
                piece = o->name;
            } else if (*c == 'u') {
                snprintf(num, sizeof num, "%u", port);
                piece = num;
            } else if (*c == '%') {
                piece = "%";
            } else {
                return -1;
            }
        } else {
            piece = one;
        }
        size_t pl = strlen(piece);
        if (n + pl >= len)
            return -1;
        memcpy(out + n, piece, pl);
        n += pl;
    }
    out[n] = 0;
    return 0;
}

const char *agent_data_path_name(agent_data_path p)
{
    return p == DATA_PATH_AGENT ? "agent" : "kernel";
}

enum {
    OPT_TOPO = 1000, OPT_NAME, OPT_IFFMT, OPT_PORT, OPT_CTL, OPT_CTL_GROUP, OPT_HELLO, OPT_DEAD, OPT_CAP, OPT_MTU, OPT_PCAP,
    OPT_TUN, OPT_SEED, OPT_LOG, OPT_PID, OPT_FG, OPT_CHECK, OPT_HELP, OPT_MDCUBE_ROUTING, OPT_TUN_OFFLOAD,
    OPT_RX_RING, OPT_RELAY_COPY, OPT_DATA_PATH
};

static const struct option longopts[] = {
    {"topo", required_argument, NULL, OPT_TOPO},
    {"name", required_argument, NULL, OPT_NAME},
    {"ifname-fmt", required_argument, NULL, OPT_IFFMT},
    {"port", required_argument, NULL, OPT_PORT},
    {"ctl", required_argument, NULL, OPT_CTL},
    {"ctl-group", required_argument, NULL, OPT_CTL_GROUP},
    {"hello-ms", required_argument, NULL, OPT_HELLO},
    {"dead-misses", required_argument, NULL, OPT_DEAD},
    {"capacity-mbps", required_argument, NULL, OPT_CAP},
    {"mtu", required_argument, NULL, OPT_MTU},
    {"pcap", required_argument, NULL, OPT_PCAP},
    {"tun", required_argument, NULL, OPT_TUN},
    {"seed", required_argument, NULL, OPT_SEED},
    {"mdcube-routing", required_argument, NULL, OPT_MDCUBE_ROUTING},
    {"tun-offload", required_argument, NULL, OPT_TUN_OFFLOAD},
    {"rx-ring", required_argument, NULL, OPT_RX_RING},
    {"relay-copy", required_argument, NULL, OPT_RELAY_COPY},
    {"data-path", required_argument, NULL, OPT_DATA_PATH},
    {"log", required_argument, NULL, OPT_LOG},
    {"pidfile", required_argument, NULL, OPT_PID},
    {"foreground", no_argument, NULL, OPT_FG},
    {"check", no_argument, NULL, OPT_CHECK},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

int agent_options_parse(agent_options *o, int argc, char **argv, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    strcpy(o->ifname_fmt, "%s-eth%u");
    strcpy(o->tun, "dcn0");
    o->hello_ms = 1000;
    o->dead_misses = 3;
    o->capacity_mbps = 1000;
    o->mtu = 1500;
    o->seed = 1;
    o->ctl_gid = -1;
    o->tun_offload = true;
    o->data_path = DATA_PATH_KERNEL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        const char *a = optarg;
        uint32_t v, p;
        const char *eq;
        switch (c) {
        case OPT_TOPO:
            if (copy(o->topo, sizeof o->topo, a) < 0)
                goto toolong;
            break;
        case OPT_NAME:
            if (copy(o->name, sizeof o->name, a) < 0)
                goto toolong;
            break;
        case OPT_IFFMT:
            if (copy(o->ifname_fmt, sizeof o->ifname_fmt, a) < 0)
                goto toolong;
            if (agent_ifname_fmt_ok(a) < 0) {
                snprintf(err, errlen, "--ifname-fmt: only %%s (server name), %%u (port) and %%%% are allowed");
                return -1;
            }
            break;
        case OPT_PORT:
            eq = strchr(a, '=');
            if (!eq || eq == a) {
                snprintf(err, errlen, "--port expects P=IFNAME, got '%s'", a);
                return -1;
            }
            {
                char num[12];
                size_t nl = (size_t)(eq - a);
                if (nl >= sizeof num || (memcpy(num, a, nl), num[nl] = 0, parse_u32(num, 0, ENGINE_MAX_PORTS - 1, &p)) < 0) {
                    snprintf(err, errlen, "--port: port must be 0..%d, got '%s'", ENGINE_MAX_PORTS - 1, a);
                    return -1;
                }
                if (!eq[1] || copy(o->port_ifname[p], sizeof o->port_ifname[p], eq + 1) < 0) {
                    snprintf(err, errlen, "--port: interface name empty or longer than 15 characters: '%s'", a);
                    return -1;
                }
            }
            break;
        case OPT_CTL:
            if (copy(o->ctl_path, sizeof o->ctl_path, a) < 0)
                goto toolong;
            break;
        case OPT_CTL_GROUP: {
            struct group *gr = a[0] ? getgrnam(a) : NULL;
            if (!gr) {
                snprintf(err, errlen, "--ctl-group: no group named '%.64s'", a);
                return -1;
            }
            o->ctl_gid = (int)gr->gr_gid;
            break;
        }
        case OPT_HELLO:
            if (parse_u32(a, 10, 60000, &o->hello_ms) < 0) {
                snprintf(err, errlen, "--hello-ms must be 10..60000, got '%s'", a);
                return -1;
            }
            break;
        case OPT_DEAD:
            if (parse_u32(a, 1, 100, &o->dead_misses) < 0) {
                snprintf(err, errlen, "--dead-misses must be 1..100, got '%s'", a);
                return -1;
            }
            break;
        case OPT_CAP:
            eq = strchr(a, '=');
            if (!eq) {
                if (parse_u32(a, 1, 1000000, &o->capacity_mbps) < 0) {
                    snprintf(err, errlen, "--capacity-mbps must be 1..1000000 or P=MBPS, got '%s'", a);
                    return -1;
                }
            } else {
                char num[12];
                size_t nl = (size_t)(eq - a);
                if (nl == 0 || nl >= sizeof num || (memcpy(num, a, nl), num[nl] = 0, parse_u32(num, 0, ENGINE_MAX_PORTS - 1, &p)) < 0 ||
                    parse_u32(eq + 1, 1, 1000000, &v) < 0) {
                    snprintf(err, errlen, "--capacity-mbps P=MBPS: port 0..%d, MBPS 1..1000000, got '%s'",
                             ENGINE_MAX_PORTS - 1, a);
                    return -1;
                }
                o->port_capacity[p] = v;
            }
            break;
        case OPT_MTU:
            if (parse_u32(a, 576, 9000, &o->mtu) < 0) {
                snprintf(err, errlen, "--mtu must be 576..9000, got '%s'", a);
                return -1;
            }
            break;
        case OPT_PCAP:
            if (copy(o->pcap, sizeof o->pcap, a) < 0)
                goto toolong;
            break;
        case OPT_TUN:
            if (!a[0] || copy(o->tun, sizeof o->tun, a) < 0)
                goto toolong;
            break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            o->seed = strtoull(a, &end, 10);
            if (errno || end == a || *end || a[0] == '-') {
                snprintf(err, errlen, "--seed must be a non-negative integer, got '%s'", a);
                return -1;
            }
            break;
        }
        case OPT_MDCUBE_ROUTING: {
            int choice = parse_choice("--mdcube-routing", a, "hier", "source", err, errlen);
            if (choice < 0)
                return -1;
            o->mdcube_routing = choice == 0 ? ENGINE_MDCUBE_HIER : ENGINE_MDCUBE_SOURCE;
            break;
        }
        case OPT_TUN_OFFLOAD:
            if (parse_on_off("--tun-offload", a, &o->tun_offload, err, errlen) < 0)
                return -1;
            break;
        case OPT_DATA_PATH: {
            int choice = parse_choice("--data-path", a, "agent", "kernel", err, errlen);
            if (choice < 0)
                return -1;
            o->data_path = choice == 0 ? DATA_PATH_AGENT : DATA_PATH_KERNEL;
            break;
        }
        case OPT_RELAY_COPY:
            if (parse_on_off("--relay-copy", a, &o->relay_copy, err, errlen) < 0)
                return -1;
            break;
        case OPT_RX_RING:
            if (parse_u32(a, 0, RAWSOCK_RING_MAX, &o->rx_ring) < 0) {
                snprintf(err, errlen, "--rx-ring must be 0 (off) or a frame count up to %u, got '%s'", RAWSOCK_RING_MAX, a);
                return -1;
            }
            break;
        case OPT_LOG:
            if (copy(o->log, sizeof o->log, a) < 0)
                goto toolong;
            break;
        case OPT_PID:
            if (copy(o->pidfile, sizeof o->pidfile, a) < 0)
                goto toolong;
            break;
        case OPT_FG: o->foreground = true; break;
        case OPT_CHECK: o->check = true; break;
        case OPT_HELP:
            snprintf(err, errlen, "usage: dcn-agent --topo \"FAMILY k=v ...\" --name SERVER [options], see docs/protocol.md");
            return -1;
        default:
            if (optopt)
                snprintf(err, errlen, "unknown option or missing value: %s", argv[optind - 1]);
            else
                snprintf(err, errlen, "unknown option: %s", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (!o->topo[0] || !o->name[0]) {
        snprintf(err, errlen, "--topo \"FAMILY k=v ...\" and --name SERVER are required");
        return -1;
    }
    if (!o->ctl_path[0] && snprintf(o->ctl_path, sizeof o->ctl_path, "/run/dcn/%s.sock", o->name) >= (int)sizeof o->ctl_path)
        goto toolong;
    return 0;
toolong:
    snprintf(err, errlen, "option value too long or empty: %s", optarg ? optarg : "");
    return -1;
}
