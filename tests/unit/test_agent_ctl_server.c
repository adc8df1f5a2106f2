/* The control socket's server (ctl_server.c) on a real libev loop, with a
 * socket in a temporary directory (no root needed): what may be replaced at
 * its path, the modes of the socket and its directory, the connection cap,
 * idle connections timing out, a client that never reads not blocking the
 * loop, and a one-line error for every bad request. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/ctl/ctl_server.h"
#include "agent_harness.h"

typedef struct fixture {
    char dir[40], path[80];
    harness *h;
    struct ev_loop *loop;
    ctl_server *s;
} fixture;

static void fx_dir(fixture *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/dcn-ctl-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/run/h00.sock", f->dir);
}

static void fx_start(fixture *f, const ctl_server_config *cfg)
{
    f->h = ah_new("bcube n=4 k=1", "h00");
    for (unsigned i = 0; i < 256; i++) /* every neighbour heard: flows can start */
        if (f->h->e.nt.e[i].valid)
            ah_hello(f->h, f->h->e.nt.e[i].port, f->h->e.nt.e[i].node, 0);
    f->h->nout = 0;
    char err[256];
    int rc = 0;
    f->s = ctl_server_open(f->path, cfg, &f->h->e, err, sizeof err, &rc);
    ck_assert_msg(f->s != NULL, "%s", err);
    f->loop = ev_loop_new(EVFLAG_AUTO);
    ctl_server_start(f->s, f->loop);
}

static void fx_end(fixture *f)
{
    if (f->s)
        ctl_server_close(f->s);
    if (f->loop)
        ev_loop_destroy(f->loop);
    if (f->h)
        ah_free(f->h);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int client(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

/* Runs the loop without blocking, a few times (each turn returns at once). */
static void spin(fixture *f, int turns)
{
    for (int i = 0; i < turns; i++) {
        ev_run(f->loop, EVRUN_NOWAIT);
        usleep(1000);
    }
}

/* Reads until EOF (the loop turning meanwhile) into buf; returns the length. */
static size_t read_all(fixture *f, int fd, char *buf, size_t cap)
{
    size_t n = 0;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    for (int i = 0; i < 5000; i++) {
        ev_run(f->loop, EVRUN_NOWAIT);
        ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
        if (r == 0)
            break;
        if (r > 0)
            n += (size_t)r;
        else
            usleep(1000);
    }
    buf[n] = 0;
    return n;
}

static char *ask(fixture *f, const char *req, size_t reqlen, char *buf, size_t cap)
{
    int fd = client(f->path);
    ck_assert_int_eq(send(fd, req, reqlen, MSG_NOSIGNAL), (ssize_t)reqlen);
    read_all(f, fd, buf, cap);
    close(fd);
    return buf;
}

START_TEST(a_regular_file_survives_and_is_refused_with_status_2)
{
    fixture f;
    fx_dir(&f);
    char run[128];
    snprintf(run, sizeof run, "%s/run", f.dir);
    ck_assert_int_eq(mkdir(run, 0700), 0);
    FILE *fp = fopen(f.path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("precious\n", fp);
    fclose(fp);
    harness *h = ah_new("bcube n=4 k=1", "h00");
    char err[256];
    int rc = 0;
    ck_assert_ptr_null(ctl_server_open(f.path, NULL, &h->e, err, sizeof err, &rc));
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(err, "not a socket"));
    ck_assert_ptr_null(strchr(err, '\n'));
    char buf[32] = "";
    fp = fopen(f.path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, fp));
    fclose(fp);
    ck_assert_str_eq(buf, "precious\n");
    /* a directory and a symlink at the path are refused too */
    ck_assert_int_eq(unlink(f.path), 0);
    ck_assert_int_eq(mkdir(f.path, 0700), 0);
    ck_assert_ptr_null(ctl_server_open(f.path, NULL, &h->e, err, sizeof err, &rc));
    ck_assert_int_eq(rc, 2);
    ck_assert_int_eq(rmdir(f.path), 0);
    ck_assert_int_eq(symlink("/nonexistent", f.path), 0);
    ck_assert_ptr_null(ctl_server_open(f.path, NULL, &h->e, err, sizeof err, &rc));
    ck_assert_int_eq(rc, 2);
    ck_assert_int_eq(unlink(f.path), 0);
    ah_free(h);
    fx_end(&f);
}
END_TEST

START_TEST(a_stale_socket_is_replaced_a_live_one_is_not)
{
    fixture f;
    fx_dir(&f);
    char run[128];
    snprintf(run, sizeof run, "%s/run", f.dir);
    ck_assert_int_eq(mkdir(run, 0700), 0);
    /* stale: bound, then closed without unlinking */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f.path);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    close(fd);
    fx_start(&f, NULL);
    /* now live: a second server is refused, status 2, and the first still answers */
    char err[256];
    int rc = 0;
    ck_assert_ptr_null(ctl_server_open(f.path, NULL, &f.h->e, err, sizeof err, &rc));
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(err, "another agent"));
    char buf[4096];
    ask(&f, "status\n", 7, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "server h00"));
    fx_end(&f);
}
END_TEST

