/* dcn-relay's stream loop (relay_stream) on AF_UNIX socket pairs: every byte
 * reaches every target intact across many ring wraps, the upstream is read
 * at most one ring ahead of a stalled target (back-pressure), and the end of
 * stream does not end the loop while forwarded bytes are pending. Child
 * processes feed and drain the sockets; no timing is measured (a stall is
 * recognised by the loop's own no-progress timeout). Over TCP loopback: a
 * sender's pattern arrives intact from its memory file (sendfile), and a
 * sink counts exactly the bytes it discards (MSG_TRUNC). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "tools/relay.h"

static unsigned char byte_at(uint64_t off) { return (unsigned char)(off * 7u + 3u + (off >> 16)); }

static void pair(int sv[2])
{
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void nonblocking(int fd) { ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0); }

/* fork(): the child's pid in the parent; in the child 0, once it has
 * closed the n_close descriptors of close_in_child. */
static pid_t fork_closing(const int *close_in_child, int n_close)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid)
        return pid;
    for (int i = 0; i < n_close; i++)
        close(close_in_child[i]);
    return 0;
}

/* Child: writes total bytes of the pattern to fd in odd-sized pieces, then exits. */
static pid_t spawn_writer(int fd, uint64_t total, int *close_in_child, int n_close)
{
    pid_t pid = fork_closing(close_in_child, n_close);
    if (pid)
        return pid;
    static unsigned char buf[100003];
    for (uint64_t off = 0; off < total;) {
        size_t len = total - off < sizeof buf ? (size_t)(total - off) : sizeof buf;
        for (size_t i = 0; i < len; i++)
            buf[i] = byte_at(off + i);
        ssize_t n = write(fd, buf, len);
        if (n <= 0)
            _exit(3);
        off += (uint64_t)n;
    }
    _exit(0);
}

/* In a child: reads fd to its end, checking every byte against
 * expected(offset); reports the count on report_fd and exits, 0 when every
 * byte was right. */
static void drain_checking(int fd, int report_fd, unsigned char (*expected)(uint64_t))
{
    static unsigned char buf[65521];
    uint64_t off = 0;
    int good = 1;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            good &= buf[i] == expected(off + (uint64_t)i);
        off += (uint64_t)n;
    }
    if (write(report_fd, &off, sizeof off) != sizeof off)
        _exit(4);
    _exit(good ? 0 : 1);
}

/* Child: drain_checking() of the writers' pattern. */
static pid_t spawn_reader(int fd, int report_fd, int *close_in_child, int n_close)
{
    pid_t pid = fork_closing(close_in_child, n_close);
    if (pid)
        return pid;
    drain_checking(fd, report_fd, byte_at);
    return 0;
}

/* dcn-relay send's pattern (relay_send.c), repeated every RELAY_BUF_BYTES. */
static unsigned char sender_byte_at(uint64_t off) { return (unsigned char)((off % RELAY_BUF_BYTES) * 31u + 7u); }

