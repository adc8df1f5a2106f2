/* Agent control protocol (request parsing, rendering) and command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ctl/ctl.h"
#include "agent/options.h"
#include "agent_harness.h"

/* noinline: inlined, GCC -O2 takes open_memstream's &text for a dangling pointer */
__attribute__((noinline)) static char *render(engine *e, const char *line, int *rc)
{
    ctl_request req;
    char err[160];
    ck_assert_msg(ctl_parse(line, &req, err, sizeof err) == 0, "%s: %s", line, err);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    *rc = ctl_render(e, &req, out);
    fclose(out);
    return text;
}

START_TEST(requests_parse_and_bad_ones_are_refused)
{
    ctl_request req;
    char err[160];
    ck_assert_int_eq(ctl_parse("status --json\n", &req, err, sizeof err), 0);
    ck_assert_str_eq(req.cmd, "status");
    ck_assert(req.json);
    ck_assert_int_eq(ctl_parse("paths h11", &req, err, sizeof err), 0);
    ck_assert_str_eq(req.arg, "h11");
    ck_assert(!req.json);
    ck_assert_int_lt(ctl_parse("", &req, err, sizeof err), 0);
    ck_assert_int_lt(ctl_parse("frobnicate", &req, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "unknown command"));
    ck_assert_int_lt(ctl_parse("paths", &req, err, sizeof err), 0);
    ck_assert_int_lt(ctl_parse("paths a b", &req, err, sizeof err), 0);
    ck_assert_int_eq(ctl_parse("failures --json", &req, err, sizeof err), 0);
    ck_assert_str_eq(req.cmd, "failures");
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_int_lt(ctl_parse(big, &req, err, sizeof err), 0);
}
END_TEST

START_TEST(status_and_neighbors_render)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, 0, 0);
    int rc;
    char *s = render(&h->e, "status --json", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(s, "\"name\":\"h01\""));
    ck_assert_ptr_nonnull(strstr(s, "\"id\":1"));
    ck_assert_ptr_nonnull(strstr(s, "\"ip\":\"10.0.0.2\""));
    ck_assert_ptr_nonnull(strstr(s, "\"family\":\"bcube\""));
    ck_assert_ptr_nonnull(strstr(s, "\"neighbors_up\":1,\"neighbors_total\":2,\"ready\":false"));
    free(s);
    ah_hello(h, 1, 3, 1);
    s = render(&h->e, "status --json", &rc);
    ck_assert_ptr_nonnull(strstr(s, "\"ready\":true"));
    free(s);
    s = render(&h->e, "neighbors --json", &rc);
    ck_assert_ptr_nonnull(strstr(s, "{\"nha\":\"0x00\",\"name\":\"h00\",\"port\":0,\"ifname\":\"h01-eth0\","
                                    "\"mac\":\"02:00:00:00:00:00\",\"up\":true"));
    ck_assert_ptr_nonnull(strstr(s, "\"name\":\"h11\""));
    free(s);
    s = render(&h->e, "counters --json", &rc);
    ck_assert_ptr_nonnull(strstr(s, "\"drop_bad_checksum\":0"));
    ck_assert_ptr_nonnull(strstr(s, "\"hello_rx\":2"));
    free(s);
    s = render(&h->e, "flows --json", &rc);
    ck_assert_ptr_nonnull(strstr(s, "\"flows\":["));
    free(s);
    s = render(&h->e, "paths h10", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(s, "h01 s0_0 h00 s1_0 h10"));
    free(s);
    s = render(&h->e, "paths nosuch", &rc);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_nonnull(strstr(s, "error:"));
    free(s);
    ah_free(h);
}
END_TEST

/* Every NHA of the path, in text and JSON (once only the first was shown). */
START_TEST(paths_print_every_nha)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    int rc;
    char *s = render(&h->e, "paths h10", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(s, "h01 s0_0 h00 s1_0 h10  NHA 00 41\n") != NULL, "%s", s);
    ck_assert_msg(strstr(s, "h01 s1_1 h11 s0_1 h10  NHA 41 00\n") != NULL, "%s", s);
    free(s);
    s = render(&h->e, "paths h10 --json", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(s, "{\"path\":[\"h01\",\"s0_0\",\"h00\",\"s1_0\",\"h10\"],\"nha\":\"00 41\"}") != NULL,
                  "%s", s);
    ck_assert_msg(strstr(s, "\"nha\":\"41 00\"") != NULL, "%s", s);
    free(s);
    ah_free(h);
    /* a long path: HCN's path set has paths of many hops */
    h = ah_new("hcn n=4 h=2", "h111");
    s = render(&h->e, "paths h444", &rc);
    ck_assert_int_eq(rc, 0);
    char *line = strstr(s, "NHA ");
    ck_assert_ptr_nonnull(line);
    /* the first path: one NHA per server hop, the last one ends the line */
    unsigned servers = 0, hexes = 0;
    for (char *c = s; c < line; c++)
        servers += c[0] == ' ' && c[1] == 'h';
    for (char *c = line + 4;; c += 3) {
        ck_assert_msg(c[0] && c[1] && (c[2] == ' ' || c[2] == '\n'), "%s", line);
        hexes++;
        if (c[2] == '\n')
            break;
    }
    ck_assert_uint_eq(hexes, servers - 1); /* servers counts the source too */
    ck_assert_uint_ge(hexes, 3);
    free(s);
    ah_free(h);
}
END_TEST

