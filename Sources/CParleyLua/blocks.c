/*
 * A per-thread cache of small freed blocks for the plugin VMs' allocator.
 *
 * Why: most of what a plugin VM allocates per event is small and short-lived
 * (the event table, its strings, a reply built with `..`), and generational
 * collection frees it in batches. glibc's own per-thread cache keeps only 7
 * blocks per size, so most of a batch goes through its general free path
 * (_int_free, then _int_malloc to take it back): about 400 instructions per
 * message event and some 25 cache lines of code on the hottest path Parley
 * has. Here a free pushes the block on a list and an allocation pops one.
 *
 * Sizes: class k holds blocks of 24 + 16k usable bytes (k < 16, up to 264),
 * the usable sizes of glibc's chunks. A block is always malloc'd at its class
 * size, which glibc rounds to exactly the chunk a direct request for the
 * nominal size would get, so caching costs no memory per block.
 *
 * Bounds: at most BLOCKS_PER_CLASS blocks per class per thread (under 300
 * KiB a thread when every list is full); a free beyond that goes to free().
 * Lua states may move between threads: a block is a plain malloc'd block, so
 * any thread's cache may hold it, and free() may release it. A thread's
 * cache is released when the thread exits.
 *
 * The caller's accounting (the plugin's memory cap) is untouched: it counts
 * nominal sizes, and blocks waiting in a cache belong to no plugin.
 */
#include "blocks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CLASSES 16
#define BLOCKS_PER_CLASS 128
#define SMALL_MAX (24 + 16 * (CLASSES - 1))

typedef struct free_block {
    struct free_block *next;
} free_block;

typedef struct block_cache {
    free_block *head[CLASSES];
    unsigned count[CLASSES];
} block_cache;

static __thread block_cache *cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void release_cache(void *p) {
    block_cache *bc = p;
    for (int k = 0; k < CLASSES; k++) {
        free_block *b = bc->head[k];
        while (b) {
            free_block *next = b->next;
            free(b);
            b = next;
        }
    }
    free(bc);
    cache = NULL;
}

static void make_key(void) { (void)pthread_key_create(&cache_key, release_cache); }

/* This thread's cache, made on first use; NULL when that fails (then every
 * block goes straight to free()). */
static block_cache *thread_cache(void) {
    if (cache) return cache;
    pthread_once(&cache_key_once, make_key);
    block_cache *bc = calloc(1, sizeof *bc);
    if (bc == NULL) return NULL;
    if (pthread_setspecific(cache_key, bc) != 0) {
        free(bc);
        return NULL;
    }
    cache = bc;
    return bc;
}

static inline int class_of(size_t n) { return n <= 24 ? 0 : (int)((n - 24 + 15) >> 4); }
static inline size_t class_size(int k) { return 24 + 16 * (size_t)k; }

void *parley_block_alloc(size_t n) {
    if (n > SMALL_MAX) return malloc(n);
    int k = class_of(n);
    block_cache *bc = cache;
    if (bc && bc->head[k]) {
        free_block *b = bc->head[k];
        bc->head[k] = b->next;
        bc->count[k]--;
        return b;
    }
    return malloc(class_size(k));
}

void parley_block_free(void *p, size_t n) {
    if (p == NULL) return;
    if (n > SMALL_MAX) {
        free(p);
        return;
    }
    int k = class_of(n);
    block_cache *bc = cache ? cache : thread_cache();
    if (bc == NULL || bc->count[k] >= BLOCKS_PER_CLASS) {
        free(p);
        return;
    }
    free_block *b = p;
    b->next = bc->head[k];
    bc->head[k] = b;
    bc->count[k]++;
}

void *parley_block_resize(void *p, size_t osize, size_t nsize) {
    if (osize > SMALL_MAX && nsize > SMALL_MAX) return realloc(p, nsize);
    /* A block is at least its class's size (a large block, shrunk in place
     * below, is larger still), so staying in the class needs no move. */
    if (osize <= SMALL_MAX && nsize <= SMALL_MAX && class_of(osize) == class_of(nsize)) return p;
    void *q = parley_block_alloc(nsize);
    if (q == NULL) return nsize < osize ? p : NULL; /* a shrink keeps the block */
    memcpy(q, p, osize < nsize ? osize : nsize);
    parley_block_free(p, osize);
    return q;
}
