/* jq_eval.c - the jq evaluator: a tree walker in continuation-passing
 * style.
 *
 * jq_eval calls its continuation once per output, so backtracking is the
 * C call stack: an expression's later outputs are produced after the
 * continuation returns. Errors, breaks and stops travel back as return
 * codes. A try wraps its continuation so errors raised downstream of the
 * try (in code it does not cover) pass through it (JQ_ERRX, tagged with
 * the try's frame). Paths for path(f), assignments and del are carried
 * beside the values when asked for. Work is charged to the step limit and
 * native stack use is bounded, so runaway programs stop with a named
 * limit. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jq.h"

/* Native stack for evaluation. In wasm the C stack grows down towards
 * its floor (address 0 for the module's own, --stack-first; a run's
 * coroutine stack otherwise, cmd_ctx.stack_floor), so a frame's address
 * is the room left: evaluation stops while JQ_STACK_RESERVE bytes remain
 * for the calls a step makes. Native builds bound the depth
 * from where the command started. */
#define JQ_STACK_RESERVE ((uintptr_t)128 << 10)
#define JQ_STACK_MAX ((size_t)2 << 20)

/* Evaluation recurses once per step; helpers stay out of line so each
 * frame holds only the locals of the step being taken. */
#if defined(__GNUC__)
#define JQ_NOINLINE __attribute__((noinline))
#else
#define JQ_NOINLINE
#endif

jv jq_pt_off(void) { return jv_invalid(); }
jv jq_pt_bad(void) {
  jv v = jv_invalid();
  v.n = 1;
  return v;
}
int jq_pt_is_off(jv p) { return p.k == JV_INVALID && p.n == 0; }
int jq_pt_is_bad(jv p) { return p.k == JV_INVALID && p.n == 1; }

int jq_raise(jq_ev *E, jv v) {
  E->err = v;
  return JQ_ERR;
}

int jq_errf(jq_ev *E, const char *fmt, ...) {
  buf b;
  va_list ap;
  buf_init(&b, E->R.m);
  va_start(ap, fmt);
  buf_vprintf(&b, fmt, ap);
  va_end(ap);
  if (b.err) E->R.oom = 1;
  E->err = jv_str(&E->R, buf_str(&b), b.len);
  buf_finish(&b);
  return JQ_ERR;
}

/* "kind (value)" for messages, the value cut like jq's. */
static void jq_kv(jq_ev *E, buf *b, jv v) {
  buf_printf(b, "%s (", jv_kind_name(v.k));
  jv_dump_trunc(&E->R, b, v, 11 + 4);
  buf_putc(b, ')');
}

static int jq_errkv(jq_ev *E, jv a, jv b, const char *what) {
  buf t;
  buf_init(&t, E->R.m);
  jq_kv(E, &t, a);
  buf_puts(&t, " and ");
  jq_kv(E, &t, b);
  buf_printf(&t, " cannot be %s", what);
  E->err = jv_str(&E->R, buf_str(&t), t.len);
  buf_finish(&t);
  return JQ_ERR;
}

static int jq_err1(jq_ev *E, jv a, const char *what) {
  buf t;
  buf_init(&t, E->R.m);
  jq_kv(E, &t, a);
  buf_printf(&t, " %s", what);
  E->err = jv_str(&E->R, buf_str(&t), t.len);
  buf_finish(&t);
  return JQ_ERR;
}

/* ---- value operations -------------------------------------------------- */

/* jq 1.7.1 converts an index with a C cast: -1.2 is -1. */
static long jq_idx(double d, size_t len) {
  long i = d >= 9e18 ? LONG_MAX : d <= -9e18 ? LONG_MIN / 2 : (long)d;
  if (i < 0) i += (long)len;
  return i;
}

static void jq_slice_bounds(jv from, jv to, size_t len, size_t *s, size_t *e) {
  double a = from.k == JV_NUMBER ? from.n : 0,
         b = to.k == JV_NUMBER ? to.n : (double)len;
  if (isnan(a)) a = 0; /* a C cast of nan is a very negative int */
  if (isnan(b)) b = 0;
  if (a < 0) a += (double)len;
  if (b < 0) b += (double)len;
  if (a < 0) a = 0;
  if (b > (double)len) b = (double)len;
  if (a > (double)len) a = (double)len;
  a = floor(a);
  b = ceil(b);
  if (b < a) b = a;
  *s = (size_t)a;
  *e = (size_t)b;
}

static size_t jq_cplen(jv s) {
  size_t i, n = 0, l = jv_sl(s);
  const char *p = jv_sp(s);
  for (i = 0; i < l; i++) n += ((uint8_t)p[i] & 0xc0) != 0x80;
  return n;
}

static size_t jq_cpoff(jv s, size_t cp) {
  size_t i, n = 0, l = jv_sl(s);
  const char *p = jv_sp(s);
  for (i = 0; i < l; i++)
    if (((uint8_t)p[i] & 0xc0) != 0x80 && n++ == cp) return i;
  return l;
}

static int jq_slice(jq_ev *E, jv t, jv from, jv to, jv *out) {
  size_t s, e;
  if ((from.k != JV_NUMBER && from.k != JV_NULL) ||
      (to.k != JV_NUMBER && to.k != JV_NULL))
    return jq_errf(E, "Array/string slice indices must be integers");
  if (t.k == JV_NULL) {
    *out = jv_null();
    return 0;
  }
  if (t.k == JV_ARRAY) {
    jq_slice_bounds(from, to, jv_alen(t), &s, &e);
    *out = jv_aslice(&E->R, t, s, e);
    return 0;
  }
  if (t.k == JV_STRING) {
    size_t a, b;
    jq_slice_bounds(from, to, jq_cplen(t), &s, &e);
    a = jq_cpoff(t, s);
    b = jq_cpoff(t, e);
    *out = jv_str(&E->R, jv_sp(t) + a, b - a);
    return 0;
  }
  return jq_errf(E, "Cannot index %s with object", jv_kind_name(t.k));
}

int jq_index(jq_ev *E, jv t, jv key, jv *out) {
  if (t.k == JV_OBJECT && key.k == JV_STRING) {
    jv *v = jv_oget(t, jv_sp(key), jv_sl(key));
    *out = v ? jv_ref(*v) : jv_null();
    return 0;
  }
  if (t.k == JV_ARRAY && key.k == JV_NUMBER) {
    long i;
    if (isnan(key.n)) {
      *out = jv_null();
      return 0;
    }
    i = jq_idx(key.n, jv_alen(t));
    *out = i >= 0 && (size_t)i < jv_alen(t) ? jv_ref(jv_aget(t, (size_t)i))
                                            : jv_null();
    return 0;
  }
  if (t.k == JV_NULL &&
      (key.k == JV_STRING || key.k == JV_NUMBER || key.k == JV_OBJECT)) {
    *out = jv_null();
    return 0;
  }
  if (key.k == JV_OBJECT && (t.k == JV_ARRAY || t.k == JV_STRING)) {
    jv *f = jv_oget(key, "start", 5), *e = jv_oget(key, "end", 3);
    /* a missing bound is no index at all, unlike null */
    if (!f || !e)
      return jq_errf(E, "Array/string slice indices must be integers");
    return jq_slice(E, t, *f, *e, out);
  }
  if (t.k == JV_ARRAY && key.k == JV_ARRAY) {
    /* indices of a subarray */
    jv r = jv_arr(&E->R);
    size_t i, j, n = jv_alen(t), m = jv_alen(key);
    for (i = 0; m && i + m <= n; i++) {
      for (j = 0; j < m && jv_eq(jv_aget(t, i + j), jv_aget(key, j)); j++);
      if (j == m) jv_apush(&E->R, &r, jv_num((double)i));
    }
    if (!m) {
      jv_unref(&E->R, r);
      r = jv_null();
    }
    *out = r;
    return 0;
  }
  if (key.k == JV_STRING)
    return jq_errf(E, "Cannot index %s with string \"%s\"", jv_kind_name(t.k),
                   jv_sp(key));
  return jq_errf(E, "Cannot index %s with %s", jv_kind_name(t.k),
                 jv_kind_name(key.k));
}