static int exit_status(pid_t pid)
{
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void add_peer(relay_opts *o, int fd)
{
    relay_peer *pe = &o->peers[o->n_peers++];
    memset(pe, 0, sizeof *pe);
    pe->fd = fd;
    snprintf(pe->ep.label, sizeof pe->ep.label, "peer%d", o->n_peers);
}

START_TEST(every_byte_reaches_every_target_intact)
{
    const uint64_t total = 4u << 20; /* 16 ring wraps */
    int up[2], f1[2], f2[2], rep[2];
    pair(up);
    pair(f1);
    pair(f2);
    ck_assert_int_eq(pipe(rep), 0);
    int mine[] = {up[1], f1[0], f2[0], rep[0]};
    pid_t w = spawn_writer(up[0], total, (int[]){up[1], f1[0], f1[1], f2[0], f2[1], rep[0], rep[1]}, 7);
    pid_t r1 = spawn_reader(f1[1], rep[1], (int[]){up[0], up[1], f1[0], f2[0], f2[1], rep[0]}, 6);
    pid_t r2 = spawn_reader(f2[1], rep[1], (int[]){up[0], up[1], f1[0], f1[1], f2[0], rep[0]}, 6);
    close(up[0]);
    close(f1[1]);
    close(f2[1]);
    close(rep[1]);
    for (int i = 0; i < 3; i++)
        nonblocking(mine[i]);
    static relay_opts o;
    static relay_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    o.timeout_s = 60;
    o.expect = total;
    add_peer(&o, f1[0]);
    add_peer(&o, f2[0]);
    ck_assert_msg(relay_stream(&o, up[1], &res) == 0, "stream failed: %s", res.error);
    ck_assert_uint_eq(res.bytes, total);
    ck_assert_uint_eq(o.peers[0].bytes, total);
    ck_assert_uint_eq(o.peers[1].bytes, total);
    close(f1[0]);
    close(f2[0]);
    close(up[1]);
    ck_assert_int_eq(exit_status(w), 0);
    ck_assert_int_eq(exit_status(r1), 0); /* content checked byte by byte */
    ck_assert_int_eq(exit_status(r2), 0);
    uint64_t got[2];
    ck_assert_int_eq(read(rep[0], &got[0], sizeof got[0]), sizeof got[0]);
    ck_assert_int_eq(read(rep[0], &got[1], sizeof got[1]), sizeof got[1]);
    ck_assert_uint_eq(got[0], total);
    ck_assert_uint_eq(got[1], total);
    close(rep[0]);
}
END_TEST

START_TEST(a_stalled_target_holds_back_the_upstream_and_the_other_target)
{
    const uint64_t total = 64u << 20; /* far more than the ring and the socket buffers */
    int up[2], slow[2], fast[2], rep[2];
    pair(up);
    pair(slow);
    pair(fast);
    ck_assert_int_eq(pipe(rep), 0);
    pid_t w = spawn_writer(up[0], total, (int[]){up[1], slow[0], slow[1], fast[0], fast[1], rep[0], rep[1]}, 7);
    pid_t r = spawn_reader(fast[1], rep[1], (int[]){up[0], up[1], slow[0], slow[1], fast[0], rep[0]}, 6);
    close(up[0]);
    close(fast[1]);
    close(rep[1]);
    nonblocking(up[1]);
    nonblocking(slow[0]);
    nonblocking(fast[0]);
    static relay_opts o;
    static relay_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    o.timeout_s = 0.5; /* nobody ever reads slow[1]: the loop must stall, not run ahead */
    add_peer(&o, slow[0]);
    add_peer(&o, fast[0]);
    ck_assert_int_eq(relay_stream(&o, up[1], &res), -1);
    ck_assert_msg(strstr(res.error, "no progress") != NULL, "%s", res.error);
    ck_assert_uint_lt(res.bytes, total);
    ck_assert_uint_le(res.bytes - o.peers[0].bytes, RELAY_BUF_BYTES);
    ck_assert_uint_le(o.peers[1].bytes, o.peers[0].bytes + RELAY_BUF_BYTES);
    close(fast[0]);
    close(slow[0]);
    close(slow[1]);
    close(up[1]);
    kill(w, SIGKILL); /* blocked writing, or failed on the closed socket */
    exit_status(w);
    ck_assert_int_eq(exit_status(r), 0);
    uint64_t got;
    ck_assert_int_eq(read(rep[0], &got, sizeof got), sizeof got);
    ck_assert_uint_eq(got, o.peers[1].bytes);
    close(rep[0]);
}
END_TEST

START_TEST(end_of_stream_waits_for_the_pending_forward)
{
    /* The whole (small) stream and its end are queued before the loop runs;
     * the target takes only what its tiny socket buffer holds. The loop must
     * wait for the rest (and time out here), not stop at the end of stream. */
    const uint64_t total = 128u << 10;
    int up[2], f[2], tiny = 4096;
    pair(up);
    pair(f);
    ck_assert_int_eq(setsockopt(f[0], SOL_SOCKET, SO_SNDBUF, &tiny, sizeof tiny), 0);
    static unsigned char buf[128u << 10];
    for (uint64_t i = 0; i < total; i++)
        buf[i] = byte_at(i);
    nonblocking(up[0]);
    ck_assert_int_eq(write(up[0], buf, total), (ssize_t)total);
    shutdown(up[0], SHUT_WR);
    nonblocking(up[1]);
    nonblocking(f[0]);
    static relay_opts o;
    static relay_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    o.timeout_s = 0.3;
    add_peer(&o, f[0]);
    ck_assert_int_eq(relay_stream(&o, up[1], &res), -1);
    ck_assert_uint_eq(res.bytes, total);          /* everything read: it fits in the ring */
    ck_assert_uint_lt(o.peers[0].bytes, total);   /* but not forwarded */
    for (int i = 0; i < 2; i++) {
        close(up[i]);
        close(f[i]);
    }
}
END_TEST

START_TEST(a_short_stream_is_an_error)
{
    int up[2];
    pair(up);
    static unsigned char buf[1000];
    ck_assert_int_eq(write(up[0], buf, sizeof buf), (ssize_t)sizeof buf);
    close(up[0]);
    nonblocking(up[1]);
    static relay_opts o;
    static relay_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    o.timeout_s = 5;
    o.expect = 1001;
    snprintf(res.upstream, sizeof res.upstream, "test");
    ck_assert_int_eq(relay_stream(&o, up[1], &res), -1);
    ck_assert_uint_eq(res.bytes, 1000);
    ck_assert_str_eq(res.error, "short stream: 1000 of 1001 bytes before end of stream from test");
    close(up[1]);
}
END_TEST

START_TEST(sizes_ports_and_endpoints_are_validated)
{
    char err[RELAY_ERROR_MAX];
    uint64_t v;
    ck_assert_int_eq(relay_parse_size("64M", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 67108864);
    ck_assert_int_eq(relay_parse_size("10G", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 10737418240ull);
    ck_assert_int_eq(relay_parse_size("3k", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 3072);
    ck_assert_int_eq(relay_parse_size("17", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 17);
    const char *bad_sizes[] = {"", "M", "-1", "0", "1.5M", "12X", "1MB", " 1", "99999999999999999999", "9999999999G"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
        ck_assert_msg(relay_parse_size(bad_sizes[i], &v, err, sizeof err) < 0, "size '%s' accepted", bad_sizes[i]);
    char port[6];
    ck_assert_int_eq(relay_parse_port("65535", port, err, sizeof err), 0);
    ck_assert_str_eq(port, "65535");
    const char *bad_ports[] = {"", "0", "65536", "-1", "5000x", "000001", "http"};
    for (size_t i = 0; i < sizeof bad_ports / sizeof bad_ports[0]; i++)
        ck_assert_msg(relay_parse_port(bad_ports[i], port, err, sizeof err) < 0, "port '%s' accepted", bad_ports[i]);
    relay_endpoint ep;
    ck_assert_int_eq(relay_parse_endpoint("10.0.0.2:5001:1G", 1, &ep, err, sizeof err), 0);
    ck_assert_str_eq(ep.host, "10.0.0.2");
    ck_assert_str_eq(ep.port, "5001");
    ck_assert_uint_eq(ep.bytes, 1u << 30);
    ck_assert_str_eq(ep.label, "10.0.0.2:5001");
    ck_assert_int_eq(relay_parse_endpoint("[::1]:7", 0, &ep, err, sizeof err), 0);
    ck_assert_str_eq(ep.host, "::1");
    ck_assert_str_eq(ep.label, "[::1]:7");
    const char *bad_ep[] = {"10.0.0.2:5001", "10.0.0.2", ":5001:1M", "[::1:5001:1M", "[::1]5001:1M", "h:1:1M:2"};
    for (size_t i = 0; i < sizeof bad_ep / sizeof bad_ep[0]; i++)
        ck_assert_msg(relay_parse_endpoint(bad_ep[i], 1, &ep, err, sizeof err) < 0, "'%s' accepted", bad_ep[i]);
    ck_assert_int_lt(relay_parse_endpoint("h:1:1M", 0, &ep, err, sizeof err), 0);
    double t;
    ck_assert_int_eq(relay_parse_timeout("0.25", &t, err, sizeof err), 0);
    ck_assert_int_lt(relay_parse_timeout("nan", &t, err, sizeof err), 0);
    ck_assert_int_lt(relay_parse_timeout("1e9", &t, err, sizeof err), 0);
}
END_TEST

/* A TCP connection over loopback: *lfd listens, *port is its port. */
static void loopback_listener(int *lfd, relay_endpoint *ep)
{
    char err[128];
    *lfd = relay_listen("127.0.0.1", "0", err, sizeof err);
    ck_assert_msg(*lfd >= 0, "listen: %s", err);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    ck_assert_int_eq(getsockname(*lfd, (struct sockaddr *)&ss, &len), 0);
    memset(ep, 0, sizeof *ep);
    snprintf(ep->host, sizeof ep->host, "127.0.0.1");
    snprintf(ep->port, sizeof ep->port, "%u", (unsigned)ntohs(((struct sockaddr_in *)&ss)->sin_port));
    snprintf(ep->label, sizeof ep->label, "127.0.0.1:%s", ep->port);
}

START_TEST(a_sender_sends_its_pattern_intact_across_wraps)
{
    /* relay_send hands TCP the pages of its pattern file (sendfile): every
     * offset, across the pattern's wraps, must carry the pattern's byte */
    const uint64_t total = 3ull * RELAY_BUF_BYTES + 12345u;
    int lfd, rep[2];
    relay_endpoint ep;
    loopback_listener(&lfd, &ep);
    ck_assert_int_eq(pipe(rep), 0);
    pid_t r = fork_closing((int[]){rep[0]}, 1);
    if (r == 0) {
        char err[128], peer[64];
        int fd = relay_accept(lfd, 60, peer, sizeof peer, err, sizeof err);
        if (fd < 0)
            _exit(5);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        drain_checking(fd, rep[1], sender_byte_at);
    }
    close(lfd);
    close(rep[1]);
    static relay_opts o;
    static relay_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    o.mode = RELAY_SEND;
    o.timeout_s = 60;
    o.n_peers = 1;
    o.peers[0].ep = ep;
    o.peers[0].ep.bytes = total;
    o.peers[0].fd = -1;
    ck_assert_msg(relay_send(&o, &res) == 0, "send failed: %s", res.error);
    ck_assert_uint_eq(res.bytes, total);
    ck_assert_int_eq(exit_status(r), 0); /* content checked byte by byte */
    uint64_t got;
    ck_assert_int_eq(read(rep[0], &got, sizeof got), sizeof got);
    ck_assert_uint_eq(got, total);
    close(rep[0]);
}
END_TEST

START_TEST(a_sink_counts_every_byte_it_discards)
{
    /* with no target, relay_stream discards in the kernel (MSG_TRUNC) and
     * still counts every byte: the expected length passes, one more fails */
    const uint64_t total = 5ull * RELAY_BUF_BYTES + 777u;
    for (int extra = 0; extra < 2; extra++) {
        int lfd;
        relay_endpoint ep;
        loopback_listener(&lfd, &ep);
        pid_t w = fork_closing((int[]){lfd}, 1);
        if (w == 0) {
            char err[128];
            int fd = relay_connect(&ep, 60, err, sizeof err);
            if (fd < 0)
                _exit(5);
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            static unsigned char buf[100003];
            for (uint64_t off = 0; off < total;) {
                size_t len = total - off < sizeof buf ? (size_t)(total - off) : sizeof buf;
                ssize_t n = write(fd, buf, len);
                if (n <= 0)
                    _exit(3);
                off += (uint64_t)n;
            }
            _exit(0);
        }
        char err[128], peer[64];
        int up = relay_accept(lfd, 60, peer, sizeof peer, err, sizeof err);
        ck_assert_msg(up >= 0, "accept: %s", err);
        close(lfd);
        static relay_opts o;
        static relay_result res;
        memset(&o, 0, sizeof o);
        memset(&res, 0, sizeof res);
        o.timeout_s = 60;
        o.expect = total + (uint64_t)extra;
        int rc = relay_stream(&o, up, &res);
        ck_assert_uint_eq(res.bytes, total);
        if (extra)
            ck_assert_msg(rc < 0 && strstr(res.error, "short stream"), "rc %d: %s", rc, res.error);
        else
            ck_assert_msg(rc == 0, "stream failed: %s", res.error);
        close(up);
        ck_assert_int_eq(exit_status(w), 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("relay_stream");
    TCase *tc = tcase_create("relay_stream");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_byte_reaches_every_target_intact);
    tcase_add_test(tc, a_stalled_target_holds_back_the_upstream_and_the_other_target);
    tcase_add_test(tc, end_of_stream_waits_for_the_pending_forward);
    tcase_add_test(tc, a_short_stream_is_an_error);
    tcase_add_test(tc, sizes_ports_and_endpoints_are_validated);
    tcase_add_test(tc, a_sender_sends_its_pattern_intact_across_wraps);
    tcase_add_test(tc, a_sink_counts_every_byte_it_discards);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
