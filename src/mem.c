/* mem.c - accounted allocation with a limit and fault injection.
 *
 * Blocks carry a 16-byte header (keeps payload alignment at 16) holding the
 * requested size. The limit check happens before asking the system, so an
 * over-limit request changes nothing. Knowing each block's size also lets
 * wipe mode zero a block before the system gets it back. */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#define MEM_HDR 16

/* memset through a volatile pointer: a store just before free is dead to
 * the compiler, which would otherwise drop it. */
static void *(*const volatile mem_memset)(void *, int, size_t) = memset;

static void mem_wipe(void *p, size_t n) { mem_memset(p, 0, n); }

static int mem_admit(mem *m, size_t grow) {
  if (m->fail_after == 0) return 0;
  if (m->fail_after > 0) m->fail_after--;
  if (m->limit && (grow > m->limit || m->used > m->limit - grow)) return 0;
  return 1;
}

static void mem_account(mem *m, size_t old, size_t n) {
  m->used = m->used - old + n;
  if (m->used > m->peak) m->peak = m->used;
}

void mem_init(mem *m, size_t limit) {
  memset(m, 0, sizeof *m);
  m->limit = limit;
  m->fail_after = -1;
}

size_t mem_size(const void *p) {
  size_t n;
  memcpy(&n, (const char *)p - MEM_HDR, sizeof n);
  return n;
}

void *mem_alloc(mem *m, size_t n) {
  char *p;
  if (n > SIZE_MAX - MEM_HDR || !mem_admit(m, n)) return NULL;
  p = malloc(n + MEM_HDR);
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  mem_account(m, 0, n);
  m->blocks++;
  return p + MEM_HDR;
}

void *mem_zalloc(mem *m, size_t n) {
  void *p = mem_alloc(m, n);
  if (p) memset(p, 0, n);
  return p;
}

void *mem_realloc(mem *m, void *p, size_t n) {
  size_t old;
  char *q;
  if (!p) return mem_alloc(m, n);
  old = mem_size(p);
  if (n > SIZE_MAX - MEM_HDR) return NULL;
  if (n > old && !mem_admit(m, n - old)) return NULL;
  if (m->wipe) {
    q = malloc(n + MEM_HDR);
    if (!q) return NULL;
    memcpy(q + MEM_HDR, p, n < old ? n : old);
    mem_wipe(p, old);
    free((char *)p - MEM_HDR);
  } else {
    q = realloc((char *)p - MEM_HDR, n + MEM_HDR);
    if (!q) return NULL;
  }
  memcpy(q, &n, sizeof n);
  mem_account(m, old, n);
  return q + MEM_HDR;
}

void mem_free(mem *m, void *p) {
  if (!p) return;
  if (m->wipe) mem_wipe(p, mem_size(p));
  mem_account(m, mem_size(p), 0);
  m->blocks--;
  free((char *)p - MEM_HDR);
}

char *mem_strndup(mem *m, const char *s, size_t n) {
  char *p = mem_alloc(m, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *mem_strdup(mem *m, const char *s) { return mem_strndup(m, s, strlen(s)); }

/* Arena blocks: a linked list; requests larger than the default block size
 * get a block of their own. */
struct arena_blk {
  arena_blk *next;
  size_t used, cap;
  /* payload follows, 16-byte aligned because the header is 32 bytes */
  size_t pad;
};

#define ARENA_BLOCK 8192

void arena_init(arena *a, mem *m) {
  a->m = m;
  a->head = NULL;
}

void *arena_alloc(arena *a, size_t n) {
  arena_blk *b = a->head;
  size_t need = (n + 15) & ~(size_t)15;
  if (need < n) return NULL;
  if (!b || b->cap - b->used < need) {
    size_t cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;
    if (cap > SIZE_MAX - sizeof *b) return NULL;
    b = mem_alloc(a->m, sizeof *b + cap);
    if (!b) return NULL;
    b->used = 0;
    b->cap = cap;
    if (a->head && need > ARENA_BLOCK) {
      /* keep the partly used head block current for small requests */
      b->next = a->head->next;
      a->head->next = b;
    } else {
      b->next = a->head;
      a->head = b;
    }
  }
  b->used += need;
  return (char *)(b + 1) + b->used - need;
}

void *arena_zalloc(arena *a, size_t n) {
  void *p = arena_alloc(a, n);
  if (p) memset(p, 0, n);
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(arena *a, const char *s) {
  return arena_strndup(a, s, strlen(s));
}

void arena_finish(arena *a) {
  arena_blk *b = a->head, *next;
  for (; b; b = next) {
    next = b->next;
    mem_free(a->m, b);
  }
  a->head = NULL;
}

int arena_each(const arena *a, int (*fn)(void *ctx, const void *p, size_t n),
               void *ctx) {
  const arena_blk *b;
  int r;
  for (b = a->head; b; b = b->next)
    if ((r = fn(ctx, b + 1, b->used)) != 0) return r;
  return 0;
}
