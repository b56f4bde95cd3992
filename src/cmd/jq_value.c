/* jq_value.c - jq's values: reference counted strings, arrays and
 * insertion-ordered hash objects, ordering and sorting.
 *
 * Shared values are copied before mutation (jv_own), so an update of a
 * value held once (reduce's accumulator, setpath on a fresh result) is in
 * place. jq's order: null < false < true < numbers < strings < arrays <
 * objects; objects compare their sorted key sets first, then values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

jv jv_null(void) {
  jv v = {JV_NULL, NULL, 0};
  return v;
}

jv jv_bool(int b) {
  jv v = {b ? JV_TRUE : JV_FALSE, NULL, 0};
  return v;
}

jv jv_num(double d) {
  jv v = {JV_NUMBER, NULL, d};
  return v;
}

jv jv_invalid(void) {
  jv v = {JV_INVALID, NULL, 0};
  return v;
}

static void *jq_alloc(jq_rt *R, size_t n) {
  void *p = R->oom ? NULL : mem_alloc(R->m, n);
  if (!p) R->oom = 1;
  return p;
}

jv jv_str(jq_rt *R, const char *s, size_t n) {
  jq_str *h = jq_alloc(R, sizeof *h + n + 1);
  jv v = {JV_STRING, h, 0};
  if (!h) return jv_null();
  h->rc = 1;
  h->hash = 0;
  h->len = n;
  if (n) memcpy(h->s, s, n);
  h->s[n] = 0;
  return v;
}

jv jv_cstr(jq_rt *R, const char *s) { return jv_str(R, s, strlen(s)); }

jv jv_num_lit(jq_rt *R, double d, const char *lit, size_t n) {
  jv v = jv_str(R, lit, n);
  v.k = JV_NUMBER;
  v.n = d;
  if (R->oom) v.p = NULL;
  return v;
}

jv jv_arr(jq_rt *R) {
  jq_arr *h = jq_alloc(R, sizeof *h);
  jv v = {JV_ARRAY, h, 0};
  if (!h) return jv_null();
  h->rc = 1;
  h->len = h->cap = 0;
  h->v = NULL;
  return v;
}

jv jv_obj(jq_rt *R) {
  jq_obj *h = jq_alloc(R, sizeof *h);
  jv v = {JV_OBJECT, h, 0};
  if (!h) return jv_null();
  memset(h, 0, sizeof *h);
  h->rc = 1;
  return v;
}

jv jv_ref(jv v) {
  if (v.p) ++*(uint32_t *)v.p;
  return v;
}

void jv_unref(jq_rt *R, jv v) {
  size_t i;
  if (!v.p || --*(uint32_t *)v.p) return;
  if (v.k == JV_ARRAY) {
    jq_arr *a = v.p;
    for (i = 0; i < a->len; i++) jv_unref(R, a->v[i]);
    mem_free(R->m, a->v);
  } else if (v.k == JV_OBJECT) {
    jq_obj *o = v.p;
    for (i = 0; i < o->used; i++) {
      jv_unref(R, o->e[i].key);
      jv_unref(R, o->e[i].val);
    }
    mem_free(R->m, o->e);
    mem_free(R->m, o->idx);
  }
  mem_free(R->m, v.p);
}

const char *jv_sp(jv v) { return v.p ? ((jq_str *)v.p)->s : ""; }
size_t jv_sl(jv v) { return v.p ? ((jq_str *)v.p)->len : 0; }

static uint32_t jq_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h ? h : 1;
}

uint32_t jv_shash(jv v) {
  jq_str *s = v.p;
  if (!s) return jq_hash("", 0);
  if (!s->hash) s->hash = jq_hash(s->s, s->len);
  return s->hash;
}

jv jv_sappend(jq_rt *R, jv a, const char *s, size_t n) {
  jq_str *h = a.p, *nh;
  if (!n) return a;
  if (h && h->rc == 1 && mem_size(h) >= sizeof *h + h->len + n + 1) {
    memcpy(h->s + h->len, s, n);
    h->len += n;
    h->s[h->len] = 0;
    h->hash = 0;
    return a;
  }
  if (h && h->rc == 1) {
    size_t want = sizeof *h + (h->len + n) * 2 + 1;
    nh = R->oom ? NULL : mem_realloc(R->m, h, want);
    if (!nh) {
      R->oom = 1;
      return a;
    }
    memcpy(nh->s + nh->len, s, n);
    nh->len += n;
    nh->s[nh->len] = 0;
    nh->hash = 0;
    a.p = nh;
    return a;
  }
  {
    jv r = jv_str(R, NULL, 0);
    size_t al = jv_sl(a);
    r = jv_sappend(R, r, jv_sp(a), al);
    r = jv_sappend(R, r, s, n);
    jv_unref(R, a);
    if (R->oom) return jv_null();
    return r;
  }
}

jv jv_scat(jq_rt *R, jv a, jv b) {
  a = jv_sappend(R, a, jv_sp(b), jv_sl(b));
  jv_unref(R, b);
  return a;
}

/* ---- arrays ---------------------------------------------------------- */

