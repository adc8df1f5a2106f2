#include "segveth.h"

#include "ipv6_off.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/sockios.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int name_of(char *out, const char *tun, char suffix)
{
    int n = snprintf(out, 16, "%s%c", tun, suffix);
    return n > 0 && n < 16 ? 0 : -1;
}

/* One ioctl on an interface by name (SIOCSIFFLAGS, SIOCETHTOOL). */
static int if_ioctl(unsigned long req, struct ifreq *ifr)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int rc = ioctl(fd, req, ifr);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* MTU mtu and up; returns the interface index, or -1. */
static int set_mtu_up(const char *name, unsigned mtu)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_mtu = (int)mtu;
    if (if_ioctl(SIOCSIFMTU, &ifr) < 0 || if_ioctl(SIOCGIFFLAGS, &ifr) < 0)
        return -1;
    ifr.ifr_flags |= IFF_UP;
    if (if_ioctl(SIOCSIFFLAGS, &ifr) < 0 || if_ioctl(SIOCGIFINDEX, &ifr) < 0)
        return -1;
    return ifr.ifr_ifindex;
}

static int tso_off(const char *name)
{
    struct ethtool_value v = {.cmd = ETHTOOL_STSO, .data = 0};
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_data = (void *)&v;
    return if_ioctl(SIOCETHTOOL, &ifr);
}

static void delete_link(struct nl_sock *sk, const char *name)
{
    struct rtnl_link *l = rtnl_link_alloc();
    if (!l)
        return;
    rtnl_link_set_name(l, name);
    (void)rtnl_link_delete(sk, l); /* absent already: nothing to do */
    rtnl_link_put(l);
}

int segveth_open(segveth *s, const char *tun, unsigned mtu, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (name_of(s->near, tun, 's') < 0 || name_of(s->far, tun, 'g') < 0) {
        snprintf(err, errlen, "segmenting veth: the TUN device's name '%s' leaves no room for a suffix", tun);
        return -1;
    }
    struct nl_sock *sk = nl_socket_alloc();
    if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
        snprintf(err, errlen, "segmenting veth: no netlink socket");
        nl_socket_free(sk);
        return -1;
    }
    delete_link(sk, s->near); /* left by a killed agent of this server */
    int rc = rtnl_link_veth_add(sk, s->near, s->far, getpid()); /* the peer in our namespace (0 is refused) */
    if (rc < 0) {
        snprintf(err, errlen, "segmenting veth %s/%s: cannot create it: %s", s->near, s->far, nl_geterror(rc));
        nl_socket_free(sk);
        return -1;
    }
    /* no IPv6 on the pair: nothing but the kernel's own packets crosses it
     * (no router solicitations or MLD reports to drop at the far end) */
    (void)ipv6_off(IPV6_CONF_DIR, s->near);
    (void)ipv6_off(IPV6_CONF_DIR, s->far);
    if ((s->near_ifindex = set_mtu_up(s->near, mtu)) <= 0 || (s->far_ifindex = set_mtu_up(s->far, mtu)) <= 0 ||
        tso_off(s->near) < 0) {
        snprintf(err, errlen, "segmenting veth %s/%s: cannot set it up: %s", s->near, s->far, strerror(errno));
        delete_link(sk, s->near);
        nl_socket_free(sk);
        memset(s, 0, sizeof *s);
        return -1;
    }
    nl_socket_free(sk);
    return 0;
}

void segveth_close(segveth *s)
{
    if (!s->near[0])
        return;
    struct nl_sock *sk = nl_socket_alloc();
    if (sk && nl_connect(sk, NETLINK_ROUTE) == 0)
        delete_link(sk, s->near);
    nl_socket_free(sk);
    memset(s, 0, sizeof *s);
}