static jv jq_objmerge(jq_ev *E, jv a, jv b, int deep) {
  jv r = jv_ref(a);
  jq_ent *e;
  size_t it = 0;
  while ((e = jv_onext(b, &it))) {
    jv *old = jv_oget(r, jv_sp(e->key), jv_sl(e->key));
    if (deep && old && old->k == JV_OBJECT && e->val.k == JV_OBJECT) {
      jv m = jq_objmerge(E, *old, e->val, 1);
      jv_oset(&E->R, &r, jv_ref(e->key), m);
    } else
      jv_oset(&E->R, &r, jv_ref(e->key), jv_ref(e->val));
  }
  return r;
}

static jv jq_strrepeat(jq_ev *E, jv s, double n) {
  jv r;
  double i;
  if (n < 0 || isnan(n)) return jv_null();
  r = jv_str(&E->R, "", 0);
  for (i = 1; i <= n && !E->R.oom; i++)
    r = jv_sappend(&E->R, r, jv_sp(s), jv_sl(s));
  return r;
}

static jv jq_strsplit(jq_ev *E, jv s, jv sep) {
  jv r = jv_arr(&E->R);
  const char *p = jv_sp(s), *end = p + jv_sl(s), *q;
  size_t sl = jv_sl(sep);
  if (!jv_sl(s)) return r;
  if (!sl) {
    /* each byte sequence of one character */
    while (p < end) {
      uint32_t cp;
      size_t n = jq_utf8_next((const uint8_t *)p, (size_t)(end - p), &cp);
      jv_apush(&E->R, &r, jv_str(&E->R, p, n));
      p += n;
    }
    return r;
  }
  for (;;) {
    for (q = p; q + sl <= end && memcmp(q, jv_sp(sep), sl); q++);
    if (q + sl > end) break;
    jv_apush(&E->R, &r, jv_str(&E->R, p, (size_t)(q - p)));
    p = q + sl;
  }
  jv_apush(&E->R, &r, jv_str(&E->R, p, (size_t)(end - p)));
  return r;
}

int jq_binop(jq_ev *E, int op, jv a, jv b, jv *out) {
  jq_rt *R = &E->R;
  switch (op) {
  case JO_EQ: *out = jv_bool(jv_eq(a, b)); return 0;
  case JO_NE: *out = jv_bool(!jv_eq(a, b)); return 0;
  case JO_LT: *out = jv_bool(jv_cmp(a, b) < 0); return 0;
  case JO_LE: *out = jv_bool(jv_cmp(a, b) <= 0); return 0;
  case JO_GT: *out = jv_bool(jv_cmp(a, b) > 0); return 0;
  case JO_GE: *out = jv_bool(jv_cmp(a, b) >= 0); return 0;
  case JO_ADD:
    if (a.k == JV_NULL) {
      *out = jv_ref(b);
      return 0;
    }
    if (b.k == JV_NULL) {
      *out = jv_ref(a);
      return 0;
    }
    if (a.k == JV_NUMBER && b.k == JV_NUMBER) {
      *out = jv_num(a.n + b.n);
      return 0;
    }
    if (a.k == JV_STRING && b.k == JV_STRING) {
      *out = jv_scat(R, jv_ref(a), jv_ref(b));
      return 0;
    }
    if (a.k == JV_ARRAY && b.k == JV_ARRAY) {
      jv r = jv_ref(a);
      size_t i;
      for (i = 0; i < jv_alen(b); i++) jv_apush(R, &r, jv_ref(jv_aget(b, i)));
      *out = r;
      return 0;
    }
    if (a.k == JV_OBJECT && b.k == JV_OBJECT) {
      *out = jq_objmerge(E, a, b, 0);
      return 0;
    }
    return jq_errkv(E, a, b, "added");
  case JO_SUB:
    if (a.k == JV_NUMBER && b.k == JV_NUMBER) {
      *out = jv_num(a.n - b.n);
      return 0;
    }
    if (a.k == JV_ARRAY && b.k == JV_ARRAY) {
      jv r = jv_arr(R);
      size_t i, j;
      for (i = 0; i < jv_alen(a); i++) {
        for (j = 0; j < jv_alen(b); j++)
          if (jv_eq(jv_aget(a, i), jv_aget(b, j))) break;
        if (j == jv_alen(b)) jv_apush(R, &r, jv_ref(jv_aget(a, i)));
      }
      *out = r;
      return 0;
    }
    return jq_errkv(E, a, b, "subtracted");
  case JO_MUL:
    if (a.k == JV_NUMBER && b.k == JV_NUMBER) {
      *out = jv_num(a.n * b.n);
      return 0;
    }
    if ((a.k == JV_STRING && b.k == JV_NUMBER) ||
        (a.k == JV_NUMBER && b.k == JV_STRING)) {
      jv s = a.k == JV_STRING ? a : b;
      double n = a.k == JV_NUMBER ? a.n : b.n;
      uint64_t max = E->c->lim ? E->c->lim->max_string_bytes : 0;
      if (max && n > 0 && floor(n) * (double)jv_sl(s) > (double)max) {
        cmd_err(E->c,
                "error: memsandbox: string size limit exceeded "
                "(max_string_bytes=%llu)",
                (unsigned long long)max);
        E->limit_depth = 1;
        return MSB_ELIMIT;
      }
      *out = jq_strrepeat(E, s, n);
      return 0;
    }
    if (a.k == JV_OBJECT && b.k == JV_OBJECT) {
      *out = jq_objmerge(E, a, b, 1);
      return 0;
    }
    return jq_errkv(E, a, b, "multiplied");
  case JO_DIV:
    if (a.k == JV_NUMBER && b.k == JV_NUMBER) {
      if (b.n == 0)
        return jq_errkv(E, a, b, "divided because the divisor is zero");
      *out = jv_num(a.n / b.n);
      return 0;
    }
    if (a.k == JV_STRING && b.k == JV_STRING) {
      *out = jq_strsplit(E, a, b);
      return 0;
    }
    return jq_errkv(E, a, b, "divided");
  case JO_MOD:
    if (a.k == JV_NUMBER && b.k == JV_NUMBER) {
      double x = a.n, y = b.n;
      long long ix, iy;
      if (isnan(x) || isnan(y)) {
        *out = jv_num(NAN);
        return 0;
      }
      ix = x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : (long long)x;
      iy = y >= 9.2e18 ? INT64_MAX : y <= -9.2e18 ? INT64_MIN : (long long)y;
      if (iy == 0)
        return jq_errkv(E, a, b,
                        "divided (remainder) because the divisor is zero");
      if (iy == -1) {
        *out = jv_num(0);
        return 0;
      }
      if (iy < 0) iy = -iy;
      *out = jv_num((double)(ix % iy));
      return 0;
    }
    return jq_errkv(E, a, b, "divided");
  }
  return jq_errf(E, "unknown operator");
}

/* ---- paths ------------------------------------------------------------- */

int jq_getpath(jq_ev *E, jv v, jv path, jv *out) {
  size_t i;
  jv cur;
  if (path.k != JV_ARRAY)
    return jq_errf(E, "Path must be specified as an array");
  cur = jv_ref(v);
  for (i = 0; i < jv_alen(path); i++) {
    jv next;
    if (cur.k == JV_NULL) break;
    if (jq_index(E, cur, jv_aget(path, i), &next)) {
      jv_unref(&E->R, cur);
      return JQ_ERR;
    }
    jv_unref(&E->R, cur);
    cur = next;
  }
  *out = cur;
  return 0;
}

