/* The kernel's data path (dcn-agent --data-path kernel, the default): the
 * relay of plain data frames at TCX ingress of every port, and their two
 * ends, sending at TCX egress of the TUN device and delivery to it, moved
 * into the kernel (relay.bpf.c), with the agent keeping the programs' maps:
 * the paths it relayed or delivered a frame of, the flows it sent, its
 * neighbour table, and the per-port counts it folds back into its meters.
 * The programs are attached through BPF links held by the agent, so they
 * leave with the agent: a killed agent relays, sends and delivers nothing.
 * docs/protocol.md, "The kernel's data path". */
#ifndef DCN_AGENT_KERNEL_RELAY_H
#define DCN_AGENT_KERNEL_RELAY_H

#include <stddef.h>

#include "agent/core/engine.h"

typedef struct kernel_relay kernel_relay;

/* Loads the program and its maps (root, or CAP_BPF and CAP_NET_ADMIN).
 * NULL with one line in err. */
kernel_relay *kernel_relay_open(char *err, size_t errlen);
/* Attaches to port's interface at TCX ingress; -1 with err filled. */
int kernel_relay_attach(kernel_relay *kr, unsigned port, int ifindex, char *err, size_t errlen);
/* Detaches from a port (its interface is gone, or the agent stops). */
void kernel_relay_detach(kernel_relay *kr, unsigned port);
/* The engine relayed a data frame with header h that came in on in_port:
 * its path was validated, so the kernel may relay the next ones. */
void kernel_relay_learn(kernel_relay *kr, unsigned in_port, const dcn_hdr *h);
/* The two ends of a path, once the TUN device and the segmenting veth
 * exist: attaches the sending program at TCX egress of the TUN device
 * (tun_ifindex), whose packets fit port_mtu with their DCN header, and the
 * segmenting program at TCX ingress of the segmenting veth's far end
 * (os/segveth.h: GSO batches leave by its near end); -1 with err filled.
 * Until then the kernel only relays. */
int kernel_relay_enable_ends(kernel_relay *kr, int tun_ifindex, int seg_near, int seg_far, unsigned port_mtu, char *err,
                             size_t errlen);
/* The engine delivered a data frame with header h that came in on in_port:
 * the kernel may deliver the path's next ones. */
void kernel_relay_learn_delivery(kernel_relay *kr, unsigned in_port, const dcn_hdr *h);
/* The engine sent a packet of flow k (to server dst) with header h on port:
 * the kernel sends the flow's next packets on that path (no-op when
 * KRELAY_FLOWS flows are in the kernel). */
void kernel_relay_learn_flow(kernel_relay *kr, const dcn_flow_key *k, uint32_t dst, const dcn_hdr *h, unsigned port);
/* Tells path selection the bytes the kernel sent for each of its flows,
 * and takes back from the kernel every flow that path selection moved to
 * another path or forgot: its next packet goes through the agent again. */
void kernel_relay_sync_flows(kernel_relay *kr, engine *e);
/* Writes the neighbour entries that changed since the last call (all of
 * them the first time). Cheap when nothing changed. */
void kernel_relay_sync(kernel_relay *kr, const engine *e);
/* Adds what the kernel relayed since the last call to the engine's port
 * meters and to its relayed_in_kernel counter. */
void kernel_relay_fold_stats(kernel_relay *kr, engine *e);
void kernel_relay_close(kernel_relay *kr);
/* The fd of the relay's program or map of that name ("dcn_kernel_relay",
 * "paths", "neigh", ...), or -1: for tests that run the program on
 * crafted frames (BPF_PROG_TEST_RUN). */
int kernel_relay_fd(const kernel_relay *kr, const char *name);

#endif
