#include "csum.h"

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
