/* Named packet counters of one agent, one X-macro list so the control
 * socket prints every counter by name. */
#ifndef DCN_AGENT_COUNTERS_H
#define DCN_AGENT_COUNTERS_H

#include <stdint.h>

#define DCN_COUNTERS(X)                                                                                            \
    X(rx_ok)                /* frames accepted (any type) */                                                      \
    X(tx_ok)                /* frames handed to a port */                                                         \
    X(rx_data_delivered)    /* data packets written to the TUN device */                                          \
    X(tx_data_from_tun)     /* data packets encapsulated from the TUN device */                                   \
    X(relayed)              /* frames forwarded for others */                                                     \
    X(relayed_in_kernel)    /* data frames forwarded for others by the kernel (--data-path kernel) */             \
    X(sent_in_kernel)       /* data packets encapsulated and sent by the kernel (--data-path kernel) */           \
    X(delivered_in_kernel)  /* data packets delivered to dcn0 by the kernel (--data-path kernel) */               \
    X(rx_csum_completed)    /* data frames that came with a partial TCP/UDP checksum, completed (frame_csum.h) */ \
    X(tun_gro_merged)       /* TCP segments to the TUN device merged into the one before (tun_gro.h) */           \
    X(tun_gso_in)           /* TCP segments of up to 64 KB from the TUN device, cut into packets (tun_offload.h) */ \
    X(hello_rx)                                                                                                   \
    X(hello_tx)                                                                                                   \
    X(probe_tx)             /* probes sent as source */                                                           \
    X(probe_relayed)                                                                                              \
    X(probe_rx)             /* probes ending here */                                                              \
    X(probe_resp_tx)                                                                                              \
    X(probe_resp_rx)                                                                                              \
    X(probe_resp_capped)    /* probe response reporting more than our port onto its path carries: capped */       \
    X(path_failure_tx)                                                                                            \
    X(path_failure_rx)      /* addressed to us */                                                                 \
    X(path_failure_overheard) /* relayed and adopted: a flow of ours crosses the reporter and the link */          \
    X(path_failure_not_adopted) /* relayed only: no flow of ours crosses the reporter and the link */            \
    X(segment_extended)     /* MDCube: data whose segment ended here, sent on with ours appended */              \
    X(unreach_tx)           /* MDCube: "destination unreachable" sent to a source */                             \
    X(unreach_rx)           /* MDCube: addressed to us, for a flow of ours */                                    \
    X(rerouted_at_send)     /* from TUN: first hop down; path selection told, the packet routed again */         \
    X(neighbor_up_events)                                                                                         \
    X(neighbor_one_way) /* a neighbour's hello left us out: our frames do not reach it, its entry went down */    \
    X(neighbor_down_events)                                                                                       \
    X(syscall_denied)       /* system calls refused by the allow-list (os/syscall_filter.h) */                    \
    X(carrier_events)                                                                                             \
    X(drop_other_host)      /* frame for another MAC (flooded by a switch); never parsed */                       \
    X(drop_truncated)       /* shorter than its headers or payload length */                                      \
    X(drop_bad_checksum)                                                                                          \
    X(drop_bad_version)                                                                                           \
    X(drop_bad_extension)   /* malformed MDCube extension */                                                      \
    X(drop_not_dcn)         /* wrong EtherType */                                                                 \
    X(drop_nhi_beyond_path) /* NHI > number of hops */                                                            \
    X(drop_unknown_type)                                                                                          \
    X(drop_not_neighbor)    /* an NHA names no neighbour of its hop, or a hello from a stranger */                \
    X(drop_hello_mac_conflict) /* a hello naming a live neighbour, from another MAC: the entry keeps its own */   \
    X(drop_loop)            /* the path visits a server twice */                                                  \
    X(drop_bad_path)        /* path does not end at dst, or bad src address */                                    \
    X(drop_not_on_path)     /* the hop at NHI is not this server */                                               \
    X(drop_wrong_port)      /* arrived on a port its path does not name for this hop */                          \
    X(drop_fail_wrong_neighbor) /* path failure not from the neighbour (MAC) its path names */                    \
    X(drop_probe_resp_wrong_neighbor) /* probe response for us not from the neighbour (MAC) its path names */      \
    X(drop_fail_link_off_path)  /* path failure naming a link not one hop beyond its sender / not on our flow */  \
    X(drop_fail_unknown_flow)   /* path failure addressed to us; no flow of ours goes through its sender */       \
    X(drop_next_hop_down)                                                                                         \
    X(drop_failure_rate_limited) /* path-failure message suppressed (one per source per 50 ms) */                 \
    X(drop_fail_rate_limited_rx) /* path failure received again (same reporter and link) within 50 ms */          \
    X(drop_bad_payload)     /* data that is not IPv4 / control payload too short */                               \
    X(drop_bad_ip_length)   /* data at its destination: IPv4 total length below its header length (e.g. 0) */     \
    X(drop_no_route)        /* from TUN: unknown destination or no path */                                        \
    X(drop_no_segment)      /* MDCube: a segment ended here and no route leads on (the source is told) */       \
    X(drop_tx_error)                                                                                              \
    X(drop_bad_offload)     /* from TUN: a virtio-net header the agent cannot undo (not TSO4 / bad offsets) */   \
    X(drop_too_long)        /* encapsulated frame above the buffer */

typedef struct dcn_counters {
#define DCN_COUNTER_FIELD(name) uint64_t name;
    DCN_COUNTERS(DCN_COUNTER_FIELD)
#undef DCN_COUNTER_FIELD
} dcn_counters;

#endif
