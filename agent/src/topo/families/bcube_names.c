#include "bcube_names.h"

#include <stdio.h>

static const char base36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/* Writes `count` digits of value x (most significant first) at buf[off]. */
static size_t put_digits(const bc_dims *d, uint32_t x, uint32_t count, char *buf, size_t len, size_t off)
{
    for (uint32_t i = count; i-- > 0;) {
        uint32_t v = bc_digit(d, x, i);
        if (d->n <= 36) {
            if (off + 1 < len)
                buf[off++] = base36[v];
        } else if (off + 2 < len) {
            buf[off++] = (char)('0' + v / 10);
            buf[off++] = (char)('0' + v % 10);
        }
    }
    if (off < len)
        buf[off] = '\0';
    return off;
}

void bcube_server_name(const bc_dims *d, uint32_t a, char *buf, size_t len)
{
    if (len < 2) {
        if (len)
            buf[0] = '\0';
        return;
    }
    buf[0] = 'h';
    put_digits(d, a, d->k + 1, buf, len, 1);
}

void bcube_switch_name(const bc_dims *d, uint32_t sw, char *buf, size_t len)
{
    uint32_t l = bc_switch_level(d, sw);
    int off = snprintf(buf, len, d->k ? "s%u_" : "s%u", l);
    if (off < 0 || (size_t)off >= len)
        return;
    put_digits(d, sw % d->pow[d->k], d->k, buf, len, (size_t)off);
}
