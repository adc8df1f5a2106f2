/* The DCN header: between Ethernet (EtherType 0x88B5) and IP. Byte layout
 * in docs/protocol.md; all multi-byte fields are big-endian. Its constants
 * (EtherType, offsets, types, flags) are defined once, in wire.h, which the
 * kernel relay (relay.bpf.c) includes too.
 *
 *  off len field
 *   0   1  version (1)
 *   1   1  type (data, probe, probe response, path failure, hello)
 *   2   1  flags (bit 0: MDCube extension follows the NHA array;
 *                 bit 1: segmented, the NHA path may end before dst)
 *   3   1  nhops: number of NHAs = server hops of the path
 *   4   4  src server address
 *   8   4  dst server address
 *  12   2  packet id
 *  14   2  protocol type of the payload (0x0800 IPv4 for data, 0 for control)
 *  16   2  payload length (bytes after the header)
 *  18   2  header checksum (Internet checksum over the whole header)
 *  20   1  NHI: index of the NHA the current holder uses
 *  21   3  reserved, zero
 *  24   4  available bandwidth, Mb/s (probe and probe response; 0 otherwise)
 *  28   N  NHA array, N = max(8, nhops rounded up to 4): 36 bytes for <= 8 hops
 *  MDCube extension (flags bit 0), after the NHA array:
 *   +0  1  number of containers listed (<= DCN_MAX_CONTAINERS)
 *   +1  1  index of the next container to reach
 *   +2  1  segment start: NHA index of the server that wrote the current
 *          segment (0 = the source); zero unless segmented
 *   +3  1  reserved, zero
 *   +4  4  flow id
 *   +8 4*c container ids chosen by the source
 */
#ifndef DCN_AGENT_PROTO_H
#define DCN_AGENT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define DCN_MAX_HOPS 255
#define DCN_MAX_CONTAINERS 16
#define DCN_HDR_MAX (DCN_HDR_FIXED + 256 + 8 + 4 * DCN_MAX_CONTAINERS)
#define DCN_BROADCAST_ADDR 0xFFFFFFFFu

/* A decoded header. nha points into the decoded buffer (decode) or at the
 * caller's array (encode). */
typedef struct dcn_hdr {
    uint8_t version, type, flags, nhops, nhi;
    uint32_t src, dst;
    uint16_t pkt_id, proto, payload_len, csum;
    uint32_t avail_mbps;
    const uint8_t *nha;
    /* MDCube extension, valid when flags & DCN_FLAG_MDCUBE */
    uint8_t n_containers, container_idx;
    uint8_t seg_start; /* segmented: NHA index of the current segment's writer */
    uint32_t flow_id;
    uint32_t container[DCN_MAX_CONTAINERS];
} dcn_hdr;

typedef enum {
    DCN_DEC_OK = 0,
    DCN_DEC_TRUNCATED,
    DCN_DEC_BAD_VERSION,
    DCN_DEC_BAD_CHECKSUM,
    DCN_DEC_BAD_EXTENSION,
} dcn_dec_result;

static inline uint16_t dcn_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t dcn_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t dcn_get64(const uint8_t *p) { return (uint64_t)dcn_get32(p) << 32 | dcn_get32(p + 4); }
static inline void dcn_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void dcn_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void dcn_put64(uint8_t *p, uint64_t v)
{
    dcn_put32(p, (uint32_t)(v >> 32));
    dcn_put32(p + 4, (uint32_t)v);
}

/* Bytes of the NHA array for nhops hops. */
static inline size_t dcn_nha_bytes(unsigned nhops)
{
    size_t n = ((size_t)nhops + 3u) & ~(size_t)3u;
    return n < 8 ? 8 : n;
}
/* Header length implied by nhops and flags (the extension's container count
 * is read separately). */
size_t dcn_hdr_len(const dcn_hdr *h);

/* Writes h into buf (at most cap bytes) with a fresh checksum and returns
 * the header length, or 0 when it does not fit or a field is out of range. */
size_t dcn_hdr_encode(const dcn_hdr *h, uint8_t *buf, size_t cap);
/* Decodes the header at buf (len bytes available, the header and payload).
 * Checks version, lengths and the checksum. *hlen gets the header length. */
dcn_dec_result dcn_hdr_decode(const uint8_t *buf, size_t len, dcn_hdr *h, size_t *hlen);

/* In-place changes on an encoded header, with incremental checksum update. */
void dcn_hdr_set_nhi(uint8_t *hdr, uint8_t nhi);
void dcn_hdr_set_avail(uint8_t *hdr, uint32_t avail_mbps);

const char *dcn_type_name(uint8_t type);

/* Control payloads (after the header). */
#define DCN_PROBE_PAYLOAD 20 /* seq(4) src_ip(4) dst_ip(4) sport(2) dport(2) proto(1) pad(3) */
#define DCN_FAIL_PAYLOAD 12  /* node_a(4) node_b(4) orig_type(1) pad(1) orig_pkt_id(2) */
#define DCN_UNREACH_PAYLOAD 16 /* flow_id(4) orig_dst(4) from_container(4) to_container(4) */
#define DCN_HELLO_PAYLOAD 16 /* sender port(1) flags(1) hello interval ms(2) reserved(4) heard set(8) */
#define DCN_HELLO_PAYLOAD_MIN 8 /* a hello without the heard set (flags bit 0 clear) */
#define DCN_HELLO_F_HEARD 0x01  /* the heard set is present: bit i, the sender's port hears its neighbour i */

#endif
