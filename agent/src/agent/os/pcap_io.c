#include "pcap_io.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define SNAPLEN 65535

struct pcap_writer {
    pcap_t *dead;
    pcap_dumper_t *dump;
};

pcap_writer *pcapw_open(const char *path, char *err, size_t errlen)
{
    pcap_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->dead = pcap_open_dead(DLT_EN10MB, SNAPLEN);
    if (!w->dead) {
        snprintf(err, errlen, "pcap_open_dead failed");
        free(w);
        return NULL;
    }
    w->dump = pcap_dump_open(w->dead, path);
    if (!w->dump) {
        snprintf(err, errlen, "cannot write %s: %s", path, pcap_geterr(w->dead));
        pcap_close(w->dead);
        free(w);
        return NULL;
    }
    return w;
}

void pcapw_write(pcap_writer *w, const uint8_t *frame, size_t len, uint64_t ts_us)
{
    struct pcap_pkthdr h;
    memset(&h, 0, sizeof h);
    if (ts_us == 0) {
        gettimeofday(&h.ts, NULL);
    } else {
        h.ts.tv_sec = (time_t)(ts_us / 1000000);
        h.ts.tv_usec = (suseconds_t)(ts_us % 1000000);
    }
    h.len = (bpf_u_int32)len;
    h.caplen = (bpf_u_int32)(len < SNAPLEN ? len : SNAPLEN);
    pcap_dump((u_char *)w->dump, &h, frame);
}

void pcapw_flush(pcap_writer *w)
{
    if (w)
        pcap_dump_flush(w->dump);
}

void pcapw_close(pcap_writer *w)
{
    if (!w)
        return;
    pcap_dump_close(w->dump);
    pcap_close(w->dead);
    free(w);
}

long pcap_replay(const char *path, pcap_frame_fn fn, void *ctx, char *err, size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline(path, perr);
    if (!p) {
        snprintf(err, errlen, "cannot read %s: %s", path, perr);
        return -1;
    }
    uint8_t *buf = malloc(SNAPLEN);
    if (!buf) {
        pcap_close(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    long n = 0;
    struct pcap_pkthdr *h;
    const u_char *data;
    int rc;
    while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
        size_t len = h->caplen < SNAPLEN ? h->caplen : SNAPLEN;
        memcpy(buf, data, len);
        fn(ctx, buf, len);
        n++;
    }
    if (rc == -1) {
        snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
        n = -1;
    }
    free(buf);
    pcap_close(p);
    return n;
}