/* The failed-link database: a local port that is down, and a link learned
 * from a path-failure message with its time left. */
START_TEST(failures_render)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    int rc;
    char *s = render(&h->e, "failures", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strcmp(s, "LINK                     KIND     EXPIRES_IN_MS\n") == 0, "%s", s);
    free(s);
    s = render(&h->e, "failures --json", &rc);
    ck_assert_str_eq(s, "{\"failures\":[]}\n");
    free(s);
    ps_on_path_failure(h->e.ps, dcn_node_lookup(h->e.t, "s1_0"), dcn_node_lookup(h->e.t, "h10"));
    ps_on_local_port(h->e.ps, 0, 0);
    s = render(&h->e, "failures", &rc);
    ck_assert_msg(strstr(s, "\nh10-s1_0                 learned  10000\n") != NULL, "%s", s);
    ck_assert_msg(strstr(s, "\nh01-s0_0                 local    -\n") != NULL, "%s", s);
    free(s);
    s = render(&h->e, "failures --json", &rc);
    ck_assert_msg(strstr(s, "{\"a\":\"h10\",\"b\":\"s1_0\",\"kind\":\"learned\",\"expires_in_ms\":10000}") != NULL,
                  "%s", s);
    ck_assert_msg(strstr(s, "{\"a\":\"h01\",\"b\":\"s0_0\",\"kind\":\"local\",\"expires_in_ms\":null}") != NULL,
                  "%s", s);
    free(s);
    ps_on_local_port(h->e.ps, 0, 1);
    s = render(&h->e, "failures --json", &rc);
    ck_assert_msg(strstr(s, "local") == NULL, "%s", s);
    free(s);
    ah_free(h);
}
END_TEST

static int parse(agent_options *o, const char *const *args, int n, char *err, size_t errlen)
{
    char *argv[32];
    argv[0] = (char *)"dcn-agent";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return agent_options_parse(o, n + 1, argv, err, errlen);
}