int jq_setpath(jq_ev *E, jv v, jv path, size_t i, jv nv, jv *out) {
  jv key, child, nc;
  jq_rt *R = &E->R;
  if (path.k != JV_ARRAY)
    return jq_errf(E, "Path must be specified as an array");
  if (i == jv_alen(path)) {
    *out = jv_ref(nv);
    return 0;
  }
  key = jv_aget(path, i);
  if (key.k == JV_STRING) {
    if (v.k != JV_OBJECT && v.k != JV_NULL)
      return jq_errf(E, "Cannot index %s with string \"%s\"", jv_kind_name(v.k),
                     jv_sp(key));
    {
      jv *c = v.k == JV_OBJECT ? jv_oget(v, jv_sp(key), jv_sl(key)) : NULL;
      child = c ? jv_ref(*c) : jv_null();
    }
    if (jq_setpath(E, child, path, i + 1, nv, &nc)) {
      jv_unref(R, child);
      return JQ_ERR;
    }
    jv_unref(R, child);
    *out = v.k == JV_NULL ? jv_obj(R) : jv_ref(v);
    jv_oset(R, out, jv_ref(key), nc);
    return 0;
  }
  if (key.k == JV_NUMBER) {
    long ix;
    if (v.k != JV_ARRAY && v.k != JV_NULL)
      return jq_errf(E, "Cannot index %s with number", jv_kind_name(v.k));
    ix = jq_idx(key.n, jv_alen(v));
    if (ix < 0) return jq_errf(E, "Out of bounds negative array index");
    if (ix > 100000000) return jq_errf(E, "Array index too large");
    child = v.k == JV_ARRAY && (size_t)ix < jv_alen(v)
                ? jv_ref(jv_aget(v, (size_t)ix))
                : jv_null();
    if (jq_setpath(E, child, path, i + 1, nv, &nc)) {
      jv_unref(R, child);
      return JQ_ERR;
    }
    jv_unref(R, child);
    *out = v.k == JV_NULL ? jv_arr(R) : jv_ref(v);
    jv_aset(R, out, (size_t)ix, nc);
    return 0;
  }
  if (key.k == JV_OBJECT) {
    size_t s, e, j;
    jv cur, repl;
    if (v.k != JV_ARRAY && v.k != JV_NULL)
      return jq_errf(E, "Cannot update field at object index of %s",
                     jv_kind_name(v.k));
    {
      jv *f = jv_oget(key, "start", 5), *t = jv_oget(key, "end", 3);
      jq_slice_bounds(f ? *f : jv_null(), t ? *t : jv_null(), jv_alen(v), &s,
                      &e);
    }
    cur = v.k == JV_ARRAY ? jv_aslice(R, v, s, e) : jv_null();
    if (jq_setpath(E, cur, path, i + 1, nv, &repl)) {
      jv_unref(R, cur);
      return JQ_ERR;
    }
    jv_unref(R, cur);
    if (repl.k != JV_ARRAY) {
      jv_unref(R, repl);
      return jq_errf(E,
                     "A slice of an array can only be assigned another "
                     "array");
    }
    {
      jv r = jv_arr(R);
      for (j = 0; j < s; j++) jv_apush(R, &r, jv_ref(jv_aget(v, j)));
      for (j = 0; j < jv_alen(repl); j++)
        jv_apush(R, &r, jv_ref(jv_aget(repl, j)));
      for (j = e; j < jv_alen(v); j++) jv_apush(R, &r, jv_ref(jv_aget(v, j)));
      jv_unref(R, repl);
      *out = r;
    }
    return 0;
  }
  return jq_errf(E, "Invalid path component");
}

static int jq_delpath(jq_ev *E, jv *v, jv path, size_t i) {
  jv key = jv_aget(path, i);
  jq_rt *R = &E->R;
  if (v->k == JV_NULL) return 0;
  if (i + 1 == jv_alen(path)) {
    if (key.k == JV_STRING) {
      if (v->k == JV_ARRAY)
        return jq_errf(E, "Cannot delete string element of array");
      if (v->k != JV_OBJECT)
        return jq_errf(E, "Cannot delete field at object index of %s",
                       jv_kind_name(v->k));
      jv_odel(R, v, jv_sp(key), jv_sl(key));
      return 0;
    }
    if (key.k == JV_NUMBER) {
      long ix;
      jv r;
      size_t j;
      if (v->k != JV_ARRAY)
        return jq_errf(E, "Cannot delete field at index of %s",
                       jv_kind_name(v->k));
      ix = jq_idx(key.n, jv_alen(*v));
      if (ix < 0) return jq_errf(E, "Out of bounds negative array index");
      if ((size_t)ix >= jv_alen(*v)) return 0;
      r = jv_arr(R);
      for (j = 0; j < jv_alen(*v); j++)
        if (j != (size_t)ix) jv_apush(R, &r, jv_ref(jv_aget(*v, j)));
      jv_unref(R, *v);
      *v = r;
      return 0;
    }
    if (key.k == JV_OBJECT) {
      size_t s, e, j;
      jv r, *f = jv_oget(key, "start", 5), *t = jv_oget(key, "end", 3);
      if (v->k != JV_ARRAY)
        return jq_errf(E, "Cannot delete field at object index of %s",
                       jv_kind_name(v->k));
      jq_slice_bounds(f ? *f : jv_null(), t ? *t : jv_null(), jv_alen(*v), &s,
                      &e);
      r = jv_arr(R);
      for (j = 0; j < jv_alen(*v); j++)
        if (j < s || j >= e) jv_apush(R, &r, jv_ref(jv_aget(*v, j)));
      jv_unref(R, *v);
      *v = r;
      return 0;
    }
    return jq_errf(E, "Invalid path component");
  }
  {
    jv child, sub;
    if (jq_index(E, *v, key, &child)) return JQ_ERR;
    if (child.k == JV_NULL) {
      jv_unref(R, child);
      return 0;
    }
    if (jq_delpath(E, &child, path, i + 1)) {
      jv_unref(R, child);
      return JQ_ERR;
    }
    if (jq_setpath(E, *v, path, i, child, &sub)) {
      jv_unref(R, child);
      return JQ_ERR;
    }
    /* jq_setpath with the rest of the path would descend again; set the
     * child directly instead. */
    jv_unref(R, sub);
    {
      jv one = jv_arr(R), nv;
      jv_apush(R, &one, jv_ref(key));
      if (jq_setpath(E, *v, one, 0, child, &nv)) {
        jv_unref(R, one);
        jv_unref(R, child);
        return JQ_ERR;
      }
      jv_unref(R, one);
      jv_unref(R, child);
      jv_unref(R, *v);
      *v = nv;
    }
    return 0;
  }
}

int jq_delpaths(jq_ev *E, jv v, jv paths, jv *out) {
  jv ps = jv_ref(paths);
  size_t i;
  if (paths.k != JV_ARRAY) {
    jv_unref(&E->R, ps);
    return jq_errf(E, "Paths must be specified as an array");
  }
  jv_sort(&E->R, &ps);
  *out = jv_ref(v);
  for (i = jv_alen(ps); i-- > 0;) {
    jv p = jv_aget(ps, i);
    if (p.k != JV_ARRAY) {
      jv_unref(&E->R, ps);
      jv_unref(&E->R, *out);
      return jq_errf(E, "Path must be specified as array, not %s",
                     jv_kind_name(p.k));
    }
    if (!jv_alen(p)) {
      jv_unref(&E->R, *out);
      *out = jv_null();
      continue;
    }
    if (jq_delpath(E, out, p, 0)) {
      jv_unref(&E->R, ps);
      jv_unref(&E->R, *out);
      return JQ_ERR;
    }
  }
  jv_unref(&E->R, ps);
  return 0;
}

/* ---- evaluation -------------------------------------------------------- */

static jv jq_pt_add(jq_ev *E, jv p, jv key) {
  jv r;
  if (!jq_pt_is_off(p) && !jq_pt_is_bad(p)) {
    r = jv_ref(p);
    jv_apush(&E->R, &r, jv_ref(key));
    return r;
  }
  return p;
}

static int jq_badpath(jq_ev *E, jv v) {
  buf t;
  buf_init(&t, E->R.m);
  buf_puts(&t, "Invalid path expression with result ");
  jv_dump_trunc(&E->R, &t, v, 11 + 4);
  E->err = jv_str(&E->R, buf_str(&t), t.len);
  buf_finish(&t);
  return JQ_ERR;
}

/* Indexing or iterating a value that is not a path, worded as jq: "near
 * attempt to access element KEY of VALUE" (key NULL: "iterate through"). */
static int jq_badpath_at(jq_ev *E, jv v, const jv *key) {
  buf t;
  buf_init(&t, E->R.m);
  buf_puts(&t, "Invalid path expression near attempt to ");
  if (key) {
    buf_puts(&t, "access element ");
    jv_dump_trunc(&E->R, &t, *key, 15);
    buf_puts(&t, " of ");
  } else
    buf_puts(&t, "iterate through ");
  jv_dump_trunc(&E->R, &t, v, 30);
  E->err = jv_str(&E->R, buf_str(&t), t.len);
  buf_finish(&t);
  return JQ_ERR;
}

static jq_env *jq_find(jq_env *e, const jq_node *b) {
  for (; e; e = e->up)
    if (e->b == b) return e;
  return NULL;
}

/* Generic continuation records. */
typedef struct jq_kc {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
  jv x, xp; /* a value carried between stages */
  size_t i;
  void *tok;
} jq_kc;

static int jq_k_pipe(jq_ev *E, jv v, jv p, void *d) {
  jq_kc *c = d;
  return jq_eval(E, c->n->b, c->env, v, p, c->k, c->kd);
}

