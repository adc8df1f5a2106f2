/* Harness: the control socket's request handling (agent/src/agent/ctl/ctl.c,
 * ctl_server.c). Every request goes to an engine that has heard all its
 * neighbours and carries flows (and, on the MDCube, segments of its own).
 *
 * Input: byte 0 chooses the topology (bit 0: BCube_1(n=4), server h00, or
 * a 2x2 MDCube of BCube_1(n=2), server h0_00) and the way in (bit 1):
 *  - 0: ctl_parse on the bytes up to the first NUL, then ctl_render into a
 *    buffer of the server's reply size, as ctl_server.c's answer() does;
 *  - 1: through the real control server (ctl_server_open on a socket in a
 *    temporary folder, its libev loop run without waiting): the bytes are
 *    sent in pieces of (byte 0 >> 2) bytes (0: at once), the loop run
 *    between pieces, then the client shuts down its side and reads the
 *    answer to the end. So partial lines, NUL bytes, lines past 255 bytes
 *    and several lines in one request reach the server's own line handling,
 *    which has no entry point without a socket.
 * Checks beyond the sanitizers (docs/protocol.md, "Control socket"): a
 * refused request is exactly one line starting "error: "; a JSON answer
 * has balanced brackets outside its strings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/ctl/ctl.h"
#include "agent/ctl/ctl_server.h"
#include "agent/core/engine.h"
#include "fuzz.h"
#include "fuzz_engine.h"

#define NTOPO 2
static const char *const specs[NTOPO][4] = {{"bcube", "n=4", "k=1", NULL}, {"mdcube", "n=2", "k=1", "m=2x2"}};

typedef struct world {
    dcn_topo t;
    engine *e;
    ctl_server *srv;
    struct sockaddr_un sa;
} world;

static world w[NTOPO];
static int ready[NTOPO];
static struct ev_loop *loop;
static char dir[64];
static uint64_t clock_ms = 1000;
static char reply[CTL_REPLY_MAX + 1];

static uint64_t f_now(void *ctx)
{
    (void)ctx;
    return clock_ms;
}

static int f_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    (void)frame;
    (void)len;
    return 0;
}

static void f_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    (void)ctx;
    (void)ip;
    (void)len;
}

/* One UDP packet from our server to dst from TUN: a flow (and on the
 * MDCube, to another container, a segment of our own). */
static void udp_to(engine *e, uint32_t dst, uint16_t sport)
{
    static uint8_t buf[ENGINE_HEADROOM + 64];
    uint8_t *ip = buf + ENGINE_HEADROOM;
    memset(ip, 0, 28 + 8);
    ip[0] = 0x45;
    dcn_put16(ip + 2, 28 + 8);
    ip[8] = 64;
    ip[9] = 17;
    dcn_put32(ip + 12, engine_ip_of(e->self));
    dcn_put32(ip + 16, engine_ip_of(dst));
    dcn_put16(ip + 20, sport);
    dcn_put16(ip + 22, 5001);
    dcn_put16(ip + 24, 8 + 8);
    engine_from_tun(e, buf, 28 + 8);
}

static void cleanup(void)
{
    for (int i = 0; i < NTOPO; i++)
        if (ready[i])
            ctl_server_close(w[i].srv); /* unlinks its socket */
    if (dir[0]) {
        char sub[96];
        snprintf(sub, sizeof sub, "%s/run", dir);
        rmdir(sub);
        rmdir(dir);
    }
}

