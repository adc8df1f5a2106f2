/* Making fixed buffers resident at start. */
#ifndef DCN_AGENT_PREFAULT_H
#define DCN_AGENT_PREFAULT_H

#include <stddef.h>

/* Writes one zero byte in every page of [p, p+len). The buffers the agent
 * allocates once at start are mapped lazily by the kernel; written here,
 * their pages are resident from the start, so no page is first touched (a
 * kernel allocation) on the forwarding path, and the agent's resident size
 * does not creep as a run reaches deeper batches. (Structures that
 * their init clears with memset, like the engine, are resident already.)
 * (A memset of zeros right after malloc may be turned into calloc by the
 * compiler, which leaves the pages untouched: this writes through a
 * volatile pointer.) */
void prefault(void *p, size_t len);

#endif
