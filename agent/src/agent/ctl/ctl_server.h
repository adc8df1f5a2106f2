/* The agent's end of the control socket (unix stream, one request line per
 * connection), on the libev loop. Never blocks the loop: a fixed pool of
 * connections, each with a bounded reply buffer written without blocking,
 * and a deadline after which a connection is closed whatever its state.
 * Modes and limits: docs/protocol.md, "Control socket and dcn-ctl". */
#ifndef DCN_AGENT_CTL_SERVER_H
#define DCN_AGENT_CTL_SERVER_H

#include <ev.h>
#include <stddef.h>

#include "agent/core/engine.h"

#define CTL_MAX_CONNS 8              /* connections served at once; more are refused */
#define CTL_REPLY_MAX (256 * 1024)   /* bytes of one reply; a larger one is an error line */
#define CTL_REQUEST_TIMEOUT_S 2.0    /* to send the request line */
#define CTL_CONN_TIMEOUT_S 10.0      /* a connection's whole life, reply included */

typedef struct ctl_server_config {
    int gid;            /* group allowed to use the socket; -1: owner only */
    unsigned max_conns; /* <= CTL_MAX_CONNS; 0: CTL_MAX_CONNS */
    double request_timeout_s, conn_timeout_s; /* 0: the defaults above */
    int sndbuf;         /* SO_SNDBUF of accepted connections, 0: the system's (tests shrink it) */
    /* Optional: called before a request is answered, so that what it
     * reports is current (the agent folds in the kernel relay's counts). */
    void (*before_answer)(void *ctx);
    void *ctx;
} ctl_server_config;

void ctl_server_config_default(ctl_server_config *c);

typedef struct ctl_server ctl_server;

/* Creates the socket and, when missing, its directory. Refuses anything at
 * path that is not a stale socket (a live agent's socket, a regular file,
 * a directory, ...). Returns NULL with one line in err and *exit_code 2 for
 * such a conflict or a bad path, 1 for a system error. */
ctl_server *ctl_server_open(const char *path, const ctl_server_config *cfg, engine *e, char *err, size_t errlen,
                            int *exit_code);
void ctl_server_start(ctl_server *s, struct ev_loop *loop);
/* Connections open now (for tests and `status`). */
unsigned ctl_server_conns(const ctl_server *s);
/* Stops, closes every connection and unlinks the socket. */
void ctl_server_close(ctl_server *s);

#endif
