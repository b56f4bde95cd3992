/* test_order.c - the shared stable sort and name-table search
 * (src/order.c). */
#include <string.h>

#include "../../src/order.h"
#include "test.h"

typedef struct to_pair {
  const char *name;
  int key, seq;
} to_pair;

static int to_by_key(const void *a, const void *b, void *arg) {
  (void)arg;
  return ((const to_pair *)a)->key - ((const to_pair *)b)->key;
}

TEST("order-1.1 sort: ordered, stable for ties, any length") {
  to_pair v[37], tmp[37];
  size_t n, i;
  for (n = 0; n <= 37; n++) {
    for (i = 0; i < n; i++) {
      v[i].key = (int)((i * 7) % 5); /* many ties */
      v[i].seq = (int)i;
    }
    order_sort(v, n, sizeof *v, tmp, to_by_key, NULL);
    for (i = 1; i < n; i++) {
      CHECK(v[i - 1].key <= v[i].key);
      if (v[i - 1].key == v[i].key) CHECK(v[i - 1].seq < v[i].seq);
    }
  }
}

static int to_by_str(const void *a, const void *b, void *arg) {
  (void)arg;
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

TEST("order-1.2 sort of pointers, then found by name") {
  const char *v[] = {"sort", "[", "cat", "b2sum", "zcat", "cut", "awk"};
  const char *tmp[7];
  static const to_pair table[] = {{"[", 0, 0},   {"awk", 1, 0}, {"b2sum", 2, 0},
                                  {"cat", 3, 0}, {"cut", 4, 0}, {"sort", 5, 0},
                                  {"zcat", 6, 0}};
  size_t i;
  order_sort(v, 7, sizeof *v, tmp, to_by_str, NULL);
  for (i = 0; i < 7; i++) {
    const to_pair *p = order_find_name(table, 7, sizeof *table, v[i]);
    CHECK(p && p->key == (int)i);
  }
  CHECK(order_find_name(table, 7, sizeof *table, "") == NULL);
  CHECK(order_find_name(table, 7, sizeof *table, "ca") == NULL);
  CHECK(order_find_name(table, 7, sizeof *table, "zz") == NULL);
  CHECK(order_find_name(table, 0, sizeof *table, "cat") == NULL);
}
