#include "tun.h"

#include "ipv6_off.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef IFA_F_NOPREFIXROUTE
#define IFA_F_NOPREFIXROUTE 0x200
#endif

static int configure(struct nl_sock *sk, const char *name, uint32_t ip, unsigned mtu, char *err, size_t errlen)
{
    struct rtnl_link *link = NULL, *change = NULL;
    struct rtnl_addr *addr = NULL;
    struct nl_addr *local = NULL, *dst = NULL;
    struct rtnl_route *route = NULL;
    int rc = -1, e;
    if ((e = rtnl_link_get_kernel(sk, 0, name, &link)) < 0) {
        snprintf(err, errlen, "tun %s: %s", name, nl_geterror(e));
        goto out;
    }
    int ifindex = rtnl_link_get_ifindex(link);
    change = rtnl_link_alloc();
    rtnl_link_set_mtu(change, mtu);
    rtnl_link_set_flags(change, IFF_UP);
    if ((e = rtnl_link_change(sk, link, change, 0)) < 0) {
        snprintf(err, errlen, "tun %s: set mtu %u / up: %s", name, mtu, nl_geterror(e));
        goto out;
    }
    uint32_t be = htonl(ip);
    local = nl_addr_build(AF_INET, &be, 4);
    nl_addr_set_prefixlen(local, 8);
    addr = rtnl_addr_alloc();
    rtnl_addr_set_ifindex(addr, ifindex);
    rtnl_addr_set_local(addr, local);
    rtnl_addr_set_flags(addr, IFA_F_NOPREFIXROUTE);
    if ((e = rtnl_addr_add(sk, addr, 0)) < 0) {
        snprintf(err, errlen, "tun %s: add address: %s", name, nl_geterror(e));
        goto out;
    }
    uint32_t net = htonl(0x0A000000u);
    dst = nl_addr_build(AF_INET, &net, 4);
    nl_addr_set_prefixlen(dst, 8);
    route = rtnl_route_alloc();
    rtnl_route_set_family(route, AF_INET);
    rtnl_route_set_dst(route, dst);
    rtnl_route_set_scope(route, RT_SCOPE_LINK);
    rtnl_route_set_table(route, RT_TABLE_MAIN);
    rtnl_route_set_protocol(route, RTPROT_STATIC);
    rtnl_route_set_pref_src(route, local);
    struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
    rtnl_route_nh_set_ifindex(nh, ifindex);
    rtnl_route_add_nexthop(route, nh);
    if ((e = rtnl_route_add(sk, route, NLM_F_REPLACE)) < 0) {
        snprintf(err, errlen, "tun %s: add route 10.0.0.0/8: %s", name, nl_geterror(e));
        goto out;
    }
    rc = 0;
out:
    if (route)
        rtnl_route_put(route);
    if (dst)
        nl_addr_put(dst);
    if (local)
        nl_addr_put(local);
    if (addr)
        rtnl_addr_put(addr);
    if (change)
        rtnl_link_put(change);
    if (link)
        rtnl_link_put(link);
    return rc;
}

int tun_open(const char *name, uint32_t ip, unsigned mtu, bool offload, char *err, size_t errlen)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "open /dev/net/tun: %s", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        snprintf(err, errlen, "create tun %s: %s", name, strerror(errno));
        close(fd);
        return -1;
    }
    int vnet_len = TUN_VNET_HDR_LEN;
    if (offload && (ioctl(fd, TUNSETVNETHDRSZ, &vnet_len) < 0 ||
                    ioctl(fd, TUNSETOFFLOAD, (unsigned long)(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO_ECN)) < 0)) {
        snprintf(err, errlen, "tun %s: offloads (TUNSETOFFLOAD): %s; try --tun-offload off", name, strerror(errno));
        close(fd);
        return -1;
    }
    struct nl_sock *sk = nl_socket_alloc();
    if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
        snprintf(err, errlen, "netlink: cannot connect");
        if (sk)
            nl_socket_free(sk);
        close(fd);
        return -1;
    }
    (void)ipv6_off(IPV6_CONF_DIR, name); /* IPv4 only (os/ipv6_off.h); best effort */
    int rc = configure(sk, name, ip, mtu, err, errlen);
    nl_socket_free(sk);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void tun_close(int fd)
{
    if (fd >= 0)
        close(fd);
}
