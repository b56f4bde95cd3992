/* awk_interp.c - awk's tree-walking interpreter: values, arrays,
 * expressions, statements and the BEGIN / main / END cycle.
 *
 * Values follow gawk: a number converts to a string with "%d" when it is
 * integral (any magnitude) and with CONVFMT (OFMT for print) otherwise;
 * input text ("strnum") compares as a number when it looks like one. Work
 * is charged to the sandbox's step budget once per 8 loop iterations,
 * function calls and records, so `while (1);` stops at the step limit. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h> /* snprintf only: formatting, no I/O */
#include <stdlib.h>
#include <string.h>

#include "awk.h"

#define AWK_MAX_DEPTH 400

/* ---- strings and values ---------------------------------------------- */

awk_str *awk_str_new(mem *m, const char *s, size_t len) {
  awk_str *r = mem_alloc(m, sizeof *r + len + 1);
  if (!r) return NULL;
  r->ref = 1;
  r->len = len;
  if (len) memcpy(r->p, s, len);
  r->p[len] = 0;
  return r;
}

void awk_str_unref(mem *m, awk_str *s) {
  if (s && --s->ref == 0) mem_free(m, s);
}

void awk_val_free(awk_rt *A, awk_val *v) {
  awk_str_unref(A->m, v->s);
  v->s = NULL;
  v->type = AV_UNINIT;
  v->have = 0;
}

void awk_val_copy(awk_val *dst, const awk_val *src) {
  *dst = *src;
  if (dst->s) dst->s->ref++;
}

/* The string limit applies here, where every value the program builds
 * passes. */
static int awk_str_admit(awk_rt *A, size_t n) {
  const msb_limits *lim = A->c->lim;
  if (lim && lim->max_string_bytes && n > lim->max_string_bytes)
    return A->err = MSB_ELIMIT;
  /* building strings is work by volume, like every copy in the sandbox */
  if (n >= 64 && cmd_charge_bytes(A->c, n)) return A->err = MSB_ELIMIT;
  return 0;
}

/* A new string value. */
static awk_str *awk_mkstr(awk_rt *A, const char *s, size_t n) {
  awk_str *r;
  if (awk_str_admit(A, n)) return NULL;
  r = awk_str_new(A->m, s, n);
  if (!r) A->err = MSB_ENOMEM;
  return r;
}

/* Whether v's string is v's alone and its block holds n bytes without
 * wasting more than half of it: $0 and the fields of each record are
 * rewritten in place rather than freed and allocated again. */
static int awk_str_fits(const awk_val *v, size_t n) {
  size_t cap;
  if (!v->s || v->s->ref != 1) return 0;
  cap = mem_size(v->s) - sizeof *v->s - 1;
  return n <= cap && cap <= 2 * n + 64;
}

int awk_set_str(awk_rt *A, awk_val *v, const char *s, size_t n, int strnum) {
  awk_str *r;
  if (awk_str_fits(v, n)) {
    if (awk_str_admit(A, n)) return A->err;
    r = v->s;
    memmove(r->p, s, n); /* s may lie in r */
    r->len = n;
    r->p[n] = 0;
  } else {
    /* rounded up so that the next, slightly longer record fits as well */
    size_t cap = (n | 31) + 1;
    if (awk_str_admit(A, n)) return A->err;
    if (!(r = mem_alloc(A->m, sizeof *r + cap))) return A->err = MSB_ENOMEM;
    r->ref = 1;
    r->len = n;
    memcpy(r->p, s, n);
    r->p[n] = 0;
    awk_val_free(A, v);
  }
  v->s = r;
  v->type = strnum ? AV_STRNUM : AV_STR;
  v->have = AV_HSTR;
  return 0;
}

void awk_set_num(awk_rt *A, awk_val *v, double d) {
  awk_val_free(A, v);
  v->type = AV_NUM;
  v->have = AV_HNUM;
  v->n = d;
}

/* Parses the leading number of s like gawk: blanks, sign, decimal digits,
 * fraction, exponent; "+inf" and "-nan" need their sign. *looks tells
 * whether the whole string is such a number (blanks around allowed). */
double awk_strtod(const char *s, size_t n, int *looks) {
  size_t i = 0, st, k;
  int digits = 0, neg = 0;
  double v = 0;
  char tmp[64], *t;
  *looks = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
                   s[i] == '\r' || s[i] == '\f' || s[i] == '\v'))
    i++;
  st = i;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i > st && i + 3 <= n &&
      (!strncasecmp(s + i, "inf", 3) || !strncasecmp(s + i, "nan", 3))) {
    int inf = (s[i] | 32) == 'i';
    k = i + 3;
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n')) k++;
    *looks = k == n;
    v = inf ? HUGE_VAL : NAN;
    return neg ? -v : v;
  }
  k = i;
  while (k < n && s[k] >= '0' && s[k] <= '9') k++, digits++;
  if (digits && k == n && digits < 16) {
    for (; i < k; i++) v = v * 10 + (s[i] - '0');
    *looks = 1;
    return neg ? -v : v;
  }
  if (k < n && s[k] == '.') {
    k++;
    while (k < n && s[k] >= '0' && s[k] <= '9') k++, digits++;
  }
  if (!digits) return 0;
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    size_t e = k + 1;
    if (e < n && (s[e] == '+' || s[e] == '-')) e++;
    if (e < n && s[e] >= '0' && s[e] <= '9') {
      while (e < n && s[e] >= '0' && s[e] <= '9') e++;
      k = e;
    }
  }
  t = k - st < sizeof tmp ? tmp : malloc(k - st + 1);
  if (!t) return 0;
  memcpy(t, s + st, k - st);
  t[k - st] = 0;
  v = strtod(t, 0);
  if (t != tmp) free(t);
  while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' ||
                   s[k] == '\r' || s[k] == '\f' || s[k] == '\v'))
    k++;
  *looks = k == n;
  return v;
}

/* Classifies input text as a number or a string, once. */
static void awk_classify(awk_val *v) {
  int looks;
  double d = awk_strtod(v->s->p, v->s->len, &looks);
  v->type = looks ? AV_NUMSTR : AV_STR;
  v->n = d;
  v->have |= AV_HNUM;
}

