#include "frame_csum.h"

#include <stdbool.h>

#include "csum.h"
#include "proto.h"

#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17

int dcn_frame_complete_l4_csum(uint8_t *frame, size_t len)
{
    if (len < DCN_ETH_HLEN + DCN_HDR_BASE || dcn_get16(frame + 12) != DCN_ETHERTYPE)
        return -1;
    dcn_hdr h;
    size_t hlen;
    if (dcn_hdr_decode(frame + DCN_ETH_HLEN, len - DCN_ETH_HLEN, &h, &hlen) != DCN_DEC_OK ||
        h.type != DCN_T_DATA || h.proto != DCN_PROTO_IPV4 || h.payload_len > len - DCN_ETH_HLEN - hlen)
        return -1;
    uint8_t *ip = frame + DCN_ETH_HLEN + hlen;
    size_t room = h.payload_len;
    if (room < 20 || (ip[0] >> 4) != 4)
        return -1;
    size_t ihl = (ip[0] & 15u) * 4u, tot = dcn_get16(ip + 2);
    if (ihl < 20 || tot > room || (dcn_get16(ip + 6) & 0x3fff))
        return -1; /* a fragment's checksum is never left partial */
    switch (ip[9]) {
    case IP_PROTO_TCP:
        return tot < ihl + 20 ? -1 : csum_complete_partial(ip, tot, ihl, ihl + 16, false);
    case IP_PROTO_UDP:
        return tot < ihl + 8 ? -1 : csum_complete_partial(ip, tot, ihl, ihl + 6, true);
    default:
        return -1;
    }
}
