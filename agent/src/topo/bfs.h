/* Breadth-first searches over the physical graph. */
#ifndef DCN_BFS_H
#define DCN_BFS_H

#include <stdint.h>

#include "failures.h"
#include "path.h"
#include "topo.h"

/* Shortest path in links from src to dst that avoids failed nodes and links
 * and every node marked in avoid (NULL: none; src and dst are never avoided).
 * Switches are transit nodes like any other. Neighbours are visited in port
 * order, so the result is deterministic. Returns 0, or -1 when none exists. */
int dcn_bfs_path(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, const uint8_t *avoid,
                 dcn_path *out);

/* Distances from src to every server, in links (hops_out NULL to skip) and in
 * server hops (a hop leaves a server for the next server through any number
 * of switches or over one direct cable). UINT32_MAX marks unreachable. Both
 * outputs are arrays of n_servers entries. */
void dcn_bfs_server_distances(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *links_out,
                              uint32_t *hops_out);

/* Breadth-first search of the server graph from src: two servers are
 * adjacent when one cable or a chain of switches joins them (up cables and
 * nodes only). The servers a server reaches first are queued in increasing
 * id order, so the result is the BFS over server adjacency lists sorted by
 * id: the tree that flooding from src builds, ties to the lower id.
 * dist_out (server hops, UINT32_MAX: unreachable), parent_out (DCN_NONE for
 * src and the unreachable) and order_out (the servers in the order reached,
 * src first) have n_servers entries; each may be NULL. Returns the number
 * of servers reached (0 when src is down), or -1 when out of memory. */
int dcn_bfs_server_tree(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *dist_out,
                        uint32_t *parent_out, uint32_t *order_out);

/* The nodes reachable from src (switches forward like servers): every node
 * whose mark is UINT32_MAX on entry and that it reaches is given
 * mark = links from src and written to reached (n_nodes entries), src first.
 * Nodes already marked are walls, so repeated calls on one mark array
 * label components. Returns the number reached (0 when src is down or
 * already marked). */
uint32_t dcn_bfs_flood(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *mark, uint32_t *reached);

/* BSR's repair of a path set under failures: every path that crosses a
 * failed node or link is replaced by the BFS path that avoids the failures
 * and the nodes of all the other paths (dropped if none exists). Returns
 * the number of paths kept. */
int dcn_pathset_repair(const dcn_topo *t, const dcn_failures *f, dcn_pathset *s);

#endif