double awk_val_num(awk_val *v) {
  int looks;
  if (v->have & AV_HNUM) return v->n;
  if (v->type == AV_UNINIT || !v->s) return 0;
  if (v->type == AV_STRNUM) {
    awk_classify(v);
    return v->n;
  }
  v->n = awk_strtod(v->s->p, v->s->len, &looks);
  v->have |= AV_HNUM;
  return v->n;
}

int awk_num_to_str(awk_rt *A, double d, const char *fmt, buf *out) {
  char tmp[64];
  int n;
  if (isnan(d)) return buf_puts(out, signbit(d) ? "-nan" : "+nan");
  if (isinf(d)) return buf_puts(out, d < 0 ? "-inf" : "+inf");
  if (d == floor(d)) {
    if (d == 0) return buf_putc(out, '0');
    if (fabs(d) < 1e15) {
      long long ll = (long long)d;
      n = snprintf(tmp, sizeof tmp, "%lld", ll);
      return buf_put(out, tmp, (size_t)n);
    }
    return buf_printf(out, "%.0f", d);
  }
  if (!strcmp(fmt, "%.6g")) return buf_printf(out, "%.6g", d);
  {
    /* any other CONVFMT / OFMT goes through printf's own rules */
    awk_val v;
    memset(&v, 0, sizeof v);
    v.type = AV_NUM;
    v.have = AV_HNUM;
    v.n = d;
    return awk_format(A, out, fmt, strlen(fmt), &v, 1);
  }
}

static const char *awk_convfmt(awk_rt *A, int slot) {
  awk_val *v = &A->g[slot].v;
  if (!(v->have & AV_HSTR) || !v->s) return "%.6g";
  return v->s->p;
}

int awk_val_str(awk_rt *A, awk_val *v, int ofmt) {
  awk_str *s;
  if (v->have & AV_HSTR) return 0;
  if (v->type == AV_UNINIT) {
    if (!(s = awk_mkstr(A, "", 0))) return A->err;
  } else {
    buf_clear(&A->tmp);
    awk_num_to_str(A, v->n, awk_convfmt(A, ofmt ? V_OFMT : V_CONVFMT), &A->tmp);
    if (A->tmp.err) return A->err = A->tmp.err;
    if (!(s = awk_mkstr(A, A->tmp.p, A->tmp.len))) return A->err;
  }
  v->s = s;
  v->have |= AV_HSTR;
  return 0;
}

int awk_val_bool(awk_rt *A, awk_val *v) {
  (void)A;
  switch (v->type) {
  case AV_UNINIT: return 0;
  case AV_NUM: return v->n != 0;
  case AV_STR: return v->s && v->s->len > 0;
  case AV_STRNUM: awk_classify(v); /* fall through */
  default:
    if (v->type == AV_NUMSTR) return v->n != 0;
    return v->s && v->s->len > 0;
  }
}

/* ---- diagnostics ---------------------------------------------------- */

static void awk_vmsg(awk_rt *A, const char *kind, const char *fmt, va_list ap) {
  buf *e = A->c->err;
  buf_printf(e, "%s: ", cmd_name(A->c));
  if (A->cur_line > 0) buf_printf(e, "cmd. line:%d: ", A->cur_line);
  if (A->g && awk_val_num(&A->g[V_FNR].v) > 0 && A->main.name)
    buf_printf(e, "(FILENAME=%s FNR=%.0f) ", A->main.name,
               awk_val_num(&A->g[V_FNR].v));
  buf_puts(e, kind);
  buf_vprintf(e, fmt, ap);
  buf_putc(e, '\n');
}

int awk_fatal(awk_rt *A, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  awk_vmsg(A, "fatal: ", fmt, ap);
  va_end(ap);
  return AWK_FATAL;
}

void awk_warn(awk_rt *A, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  awk_vmsg(A, "warning: ", fmt, ap);
  va_end(ap);
}

/* One step per 8 loop iterations, calls or records: a runaway loop stops
 * within a second or two of the default budget, while a pass over a
 * million-line file costs a small part of it. */
int awk_tick(awk_rt *A) {
  if ((++A->ticks & 7) == 0) {
    int r = cmd_tick(A->c, 1);
    if (r) return A->err = r;
  }
  return 0;
}

/* ---- arrays ----------------------------------------------------------- */

static uint32_t awk_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

awk_arr *awk_arr_new(awk_rt *A) {
  awk_arr *a = mem_zalloc(A->m, sizeof *a);
  if (!a) A->err = MSB_ENOMEM;
  return a;
}

void awk_arr_clear(awk_rt *A, awk_arr *a) {
  size_t i;
  awk_order_clear(A, a);
  for (i = 0; i < a->n; i++)
    if (a->e[i].key) {
      awk_str_unref(A->m, a->e[i].key);
      awk_val_free(A, &a->e[i].v);
    }
  mem_free(A->m, a->e);
  mem_free(A->m, a->ix);
  memset(a, 0, sizeof *a);
}

void awk_arr_free(awk_rt *A, awk_arr *a) {
  if (!a) return;
  awk_arr_clear(A, a);
  mem_free(A->m, a);
}

static int awk_arr_reindex(awk_rt *A, awk_arr *a, size_t ixcap) {
  uint32_t *ix = mem_zalloc(A->m, sizeof *ix * ixcap);
  size_t i, j, live = 0;
  if (!ix) return A->err = MSB_ENOMEM;
  /* compact the entries, dropping deleted ones */
  for (i = 0, j = 0; i < a->n; i++)
    if (a->e[i].key) a->e[j++] = a->e[i];
  a->n = j;
  for (i = 0; i < a->n; i++) {
    size_t h = a->e[i].hash & (ixcap - 1);
    while (ix[h]) h = (h + 1) & (ixcap - 1);
    ix[h] = (uint32_t)i + 1;
    live++;
  }
  a->live = live;
  mem_free(A->m, a->ix);
  a->ix = ix;
  a->ixcap = ixcap;
  return 0;
}

