#include "bsr_faildb.h"

#include <string.h>

int bsr_faildb_init(bsr_faildb *db, const dcn_topo *t)
{
    memset(db, 0, sizeof *db);
    db->t = t;
    if (dcn_failures_init(&db->view, t) < 0)
        return -1;
    if (dcn_failures_init(&db->view_but_one, t) < 0) {
        dcn_failures_free(&db->view);
        return -1;
    }
    return 0;
}

void bsr_faildb_free(bsr_faildb *db)
{
    dcn_failures_free(&db->view);
    dcn_failures_free(&db->view_but_one);
}

static int find(const bsr_faildb *db, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < db->n; i++)
        if (db->e[i].a == a && db->e[i].b == b)
            return (int)i;
    return -1;
}

static void drop(bsr_faildb *db, uint32_t i)
{
    db->e[i] = db->e[--db->n];
    db->dirty = true;
}

bsr_faildb_add_result bsr_faildb_add(bsr_faildb *db, uint32_t a, uint32_t b, uint64_t expires_ms, bool local)
{
    uint32_t n = dcn_n_nodes(db->t);
    if (a >= n || b >= n || a == b || dcn_topo_port_to(db->t, a, b) < 0)
        return BSR_FAILDB_BAD;
    if (a > b) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    int i = find(db, a, b);
    if (i >= 0) {
        bsr_faildb_entry *e = &db->e[i];
        if (local)
            e->local = 1;
        else {
            if (!e->learned || expires_ms > e->expires_ms)
                e->expires_ms = expires_ms;
            e->learned = 1;
        }
        return BSR_FAILDB_KNOWN;
    }
    if (db->n == BSR_FAILDB_MAX) {
        /* Full: the learned entry closest to expiry makes room. Local
         * entries are at most one per local port, far below the size. */
        int victim = -1;
        for (uint32_t j = 0; j < db->n; j++)
            if (!db->e[j].local && (victim < 0 || db->e[j].expires_ms < db->e[victim].expires_ms))
                victim = (int)j;
        if (victim < 0)
            return BSR_FAILDB_KNOWN; /* cannot happen with sane port counts */
        drop(db, (uint32_t)victim);
    }
    bsr_faildb_entry *e = &db->e[db->n++];
    e->a = a;
    e->b = b;
    e->expires_ms = expires_ms;
    e->learned = !local;
    e->local = local;
    db->dirty = true;
    return BSR_FAILDB_NEW;
}

int bsr_faildb_remove(bsr_faildb *db, uint32_t a, uint32_t b, bool all)
{
    if (a > b) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    int i = find(db, a, b);
    if (i < 0)
        return 0;
    bsr_faildb_entry *e = &db->e[i];
    if (all || !e->local) {
        drop(db, (uint32_t)i);
        return 1;
    }
    e->learned = 0; /* the port is still down: the link stays failed */
    return 0;
}

uint32_t bsr_faildb_expire(bsr_faildb *db, uint64_t now_ms)
{
    uint32_t gone = 0;
    for (uint32_t i = 0; i < db->n;) {
        bsr_faildb_entry *e = &db->e[i];
        if (e->learned && !e->local && e->expires_ms <= now_ms) {
            drop(db, i);
            gone++;
        } else {
            if (e->learned && e->local && e->expires_ms <= now_ms)
                e->learned = 0;
            i++;
        }
    }
    return gone;
}

uint32_t bsr_faildb_clear_path(bsr_faildb *db, const dcn_path *p)
{
    uint32_t gone = 0;
    if (!db->n)
        return 0;
    for (uint32_t i = 0; i + 1 < p->len; i++)
        gone += (uint32_t)bsr_faildb_remove(db, p->node[i], p->node[i + 1], false);
    return gone;
}

const dcn_failures *bsr_faildb_view(bsr_faildb *db)
{
    if (db->dirty) {
        dcn_failures_clear(&db->view, db->t);
        for (uint32_t i = 0; i < db->n; i++)
            dcn_fail_link(&db->view, db->t, db->e[i].a, db->e[i].b);
        db->dirty = false;
    }
    return &db->view;
}

const dcn_failures *bsr_faildb_view_without(bsr_faildb *db, uint32_t skip)
{
    dcn_failures_clear(&db->view_but_one, db->t);
    for (uint32_t i = 0; i < db->n; i++)
        if (i != skip)
            dcn_fail_link(&db->view_but_one, db->t, db->e[i].a, db->e[i].b);
    return &db->view_but_one;
}

bool bsr_path_crosses(const dcn_path *p, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i + 1 < p->len; i++) {
        uint32_t u = p->node[i], v = p->node[i + 1];
        if ((u == a && v == b) || (u == b && v == a))
            return true;
    }
    return false;
}

bool bsr_faildb_path_ok(bsr_faildb *db, const dcn_path *p)
{
    for (uint32_t i = 0; i < db->n; i++)
        if (bsr_path_crosses(p, db->e[i].a, db->e[i].b))
            return false;
    return true;
}

bool bsr_faildb_path_crosses_local(const bsr_faildb *db, const dcn_path *p)
{
    for (uint32_t i = 0; i < db->n; i++)
        if (db->e[i].local && bsr_path_crosses(p, db->e[i].a, db->e[i].b))
            return true;
    return false;
}
