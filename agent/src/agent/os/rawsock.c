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
#include <sys/mman.h>
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

#define RING_BLOCK (64u << 10) /* bytes per ring block; a frame never straddles two */

static uint8_t *ring_frame(const rawsock *s, unsigned i)
{
    return s->ring + (size_t)(i / s->ring_per_block) * RING_BLOCK + (size_t)(i % s->ring_per_block) * s->ring_frame;
}

/* The TPACKET_V2 receive ring: at least `want` frames of one slot each
 * (after the ring's own header), in whole blocks, mapped here. The kernel
 * allocates and zeroes it, so it is resident from the start. */
static int ring_open(rawsock *s, const char *ifname, unsigned want, char *err, size_t errlen)
{
    int version = TPACKET_V2;
    if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) < 0) {
        snprintf(err, errlen, "%s: PACKET_VERSION TPACKET_V2: %s", ifname, strerror(errno));
        return -1;
    }
    /* the frame's data starts at TPACKET_ALIGN(header + 16) (the kernel's
     * netoff for a 14-byte Ethernet header); one slot of data after it */
    size_t frame = TPACKET_ALIGN(TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + s->slot);
    unsigned per_block = (unsigned)(RING_BLOCK / frame);
    unsigned blocks = (want + per_block - 1) / per_block;
    struct tpacket_req req = {.tp_block_size = RING_BLOCK, .tp_block_nr = blocks,
                              .tp_frame_size = (unsigned)frame, .tp_frame_nr = blocks * per_block};
    if (setsockopt(s->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) {
        snprintf(err, errlen, "%s: PACKET_RX_RING of %u frames: %s", ifname, req.tp_frame_nr, strerror(errno));
        return -1;
    }
    size_t bytes = (size_t)RING_BLOCK * blocks;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "%s: mmap of the receive ring (%zu bytes): %s", ifname, bytes, strerror(errno));
        return -1;
    }
    s->ring = m;
    s->ring_bytes = bytes;
    s->ring_frame = frame;
    s->ring_per_block = per_block;
    s->ring_frames = req.tp_frame_nr;
    return 0;
}

int rawsock_open(rawsock *s, const char *ifname, unsigned rx_ring_frames, char *err, size_t errlen)
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
    /* with recvmmsg, which frames came with a partial checksum (the ring's
     * frames say it in their own header) */
    if (setsockopt(s->fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one) < 0) {
        snprintf(err, errlen, "%s: PACKET_AUXDATA: %s", ifname, strerror(errno));
        goto fail;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    s->slot = rawsock_slot_for_mtu(ioctl(s->fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0 ? (unsigned)ifr.ifr_mtu : 0);
    if (rx_ring_frames > RAWSOCK_RING_MAX) {
        snprintf(err, errlen, "%s: receive ring of %u frames: at most %u", ifname, rx_ring_frames, RAWSOCK_RING_MAX);
        goto fail;
    }
    /* before bind, so that no frame waits in the socket queue beside the ring */
    if (rx_ring_frames && ring_open(s, ifname, rx_ring_frames, err, errlen) < 0)
        goto fail;
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
    if (ioctl(s->fd, SIOCGIFHWADDR, &ifr) < 0) {
        snprintf(err, errlen, "%s: get MAC: %s", ifname, strerror(errno));
        goto fail;
    }
    memcpy(s->mac, ifr.ifr_hwaddr.sa_data, 6);
    s->carrier = rawsock_carrier(ifname) == 1;
    size_t bytes = (size_t)RAWSOCK_BATCH * s->slot;
    s->rbuf = s->ring ? NULL : malloc(bytes); /* the ring is the receive buffer */
    s->tbuf = malloc(bytes);
    if ((!s->ring && !s->rbuf) || !s->tbuf) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* resident now, not page by page as batches get deeper (see rawsock.h) */
    if (s->rbuf)
        prefault(s->rbuf, bytes);
    prefault(s->tbuf, bytes);
    for (unsigned i = 0; i < RAWSOCK_BATCH; i++) {
        s->riov[i].iov_base = s->rbuf ? s->rbuf + (size_t)i * s->slot : NULL;
        s->riov[i].iov_len = s->slot;
        s->rmsg[i].msg_hdr.msg_iov = &s->riov[i];
        s->rmsg[i].msg_hdr.msg_iovlen = 1;
        s->rmsg[i].msg_hdr.msg_name = &s->rfrom[i];
        s->rmsg[i].msg_hdr.msg_namelen = sizeof s->rfrom[i];
        s->rmsg[i].msg_hdr.msg_control = s->rctl[i].buf;
        s->rmsg[i].msg_hdr.msg_controllen = sizeof s->rctl[i].buf;
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
    if (s->ring)
        munmap(s->ring, s->ring_bytes);
    s->ring = NULL;
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

/* Frames the kernel has filled, from ring_head on, up to one batch. A
 * frame is checked before it is handed out: its data must lie inside it,
 * and a frame cut short by the ring (longer than a slot) is dropped. */
static int ring_recv_batch(rawsock *s)
{
    int n = 0;
    s->ring_taken = 0;
    unsigned most = s->ring_frames < RAWSOCK_BATCH ? s->ring_frames : RAWSOCK_BATCH;
    while (s->ring_taken < most) {
        uint8_t *f = ring_frame(s, (s->ring_head + s->ring_taken) % s->ring_frames);
        struct tpacket2_hdr *h = (struct tpacket2_hdr *)f;
        uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
        if (!(status & TP_STATUS_USER))
            break;
        s->ring_taken++;
        if (h->tp_snaplen != h->tp_len || (size_t)h->tp_mac + h->tp_snaplen > s->ring_frame ||
            h->tp_mac < TPACKET2_HDRLEN) {
            s->rx_truncated++;
            continue;
        }
        const struct sockaddr_ll *sll = (const struct sockaddr_ll *)(f + TPACKET_ALIGN(sizeof *h));
        s->riov[n].iov_base = f + h->tp_mac;
        s->rmsg[n].msg_len = h->tp_snaplen;
        s->rfrom[n].sll_pkttype = sll->sll_pkttype;
        s->rcsum_partial[n] = (status & TP_STATUS_CSUMNOTREADY) != 0;
        n++;
    }
    if (s->ring_taken == 0) {
        /* woken with no frame: a pending socket error (ENETDOWN when the
         * port went down) keeps the socket readable until it is read, and
         * nothing else reads it in ring mode */
        int e;
        socklen_t el = sizeof e;
        (void)getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &el);
    }
    return n;
}

/* The frame's PACKET_AUXDATA says its checksum is partial; a frame
 * without one (a cut control buffer) is taken as complete. */
static bool csum_not_ready(struct msghdr *m)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct tpacket_auxdata))) {
            struct tpacket_auxdata aux;
            memcpy(&aux, CMSG_DATA(c), sizeof aux);
            return (aux.tp_status & TP_STATUS_CSUMNOTREADY) != 0;
        }
    }
    return false;
}