static long awk_arr_find(awk_arr *a, const char *k, size_t n, uint32_t h,
                         size_t *slot) {
  size_t i;
  if (!a->ixcap) return -1;
  for (i = h & (a->ixcap - 1);; i = (i + 1) & (a->ixcap - 1)) {
    uint32_t x = a->ix[i];
    awk_ent *e;
    if (!x) {
      if (slot) *slot = i;
      return -1;
    }
    e = &a->e[x - 1];
    if (e->hash == h && e->key && e->key->len == n && !memcmp(e->key->p, k, n))
      return (long)(x - 1);
  }
}

awk_val *awk_arr_get(awk_rt *A, awk_arr *a, const char *k, size_t n,
                     int create) {
  uint32_t h = awk_hash(k, n);
  size_t slot = 0;
  long i = awk_arr_find(a, k, n, h, &slot);
  awk_ent *e;
  if (i >= 0) return &a->e[i].v;
  if (!create) return NULL;
  if (A->c->lim && A->c->lim->max_array_items &&
      a->live >= A->c->lim->max_array_items) {
    A->err = MSB_ELIMIT;
    return NULL;
  }
  if (a->n + 1 > a->ixcap / 2) {
    size_t cap = a->ixcap ? a->ixcap : 8;
    while (a->live + 1 > cap / 2) cap *= 2;
    if (awk_arr_reindex(A, a, cap)) return NULL;
    awk_arr_find(a, k, n, h, &slot);
  }
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 8;
    awk_ent *ne = mem_realloc(A->m, a->e, sizeof *ne * cap);
    if (!ne) return A->err = MSB_ENOMEM, NULL;
    a->e = ne;
    a->cap = cap;
  }
  e = &a->e[a->n];
  memset(e, 0, sizeof *e);
  if (!(e->key = awk_mkstr(A, k, n))) return NULL;
  e->hash = h;
  a->ix[slot] = (uint32_t)++a->n;
  a->live++;
  if (awk_order_add(A, a, e)) return NULL;
  return &e->v;
}

void awk_arr_del(awk_rt *A, awk_arr *a, const char *k, size_t n) {
  long i = awk_arr_find(a, k, n, awk_hash(k, n), NULL);
  if (i < 0) return;
  /* keep the slot as a tombstone: the probe chains stay intact */
  awk_order_del(A, a, &a->e[i]);
  awk_str_unref(A->m, a->e[i].key);
  a->e[i].key = NULL;
  awk_val_free(A, &a->e[i].v);
  a->live--;
  if (!a->live) awk_arr_clear(A, a);
}

/* ---- cells ------------------------------------------------------------ */

static awk_cell *awk_cell_of(awk_rt *A, awk_node *var) {
  awk_cell *c = var->op == N_LOCAL ? &A->fr->cells[var->idx] : &A->g[var->idx];
  while (c->kind == C_REF) c = c->ref;
  return c;
}

static const char *awk_var_name(awk_rt *A, awk_node *var) {
  return var->op == N_VAR ? A->p->gnames[var->idx] : A->fr->f->params[var->idx];
}

awk_arr *awk_cell_arr(awk_rt *A, awk_node *var) {
  awk_cell *c;
  if (var->op != N_VAR && var->op != N_LOCAL) {
    /* split(s, "x"), match(s, r, 5): no array of arrays either */
    A->err = awk_fatal(A, "attempt to use a scalar value as array");
    return NULL;
  }
  c = awk_cell_of(A, var);
  if (c->kind == C_ARRAY) return c->a;
  if (c->kind == C_UNTYPED) {
    if (!(c->a = awk_arr_new(A))) return NULL;
    c->kind = C_ARRAY;
    return c->a;
  }
  A->err =
      awk_fatal(A, "attempt to use scalar %s`%s' as an array",
                var->op == N_LOCAL ? "parameter " : "", awk_var_name(A, var));
  return NULL;
}

/* The scalar a variable holds, typing an untyped cell as a scalar. */
static awk_val *awk_scalar(awk_rt *A, awk_node *var) {
  awk_cell *c = var->op == N_LOCAL ? &A->fr->cells[var->idx] : &A->g[var->idx];
  if (c->kind == C_REF) {
    awk_cell *t = c;
    while (t->kind == C_REF) t = t->ref;
    if (t->kind == C_ARRAY)
      c = t;
    else {
      /* an untyped argument used as a scalar stays local */
      c->kind = C_SCALAR;
      c->ref = NULL;
      memset(&c->v, 0, sizeof c->v);
    }
  }
  if (c->kind == C_ARRAY) {
    A->err = awk_fatal(A, "attempt to use array `%s' in a scalar context",
                       awk_var_name(A, var));
    return NULL;
  }
  c->kind = C_SCALAR;
  return &c->v;
}

/* ---- regex ------------------------------------------------------------ */

int awk_icase(awk_rt *A) {
  awk_val *v = &A->g[V_IGNORECASE].v;
  return v->type != AV_UNINIT && awk_val_bool(A, v);
}

/* Whether "{" starts an interval: digits, an optional comma and digits,
 * then "}". Otherwise gawk reads the brace literally ("a{", "a{x}"). */
static int awk_rx_interval_ahead(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  if (i < n && s[i] == ',')
    for (i++; i < n && s[i] >= '0' && s[i] <= '9';) i++;
  return i < n && s[i] == '}';
}

/* gawk's regex dialect on the shared engine: \y is GNU's \b (\B, \<,
 * \>, \w, \s stay), *, + or ? with nothing to repeat (at the start,
 * after "(" or "|") is a literal character, and so is a "{" that starts no
 * interval. */
