/* test.h - a tiny unit-test harness.
 *
 * TEST(id) defines a case that registers itself; the runner executes every
 * case (or those whose id starts with argv[1]) and prints
 * "N passed, M failed". CHECK records a failure and continues; REQUIRE
 * returns from the case. Case ids are stable: "vfs-3.1", "mem-1". */
#ifndef MSB_TEST_H
#define MSB_TEST_H

#include <stdio.h>
#include <string.h>

typedef struct test_case {
  const char *id;
  void (*fn)(void);
  struct test_case *next;
} test_case;

void test_register(test_case *t);
void test_fail(const char *file, int line, const char *expr);
extern int test_failed_now;

#define TEST_CAT2(a, b) a##b
#define TEST_CAT(a, b) TEST_CAT2(a, b)
#define TEST(id)                                                      \
  static void TEST_CAT(test_fn_, __LINE__)(void);                     \
  static test_case TEST_CAT(test_case_, __LINE__) = {                 \
      id, TEST_CAT(test_fn_, __LINE__), 0};                           \
  __attribute__((constructor)) static void TEST_CAT(test_reg_,        \
                                                    __LINE__)(void) { \
    test_register(&TEST_CAT(test_case_, __LINE__));                   \
  }                                                                   \
  static void TEST_CAT(test_fn_, __LINE__)(void)

#define CHECK(e)                                 \
  do {                                           \
    if (!(e)) test_fail(__FILE__, __LINE__, #e); \
  } while (0)
#define REQUIRE(e)                       \
  do {                                   \
    if (!(e)) {                          \
      test_fail(__FILE__, __LINE__, #e); \
      return;                            \
    }                                    \
  } while (0)
/* Compares two byte strings, printing both on mismatch. */
#define CHECK_STR(a, b)                                           \
  do {                                                            \
    const char *ts_a = (a), *ts_b = (b);                          \
    if (!ts_a || !ts_b || strcmp(ts_a, ts_b)) {                   \
      test_fail(__FILE__, __LINE__, #a " == " #b);                \
      fprintf(stderr, "    got:      [%s]\n    expected: [%s]\n", \
              ts_a ? ts_a : "(null)", ts_b ? ts_b : "(null)");    \
    }                                                             \
  } while (0)

#endif