/* Index: key outer, target inner. */
static int jq_k_index2(jq_ev *E, jv t, jv tp, void *d) {
  jq_kc *c = d;
  jv r, rp;
  int rc;
  if (jq_pt_is_bad(tp) && c->n->t == JN_SLICE) {
    jv key = jv_obj(&E->R);
    jv_oset(&E->R, &key, jv_cstr(&E->R, "start"), jv_ref(c->x));
    jv_oset(&E->R, &key, jv_cstr(&E->R, "end"), jv_ref(c->xp));
    rc = jq_badpath_at(E, t, &key);
    jv_unref(&E->R, key);
    return rc;
  }
  if (jq_pt_is_bad(tp)) return jq_badpath_at(E, t, &c->x);
  if (c->n->t == JN_SLICE) {
    jv from = c->x, to = c->xp;
    if ((rc = jq_slice(E, t, from, to, &r))) return rc;
    if (!jq_pt_is_off(tp)) {
      jv key = jv_obj(&E->R);
      jv_oset(&E->R, &key, jv_cstr(&E->R, "start"), jv_ref(from));
      jv_oset(&E->R, &key, jv_cstr(&E->R, "end"), jv_ref(to));
      rp = jq_pt_add(E, tp, key);
      jv_unref(&E->R, key);
    } else
      rp = tp;
  } else {
    if (t.k == JV_NULL && c->x.k == JV_NULL && !jq_pt_is_off(tp))
      r = jv_null();
    else if ((rc = jq_index(E, t, c->x, &r)))
      return rc;
    rp = jq_pt_add(E, tp, c->x);
  }
  rc = c->k(E, r, rp, c->kd);
  jv_unref(&E->R, r);
  if (!jq_pt_is_off(rp)) jv_unref(&E->R, rp);
  return rc;
}

static int jq_k_index1(jq_ev *E, jv key, jv kp, void *d) {
  jq_kc *c = d, c2 = *c;
  (void)kp;
  c2.x = key;
  return jq_eval(E, c->n->a, c->env, c->in, c->ip, jq_k_index2, &c2);
}

static int jq_k_slice2(jq_ev *E, jv to, jv tp, void *d) {
  jq_kc *c = d, c2 = *c;
  (void)tp;
  c2.xp = to;
  return jq_eval(E, c->n->a, c->env, c->in, c->ip, jq_k_index2, &c2);
}

static int jq_k_slice1(jq_ev *E, jv from, jv fp, void *d) {
  jq_kc *c = d, c2 = *c;
  (void)fp;
  c2.x = from;
  if (!c->n->c) return jq_k_slice2(E, jv_null(), jq_pt_off(), &c2);
  return jq_eval(E, c->n->c, c->env, c->in, jq_pt_off(), jq_k_slice2, &c2);
}

static int jq_iter(jq_ev *E, jv t, jv tp, jq_k k, void *kd) {
  size_t i;
  int rc;
  if (jq_pt_is_bad(tp)) return jq_badpath_at(E, t, NULL);
  if (t.k == JV_ARRAY) {
    jv a = jv_ref(t);
    for (i = 0; i < jv_alen(a); i++) {
      jv p = jq_pt_is_off(tp) ? tp : jq_pt_add(E, tp, jv_num((double)i));
      rc = k(E, jv_aget(a, i), p, kd);
      if (!jq_pt_is_off(p)) jv_unref(&E->R, p);
      if (rc) {
        jv_unref(&E->R, a);
        return rc;
      }
    }
    jv_unref(&E->R, a);
    return 0;
  }
  if (t.k == JV_OBJECT) {
    jv o = jv_ref(t);
    jq_ent *e;
    size_t it = 0;
    while ((e = jv_onext(o, &it))) {
      jv p = jq_pt_add(E, tp, e->key);
      rc = k(E, e->val, p, kd);
      if (!jq_pt_is_off(p)) jv_unref(&E->R, p);
      if (rc) {
        jv_unref(&E->R, o);
        return rc;
      }
    }
    jv_unref(&E->R, o);
    return 0;
  }
  if (t.k == JV_NULL && !jq_pt_is_off(tp)) return 0;
  {
    buf b;
    buf_init(&b, E->R.m);
    buf_printf(&b, "Cannot iterate over %s (", jv_kind_name(t.k));
    jv_dump_trunc(&E->R, &b, t, 11 + 4);
    buf_putc(&b, ')');
    E->err = jv_str(&E->R, buf_str(&b), b.len);
    buf_finish(&b);
    return JQ_ERR;
  }
}

static int jq_k_iter(jq_ev *E, jv t, jv tp, void *d) {
  jq_kc *c = d;
  return jq_iter(E, t, tp, c->k, c->kd);
}

/* Calls c's continuation from inside a construct that catches errors (try,
 * //): an error the continuation raises is marked as c's, so that the
 * construct passes it on (JQ_ERRX owned by c) instead of catching it. */
static int jq_k_through(jq_ev *E, jq_kc *c, jv v, jv p) {
  int rc = c->k(E, v, p, c->kd);
  if (rc == JQ_ERR) {
    E->owner = c;
    return JQ_ERRX;
  }
  return rc;
}

static int jq_k_tryout(jq_ev *E, jv v, jv p, void *d) {
  return jq_k_through(E, d, v, p);
}

JQ_NOINLINE static int jq_try(jq_ev *E, const jq_node *n, jq_env *env, jv in,
                              jv ip, jq_k k, void *kd) {
  jq_kc c;
  int rc;
  memset(&c, 0, sizeof c);
  c.k = k;
  c.kd = kd;
  rc = jq_eval(E, n->a, env, in, ip, jq_k_tryout, &c);
  if (rc == JQ_ERRX && E->owner == &c) return JQ_ERR;
  if (rc != JQ_ERR) return rc;
  if (n->b) {
    jv ev = E->err;
    E->err = jv_null();
    /* break out of a try is not an error the catch sees */
    rc = jq_eval(E, n->b, env, ev, jq_pt_is_off(ip) ? ip : jq_pt_bad(), k, kd);
    jv_unref(&E->R, ev);
    return rc;
  }
  jv_unref(&E->R, E->err);
  E->err = jv_null();
  return 0;
}

static int jq_k_collect(jq_ev *E, jv v, jv p, void *d) {
  (void)p;
  jv_apush(&E->R, (jv *)d, jv_ref(v));
  return E->R.oom ? MSB_ENOMEM : 0;
}

int jq_collect(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv *out) {
  int rc;
  *out = jv_arr(&E->R);
  rc = jq_eval(E, n, env, in, jq_pt_off(), jq_k_collect, out);
  if (rc) {
    jv_unref(&E->R, *out);
    *out = jv_null();
  }
  return rc;
}

/* String interpolation: the last part varies slowest, as in jq. */
typedef struct jq_sctx {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
  jv *vals;
} jq_sctx;
typedef struct jq_spk {
  jq_sctx *s;
  int i;
} jq_spk;

static int jq_str_parts(jq_ev *E, jq_sctx *s, int i);

static int jq_k_strpart(jq_ev *E, jv v, jv p, void *d) {
  jq_spk *x = d;
  (void)p;
  x->s->vals[x->i] = v;
  return jq_str_parts(E, x->s, x->i - 1);
}

static int jq_str_build(jq_ev *E, jq_sctx *s) {
  const jq_node *n = s->n;
  jv r = jv_str(&E->R, "", 0), out;
  int j, rc;
  for (j = 0; j < n->nargs; j++) {
    jv x = s->vals[j];
    if (n->args[j]->opt == 2 || (!n->name && x.k == JV_STRING)) {
      r = jv_sappend(&E->R, r, jv_sp(x), jv_sl(x));
    } else if (n->name) {
      if ((rc = jq_format(E, n->name, x, &out))) {
        jv_unref(&E->R, r);
        return rc;
      }
      r = jv_scat(&E->R, r, out);
    } else
      r = jv_scat(&E->R, r, jv_tojson(&E->R, x));
  }
  rc = s->k(E, r, jq_pt_is_off(s->ip) ? s->ip : jq_pt_bad(), s->kd);
  jv_unref(&E->R, r);
  return rc;
}

static int jq_str_parts(jq_ev *E, jq_sctx *s, int i) {
  jq_spk x;
  if (i < 0) return jq_str_build(E, s);
  if (s->n->args[i]->opt == 2) {
    s->vals[i] = s->n->args[i]->v;
    return jq_str_parts(E, s, i - 1);
  }
  x.s = s;
  x.i = i;
  return jq_eval(E, s->n->args[i], s->env, s->in, jq_pt_off(), jq_k_strpart,
                 &x);
}

