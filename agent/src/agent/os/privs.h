/* Least privilege (issue 40, docs/protocol.md "Trust model"): once set up,
 * the agent keeps only the capabilities its running code uses, sets
 * no_new_privs, and can gain nothing back. */
#ifndef DCN_AGENT_PRIVS_H
#define DCN_AGENT_PRIVS_H

#include <stddef.h>
#include <stdint.h>

/* What a running agent still does, and the capability each needs:
 *  - binds a port that appears later (AF_PACKET socket): CAP_NET_RAW;
 *  - sizes its sockets past the limits, reads and writes links and
 *    sysctls of its namespace, attaches the kernel relay to a new port,
 *    removes its segmenting veth at exit: CAP_NET_ADMIN;
 *  - updates the kernel relay's maps and attaches it (bpf() while
 *    unprivileged BPF is off): CAP_BPF. */
#define PRIVS_KEEP_MASK ((1ull << 13) | (1ull << 12) | (1ull << 39)) /* NET_RAW, NET_ADMIN, BPF */

/* Drops every capability outside PRIVS_KEEP_MASK from the effective,
 * permitted, inheritable and bounding sets, and sets no_new_privs. 0, or
 * -1 with one line in err. */
int privs_drop(char *err, size_t errlen);
/* The effective set of this process (from capget), for tests. */
uint64_t privs_effective(void);

#endif
