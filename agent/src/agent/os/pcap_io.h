/* libpcap file I/O: the --pcap writer of the agent, and the replay seam the
 * tests use to feed recorded frames to the engine. */
#ifndef DCN_AGENT_PCAP_IO_H
#define DCN_AGENT_PCAP_IO_H

#include <stddef.h>
#include <stdint.h>

typedef struct pcap_writer pcap_writer;

/* Opens path for writing Ethernet frames. NULL with err filled on failure. */
pcap_writer *pcapw_open(const char *path, char *err, size_t errlen);
/* Appends one frame with the current time (ts_us = 0) or a given time. */
void pcapw_write(pcap_writer *w, const uint8_t *frame, size_t len, uint64_t ts_us);
void pcapw_flush(pcap_writer *w);
void pcapw_close(pcap_writer *w);

/* Calls fn for every frame of the file, in order. The buffer is writable
 * (copied) and only valid during the call. Returns the number of frames,
 * or -1 with err filled. */
typedef void (*pcap_frame_fn)(void *ctx, uint8_t *frame, size_t len);
long pcap_replay(const char *path, pcap_frame_fn fn, void *ctx, char *err, size_t errlen);

#endif
