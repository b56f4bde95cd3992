/* test_mem.c - unit tests for the accounted allocator and buffers. */
#include <stdint.h>
#include <string.h>

#include "../../src/buf.h"
#include "../../src/mem.h"
#include "memsandbox.h"
#include "test.h"

TEST("mem-1.1") { /* accounting, peak, blocks */
  mem m;
  void *a, *b;
  mem_init(&m, 0);
  a = mem_alloc(&m, 100);
  b = mem_zalloc(&m, 50);
  REQUIRE(a && b);
  CHECK(m.used == 150 && m.blocks == 2 && m.peak == 150);
  CHECK(mem_size(a) == 100 && ((unsigned char *)b)[49] == 0);
  a = mem_realloc(&m, a, 10);
  CHECK(a && m.used == 60 && m.peak == 150);
  a = mem_realloc(&m, a, 1000);
  CHECK(a && m.used == 1050 && m.blocks == 2);
  mem_free(&m, a);
  mem_free(&m, b);
  mem_free(&m, NULL);
  CHECK(m.used == 0 && m.blocks == 0 && m.peak == 1050);
  a = mem_alloc(&m, 0); /* zero-size blocks are real blocks */
  CHECK(a && m.blocks == 1 && m.used == 0);
  mem_free(&m, a);
  CHECK(m.blocks == 0);
}

TEST("mem-1.2") { /* the limit refuses and changes nothing */
  mem m;
  void *a, *b;
  mem_init(&m, 100);
  a = mem_alloc(&m, 60);
  REQUIRE(a);
  CHECK(mem_alloc(&m, 41) == NULL);
  CHECK(m.used == 60 && m.blocks == 1);
  b = mem_realloc(&m, a, 101);
  CHECK(b == NULL && m.used == 60 && mem_size(a) == 60);
  b = mem_realloc(&m, a, 100);
  CHECK(b != NULL && m.used == 100);
  CHECK(mem_alloc(&m, SIZE_MAX) == NULL);
  CHECK(mem_realloc(&m, b, SIZE_MAX) == NULL);
  mem_free(&m, b);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("mem-1.3") { /* fault injection counts allocations */
  mem m;
  void *a, *b, *c;
  mem_init(&m, 0);
  m.fail_after = 2;
  a = mem_alloc(&m, 1);
  b = mem_alloc(&m, 1);
  c = mem_alloc(&m, 1);
  CHECK(a && b && !c);
  CHECK(mem_alloc(&m, 1) == NULL); /* stays failed at 0 */
  m.fail_after = -1;
  c = mem_strdup(&m, "xyz");
  CHECK(c && !strcmp(c, "xyz"));
  mem_free(&m, a);
  mem_free(&m, b);
  mem_free(&m, c);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("mem-2.1") { /* arenas: small, large, reuse, failure */
  mem m;
  arena a;
  char *p, *q, *big;
  int i;
  mem_init(&m, 0);
  arena_init(&a, &m);
  p = arena_strdup(&a, "hello");
  q = arena_zalloc(&a, 33);
  CHECK(p && q && !strcmp(p, "hello") && q[32] == 0);
  CHECK(((uintptr_t)q & 15) == 0);
  big = arena_alloc(&a, 100000);
  CHECK(big != NULL);
  p = arena_alloc(&a, 16); /* small requests still use the head block */
  CHECK(p && m.blocks == 2);
  for (i = 0; i < 1000; i++) CHECK(arena_alloc(&a, 100) != NULL);
  arena_finish(&a);
  CHECK(m.used == 0 && m.blocks == 0);
  m.fail_after = 0;
  CHECK(arena_alloc(&a, 1) == NULL);
  m.fail_after = -1;
  CHECK(arena_alloc(&a, SIZE_MAX - 4) == NULL);
  arena_finish(&a);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("mem-3.1") { /* buffers: growth, NULs, sticky errors, steal */
  mem m;
  buf b;
  char *s;
  size_t n;
  int i;
  mem_init(&m, 0);
  buf_init(&b, &m);
  CHECK_STR(buf_str(&b), "");
  CHECK(buf_put(&b, "a\0b", 3) == 0 && b.len == 3 && b.p[3] == 0);
  for (i = 0; i < 1000; i++) buf_putc(&b, 'x');
  CHECK(b.len == 1003 && b.err == 0);
  CHECK(buf_printf(&b, "%d-%s", 42, "z") == 0);
  CHECK(!memcmp(b.p + 1003, "42-z", 5));
  buf_truncate(&b, 2);
  CHECK(b.len == 2 && b.p[2] == 0);
  s = buf_steal(&b, &n);
  CHECK(s && n == 2 && b.len == 0 && b.p == NULL);
  mem_free(&m, s);
  m.fail_after = 0;
  CHECK(buf_puts(&b, "abc") == MSB_ENOMEM);
  m.fail_after = -1;
  CHECK(buf_puts(&b, "abc") == MSB_ENOMEM); /* sticky */
  buf_clear(&b);
  CHECK(buf_puts(&b, "abc") == 0);
  CHECK_STR(buf_str(&b), "abc");
  buf_finish(&b);
  CHECK(buf_steal(&b, &n) == NULL && n == 0);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("mem-1.4") { /* wipe mode: realloc copies, keeps accounting and limit */
  mem m;
  char *p, *q;
  int i, ok = 1;
  mem_init(&m, 100);
  m.wipe = 1;
  p = mem_alloc(&m, 10);
  REQUIRE(p);
  memcpy(p, "0123456789", 10);
  q = mem_realloc(&m, p, 60);
  REQUIRE(q);
  CHECK(!memcmp(q, "0123456789", 10) && m.used == 60 && m.blocks == 1);
  CHECK(mem_realloc(&m, q, 101) == NULL); /* over the limit: q untouched */
  CHECK(!memcmp(q, "0123456789", 10) && m.used == 60);
  p = mem_realloc(&m, q, 4);
  REQUIRE(p);
  CHECK(!memcmp(p, "0123", 4) && m.used == 4 && mem_size(p) == 4);
  for (i = 0; i < 50; i++) {
    q = mem_realloc(&m, p, (size_t)(i % 7) * 10 + 1);
    if (!q)
      ok = 0;
    else
      p = q;
  }
  CHECK(ok && p[0] == '0');
  mem_free(&m, p);
  CHECK(m.used == 0 && m.blocks == 0);
}
