/* dcn-ctl: asks a running dcn-agent over its control socket.
 *   dcn-ctl [-s SOCK | -n SERVER] COMMAND [ARG] [--json] */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "dcn-ctl: %s\n", msg);
    fprintf(stderr, "usage: dcn-ctl [-s SOCK | -n SERVER] status|neighbors|flows|segments|counters|failures|paths DST [--json]\n");
    return 2;
}

int main(int argc, char **argv)
{
    char path[108] = "";
    char line[CTL_LINE_MAX] = "";
    size_t off = 0;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "-n") == 0) {
            if (i + 1 >= argc)
                return usage("-s and -n need a value");
            int n = strcmp(argv[i], "-s") == 0 ? snprintf(path, sizeof path, "%s", argv[i + 1])
                                               : snprintf(path, sizeof path, "/run/dcn/%s.sock", argv[i + 1]);
            if (n >= (int)sizeof path)
                return usage("socket path too long");
            i++;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(NULL);
            return 0;
        } else {
            int n = snprintf(line + off, sizeof line - off, "%s%s", off ? " " : "", argv[i]);
            if (n < 0 || (size_t)n >= sizeof line - off)
                return usage("request too long");
            off += (size_t)n;
        }
    }
    if (!path[0])
        return usage("give the agent: -s SOCK or -n SERVER");
    ctl_request req;
    char err[160];
    if (ctl_parse(line, &req, err, sizeof err) < 0)
        return usage(err);
    if (off + 1 >= sizeof line)
        return usage("request too long");
    line[off++] = '\n';
    line[off] = 0;

    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "dcn-ctl: cannot reach the agent at %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    struct timeval tv = {.tv_sec = 5, .tv_usec = 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (send(fd, line, off, MSG_NOSIGNAL) != (ssize_t)off) {
        fprintf(stderr, "dcn-ctl: cannot send to the agent at %s: %s\n", path, strerror(errno));
        close(fd);
        return 1;
    }
    char buf[4096];
    ssize_t n;
    int got = 0, error = 0;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
        if (!got && n >= 6 && memcmp(buf, "error:", 6) == 0)
            error = 1;
        got = 1;
        fwrite(buf, 1, (size_t)n, error ? stderr : stdout);
    }
    close(fd);
    if (n < 0 || !got) {
        fprintf(stderr, "dcn-ctl: no answer from the agent at %s\n", path);
        return 1;
    }
    return error ? 2 : 0;
}
