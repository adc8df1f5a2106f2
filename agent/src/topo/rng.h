/* A small deterministic generator (xorshift64*), so every random choice is
 * reproducible from a seed. */
#ifndef DCN_RNG_H
#define DCN_RNG_H

#include <stdint.h>

typedef struct dcn_rng {
    uint64_t s;
} dcn_rng;

static inline void dcn_rng_seed(dcn_rng *r, uint64_t seed) { r->s = seed ? seed : 0x9E3779B97F4A7C15ull; }
static inline uint64_t dcn_rng_next(dcn_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}
/* Uniform in [0, n), n > 0. */
static inline uint32_t dcn_rng_below(dcn_rng *r, uint32_t n) { return (uint32_t)((dcn_rng_next(r) >> 32) * n >> 32); }

#endif
