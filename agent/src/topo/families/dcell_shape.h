/* DCell's sizes and DCellRouting (dcell_shape.c), shared by the builder
 * (dcell.c) and DFR (dcell_dfr.c).
 * t[l] = servers of a full DCell_l; n_present = servers actually built
 * (a partial DCell keeps the first n_present uids: whole DCell_0s). */
#ifndef DCN_DCELL_SHAPE_H
#define DCN_DCELL_SHAPE_H

#include <stdint.h>

#include "../path.h"
#include "../topo.h"

#define DCELL_MAX_K 3
#define DCELL_MAX_SERVERS 200000L

typedef struct dcell_shape {
    uint32_t n, k;
    uint32_t t[DCELL_MAX_K + 1];
    uint32_t n_present;
} dcell_shape;

/* t[l] = servers in a DCell_l, for l = 0..k; above the limit: the limit + 1. */
void dcell_sizes(long n, long k, long *t);

dcell_shape dcell_shape_of(const dcn_topo *t);

/* DCellRouting as a server sequence (uids), appended to out. */
int dcell_route_servers(const dcell_shape *s, uint32_t src, uint32_t dst, uint32_t l, dcn_path *out);

#endif
