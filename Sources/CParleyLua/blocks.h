/* Internal to CParleyLua: the per-thread small-block cache (blocks.c) under the plugin allocator. */
#ifndef PARLEY_BLOCKS_INTERNAL_H
#define PARLEY_BLOCKS_INTERNAL_H

#include <stddef.h>

/* A block of at least n bytes, or NULL. */
void *parley_block_alloc(size_t n);
/* Gives back a block whose nominal size is n (NULL is ignored). */
void parley_block_free(void *p, size_t n);
/* realloc with the nominal old size. NULL when it cannot grow, and then p is
 * untouched; a shrink never fails. */
void *parley_block_resize(void *p, size_t osize, size_t nsize);

#endif
