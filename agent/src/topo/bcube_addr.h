/* BCube addresses and the paper's address-level routing (BCube, SIGCOMM
 * 2009, section 3), shared by the BCube and MDCube families and the agent.
 *
 * A server address a_k..a_0 (a_i in 0..n-1) is the integer sum a_i*n^i.
 * Switch <l, s_(k-1)..s_0> has index l*n^k + (its k digits as an integer);
 * server A's level-l port goes to switch <l, A without digit l>, on that
 * switch's port A[l]. */
#ifndef DCN_BCUBE_ADDR_H
#define DCN_BCUBE_ADDR_H

#include <stdint.h>

#define BC_MAX_LEVELS 8 /* k+1 <= 8 */

typedef struct bc_dims {
    uint32_t n;               /* switch ports */
    uint32_t k;               /* top level; k+1 levels */
    uint32_t pow[BC_MAX_LEVELS + 1]; /* n^i */
} bc_dims;

void bc_dims_init(bc_dims *d, uint32_t n, uint32_t k);
static inline uint32_t bc_digit(const bc_dims *d, uint32_t a, uint32_t i) { return a / d->pow[i] % d->n; }
static inline uint32_t bc_set_digit(const bc_dims *d, uint32_t a, uint32_t i, uint32_t v)
{
    return a - bc_digit(d, a, i) * d->pow[i] + v * d->pow[i];
}
/* Index of the level-l switch that server a's level-l port reaches. */
uint32_t bc_switch_of(const bc_dims *d, uint32_t a, uint32_t l);
/* Level and k-digit label of a switch index; and the server on its port p. */
static inline uint32_t bc_switch_level(const bc_dims *d, uint32_t sw) { return sw / d->pow[d->k]; }
uint32_t bc_switch_server(const bc_dims *d, uint32_t sw, uint32_t port);
/* Hamming distance in digits. */
uint32_t bc_hamming(const bc_dims *d, uint32_t a, uint32_t b);

/* BCubeRouting(A, B, perm): perm[0] is corrected first. Writes the server
 * sequence (A first, B last) to seq; returns its length. */
uint32_t bc_route(const bc_dims *d, uint32_t a, uint32_t b, const uint32_t *perm, uint32_t *seq);
/* BuildPathSet(A, B): the k+1 parallel paths, path i leaving A on level i.
 * seqs[i] receives path P_i's server sequence, lens[i] its length. */
void bc_build_pathset(const bc_dims *d, uint32_t a, uint32_t b, uint32_t seqs[][BC_MAX_LEVELS + 3],
                      uint32_t *lens);
/* BuildPathSet in a partial BCube (section 5.1) whose top digit a_k runs
 * over 0..parts-1 only (parts = n: the full BCube, same result as above).
 * The AltDCRouting neighbour for level k is C[k] = (A[k]+1) mod parts, so it
 * is a present server. With parts = 1 no level-k path exists: lens[k] = 0. */
void bc_build_pathset_partial(const bc_dims *d, uint32_t parts, uint32_t a, uint32_t b,
                              uint32_t seqs[][BC_MAX_LEVELS + 3], uint32_t *lens);

#endif
