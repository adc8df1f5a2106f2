#include "ipv6_off.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int ipv6_off(const char *conf_dir, const char *ifname)
{
    char path[160];
    int n = snprintf(path, sizeof path, "%s/%s/disable_ipv6", conf_dir, ifname);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char now[4] = {0};
    ssize_t got = read(fd, now, sizeof now - 1);
    int rc;
    if (got > 0 && now[0] == '1' && (got == 1 || now[1] == '\n'))
        rc = 0; /* off already: no write, no RTNL */
    else
        rc = pwrite(fd, "1\n", 2, 0) == 2 ? 1 : -1;
    close(fd);
    return rc;
}
