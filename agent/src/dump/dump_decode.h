/* dcn-dump's view of one captured frame: the agent's codec (proto.h) and
 * NHA walk (nha.h) applied to untrusted bytes, with every way a frame can
 * be malformed named by one short token. The Wireshark dissector
 * (tools/wireshark/dcn.lua) uses the same tokens, checked in the same
 * order, so the two decoders can be compared field by field:
 *
 *   truncated, bad-version, bad-extension, bad-checksum   (the codec)
 *   unknown-type, nhi-beyond-path, nhi-zero               (the header)
 *   bad-src, not-neighbor, loop, wrong-dst                 (the path; --topo only)
 */
#ifndef DCN_DUMP_DECODE_H
#define DCN_DUMP_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/nha.h"
#include "agent/core/proto.h"
#include "topo/path.h"
#include "topo/topo.h"

typedef enum { DUMP_DCN = 0, DUMP_NOT_DCN } dump_kind;

typedef struct dump_inner {
    bool present; /* an IPv4 header was found in a data payload */
    uint32_t src, dst;
    uint8_t proto;
    bool has_ports; /* TCP/UDP, unfragmented, ports captured */
    uint16_t sport, dport;
} dump_inner;

typedef struct dump_frame {
    dump_kind kind;
    uint16_t ethertype;
    size_t caplen;
    const char *malformed; /* NULL, or the reason token */
    bool have_fields;      /* the fixed header fields below are meaningful */
    bool have_ext;         /* the MDCube extension fields are meaningful */
    bool csum_checked, csum_ok;
    dcn_hdr h;
    size_t hlen;
    const uint8_t *payload; /* at the header's end when the header is complete, else NULL */
    size_t payload_avail;
    bool walked; /* path resolved over the topology */
    dcn_path path;
    dump_inner inner;
} dump_frame;

/* Decodes an Ethernet frame of caplen captured bytes. t may be NULL (no
 * topology: NHAs stay raw). Never reads beyond caplen. */
void dump_decode(const dcn_topo *t, const uint8_t *frame, size_t caplen, dump_frame *out);

/* The path as text, with the hop the frame is on marked: with a topology,
 * the servers ("h00,[h01],h11": the frame travels to server NHI); without,
 * the raw NHAs as port/index ("[0/1],1/1": NHA[NHI-1] is the hop being
 * crossed). numeric: server ids instead of names. "-" for an empty path. */
void dump_path_text(const dcn_topo *t, const dump_frame *f, bool numeric, char *buf, size_t len);

/* A server address as text: its name, or its number (numeric, no topology,
 * or not a server); "*" for the broadcast address of hellos. */
void dump_addr_text(const dcn_topo *t, uint32_t addr, bool numeric, char *buf, size_t len);

#endif
