/* The kernel's side of TUN offloads (IFF_VNET_HDR), undone in user space.
 *
 * With TUNSETOFFLOAD(TUN_F_CSUM | TUN_F_TSO4) the kernel's TCP hands the
 * agent segments of up to 64 KB (GSO) with one virtio-net header in front,
 * and leaves transport checksums partial. On the wire every frame must still
 * be one ordinary IPv4 packet of at most the MTU, so before the engine sees
 * a packet it is cut here into MSS-sized TCP segments with full checksums,
 * or its partial checksum is completed. This is what the NIC would do in
 * hardware; the kernel's TCP then works per 64 KB instead of per packet.
 *
 * Pure code on one buffer: no I/O, no allocation. */
#ifndef DCN_AGENT_TUN_OFFLOAD_H
#define DCN_AGENT_TUN_OFFLOAD_H

#include <linux/virtio_net.h>
#include <stddef.h>
#include <stdint.h>

/* Called once per packet: the IPv4 packet is at buf + headroom, len bytes,
 * and the headroom before it may be written. */
typedef void (*tun_emit_fn)(void *ctx, uint8_t *buf, size_t len);

/* The packet read after the virtio-net header vh is at buf + headroom, len
 * bytes; the whole buffer is writable. Emits the packet (its checksum
 * completed when vh asks for it) or, for TCP/IPv4 GSO, each segment in
 * turn. The segments are cut in place: segment i's headers are written over
 * the tail of segment i-1, so emit must be done with a packet when it
 * returns (the engine copies each frame into a port's send batch).
 * Returns the number of packets emitted, or -1 for a header that is not
 * one of the kernel's (nothing is emitted then). */
int tun_offload_in(const struct virtio_net_hdr *vh, uint8_t *buf, size_t headroom, size_t len, tun_emit_fn emit,
                   void *ctx);

/* Largest TCP/IPv4 segment the agent accepts: the IPv4 maximum */
#define TUN_OFFLOAD_MAX 65535

#endif