/* Object construction: entries in order, each key then value. */
typedef struct jq_octx {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
} jq_octx;
typedef struct jq_ok {
  jq_octx *o;
  int i;
  jv obj, key;
} jq_ok;

static int jq_obj_step(jq_ev *E, jq_octx *o, int i, jv obj);

static int jq_k_objval(jq_ev *E, jv v, jv p, void *d) {
  jq_ok *x = d;
  jv o2 = jv_ref(x->obj);
  int rc;
  (void)p;
  jv_oset(&E->R, &o2, jv_ref(x->key), jv_ref(v));
  rc = jq_obj_step(E, x->o, x->i + 1, o2);
  jv_unref(&E->R, o2);
  return rc;
}

static int jq_k_objkey(jq_ev *E, jv key, jv p, void *d) {
  jq_ok *x = d, y = *x;
  const jq_node *e = x->o->n->args[x->i];
  (void)p;
  if (key.k != JV_STRING) {
    buf t;
    buf_init(&t, E->R.m);
    buf_printf(&t, "Cannot use %s (", jv_kind_name(key.k));
    jv_dump_trunc(&E->R, &t, key, 15);
    buf_puts(&t, ") as object key");
    E->err = jv_str(&E->R, buf_str(&t), t.len);
    buf_finish(&t);
    return JQ_ERR;
  }
  y.key = key;
  return jq_eval(E, e->b, x->o->env, x->o->in, jq_pt_off(), jq_k_objval, &y);
}

static int jq_obj_step(jq_ev *E, jq_octx *o, int i, jv obj) {
  jq_ok x;
  if (i == o->n->nargs)
    return o->k(E, obj, jq_pt_is_off(o->ip) ? o->ip : jq_pt_bad(), o->kd);
  x.o = o;
  x.i = i;
  x.obj = obj;
  x.key = jv_null();
  return jq_eval(E, o->n->args[i]->a, o->env, o->in, jq_pt_off(), jq_k_objkey,
                 &x);
}

/* Binary operators: the right operand varies slowest. */
static int jq_k_bin2(jq_ev *E, jv a, jv ap, void *d) {
  jq_kc *c = d;
  jv r;
  int rc;
  (void)ap;
  if ((rc = jq_binop(E, c->n->op, a, c->x, &r))) return rc;
  rc = c->k(E, r, jq_pt_is_off(c->ip) ? c->ip : jq_pt_bad(), c->kd);
  jv_unref(&E->R, r);
  return rc;
}

static int jq_k_bin1(jq_ev *E, jv b, jv bp, void *d) {
  jq_kc *c = d, c2 = *c;
  (void)bp;
  c2.x = b;
  return jq_eval(E, c->n->a, c->env, c->in, jq_pt_off(), jq_k_bin2, &c2);
}

static int jq_k_and2(jq_ev *E, jv b, jv bp, void *d) {
  jq_kc *c = d;
  (void)bp;
  return c->k(E, jv_bool(jv_truthy(b)),
              jq_pt_is_off(c->ip) ? c->ip : jq_pt_bad(), c->kd);
}

static int jq_k_and1(jq_ev *E, jv a, jv ap, void *d) {
  jq_kc *c = d;
  int isor = c->n->t == JN_OR;
  (void)ap;
  if (jv_truthy(a) == isor)
    return c->k(E, jv_bool(isor), jq_pt_is_off(c->ip) ? c->ip : jq_pt_bad(),
                c->kd);
  return jq_eval(E, c->n->b, c->env, c->in, jq_pt_off(), jq_k_and2, c);
}

static int jq_k_alt(jq_ev *E, jv v, jv p, void *d) {
  jq_kc *c = d;
  if (!jv_truthy(v)) return 0;
  c->i++;
  return jq_k_through(E, c, v, p);
}

JQ_NOINLINE static int jq_alt(jq_ev *E, const jq_node *n, jq_env *env, jv in,
                              jv ip, jq_k k, void *kd) {
  jq_kc c;
  int rc;
  memset(&c, 0, sizeof c);
  c.k = k;
  c.kd = kd;
  rc = jq_eval(E, n->a, env, in, ip, jq_k_alt, &c);
  if (rc == JQ_ERRX && E->owner == &c) return JQ_ERR;
  if (rc == JQ_ERR) {
    jv_unref(&E->R, E->err);
    E->err = jv_null();
    rc = 0;
  }
  if (rc) return rc;
  if (c.i) return 0;
  return jq_eval(E, n->b, env, in, ip, k, kd);
}

static int jq_k_if(jq_ev *E, jv v, jv p, void *d) {
  jq_kc *c = d;
  const jq_node *br = jv_truthy(v) ? c->n->b : c->n->c;
  (void)p;
  if (!br) return c->k(E, c->in, c->ip, c->kd);
  return jq_eval(E, br, c->env, c->in, c->ip, c->k, c->kd);
}

static int jq_k_neg(jq_ev *E, jv v, jv p, void *d) {
  jq_kc *c = d;
  (void)p;
  if (v.k != JV_NUMBER) return jq_err1(E, v, "cannot be negated");
  return c->k(E, jv_num(-v.n), jq_pt_is_off(c->ip) ? c->ip : jq_pt_bad(),
              c->kd);
}

/* ---- patterns ---------------------------------------------------------- */

typedef struct jq_pat {
  int (*body)(jq_ev *E, jq_env *env, void *bd);
  void *bd;
} jq_pat;

#define JQ_PAT_MAX 64

static int jq_pat_run(jq_ev *E, jq_pat *P, jq_env *env, const jq_node **pats,
                      jv *vals, int n);

typedef struct jq_pok {
  jq_pat *P;
  jq_env *env;
  const jq_node **pats;
  jv *vals;
  int n;
} jq_pok;

static int jq_k_patkey(jq_ev *E, jv key, jv kp, void *d) {
  jq_pok *x = d;
  const jq_node *e = x->pats[0];
  jv v = x->vals[0], sub;
  const jq_node *p2[JQ_PAT_MAX];
  jv v2[JQ_PAT_MAX];
  jq_env fr, *env = x->env;
  int rc, m = 0, i;
  (void)kp;
  if (key.k != JV_STRING)
    return jq_errf(E, "Cannot index %s with %s", jv_kind_name(v.k),
                   jv_kind_name(key.k));
  if ((rc = jq_index(E, v, key, &sub))) return rc;
  if (e->c) {
    memset(&fr, 0, sizeof fr);
    fr.up = env;
    fr.b = e->c->ref ? e->c->ref : e->c;
    fr.v = sub;
    env = &fr;
  }
  if (e->b) p2[m] = e->b, v2[m++] = sub;
  for (i = 1; i < x->n && m < JQ_PAT_MAX; i++)
    p2[m] = x->pats[i], v2[m++] = x->vals[i];
  rc = jq_pat_run(E, x->P, env, p2, v2, m);
  jv_unref(&E->R, sub);
  return rc;
}

static int jq_pat_run(jq_ev *E, jq_pat *P, jq_env *env, const jq_node **pats,
                      jv *vals, int n) {
  const jq_node *pat, *p2[JQ_PAT_MAX];
  jv v, v2[JQ_PAT_MAX];
  int i, m = 0;
  if (!n) return P->body(E, env, P->bd);
  pat = pats[0];
  v = vals[0];
  switch (pat->t) {
  case JN_PVAR: {
    jq_env fr;
    memset(&fr, 0, sizeof fr);
    fr.up = env;
    fr.b = pat->ref ? pat->ref : pat;
    fr.v = v;
    return jq_pat_run(E, P, &fr, pats + 1, vals + 1, n - 1);
  }
  case JN_PARR:
    if (v.k != JV_ARRAY && v.k != JV_NULL)
      return jq_errf(E, "Cannot index %s with number", jv_kind_name(v.k));
    for (i = 0; i < pat->nargs && m < JQ_PAT_MAX; i++)
      p2[m] = pat->args[i], v2[m++] = v.k == JV_ARRAY && (size_t)i < jv_alen(v)
                                          ? jv_aget(v, (size_t)i)
                                          : jv_null();
    break;
  case JN_POBJ:
    for (i = 0; i < pat->nargs && m < JQ_PAT_MAX; i++)
      p2[m] = pat->args[i], v2[m++] = v;
    break;
  case JN_PENT: {
    jq_pok x;
    x.P = P;
    x.env = env;
    x.pats = pats;
    x.vals = vals;
    x.n = n;
    return jq_eval(E, pat->a, env, v, jq_pt_off(), jq_k_patkey, &x);
  }
  default: return jq_errf(E, "bad pattern");
  }
  for (i = 1; i < n && m < JQ_PAT_MAX; i++) p2[m] = pats[i], v2[m++] = vals[i];
  if (m >= JQ_PAT_MAX) return jq_errf(E, "destructuring pattern too large");
  return jq_pat_run(E, P, env, p2, v2, m);
}