static world *get_world(unsigned i)
{
    world *x = &w[i];
    if (ready[i])
        return x;
    if (!loop) {
        snprintf(dir, sizeof dir, "/tmp/dcn-fuzz-ctl-XXXXXX");
        if (!mkdtemp(dir) || !(loop = ev_loop_new(EVFLAG_AUTO)))
            abort();
        atexit(cleanup);
    }
    char err[256], *argv[3];
    int argc = 0;
    for (int k = 1; k < 4 && specs[i][k]; k++)
        argv[argc++] = (char *)specs[i][k];
    if (dcn_topo_build(&x->t, specs[i][0], argc, argv, err, sizeof err) < 0 || !(x->e = calloc(1, sizeof *x->e)))
        abort();
    engine_config cfg;
    engine_config_default(&cfg);
    engine_io io = {.ctx = NULL, .now_ms = f_now, .send_frame = f_send, .deliver_ip = f_deliver};
    if (engine_init(x->e, &x->t, 0, &cfg, &io) < 0)
        abort();
    for (unsigned p = 0; p < x->e->nports; p++) {
        engine_port *ep = &x->e->port[p];
        ep->present = ep->carrier = true;
        ep->capacity_mbps = 1000;
        memcpy(ep->ifname, "srv-eth0", 9);
        ep->ifname[7] = (char)('0' + p % 10);
        fz_mac_of(0, p, ep->mac);
    }
    fz_all_hellos(x->e);
    for (uint32_t d = 1; d < x->t.n_servers; d++)
        udp_to(x->e, d, (uint16_t)(40000 + d));
    clock_ms += 700; /* rates and ages that are not zero */
    engine_tick(x->e);
    char path[sizeof x->sa.sun_path];
    if (snprintf(path, sizeof path, "%s/run/%c.sock", dir, (char)('0' + i)) >= (int)sizeof path)
        abort();
    ctl_server_config c;
    ctl_server_config_default(&c);
    int code;
    if (!(x->srv = ctl_server_open(path, &c, x->e, err, sizeof err, &code)))
        abort();
    ctl_server_start(x->srv, loop);
    memset(&x->sa, 0, sizeof x->sa);
    x->sa.sun_family = AF_UNIX;
    memcpy(x->sa.sun_path, path, sizeof path);
    ready[i] = 1;
    return x;
}

/* An error answer is one line starting "error: ". */
static void check_error_line(const char *s, size_t n)
{
    if (n < 8 || memcmp(s, "error: ", 7) != 0 || s[n - 1] != '\n' || memchr(s, '\n', n - 1))
        abort();
}

/* Brackets of a JSON answer balance outside strings. */
static void check_json(const char *s, size_t n)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"')
            in_str = true;
        else if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth < 0)
            abort();
    }
    if (depth != 0 || in_str)
        abort();
}

static void direct(world *x, const uint8_t *data, size_t size)
{
    char line[1024];
    size_t n = size < sizeof line - 1 ? size : sizeof line - 1;
    memcpy(line, data, n);
    line[n] = 0;
    ctl_request req;
    char err[200] = "";
    if (ctl_parse(line, &req, err, sizeof err) < 0) {
        if (!err[0] || strchr(err, '\n'))
            abort();
        return;
    }
    FILE *out = fmemopen(reply, CTL_REPLY_MAX, "w");
    if (!out)
        abort();
    setvbuf(out, NULL, _IONBF, 0);
    int rc = ctl_render(x->e, &req, out);
    long pos = ftell(out);
    bool bad = ferror(out) || pos < 0 || (size_t)pos >= CTL_REPLY_MAX - 1;
    fclose(out);
    if (bad)
        return;
    if (rc < 0)
        check_error_line(reply, (size_t)pos);
    else if (req.json)
        check_json(reply, (size_t)pos);
}

static void spin(void)
{
    for (int i = 0; i < 4; i++)
        ev_run(loop, EVRUN_NOWAIT);
}

static void through_server(world *x, unsigned piece, const uint8_t *data, size_t size)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&x->sa, sizeof x->sa) < 0)
        abort();
    spin(); /* accepted */
    size_t off = 0;
    while (off < size && off < 4096) {
        size_t n = piece ? piece : size - off;
        if (n > size - off)
            n = size - off;
        ssize_t k = send(fd, data + off, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k <= 0)
            break; /* the server answered and closed already */
        off += (size_t)k;
        spin();
    }
    shutdown(fd, SHUT_WR);
    size_t got = 0;
    for (int idle = 0; idle < 1000;) {
        spin();
        ssize_t k = recv(fd, reply + got, CTL_REPLY_MAX - got, MSG_DONTWAIT);
        if (k > 0) {
            got += (size_t)k;
            idle = 0;
            continue;
        }
        if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            break;
        idle++;
    }
    close(fd);
    spin();
    if (ctl_server_conns(x->srv) != 0)
        abort(); /* the connection must be over once its answer is read */
    if (got >= 7 && memcmp(reply, "error: ", 7) == 0)
        check_error_line(reply, got);
    else if (got && reply[0] == '{')
        check_json(reply, got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    world *x = get_world(data[0] & 1u);
    if (data[0] & 2u)
        through_server(x, data[0] >> 2, data + 1, size - 1);
    else
        direct(x, data + 1, size - 1);
    return 0;
}