static void awk_rx_translate(buf *b, const char *s, size_t n) {
  size_t i;
  int start = 1, br = 0;
  for (i = 0; i < n; i++) {
    char ch = s[i];
    if (ch == '\\' && i + 1 < n) {
      if (s[i + 1] == 'y' && !br)
        buf_puts(b, "\\b");
      else
        buf_put(b, s + i, 2);
      i++;
      start = 0;
      continue;
    }
    if (br) {
      /* inside a bracket expression: find its end, past [:class:] */
      if (ch == '[' && i + 1 < n && strchr(":.=", s[i + 1]) && s[i + 1]) {
        const char *e = memchr(s + i + 2, s[i + 1], n - i - 2);
        if (e && e + 1 < s + n && e[1] == ']') {
          buf_put(b, s + i, (size_t)(e + 2 - (s + i)));
          i = (size_t)(e + 1 - s);
          br++;
          continue;
        }
      }
      if (ch == ']' && br > 1)
        br = 0;
      else
        br++;
      buf_putc(b, ch);
      continue;
    }
    if (start && (ch == '*' || ch == '+' || ch == '?')) buf_putc(b, '\\');
    if (ch == '{' && (start || !awk_rx_interval_ahead(s + i + 1, n - i - 1)))
      buf_putc(b, '\\');
    buf_putc(b, ch);
    if (ch == '[') {
      br = 1;
      if (i + 1 < n && s[i + 1] == '^') buf_putc(b, s[++i]);
      if (i + 1 < n && s[i + 1] == ']') buf_putc(b, s[++i]), br++;
    }
    start = ch == '(' || ch == '|' || (ch == '^' && start);
  }
}

/* Compiles gawk regex S into *out; a syntax error is MSB_EINVAL with the
 * engine's message in msg. */
int awk_rx_compile(mem *m, const char *s, size_t n, int icase, rx **out,
                   buf *msg) {
  buf b;
  int rc;
  buf_init(&b, m);
  awk_rx_translate(&b, s, n);
  rc = b.err ? b.err
             : rx_compile(m, b.p ? b.p : "", b.len,
                          RX_ERE | (icase ? RX_ICASE : 0), out, msg);
  buf_finish(&b);
  return rc;
}

static int awk_rx_build(awk_rt *A, const char *s, size_t n, int icase,
                        rx **out) {
  int rc;
  buf_clear(&A->tmp2);
  rc = awk_rx_compile(A->m, s, n, icase, out, &A->tmp2);
  if (rc == MSB_EINVAL) {
    A->err = awk_fatal(A, "invalid regexp: %s: /%.*s/", buf_str(&A->tmp2),
                       (int)n, s);
  } else if (rc)
    A->err = rc;
  return rc ? A->err : 0;
}

rx *awk_regex_str(awk_rt *A, const char *s, size_t n, int *rc) {
  int ic = awk_icase(A), i;
  awk_rxc *e;
  for (i = 0; i < 64; i++) {
    e = &A->rxc[i];
    if (e->re && e->icase == ic && e->src->len == n && !memcmp(e->src->p, s, n))
      return e->re;
  }
  e = &A->rxc[A->rxnext];
  A->rxnext = (A->rxnext + 1) & 63;
  rx_free(e->re);
  e->re = NULL;
  awk_str_unref(A->m, e->src);
  e->src = NULL;
  if ((*rc = awk_rx_build(A, s, n, ic, &e->re)) != 0) return NULL;
  if (!(e->src = awk_mkstr(A, s, n))) {
    rx_free(e->re);
    e->re = NULL;
    *rc = A->err;
    return NULL;
  }
  e->icase = ic;
  return e->re;
}

rx *awk_regex(awk_rt *A, awk_node *n, int *rc) {
  awk_val v;
  rx *r;
  *rc = 0;
  if (n->op == N_ERE) {
    if (awk_icase(A)) return awk_regex_str(A, n->str->p, n->str->len, rc);
    if (!n->re) {
      if (A->nlits == A->litcap) {
        size_t cap = A->litcap ? A->litcap * 2 : 16;
        rx **l = mem_realloc(A->m, A->lits, sizeof *l * cap);
        if (!l) return *rc = A->err = MSB_ENOMEM, NULL;
        A->lits = l;
        A->litcap = cap;
      }
      if ((*rc = awk_rx_build(A, n->str->p, n->str->len, 0, &n->re)) != 0)
        return NULL;
      A->lits[A->nlits++] = n->re;
    }
    return n->re;
  }
  memset(&v, 0, sizeof v);
  if ((*rc = awk_eval_str(A, n, &v)) != 0) return NULL;
  r = awk_regex_str(A, v.s->p, v.s->len, rc);
  awk_val_free(A, &v);
  return r;
}

int awk_rx_exec(awk_rt *A, rx *r, const char *s, size_t n, size_t start,
                unsigned ef, rx_match *m, size_t nm) {
  int rc = cmd_rx_exec(A->c, r, (const uint8_t *)s, n, start, ef, m, nm);
  if (rc < 0) A->err = rc;
  return rc;
}

/* ---- expressions --------------------------------------------------- */

int awk_eval_str(awk_rt *A, awk_node *n, awk_val *out) {
  int rc = awk_eval(A, n, out);
  if (rc) return rc;
  return awk_val_str(A, out, 0);
}

static int awk_eval_num(awk_rt *A, awk_node *n, double *d) {
  awk_val v;
  int rc;
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval(A, n, &v)) != 0) return rc;
  *d = awk_val_num(&v);
  awk_val_free(A, &v);
  return 0;
}

/* The subscript string of a list of expressions (joined by SUBSEP). */
static int awk_subscript(awk_rt *A, awk_node *list, buf *k) {
  awk_val v;
  int rc, first = 1;
  buf_clear(k);
  for (; list; list = list->next) {
    memset(&v, 0, sizeof v);
    if ((rc = awk_eval(A, list, &v)) != 0) return rc;
    if (!first) {
      awk_val *ss = &A->g[V_SUBSEP].v;
      if ((rc = awk_val_str(A, ss, 0)) != 0) return awk_val_free(A, &v), rc;
      buf_put(k, ss->s->p, ss->s->len);
    }
    first = 0;
    if (v.type == AV_NUM && !(v.have & AV_HSTR)) {
      /* integral subscripts are the common case: no string value */
      awk_num_to_str(A, v.n, awk_convfmt(A, V_CONVFMT), k);
    } else {
      if ((rc = awk_val_str(A, &v, 0)) != 0) return awk_val_free(A, &v), rc;
      buf_put(k, v.s->p, v.s->len);
    }
    awk_val_free(A, &v);
  }
  return k->err ? (A->err = k->err) : 0;
}

/* Storage of an lvalue (not fields). *slot gets the special-variable slot
 * or -1. Subscripts are evaluated into the key buffer kb. */