/* Every variable of every alternative, bound to null first (?//). */
static int jq_pat_nulls(const jq_node *pat, jq_env *fr, int n, jq_env *up,
                        jq_env **top) {
  int i;
  if (!pat) return n;
  if (pat->t == JN_PVAR) {
    if (n >= JQ_PAT_MAX || pat->ref) return n;
    memset(&fr[n], 0, sizeof fr[n]);
    fr[n].up = *top ? *top : up;
    fr[n].b = pat;
    fr[n].v = jv_null();
    *top = &fr[n];
    return n + 1;
  }
  for (i = 0; i < pat->nargs; i++) {
    const jq_node *e = pat->args[i];
    if (e->t == JN_PENT) {
      n = jq_pat_nulls(e->c, fr, n, up, top);
      n = jq_pat_nulls(e->b, fr, n, up, top);
    } else
      n = jq_pat_nulls(e, fr, n, up, top);
  }
  return n;
}

/* `src as patterns | body`, reduce and foreach share the binding. */
typedef struct jq_asc {
  const jq_node *n;   /* the JN_AS node holding the patterns */
  const jq_node *body;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
} jq_asc;

static int jq_as_body(jq_ev *E, jq_env *env, void *bd) {
  jq_asc *a = bd;
  return jq_eval(E, a->body, env, a->in, a->ip, a->k, a->kd);
}

JQ_NOINLINE static int jq_bind(jq_ev *E, const jq_node *pats, jq_env *env, jv v,
                               int (*body)(jq_ev *, jq_env *, void *),
                               void *bd) {
  jq_pat P;
  const jq_node *p1[1];
  jv v1[1];
  int i, rc = 0;
  jq_env fr[JQ_PAT_MAX], *top = NULL;
  P.body = body;
  P.bd = bd;
  if (pats->nargs == 1) {
    p1[0] = pats->args[0];
    v1[0] = v;
    return jq_pat_run(E, &P, env, p1, v1, 1);
  }
  for (i = 0, rc = 0; i < pats->nargs; i++)
    rc = jq_pat_nulls(pats->args[i], fr, rc, env, &top);
  for (i = 0; i < pats->nargs; i++) {
    p1[0] = pats->args[i];
    v1[0] = v;
    rc = jq_pat_run(E, &P, top ? top : env, p1, v1, 1);
    if (rc != JQ_ERR || i + 1 == pats->nargs) break;
    jv_unref(&E->R, E->err);
    E->err = jv_null();
  }
  return rc;
}

static int jq_k_as(jq_ev *E, jv v, jv p, void *d) {
  jq_asc *a = d;
  (void)p;
  return jq_bind(E, a->n, a->env, v, jq_as_body, a);
}

/* ---- reduce and foreach ------------------------------------------------ */

typedef struct jq_rc {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
  jv acc, accp; /* owned */
  int got;
} jq_rc;

static void jq_setacc(jq_ev *E, jq_rc *r, jv v, jv p) {
  jv_unref(&E->R, r->acc);
  if (!jq_pt_is_off(r->accp)) jv_unref(&E->R, r->accp);
  r->acc = jv_ref(v);
  r->accp = jq_pt_is_off(p) || jq_pt_is_bad(p) ? p : jv_ref(p);
}

static int jq_k_redupd(jq_ev *E, jv v, jv p, void *d) {
  jq_rc *r = d;
  r->got = 1;
  jq_setacc(E, r, v, p);
  return 0;
}

static int jq_k_feext(jq_ev *E, jv v, jv p, void *d) {
  jq_rc *r = d;
  return r->k(E, v, p, r->kd);
}

typedef struct jq_feu {
  jq_rc *r;
  jq_env *env;
} jq_feu;

static int jq_k_feupd(jq_ev *E, jv v, jv p, void *d) {
  jq_feu *u = d;
  jq_rc *r = u->r;
  jq_setacc(E, r, v, p);
  if (r->n->nargs)
    return jq_eval(E, r->n->args[0], u->env, r->acc, r->accp, jq_k_feext, r);
  return r->k(E, r->acc, r->accp, r->kd);
}

static int jq_red_body(jq_ev *E, jq_env *env, void *bd) {
  jq_rc *r = bd;
  jv acc = jv_ref(r->acc), accp = r->accp;
  int rc;
  if (!jq_pt_is_off(accp) && !jq_pt_is_bad(accp)) accp = jv_ref(accp);
  if (r->n->t == JN_REDUCE) {
    r->got = 0;
    rc = jq_eval(E, r->n->c, env, acc, accp, jq_k_redupd, r);
    if (!rc && !r->got)
      jq_setacc(E, r, jv_null(), jq_pt_is_off(accp) ? accp : jq_pt_bad());
  } else {
    jq_feu u;
    u.r = r;
    u.env = env;
    rc = jq_eval(E, r->n->c, env, acc, accp, jq_k_feupd, &u);
  }
  jv_unref(&E->R, acc);
  if (!jq_pt_is_off(accp) && !jq_pt_is_bad(accp)) jv_unref(&E->R, accp);
  return rc;
}

static int jq_k_redsrc(jq_ev *E, jv v, jv p, void *d) {
  jq_rc *r = d;
  (void)p;
  return jq_bind(E, r->n->d, r->env, v, jq_red_body, r);
}

static int jq_k_redinit(jq_ev *E, jv v, jv p, void *d) {
  jq_rc *r0 = d, r = *r0;
  int rc;
  r.acc = jv_ref(v);
  r.accp = jq_pt_is_off(p) || jq_pt_is_bad(p) ? p : jv_ref(p);
  rc = jq_eval(E, r.n->a, r.env, r.in, jq_pt_off(), jq_k_redsrc, &r);
  if (!rc && r.n->t == JN_REDUCE) rc = r.k(E, r.acc, r.accp, r.kd);
  jv_unref(&E->R, r.acc);
  if (!jq_pt_is_off(r.accp) && !jq_pt_is_bad(r.accp)) jv_unref(&E->R, r.accp);
  return rc;
}

/* ---- calls ------------------------------------------------------------- */

typedef struct jq_callc {
  const jq_node *n, *def;
  jq_env *env, *base;
  jv in, ip;
  jq_k k;
  void *kd;
  jq_env *fr; /* frames, one per parameter */
} jq_callc;

static int jq_call_bind(jq_ev *E, jq_callc *c, int i);

typedef struct jq_pk {
  jq_callc *c;
  int i;
} jq_pk;

static int jq_k_param(jq_ev *E, jv v, jv p, void *d) {
  jq_pk *x = d;
  (void)p;
  x->c->fr[x->i].v = v;
  return jq_call_bind(E, x->c, x->i + 1);
}

static int jq_call_bind(jq_ev *E, jq_callc *c, int i) {
  const jq_node *def = c->def;
  jq_pk x;
  if (i == def->nargs)
    return jq_eval(E, def->a, def->nargs ? &c->fr[def->nargs - 1] : c->base,
                   c->in, c->ip, c->k, c->kd);
  c->fr[i].up = i ? &c->fr[i - 1] : c->base;
  c->fr[i].b = def->args[i];
  c->fr[i].cl = c->n->args[i];
  c->fr[i].clenv = c->env;
  c->fr[i].v = jv_null();
  if (!def->args[i]->dollar) return jq_call_bind(E, c, i + 1);
  x.c = c;
  x.i = i;
  return jq_eval(E, c->n->args[i], c->env, c->in, jq_pt_off(), jq_k_param, &x);
}

