/* dcn-relay: moves one file-sized TCP stream through a tree of servers,
 * forwarding each chunk to the children as it arrives (docs/interfaces.md,
 * "dcn-relay"). Shared types of the sender, the receiver and the report. */
#ifndef DCN_RELAY_H
#define DCN_RELAY_H

#include <stdint.h>

#define RELAY_BUF_BYTES (256u * 1024u) /* one ring (recv) or pattern (send) buffer */
#define RELAY_MAX_PEERS 64             /* --to / --forward targets */
/* A sink's SO_RCVLOWAT: a few jumbo frames, and under half the initial
 * receive buffer (tcp_rmem[1], 128 KiB), so that the kernel neither grows
 * the buffer nor clamps the window for it. */
#define RELAY_SINK_LOWAT (32 * 1024)
#define RELAY_HOST_MAX 128
#define RELAY_ERROR_MAX 512
#define RELAY_DEFAULT_TIMEOUT_S 60.0

/* HOST:PORT or HOST:PORT:BYTES as given on the command line. */
typedef struct relay_endpoint {
    char host[RELAY_HOST_MAX]; /* without the brackets of [v6] */
    char port[6];              /* decimal, 1..65535 */
    uint64_t bytes;            /* --to only */
    char label[RELAY_HOST_MAX + 10]; /* "host:port" for messages and the report */
} relay_endpoint;

/* One outgoing stream: a sender's target or a receiver's forward target. */
typedef struct relay_peer {
    relay_endpoint ep;
    int fd;
    uint64_t bytes;            /* written so far */
    int64_t first_ms, last_ms; /* CLOCK_REALTIME ms of the first / last write; 0 = none */
    int64_t done_ms;           /* the peer closed after our end of stream; 0 = not yet */
    double first_mono, done_mono;
    int shut;                  /* our write side is shut down */
    char error[RELAY_ERROR_MAX]; /* empty: no error */
} relay_peer;

typedef enum { RELAY_SEND, RELAY_RECV } relay_mode;

typedef struct relay_opts {
    relay_mode mode;
    relay_peer peers[RELAY_MAX_PEERS]; /* --to (send) or --forward (recv) */
    int n_peers;
    char listen_port[6];
    const char *bind_addr;
    uint64_t expect; /* 0: not given */
    double timeout_s; /* idle timeout; 0: none */
    int json;
} relay_opts;

/* What one run measured, for the report. */
typedef struct relay_result {
    uint64_t bytes;                   /* received (recv) or sent in all (send) */
    int64_t first_ms, last_ms, done_ms; /* CLOCK_REALTIME ms; 0 = never */
    double first_mono, last_mono, done_mono;
    char upstream[RELAY_HOST_MAX + 10]; /* recv: the accepted peer */
    char error[RELAY_ERROR_MAX];        /* first error; empty: success */
} relay_result;

/* relay_args.c: parsers; each returns 0, or -1 with a one-line reason in err. */
int relay_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
int relay_parse_port(const char *s, char *out, char *err, size_t errlen);
int relay_parse_timeout(const char *s, double *out, char *err, size_t errlen);
/* with_bytes: HOST:PORT:BYTES, else HOST:PORT. IPv6 hosts in brackets. */
int relay_parse_endpoint(const char *s, int with_bytes, relay_endpoint *ep, char *err, size_t errlen);

/* relay_net.c */
int64_t relay_now_ms(void); /* CLOCK_REALTIME */
double relay_mono(void);    /* CLOCK_MONOTONIC seconds */
/* Connects (non-blocking socket returned), retrying while refused, for at
 * most timeout_s (0: forever). -1 with err filled on failure. */
int relay_connect(const relay_endpoint *ep, double timeout_s, char *err, size_t errlen);
/* Listening socket on bind_addr (NULL: any) and port; -1 with err. */
int relay_listen(const char *bind_addr, const char *port, char *err, size_t errlen);
/* Waits for one connection (timeout_s, 0: forever); returns it
 * non-blocking with the peer's "host:port" in peer, or -1 with err. */
int relay_accept(int lfd, double timeout_s, char *peer, size_t peerlen, char *err, size_t errlen);
/* poll() timeout in ms for an idle timeout (0 s: -1, forever). */
int relay_poll_ms(double timeout_s);
/* Waits for every peer with shut set and no done_ms to close its end (EOF),
 * which confirms that it took the whole stream. Fills done_ms / error. */
void relay_wait_peers_closed(relay_peer *peers, int n, double timeout_s);

/* Records a peer's error (the first one only), printf-style. */
void relay_peer_fail(relay_peer *pe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* recv's stream loop on a connected upstream socket (non-blocking) and the
 * connected o->peers: until end of stream and every target has every byte.
 * At most RELAY_BUF_BYTES are read ahead of the slowest target. Returns 0,
 * or -1 with res->error filled; res->bytes = bytes read. */
int relay_stream(relay_opts *o, int up, relay_result *res);

/* relay_send.c / relay_recv.c: return 0, or 1 with res->error filled. */
int relay_send(relay_opts *o, relay_result *res);
int relay_recv(relay_opts *o, relay_result *res);

/* relay_report.c: one JSON object (o->json) or one summary line on stdout. */
void relay_report(const relay_opts *o, const relay_result *res);

#endif
