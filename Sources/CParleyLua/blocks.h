/*
 * Internal to CParleyLua: the per-thread cache of small freed blocks under
 * the plugin allocator (see blocks.c for why and for the bounds).
 *
 * The fast paths (a pop, a push) are inline here because the allocator runs
 * several times per message event; what is rare (a thread's first free, a
 * full list, large blocks, moves between classes) is in blocks.c.
 */
#ifndef PARLEY_BLOCKS_INTERNAL_H
#define PARLEY_BLOCKS_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>

#define PARLEY_BLOCK_CLASSES 16
#define PARLEY_BLOCKS_PER_CLASS 128
/* Class k holds blocks of 24 + 16k usable bytes: glibc's chunk sizes. */
#define PARLEY_BLOCK_SMALL_MAX (24 + 16 * (PARLEY_BLOCK_CLASSES - 1))

typedef struct parley_free_block {
    struct parley_free_block *next;
} parley_free_block;

typedef struct parley_block_cache {
    parley_free_block *head[PARLEY_BLOCK_CLASSES];
    unsigned count[PARLEY_BLOCK_CLASSES];
} parley_block_cache;

/* This thread's cache; NULL until its first free of a small block. */
extern __thread parley_block_cache *parley_block_cache_tls;

static inline int parley_block_class(size_t n) { return n <= 24 ? 0 : (int)((n - 24 + 15) >> 4); }
static inline size_t parley_block_class_size(int k) { return 24 + 16 * (size_t)k; }

/* Gives back a small block to a thread without a cache yet or with a full list. */
void parley_block_free_slow(void *p, int k);

/* Pushes a small block of class k on bc's list, if the list has room; 0 when it has not. */
static inline int parley_block_push(parley_block_cache *bc, int k, void *p) {
    if (bc->count[k] >= PARLEY_BLOCKS_PER_CLASS) return 0;
    parley_free_block *b = p;
    b->next = bc->head[k];
    bc->head[k] = b;
    bc->count[k]++;
    return 1;
}

/* realloc with the nominal old size, for what parley_block_resize does not do inline. */
void *parley_block_move(void *p, size_t osize, size_t nsize);

/* A block of at least n bytes, or NULL. */
static inline void *parley_block_alloc(size_t n) {
    if (n > PARLEY_BLOCK_SMALL_MAX) return malloc(n);
    int k = parley_block_class(n);
    parley_block_cache *bc = parley_block_cache_tls;
    if (bc && bc->head[k]) {
        parley_free_block *b = bc->head[k];
        bc->head[k] = b->next;
        bc->count[k]--;
        return b;
    }
    return malloc(parley_block_class_size(k));
}

/* Gives back a block whose nominal size is n (NULL is ignored). */
static inline void parley_block_free(void *p, size_t n) {
    if (p == NULL) return;
    if (n > PARLEY_BLOCK_SMALL_MAX) {
        free(p);
        return;
    }
    int k = parley_block_class(n);
    parley_block_cache *bc = parley_block_cache_tls;
    if (bc == NULL || !parley_block_push(bc, k, p)) parley_block_free_slow(p, k);
}

/* realloc with the nominal old size. NULL when it cannot grow, and then p is
 * untouched; a shrink never fails. */
static inline void *parley_block_resize(void *p, size_t osize, size_t nsize) {
    /* A block is at least its class's size (one kept on a failed shrink is
     * larger still), so staying in the class needs no move. */
    if (osize <= PARLEY_BLOCK_SMALL_MAX && nsize <= PARLEY_BLOCK_SMALL_MAX &&
        parley_block_class(osize) == parley_block_class(nsize))
        return p;
    return parley_block_move(p, osize, nsize);
}

#endif
