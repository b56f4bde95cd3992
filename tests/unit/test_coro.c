/* test_coro.c - coroutines: yield and resume keep each stack's state, a
 * finished coroutine starts again, and deep frames survive a switch. The
 * wasm build runs the same code under Asyncify through every exec (the JS
 * tests slice runs). */
#include <string.h>

#include "../../src/coro.h"
#include "test.h"

typedef struct coro_t_counter {
  coro *co;
  int n, seen[8];
} coro_t_counter;

static void coro_t_count(void *arg) {
  coro_t_counter *c = arg;
  int i, local = 100; /* lives on the coroutine's stack across yields */
  for (i = 0; i < 3; i++) {
    c->seen[c->n++] = local + i;
    coro_yield(c->co);
  }
}

TEST("coro-1 yield and resume alternate; the function's locals survive") {
  coro_t_counter c;
  memset(&c, 0, sizeof c);
  c.co = coro_create(0);
  REQUIRE(c.co);
  coro_start(c.co, coro_t_count, &c);
  CHECK(coro_resume(c.co) == 0 && c.n == 1 && c.seen[0] == 100);
  CHECK(coro_resume(c.co) == 0 && c.n == 2 && c.seen[1] == 101);
  CHECK(coro_resume(c.co) == 0 && c.n == 3 && c.seen[2] == 102);
  CHECK(coro_resume(c.co) == 1 && c.n == 3);
  /* started again: from the beginning, on the same stack */
  coro_start(c.co, coro_t_count, &c);
  CHECK(coro_resume(c.co) == 0 && c.n == 4 && c.seen[3] == 100);
  while (!coro_resume(c.co)) {
  }
  CHECK(c.n == 6);
  coro_destroy(c.co);
}

typedef struct coro_t_deep {
  coro *co;
  long sum;
} coro_t_deep;

/* Recursion with a buffer per frame, yielding at the bottom. */
static long coro_t_recurse(coro_t_deep *d, int depth) {
  char frame[256];
  long s;
  memset(frame, depth & 0x7f, sizeof frame);
  if (depth == 0) {
    coro_yield(d->co);
    return 0;
  }
  s = coro_t_recurse(d, depth - 1);
  return s + frame[depth % (int)sizeof frame];
}

static void coro_t_deep_main(void *arg) {
  coro_t_deep *d = arg;
  d->sum = coro_t_recurse(d, 1000);
}

TEST("coro-2 deep frames survive a suspension; two coroutines interleave") {
  coro_t_deep a, b;
  long want = 0;
  int i;
  for (i = 1; i <= 1000; i++) want += i & 0x7f;
  a.co = coro_create(0);
  b.co = coro_create(0);
  REQUIRE(a.co && b.co);
  a.sum = b.sum = -1;
  coro_start(a.co, coro_t_deep_main, &a);
  coro_start(b.co, coro_t_deep_main, &b);
  CHECK(coro_resume(a.co) == 0);
  CHECK(coro_resume(b.co) == 0);
  CHECK(a.sum == -1 && b.sum == -1);
  CHECK(coro_resume(b.co) == 1 && b.sum == want);
  CHECK(coro_resume(a.co) == 1 && a.sum == want);
  coro_destroy(a.co);
  coro_destroy(b.co);
  coro_destroy(NULL);
}
