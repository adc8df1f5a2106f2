/* dcn-relay: a file-sized TCP stream through a tree of servers, forwarded
 * as it arrives. Usage in usage() and docs/interfaces.md. Exit status: 0,
 * 1 (short stream, connection error, timeout), 2 (bad usage). */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "relay.h"

#define EXIT_USAGE 2

static void usage(FILE *out)
{
    fputs("usage: dcn-relay send --to HOST:PORT:BYTES [--to ...] [--timeout S] [--json]\n"
          "       dcn-relay recv --listen PORT [--bind ADDR] [--forward HOST:PORT]... [--expect BYTES]\n"
          "                      [--timeout S] [--json]\n"
          "BYTES: a count with an optional binary suffix K, M, G, T (64M = 67108864).\n"
          "--timeout: seconds without progress before giving up (default 60; 0: never).\n"
          "Connections to a peer that is not listening yet are retried until the timeout.\n",
          out);
}

static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dcn-relay: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static const struct option long_opts[] = {
    {"to", required_argument, NULL, 't'},      {"forward", required_argument, NULL, 'f'},
    {"listen", required_argument, NULL, 'l'},  {"bind", required_argument, NULL, 'b'},
    {"expect", required_argument, NULL, 'e'},  {"timeout", required_argument, NULL, 'T'},
    {"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static const char *option_name(int val)
{
    for (const struct option *o = long_opts; o->name; o++)
        if (o->val == val)
            return o->name;
    return "?";
}

/* Parses argv after the mode word into o; returns 0, 1 for --help, or
 * EXIT_USAGE after one line on stderr. */
static int parse(int argc, char **argv, relay_opts *o)
{
    char err[RELAY_ERROR_MAX + RELAY_HOST_MAX];
    int seen[128] = {0}, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        if (c == ':')
            return bad_usage("option --%s needs a value", option_name(optopt));
        if (c == '?')
            return bad_usage("unknown option '%s' (--help for usage)", argv[optind - 1]);
        if (c == 'h')
            return 1;
        if (seen[c]++ && c != 't' && c != 'f')
            return bad_usage("option --%s given twice", option_name(c));
        int rc = 0;
        switch (c) {
        case 't':
        case 'f':
            if (o->n_peers == RELAY_MAX_PEERS)
                return bad_usage("at most %d --to / --forward targets", RELAY_MAX_PEERS);
            rc = relay_parse_endpoint(optarg, c == 't', &o->peers[o->n_peers++].ep, err, sizeof err);
            break;
        case 'l': rc = relay_parse_port(optarg, o->listen_port, err, sizeof err); break;
        case 'b': o->bind_addr = optarg; break;
        case 'e': rc = relay_parse_size(optarg, &o->expect, err, sizeof err); break;
        case 'T': rc = relay_parse_timeout(optarg, &o->timeout_s, err, sizeof err); break;
        case 'j': o->json = 1; break;
        }
        if (rc < 0)
            return bad_usage("--%s: %s", option_name(c), err);
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s' (--help for usage)", argv[optind]);
    if (o->mode == RELAY_RECV && seen['t'])
        return bad_usage("recv takes --forward HOST:PORT, not --to");
    static const int recv_only[] = {'f', 'l', 'b', 'e'};
    for (size_t i = 0; o->mode == RELAY_SEND && i < sizeof recv_only / sizeof recv_only[0]; i++)
        if (seen[recv_only[i]])
            return bad_usage("send takes no --%s (that is recv's)", option_name(recv_only[i]));
    if (o->mode == RELAY_SEND && o->n_peers == 0)
        return bad_usage("send needs at least one --to HOST:PORT:BYTES");
    if (o->mode == RELAY_RECV && !o->listen_port[0])
        return bad_usage("recv needs --listen PORT");
    return 0;
}

int main(int argc, char **argv)
{
    static relay_opts o; /* large: 64 peers */
    static relay_result res;
    if (argc < 2)
        return bad_usage("give a mode, send or recv (--help for usage)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "send") && strcmp(argv[1], "recv"))
        return bad_usage("unknown mode '%s' (send or recv)", argv[1]);
    o.mode = strcmp(argv[1], "send") ? RELAY_RECV : RELAY_SEND;
    o.timeout_s = RELAY_DEFAULT_TIMEOUT_S;
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc)
        return rc;
    for (int i = 0; i < o.n_peers; i++)
        o.peers[i].fd = -1;
    signal(SIGPIPE, SIG_IGN);
    rc = o.mode == RELAY_SEND ? relay_send(&o, &res) : relay_recv(&o, &res);
    relay_report(&o, &res);
    if (rc)
        fprintf(stderr, "dcn-relay: %s: %s\n", argv[1], res.error);
    return rc;
}
