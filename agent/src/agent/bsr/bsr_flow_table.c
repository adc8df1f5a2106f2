#include "bsr_flow_table.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int bsr_flow_table_init(bsr_flow_table *ft, uint32_t capacity)
{
    memset(ft, 0, sizeof *ft);
    if (capacity == 0 || capacity > (1u << 24))
        return -1;
    uint32_t nb = 1;
    while (nb < 2 * capacity)
        nb <<= 1;
    ft->flows = calloc(capacity, sizeof *ft->flows);
    ft->bucket = malloc((size_t)nb * sizeof *ft->bucket);
    if (!ft->flows || !ft->bucket) {
        bsr_flow_table_free(ft);
        return -1;
    }
    ft->capacity = capacity;
    ft->nbuckets_mask = nb - 1;
    for (uint32_t i = 0; i < nb; i++)
        ft->bucket[i] = BSR_NIL;
    /* Flows are handed out in order first, so the (large) pool is not
     * touched before it is needed. */
    ft->free_head = BSR_NIL;
    ft->never_used = 0;
    ft->lru_head = ft->lru_tail = BSR_NIL;
    return 0;
}

void bsr_flow_table_free(bsr_flow_table *ft)
{
    free(ft->flows);
    free(ft->bucket);
    memset(ft, 0, sizeof *ft);
}

bool bsr_flow_key_eq(const bsr_flow_key *a, const bsr_flow_key *b)
{
    return a->src_ip == b->src_ip && a->dst_ip == b->dst_ip && a->src_port == b->src_port &&
           a->dst_port == b->dst_port && a->proto == b->proto;
}

static uint32_t key_hash(const bsr_flow_key *k)
{
    /* Field by field (the struct has padding), mixed with a 64-bit finaliser. */
    uint64_t h = ((uint64_t)k->src_ip << 32) ^ k->dst_ip;
    h ^= ((uint64_t)k->src_port << 40) ^ ((uint64_t)k->dst_port << 16) ^ ((uint64_t)k->proto << 56);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static uint32_t idx(const bsr_flow_table *ft, const bsr_flow *f) { return (uint32_t)(f - ft->flows); }

bsr_flow *bsr_flow_find(bsr_flow_table *ft, const bsr_flow_key *k)
{
    for (uint32_t i = ft->bucket[key_hash(k) & ft->nbuckets_mask]; i != BSR_NIL; i = ft->flows[i].hnext)
        if (bsr_flow_key_eq(&ft->flows[i].key, k))
            return &ft->flows[i];
    return NULL;
}

static void lru_unlink(bsr_flow_table *ft, bsr_flow *f)
{
    if (f->lru_prev != BSR_NIL)
        ft->flows[f->lru_prev].lru_next = f->lru_next;
    else
        ft->lru_head = f->lru_next;
    if (f->lru_next != BSR_NIL)
        ft->flows[f->lru_next].lru_prev = f->lru_prev;
    else
        ft->lru_tail = f->lru_prev;
}

static void lru_push_head(bsr_flow_table *ft, bsr_flow *f)
{
    uint32_t i = idx(ft, f);
    f->lru_prev = BSR_NIL;
    f->lru_next = ft->lru_head;
    if (ft->lru_head != BSR_NIL)
        ft->flows[ft->lru_head].lru_prev = i;
    else
        ft->lru_tail = i;
    ft->lru_head = i;
}

bsr_flow *bsr_flow_insert(bsr_flow_table *ft, const bsr_flow_key *k)
{
    uint32_t i;
    if (ft->free_head != BSR_NIL) {
        i = ft->free_head;
        ft->free_head = ft->flows[i].hnext;
    } else if (ft->never_used < ft->capacity) {
        i = ft->never_used++;
    } else {
        return NULL;
    }
    bsr_flow *f = &ft->flows[i];
    memset(f, 0, offsetof(bsr_flow, cur)); /* the scalars; see bsr_flow's layout */
    f->cur.len = 0;
    f->key = *k;
    f->used = true;
    uint32_t *head = &ft->bucket[key_hash(k) & ft->nbuckets_mask];
    f->hnext = *head;
    *head = i;
    lru_push_head(ft, f);
    ft->count++;
    return f;
}

void bsr_flow_remove(bsr_flow_table *ft, bsr_flow *f)
{
    uint32_t i = idx(ft, f);
    uint32_t *link = &ft->bucket[key_hash(&f->key) & ft->nbuckets_mask];
    while (*link != BSR_NIL && *link != i)
        link = &ft->flows[*link].hnext;
    if (*link == i)
        *link = f->hnext;
    lru_unlink(ft, f);
    f->used = false;
    f->hnext = ft->free_head;
    ft->free_head = i;
    ft->count--;
}

void bsr_flow_touch(bsr_flow_table *ft, bsr_flow *f)
{
    if (ft->lru_head == idx(ft, f))
        return;
    lru_unlink(ft, f);
    lru_push_head(ft, f);
}

bsr_flow *bsr_flow_lru_tail(bsr_flow_table *ft) { return ft->lru_tail == BSR_NIL ? NULL : &ft->flows[ft->lru_tail]; }

bsr_flow *bsr_flow_first(const bsr_flow_table *ft)
{
    return ft->lru_head == BSR_NIL ? NULL : &ft->flows[ft->lru_head];
}

bsr_flow *bsr_flow_next(const bsr_flow_table *ft, const bsr_flow *f)
{
    return f->lru_next == BSR_NIL ? NULL : &ft->flows[f->lru_next];
}
