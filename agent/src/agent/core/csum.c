#include "csum.h"

#include <string.h>

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

uint16_t csum_compute(const uint8_t *buf, size_t len)
{
    uint32_t sum = 0;
    size_t i = 0;
    for (; i + 1 < len; i += 2)
        sum += (uint32_t)buf[i] << 8 | buf[i + 1];
    if (i < len)
        sum += (uint32_t)buf[i] << 8;
    return (uint16_t)~fold(sum);
}

uint16_t csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
    uint32_t sum = (uint16_t)~csum;
    sum += (uint16_t)~old_word;
    sum += new_word;
    return (uint16_t)~fold(sum);
}

uint16_t csum_update32(uint16_t csum, uint32_t old_val, uint32_t new_val)
{
    csum = csum_update16(csum, (uint16_t)(old_val >> 16), (uint16_t)(new_val >> 16));
    return csum_update16(csum, (uint16_t)old_val, (uint16_t)new_val);
}

uint32_t csum_partial(const uint8_t *buf, size_t len, uint32_t sum)
{
    /* RFC 1071: the one's complement sum does not depend on byte order, so
     * the words are added in memory order and the result swapped once */
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        uint32_t w;
        memcpy(&w, buf + i, 4);
        acc += w;
    }
    if (i + 2 <= len) {
        uint16_t w;
        memcpy(&w, buf + i, 2);
        acc += w;
        i += 2;
    }
    if (i < len) {
        uint8_t pad[2] = {buf[i], 0};
        uint16_t w;
        memcpy(&w, pad, 2);
        acc += w;
    }
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    uint8_t be[2];
    uint16_t n = (uint16_t)acc;
    memcpy(be, &n, 2);
    return sum + (uint32_t)(be[0] << 8 | be[1]);
}

uint16_t csum_finish(uint32_t sum)
{
    return (uint16_t)~fold(sum);
}

int csum_complete_partial(uint8_t *pkt, size_t len, size_t start, size_t at, bool udp)
{
    if (start >= len || at < start || at + 2 > len)
        return -1;
    uint16_t c = csum_finish(csum_partial(pkt + start, len - start, 0));
    if (c == 0 && udp)
        c = 0xffff;
    pkt[at] = (uint8_t)(c >> 8);
    pkt[at + 1] = (uint8_t)c;
    return 0;
}
