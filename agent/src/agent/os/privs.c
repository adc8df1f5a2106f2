#include "privs.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int capget_(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d)
{
    return (int)syscall(SYS_capget, h, d);
}

static int capset_(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d)
{
    return (int)syscall(SYS_capset, h, d);
}

uint64_t privs_effective(void)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (capget_(&h, d) < 0)
        return 0;
    return (uint64_t)d[1].effective << 32 | d[0].effective;
}

int privs_drop(char *err, size_t errlen)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        snprintf(err, errlen, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    /* the bounding set first, while CAP_SETPCAP is held; a capability the
     * kernel does not know ends the loop (EINVAL). Without CAP_SETPCAP (an
     * agent started with file capabilities only) the bounding set stays:
     * no_new_privs already keeps an exec from gaining anything. */
    for (unsigned c = 0; c < 64; c++) {
        if (PRIVS_KEEP_MASK & (1ull << c))
            continue;
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
            if (errno == EINVAL || errno == EPERM)
                break;
            snprintf(err, errlen, "dropping capability %u from the bounding set: %s", c, strerror(errno));
            return -1;
        }
    }
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (capget_(&h, d) < 0) {
        snprintf(err, errlen, "capget: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        uint32_t keep = (uint32_t)(PRIVS_KEEP_MASK >> (32 * i));
        d[i].effective &= keep;
        d[i].permitted &= keep;
        d[i].inheritable = 0;
    }
    if (capset_(&h, d) < 0) {
        snprintf(err, errlen, "capset: %s", strerror(errno));
        return -1;
    }
    return 0;
}