JQ_NOINLINE static int jq_call(jq_ev *E, const jq_node *n, jq_env *env, jv in,
                               jv ip, jq_k k, void *kd) {
  const jq_node *ref = n->ref;
  if (!ref) return jq_call_native(E, n, env, in, ip, k, kd);
  if (ref->t == JN_PARAM) {
    jq_env *f = jq_find(env, ref);
    if (!f) return jq_errf(E, "internal: unbound closure %s", n->name);
    return jq_eval(E, f->cl, f->clenv, in, ip, k, kd);
  }
  {
    jq_callc c;
    jq_env fr[2];
    jq_env *self = ref->toplevel ? NULL : jq_find(env, ref);
    int rc;
    if (!ref->toplevel && !self)
      return jq_errf(E, "internal: unbound function %s", n->name);
    c.n = n;
    c.def = ref;
    c.env = env;
    c.base = self;
    c.in = in;
    c.ip = ip;
    c.k = k;
    c.kd = kd;
    c.fr = fr;
    if (ref->nargs > 2) {
      c.fr = mem_zalloc(E->R.m, (size_t)ref->nargs * sizeof *fr);
      if (!c.fr) return MSB_ENOMEM;
    } else
      memset(fr, 0, sizeof fr);
    rc = jq_call_bind(E, &c, 0);
    if (c.fr != fr) mem_free(E->R.m, c.fr);
    return rc;
  }
}

/* ---- assignment -------------------------------------------------------- */

static int jq_k_paths(jq_ev *E, jv v, jv p, void *d) {
  if (jq_pt_is_bad(p)) return jq_badpath(E, v);
  jv_apush(&E->R, (jv *)d, jv_ref(p));
  return E->R.oom ? MSB_ENOMEM : 0;
}

/* All paths f yields on in (path(f)). */
static int jq_paths_of(jq_ev *E, const jq_node *f, jq_env *env, jv in,
                       jv *out) {
  jv root = jv_arr(&E->R);
  int rc;
  *out = jv_arr(&E->R);
  rc = jq_eval(E, f, env, in, root, jq_k_paths, out);
  jv_unref(&E->R, root);
  if (rc) {
    jv_unref(&E->R, *out);
    *out = jv_null();
  }
  return rc;
}

typedef struct jq_first {
  jv v;
  int got;
  int tok;
} jq_first;

static int jq_k_first(jq_ev *E, jv v, jv p, void *d) {
  jq_first *f = d;
  (void)p;
  f->v = jv_ref(v);
  f->got = 1;
  E->brk = &f->tok;
  return JQ_BRK;
}

typedef struct jq_asg {
  const jq_node *n;
  jq_env *env;
  jv in, ip, paths;
  jq_k k;
  void *kd;
} jq_asg;

/* One result of `lhs op= $v` / `lhs = $v`. */
static int jq_k_asgval(jq_ev *E, jv val, jv vp, void *d) {
  jq_asg *a = d;
  jv r = jv_ref(a->in);
  size_t i;
  int rc;
  (void)vp;
  for (i = 0; i < jv_alen(a->paths); i++) {
    jv p = jv_aget(a->paths, i), cur, nv, nr;
    if (a->n->op == JO_SET)
      nv = jv_ref(val);
    else {
      if ((rc = jq_getpath(E, r, p, &cur))) goto fail;
      if (a->n->op == JO_ALT)
        nv = jv_truthy(cur) ? jv_ref(cur) : jv_ref(val);
      else if ((rc = jq_binop(E, a->n->op, cur, val, &nv))) {
        jv_unref(&E->R, cur);
        goto fail;
      }
      jv_unref(&E->R, cur);
    }
    rc = jq_setpath(E, r, p, 0, nv, &nr);
    jv_unref(&E->R, nv);
    if (rc) goto fail;
    jv_unref(&E->R, r);
    r = nr;
  }
  rc = a->k(E, r, jq_pt_is_off(a->ip) ? a->ip : jq_pt_bad(), a->kd);
fail:
  jv_unref(&E->R, r);
  return rc;
}

