/* One line of text per frame (without the time stamp), as dcn-dump prints
 * it. Format, fields separated by single spaces:
 *
 *   TYPE SRC > DST id ID nhi NHI/NHOPS path PATH len PAYLOAD_LEN [bw MBPS]
 *        [mdcube IDX/COUNT flow 0xFLOW containers C1,C2] [details] [MALFORMED REASON]
 *
 * TYPE is data, probe, probe-response, path-failure, hello or type-N; PATH
 * as dump_path_text(); details: the inner IPv4 packet of data frames
 * ("ip 10.0.0.1:1000 > 10.0.0.4:2000 udp"), a probe's sequence number, the
 * failed link of a path failure, a hello's port and interval. Frames whose
 * header cannot be read say "dcn MALFORMED REASON (N bytes)". */
#ifndef DCN_DUMP_FORMAT_H
#define DCN_DUMP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "dump_decode.h"

/* Type token: the codec's name, or "type-N" for an unknown type. */
void dump_type_text(uint8_t type, char *buf, size_t len);
/* Writes the line into buf (always terminated, cut at len). */
void dump_format_line(const dcn_topo *t, const dump_frame *f, bool numeric, char *buf, size_t len);

#endif
