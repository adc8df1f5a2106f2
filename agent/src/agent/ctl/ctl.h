/* The control protocol between dcn-ctl and dcn-agent: the client sends one
 * line "COMMAND [ARG] [--json]\n" on the unix socket, the agent answers with
 * the rendered text and closes. Rendering is here, without I/O, so tests
 * call it directly. */
#ifndef DCN_AGENT_CTL_H
#define DCN_AGENT_CTL_H

#include <stdbool.h>
#include <stdio.h>

#include "agent/core/engine.h"

#define CTL_LINE_MAX 256

typedef struct ctl_request {
    char cmd[32];
    char arg[64];
    bool json;
} ctl_request;

/* Parses one request line. Returns 0, or -1 with a message in err. */
int ctl_parse(const char *line, ctl_request *req, char *err, size_t errlen);
/* Writes the answer to out. Returns 0, or -1 for an unknown command or bad
 * argument (an error line is written). */
int ctl_render(engine *e, const ctl_request *req, FILE *out);
/* True for a command dcn-ctl knows. */
bool ctl_known_command(const char *cmd);

#endif
