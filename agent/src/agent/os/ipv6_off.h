/* IPv6 off on one interface (net.ipv6.conf.<ifname>.disable_ipv6 = 1),
 * for the devices the agent makes: the TUN device and the segmenting veth.
 * Nothing but IPv4 crosses them, and IPv6 would add router solicitations
 * and MLD reports for the data plane to drop.
 *
 * The file is read first and written only when IPv6 is still on. A write
 * takes the kernel's RTNL lock with a trylock that restarts the system call
 * while someone else holds the lock (addrconf_sysctl_disable), so while
 * thousands of agents start at once, each attaching BPF links and making
 * veth pairs under that lock, every write spins until the lock is free.
 * The testbed turns IPv6 off in each server's namespace before its agent
 * starts (net.ipv6.conf.default), so the devices are born with it off and
 * the agent writes nothing. */
#ifndef DCN_AGENT_IPV6_OFF_H
#define DCN_AGENT_IPV6_OFF_H

/* The folder of the per-interface files: IPV6_CONF_DIR, or another for
 * the unit test. Returns 0 when IPv6 was off already, 1 when this call
 * turned it off, -1 when neither could be done (no IPv6 in the kernel, no
 * such interface): best effort, the engine drops and counts non-IPv4
 * packets anyway. */
#define IPV6_CONF_DIR "/proc/sys/net/ipv6/conf"
int ipv6_off(const char *conf_dir, const char *ifname);

#endif
