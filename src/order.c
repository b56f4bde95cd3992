/* order.c - a bottom-up merge sort (stable, no recursion, no allocation)
 * and a binary search of tables sorted by name. */
#include "order.h"

#include <string.h>

/* Copies one element; pointer-sized elements (most sorts here) skip the
 * memcpy call. */
static void order_put(char *dst, const char *src, size_t size) {
  if (size == sizeof(void *))
    memcpy(dst, src, sizeof(void *));
  else
    memcpy(dst, src, size);
}

/* Merges the sorted runs v[lo, mid) and v[mid, hi) into tmp[lo, hi): the
 * right element goes first only when strictly smaller, which keeps ties in
 * order. */
static void order_merge(const char *v, char *tmp, size_t lo, size_t mid,
                        size_t hi, size_t size, order_cmp cmp, void *arg) {
  size_t a = lo, b = mid, k = lo;
  while (a < mid && b < hi) {
    if (cmp(v + b * size, v + a * size, arg) < 0)
      order_put(tmp + k++ * size, v + b++ * size, size);
    else
      order_put(tmp + k++ * size, v + a++ * size, size);
  }
  memcpy(tmp + k * size, v + a * size, (mid - a) * size);
  k += mid - a;
  memcpy(tmp + k * size, v + b * size, (hi - b) * size);
}

void order_sort(void *v, size_t n, size_t size, void *tmp, order_cmp cmp,
                void *arg) {
  size_t w, lo;
  if (n < 2) return;
  for (w = 1; w < n; w *= 2) {
    for (lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n,
             hi = lo + 2 * w < n ? lo + 2 * w : n;
      order_merge(v, tmp, lo, mid, hi, size, cmp, arg);
    }
    memcpy(v, tmp, n * size);
  }
}

const void *order_find_name(const void *table, size_t n, size_t size,
                            const char *name) {
  const char *t = table;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *entry;
    int c;
    memcpy(&entry, t + mid * size, sizeof entry);
    /* first bytes decide most steps without a call */
    c = (unsigned char)name[0] - (unsigned char)entry[0];
    if (!c) c = strcmp(name, entry);
    if (!c) return t + mid * size;
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}
