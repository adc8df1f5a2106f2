#include "bcube_addr.h"

void bc_dims_init(bc_dims *d, uint32_t n, uint32_t k)
{
    d->n = n;
    d->k = k;
    d->pow[0] = 1;
    for (uint32_t i = 1; i <= BC_MAX_LEVELS; i++)
        d->pow[i] = i <= k + 1 ? d->pow[i - 1] * n : d->pow[i - 1];
}

uint32_t bc_switch_of(const bc_dims *d, uint32_t a, uint32_t l)
{
    uint32_t low = a % d->pow[l], high = a / d->pow[l + 1];
    return l * d->pow[d->k] + high * d->pow[l] + low;
}

uint32_t bc_switch_server(const bc_dims *d, uint32_t sw, uint32_t port)
{
    uint32_t l = bc_switch_level(d, sw), label = sw % d->pow[d->k];
    uint32_t low = label % d->pow[l], high = label / d->pow[l];
    return high * d->pow[l + 1] + port * d->pow[l] + low;
}

uint32_t bc_hamming(const bc_dims *d, uint32_t a, uint32_t b)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i <= d->k; i++)
        h += bc_digit(d, a, i) != bc_digit(d, b, i);
    return h;
}

uint32_t bc_route(const bc_dims *d, uint32_t a, uint32_t b, const uint32_t *perm, uint32_t *seq)
{
    uint32_t len = 0, cur = a;
    seq[len++] = a;
    for (uint32_t i = 0; i <= d->k; i++) {
        uint32_t l = perm[i], want = bc_digit(d, b, l);
        if (bc_digit(d, cur, l) != want) {
            cur = bc_set_digit(d, cur, l, want);
            seq[len++] = cur;
        }
    }
    return len;
}

/* Π = [start, start-1, ..., start-k] mod (k+1). */
static void descending_perm(const bc_dims *d, uint32_t start, uint32_t *perm)
{
    uint32_t levels = d->k + 1;
    for (uint32_t j = 0; j < levels; j++)
        perm[j] = (start + levels - j % levels) % levels;
}

void bc_build_pathset(const bc_dims *d, uint32_t a, uint32_t b, uint32_t seqs[][BC_MAX_LEVELS + 3],
                      uint32_t *lens)
{
    bc_build_pathset_partial(d, d->n, a, b, seqs, lens);
}

void bc_build_pathset_partial(const bc_dims *d, uint32_t parts, uint32_t a, uint32_t b,
                              uint32_t seqs[][BC_MAX_LEVELS + 3], uint32_t *lens)
{
    uint32_t perm[BC_MAX_LEVELS];
    uint32_t levels = d->k + 1;
    for (uint32_t i = 0; i < levels; i++) {
        uint32_t ai = bc_digit(d, a, i);
        if (ai != bc_digit(d, b, i)) {
            descending_perm(d, i, perm); /* DCRouting */
            lens[i] = bc_route(d, a, b, perm, seqs[i]);
            continue;
        }
        /* AltDCRouting: first to neighbour C (digit i := A[i]+1, modulo the
         * digit's range: n, or parts for the top digit of a partial BCube),
         * then Π = [i-1, ..., i-1-k]. */
        uint32_t range = i == d->k ? parts : d->n;
        if (range < 2) {
            lens[i] = 0;
            continue;
        }
        uint32_t c = bc_set_digit(d, a, i, (ai + 1) % range);
        descending_perm(d, (i + levels - 1) % levels, perm);
        seqs[i][0] = a;
        lens[i] = 1 + bc_route(d, c, b, perm, seqs[i] + 1);
    }
}
