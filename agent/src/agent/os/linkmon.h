/* Link events from the kernel through a libnl-3 route socket subscribed to
 * RTNLGRP_LINK: carrier changes are reported at once, and interfaces that
 * appear after start can be bound. */
#ifndef DCN_AGENT_LINKMON_H
#define DCN_AGENT_LINKMON_H

#include <stdbool.h>

typedef void (*linkmon_fn)(void *ctx, int ifindex, const char *ifname, bool exists, bool carrier);

typedef struct linkmon linkmon;

linkmon *linkmon_open(linkmon_fn fn, void *ctx);
int linkmon_fd(const linkmon *m);
/* Reads whatever events wait (non-blocking) and calls fn for each. */
void linkmon_read(linkmon *m);
void linkmon_close(linkmon *m);

#endif
