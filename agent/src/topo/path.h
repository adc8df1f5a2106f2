/* Paths as full node sequences (servers and switches), and path sets. */
#ifndef DCN_PATH_H
#define DCN_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "failures.h"
#include "topo.h"

#define DCN_PATH_MAX 160   /* nodes in one path */
#define DCN_PATHSET_MAX 128 /* paths in one set */

typedef struct dcn_path {
    uint32_t len;
    uint32_t node[DCN_PATH_MAX];
} dcn_path;

typedef struct dcn_pathset {
    uint32_t count;
    dcn_path path[DCN_PATHSET_MAX];
} dcn_pathset;

static inline void dcn_path_clear(dcn_path *p) { p->len = 0; }
/* Copies src's length and its used nodes only, so that the rest of dst's
 * node array is neither read nor written (a struct copy would touch all of
 * it: long-lived tables of paths then take pages they never use). */
void dcn_path_copy(dcn_path *dst, const dcn_path *src);
/* Appends v; returns -1 when the path is full. */
int dcn_path_push(dcn_path *p, uint32_t v);
/* Appends q to p, dropping q's first node when it equals p's last. */
int dcn_path_append(dcn_path *p, const dcn_path *q);
void dcn_path_reverse(dcn_path *p);
bool dcn_path_contains(const dcn_path *p, uint32_t v);
/* Cuts every loop: from the first visit of a node, jumps to its last visit. */
void dcn_path_erase_loops(dcn_path *p);
/* Number of links, and of server-to-server hops (a hop leaves a server and
 * ends at the next server, whatever switches it crosses). */
uint32_t dcn_path_links(const dcn_path *p);
uint32_t dcn_path_server_hops(const dcn_path *p, const dcn_topo *t);

/* Turns a sequence of servers, each adjacent to the next either by a direct
 * cable or through one common switch, into the full node sequence. In place
 * on p; -1 when two consecutive servers share neither. */
int dcn_path_expand_servers(dcn_path *p, const dcn_topo *t);

/* Every consecutive pair is cabled, no node repeats, and nothing on it failed
 * (f may be NULL). On failure returns false and, if why is not NULL, a short
 * reason. */
bool dcn_path_valid(const dcn_path *p, const dcn_topo *t, const dcn_failures *f, const char **why);

/* True when no node except the two end points appears on both paths. */
bool dcn_paths_node_disjoint(const dcn_path *a, const dcn_path *b);
/* True when no cable is used by both paths (in either direction). */
bool dcn_paths_link_disjoint(const dcn_path *a, const dcn_path *b, const dcn_topo *t);

int dcn_pathset_add(dcn_pathset *s, const dcn_path *p);
/* Orders the paths shortest first (in nodes); paths of one length keep
 * their order (a stable insertion sort: path sets hold a handful). */
void dcn_pathset_sort(dcn_pathset *s);

#endif
