/* mem.h - the only path to the system allocator: accounting, limits,
 * fault injection, and per-invocation arenas.
 *
 * Every allocation in the core goes through a `mem` owned by one sandbox.
 * Each block carries a small header holding its size, so accounting is exact
 * and callers never pass sizes back. A failed allocation returns NULL; callers
 * turn that into MSB_ENOMEM and leave their state unchanged. */
#ifndef MSB_MEM_H
#define MSB_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct mem {
  size_t used;     /* bytes currently allocated (payload only) */
  size_t peak;     /* high-water mark of used */
  size_t limit;    /* 0 = unlimited; otherwise used may never exceed it */
  size_t blocks;   /* live block count (leak checks) */
  long fail_after; /* fault injection: <0 off; 0 = next allocation fails */
  int wipe;        /* zero every block before it goes back to the system
                      (set while secret values are in memory) */
} mem;

/* Starts accounting with a byte limit (0 = unlimited); injection off. */
void mem_init(mem *m, size_t limit);

/* Allocates n bytes (n may be 0); NULL when over the limit, injected, or the
 * system refuses. */
void *mem_alloc(mem *m, size_t n);
/* As mem_alloc, zero-filled. */
void *mem_zalloc(mem *m, size_t n);
/* Resizes p (NULL = allocate). On failure returns NULL and p is untouched.
 * With wipe set, a block that moves is copied and zeroed by hand, since
 * realloc would release the old bytes as they are. */
void *mem_realloc(mem *m, void *p, size_t n);
/* Frees p (zeroed first with wipe set); NULL is accepted. */
void mem_free(mem *m, void *p);
/* Owned NUL-terminated copy of n bytes of s. */
char *mem_strndup(mem *m, const char *s, size_t n);
/* Owned copy of a NUL-terminated string. */
char *mem_strdup(mem *m, const char *s);
/* Bytes a live block holds (its requested size). */
size_t mem_size(const void *p);

/* Arena: many small allocations freed together. Used for one command
 * invocation or one parse; never for long-lived data. */
typedef struct arena_blk arena_blk;
typedef struct arena {
  mem *m;
  arena_blk *head;
} arena;

void arena_init(arena *a, mem *m);
/* 16-byte aligned; NULL on failure. */
void *arena_alloc(arena *a, size_t n);
void *arena_zalloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
/* Frees every block; the arena can be reused afterwards. */
void arena_finish(arena *a);
/* Calls fn on the bytes handed out from each block (one call per block)
 * until it returns non-zero; returns that value, or 0. */
int arena_each(const arena *a, int (*fn)(void *ctx, const void *p, size_t n),
               void *ctx);

#endif
