/* dcn-relay recv: accepts one stream and forwards every chunk to each
 * --forward target as it arrives, through one ring buffer. Back-pressure:
 * the upstream is read only while the slowest target leaves room in the
 * ring. The data is otherwise discarded. After the upstream's end of stream
 * and the last forwarded byte, each target's write side is shut and its close
 * awaited (it confirms the whole stream, recursively down the tree); only
 * then is the upstream connection closed, which confirms it to our parent. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay.h"

static unsigned char ring[RELAY_BUF_BYTES];

static void fail(relay_result *res, const char *what)
{
    if (!res->error[0])
        snprintf(res->error, sizeof res->error, "%s", what);
}

/* Reads what fits in the ring; a sink (no target) discards it in the kernel
 * instead (MSG_TRUNC: TCP drops the bytes without copying them). Returns 1
 * at end of stream, 0, or -1 (error). */
static int pull(int fd, int sink, uint64_t *in, uint64_t slowest, relay_result *res)
{
    uint64_t off = *in % RELAY_BUF_BYTES, space = RELAY_BUF_BYTES - (*in - slowest);
    size_t len = (size_t)(space < RELAY_BUF_BYTES - off ? space : RELAY_BUF_BYTES - off);
    ssize_t n = recv(fd, ring + off, len, sink ? MSG_TRUNC : 0);
    if (n == 0)
        return 1;
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR)
            return 0;
        snprintf(res->error, sizeof res->error, "reading from %s: %s after %llu bytes", res->upstream,
                 strerror(errno), (unsigned long long)*in);
        return -1;
    }
    res->last_ms = relay_now_ms();
    res->last_mono = relay_mono();
    if (*in == 0) {
        res->first_ms = res->last_ms;
        res->first_mono = res->last_mono;
    }
    *in += (uint64_t)n;
    return 0;
}

/* Forwards what the target takes now of ring bytes [pe->bytes, in). */
static int forward(relay_peer *pe, uint64_t in)
{
    while (pe->bytes < in) {
        uint64_t off = pe->bytes % RELAY_BUF_BYTES, left = in - pe->bytes;
        size_t len = (size_t)(left < RELAY_BUF_BYTES - off ? left : RELAY_BUF_BYTES - off);
        ssize_t n = send(pe->fd, ring + off, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return 0;
            relay_peer_fail(pe, "forwarding to %s: %s after %llu bytes", pe->ep.label, strerror(errno),
                            (unsigned long long)pe->bytes);
            return -1;
        }
        pe->last_ms = relay_now_ms();
        if (pe->bytes == 0) {
            pe->first_ms = pe->last_ms;
            pe->first_mono = relay_mono();
        }
        pe->bytes += (uint64_t)n;
    }
    return 0;
}

int relay_stream(relay_opts *o, int up, relay_result *res)
{
    uint64_t in = 0;
    int eof = 0;
    for (;;) {
        uint64_t slowest = in;
        for (int i = 0; i < o->n_peers; i++)
            slowest = o->peers[i].bytes < slowest ? o->peers[i].bytes : slowest;
        if (eof && slowest == in)
            break;
        struct pollfd p[RELAY_MAX_PEERS + 1];
        int map[RELAY_MAX_PEERS + 1], m = 0;
        if (!eof && in - slowest < RELAY_BUF_BYTES) {
            p[m] = (struct pollfd){up, POLLIN, 0};
            map[m++] = -1;
        }
        for (int i = 0; i < o->n_peers; i++)
            if (o->peers[i].bytes < in) {
                p[m] = (struct pollfd){o->peers[i].fd, POLLOUT, 0};
                map[m++] = i;
            }
        int r = poll(p, (nfds_t)m, relay_poll_ms(o->timeout_s));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(res->error, sizeof res->error, "no progress for %g s after %llu bytes from %s", o->timeout_s,
                     (unsigned long long)in, res->upstream);
            res->bytes = in;
            return -1;
        }
        for (int j = 0; j < m; j++) {
            if (!p[j].revents)
                continue;
            if (map[j] < 0) {
                int got = pull(up, o->n_peers == 0, &in, slowest, res);
                if (got < 0) {
                    res->bytes = in;
                    return -1;
                }
                eof = got;
                if (o->expect && in > o->expect) {
                    snprintf(res->error, sizeof res->error, "long stream: more than the expected %llu bytes from %s",
                             (unsigned long long)o->expect, res->upstream);
                    res->bytes = in;
                    return -1;
                }
            } else if (forward(&o->peers[map[j]], in) < 0) {
                fail(res, o->peers[map[j]].error);
                res->bytes = in;
                return -1;
            }
        }
    }
    res->bytes = in;
    if (o->expect && in != o->expect) {
        snprintf(res->error, sizeof res->error, "short stream: %llu of %llu bytes before end of stream from %s",
                 (unsigned long long)in, (unsigned long long)o->expect, res->upstream);
        return -1;
    }
    return 0;
}

int relay_recv(relay_opts *o, relay_result *res)
{
    int up = -1, lfd = relay_listen(o->bind_addr, o->listen_port, res->error, sizeof res->error);
    if (lfd < 0)
        return 1;
    for (int i = 0; i < o->n_peers; i++) {
        relay_peer *pe = &o->peers[i];
        pe->fd = relay_connect(&pe->ep, o->timeout_s, pe->error, sizeof pe->error);
        if (pe->fd < 0) {
            fail(res, pe->error);
            goto out;
        }
    }
    up = relay_accept(lfd, o->timeout_s, res->upstream, sizeof res->upstream, res->error, sizeof res->error);
    close(lfd);
    lfd = -1;
    if (up >= 0 && o->n_peers == 0) {
        /* A sink only counts: woken once per RELAY_SINK_LOWAT bytes, not per
         * segment (the end of stream wakes it whatever is queued). */
        int lowat = RELAY_SINK_LOWAT;
        setsockopt(up, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat);
    }
    if (up < 0 || relay_stream(o, up, res) < 0)
        goto out;
    for (int i = 0; i < o->n_peers; i++) {
        shutdown(o->peers[i].fd, SHUT_WR);
        o->peers[i].shut = 1;
    }
    relay_wait_peers_closed(o->peers, o->n_peers, o->timeout_s);
    for (int i = 0; i < o->n_peers; i++)
        if (o->peers[i].error[0])
            fail(res, o->peers[i].error);
    if (!res->error[0]) {
        res->done_ms = relay_now_ms();
        res->done_mono = relay_mono();
    }
out:
    if (lfd >= 0)
        close(lfd);
    for (int i = 0; i < o->n_peers; i++)
        if (o->peers[i].fd >= 0)
            close(o->peers[i].fd);
    if (up >= 0)
        close(up); /* after the targets' confirmations: confirms the stream upstream */
    return res->error[0] ? 1 : 0;
}