size_t jv_alen(jv a) { return a.p ? ((jq_arr *)a.p)->len : 0; }

jv jv_aget(jv a, size_t i) { return ((jq_arr *)a.p)->v[i]; }

static int jv_agrow(jq_rt *R, jq_arr *a, size_t n) {
  size_t cap;
  jv *nv;
  if (n <= a->cap) return 0;
  cap = a->cap ? a->cap * 2 : 4;
  if (cap < n) cap = n;
  nv = R->oom ? NULL : mem_realloc(R->m, a->v, cap * sizeof *nv);
  if (!nv) {
    R->oom = 1;
    return -1;
  }
  a->v = nv;
  a->cap = cap;
  return 0;
}

void jv_own(jq_rt *R, jv *v) {
  size_t i;
  if (!v->p || *(uint32_t *)v->p == 1) return;
  if (v->k == JV_ARRAY) {
    jq_arr *o = v->p;
    jv n = jv_arr(R);
    if (R->oom || jv_agrow(R, n.p, o->len)) {
      jv_unref(R, n);
      return;
    }
    for (i = 0; i < o->len; i++) ((jq_arr *)n.p)->v[i] = jv_ref(o->v[i]);
    ((jq_arr *)n.p)->len = o->len;
    jv_unref(R, *v);
    *v = n;
  } else if (v->k == JV_OBJECT) {
    jv n = jv_obj(R);
    jq_ent *e;
    size_t it = 0;
    while ((e = jv_onext(*v, &it)) && !R->oom)
      jv_oset(R, &n, jv_ref(e->key), jv_ref(e->val));
    jv_unref(R, *v);
    *v = n;
  } else if (v->k == JV_STRING) {
    jv n = jv_str(R, jv_sp(*v), jv_sl(*v));
    jv_unref(R, *v);
    *v = n;
  }
}

void jv_apush(jq_rt *R, jv *a, jv v) {
  jq_arr *h;
  jv_own(R, a);
  h = a->p;
  if (R->oom || jv_agrow(R, h, h->len + 1)) {
    jv_unref(R, v);
    return;
  }
  h->v[h->len++] = v;
}

void jv_aset(jq_rt *R, jv *a, size_t i, jv v) {
  jq_arr *h;
  jv_own(R, a);
  h = a->p;
  if (R->oom || jv_agrow(R, h, i + 1)) {
    jv_unref(R, v);
    return;
  }
  while (h->len <= i) h->v[h->len++] = jv_null();
  jv_unref(R, h->v[i]);
  h->v[i] = v;
}

jv jv_aslice(jq_rt *R, jv a, size_t from, size_t to) {
  jv r = jv_arr(R);
  size_t i;
  if (!R->oom && to > from && jv_agrow(R, r.p, to - from) == 0)
    for (i = from; i < to; i++) jv_apush(R, &r, jv_ref(jv_aget(a, i)));
  return r;
}

/* ---- objects --------------------------------------------------------- */

size_t jv_olen(jv o) { return o.p ? ((jq_obj *)o.p)->n : 0; }

