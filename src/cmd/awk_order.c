/* awk_order.c - for (k in a) lists keys in the order gawk stores them,
 * which programs' output depends on; this models gawk's storage.
 *
 * The first key picks the array's type. A non-negative 32-bit integer
 * makes a "cint" array: such keys sit in power-of-two leaves and are listed
 * last, ascending; a key that would waste too many leaf slots (sparse large
 * integers) or is no such integer goes to the extra part, typed by its own
 * first key and listed first. A negative integer makes an integer hash
 * table, and anything else a string hash table; an integer table keeps its
 * non-integer keys in a string table listed before it.
 *
 * Both hash tables start at 13 buckets and grow through a list of primes
 * (more than 2 keys a bucket on average).
 * The string table hashes with sdbm and puts a new key at the head of its
 * chain; the integer table mixes the key (Paul Hsieh's final avalanche) and
 * keeps buckets of two keys, new buckets at the head. Growing re-inserts
 * the keys in listing order. Tables are listed bucket by bucket, each chain
 * from its head. Ranks (gstamp) order keys within a bucket; deleting from
 * an integer table is modelled as a plain removal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awk.h"

enum { AK_NONE, AK_CINT, AK_STR, AK_INT };

enum {
  NHAT = 10,            /* gawk's cint leaves hold at most 2^NHAT keys */
  CINT_WASTE = 2048,    /* unused leaf slots gawk tolerates: 2^(NHAT + 1) */
  STR_CHAIN_MAX = 2,    /* keys a string bucket holds before growth */
  INT_CHAIN_MAX = 2     /* and an integer bucket (gawk 5.2) */
};

static const uint32_t awk_gsizes[] = {
    13,       127,      1021,     8191,      16381,     32749,     65497,
    131101,   262147,   524309,   1048583,   2097169,   4194319,   8388617,
    16777259, 33554467, 67108879, 134217757, 268435459, 536870923, 1073741827};

/* gawk's integer subscript: "0" or -?[1-9][0-9]* within 32 bits. */
static int awk_gint(const awk_str *k, int32_t *v) {
  const char *p = k->p;
  size_t n = k->len, i = p[0] == '-';
  long long x = 0;
  if (!n || n > 11 || i == n) return 0;
  if (p[i] == '0') return n == 1 && (*v = 0, 1);
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return 0;
    x = x * 10 + (p[i] - '0');
  }
  if (p[0] == '-') x = -x;
  if (x < -2147483648LL || x > 2147483647LL) return 0;
  *v = (int32_t)x;
  return 1;
}

/* The string table's hash: sdbm over the bytes as signed chars. */
static uint32_t awk_str_code(const awk_str *k) {
  uint32_t h = 0;
  size_t i;
  for (i = 0; i < k->len; i++)
    h = h * 65599u + (uint32_t)(int32_t)(signed char)k->p[i];
  return h;
}

/* The integer table's hash. */
static uint32_t awk_int_code(int32_t v) {
  uint32_t k = (uint32_t)v;
  k ^= k << 3;
  k += k >> 5;
  k ^= k << 4;
  k += k >> 17;
  k ^= k << 25;
  k += k >> 6;
  return k;
}

static uint32_t awk_next_size(uint32_t size) {
  size_t i;
  for (i = 0; i < sizeof awk_gsizes / sizeof awk_gsizes[0]; i++)
    if (awk_gsizes[i] > size) return awk_gsizes[i];
  return size;
}

typedef struct awk_gref {
  awk_ent *e;
  uint32_t bucket, pos; /* pos: place in the bucket's insertion order */
} awk_gref;

static int awk_gref_str(const void *x, const void *y) {
  const awk_gref *a = x, *b = y;
  if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
  return a->e->gstamp > b->e->gstamp ? -1 : a->e->gstamp < b->e->gstamp;
}

static int awk_gref_rank(const void *x, const void *y) {
  const awk_gref *a = x, *b = y;
  if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
  return a->e->gstamp < b->e->gstamp ? -1 : a->e->gstamp > b->e->gstamp;
}

/* Integer buckets hold pairs, the newest pair first: within one hash
 * bucket, the pair index descending, then the older key first. */