void rawsock_recv_done(rawsock *s)
{
    if (!s->ring)
        return;
    for (unsigned i = 0; i < s->ring_taken; i++) {
        struct tpacket2_hdr *h = (struct tpacket2_hdr *)ring_frame(s, (s->ring_head + i) % s->ring_frames);
        __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    }
    s->ring_head = (s->ring_head + s->ring_taken) % s->ring_frames;
    s->ring_taken = 0;
}

int rawsock_recv_batch(rawsock *s)
{
    if (s->ring)
        return ring_recv_batch(s);
    for (unsigned i = 0; i < RAWSOCK_BATCH; i++) {
        s->riov[i].iov_len = s->slot;
        s->rmsg[i].msg_hdr.msg_namelen = sizeof s->rfrom[i];
        s->rmsg[i].msg_hdr.msg_controllen = sizeof s->rctl[i].buf;
    }
    int n = recvmmsg(s->fd, s->rmsg, RAWSOCK_BATCH, MSG_DONTWAIT, NULL);
    for (int i = 0; i < n; i++)
        s->rcsum_partial[i] = csum_not_ready(&s->rmsg[i].msg_hdr);
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

/* The next send-queue entry for a frame of len bytes, its length set (the
 * queue flushed first when full), or NULL when the socket is closed or the
 * frame longer than a slot. Its iov_base is the caller's to set. */
static struct iovec *queue_entry(rawsock *s, size_t len)
{
    if (s->fd < 0 || len > s->slot)
        return NULL;
    if (s->tn == RAWSOCK_BATCH)
        rawsock_flush(s);
    struct iovec *v = &s->tiov[s->tn++];
    v->iov_len = len;
    return v;
}

int rawsock_queue(rawsock *s, const uint8_t *frame, size_t len)
{
    struct iovec *v = queue_entry(s, len);
    if (!v)
        return -1;
    /* the entry's own slot: it may have held a reference before */
    v->iov_base = s->tbuf + (size_t)(v - s->tiov) * s->slot;
    memcpy(v->iov_base, frame, len);
    return 0;
}

int rawsock_queue_ref(rawsock *s, const uint8_t *frame, size_t len)
{
    struct iovec *v = queue_entry(s, len);
    if (!v)
        return -1;
    v->iov_base = (void *)(uintptr_t)frame; /* only read, by sendmmsg */
    return 0;
}