static long jv_ofind(jq_obj *o, const char *k, size_t kl, uint32_t h) {
  size_t mask, i;
  if (!o->icap) return -1;
  mask = o->icap - 1;
  for (i = h & mask;; i = (i + 1) & mask) {
    int32_t x = o->idx[i];
    jv key;
    if (x < 0) return -1 - (long)i;
    key = o->e[x].key;
    if (key.k == JV_STRING && jv_sl(key) == kl && !memcmp(jv_sp(key), k, kl))
      return x;
  }
}

jv *jv_oget(jv o, const char *k, size_t kl) {
  long x;
  jq_obj *h = o.p;
  if (!h || !h->n) return NULL;
  x = jv_ofind(h, k, kl, jq_hash(k, kl));
  return x >= 0 ? &h->e[x].val : NULL;
}

/* Rebuilds the slots (dropping deleted ones) and the index. */
static int jv_orehash(jq_rt *R, jq_obj *o, size_t want) {
  size_t icap = 8, i, j = 0;
  int32_t *idx;
  while (icap < want * 2) icap *= 2;
  idx = jq_alloc(R, icap * sizeof *idx);
  if (!idx) return -1;
  memset(idx, 0xff, icap * sizeof *idx);
  for (i = 0; i < o->used; i++) {
    size_t p;
    if (o->e[i].key.k == JV_INVALID) continue;
    o->e[j] = o->e[i];
    for (p = jv_shash(o->e[j].key) & (icap - 1); idx[p] >= 0;
         p = (p + 1) & (icap - 1));
    idx[p] = (int32_t)j++;
  }
  o->used = j;
  mem_free(R->m, o->idx);
  o->idx = idx;
  o->icap = icap;
  return 0;
}

void jv_oset(jq_rt *R, jv *ov, jv key, jv v) {
  jq_obj *o;
  long x;
  uint32_t h;
  jv_own(R, ov);
  o = ov->p;
  if (R->oom) goto fail;
  h = jv_shash(key);
  x = jv_ofind(o, jv_sp(key), jv_sl(key), h);
  if (x >= 0) {
    jv_unref(R, o->e[x].val);
    o->e[x].val = v;
    jv_unref(R, key);
    return;
  }
  if (o->used + 1 > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 4;
    jq_ent *ne = R->oom ? NULL : mem_realloc(R->m, o->e, cap * sizeof *ne);
    if (!ne) {
      R->oom = 1;
      goto fail;
    }
    o->e = ne;
    o->cap = cap;
  }
  if ((o->used + 1) * 2 > o->icap) {
    if (jv_orehash(R, o, o->used + 1)) goto fail;
    x = jv_ofind(o, jv_sp(key), jv_sl(key), h);
  }
  o->idx[-1 - x] = (int32_t)o->used;
  o->e[o->used].key = key;
  o->e[o->used].val = v;
  o->used++;
  o->n++;
  return;
fail:
  jv_unref(R, key);
  jv_unref(R, v);
}

void jv_odel(jq_rt *R, jv *ov, const char *k, size_t kl) {
  jq_obj *o;
  long x;
  if (!jv_oget(*ov, k, kl)) return;
  jv_own(R, ov);
  o = ov->p;
  if (R->oom) return;
  x = jv_ofind(o, k, kl, jq_hash(k, kl));
  jv_unref(R, o->e[x].key);
  jv_unref(R, o->e[x].val);
  o->e[x].key = jv_invalid();
  o->e[x].val = jv_null();
  o->n--;
  jv_orehash(R, o, o->n);
}

jq_ent *jv_onext(jv o, size_t *i) {
  jq_obj *h = o.p;
  while (h && *i < h->used) {
    jq_ent *e = &h->e[(*i)++];
    if (e->key.k != JV_INVALID) return e;
  }
  return NULL;
}

/* ---- order ----------------------------------------------------------- */

static int jv_rank(int k) { return k == JV_INVALID ? -1 : k; }

static int jv_scmp(jv a, jv b) {
  size_t al = jv_sl(a), bl = jv_sl(b);
  int r = memcmp(jv_sp(a), jv_sp(b), al < bl ? al : bl);
  if (r) return r < 0 ? -1 : 1;
  return al < bl ? -1 : al > bl;
}