START_TEST(modes_are_owner_only_or_the_group_given)
{
    mode_t old = umask(0); /* the modes must not come from the umask */
    fixture f;
    fx_dir(&f);
    fx_start(&f, NULL);
    struct stat st;
    char run[128];
    snprintf(run, sizeof run, "%s/run", f.dir);
    ck_assert_int_eq(stat(run, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(stat(f.path, &st), 0);
    ck_assert(S_ISSOCK(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    fx_end(&f);

    fx_dir(&f);
    ctl_server_config cfg;
    ctl_server_config_default(&cfg);
    cfg.gid = (int)getgid();
    fx_start(&f, &cfg);
    snprintf(run, sizeof run, "%s/run", f.dir);
    ck_assert_int_eq(stat(run, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0750);
    ck_assert_uint_eq(st.st_gid, getgid());
    ck_assert_int_eq(stat(f.path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0660);
    ck_assert_uint_eq(st.st_gid, getgid());
    fx_end(&f);
    umask(old);
}
END_TEST

START_TEST(connections_are_capped_and_idle_ones_time_out)
{
    fixture f;
    fx_dir(&f);
    ctl_server_config cfg;
    ctl_server_config_default(&cfg);
    cfg.max_conns = 3;
    cfg.request_timeout_s = 0.2;
    cfg.conn_timeout_s = 0.4;
    fx_start(&f, &cfg);
    int idle[3];
    for (int i = 0; i < 3; i++)
        idle[i] = client(f.path);
    spin(&f, 20);
    ck_assert_uint_eq(ctl_server_conns(f.s), 3);
    /* one more is refused with one line, and the pool does not grow */
    int extra = client(f.path);
    char buf[4096];
    size_t n = read_all(&f, extra, buf, sizeof buf);
    close(extra);
    ck_assert_uint_gt(n, 0);
    ck_assert_str_eq(buf, "error: too many control connections, try again\n");
    ck_assert_uint_eq(ctl_server_conns(f.s), 3);
    /* the idle ones get one error line and are closed */
    for (int i = 0; i < 3; i++) {
        n = read_all(&f, idle[i], buf, sizeof buf);
        ck_assert_str_eq(buf, "error: no request line in time\n");
        close(idle[i]);
    }
    ck_assert_uint_eq(ctl_server_conns(f.s), 0);
    /* and the server takes new ones again */
    ask(&f, "status\n", 7, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "server h00"));
    fx_end(&f);
}
END_TEST

START_TEST(a_client_that_never_reads_does_not_block_the_loop)
{
    fixture f;
    fx_dir(&f);
    ctl_server_config cfg;
    ctl_server_config_default(&cfg);
    cfg.conn_timeout_s = 0.5;
    cfg.sndbuf = 4096; /* the smallest socket buffer: the reply cannot fit */
    fx_start(&f, &cfg);
    /* many flows, so `flows` answers many kilobytes */
    uint8_t ip[ENGINE_HEADROOM + 200];
    for (int i = 0; i < 200; i++) {
        ah_ipv4(ip + ENGINE_HEADROOM, f.h->e.self, 1 + (uint32_t)(i % 15), (uint16_t)(1000 + i), 80, 100);
        engine_from_tun(&f.h->e, ip, 100);
    }
    int fd = client(f.path);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    ck_assert_int_eq(send(fd, "flows\n", 6, MSG_NOSIGNAL), 6);
    /* each turn of the loop returns at once although the client reads nothing */
    uint64_t before = f.h->e.c.tx_data_from_tun;
    for (int i = 0; i < 50; i++) {
        ev_run(f.loop, EVRUN_NOWAIT);
        ah_ipv4(ip + ENGINE_HEADROOM, f.h->e.self, 5, 7, 80, 100); /* forwarding goes on */
        engine_from_tun(&f.h->e, ip, 100);
        f.h->nout = 0;
    }
    ck_assert_uint_eq(f.h->e.c.tx_data_from_tun, before + 50);
    ck_assert_uint_eq(ctl_server_conns(f.s), 1); /* its answer still pending */
    /* its life runs out: closed, its slot free */
    for (int i = 0; i < 2000 && ctl_server_conns(f.s) > 0; i++) {
        ev_run(f.loop, EVRUN_NOWAIT);
        usleep(1000);
    }
    ck_assert_uint_eq(ctl_server_conns(f.s), 0);
    close(fd);
    fx_end(&f);
}
END_TEST

START_TEST(every_bad_request_gets_one_error_line)
{
    fixture f;
    fx_dir(&f);
    fx_start(&f, NULL);
    static const struct {
        const char *req;
        size_t len;
        const char *want;
    } bad[] = {
        {"\n", 1, "empty request"},
        {"frobnicate\n", 11, "unknown command"},
        {"paths\n", 6, "needs a destination"},
        {"paths h01 h02\n", 14, "too many arguments"},
        {"paths nosuch\n", 13, "not another server"},
        {"\x01\x02\xff\n", 4, "unknown command"},
        {"sta\0tus\n", 8, "NUL byte"},
        {"status", 6, NULL}, /* no newline, then EOF: still answered (not an error) */
    };
    char buf[8192];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int fd = client(f.path);
        ck_assert_int_eq(send(fd, bad[i].req, bad[i].len, MSG_NOSIGNAL), (ssize_t)bad[i].len);
        shutdown(fd, SHUT_WR);
        read_all(&f, fd, buf, sizeof buf);
        close(fd);
        if (!bad[i].want) {
            ck_assert_ptr_nonnull(strstr(buf, "server h00"));
            continue;
        }
        ck_assert_msg(strncmp(buf, "error: ", 7) == 0, "request %zu: '%s'", i, buf);
        ck_assert_msg(strstr(buf, bad[i].want) != NULL, "request %zu: '%s'", i, buf);
        char *nl = strchr(buf, '\n');
        ck_assert_msg(nl && nl[1] == 0, "request %zu: not one line: '%s'", i, buf);
    }
    /* a line longer than the limit */
    char big[600];
    memset(big, 'x', sizeof big);
    ask(&f, big, sizeof big, buf, sizeof buf);
    ck_assert_str_eq(buf, "error: request too long\n");
    fx_end(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_ctl_server");
    TCase *tc = tcase_create("ctl_server");
    tcase_add_test(tc, a_regular_file_survives_and_is_refused_with_status_2);
    tcase_add_test(tc, a_stale_socket_is_replaced_a_live_one_is_not);
    tcase_add_test(tc, modes_are_owner_only_or_the_group_given);
    tcase_add_test(tc, connections_are_capped_and_idle_ones_time_out);
    tcase_add_test(tc, a_client_that_never_reads_does_not_block_the_loop);
    tcase_add_test(tc, every_bad_request_gets_one_error_line);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
