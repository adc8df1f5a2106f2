/* The running agent's system calls, limited to an allow-list (issue 40,
 * docs/protocol.md "Trust model"): once set up, the agent reads and writes
 * its sockets, TUN device and control socket, binds a port that appears,
 * updates the kernel relay, keeps time and memory, logs and exits. Any
 * other call (execve, open, ptrace, mount, a socket of another family...)
 * is not run: it fails with EPERM, is counted and logged once per call
 * number, and the agent goes on, so a call missing from the list shows in
 * the log and in `dcn-ctl counters` (syscall_denied) instead of killing an
 * experiment. A call from a foreign ABI (x32, i386 on x86_64) kills the
 * process: the list is written for the native one. */
#ifndef DCN_AGENT_SYSCALL_FILTER_H
#define DCN_AGENT_SYSCALL_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* Installs the filter on the calling thread (after privs_drop: it needs
 * no_new_privs) and the SIGSYS handler that answers denied calls. 0, or
 * -1 with one line in err (also when this architecture has no list). */
int syscall_filter_install(char *err, size_t errlen);
/* Calls denied since install. */
uint64_t syscall_filter_denied(void);

#endif