static int jq_keycmp(const void *x, const void *y) {
  return jv_scmp(*(const jv *)x, *(const jv *)y);
}

jv jv_keys(jq_rt *R, jv o) {
  jv r = jv_arr(R);
  jq_ent *e;
  size_t it = 0;
  while ((e = jv_onext(o, &it))) jv_apush(R, &r, jv_ref(e->key));
  if (!R->oom && jv_alen(r) > 1)
    qsort(((jq_arr *)r.p)->v, jv_alen(r), sizeof(jv), jq_keycmp);
  return r;
}

static int jv_ocmp(jv a, jv b) {
  /* Sorted key sets first, then values in sorted key order. */
  jq_rt R0 = {0};
  mem m;
  jv ka, kb;
  int r = 0;
  size_t i, n;
  mem_init(&m, 0);
  R0.m = &m;
  ka = jv_keys(&R0, a);
  kb = jv_keys(&R0, b);
  r = jv_cmp(ka, kb);
  n = jv_alen(ka);
  for (i = 0; !r && i < n; i++) {
    jv k = jv_aget(ka, i);
    r = jv_cmp(*jv_oget(a, jv_sp(k), jv_sl(k)),
               *jv_oget(b, jv_sp(k), jv_sl(k)));
  }
  jv_unref(&R0, ka);
  jv_unref(&R0, kb);
  return r;
}

int jq_litcmp(jv a, jv b);

int jv_cmp(jv a, jv b) {
  size_t i, n;
  int r;
  if (a.k != b.k) {
    if (a.k == JV_NUMBER || b.k == JV_NUMBER || a.k > JV_TRUE || b.k > JV_TRUE)
      return jv_rank(a.k) < jv_rank(b.k) ? -1 : 1;
    return a.k < b.k ? -1 : 1;
  }
  switch (a.k) {
  case JV_NUMBER:
    /* jq orders nan below every number */
    if (isnan(a.n)) return -1;
    if (isnan(b.n)) return 1;
    if (a.p && b.p) return jq_litcmp(a, b);
    return a.n < b.n ? -1 : a.n > b.n;
  case JV_STRING: return jv_scmp(a, b);
  case JV_ARRAY:
    n = jv_alen(a) < jv_alen(b) ? jv_alen(a) : jv_alen(b);
    for (i = 0; i < n; i++)
      if ((r = jv_cmp(jv_aget(a, i), jv_aget(b, i)))) return r;
    return jv_alen(a) < jv_alen(b) ? -1 : jv_alen(a) > jv_alen(b);
  case JV_OBJECT: return jv_ocmp(a, b);
  default: return 0;
  }
}

int jv_eq(jv a, jv b) {
  if (a.k == JV_OBJECT && b.k == JV_OBJECT && jv_olen(a) != jv_olen(b))
    return 0;
  return jv_cmp(a, b) == 0;
}

int jv_truthy(jv v) { return v.k != JV_NULL && v.k != JV_FALSE; }

const char *jv_kind_name(int k) {
  static const char *const names[] = {"null",   "boolean",  "boolean",
                                      "number", "string",   "array",
                                      "object", "<invalid>"};
  return names[k];
}

/* Stable merge sort (jq sorts stably). */
static void jq_msort(jv *v, jv *tmp, size_t n) {
  size_t h = n / 2, i = 0, j = h, k = 0;
  if (n < 2) return;
  jq_msort(v, tmp, h);
  jq_msort(v + h, tmp, n - h);
  while (i < h && j < n) tmp[k++] = jv_cmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

void jv_sort(jq_rt *R, jv *a) {
  size_t n;
  jv *tmp;
  jv_own(R, a);
  n = jv_alen(*a);
  if (R->oom || n < 2) return;
  tmp = jq_alloc(R, n * sizeof *tmp);
  if (!tmp) return;
  jq_msort(((jq_arr *)a->p)->v, tmp, n);
  mem_free(R->m, tmp);
}
