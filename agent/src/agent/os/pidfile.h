/* The agent's --pidfile: opened before anything else is created, so a
 * path that cannot be written is a usage error (exit 2) that leaves
 * nothing behind; the PID is written once the agent has daemonized, and
 * the file is removed when the agent exits. */
#ifndef DCN_AGENT_PIDFILE_H
#define DCN_AGENT_PIDFILE_H

#include <stddef.h>

/* Creates (or truncates) path for writing. Returns 0, or -1 with a
 * one-line reason in err. Registers the removal of the file at exit. */
int pidfile_open(const char *path, char *err, size_t errlen);
/* Writes the calling process's PID into the file opened by pidfile_open.
 * Returns 0, or -1 with a one-line reason in err. */
int pidfile_write(char *err, size_t errlen);

#endif
