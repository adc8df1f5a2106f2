/* One AF_PACKET socket per server port, bound to its interface, with a
 * classic BPF filter for EtherType 0x88B5 and outgoing frames ignored.
 * Receives in batches, either with recvmmsg() into buffers allocated once,
 * or (--rx-ring N) from a TPACKET_V2 receive ring of N frames mapped into
 * the agent, which saves the system call and the socket-queue work per
 * frame. Sends in batches with sendmmsg() from a queue of preallocated
 * slots, or of references to frames that stay put until the flush (relayed
 * frames, sent from the receive batch they came in). */
#ifndef DCN_AGENT_RAWSOCK_H
#define DCN_AGENT_RAWSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_packet.h>

#define RAWSOCK_BATCH 32
#define RAWSOCK_SLOT 9728 /* the largest slot: one frame of up to MTU 9000 plus headers */
#define RAWSOCK_L2_ROOM 64 /* a slot holds the port's MTU plus this (Ethernet header, tags) */

typedef struct rawsock {
    int fd;
    int ifindex;
    uint8_t mac[6];
    bool carrier;
    struct mmsghdr rmsg[RAWSOCK_BATCH];
    struct iovec riov[RAWSOCK_BATCH];
    struct sockaddr_ll rfrom[RAWSOCK_BATCH]; /* sll_pkttype: PACKET_OTHERHOST is skipped */
    /* frame i came with its transport checksum left partial by the kernel
     * that sent it (TP_STATUS_CSUMNOTREADY; core/frame_csum.h) */
    bool rcsum_partial[RAWSOCK_BATCH];
    /* recvmmsg's control data: each frame's PACKET_AUXDATA */
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
    } rctl[RAWSOCK_BATCH];
    uint8_t *rbuf;
    struct mmsghdr tmsg[RAWSOCK_BATCH];
    struct iovec tiov[RAWSOCK_BATCH];
    uint8_t *tbuf;
    size_t slot;         /* bytes per frame slot, from the port's MTU (rawsock_slot_for_mtu) */
    /* the receive ring (rx_ring_frames > 0), else NULL */
    uint8_t *ring;
    size_t ring_bytes, ring_frame;
    unsigned ring_frames, ring_per_block;
    unsigned ring_head;  /* the next frame to look at */
    unsigned ring_taken; /* frames handed out by the last rawsock_recv_batch */
    uint64_t rx_truncated; /* ring frames longer than a slot, dropped */
    unsigned tn;         /* frames queued */
    uint64_t tx_dropped; /* frames the kernel refused */
} rawsock;

/* The slot size for a port of this MTU: MTU + RAWSOCK_L2_ROOM rounded up to
 * 64 bytes, at most RAWSOCK_SLOT (also when the MTU is unknown, 0). */
size_t rawsock_slot_for_mtu(unsigned mtu);
#define RAWSOCK_RING_MAX 65536 /* --rx-ring: at most this many frames per port */

/* Opens and binds; fills ifindex, mac, carrier and slot. The batch buffers
 * are sized from the port's MTU and written once here, so their pages are
 * resident from the start: no page is first touched (a kernel allocation)
 * on the forwarding path, and the agent's resident size does not creep as
 * deeper batches arrive. rx_ring_frames > 0 receives through a TPACKET_V2
 * ring of at least that many frames (rounded up to whole blocks) instead of
 * recvmmsg(); 0 keeps recvmmsg(). -1 with err filled. */
int rawsock_open(rawsock *s, const char *ifname, unsigned rx_ring_frames, char *err, size_t errlen);
void rawsock_close(rawsock *s);
/* Receives up to RAWSOCK_BATCH frames; frame i is s->riov[i].iov_base with
 * s->rmsg[i].msg_len bytes, and s->rfrom[i].sll_pkttype says to whom it
 * was sent, and s->rcsum_partial[i] whether its transport checksum is yet
 * to be completed. Returns the count (0 when nothing waits). The frames stay valid
 * until rawsock_recv_done(), which must come before the next batch and
 * before the agent waits again: a ring frame not given back keeps the
 * socket readable. */
int rawsock_recv_batch(rawsock *s);
/* Gives the last batch's frames back (ring frames to the kernel). */
void rawsock_recv_done(rawsock *s);
/* Copies a frame into the send queue, flushing when the queue is full. */
int rawsock_queue(rawsock *s, const uint8_t *frame, size_t len);
/* Queues a reference to the frame instead of a copy: the caller keeps the
 * frame's bytes unchanged until this socket's next rawsock_flush (a relayed
 * frame, still in the receive batch it came in). */
int rawsock_queue_ref(rawsock *s, const uint8_t *frame, size_t len);
/* Sends everything queued. */
void rawsock_flush(rawsock *s);
/* Current carrier (IFF_RUNNING) of an interface by name, -1 when absent. */
int rawsock_carrier(const char *ifname);

#endif
