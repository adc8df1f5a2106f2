#include "pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pid_fd = -1;
static pid_t owner; /* only the process that wrote the PID removes the file */
static char pid_path[4096];

static void pidfile_remove(void)
{
    if (pid_path[0] && getpid() == owner)
        unlink(pid_path);
}

int pidfile_open(const char *path, char *err, size_t errlen)
{
    if (strlen(path) >= sizeof pid_path) {
        snprintf(err, errlen, "--pidfile: path too long");
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "--pidfile %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    pid_fd = fd;
    owner = getpid();
    memcpy(pid_path, path, strlen(path) + 1);
    atexit(pidfile_remove);
    return 0;
}

int pidfile_write(char *err, size_t errlen)
{
    if (pid_fd < 0)
        return 0;
    owner = getpid();
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%d\n", (int)owner);
    if (ftruncate(pid_fd, 0) < 0 || pwrite(pid_fd, buf, (size_t)n, 0) != n) {
        snprintf(err, errlen, "--pidfile %s: cannot write: %s", pid_path, strerror(errno));
        return -1;
    }
    close(pid_fd);
    pid_fd = -1;
    return 0;
}
