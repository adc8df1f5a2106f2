/* Command line of dcn-agent (docs/interfaces.md). */
#ifndef DCN_AGENT_OPTIONS_H
#define DCN_AGENT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/engine.h"

/* Where plain data frames go (--data-path; docs/protocol.md, "Data paths"). */
typedef enum agent_data_path {
    /* agent: every frame through the agent in user space (AF_PACKET sockets
     * on the ports, the TUN device): the reference, and what --pcap sees */
    DATA_PATH_AGENT,
    /* kernel (the default): a BPF program relays plain data frames, and sends
     * and delivers them at the two ends of their path, once the agent has
     * handled the path's (the flow's) first ones (kernel/kernel_relay.h; the
     * TUN offloads stay on: TCP's GSO batches are cut in the segmenting veth,
     * os/segveth.h); everything else goes through the agent */
    DATA_PATH_KERNEL,
} agent_data_path;

typedef struct agent_options {
    char topo[512];
    char name[DCN_NAME_MAX];
    char ifname_fmt[64];
    char port_ifname[ENGINE_MAX_PORTS][16]; /* --port overrides, "" when none */
    char ctl_path[108];
    int ctl_gid; /* --ctl-group: the group that may use the control socket; -1: owner only */
    uint32_t hello_ms, dead_misses;
    uint32_t capacity_mbps;                  /* default for every port */
    uint32_t port_capacity[ENGINE_MAX_PORTS]; /* 0: the default */
    uint32_t mtu;
    char pcap[256], tun[16], log[256], pidfile[256];
    uint64_t seed;
    engine_mdcube_routing mdcube_routing; /* --mdcube-routing hier (default) | source */
    uint32_t rx_ring; /* --rx-ring FRAMES: a TPACKET_V2 receive ring per port; 0 (default): recvmmsg */
    bool tun_offload; /* --tun-offload on (default) | off: IFF_VNET_HDR, TSO4 and checksum offload on TUN */
    bool relay_copy;  /* --relay-copy on | off (default): copy relayed frames into the send queue, or queue
                       * a reference to them in their receive batch */
    agent_data_path data_path; /* --data-path agent | kernel (default) */
    bool foreground;
    bool check; /* --check: validate the options and the topology, then exit */
} agent_options;

/* "agent" or "kernel": the --data-path value of p. */
const char *agent_data_path_name(agent_data_path p);
/* Parses argv. Returns 0, or -1 with one clear line in err. */
int agent_options_parse(agent_options *o, int argc, char **argv, char *err, size_t errlen);
/* Expands --ifname-fmt ("%s" = server name, "%u" = port, "%%" = '%'). */
int agent_ifname(const agent_options *o, unsigned port, char *out, size_t len);
/* Checks a --ifname-fmt: only %s, %u and %% are allowed. */
int agent_ifname_fmt_ok(const char *fmt);

#endif
