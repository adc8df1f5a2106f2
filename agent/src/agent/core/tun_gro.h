/* Receive offload towards the TUN device: consecutive TCP/IPv4 segments of
 * one connection that arrive in one receive batch are handed to the kernel
 * as one segment of up to 64 KB (IFF_VNET_HDR, gso_type TCPV4), so that the
 * local TCP works per batch instead of per packet. This is the merge a NIC's
 * GRO/LRO does; the rules are the kernel's tcp_gro_receive rules: same
 * addresses, ports, IP header fields, TCP header length, options, ACK and
 * window; each segment's sequence number follows on; every held segment but
 * the last carries exactly gso_size bytes and only ACK among its flags (PSH
 * may end the train). Each segment's TCP checksum is verified before it is
 * merged, because the merged segment is handed over as already checked
 * (CHECKSUM_PARTIAL): a segment with a bad checksum goes to the kernel alone,
 * which drops it.
 *
 * Zero copy: the held segments stay in the receive buffers they arrived in
 * and go out with one writev; the caller flushes before those buffers are
 * reused. Pure code: no I/O, no allocation. */
#ifndef DCN_AGENT_TUN_GRO_H
#define DCN_AGENT_TUN_GRO_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define TUN_GRO_MAX_SEGS 64
#define TUN_GRO_MAX_BYTES 65535 /* the merged IPv4 packet */

typedef struct tun_gro {
    struct virtio_net_hdr vh;
    uint8_t hdr[120];   /* the merged packet's IPv4 + TCP headers */
    unsigned ihl, hl;   /* header lengths of the held segments */
    unsigned n;         /* segments held */
    size_t mss;         /* payload of the first held segment */
    size_t payload;     /* held payload bytes */
    uint32_t next_seq;  /* sequence number the next segment must carry */
    bool closed;        /* the last held segment ended the train (PSH, or short) */
    bool psh;           /* ... with PSH, which the merged header then carries */
    struct iovec iov[2 + TUN_GRO_MAX_SEGS]; /* vh, headers, then each payload */
    uint64_t merged;    /* segments merged into another one, for counters */
} tun_gro;

enum tun_gro_verdict {
    TUN_GRO_HELD,  /* taken: appended to the held train, or the start of a new one */
    TUN_GRO_FLUSH, /* it could start a train but cannot join this one: flush, then offer it again */
    TUN_GRO_ALONE, /* never merged (not TCP data, a flag, a bad checksum): flush, then write it alone */
};
/* Offers one IPv4 packet that is to be written to TUN, len its total length. */
enum tun_gro_verdict tun_gro_offer(tun_gro *g, const uint8_t *ip, size_t len);
/* Prepares the held train for one writev: returns the iovec count (0 when
 * nothing is held) with *iov set; the train is then empty. A single held
 * segment goes out unchanged behind a plain header. */
int tun_gro_take(tun_gro *g, struct iovec **iov);

#endif
