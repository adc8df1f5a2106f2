#include "prefault.h"

#include <stdint.h>
#include <unistd.h>

void prefault(void *p, size_t len)
{
    volatile uint8_t *v = p;
    long pg = sysconf(_SC_PAGESIZE);
    size_t step = pg > 0 ? (size_t)pg : 4096;
    for (size_t i = 0; i < len; i += step)
        v[i] = 0;
    if (len)
        v[len - 1] = 0;
}