static int awk_lval(awk_rt *A, awk_node *n, awk_val **pv, int *slot, buf *kb) {
  *slot = -1;
  if (n->op == N_VAR || n->op == N_LOCAL) {
    if (!(*pv = awk_scalar(A, n))) return A->err;
    if (n->op == N_VAR && n->idx < V_NSPECIAL) *slot = n->idx;
    return 0;
  }
  {
    awk_arr *a;
    int rc = awk_subscript(A, n->b, kb);
    if (rc) return rc;
    if (!(a = awk_cell_arr(A, n->a))) return A->err;
    if (!(*pv = awk_arr_get(A, a, kb->p ? kb->p : "", kb->len, 1)))
      return A->err;
    return 0;
  }
}

/* An lvalue resolved once: its subscripts or field number are evaluated a
 * single time even when it is read and then written (c[i++]++, $(j++) += 2),
 * as gawk does. */
typedef struct {
  awk_val *dst; /* the storage (not fields) */
  int slot;     /* special-variable slot or -1 */
  int field;    /* a field: fidx is its number */
  double fidx;
} awk_ref;

static int awk_ref_of(awk_rt *A, awk_node *n, awk_ref *r) {
  buf kb;
  int rc;
  r->field = n->op == N_FIELD;
  if (r->field) return awk_eval_num(A, n->a, &r->fidx);
  buf_init(&kb, A->m);
  rc = awk_lval(A, n, &r->dst, &r->slot, &kb);
  buf_finish(&kb);
  return rc;
}

/* The numeric value of r, as reading the lvalue's expression gives it. */
static int awk_ref_num(awk_rt *A, awk_ref *r, double *x) {
  awk_val *v = r->dst;
  int rc;
  if (r->field && (rc = awk_field_get(A, r->fidx, &v)) != 0) return rc;
  if (!r->field && r->slot == V_NF && (rc = awk_get_nf(A)) != 0) return rc;
  *x = awk_val_num(v);
  return 0;
}

/* Stores v (taken over) into r. */
static int awk_ref_store(awk_rt *A, awk_ref *r, awk_val *v) {
  int rc = 0;
  if (r->field) return awk_field_set(A, r->fidx, v);
  if (r->slot == V_FS || r->slot == V_FPAT || r->slot == V_FIELDWIDTHS)
    rc = awk_get_nf(A); /* the new value applies from the next record */
  if (rc) return awk_val_free(A, v), rc;
  awk_val_free(A, r->dst);
  *r->dst = *v;
  if (r->slot >= 0) return awk_special_set(A, r->slot);
  return 0;
}

int awk_store_lval(awk_rt *A, awk_node *n, awk_val *v) {
  awk_ref r;
  int rc = awk_ref_of(A, n, &r);
  if (rc) return awk_val_free(A, v), rc;
  return awk_ref_store(A, &r, v);
}

/* x op y; `assign` for op= (gawk names /= and %= in its errors). */
static double awk_arith(awk_rt *A, int op, double x, double y, int assign,
                        int *rc) {
  *rc = 0;
  switch (op) {
  case AR_ADD: return x + y;
  case AR_SUB: return x - y;
  case AR_MUL: return x * y;
  case AR_DIV:
    if (y == 0)
      *rc = A->err = awk_fatal(A, assign ? "division by zero attempted in `/='"
                                         : "division by zero attempted");
    return y ? x / y : 0;
  case AR_MOD:
    if (y == 0)
      *rc = A->err = awk_fatal(A, "division by zero attempted in `%%%s'",
                               assign ? "=" : "");
    return y ? fmod(x, y) : 0;
  case AR_POW: {
    /* integer powers by repeated multiplication, as gawk */
    if (y == floor(y) && fabs(y) < 1024) {
      double r = 1, b = x;
      long e = (long)fabs(y);
      while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
      }
      return y < 0 ? 1 / r : r;
    }
    return pow(x, y);
  }
  default: return y;
  }
}

static int awk_numeric(awk_val *v) {
  if (v->type == AV_STRNUM) awk_classify(v);
  return v->type == AV_NUM || v->type == AV_NUMSTR || v->type == AV_UNINIT;
}

static int awk_compare(awk_rt *A, awk_val *a, awk_val *b, int *res) {
  int rc;
  if (awk_numeric(a) && awk_numeric(b)) {
    double x = awk_val_num(a), y = awk_val_num(b);
    *res = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2; /* 2: unordered */
    return 0;
  }
  if ((rc = awk_val_str(A, a, 0)) || (rc = awk_val_str(A, b, 0))) return rc;
  {
    size_t n = a->s->len < b->s->len ? a->s->len : b->s->len;
    int r = awk_icase(A) ? strncasecmp(a->s->p, b->s->p, n)
                         : memcmp(a->s->p, b->s->p, n);
    if (!r) r = a->s->len < b->s->len ? -1 : a->s->len > b->s->len;
    *res = r < 0 ? -1 : r > 0;
  }
  return 0;
}

static int awk_cmp_result(int op, int r) {
  if (r == 2) return op == CMP_NE;
  switch (op) {
  case CMP_LT: return r < 0;
  case CMP_LE: return r <= 0;
  case CMP_GT: return r > 0;
  case CMP_GE: return r >= 0;
  case CMP_EQ: return r == 0;
  default: return r != 0;
  }
}

static int awk_eval_match(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val s;
  rx *r;
  int rc, m;
  memset(&s, 0, sizeof s);
  if ((rc = awk_eval_str(A, n->a, &s)) != 0) return rc;
  r = awk_regex(A, n->b, &rc);
  if (!r) return awk_val_free(A, &s), rc ? rc : A->err;
  m = awk_rx_exec(A, r, s.s->p, s.s->len, 0, 0, NULL, 0);
  awk_val_free(A, &s);
  if (m < 0) return m;
  awk_set_num(A, out, (m == 1) != (n->sub != 0));
  return 0;
}

