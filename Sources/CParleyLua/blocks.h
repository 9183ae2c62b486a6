/*
 * Internal to CParleyLua: the pool of small blocks under the plugin
 * allocator (see blocks.c for why, and for what it keeps).
 *
 * The fast paths (a pop, a push, a carve) are inline here because the
 * allocator runs several times per message event; what is rare (a thread's
 * first block, a new chunk, large blocks, moves between classes) is in
 * blocks.c.
 */
#ifndef PARLEY_BLOCKS_INTERNAL_H
#define PARLEY_BLOCKS_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>

/* Class k holds blocks of 8(k + 1) bytes: 8 to 256. */
#define PARLEY_BLOCK_CLASSES 32
#define PARLEY_BLOCK_SMALL_MAX (8 * PARLEY_BLOCK_CLASSES)

typedef struct parley_free_block {
    struct parley_free_block *next;
} parley_free_block;

/* Bytes of free blocks a thread keeps per class; past it, its list goes to
 * the shared pool (a thread that frees what others allocate must not hoard). */
#define PARLEY_BLOCK_LIST_BYTES (64 * 1024)

typedef struct parley_block_cache {
    parley_free_block *head[PARLEY_BLOCK_CLASSES];
    /* The end of each list (valid while it is not empty), and its length. */
    parley_free_block *tail[PARLEY_BLOCK_CLASSES];
    unsigned count[PARLEY_BLOCK_CLASSES];
    /* The part of this thread's current chunk no block was cut from yet. */
    char *carve;
    char *carve_end;
} parley_block_cache;

/* This thread's cache; NULL until its first small block. */
extern __thread parley_block_cache *parley_block_cache_tls;

static inline int parley_block_class(size_t n) { return n == 0 ? 0 : (int)((n - 1) >> 3); }
static inline size_t parley_block_class_size(int k) { return 8 * (size_t)(k + 1); }

/* A block of class k when this thread has none at hand (a new cache, a new
 * chunk, or blocks other threads left behind); NULL when memory is out. */
void *parley_block_alloc_slow(int k);
/* Takes back a block of class k on a thread without a cache yet. */
void parley_block_free_slow(void *p, int k);
/* Hands bc's list of class k to the shared pool (it grew past its bound). */
void parley_block_spill(parley_block_cache *bc, int k);

static inline unsigned parley_block_list_max(int k) {
    return (unsigned)(PARLEY_BLOCK_LIST_BYTES / parley_block_class_size(k));
}

/* realloc with the nominal old size, for what parley_block_resize does not do inline. */
void *parley_block_move(void *p, size_t osize, size_t nsize);

/* A block of at least n bytes, or NULL. */
static inline void *parley_block_alloc(size_t n) {
    if (n > PARLEY_BLOCK_SMALL_MAX) return malloc(n);
    int k = parley_block_class(n);
    parley_block_cache *bc = parley_block_cache_tls;
    if (bc) {
        parley_free_block *b = bc->head[k];
        if (b) {
            bc->head[k] = b->next;
            bc->count[k]--;
            return b;
        }
        size_t size = parley_block_class_size(k);
        if ((size_t)(bc->carve_end - bc->carve) >= size) {
            void *p = bc->carve;
            bc->carve += size;
            return p;
        }
    }
    return parley_block_alloc_slow(k);
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
    if (bc == NULL) {
        parley_block_free_slow(p, k);
        return;
    }
    parley_free_block *b = p;
    b->next = bc->head[k];
    if (b->next == NULL) bc->tail[k] = b;
    bc->head[k] = b;
    if (++bc->count[k] > parley_block_list_max(k)) parley_block_spill(bc, k);
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
