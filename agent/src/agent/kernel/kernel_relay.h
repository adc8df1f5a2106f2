/* dcn-agent --kernel-relay=on: the relay of plain data frames moved into
 * the kernel (relay.bpf.c at TCX ingress of every port), with the agent
 * keeping its maps: the paths it validated, its neighbour table, and the
 * per-port counts it folds back into its meters. The program is attached
 * through BPF links held by the agent, so it leaves with the agent: a killed
 * agent relays nothing. docs/protocol.md, "The kernel relay". */
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
/* Writes the neighbour entries that changed since the last call (all of
 * them the first time). Cheap when nothing changed. */
void kernel_relay_sync(kernel_relay *kr, const engine *e);
/* Adds what the kernel relayed since the last call to the engine's port
 * meters and to its relayed_in_kernel counter. */
void kernel_relay_fold_stats(kernel_relay *kr, engine *e);
void kernel_relay_close(kernel_relay *kr);

#endif
