/*
 * A per-thread cache of small freed blocks for the plugin VMs' allocator.
 *
 * Why: most of what a plugin VM allocates per event is small and short-lived
 * (the event table, its strings, a reply built with `..`), and generational
 * collection frees it in batches. glibc's own per-thread cache keeps only 7
 * blocks per size, so most of a batch goes through its general free path
 * (_int_free, then _int_malloc to take it back): about 400 instructions per
 * message event and some 25 cache lines of code on the hottest path Parley
 * has. Here a free pushes the block on a list and an allocation pops one
 * (the inline fast paths in blocks.h).
 *
 * Sizes: class k holds blocks of 24 + 16k usable bytes (k < 16, up to 264),
 * the usable sizes of glibc's chunks. A block is always malloc'd at its class
 * size, which glibc rounds to exactly the chunk a direct request for the
 * nominal size would get, so caching costs no memory per block.
 *
 * Bounds: at most PARLEY_BLOCKS_PER_CLASS blocks per class per thread (288
 * KiB of blocks, about 304 KiB with glibc's chunk headers, when every list is
 * full); a free beyond that goes to free(). Lua states may move between
 * threads: a block is a plain malloc'd block, so any thread's cache may hold
 * it, and free() may release it. A thread's cache is released when the
 * thread exits.
 *
 * The caller's accounting (the plugin's memory cap) is untouched: it counts
 * nominal sizes, and blocks waiting in a cache belong to no plugin.
 */
#include "blocks.h"

#include <pthread.h>
#include <string.h>

__thread parley_block_cache *parley_block_cache_tls;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void release_cache(void *p) {
    parley_block_cache *bc = p;
    for (int k = 0; k < PARLEY_BLOCK_CLASSES; k++) {
        parley_free_block *b = bc->head[k];
        while (b) {
            parley_free_block *next = b->next;
            free(b);
            b = next;
        }
    }
    free(bc);
    parley_block_cache_tls = NULL;
}

static void make_key(void) { (void)pthread_key_create(&cache_key, release_cache); }

/* This thread's cache, made on first use; NULL when that fails (then every
 * block goes straight to free()). */
static parley_block_cache *thread_cache(void) {
    if (parley_block_cache_tls) return parley_block_cache_tls;
    pthread_once(&cache_key_once, make_key);
    parley_block_cache *bc = calloc(1, sizeof *bc);
    if (bc == NULL) return NULL;
    if (pthread_setspecific(cache_key, bc) != 0) {
        free(bc);
        return NULL;
    }
    parley_block_cache_tls = bc;
    return bc;
}

void parley_block_free_slow(void *p, int k) {
    parley_block_cache *bc = thread_cache();
    if (bc == NULL || !parley_block_push(bc, k, p)) free(p);
}

void *parley_block_move(void *p, size_t osize, size_t nsize) {
    void *q;
    if (osize > PARLEY_BLOCK_SMALL_MAX && nsize > PARLEY_BLOCK_SMALL_MAX) {
        q = realloc(p, nsize);
        return q ? q : nsize < osize ? p : NULL; /* a shrink keeps the block */
    }
    q = parley_block_alloc(nsize);
    if (q == NULL) return nsize < osize ? p : NULL; /* a shrink keeps the block */
    memcpy(q, p, osize < nsize ? osize : nsize);
    parley_block_free(p, osize);
    return q;
}
