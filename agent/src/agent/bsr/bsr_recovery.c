/* Recovery probes: paths across links the failed-link database holds, probed
 * so that an answer proves the links are back (bsr_probe_answer clears every
 * link a probe crossed). A link is learned failed for faildb_timeout_ms after
 * the last message that named it, and may come back long before. */
#include "bsr_internal.h"
#include "topo/bfs.h"

/* BFS tries per round for an unreachable flow: bounded work per second per
 * such flow; the starting entry rotates, so every link gets its turn. */
#define BSR_RECOVERY_BFS_MAX 8

/* The paths of the family's own set that the repair replaced because they
 * cross a failed link. They are never replaced by BFS alternates. */
static void add_family_paths(bsr *b, bsr_flow *f)
{
    dcn_pathset *set = b->scratch;
    if (bsr_family_set(b, f->dst, NULL, set) <= 0)
        return;
    for (uint32_t j = 0; j < set->count && f->n_paths < BSR_MAX_PATHS; j++) {
        /* A path over one of our own ports that is down cannot be probed;
         * that link comes back with the port, not with a probe. */
        if (bsr_faildb_path_ok(&b->db, &set->path[j]) || bsr_faildb_path_crosses_local(&b->db, &set->path[j]) ||
            bsr_find_in_set(f, &set->path[j]) >= 0)
            continue;
        bsr_add_slot(f, &set->path[j], true);
    }
}

/* For a flow with no path under the database: for learned links in turn,
 * the BFS path under the database without that link. Such a path must cross
 * it. Without these, a destination whose every way in is held failed stays
 * cut off until the entries expire when each family path across a link that
 * is back also crosses one still down (the soak's 19 s HCN stall:
 * docs/soak.md). */
static void add_paths_across_learned(bsr *b, bsr_flow *f)
{
    uint32_t n = b->db.n;
    uint32_t start = b->recovery_rotor++ % n;
    for (uint32_t k = 0, tries = 0; k < n && tries < BSR_RECOVERY_BFS_MAX && f->n_paths < BSR_MAX_PATHS; k++) {
        uint32_t i = (start + k) % n;
        if (b->db.e[i].local)
            continue;
        tries++;
        dcn_path alt;
        if (dcn_bfs_path(b->t, b->self, f->dst, bsr_faildb_view_without(&b->db, i), NULL, &alt) == 0 &&
            bsr_find_in_set(f, &alt) < 0)
            bsr_add_slot(f, &alt, true);
    }
}

void bsr_add_recovery_paths(bsr *b, bsr_flow *f, bool unreachable)
{
    if (!b->db.n || f->n_paths >= BSR_MAX_PATHS)
        return;
    add_family_paths(b, f);
    if (unreachable)
        add_paths_across_learned(b, f);
}
