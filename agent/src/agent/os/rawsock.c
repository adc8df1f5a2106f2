#include "rawsock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "agent/core/proto.h"
#include "prefault.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* ldh [12]; jeq #0x88b5, accept, drop */
static struct sock_filter dcn_filter[] = {
    {0x28, 0, 0, 12},
    {0x15, 0, 1, DCN_ETHERTYPE},
    {0x06, 0, 0, 0x0040000},
    {0x06, 0, 0, 0},
};

int rawsock_carrier(const char *ifname)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
    close(fd);
    if (rc < 0)
        return -1;
    return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

int rawsock_open(rawsock *s, const char *ifname, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    unsigned idx = if_nametoindex(ifname);
    if (!idx) {
        snprintf(err, errlen, "%s: no such interface", ifname);
        return -1;
    }
    s->ifindex = (int)idx;
    s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(DCN_ETHERTYPE));
    if (s->fd < 0) {
        snprintf(err, errlen, "%s: AF_PACKET socket: %s", ifname, strerror(errno));
        return -1;
    }
    struct sock_fprog prog = {.len = sizeof dcn_filter / sizeof dcn_filter[0], .filter = dcn_filter};
    int one = 1, buf = 8 << 20;
    if (setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0) {
        snprintf(err, errlen, "%s: attach BPF filter: %s", ifname, strerror(errno));
        goto fail;
    }
    (void)setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf) < 0)
        (void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf) < 0)
        (void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(DCN_ETHERTYPE);
    sll.sll_ifindex = s->ifindex;
    if (bind(s->fd, (struct sockaddr *)&sll, sizeof sll) < 0) {
        snprintf(err, errlen, "%s: bind: %s", ifname, strerror(errno));
        goto fail;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (ioctl(s->fd, SIOCGIFHWADDR, &ifr) < 0) {
        snprintf(err, errlen, "%s: get MAC: %s", ifname, strerror(errno));
        goto fail;
    }
    memcpy(s->mac, ifr.ifr_hwaddr.sa_data, 6);
    s->carrier = rawsock_carrier(ifname) == 1;
    s->slot = rawsock_slot_for_mtu(ioctl(s->fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0 ? (unsigned)ifr.ifr_mtu : 0);
    size_t bytes = (size_t)RAWSOCK_BATCH * s->slot;
    s->rbuf = malloc(bytes);
    s->tbuf = malloc(bytes);
    if (!s->rbuf || !s->tbuf) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* resident now, not page by page as batches get deeper (see rawsock.h) */
    prefault(s->rbuf, bytes);
    prefault(s->tbuf, bytes);
    for (unsigned i = 0; i < RAWSOCK_BATCH; i++) {
        s->riov[i].iov_base = s->rbuf + (size_t)i * s->slot;
        s->riov[i].iov_len = s->slot;
        s->rmsg[i].msg_hdr.msg_iov = &s->riov[i];
        s->rmsg[i].msg_hdr.msg_iovlen = 1;
        s->rmsg[i].msg_hdr.msg_name = &s->rfrom[i];
        s->rmsg[i].msg_hdr.msg_namelen = sizeof s->rfrom[i];
        s->tiov[i].iov_base = s->tbuf + (size_t)i * s->slot;
        s->tmsg[i].msg_hdr.msg_iov = &s->tiov[i];
        s->tmsg[i].msg_hdr.msg_iovlen = 1;
    }
    return 0;
fail:
    rawsock_close(s);
    return -1;
}

void rawsock_close(rawsock *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->rbuf);
    free(s->tbuf);
    s->rbuf = s->tbuf = NULL;
}

size_t rawsock_slot_for_mtu(unsigned mtu)
{
    if (mtu == 0 || mtu > RAWSOCK_SLOT - RAWSOCK_L2_ROOM)
        return RAWSOCK_SLOT;
    return ((size_t)mtu + RAWSOCK_L2_ROOM + 63) & ~(size_t)63;
}

int rawsock_recv_batch(rawsock *s)
{
    for (unsigned i = 0; i < RAWSOCK_BATCH; i++) {
        s->riov[i].iov_len = s->slot;
        s->rmsg[i].msg_hdr.msg_namelen = sizeof s->rfrom[i];
    }
    int n = recvmmsg(s->fd, s->rmsg, RAWSOCK_BATCH, MSG_DONTWAIT, NULL);
    return n < 0 ? 0 : n;
}

void rawsock_flush(rawsock *s)
{
    unsigned sent = 0;
    while (sent < s->tn) {
        int n = sendmmsg(s->fd, s->tmsg + sent, s->tn - sent, MSG_DONTWAIT);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno != EAGAIN && errno != ENOBUFS) {
                /* this one frame is refused (size, link gone): skip it */
                s->tx_dropped++;
                sent++;
                continue;
            }
            /* queue full: the rest is lost, like a NIC drop */
            s->tx_dropped += s->tn - sent;
            break;
        }
        sent += (unsigned)n;
    }
    s->tn = 0;
}

int rawsock_queue(rawsock *s, const uint8_t *frame, size_t len)
{
    if (s->fd < 0 || len > s->slot)
        return -1;
    if (s->tn == RAWSOCK_BATCH)
        rawsock_flush(s);
    memcpy(s->tiov[s->tn].iov_base, frame, len);
    s->tiov[s->tn].iov_len = len;
    s->tn++;
    return 0;
}
