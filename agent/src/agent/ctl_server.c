#include "ctl_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

struct ctl_server {
    int fd;
    char path[108];
    engine *e;
    struct ev_loop *loop;
    ev_io w;
};

typedef struct ctl_conn {
    ev_io w;
    ctl_server *srv;
    char buf[CTL_LINE_MAX];
    size_t n;
} ctl_conn;

static void mkdir_parent(const char *path)
{
    char dir[108];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = 0;
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            (void)mkdir(dir, 0755);
            *p = '/';
        }
    }
    (void)mkdir(dir, 0755);
}

ctl_server *ctl_server_open(const char *path, engine *e, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket path too long: %s", path);
        return NULL;
    }
    strcpy(sa.sun_path, path);
    mkdir_parent(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "control socket: %s", strerror(errno));
        return NULL;
    }
    /* a live agent answers a connect: refuse to steal its socket */
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
        close(probe);
        close(fd);
        snprintf(err, errlen, "another agent is listening on %s", path);
        return NULL;
    }
    if (probe >= 0)
        close(probe);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 16) < 0) {
        snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    ctl_server *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        unlink(path);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fd = fd;
    s->e = e;
    snprintf(s->path, sizeof s->path, "%s", path);
    return s;
}

static void conn_close(ctl_conn *c)
{
    ev_io_stop(c->srv->loop, &c->w);
    close(c->w.fd);
    free(c);
}

static void answer(ctl_conn *c)
{
    c->buf[c->n < sizeof c->buf ? c->n : sizeof c->buf - 1] = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    ctl_request req;
    char err[160];
    if (ctl_parse(c->buf, &req, err, sizeof err) < 0)
        fprintf(out, "error: %s\n", err);
    else
        ctl_render(c->srv->e, &req, out);
    fclose(out);
    int fd = c->w.fd;
    int fl = fcntl(fd, F_GETFL);
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    struct timeval tv = {.tv_sec = 1, .tv_usec = 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, text + off, len - off, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    free(text);
}

static void on_conn(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    ctl_conn *c = (ctl_conn *)w;
    ssize_t n = recv(w->fd, c->buf + c->n, sizeof c->buf - 1 - c->n, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        c->n += (size_t)n;
    if (n <= 0 || memchr(c->buf, '\n', c->n) || c->n >= sizeof c->buf - 1) {
        if (c->n > 0)
            answer(c);
        conn_close(c);
    }
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    ctl_server *s = w->data;
    for (int i = 0; i < 8; i++) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        ctl_conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->srv = s;
        ev_io_init(&c->w, on_conn, fd, EV_READ);
        ev_io_start(loop, &c->w);
    }
}

void ctl_server_start(ctl_server *s, struct ev_loop *loop)
{
    s->loop = loop;
    ev_io_init(&s->w, on_accept, s->fd, EV_READ);
    s->w.data = s;
    ev_io_start(loop, &s->w);
}

void ctl_server_close(ctl_server *s)
{
    if (!s)
        return;
    if (s->loop)
        ev_io_stop(s->loop, &s->w);
    close(s->fd);
    unlink(s->path);
    free(s);
}
