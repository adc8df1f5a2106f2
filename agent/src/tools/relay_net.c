/* Sockets and clocks of dcn-relay: connect with retry, listen, accept, and
 * the wait for the peers' closes that confirms delivery. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay.h"

#define RELAY_RETRY_MS 50 /* between connection attempts while the peer is not listening yet */

int64_t relay_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double relay_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int relay_poll_ms(double timeout_s)
{
    if (timeout_s <= 0)
        return -1;
    double ms = timeout_s * 1000.0;
    return ms > 2e9 ? 2000000000 : (int)ms + 1;
}

static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* One attempt: 0 connected, -1 refused (retry), -2 other failure (err). */
static int connect_once(const struct addrinfo *ai, double deadline, int *fdp, char *err, size_t errlen,
                        const char *label)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
        snprintf(err, errlen, "socket for %s: %s", label, strerror(errno));
        return -2;
    }
    int e = 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        e = errno;
        if (e == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            double left = deadline > 0 ? deadline - relay_mono() : -1;
            int r = poll(&p, 1, deadline > 0 ? (left > 0 ? relay_poll_ms(left) : 0) : -1);
            socklen_t len = sizeof e;
            if (r <= 0)
                e = r == 0 ? ETIMEDOUT : errno;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
                e = errno;
        }
    }
    if (e == 0) {
        *fdp = fd;
        return 0;
    }
    close(fd);
    if (e == ECONNREFUSED)
        return -1;
    snprintf(err, errlen, "connecting to %s: %s", label, strerror(e));
    return -2;
}

int relay_connect(const relay_endpoint *ep, double timeout_s, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(ep->host, ep->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", ep->label, gai_strerror(rc));
        return -1;
    }
    double deadline = timeout_s > 0 ? relay_mono() + timeout_s : 0;
    int fd = -1;
    for (;;) {
        rc = connect_once(res, deadline, &fd, err, errlen, ep->label);
        if (rc != -1)
            break;
        if (deadline > 0 && relay_mono() >= deadline) {
            snprintf(err, errlen, "connecting to %s: refused for %g s (nobody listening)", ep->label, timeout_s);
            rc = -2;
            break;
        }
        struct timespec pause = {0, RELAY_RETRY_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
    freeaddrinfo(res);
    return rc == 0 ? fd : -1;
}

/* One listening socket on the first address of bind_addr (NULL: any) of
 * the given family; -1 with errno set. */
static int listen_on(const char *bind_addr, const char *port, int family, int *gai)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    *gai = getaddrinfo(bind_addr, port, &hints, &res);
    if (*gai != 0)
        return -1;
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol), one = 1, zero = 0;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (res->ai_family == AF_INET6 && !bind_addr) /* dual stack when listening on any */
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 4) < 0 || set_nonblocking(fd) < 0) {
            int e = errno;
            close(fd);
            errno = e;
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

int relay_listen(const char *bind_addr, const char *port, char *err, size_t errlen)
{
    int gai, fd = listen_on(bind_addr, port, bind_addr ? AF_UNSPEC : AF_INET6, &gai);
    if (fd < 0 && !bind_addr && (gai != 0 || errno == EAFNOSUPPORT)) /* no IPv6 here: IPv4 any */
        fd = listen_on(NULL, port, AF_INET, &gai);
    if (fd >= 0)
        return fd;
    if (gai != 0)
        snprintf(err, errlen, "cannot resolve --bind %s: %s", bind_addr ? bind_addr : "(any)", gai_strerror(gai));
    else
        snprintf(err, errlen, "cannot listen on %s port %s: %s", bind_addr ? bind_addr : "(any)", port,
                 strerror(errno));
    return -1;
}

int relay_accept(int lfd, double timeout_s, char *peer, size_t peerlen, char *err, size_t errlen)
{
    struct pollfd p = {lfd, POLLIN, 0};
    int r;
    do
        r = poll(&p, 1, relay_poll_ms(timeout_s));
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        if (r == 0)
            snprintf(err, errlen, "no connection within %g s", timeout_s);
        else
            snprintf(err, errlen, "poll: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "accept: %s", strerror(errno));
        return -1;
    }
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV))
        snprintf(peer, peerlen, "?");
    else if (!strncmp(host, "::ffff:", 7) && strchr(host, '.')) /* IPv4 on the dual-stack socket */
        snprintf(peer, peerlen, "%s:%s", host + 7, serv);
    else
        snprintf(peer, peerlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
    return fd;
}

void relay_peer_fail(relay_peer *pe, const char *fmt, ...)
{
    char why[RELAY_ERROR_MAX]; /* formatted aside: fmt's arguments may live in *pe */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!pe->error[0])
        memcpy(pe->error, why, sizeof why);
}

void relay_wait_peers_closed(relay_peer *peers, int n, double timeout_s)
{
    static char sink[4096];
    for (;;) {
        struct pollfd p[RELAY_MAX_PEERS];
        int map[RELAY_MAX_PEERS], m = 0;
        for (int i = 0; i < n; i++)
            if (peers[i].shut && !peers[i].done_ms && !peers[i].error[0]) {
                p[m] = (struct pollfd){peers[i].fd, POLLIN, 0};
                map[m++] = i;
            }
        if (m == 0)
            return;
        int r = poll(p, (nfds_t)m, relay_poll_ms(timeout_s));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            for (int j = 0; j < m; j++)
                relay_peer_fail(&peers[map[j]], "%s did not close within %g s after the end of stream",
                                peers[map[j]].ep.label, timeout_s);
            return;
        }
        for (int j = 0; j < m; j++) {
            if (!p[j].revents)
                continue;
            relay_peer *pe = &peers[map[j]];
            ssize_t got = recv(pe->fd, sink, sizeof sink, 0); /* a peer sends nothing; discard */
            if (got == 0) {
                pe->done_ms = relay_now_ms();
                pe->done_mono = relay_mono();
            } else if (got < 0 && errno != EAGAIN && errno != EINTR) {
                relay_peer_fail(pe, "%s: %s after the end of stream", pe->ep.label, strerror(errno));
            }
        }
    }
}
