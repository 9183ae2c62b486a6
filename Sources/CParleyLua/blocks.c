/*
 * The pool of small blocks under the plugin VMs' allocator.
 *
 * Why a pool: a plugin VM is hundreds of small objects (strings, tables,
 * closures, upvalues), and Lua always says how big a block is when it frees
 * or resizes it. So a block needs no header: cut from a chunk at its exact
 * class size, it costs its bytes and nothing more, where glibc adds 8 bytes
 * to each and rounds it to 16. For a fleet of simulated users that is about
 * a sixth of every VM.
 *
 * Why per thread: most of what a VM allocates per event is small and
 * short-lived (the event table, its strings, a reply built with `..`), and
 * generational collection frees it in batches. A free pushes the block on
 * its thread's list and an allocation pops one (the inline fast paths in
 * blocks.h): no lock, and none of glibc's general free path.
 *
 * Sizes: class k holds blocks of 8(k + 1) bytes (k < 32, up to 256), cut
 * from chunks of PARLEY_CHUNK_BYTES. Larger blocks are plain malloc/realloc.
 *
 * What it keeps: a small block, once cut, stays in the pool for the life of
 * the process, free for any VM of any thread: the pool holds the most small
 * blocks the VMs ever held at once, bounded by their memory caps. Lua states
 * may move between threads; a block goes to the list of whichever thread
 * frees it. A thread keeps at most PARLEY_BLOCK_LIST_BYTES of free blocks a
 * class; past that, and when it exits, its blocks go to a shared pool, which
 * a thread short of a class takes from (up to the same bound) before it cuts
 * new ones. So a thread that frees what another allocates hands the memory
 * back instead of hoarding it.
 *
 * The caller's accounting (the plugin's memory cap) is untouched: it counts
 * nominal sizes, and blocks waiting in the pool belong to no plugin.
 */
#include "blocks.h"
#include "parley_lua.h"

#include <pthread.h>
#include <string.h>

#define PARLEY_CHUNK_BYTES (64 * 1024)

__thread parley_block_cache *parley_block_cache_tls;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

/* Blocks of exited threads, and of frees on a thread that could not get a cache. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static parley_free_block *shared_head[PARLEY_BLOCK_CLASSES];

static void push_shared(parley_free_block *first, parley_free_block *last, int k) {
    pthread_mutex_lock(&shared_lock);
    last->next = shared_head[k];
    shared_head[k] = first;
    pthread_mutex_unlock(&shared_lock);
}

/* Pushes b on bc's list of class k (no bound check: the callers' lists are short). */
static void push_local(parley_block_cache *bc, int k, parley_free_block *b) {
    b->next = bc->head[k];
    if (b->next == NULL) bc->tail[k] = b;
    bc->head[k] = b;
    bc->count[k]++;
}

void parley_block_spill(parley_block_cache *bc, int k) {
    push_shared(bc->head[k], bc->tail[k], k);
    bc->head[k] = NULL;
    bc->count[k] = 0;
}

/* Cuts what is left of a chunk into blocks, largest first, onto lists. */
static void cut_rest(parley_block_cache *bc) {
    while (bc->carve_end - bc->carve >= 8) {
        size_t left = (size_t)(bc->carve_end - bc->carve);
        int k = parley_block_class(left > PARLEY_BLOCK_SMALL_MAX ? PARLEY_BLOCK_SMALL_MAX : left & ~(size_t)7);
        parley_free_block *b = (parley_free_block *)bc->carve;
        bc->carve += parley_block_class_size(k);
        push_local(bc, k, b);
    }
    bc->carve = bc->carve_end = NULL;
}

static void release_cache(void *p) {
    parley_block_cache *bc = p;
    cut_rest(bc);
    for (int k = 0; k < PARLEY_BLOCK_CLASSES; k++)
        if (bc->head[k]) parley_block_spill(bc, k);
    free(bc);
    parley_block_cache_tls = NULL;
}

static void make_key(void) { (void)pthread_key_create(&cache_key, release_cache); }

/* This thread's cache, made on first use; NULL when that fails. */
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

void *parley_block_alloc_slow(int k) {
    parley_block_cache *bc = thread_cache();
    /* Shared blocks of the class first: one for a thread without a cache,
     * up to half a list's bound for the others (the first is returned). */
    unsigned want = bc ? parley_block_list_max(k) / 2 : 1;
    pthread_mutex_lock(&shared_lock);
    parley_free_block *first = shared_head[k], *last = first;
    unsigned n = first ? 1 : 0;
    while (first && n < want && last->next) {
        last = last->next;
        n++;
    }
    if (first) shared_head[k] = last->next;
    pthread_mutex_unlock(&shared_lock);
    if (first) {
        last->next = NULL;
        if (bc && first != last) {
            bc->head[k] = first->next;
            bc->tail[k] = last;
            bc->count[k] = n - 1;
        }
        return first;
    }
    size_t size = parley_block_class_size(k);
    if (bc == NULL) return malloc(size); /* no cache: such a block then simply stays in the pool when freed */
    if (bc->carve_end - bc->carve < (ptrdiff_t)size) {
        char *chunk = malloc(PARLEY_CHUNK_BYTES);
        if (chunk == NULL) return NULL;
        cut_rest(bc);
        bc->carve = chunk;
        bc->carve_end = chunk + PARLEY_CHUNK_BYTES;
    }
    void *p = bc->carve;
    bc->carve += size;
    return p;
}

void parley_block_free_slow(void *p, int k) {
    parley_block_cache *bc = thread_cache();
    parley_free_block *b = p;
    if (bc == NULL) {
        push_shared(b, b, k);
        return;
    }
    push_local(bc, k, b);
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

size_t parley_block_free_bytes(void) {
    parley_block_cache *bc = parley_block_cache_tls;
    size_t n = 0;
    for (int k = 0; bc && k < PARLEY_BLOCK_CLASSES; k++) n += bc->count[k] * parley_block_class_size(k);
    return n;
}
