/* The agent's end of the control socket (unix stream, one request line per
 * connection), on the libev loop. */
#ifndef DCN_AGENT_CTL_SERVER_H
#define DCN_AGENT_CTL_SERVER_H

#include <ev.h>
#include <stddef.h>

#include "engine.h"

typedef struct ctl_server ctl_server;

/* Creates the socket (and its directory). -1 path conflicts are reported in err. */
ctl_server *ctl_server_open(const char *path, engine *e, char *err, size_t errlen);
void ctl_server_start(ctl_server *s, struct ev_loop *loop);
/* Stops, closes and unlinks the socket. */
void ctl_server_close(ctl_server *s);

#endif