START_TEST(options_defaults_and_errors)
{
    agent_options o;
    char err[256];
    const char *ok[] = {"--topo", "bcube n=2 k=1", "--name", "h01", "--port", "1=veth9", "--capacity-mbps", "0=500"};
    ck_assert_int_eq(parse(&o, ok, 8, err, sizeof err), 0);
    ck_assert_uint_eq(o.hello_ms, 1000);
    ck_assert_uint_eq(o.dead_misses, 3);
    ck_assert_uint_eq(o.mtu, 1500);
    ck_assert_str_eq(o.ctl_path, "/run/dcn/h01.sock");
    ck_assert_int_eq(o.ctl_gid, -1);
    const char *grp[] = {"--topo", "bcube", "--name", "h00", "--ctl-group", "root"};
    ck_assert_int_eq(parse(&o, grp, 6, err, sizeof err), 0);
    ck_assert_int_eq(o.ctl_gid, 0);
    ck_assert_int_eq(parse(&o, ok, 8, err, sizeof err), 0);
    ck_assert_str_eq(o.tun, "dcn0");
    ck_assert_uint_eq(o.port_capacity[0], 500);
    char ifn[16];
    ck_assert_int_eq(agent_ifname(&o, 0, ifn, sizeof ifn), 0);
    ck_assert_str_eq(ifn, "h01-eth0");
    ck_assert_int_eq(agent_ifname(&o, 1, ifn, sizeof ifn), 0);
    ck_assert_str_eq(ifn, "veth9");
    static const char *const bad[][2] = {
        {"--hello-ms", "0"},      {"--hello-ms", "abc"},  {"--dead-misses", "0"},  {"--mtu", "100"},
        {"--port", "7=eth0"},     {"--port", "eth0"},     {"--port", "1="},        {"--capacity-mbps", "-5"},
        {"--ifname-fmt", "%d%n"}, {"--seed", "-1"},       {"--bogus", "1"},        {"--port", "1=abcdefghijklmnopq"},
        {"--ctl-group", "no-such-group-here"}, {"--ctl-group", ""}, {"--mdcube-routing", "random"},
        {"--tun-offload", "yes"}, {"--relay-copy", "o"}, {"--relay-copy", ""}, {"--data-path", "full"},
        {"--data-path", "on"},    {"--data-path", "off"}, {"--data-path", ""},     {"--data-path", "Kernel"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"--topo", "bcube", "--name", "h00", bad[i][0], bad[i][1]};
        ck_assert_msg(parse(&o, args, 6, err, sizeof err) < 0, "accepted %s %s", bad[i][0], bad[i][1]);
        ck_assert_msg(strchr(err, '\n') == NULL && err[0], "error must be one line");
    }
    ck_assert_int_eq(o.mdcube_routing, ENGINE_MDCUBE_HIER);
    const char *defaults[] = {"--topo", "bcube", "--name", "h00"};
    ck_assert_int_eq(parse(&o, defaults, 4, err, sizeof err), 0);
    ck_assert(o.tun_offload && !o.relay_copy && o.data_path == DATA_PATH_KERNEL); /* the defaults */
    const char *onoff[] = {"--topo", "bcube", "--name", "h00", "--tun-offload", "off", "--relay-copy", "on",
                           "--data-path", "agent"};
    ck_assert_int_eq(parse(&o, onoff, 10, err, sizeof err), 0);
    ck_assert(!o.tun_offload && o.relay_copy && o.data_path == DATA_PATH_AGENT);
    ck_assert_str_eq(agent_data_path_name(o.data_path), "agent");
    const char *last[] = {"--topo", "bcube", "--name", "h00", "--data-path", "agent", "--data-path=kernel"};
    ck_assert_int_eq(parse(&o, last, 7, err, sizeof err), 0); /* the last one counts */
    ck_assert(o.data_path == DATA_PATH_KERNEL);
    ck_assert_str_eq(agent_data_path_name(o.data_path), "kernel");
    const char *bad_path[] = {"--topo", "bcube", "--name", "h00", "--data-path", "full"};
    ck_assert_int_lt(parse(&o, bad_path, 6, err, sizeof err), 0);
    ck_assert_str_eq(err, "--data-path must be agent or kernel, got 'full'");
    const char *src[] = {"--topo", "mdcube", "--name", "h0_00", "--mdcube-routing", "source"};
    ck_assert_int_eq(parse(&o, src, 6, err, sizeof err), 0);
    ck_assert_int_eq(o.mdcube_routing, ENGINE_MDCUBE_SOURCE);
    const char *missing[] = {"--topo", "bcube"};
    ck_assert_int_lt(parse(&o, missing, 2, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "--name"));
    const char *extra[] = {"--topo", "bcube", "--name", "h00", "stray"};
    ck_assert_int_lt(parse(&o, extra, 5, err, sizeof err), 0);
}
END_TEST

/* dcn-ctl segments: the MDCube segment table, text and JSON. */
START_TEST(segments_render)
{
    harness *h = ah_new("mdcube n=2 k=1 m=2x2", "h0_00");
    ah_all_hellos(h);
    uint8_t buf[ENGINE_HEADROOM + 100];
    ah_ipv4(buf + ENGINE_HEADROOM, h->e.self, tu_node(&h->t, "h3_11"), 7, 8, 100);
    engine_from_tun(&h->e, buf, 100);
    int rc;
    char *s = render(&h->e, "segments", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(s, "mdcube routing: hier, 1 segments\n") != NULL, "%s", s);
    ck_assert_msg(strstr(s, "h0_00 -> h3_11 flow 0x") != NULL && strstr(s, " source containers [") != NULL, "%s", s);
    free(s);
    s = render(&h->e, "segments --json", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(s, "\"mdcube_routing\":\"hier\"") && strstr(s, "\"segment\":[\"h0_00\""), "%s", s);
    free(s);
    ah_free(h);
    h = ah_new("bcube n=2 k=1", "h00");
    s = render(&h->e, "segments", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "mdcube routing: none, 0 segments\n");
    free(s);
    ah_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_ctl");
    TCase *tc = tcase_create("ctl");
    tcase_add_test(tc, requests_parse_and_bad_ones_are_refused);
    tcase_add_test(tc, status_and_neighbors_render);
    tcase_add_test(tc, paths_print_every_nha);
    tcase_add_test(tc, failures_render);
    tcase_add_test(tc, options_defaults_and_errors);
    tcase_add_test(tc, segments_render);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
