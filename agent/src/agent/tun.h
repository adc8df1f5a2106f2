/* The TUN device (dcn0): created with the tun driver, then configured
 * through libnl-3 route: address 10.x.y.z/8 (no prefix route), MTU, up,
 * and the route 10.0.0.0/8 dev dcn0. Closing the fd removes the device. */
#ifndef DCN_AGENT_TUN_H
#define DCN_AGENT_TUN_H

#include <stddef.h>
#include <stdint.h>

/* Returns the non-blocking fd, or -1 with err filled. */
int tun_open(const char *name, uint32_t ip, unsigned mtu, char *err, size_t errlen);
void tun_close(int fd);

#endif