static int awk_eval_concat(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val x, y;
  int rc;
  awk_str *s;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  if ((rc = awk_eval_str(A, n->a, &x)) != 0) return rc;
  if ((rc = awk_eval_str(A, n->b, &y)) != 0) return awk_val_free(A, &x), rc;
  {
    const msb_limits *lim = A->c->lim;
    size_t len = x.s->len + y.s->len;
    if (lim && lim->max_string_bytes && len > lim->max_string_bytes)
      s = NULL, A->err = MSB_ELIMIT;
    else if (len >= 64 && cmd_charge_bytes(A->c, len))
      s = NULL, A->err = MSB_ELIMIT;
    else if ((s = mem_alloc(A->m, sizeof *s + len + 1)) != NULL) {
      s->ref = 1;
      s->len = len;
      memcpy(s->p, x.s->p, x.s->len);
      memcpy(s->p + x.s->len, y.s->p, y.s->len);
      s->p[len] = 0;
    } else
      A->err = MSB_ENOMEM;
  }
  awk_val_free(A, &x);
  awk_val_free(A, &y);
  if (!s) return A->err;
  awk_val_free(A, out);
  out->s = s;
  out->type = AV_STR;
  out->have = AV_HSTR;
  return 0;
}

static int awk_eval_assign(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val v;
  awk_ref r;
  int rc;
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval(A, n->b, &v)) != 0) return rc;
  if (n->sub != AR_SET) {
    double y = awk_val_num(&v), x;
    awk_val_free(A, &v);
    if ((rc = awk_ref_of(A, n->a, &r)) != 0) return rc;
    if ((rc = awk_ref_num(A, &r, &x)) != 0) return rc;
    x = awk_arith(A, n->sub, x, y, 1, &rc);
    if (rc) return rc;
    awk_set_num(A, &v, x);
    awk_val_copy(out, &v);
    return awk_ref_store(A, &r, &v);
  }
  /* a copy of input text keeps its strnum nature */
  awk_val_copy(out, &v);
  return awk_store_lval(A, n->a, &v);
}

static int awk_eval_incdec(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val nv;
  awk_ref r;
  double x;
  int rc;
  memset(&nv, 0, sizeof nv);
  if ((rc = awk_ref_of(A, n->a, &r)) != 0) return rc;
  if ((rc = awk_ref_num(A, &r, &x)) != 0) return rc;
  awk_set_num(A, &nv, (n->sub & 1) ? x - 1 : x + 1);
  awk_set_num(A, out, n->sub >= 2 ? x : nv.n);
  return awk_ref_store(A, &r, &nv);
}

static int awk_eval_index(awk_rt *A, awk_node *n, awk_val *out) {
  buf kb;
  awk_arr *a;
  awk_val *v;
  int rc;
  buf_init(&kb, A->m);
  rc = awk_subscript(A, n->b, &kb);
  if (!rc && !(a = awk_cell_arr(A, n->a))) rc = A->err;
  if (!rc && !(v = awk_arr_get(A, a, kb.p ? kb.p : "", kb.len, 1))) rc = A->err;
  buf_finish(&kb);
  if (rc) return rc;
  awk_val_free(A, out);
  awk_val_copy(out, v);
  return 0;
}

static int awk_eval_in(awk_rt *A, awk_node *n, awk_val *out) {
  buf kb;
  awk_arr *a;
  int rc;
  buf_init(&kb, A->m);
  rc = awk_subscript(A, n->a, &kb);
  if (!rc && !(a = awk_cell_arr(A, n->b))) rc = A->err;
  if (!rc)
    awk_set_num(A, out, awk_arr_get(A, a, kb.p ? kb.p : "", kb.len, 0) != 0);
  buf_finish(&kb);
  return rc;
}

static int awk_eval_var(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val *v;
  if (n->op == N_VAR && n->idx == V_NF) {
    int rc = awk_get_nf(A);
    if (rc) return rc;
  }
  if (!(v = awk_scalar(A, n))) return A->err;
  awk_val_free(A, out);
  awk_val_copy(out, v);
  return 0;
}

static int awk_eval_field(awk_rt *A, awk_node *n, awk_val *out) {
  double idx;
  awk_val *v;
  int rc = awk_eval_num(A, n->a, &idx);
  if (rc) return rc;
  if ((rc = awk_field_get(A, idx, &v)) != 0) return rc;
  awk_val_free(A, out);
  awk_val_copy(out, v);
  return 0;
}

