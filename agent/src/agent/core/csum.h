/* The Internet checksum (RFC 1071) and its incremental update (RFC 1624),
 * used for the DCN header checksum. */
#ifndef DCN_AGENT_CSUM_H
#define DCN_AGENT_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One's complement of the one's complement sum of the 16-bit big-endian
 * words of buf (an odd last byte is padded with zero). */
uint16_t csum_compute(const uint8_t *buf, size_t len);
/* The one's complement sum of buf's 16-bit big-endian words added to sum,
 * not folded and not inverted: for checksums over several pieces (pseudo
 * header, TCP header, payload). Reads 4 bytes at a time; an odd last byte is
 * padded with zero, so only the last piece may have an odd length. */
uint32_t csum_partial(const uint8_t *buf, size_t len, uint32_t sum);
/* The checksum of a sum from csum_partial: folded to 16 bits, inverted. */
uint16_t csum_finish(uint32_t sum);

/* Completes a transport checksum that a kernel left partial
 * (CHECKSUM_PARTIAL, for a device that offers to checksum): the 16-bit
 * field at pkt + at holds the pseudo header's sum, folded and not
 * inverted, and the checksum is that of pkt[start, len) with the field as
 * it is, as the kernel's skb_checksum_help computes it. A UDP checksum
 * (udp) that comes out 0 is written 0xffff, 0 meaning "none" (RFC 768).
 * -1, nothing written, when the field is not inside pkt[start, len). */
int csum_complete_partial(uint8_t *pkt, size_t len, size_t start, size_t at, bool udp);

/* New checksum after one 16-bit word changed from old_word to new_word
 * (both in host order of the big-endian value): HC' = ~(~HC + ~m + m'). */
uint16_t csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word);
/* Same for a 32-bit field (two words). */
uint16_t csum_update32(uint16_t csum, uint32_t old_val, uint32_t new_val);

#endif
