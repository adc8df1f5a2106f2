#include "linkmon.h"

#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdlib.h>

struct linkmon {
    struct nl_sock *sk;
    linkmon_fn fn;
    void *ctx;
    int msg_type;
};

static void on_object(struct nl_object *obj, void *arg)
{
    linkmon *m = arg;
    struct rtnl_link *link = (struct rtnl_link *)obj;
    unsigned flags = rtnl_link_get_flags(link);
    const char *name = rtnl_link_get_name(link);
    bool exists = m->msg_type != RTM_DELLINK;
    bool carrier = exists && (flags & IFF_UP) && (flags & IFF_LOWER_UP);
    m->fn(m->ctx, rtnl_link_get_ifindex(link), name ? name : "", exists, carrier);
}

static int on_msg(struct nl_msg *msg, void *arg)
{
    linkmon *m = arg;
    m->msg_type = nlmsg_hdr(msg)->nlmsg_type;
    if (m->msg_type == RTM_NEWLINK || m->msg_type == RTM_DELLINK)
        nl_msg_parse(msg, on_object, m);
    return NL_OK;
}

linkmon *linkmon_open(linkmon_fn fn, void *ctx)
{
    linkmon *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->fn = fn;
    m->ctx = ctx;
    m->sk = nl_socket_alloc();
    if (!m->sk)
        goto fail;
    nl_socket_disable_seq_check(m->sk);
    nl_socket_modify_cb(m->sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg, m);
    if (nl_connect(m->sk, NETLINK_ROUTE) < 0 || nl_socket_add_membership(m->sk, RTNLGRP_LINK) < 0 ||
        nl_socket_set_nonblocking(m->sk) < 0)
        goto fail;
    return m;
fail:
    linkmon_close(m);
    return NULL;
}

int linkmon_fd(const linkmon *m) { return nl_socket_get_fd(m->sk); }

void linkmon_read(linkmon *m)
{
    for (int i = 0; i < 64; i++)
        if (nl_recvmsgs_default(m->sk) < 0)
            break;
}

void linkmon_close(linkmon *m)
{
    if (!m)
        return;
    if (m->sk)
        nl_socket_free(m->sk);
    free(m);
}
