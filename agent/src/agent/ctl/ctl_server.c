#include "ctl_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

typedef struct ctl_conn {
    ev_io w;
    ev_timer timer;
    struct ctl_server *srv;
    bool used, replying;
    ev_tstamp t0; /* accepted */
    char req[CTL_LINE_MAX];
    size_t n;
    size_t out_len, out_off;
    char out[CTL_REPLY_MAX];
} ctl_conn;

struct ctl_server {
    int fd;
    char path[108];
    engine *e;
    ctl_server_config cfg;
    struct ev_loop *loop;
    ev_io w;
    unsigned nconns;
    ctl_conn conn[CTL_MAX_CONNS]; /* the fixed pool: nothing is allocated per connection */
};

void ctl_server_config_default(ctl_server_config *c)
{
    memset(c, 0, sizeof *c);
    c->gid = -1;
    c->max_conns = CTL_MAX_CONNS;
    c->request_timeout_s = CTL_REQUEST_TIMEOUT_S;
    c->conn_timeout_s = CTL_CONN_TIMEOUT_S;
}

/* Creates the missing directories of path's parent with mode (and group),
 * whatever the umask. Directories that exist are left as they are. */
static int make_parent(const char *path, mode_t mode, int gid, char *err, size_t errlen)
{
    char dir[108];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    for (char *p = dir + 1;; p++) {
        bool end = *p == 0;
        if (*p != '/' && !end)
            continue;
        *p = 0;
        if (mkdir(dir, mode) == 0) {
            if (chmod(dir, mode) < 0 || (gid >= 0 && chown(dir, (uid_t)-1, (gid_t)gid) < 0)) {
                snprintf(err, errlen, "control socket directory %s: %s", dir, strerror(errno));
                return -1;
            }
        } else if (errno != EEXIST) {
            snprintf(err, errlen, "control socket directory %s: %s", dir, strerror(errno));
            return -1;
        }
        if (end)
            break;
        *p = '/';
    }
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "control socket directory %s is not a directory", dir);
        return -1;
    }
    return 0;
}

/* What is at path: nothing (0), a stale socket that was removed (0), or a
 * conflict (-1 with err). */
