/* The segmenting veth of --data-path kernel: a veth pair in the server's
 * namespace, named after the TUN device (dcn0 gives dcn0s and dcn0g). TCP
 * hands dcn0 64 KB GSO batches whatever the device says; the kernel's
 * sending program (relay.bpf.c) passes them out of the near end, which has
 * TSO off, so the kernel cuts them into packets there, and the program at
 * the far end's ingress gives each packet its DCN header. The agent makes
 * the pair and removes it when it exits; a pair left by a killed agent is
 * replaced by the next one. */
#ifndef DCN_AGENT_SEGVETH_H
#define DCN_AGENT_SEGVETH_H

#include <stddef.h>

typedef struct segveth {
    char near[16], far[16];
    int near_ifindex, far_ifindex;
} segveth;

/* Creates the pair (MTU mtu, up, TSO off at the near end); -1 with err. */
int segveth_open(segveth *s, const char *tun, unsigned mtu, char *err, size_t errlen);
/* Removes the pair (removing one end removes both). */
void segveth_close(segveth *s);

#endif
