/* BSR's failed-link database: links learned from path-failure messages
 * (each with an expiry time) and links of local ports that are down (no
 * expiry), kept as a dcn_failures view for the routing algorithms. */
#ifndef DCN_AGENT_BSR_FAILDB_H
#define DCN_AGENT_BSR_FAILDB_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/failures.h"
#include "topo/path.h"
#include "topo/topo.h"

#define BSR_FAILDB_MAX 256 /* links remembered at once; the soonest to expire makes room */

typedef struct bsr_faildb_entry {
    uint32_t a, b;        /* a < b, adjacent */
    uint64_t expires_ms;  /* learned entries; ignored while local is set */
    uint8_t learned;      /* heard in a path-failure message */
    uint8_t local;        /* our own port to the peer is down */
} bsr_faildb_entry;

typedef struct bsr_faildb {
    const dcn_topo *t;
    bsr_faildb_entry e[BSR_FAILDB_MAX];
    uint32_t n;
    dcn_failures view; /* rebuilt from e[] when dirty */
    dcn_failures view_but_one; /* bsr_faildb_view_without's, rebuilt at each call */
    bool dirty;
} bsr_faildb;

int bsr_faildb_init(bsr_faildb *db, const dcn_topo *t);
void bsr_faildb_free(bsr_faildb *db);

typedef enum { BSR_FAILDB_NEW = 1, BSR_FAILDB_KNOWN = 0, BSR_FAILDB_BAD = -1 } bsr_faildb_add_result;

/* Learns a-b until expires_ms (local: no expiry until bsr_faildb_remove).
 * BSR_FAILDB_BAD when a and b are not adjacent nodes. */
bsr_faildb_add_result bsr_faildb_add(bsr_faildb *db, uint32_t a, uint32_t b, uint64_t expires_ms, bool local);
/* Forgets a-b: every reason when all is set (the port came back), only a
 * learned entry otherwise (a probe crossed the link). Returns 1 if the link
 * left the database. */
int bsr_faildb_remove(bsr_faildb *db, uint32_t a, uint32_t b, bool all);
/* Drops learned entries whose time has come; returns how many links left. */
uint32_t bsr_faildb_expire(bsr_faildb *db, uint64_t now_ms);
/* Forgets every learned (not local) link the path crosses; returns how many. */
uint32_t bsr_faildb_clear_path(bsr_faildb *db, const dcn_path *p);

/* The database as failures for the routing algorithms and BFS. */
const dcn_failures *bsr_faildb_view(bsr_faildb *db);
/* The database without its entry i, in a second view (allocated once):
 * the routes that exist if that one link is back. */
const dcn_failures *bsr_faildb_view_without(bsr_faildb *db, uint32_t i);
/* The path crosses no link of the database. */
bool bsr_faildb_path_ok(bsr_faildb *db, const dcn_path *p);
/* The path crosses a link of one of our own ports that is down. */
bool bsr_faildb_path_crosses_local(const bsr_faildb *db, const dcn_path *p);
/* The path crosses the link a-b (in either direction). */
bool bsr_path_crosses(const dcn_path *p, uint32_t a, uint32_t b);

#endif
