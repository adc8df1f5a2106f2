/* Routing in HCN and BCN (Guo et al., IEEE TC 2013, Sec. 4):
 * FdimRouting (Alg. 2) with GetIntraLink, BdimRouting (Alg. 3) with
 * GetInterLink, Lemma 1's alpha-1 parallel paths, and the fault-tolerant
 * routing (local reroute, Eq. 6; remote reroute, Sec. 4.5).
 *
 * "Server sequences" are dcn_paths holding only server ids, each adjacent to
 * the next through their common switch or over a port-1 cable;
 * hcn_expand() inserts the switches. The three dcn_algo functions at the
 * bottom serve both families (the topology's priv is an hcn_dims); the
 * fault-tolerant ones, hcn_reroute and hcn_algo_reroute, are in
 * hcn_reroute.c, which uses hcn_route.c and not the other way round. */
#ifndef DCN_HCN_ROUTE_H
#define DCN_HCN_ROUTE_H

#include "family.h"
#include "hcn_label.h"

/* Append the FdimRouting (or BdimRouting) server sequence from src to dst to
 * seq, whose last node must be src (or seq empty). -1 when seq overflows. */
int hcn_fdim(const hcn_dims *d, const hcn_label *src, const hcn_label *dst, dcn_path *seq);
int hcn_bdim(const hcn_dims *d, const hcn_label *src, const hcn_label *dst, dcn_path *seq);

/* Inserts the switch between consecutive servers that share one; -1 when two
 * consecutive servers are neither cabled nor on one switch, or on overflow. */
int hcn_expand(const dcn_topo *t, const dcn_path *seq, dcn_path *out);

/* Lemma 1: alpha-1 paths between servers of one copy on different switches
 * (the single path when they share a switch). Returns the count, -1 on error. */
int hcn_lemma1_paths(const dcn_topo *t, const hcn_label *src, const hcn_label *dst, dcn_pathset *out);

/* The fault-tolerant routing: BdimRouting, repaired at every failure point by
 * local reroute (first dimension) or remote reroute (slave cables), falling
 * back to a BFS from the failure point for what the paper does not cover
 * (failed switches and switch cables, beta = 1, alpha = 2). Returns 1 with a
 * full path in out, or 0 when no path exists. trace (may be NULL) receives
 * the packet's server sequence in the paper's notation when the paper's rules
 * produced the path, or stays empty when the BFS fallback did; out is that
 * trace expanded, with any back-and-forth over one switch cut out (a failure
 * found at b after crossing a's switch sends the packet back through it). */
int hcn_reroute(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, dcn_path *out,
                dcn_path *trace);

/* The dcn_algo functions of the hcn and bcn families. */
int hcn_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);
int hcn_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);
int hcn_algo_reroute(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);

#endif