static int clear_path(const struct sockaddr_un *sa, char *err, size_t errlen)
{
    const char *path = sa->sun_path;
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "control socket %s: %s", path, strerror(errno)), -1);
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "control socket %s: something that is not a socket is there; not replacing it", path);
        return -1;
    }
    /* a live agent answers a connect: refuse to steal its socket */
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) {
        snprintf(err, errlen, "control socket: %s", strerror(errno));
        return -1;
    }
    int rc = connect(probe, (const struct sockaddr *)sa, sizeof *sa);
    int cerr = errno;
    close(probe);
    if (rc == 0) {
        snprintf(err, errlen, "control socket %s: another agent is listening there", path);
        return -1;
    }
    if (cerr != ECONNREFUSED) {
        snprintf(err, errlen, "control socket %s: %s; not replacing it", path, strerror(cerr));
        return -1;
    }
    if (unlink(path) < 0 && errno != ENOENT) {
        snprintf(err, errlen, "control socket %s: cannot remove the stale socket: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

ctl_server *ctl_server_open(const char *path, const ctl_server_config *cfg, engine *e, char *err, size_t errlen,
                            int *exit_code)
{
    *exit_code = 2;
    ctl_server_config c;
    if (cfg)
        c = *cfg;
    else
        ctl_server_config_default(&c);
    if (!c.max_conns || c.max_conns > CTL_MAX_CONNS)
        c.max_conns = CTL_MAX_CONNS;
    if (c.request_timeout_s <= 0)
        c.request_timeout_s = CTL_REQUEST_TIMEOUT_S;
    if (c.conn_timeout_s <= 0)
        c.conn_timeout_s = CTL_CONN_TIMEOUT_S;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (!path[0] || strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket path empty or too long (at most %zu bytes): %s", sizeof sa.sun_path - 1,
                 path);
        return NULL;
    }
    strcpy(sa.sun_path, path);
    mode_t dir_mode = c.gid >= 0 ? 0750 : 0700, sock_mode = c.gid >= 0 ? 0660 : 0600;
    if (make_parent(path, dir_mode, c.gid, err, errlen) < 0 || clear_path(&sa, err, errlen) < 0)
        return NULL;
    ctl_server *s = calloc(1, sizeof *s); /* once: the pool and its reply buffers */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (!s || fd < 0) {
        snprintf(err, errlen, "control socket: %s", s ? strerror(errno) : "out of memory");
        *exit_code = 1;
        free(s);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    /* bind under a umask that leaves nobody else a moment of access, then
     * set the documented mode explicitly */
    mode_t old = umask(0177);
    int brc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (brc < 0 || chmod(path, sock_mode) < 0 || (c.gid >= 0 && chown(path, (uid_t)-1, (gid_t)c.gid) < 0) ||
        listen(fd, 16) < 0) {
        snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
        *exit_code = errno == EADDRINUSE ? 2 : 1;
        close(fd);
        if (brc == 0)
            unlink(path);
        free(s);
        return NULL;
    }
    s->fd = fd;
    s->e = e;
    s->cfg = c;
    snprintf(s->path, sizeof s->path, "%s", path);
    return s;
}

static void conn_close(ctl_conn *c)
{
    ctl_server *s = c->srv;
    ev_io_stop(s->loop, &c->w);
    ev_timer_stop(s->loop, &c->timer);
    close(c->w.fd);
    c->used = false;
    s->nconns--;
}

/* Sends what the socket takes now; closes when all is sent or the client
 * is gone. */
static void flush_reply(ctl_conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->w.fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return; /* later, when writable */
        break;
    }
    conn_close(c);
}

static void set_error(ctl_conn *c, const char *msg)
{
    int n = snprintf(c->out, sizeof c->out, "error: %s\n", msg);
    c->out_len = n > 0 && (size_t)n < sizeof c->out ? (size_t)n : 0;
}

/* Writes the prepared reply, without blocking, within what is left of the
 * connection's life. */
static void start_reply(ctl_conn *c)
{
    ctl_server *s = c->srv;
    c->replying = true;
    c->out_off = 0;
    ev_io_stop(s->loop, &c->w);
    ev_io_set(&c->w, c->w.fd, EV_WRITE);
    ev_io_start(s->loop, &c->w);
    ev_timer_stop(s->loop, &c->timer);
    double left = s->cfg.conn_timeout_s - (ev_now(s->loop) - c->t0);
    ev_timer_set(&c->timer, left > 0.05 ? left : 0.05, 0);
    ev_timer_start(s->loop, &c->timer);
    flush_reply(c);
}

/* Renders the answer to the request line into the connection's buffer. */
static void answer(ctl_conn *c)
{
    char *nl = memchr(c->req, '\n', c->n);
    size_t line = nl ? (size_t)(nl - c->req) : c->n;
    c->req[line] = 0;
    ctl_request req;
    char err[200];
    if (!nl && c->n >= sizeof c->req - 1) {
        set_error(c, "request too long");
    } else if (memchr(c->req, 0, line)) {
        set_error(c, "NUL byte in the request");
    } else if (ctl_parse(c->req, &req, err, sizeof err) < 0) {
        set_error(c, err);
    } else {
        if (c->srv->cfg.before_answer)
            c->srv->cfg.before_answer(c->srv->cfg.ctx);
        FILE *out = fmemopen(c->out, sizeof c->out, "w");
        if (!out) {
            set_error(c, "out of memory");
        } else {
            setvbuf(out, NULL, _IONBF, 0);
            ctl_render(c->srv->e, &req, out);
            long pos = ftell(out);
            bool full = ferror(out) || pos < 0 || (size_t)pos >= sizeof c->out - 1;
            fclose(out);
            if (full) {
                char m[80];
                snprintf(m, sizeof m, "the answer is larger than %d bytes", CTL_REPLY_MAX - 1);
                set_error(c, m);
            } else {
                c->out_len = (size_t)pos;
            }
        }
    }
    start_reply(c);
}

static void on_conn(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    ctl_conn *c = w->data;
    if (c->replying) {
        flush_reply(c);
        return;
    }
    ssize_t n = recv(w->fd, c->req + c->n, sizeof c->req - 1 - c->n, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n > 0)
        c->n += (size_t)n;
    if (n > 0 && !memchr(c->req, '\n', c->n) && c->n < sizeof c->req - 1)
        return; /* more of the line to come */
    if (c->n == 0 || n < 0) {
        conn_close(c); /* closed without a request, or an error */
        return;
    }
    answer(c);
}

static void on_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    ctl_conn *c = t->data;
    if (!c->replying) {
        set_error(c, "no request line in time");
        start_reply(c);
        return;
    }
    conn_close(c); /* the connection's life is over: a client that does not read loses its answer */
}

static void refuse(ctl_server *s, int fd)
{
    static const char msg[] = "error: too many control connections, try again\n";
    (void)send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
    (void)s;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    ctl_server *s = w->data;
    for (int i = 0; i < 16; i++) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        ctl_conn *c = NULL;
        for (unsigned k = 0; k < s->cfg.max_conns && !c; k++)
            if (!s->conn[k].used)
                c = &s->conn[k];
        if (!c) {
            refuse(s, fd);
            continue;
        }
        if (s->cfg.sndbuf > 0)
            (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->cfg.sndbuf, sizeof s->cfg.sndbuf);
        c->used = true;
        c->replying = false;
        c->srv = s;
        c->n = c->out_len = c->out_off = 0;
        c->t0 = ev_now(loop);
        s->nconns++;
        ev_io_init(&c->w, on_conn, fd, EV_READ);
        c->w.data = c;
        ev_io_start(loop, &c->w);
        ev_timer_init(&c->timer, on_timeout, s->cfg.request_timeout_s, 0);
        c->timer.data = c;
        ev_timer_start(loop, &c->timer);
    }
}

void ctl_server_start(ctl_server *s, struct ev_loop *loop)
{
    s->loop = loop;
    ev_io_init(&s->w, on_accept, s->fd, EV_READ);
    s->w.data = s;
    ev_io_start(loop, &s->w);
}

unsigned ctl_server_conns(const ctl_server *s) { return s->nconns; }

void ctl_server_close(ctl_server *s)
{
    if (!s)
        return;
    for (unsigned k = 0; k < CTL_MAX_CONNS; k++)
        if (s->conn[k].used)
            conn_close(&s->conn[k]);
    if (s->loop)
        ev_io_stop(s->loop, &s->w);
    close(s->fd);
    unlink(s->path);
    free(s);
}
