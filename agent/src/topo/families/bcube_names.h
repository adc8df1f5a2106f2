/* BCube node names, usable as Mininet host names and in interface names
 * `<name>-eth<port>`: at most BCUBE_NAME_MAX characters of [a-z0-9_],
 * starting with a letter.
 *
 *   server a_k..a_0          "h" + the digits, a_k first      (n=4: "h13")
 *   switch <l, s_(k-1)..s_0> "s<l>_" + its k label digits      ("s1_01"); "s0" when k = 0
 *
 * A digit is one character 0-9a-z (base 36) when n <= 36, and two decimal
 * characters ("07", "63") when n > 36. */
#ifndef DCN_BCUBE_NAMES_H
#define DCN_BCUBE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "bcube_addr.h"

#define BCUBE_NAME_MAX 10  /* the project's node-name limit */
#define BCUBE_IFNAME_MAX 15 /* Linux IFNAMSIZ - 1, for "<name>-eth<port>" */

/* Characters one digit takes for this n. */
static inline uint32_t bcube_digit_chars(uint32_t n) { return n <= 36 ? 1 : 2; }
/* Lengths of the longest server and switch names for (n, k). */
static inline uint32_t bcube_server_name_len(uint32_t n, uint32_t k) { return 1 + (k + 1) * bcube_digit_chars(n); }
static inline uint32_t bcube_switch_name_len(uint32_t n, uint32_t k)
{
    return k ? 3 + k * bcube_digit_chars(n) : 2;
}

/* Server with address a. */
void bcube_server_name(const bc_dims *d, uint32_t a, char *buf, size_t len);
/* Switch with bc_dims index sw (level*n^k + label). */
void bcube_switch_name(const bc_dims *d, uint32_t sw, char *buf, size_t len);

#endif
