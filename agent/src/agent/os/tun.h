/* The TUN device (dcn0): created with the tun driver, then configured
 * through libnl-3 route: address 10.x.y.z/8 (no prefix route), MTU, up,
 * and the route 10.0.0.0/8 dev dcn0. Closing the fd removes the device. */
#ifndef DCN_AGENT_TUN_H
#define DCN_AGENT_TUN_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TUN_VNET_HDR_LEN ((int)sizeof(struct virtio_net_hdr))

/* With offload, the device is opened with IFF_VNET_HDR and
 * TUNSETOFFLOAD(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO_ECN): every read and
 * write then starts with a TUN_VNET_HDR_LEN-byte struct virtio_net_hdr
 * (tun_offload.h undoes the kernel's side on reads).
 * Returns the non-blocking fd, or -1 with err filled. */
int tun_open(const char *name, uint32_t ip, unsigned mtu, bool offload, char *err, size_t errlen);
void tun_close(int fd);

#endif