int awk_eval(awk_rt *A, awk_node *n, awk_val *out) {
  awk_val x;
  int rc, r = 0;
  double a, b;
  A->cur_line = n->line;
  switch (n->op) {
  case N_NUM: awk_set_num(A, out, n->num); return 0;
  case N_STR:
    awk_val_free(A, out);
    out->type = AV_STR;
    out->have = AV_HSTR;
    out->s = n->str;
    n->str->ref++;
    return 0;
  case N_ERE: {
    rx *re = awk_regex(A, n, &rc);
    awk_val *rec;
    if (!re) return rc ? rc : A->err;
    if ((rc = awk_rec_val(A, &rec)) != 0) return rc;
    r = awk_rx_exec(A, re, rec->s->p, rec->s->len, 0, 0, NULL, 0);
    if (r < 0) return r;
    awk_set_num(A, out, r);
    return 0;
  }
  case N_VAR:
  case N_LOCAL: return awk_eval_var(A, n, out);
  case N_FIELD: return awk_eval_field(A, n, out);
  case N_INDEX: return awk_eval_index(A, n, out);
  case N_ASSIGN: return awk_eval_assign(A, n, out);
  case N_COND:
    memset(&x, 0, sizeof x);
    if ((rc = awk_eval(A, n->a, &x)) != 0) return rc;
    r = awk_val_bool(A, &x);
    awk_val_free(A, &x);
    return awk_eval(A, r ? n->b : n->c, out);
  case N_OR:
  case N_AND:
    memset(&x, 0, sizeof x);
    if ((rc = awk_eval(A, n->a, &x)) != 0) return rc;
    r = awk_val_bool(A, &x);
    awk_val_free(A, &x);
    if (r == (n->op == N_AND)) {
      if ((rc = awk_eval(A, n->b, &x)) != 0) return rc;
      r = awk_val_bool(A, &x);
      awk_val_free(A, &x);
    }
    awk_set_num(A, out, r);
    return 0;
  case N_IN: return awk_eval_in(A, n, out);
  case N_MATCH: return awk_eval_match(A, n, out);
  case N_CMP: {
    awk_val y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    if ((rc = awk_eval(A, n->a, &x)) != 0) return rc;
    if ((rc = awk_eval(A, n->b, &y)) != 0) return awk_val_free(A, &x), rc;
    rc = awk_compare(A, &x, &y, &r);
    awk_val_free(A, &x);
    awk_val_free(A, &y);
    if (rc) return rc;
    awk_set_num(A, out, awk_cmp_result(n->sub, r));
    return 0;
  }
  case N_CAT: return awk_eval_concat(A, n, out);
  case N_ARITH:
    if ((rc = awk_eval_num(A, n->a, &a)) || (rc = awk_eval_num(A, n->b, &b)))
      return rc;
    a = awk_arith(A, n->sub, a, b, 0, &rc);
    if (rc) return rc;
    awk_set_num(A, out, a);
    return 0;
  case N_NEG:
  case N_PLUS:
    if ((rc = awk_eval_num(A, n->a, &a)) != 0) return rc;
    awk_set_num(A, out, n->op == N_NEG ? -a : a);
    return 0;
  case N_NOT:
    memset(&x, 0, sizeof x);
    if ((rc = awk_eval(A, n->a, &x)) != 0) return rc;
    r = awk_val_bool(A, &x);
    awk_val_free(A, &x);
    awk_set_num(A, out, !r);
    return 0;
  case N_INCDEC: return awk_eval_incdec(A, n, out);
  case N_CALL: return awk_call_user(A, n->idx, n->a, n->sub, out, NULL);
  case N_BUILTIN: return awk_builtin(A, n, out);
  case N_GETLINE: return awk_getline(A, n, out);
  case N_GROUP:
    if (n->sub == 1) return awk_eval(A, n->a, out);
    return A->err = awk_fatal(A, "syntax error: list used as a value");
  default: return A->err = awk_fatal(A, "internal error: bad node %d", n->op);
  }
}

/* ---- function calls --------------------------------------------------- */

static void awk_frame_free(awk_rt *A, awk_frame *f) {
  int i;
  for (i = 0; i < f->n; i++) {
    awk_cell *c = &f->cells[i];
    if (c->kind == C_ARRAY) awk_arr_free(A, c->a);
    awk_val_free(A, &c->v);
  }
  mem_free(A->m, f->cells);
}

static int awk_bind_args(awk_rt *A, awk_func *f, awk_node *args, int argc,
                         awk_frame *fr, awk_val *vargs) {
  int i, rc;
  for (i = 0; i < argc; i++) {
    awk_cell *c = &fr->cells[i];
    if (i >= f->nparams) {
      /* extra arguments are evaluated for their effects, then dropped */
      awk_val v;
      memset(&v, 0, sizeof v);
      if (!vargs && (rc = awk_eval(A, args, &v)) != 0) return rc;
      awk_val_free(A, &v);
      if (args) args = args->next;
      continue;
    }
    if (vargs) {
      c->kind = C_SCALAR;
      awk_val_copy(&c->v, &vargs[i]);
      continue;
    }
    if (args->op == N_VAR || args->op == N_LOCAL) {
      awk_cell *src = awk_cell_of(A, args);
      if (src->kind == C_ARRAY || src->kind == C_UNTYPED) {
        if (src->kind == C_UNTYPED && args->op == N_VAR &&
            args->idx < V_NSPECIAL) {
          src->kind = C_SCALAR;
        } else {
          c->kind = C_REF;
          c->ref = src;
          args = args->next;
          continue;
        }
      }
    }
    c->kind = C_SCALAR;
    if ((rc = awk_eval(A, args, &c->v)) != 0) return rc;
    args = args->next;
  }
  return 0;
}

int awk_call_user(awk_rt *A, int fi, awk_node *args, int argc, awk_val *out,
                  awk_val *vargs) {
  awk_func *f = &A->p->funcs[fi];
  awk_frame fr, *saved = A->fr;
  int rc, n = f->nparams > argc ? f->nparams : argc;
  uint32_t maxd = A->c->lim ? A->c->lim->max_call_depth : 0;
  if (A->depth >= AWK_MAX_DEPTH || (maxd && (uint32_t)A->depth >= maxd))
    return A->err =
               awk_fatal(A, "function call nesting too deep (%s)", f->name);
  if ((rc = awk_tick(A)) != 0) return rc;
  fr.n = n;
  fr.f = f;
  fr.cells = mem_zalloc(A->m, sizeof *fr.cells * (size_t)(n ? n : 1));
  if (!fr.cells) return A->err = MSB_ENOMEM;
  if ((rc = awk_bind_args(A, f, args, argc, &fr, vargs)) != 0) {
    awk_frame_free(A, &fr);
    return rc;
  }
  A->fr = &fr;
  A->depth++;
  rc = awk_exec(A, f->body);
  A->depth--;
  A->fr = saved;
  awk_frame_free(A, &fr);
  awk_val_free(A, out);
  if (rc == AWK_RETURN) {
    *out = A->ret;
    memset(&A->ret, 0, sizeof A->ret);
    rc = 0;
  }
  return rc;
}

/* ---- statements ------------------------------------------------------- */

static int awk_exec_forin(awk_rt *A, awk_node *n) {
  awk_arr *a = awk_cell_arr(A, n->b);
  awk_str **keys;
  size_t nk, i;
  int rc = 0;
  if (!a) return A->err;
  if ((rc = awk_foreach_order(A, a, &keys, &nk)) != 0) return rc;
  for (i = 0; i < nk && !rc; i++) {
    awk_val v;
    memset(&v, 0, sizeof v);
    v.type = AV_STRNUM;
    v.have = AV_HSTR;
    v.s = keys[i];
    keys[i]->ref++;
    if ((rc = awk_store_lval(A, n->a, &v)) != 0) break;
    if ((rc = awk_tick(A)) != 0) break;
    rc = awk_exec(A, n->d);
    if (rc == AWK_CONTINUE) rc = 0;
  }
  if (rc == AWK_BREAK) rc = 0;
  for (i = 0; i < nk; i++) awk_str_unref(A->m, keys[i]);
  mem_free(A->m, keys);
  return rc;
}

