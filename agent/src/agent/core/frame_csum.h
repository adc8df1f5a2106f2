/* A received DCN data frame whose transport checksum the sending kernel
 * left partial.
 *
 * With --data-path kernel a server's kernel sends its TCP and UDP packets
 * as it got them from its stack: with the checksum "partial" (only the
 * pseudo header's sum in the field), as for a device that checksums in
 * hardware. Over Linux bridges with the veths' checksum offload on, such a
 * frame stays partial all the way, which the kernels along the path and at
 * the end accept. The frame only goes wrong when an agent takes it (a relay
 * or destination whose kernel hands it over): a packet socket's send and a
 * TUN write without a virtio-net header make a frame whose checksum is
 * taken as it is, and the destination's TCP drops it. The packet socket
 * says which frames came partial (TP_STATUS_CSUMNOTREADY, rawsock.h); the
 * agent completes their checksum here before it relays or delivers them,
 * as the kernel's skb_checksum_help would.
 *
 * Pure code on one frame: no I/O, no allocation. */
#ifndef DCN_AGENT_FRAME_CSUM_H
#define DCN_AGENT_FRAME_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* frame: len bytes from the Ethernet header on. Completes the TCP or UDP
 * checksum of the IPv4 packet a DCN data frame carries (any header the
 * agent decodes, MDCube's included). 0 when it was written; -1, the frame
 * untouched, when the frame is not a whole DCN data frame carrying an
 * unfragmented TCP or UDP packet over IPv4: the engine then judges it as
 * it is. */
int dcn_frame_complete_l4_csum(uint8_t *frame, size_t len);

#endif