static int awk_gref_int(const void *x, const void *y) {
  const awk_gref *a = x, *b = y;
  if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
  if (a->pos / 2 != b->pos / 2) return a->pos / 2 > b->pos / 2 ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The keys of one table (part) in gawk's listing order, skipping `skip`;
 * the caller frees *out. */
static int awk_table(awk_rt *A, awk_arr *a, int part, awk_ent *skip,
                     awk_gref **out, size_t *cnt) {
  uint32_t size = part == AP_STR ? a->gsize : a->isize;
  awk_gref *r = mem_alloc(A->m, sizeof *r * (a->live + 1));
  size_t i, m = 0;
  if (!r) return A->err = MSB_ENOMEM;
  for (i = 0; i < a->n; i++) {
    awk_ent *e = &a->e[i];
    if (!e->key || e->gpart != part || e == skip) continue;
    r[m].e = e;
    r[m++].bucket = e->gcode % size;
  }
  if (part == AP_STR)
    qsort(r, m, sizeof *r, awk_gref_str);
  else {
    qsort(r, m, sizeof *r, awk_gref_rank);
    for (i = 0; i < m; i++)
      r[i].pos = i && r[i - 1].bucket == r[i].bucket ? r[i - 1].pos + 1 : 0;
    qsort(r, m, sizeof *r, awk_gref_int);
  }
  *out = r;
  *cnt = m;
  return 0;
}

/* Grows a table: its keys re-inserted in listing order get new ranks. */
static int awk_table_grow(awk_rt *A, awk_arr *a, int part, awk_ent *fresh) {
  uint32_t *size = part == AP_STR ? &a->gsize : &a->isize;
  uint32_t next = awk_next_size(*size);
  size_t i, m;
  awk_gref *r;
  if (next == *size) return 0;
  if (awk_table(A, a, part, fresh, &r, &m)) return A->err;
  /* re-inserted in listing order: a string key moved last heads its new
   * chain (the highest rank), an integer key fills its new bucket in turn */
  for (i = 0; i < m; i++) r[i].e->gstamp = (uint32_t)i + 1;
  if (part == AP_STR)
    a->gtick = (uint32_t)m;
  else
    a->itick = (uint32_t)m;
  *size = next;
  mem_free(A->m, r);
  return 0;
}

static int awk_table_add(awk_rt *A, awk_arr *a, awk_ent *e, int part) {
  uint32_t *size = part == AP_STR ? &a->gsize : &a->isize;
  uint32_t *count = part == AP_STR ? &a->gcount : &a->icount;
  uint32_t *tick = part == AP_STR ? &a->gtick : &a->itick;
  e->gpart = (uint8_t)part;
  e->gcode = part == AP_STR ? awk_str_code(e->key) : awk_int_code(e->gint);
  if (!*count) *size = awk_gsizes[0], *tick = 0;
  ++*count;
  if (*count / *size > (part == AP_STR ? STR_CHAIN_MAX : INT_CHAIN_MAX) &&
      awk_table_grow(A, a, part, e))
    return A->err;
  e->gstamp = ++*tick;
  return 0;
}

/* ---- cint leaves ------------------------------------------------------- */

/* The leaf gawk keeps key k in: its first key, and *size slots. */
static int awk_log2(int32_t k) {
  return k > 0 ? 31 - __builtin_clz((uint32_t)k) : 0;
}

static long long awk_leaf(int32_t k, long long *size) {
  int r = awk_log2(k), m, n;
  long long base;
  m = r < NHAT ? NHAT - 1 : r; /* gawk's h1 - 1 */
  base = m < NHAT ? 0 : 1LL << m;
  if (m < NHAT) m = NHAT;
  for (;;) {
    n = (m + 1) / 2;
    *size = 1LL << n;
    base += *size * ((k - base) / *size);
    if (n <= NHAT) return base;
    m = n;
  }
}

/* gawk's estimate of a new leaf's slots, from the key's top level. */
static long long awk_leaf_estimate(int32_t k) {
  int r = awk_log2(k), li = r < NHAT ? NHAT : r;
  while (li >= NHAT) li = (li + 1) / 2;
  return 1LL << li;
}

/* The count slot of the leaf starting at base (added when absent). */
static uint32_t *awk_leaf_slot(awk_rt *A, awk_arr *a, long long base) {
  size_t i;
  if ((a->lused + 1) * 2 > a->lcap) {
    size_t cap = a->lcap ? a->lcap * 2 : 16, j;
    long long *nb = mem_alloc(A->m, sizeof *nb * cap);
    uint32_t *nc = mem_zalloc(A->m, sizeof *nc * cap);
    if (!nb || !nc) {
      mem_free(A->m, nb);
      mem_free(A->m, nc);
      A->err = MSB_ENOMEM;
      return NULL;
    }
    for (j = 0; j < cap; j++) nb[j] = -1;
    for (j = 0; j < a->lcap; j++)
      if (a->lbase[j] >= 0) {
        for (i = (size_t)a->lbase[j] * 2654435761u & (cap - 1); nb[i] >= 0;)
          i = (i + 1) & (cap - 1);
        nb[i] = a->lbase[j];
        nc[i] = a->lcount[j];
      }
    mem_free(A->m, a->lbase);
    mem_free(A->m, a->lcount);
    a->lbase = nb;
    a->lcount = nc;
    a->lcap = cap;
  }
  for (i = (size_t)base * 2654435761u & (a->lcap - 1); a->lbase[i] >= 0;
       i = (i + 1) & (a->lcap - 1))
    if (a->lbase[i] == base) return &a->lcount[i];
  a->lbase[i] = base;
  a->lused++;
  return &a->lcount[i];
}

/* Counts a key into (d 1) or out of (d -1) its leaf, keeping gcap as
 * gawk's array_capacity: a leaf's slots count while it holds a key. */
static int awk_leaf_count(awk_rt *A, awk_arr *a, int32_t k, int d) {
  long long size, base = awk_leaf(k, &size);
  uint32_t *c = awk_leaf_slot(A, a, base);
  if (!c) return A->err;
  if (d > 0 && (*c)++ == 0) a->gcap += size;
  if (d < 0 && --*c == 0) a->gcap -= size;
  return 0;
}

/* ---- placing keys ------------------------------------------------------ */

/* A key of an integer array (top-level or a cint's extra part). */
static int awk_int_array_add(awk_rt *A, awk_arr *a, awk_ent *e, int isint) {
  return awk_table_add(A, a, e, isint ? AP_INT : AP_STR);
}

static int awk_extra_add(awk_rt *A, awk_arr *a, awk_ent *e, int isint) {
  if (!a->icount && !a->gcount) a->xkind = isint ? AK_INT : AK_STR;
  if (a->xkind == AK_INT) return awk_int_array_add(A, a, e, isint);
  return awk_table_add(A, a, e, AP_STR);
}

int awk_order_add(awk_rt *A, awk_arr *a, awk_ent *e) {
  int isint = awk_gint(e->key, &e->gint);
  if (a->live == 1)
    a->gkind = !isint ? AK_STR : e->gint >= 0 ? AK_CINT : AK_INT;
  switch (a->gkind) {
  case AK_CINT:
    if (isint && e->gint >= 0 &&
        a->gcap + awk_leaf_estimate(e->gint) - (long long)a->ncint <=
            CINT_WASTE) {
      e->gpart = AP_CINT;
      a->ncint++;
      return awk_leaf_count(A, a, e->gint, 1);
    }
    return awk_extra_add(A, a, e, isint);
  case AK_INT: return awk_int_array_add(A, a, e, isint);
  default: return awk_table_add(A, a, e, AP_STR);
  }
}

void awk_order_del(awk_rt *A, awk_arr *a, awk_ent *e) {
  switch (e->gpart) {
  case AP_CINT:
    a->ncint--;
    awk_leaf_count(A, a, e->gint, -1);
    break;
  case AP_INT:
    if (!--a->icount) a->isize = 0;
    break;
  default:
    if (!--a->gcount) a->gsize = 0;
  }
  /* an emptied part hands the array to what is left, as gawk does */
  if (a->gkind == AK_CINT && !a->ncint && (a->icount || a->gcount))
    a->gkind = a->xkind;
  if (a->gkind == AK_INT && !a->icount && a->gcount) a->gkind = AK_STR;
  if (a->gkind == AK_CINT && a->xkind == AK_INT && !a->icount && a->gcount)
    a->xkind = AK_STR;
}

void awk_order_clear(awk_rt *A, awk_arr *a) {
  mem_free(A->m, a->lbase);
  mem_free(A->m, a->lcount);
  a->lbase = NULL;
  a->lcount = NULL;
  a->lcap = a->lused = 0;
}

/* ---- listing ------------------------------------------------------------ */

static int awk_cint_cmp(const void *x, const void *y) {
  int32_t a = (*(awk_ent *const *)x)->gint, b = (*(awk_ent *const *)y)->gint;
  return a < b ? -1 : a > b;
}

static int awk_list_table(awk_rt *A, awk_arr *a, int part, awk_str **k,
                          size_t *j) {
  awk_gref *r;
  size_t i, m;
  if (!(part == AP_STR ? a->gcount : a->icount)) return 0;
  if (awk_table(A, a, part, NULL, &r, &m)) return A->err;
  for (i = 0; i < m; i++) (k[(*j)++] = r[i].e->key)->ref++;
  mem_free(A->m, r);
  return 0;
}

/* for (k in a) without sorted_in: the string table, then the integer
 * table, then the cint part ascending. */
int awk_arr_keys(awk_rt *A, awk_arr *a, awk_str ***keys, size_t *n) {
  size_t i, j = 0, nc = 0;
  awk_str **k = mem_alloc(A->m, sizeof *k * (a->live + 1));
  awk_ent **c = NULL;
  if (!k) return A->err = MSB_ENOMEM;
  if (awk_list_table(A, a, AP_STR, k, &j) ||
      awk_list_table(A, a, AP_INT, k, &j))
    goto fail;
  if (a->ncint) {
    if (!(c = mem_alloc(A->m, sizeof *c * a->ncint))) goto fail;
    for (i = 0; i < a->n; i++)
      if (a->e[i].key && a->e[i].gpart == AP_CINT) c[nc++] = &a->e[i];
    qsort(c, nc, sizeof *c, awk_cint_cmp);
    for (i = 0; i < nc; i++) (k[j++] = c[i]->key)->ref++;
    mem_free(A->m, c);
  }
  *keys = k;
  *n = j;
  return 0;
fail:
  while (j) awk_str_unref(A->m, k[--j]);
  mem_free(A->m, k);
  return A->err ? A->err : (A->err = MSB_ENOMEM);
}
