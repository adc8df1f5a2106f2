/* The DCN header's wire constants, defined once: the agent (proto.h), the
 * kernel relay (kernel/relay.bpf.c, built with clang -target bpf) and the
 * tests include this file; tests/unit/test_wire_lua.sh checks the Wireshark
 * dissector (tools/wireshark/dcn.lua) against it. Macros only and no
 * includes, so that every compiler here takes it. The layout: proto.h and
 * docs/protocol.md. */
#ifndef DCN_AGENT_WIRE_H
#define DCN_AGENT_WIRE_H

#define DCN_ETHERTYPE 0x88B5
#define DCN_ETH_HLEN 14
#define DCN_VERSION 1
#define DCN_HDR_FIXED 28
#define DCN_HDR_BASE 36 /* fixed part + 8 NHAs, the BCube paper's size */
#define DCN_PROTO_IPV4 0x0800

/* flags */
#define DCN_FLAG_MDCUBE 0x01
/* Hierarchical MDCube routing (docs/protocol.md): the NHA path ends where
 * the current container's segment ends; the server there appends the next
 * segment. Only together with DCN_FLAG_MDCUBE. */
#define DCN_FLAG_SEGMENTED 0x02

/* packet types */
#define DCN_T_DATA 1
#define DCN_T_PROBE 2
#define DCN_T_PROBE_RESP 3
#define DCN_T_PATH_FAIL 4
#define DCN_T_HELLO 5
#define DCN_T_UNREACH 6 /* MDCube: the next container cannot be reached */

/* header field offsets */
#define DCN_OFF_VERSION 0
#define DCN_OFF_TYPE 1
#define DCN_OFF_FLAGS 2
#define DCN_OFF_NHOPS 3
#define DCN_OFF_SRC 4
#define DCN_OFF_DST 8
#define DCN_OFF_PKTID 12
#define DCN_OFF_PROTO 14
#define DCN_OFF_PLEN 16
#define DCN_OFF_CSUM 18
#define DCN_OFF_NHI 20
#define DCN_OFF_AVAIL 24
#define DCN_OFF_NHA 28

#endif