JQ_NOINLINE static int jq_assign(jq_ev *E, const jq_node *n, jq_env *env, jv in,
                                 jv ip, jq_k k, void *kd) {
  jq_asg a;
  int rc;
  size_t i;
  a.n = n;
  a.env = env;
  a.in = in;
  a.ip = ip;
  a.k = k;
  a.kd = kd;
  if ((rc = jq_paths_of(E, n->a, env, in, &a.paths))) return rc;
  if (n->op != JO_UPD) {
    rc = jq_eval(E, n->b, env, in, jq_pt_off(), jq_k_asgval, &a);
    jv_unref(&E->R, a.paths);
    return rc;
  }
  {
    jv r = jv_ref(in), dels = jv_arr(&E->R);
    for (i = 0; i < jv_alen(a.paths) && !rc; i++) {
      jv p = jv_aget(a.paths, i), cur, nr;
      jq_first f;
      memset(&f, 0, sizeof f);
      if ((rc = jq_getpath(E, r, p, &cur))) break;
      rc = jq_eval(E, n->b, env, cur, jq_pt_off(), jq_k_first, &f);
      jv_unref(&E->R, cur);
      if (rc == JQ_BRK && E->brk == &f.tok) rc = 0;
      if (rc) {
        if (f.got) jv_unref(&E->R, f.v);
        break;
      }
      if (!f.got) {
        /* jq deletes the emptied paths at the end */
        jv_apush(&E->R, &dels, jv_ref(p));
        continue;
      }
      rc = jq_setpath(E, r, p, 0, f.v, &nr);
      jv_unref(&E->R, f.v);
      if (rc) break;
      jv_unref(&E->R, r);
      r = nr;
    }
    if (!rc && jv_alen(dels)) {
      jv nr;
      if (!(rc = jq_delpaths(E, r, dels, &nr))) {
        jv_unref(&E->R, r);
        r = nr;
      }
    }
    jv_unref(&E->R, dels);
    if (!rc) rc = k(E, r, jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
    jv_unref(&E->R, r);
  }
  jv_unref(&E->R, a.paths);
  return rc;
}

/* ---- recursion (..) ---------------------------------------------------- */

int jq_recurse_all(jq_ev *E, jv in, jv ip, jq_k k, void *kd);
int jq_recurse_all(jq_ev *E, jv in, jv ip, jq_k k, void *kd) {
  /* Explicit stack of (value, path): pre-order, children in order. */
  jv st = jv_arr(&E->R), sp = jv_arr(&E->R);
  int rc = 0, track = !jq_pt_is_off(ip);
  jv_apush(&E->R, &st, jv_ref(in));
  jv_apush(&E->R, &sp, track && !jq_pt_is_bad(ip) ? jv_ref(ip) : jv_null());
  if (track && jq_pt_is_bad(ip)) {
    jv_unref(&E->R, st);
    jv_unref(&E->R, sp);
    return jq_badpath(E, in);
  }
  while (jv_alen(st) && !rc && !E->R.oom) {
    size_t top = jv_alen(st) - 1, i, n;
    jv v = jv_ref(jv_aget(st, top)), p = jv_ref(jv_aget(sp, top));
    ((jq_arr *)st.p)->len--;
    ((jq_arr *)sp.p)->len--;
    jv_unref(&E->R, jv_aget(st, top));
    jv_unref(&E->R, jv_aget(sp, top));
    rc = k(E, v, track ? p : ip, kd);
    if (!rc && v.k == JV_ARRAY) {
      n = jv_alen(v);
      for (i = n; i-- > 0;) {
        jv_apush(&E->R, &st, jv_ref(jv_aget(v, i)));
        jv_apush(&E->R, &sp,
                 track ? jq_pt_add(E, p, jv_num((double)i)) : jv_null());
      }
    } else if (!rc && v.k == JV_OBJECT) {
      jq_ent *e;
      size_t it = 0, base = jv_alen(st), a, b;
      while ((e = jv_onext(v, &it))) {
        jv_apush(&E->R, &st, jv_ref(e->val));
        jv_apush(&E->R, &sp, track ? jq_pt_add(E, p, e->key) : jv_null());
      }
      /* reverse the pushed run so the first key pops first */
      for (a = base, b = jv_alen(st); b > a + 1; a++, b--) {
        jv *x = ((jq_arr *)st.p)->v, *y = ((jq_arr *)sp.p)->v, t;
        t = x[a], x[a] = x[b - 1], x[b - 1] = t;
        t = y[a], y[a] = y[b - 1], y[b - 1] = t;
      }
    }
    jv_unref(&E->R, v);
    jv_unref(&E->R, p);
  }
  jv_unref(&E->R, st);
  jv_unref(&E->R, sp);
  if (!rc && E->R.oom) rc = MSB_ENOMEM;
  return rc;
}

/* Kept out of jq_eval so its array does not enlarge every frame. */
JQ_NOINLINE static int jq_string(jq_ev *E, const jq_node *n, jq_env *env, jv in,
                                 jv ip, jq_k k, void *kd) {
  jq_sctx s;
  int rc;
  s.vals = mem_alloc(E->R.m, (size_t)(n->nargs ? n->nargs : 1) * sizeof(jv));
  if (!s.vals) return MSB_ENOMEM;
  s.n = n;
  s.env = env;
  s.in = in;
  s.ip = ip;
  s.k = k;
  s.kd = kd;
  rc = jq_str_parts(E, &s, n->nargs - 1);
  mem_free(E->R.m, s.vals);
  return rc;
}

/* ---- the dispatcher ---------------------------------------------------- */

static int jq_check(jq_ev *E) {
  char here;
  size_t used;
  if (E->R.oom) return MSB_ENOMEM;
  if ((++E->ticks & 63) == 0) {
    int rc = cmd_tick(E->c, 1);
    if (rc) return rc;
  }
#if defined(__wasm__)
  (void)used;
  if ((uintptr_t)&here < E->c->stack_floor + JQ_STACK_RESERVE) {
#else
  used = E->stack_base > &here ? (size_t)(E->stack_base - &here)
                               : (size_t)(&here - E->stack_base);
  if (used > JQ_STACK_MAX) {
#endif
    if (!E->limit_depth)
      cmd_err(E->c,
              "error: memsandbox: jq recursion too deep for the "
              "native stack (call depth limit)");
    E->limit_depth = 1;
    return MSB_ELIMIT;
  }
  return 0;
}

/* Steps that carry a jq_kc record to their continuations. */
JQ_NOINLINE static int jq_eval_kc(jq_ev *E, const jq_node *n, jq_env *env,
                                  jv in, jv ip, jq_k k, void *kd) {
  jq_kc c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.env = env;
  c.in = in;
  c.ip = ip;
  c.k = k;
  c.kd = kd;
  switch (n->t) {
  case JN_INDEX: return jq_eval(E, n->b, env, in, jq_pt_off(), jq_k_index1, &c);
  case JN_SLICE:
    if (!n->b) return jq_k_slice1(E, jv_null(), jq_pt_off(), &c);
    return jq_eval(E, n->b, env, in, jq_pt_off(), jq_k_slice1, &c);
  case JN_ITER: return jq_eval(E, n->a, env, in, ip, jq_k_iter, &c);
  case JN_NEG: return jq_eval(E, n->a, env, in, jq_pt_off(), jq_k_neg, &c);
  case JN_PIPE: return jq_eval(E, n->a, env, in, ip, jq_k_pipe, &c);
  case JN_BIN: return jq_eval(E, n->b, env, in, jq_pt_off(), jq_k_bin1, &c);
  case JN_AND:
  case JN_OR: return jq_eval(E, n->a, env, in, jq_pt_off(), jq_k_and1, &c);
  default: return jq_eval(E, n->a, env, in, jq_pt_off(), jq_k_if, &c);
  }
}

JQ_NOINLINE static int jq_eval_value(jq_ev *E, const jq_node *n, jq_env *env,
                                     jv in, jv ip, jq_k k, void *kd) {
  jv r;
  int rc;
  if (n->t == JN_FORMAT) {
    if ((rc = jq_format(E, n->name, in, &r))) return rc;
  } else if (!n->a)
    r = jv_arr(&E->R);
  else if ((rc = jq_collect(E, n->a, env, in, &r)))
    return rc;
  rc = k(E, r, jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
  jv_unref(&E->R, r);
  return rc;
}

JQ_NOINLINE static int jq_eval_object(jq_ev *E, const jq_node *n, jq_env *env,
                                      jv in, jv ip, jq_k k, void *kd) {
  jq_octx o;
  jv obj = jv_obj(&E->R);
  int rc;
  o.n = n;
  o.env = env;
  o.in = in;
  o.ip = ip;
  o.k = k;
  o.kd = kd;
  rc = jq_obj_step(E, &o, 0, obj);
  jv_unref(&E->R, obj);
  return rc;
}

JQ_NOINLINE static int jq_eval_reduce(jq_ev *E, const jq_node *n, jq_env *env,
                                      jv in, jv ip, jq_k k, void *kd) {
  jq_rc r;
  memset(&r, 0, sizeof r);
  r.n = n;
  r.env = env;
  r.in = in;
  r.ip = ip;
  r.k = k;
  r.kd = kd;
  return jq_eval(E, n->b, env, in, ip, jq_k_redinit, &r);
}

/* def and label push a frame for their body. */
JQ_NOINLINE static int jq_eval_frame(jq_ev *E, const jq_node *n, jq_env *env,
                                     jv in, jv ip, jq_k k, void *kd) {
  jq_env fr;
  int rc;
  memset(&fr, 0, sizeof fr);
  fr.up = env;
  fr.b = n;
  if (n->t == JN_DEF) return jq_eval(E, n->b, &fr, in, ip, k, kd);
  rc = jq_eval(E, n->a, &fr, in, ip, k, kd);
  if (rc == JQ_BRK && E->brk == &fr) rc = 0;
  return rc;
}

JQ_NOINLINE static int jq_eval_var(jq_ev *E, const jq_node *n, jq_env *env,
                                   jv in, jv ip, jq_k k, void *kd) {
  const jq_node *b = n->ref;
  jq_env *f;
  (void)in;
  if (b->t == JN_GLOBAL) {
    int i;
    for (i = 0; i <= E->nglobals; i++)
      if (E->gnodes[i] == b)
        return k(E, E->gvals[i], jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
    return jq_errf(E, "internal: unbound global");
  }
  f = jq_find(env, b);
  if (!f) return jq_errf(E, "internal: unbound $%s", n->name);
  return k(E, f->v, jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
}

JQ_NOINLINE static int jq_eval_as(jq_ev *E, const jq_node *n, jq_env *env,
                                  jv in, jv ip, jq_k k, void *kd) {
  jq_asc a;
  a.n = n;
  a.body = n->b;
  a.env = env;
  a.in = in;
  a.ip = ip;
  a.k = k;
  a.kd = kd;
  return jq_eval(E, n->a, env, in, jq_pt_off(), jq_k_as, &a);
}

int jq_eval(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip, jq_k k,
            void *kd) {
  int rc;
  if ((rc = jq_check(E))) return rc;
  switch (n->t) {
  case JN_ID: return k(E, in, ip, kd);
  case JN_RECURSE: return jq_recurse_all(E, in, ip, k, kd);
  case JN_INDEX:
  case JN_SLICE:
  case JN_ITER:
  case JN_NEG:
  case JN_PIPE:
  case JN_BIN:
  case JN_AND:
  case JN_OR:
  case JN_IF: return jq_eval_kc(E, n, env, in, ip, k, kd);
  case JN_TRY: return jq_try(E, n, env, in, ip, k, kd);
  case JN_LIT: return k(E, n->v, jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
  case JN_STR: return jq_string(E, n, env, in, ip, k, kd);
  case JN_FORMAT:
  case JN_ARRAY: return jq_eval_value(E, n, env, in, ip, k, kd);
  case JN_OBJECT: return jq_eval_object(E, n, env, in, ip, k, kd);
  case JN_COMMA:
    if ((rc = jq_eval(E, n->a, env, in, ip, k, kd))) return rc;
    return jq_eval(E, n->b, env, in, ip, k, kd);
  case JN_ALT: return jq_alt(E, n, env, in, ip, k, kd);
  case JN_REDUCE:
  case JN_FOREACH: return jq_eval_reduce(E, n, env, in, ip, k, kd);
  case JN_DEF:
  case JN_LABEL: return jq_eval_frame(E, n, env, in, ip, k, kd);
  case JN_CALL: return jq_call(E, n, env, in, ip, k, kd);
  case JN_VAR: return jq_eval_var(E, n, env, in, ip, k, kd);
  case JN_AS: return jq_eval_as(E, n, env, in, ip, k, kd);
  case JN_BREAK: {
    jq_env *f = jq_find(env, n->ref);
    if (!f) return jq_errf(E, "$*label-%s is not defined", n->name);
    E->brk = f;
    return JQ_BRK;
  }
  case JN_ASSIGN: return jq_assign(E, n, env, in, ip, k, kd);
  }
  return jq_errf(E, "internal: unknown node %d", n->t);
}
