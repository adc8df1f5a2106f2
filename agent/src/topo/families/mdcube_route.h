/* MDCube routing (CoNEXT 2009, sections 3-4): MDCubeRouting, the detour
 * through one jump (MDCubeDetourRouting), Theorem 4's container-disjoint
 * path set, and Theorem 2's k+1 parallel paths. Inside each container the
 * routes are BCube routes; under failures each container repairs its own
 * segment (another BCube candidate, then a BFS confined to the container)
 * without changing the sequence of containers, as in section 4.3. */
#ifndef DCN_MDCUBE_ROUTE_H
#define DCN_MDCUBE_ROUTE_H

#include <stdint.h>

#include "family.h"
#include "mdcube_geom.h"

/* The free choices the paper leaves to each flow:
 *  transit: which of the n switch-to-switch paths (property 3) a relay
 *           container uses, counted from the shortest one (0 = shortest);
 *  copy:    which copy of the duplicated cabling (incomplete MDCube) every
 *           fiber of the path uses (taken modulo the number of copies). */
typedef struct md_choice {
    uint32_t transit;
    uint32_t copy;
} md_choice;

/* Sawtooth correction order after a jump on dimension i:
 * [i+1, ..., D, 0, ..., i] (dimension i corrected last). */
void md_sawtooth_order(uint32_t dims, uint32_t i, uint32_t *order);

/* Builds one path from server src to server dst: first the optional jump
 * (jump_dim < 0: none) to the container whose coordinate jump_dim is
 * jump_value, then the container coordinates corrected in `order`, each
 * through GetLink's fiber. f may be NULL. Returns 0, or -1 when the request
 * is malformed, a fiber on the way is down, a container cannot repair its
 * segment, or the path would exceed DCN_PATH_MAX nodes. */
int md_build_path(const dcn_topo *t, uint32_t src, uint32_t dst, int jump_dim, uint32_t jump_value,
                  const uint32_t *order, uint32_t norder, md_choice choice, const dcn_failures *f, dcn_path *out);

/* MDCubeRouting with Pi_D = [D, ..., 0]. Same return convention. */
int mdcube_route_path(const dcn_topo *t, uint32_t src, uint32_t dst, md_choice choice, const dcn_failures *f,
                      dcn_path *out);

/* MDCubeDetourRouting through the given jump: from src's container to the
 * one whose coordinate `dim` is `value` (!= src's), then the sawtooth
 * order. src and dst must be in different containers. */
int mdcube_detour_path(const dcn_topo *t, uint32_t src, uint32_t dst, uint32_t dim, uint32_t value,
                       md_choice choice, const dcn_failures *f, dcn_path *out);

/* Hierarchical routing (section 4.3), as the agents run it.
 *
 * md_jump_containers: the containers jump x (0 .. G-1, numbered as
 * mdcube_algo_detour draws them) crosses between src_c and dst_c, neither
 * included, in order (the jump's container, then the sawtooth
 * corrections). Returns how many (at most max), or -1 when x is out of
 * range, src_c == dst_c, or more than max.
 *
 * md_segment: one container's part of a hierarchical path, from server
 * `from` (in container c) to the first server of the next container
 * (rest[0], or dst's container when nrest == 0), or to dst itself when c is
 * dst's container and nrest == 0. rest: the containers still to cross after
 * c, dst's excluded. The entry server in the next container is the first
 * server of that container's own route onwards (transit spreads it), or
 * any live server under the fiber's far switch when that route is blocked.
 * f may be NULL. Returns 0, or -1 (malformed request, a fiber down, no
 * live route inside c). */
int md_jump_containers(const dcn_topo *t, uint32_t src_c, uint32_t dst_c, uint32_t x, uint32_t *out, uint32_t max);
int md_segment(const dcn_topo *t, uint32_t from, uint32_t dst, const uint32_t *rest, uint32_t nrest,
               md_choice choice, const dcn_failures *f, dcn_path *out);

/* The family's algorithms (see mdcube.c's table). */
int mdcube_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);
int mdcube_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);
int mdcube_algo_detour(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);
int mdcube_algo_parallel(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);

#endif
