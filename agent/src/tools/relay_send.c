/* dcn-relay send: BYTES of generated data on each --to stream, all at once,
 * non-blocking with poll; done when every receiver has closed its end after
 * our end of stream (it then holds, and has forwarded, every byte). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay.h"

static unsigned char pattern[RELAY_BUF_BYTES]; /* the data, sent over and over; no disk */
/* The pattern in a memory file: sendfile() then hands TCP its pages without
 * copying them; -1 (no memfd) falls back to send() from the array. */
static int pattern_fd = -1;

static void pattern_init(void)
{
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (unsigned char)(i * 31u + 7u);
    pattern_fd = memfd_create("dcn-relay-pattern", MFD_CLOEXEC);
    if (pattern_fd < 0)
        return;
    size_t done = 0;
    while (done < sizeof pattern) {
        ssize_t n = write(pattern_fd, pattern + done, sizeof pattern - done);
        if (n <= 0) {
            close(pattern_fd);
            pattern_fd = -1;
            return;
        }
        done += (size_t)n;
    }
}

static ssize_t send_pattern(int fd, uint64_t off, size_t len)
{
    if (pattern_fd >= 0) {
        off_t o = (off_t)off;
        return sendfile(fd, pattern_fd, &o, len);
    }
    return send(fd, pattern + off, len, MSG_NOSIGNAL);
}

static void fail(relay_result *res, const char *what)
{
    if (!res->error[0])
        snprintf(res->error, sizeof res->error, "%s", what);
}

/* Writes what the socket takes now; -1 on a connection error (pe->error). */
static int push(relay_peer *pe)
{
    for (;;) {
        uint64_t left = pe->ep.bytes - pe->bytes, off = pe->bytes % RELAY_BUF_BYTES;
        size_t len = (size_t)(left < RELAY_BUF_BYTES - off ? left : RELAY_BUF_BYTES - off);
        if (len == 0)
            return 0;
        ssize_t n = send_pattern(pe->fd, off, len);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return 0;
            relay_peer_fail(pe, "sending to %s: %s after %llu of %llu bytes", pe->ep.label, strerror(errno),
                            (unsigned long long)pe->bytes, (unsigned long long)pe->ep.bytes);
            return -1;
        }
        if (n == 0) { /* sendfile() at the pattern file's end: a bug, not a wait */
            relay_peer_fail(pe, "sending to %s: no byte taken from the pattern at offset %llu", pe->ep.label,
                            (unsigned long long)off);
            return -1;
        }
        pe->last_ms = relay_now_ms();
        if (pe->bytes == 0) {
            pe->first_ms = pe->last_ms;
            pe->first_mono = relay_mono();
        }
        pe->bytes += (uint64_t)n;
        if (pe->bytes == pe->ep.bytes) {
            shutdown(pe->fd, SHUT_WR);
            pe->shut = 1;
            return 0;
        }
    }
}

static void summarize(const relay_opts *o, relay_result *res)
{
    for (int i = 0; i < o->n_peers; i++) {
        const relay_peer *pe = &o->peers[i];
        res->bytes += pe->bytes;
        if (pe->first_ms && (!res->first_ms || pe->first_mono < res->first_mono)) {
            res->first_ms = pe->first_ms;
            res->first_mono = pe->first_mono;
        }
        if (pe->last_ms > res->last_ms)
            res->last_ms = pe->last_ms;
        if (pe->error[0])
            fail(res, pe->error);
    }
    int all_done = 1;
    for (int i = 0; i < o->n_peers; i++)
        if (!o->peers[i].done_ms)
            all_done = 0;
        else if (o->peers[i].done_mono > res->done_mono) {
            res->done_ms = o->peers[i].done_ms;
            res->done_mono = o->peers[i].done_mono;
        }
    if (!all_done) {
        res->done_ms = 0;
        fail(res, "a receiver did not confirm the whole stream");
    }
}

int relay_send(relay_opts *o, relay_result *res)
{
    pattern_init();
    for (int i = 0; i < o->n_peers; i++) {
        relay_peer *pe = &o->peers[i];
        pe->fd = relay_connect(&pe->ep, o->timeout_s, pe->error, sizeof pe->error);
        if (pe->fd < 0)
            goto out;
    }
    for (;;) {
        struct pollfd p[RELAY_MAX_PEERS];
        int map[RELAY_MAX_PEERS], m = 0;
        for (int i = 0; i < o->n_peers; i++)
            if (!o->peers[i].shut) {
                p[m] = (struct pollfd){o->peers[i].fd, POLLOUT, 0};
                map[m++] = i;
            }
        if (m == 0)
            break;
        int r = poll(p, (nfds_t)m, relay_poll_ms(o->timeout_s));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            relay_peer *pe = &o->peers[map[0]];
            relay_peer_fail(pe, "sending to %s: no progress for %g s after %llu of %llu bytes", pe->ep.label,
                            o->timeout_s, (unsigned long long)pe->bytes, (unsigned long long)pe->ep.bytes);
            goto out;
        }
        for (int j = 0; j < m; j++)
            if (p[j].revents && push(&o->peers[map[j]]) < 0)
                goto out;
    }
    relay_wait_peers_closed(o->peers, o->n_peers, o->timeout_s);
out:
    for (int i = 0; i < o->n_peers; i++)
        if (o->peers[i].fd >= 0)
            close(o->peers[i].fd);
    if (pattern_fd >= 0)
        close(pattern_fd);
    summarize(o, res);
    return res->error[0] ? 1 : 0;
}