static int awk_cond(awk_rt *A, awk_node *e, int *res) {
  awk_val v;
  int rc;
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval(A, e, &v)) != 0) return rc;
  *res = awk_val_bool(A, &v);
  awk_val_free(A, &v);
  return 0;
}

static int awk_exec_loop(awk_rt *A, awk_node *n) {
  int rc, c;
  if (n->op == S_FOR && n->a) {
    awk_val v;
    memset(&v, 0, sizeof v);
    if ((rc = awk_eval(A, n->a, &v)) != 0) return rc;
    awk_val_free(A, &v);
  }
  for (;;) {
    if ((rc = awk_tick(A)) != 0) return rc;
    if (n->op != S_DO) {
      awk_node *cond = n->op == S_FOR ? n->b : n->a;
      if (cond) {
        if ((rc = awk_cond(A, cond, &c)) != 0) return rc;
        if (!c) return 0;
      }
    }
    rc = awk_exec(A, n->op == S_FOR ? n->d : n->b);
    if (rc == AWK_BREAK) return 0;
    if (rc && rc != AWK_CONTINUE) return rc;
    if (n->op == S_DO) {
      if ((rc = awk_cond(A, n->a, &c)) != 0) return rc;
      if (!c) return 0;
    }
    if (n->op == S_FOR && n->c) {
      awk_val v;
      memset(&v, 0, sizeof v);
      if ((rc = awk_eval(A, n->c, &v)) != 0) return rc;
      awk_val_free(A, &v);
    }
  }
}

static int awk_exec_delete(awk_rt *A, awk_node *n) {
  awk_arr *a = awk_cell_arr(A, n->a);
  buf kb;
  int rc;
  if (!a) return A->err;
  if (!n->b) {
    awk_arr_clear(A, a);
    return 0;
  }
  buf_init(&kb, A->m);
  rc = awk_subscript(A, n->b, &kb);
  if (!rc) awk_arr_del(A, a, kb.p ? kb.p : "", kb.len);
  buf_finish(&kb);
  return rc;
}

/* Whether a case label takes the switch's subject: a regex matches it,
 * a constant equals it by the rules of ==. */
static int awk_case_hit(awk_rt *A, awk_node *label, awk_val *subj, int *hit) {
  awk_val lv;
  int rc, r;
  if (label->op == N_ERE) {
    rx *re = awk_regex(A, label, &rc);
    rx_match m;
    if (!re) return rc ? rc : A->err;
    if ((rc = awk_val_str(A, subj, 0)) != 0) return rc;
    r = awk_rx_exec(A, re, subj->s->p, subj->s->len, 0, 0, &m, 1);
    if (r < 0) return r;
    *hit = r == 1;
    return 0;
  }
  memset(&lv, 0, sizeof lv);
  if ((rc = awk_eval(A, label, &lv)) != 0) return rc;
  rc = awk_compare(A, subj, &lv, &r);
  awk_val_free(A, &lv);
  *hit = !rc && r == 0;
  return rc;
}

static int awk_exec_switch(awk_rt *A, awk_node *n) {
  awk_val v;
  awk_node *c, *from = NULL, *dflt = NULL;
  int rc, hit = 0;
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval(A, n->a, &v)) != 0) return rc;
  for (c = n->b; c && !from && !rc; c = c->next)
    if (!c->a)
      dflt = dflt ? dflt : c;
    else if (!(rc = awk_case_hit(A, c->a, &v, &hit)) && hit)
      from = c;
  awk_val_free(A, &v);
  if (rc) return rc;
  for (c = from ? from : dflt; c; c = c->next) {
    rc = awk_exec(A, c->b);
    if (rc == AWK_BREAK) return 0;
    if (rc) return rc;
  }
  return 0;
}

int awk_exec(awk_rt *A, awk_node *n) {
  int rc, c;
  awk_val v;
  for (; n; n = n->next) {
    A->cur_line = n->line;
    switch (n->op) {
    case S_BLOCK:
      if ((rc = awk_exec(A, n->a)) != 0) return rc;
      break;
    case S_EXPR:
      memset(&v, 0, sizeof v);
      rc = awk_eval(A, n->a, &v);
      awk_val_free(A, &v);
      if (rc) return rc;
      break;
    case S_PRINT:
    case S_PRINTF:
      if ((rc = awk_print(A, n)) != 0) return rc;
      break;
    case S_IF:
      if ((rc = awk_cond(A, n->a, &c)) != 0) return rc;
      if ((rc = awk_exec(A, c ? n->b : n->c)) != 0) return rc;
      break;
    case S_WHILE:
    case S_DO:
    case S_FOR:
      if ((rc = awk_exec_loop(A, n)) != 0) return rc;
      break;
    case S_FORIN:
      if ((rc = awk_exec_forin(A, n)) != 0) return rc;
      break;
    case S_SWITCH:
      if ((rc = awk_exec_switch(A, n)) != 0) return rc;
      break;
    case S_NEXT: return AWK_NEXT;
    case S_NEXTFILE: return AWK_NEXTFILE;
    case S_BREAK: return AWK_BREAK;
    case S_CONTINUE: return AWK_CONTINUE;
    case S_EXIT:
      if (n->a) {
        double d;
        memset(&v, 0, sizeof v);
        if ((rc = awk_eval(A, n->a, &v)) != 0) return rc;
        d = awk_val_num(&v);
        awk_val_free(A, &v);
        A->exit_code = (int)(long long)d & 255;
      }
      return AWK_EXIT;
    case S_RETURN:
      /* evaluated aside: a call in the expression uses A->ret itself */
      memset(&v, 0, sizeof v);
      if (n->a && (rc = awk_eval(A, n->a, &v)) != 0) return rc;
      awk_val_free(A, &A->ret);
      A->ret = v;
      return AWK_RETURN;
    case S_DELETE:
      if ((rc = awk_exec_delete(A, n)) != 0) return rc;
      break;
    default: return A->err = awk_fatal(A, "internal error: statement");
    }
  }
  return 0;
}
