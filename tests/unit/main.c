/* main.c - runs every registered unit test case in id order. */
#include <stdlib.h>

#include "test.h"

static test_case *test_list;
int test_failed_now;

void test_register(test_case *t) {
  test_case **p = &test_list;
  while (*p && strcmp((*p)->id, t->id) < 0) p = &(*p)->next;
  t->next = *p;
  *p = t;
}

void test_fail(const char *file, int line, const char *expr) {
  test_failed_now = 1;
  fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, expr);
}

int main(int argc, char **argv) {
  int passed = 0, failed = 0;
  test_case *t;
  for (t = test_list; t; t = t->next) {
    if (argc > 1 && strncmp(t->id, argv[1], strlen(argv[1]))) continue;
    test_failed_now = 0;
    t->fn();
    if (test_failed_now) {
      fprintf(stderr, "not ok %s\n", t->id);
      failed++;
    } else {
      passed++;
    }
  }
  printf("unit: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
