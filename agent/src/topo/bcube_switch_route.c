#include "bcube_switch_route.h"

uint32_t bc_switch_entry(const bc_dims *d, uint32_t sw, uint32_t a)
{
    return bc_switch_server(d, sw, bc_digit(d, a, bc_switch_level(d, sw)));
}

/* Appends the step cur -> cur with digit x := v, when it changes anything. */
static void step(const bc_dims *d, uint32_t *cur, uint32_t x, uint32_t v, uint32_t *seq, uint32_t *len)
{
    if (bc_digit(d, *cur, x) == v)
        return;
    *cur = bc_set_digit(d, *cur, x, v);
    seq[(*len)++] = *cur;
}

/* Corrects every digit except skip1 and skip2, from k down to 0. */
static void correct_others(const bc_dims *d, uint32_t *cur, uint32_t target, uint32_t skip1, uint32_t skip2,
                           uint32_t *seq, uint32_t *len)
{
    for (uint32_t x = d->k + 1; x-- > 0;)
        if (x != skip1 && x != skip2)
            step(d, cur, x, bc_digit(d, target, x), seq, len);
}

uint32_t bc_switch_pair_path(const bc_dims *d, uint32_t w0, uint32_t w1, uint32_t i, uint32_t *seq)
{
    uint32_t l = bc_switch_level(d, w0), t = bc_switch_level(d, w1), len = 0;
    uint32_t cur = bc_switch_server(d, w0, i);
    seq[len++] = cur;
    if (l == t) {
        correct_others(d, &cur, bc_switch_server(d, w1, i), l, l, seq, &len);
        return len;
    }
    /* j = (i + a_t - b_l) mod n: a_t is w0's fixed digit t, b_l w1's fixed digit l. */
    uint32_t a_t = bc_digit(d, cur, t), b_l = bc_digit(d, bc_switch_server(d, w1, 0), l);
    uint32_t j = (i + a_t + d->n - b_l) % d->n;
    uint32_t target = bc_switch_server(d, w1, j);
    correct_others(d, &cur, target, t, l, seq, &len);
    step(d, &cur, t, j, seq, &len);
    step(d, &cur, l, b_l, seq, &len);
    return len;
}

uint32_t bc_switch_pair_shortest(const bc_dims *d, uint32_t w0, uint32_t w1)
{
    uint32_t l = bc_switch_level(d, w0), t = bc_switch_level(d, w1);
    return l == t ? 0 : bc_digit(d, bc_switch_server(d, w1, 0), l);
}

uint32_t bc_switch_server_paths(const bc_dims *d, uint32_t sw, uint32_t a, uint32_t seqs[][BC_SW_SEQ_MAX],
                                uint32_t *lens)
{
    uint32_t levels = d->k + 1, n = d->n, l = bc_switch_level(d, sw);
    if (levels > n)
        return 0;
    uint32_t al = bc_digit(d, a, l), T = bc_switch_server(d, sw, al);
    uint32_t port[BC_MAX_LEVELS];
    uint32_t direct = l; /* the path that gets port a_l */
    if (a != T)
        for (uint32_t x = 0; x < levels; x++)
            if (bc_digit(d, a, x) != bc_digit(d, T, x)) {
                direct = x;
                break;
            }
    for (uint32_t i = 0, next = 1; i < levels; i++)
        port[i] = i == direct ? al : (al + next++) % n;
    for (uint32_t i = 0; i < levels; i++) {
        uint32_t *seq = seqs[i], len = 0;
        uint32_t cur = bc_set_digit(d, T, l, port[i]);
        seq[len++] = cur;
        if (i == l) {
            correct_others(d, &cur, a, l, l, seq, &len);
            step(d, &cur, l, al, seq, &len);
        } else {
            uint32_t ai = bc_digit(d, a, i);
            if (ai == bc_digit(d, T, i))
                step(d, &cur, i, (ai + 1) % n, seq, &len);
            correct_others(d, &cur, a, i, l, seq, &len);
            step(d, &cur, l, al, seq, &len);
            step(d, &cur, i, ai, seq, &len);
        }
        lens[i] = len;
    }
    return levels;
}
