/* awk_func.c - awk's builtin functions, printf formatting, special
 * variables and for-in ordering (PROCINFO["sorted_in"]).
 *
 * rand() is an additive-feedback generator (BSD random(), 63 words)
 * seeded with 1 until srand(): deterministic, though not gawk's exact
 * sequence. Times come from the sandbox clock, in UTC. */
#include <math.h>
#include <stdio.h> /* snprintf only: formatting, no I/O */
#include <stdlib.h>
#include <string.h>

#include "awk.h"

/* ---- random numbers ---------------------------------------------------- */

static int32_t awk_good_rand(int32_t x) {
  int32_t hi, lo;
  if (x == 0) x = 123459876;
  hi = x / 127773;
  lo = x % 127773;
  x = 16807 * lo - 2836 * hi;
  if (x < 0) x += 0x7fffffff;
  return x;
}

static long awk_random(awk_rt *A) {
  uint32_t *st = A->rst;
  long r;
  st[A->rf] += st[A->rr];
  r = (long)((st[A->rf] >> 1) & 0x7fffffff);
  if (++A->rf >= 63) {
    A->rf = 0;
    ++A->rr;
  } else if (++A->rr >= 63)
    A->rr = 0;
  return r;
}

static void awk_srandom(awk_rt *A, uint32_t seed) {
  int i;
  A->rst[0] = seed;
  for (i = 1; i < 63; i++)
    A->rst[i] = (uint32_t)awk_good_rand((int32_t)A->rst[i - 1]);
  A->rf = 1;
  A->rr = 0;
  for (i = 0; i < 630; i++) awk_random(A);
  A->rseeded = 1;
}

static double awk_rand(awk_rt *A) {
  double t;
  if (!A->rseeded) awk_srandom(A, 1);
  do {
    long a = awk_random(A), b = awk_random(A);
    t = 0.5 + ((a / 2147483648.0 + b) / 2147483648.0);
    t -= 0.5;
  } while (t == 1.0);
  return t;
}

/* ---- special variables ---------------------------------------------- */

/* The field splitting in force (0 FS, 3 FIELDWIDTHS, 4 FPAT), named in
 * PROCINFO["FS"] as gawk does; --csv overrides all three. */
static int awk_set_fs_mode(awk_rt *A, int mode) {
  static const char *const names[] = {"FS", "", "", "FIELDWIDTHS", "FPAT"};
  awk_val *e;
  if (A->o->csv) return 0;
  A->fs_mode = mode;
  if (A->g[V_PROCINFO].kind != C_ARRAY) return 0;
  if (!(e = awk_arr_get(A, A->g[V_PROCINFO].a, "FS", 2, 1))) return A->err;
  return awk_set_str(A, e, names[mode], strlen(names[mode]), 0);
}

int awk_special_set(awk_rt *A, int slot) {
  awk_val *v = &A->g[slot].v;
  int rc;
  switch (slot) {
  case V_NF: return awk_set_nf(A, awk_val_num(v));
  case V_FS:
    if ((rc = awk_set_fs_mode(A, 0)) != 0) return rc;
    return awk_val_str(A, v, 0);
  case V_FIELDWIDTHS:
    if ((rc = awk_val_str(A, v, 0)) != 0) return rc;
    return awk_set_fs_mode(A, 3);
  case V_FPAT:
    if ((rc = awk_val_str(A, v, 0)) != 0) return rc;
    return awk_set_fs_mode(A, 4);
  case V_RS:
    if ((rc = awk_val_str(A, v, 0)) != 0) return rc;
    if (v->s->len == 0)
      A->rs_mode = 1;
    else if (v->s->len == 1)
      A->rs_mode = 0;
    else {
      A->rs_rx = awk_regex_str(A, v->s->p, v->s->len, &rc);
      if (!A->rs_rx) return rc ? rc : A->err;
      A->rs_mode = 2;
    }
    return 0;
  case V_OFS:
  case V_ORS:
  case V_SUBSEP:
  case V_CONVFMT:
  case V_OFMT: return awk_val_str(A, v, 0);
  default: return 0;
  }
}

/* ---- printf ------------------------------------------------------------ */

static int awk_fmt_num(buf *o, const char *spec, double d, int w, int pr) {
  char tmp[512], *t = tmp;
  int n = snprintf(tmp, sizeof tmp, spec, w, pr, d);
  if (n < 0) return 0;
  if ((size_t)n >= sizeof tmp) {
    t = malloc((size_t)n + 1);
    if (!t) return MSB_ENOMEM;
    snprintf(t, (size_t)n + 1, spec, w, pr, d);
  }
  buf_put(o, t, (size_t)n);
  if (t != tmp) free(t);
  return 0;
}

/* nan and inf as gawk prints them in every numeric conversion: signed,
 * upper case for %E %F %G, and with no width or padding at all. */
static void awk_fmt_special(buf *o, double d, int upper) {
  const char *s = isnan(d) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
  buf_putc(o, signbit(d) ? '-' : '+');
  buf_puts(o, s);
}

static int awk_fmt_int(buf *o, char conv, const char *flags, int w, int pr,
                       int haspr, double d) {
  char spec[48];
  if (isnan(d) || isinf(d)) {
    awk_fmt_special(o, d, 0);
    return 0;
  }
  d = d < 0 ? ceil(d) : floor(d);
  if (conv == 'd' || conv == 'i') {
    if (fabs(d) < 9.2e18) {
      snprintf(spec, sizeof spec, "%%%s*.*lld", flags);
      return buf_printf(o, spec, w, haspr ? pr : -1, (long long)d);
    }
    /* beyond 64 bits gawk prints the value's digits */
    snprintf(spec, sizeof spec, "%%%s*.0f", flags);
    return buf_printf(o, spec, w, d);
  }
  if (d < -9223372036854775808.0 || d >= 18446744073709551616.0) {
    /* out of 64-bit range: gawk's "emergency use of %g format" */
    snprintf(spec, sizeof spec, "%%%s*.*g", flags);
    return awk_fmt_num(o, spec, d, w, haspr ? pr : -1);
  }
  {
    unsigned long long u =
        d < 0 ? (unsigned long long)(long long)d : (unsigned long long)d;
    snprintf(spec, sizeof spec, "%%%s*.*ll%c", flags, conv);
    return buf_printf(o, spec, w, haspr ? pr : -1, u);
  }
}

static int awk_fmt_arg_str(awk_rt *A, awk_val *v, const char **s, size_t *n) {
  int rc = awk_val_str(A, v, 0);
  if (rc) return rc;
  *s = v->s->p;
  *n = v->s->len;
  return 0;
}

static int awk_fmt_one(awk_rt *A, buf *o, char conv, const char *flags, int w,
                       int pr, int haspr, awk_val *v) {
  char spec[48];
  double d;
  const char *s;
  size_t n;
  int rc;
  switch (conv) {
  case 'c':
    if (v->type == AV_NUM ||
        (v->type != AV_STR && v->type != AV_UNINIT && v->type == AV_NUMSTR)) {
      char ch = (char)((long long)awk_val_num(v) & 255);
      snprintf(spec, sizeof spec, "%%%s*c", flags);
      if (!ch) {
        /* a NUL byte: padding by hand */
        int pad = w > 1 ? w - 1 : 0, left = strchr(flags, '-') != NULL;
        if (!left)
          while (pad-- > 0) buf_putc(o, ' ');
        buf_putc(o, 0);
        if (left)
          while (pad-- > 0) buf_putc(o, ' ');
        return 0;
      }
      return buf_printf(o, spec, w, ch);
    }
    if ((rc = awk_fmt_arg_str(A, v, &s, &n)) != 0) return rc;
    if (!n) s = "", n = 1; /* gawk prints a NUL for "" */
    haspr = 1;
    pr = 1;
    /* fall through */
  case 's':
    if (conv == 's' && (rc = awk_fmt_arg_str(A, v, &s, &n)) != 0) return rc;
    if (haspr && (size_t)pr < n) n = (size_t)pr;
    {
      int pad = w > (int)n ? w - (int)n : 0, left = strchr(flags, '-') != 0;
      if (!left)
        while (pad-- > 0) buf_putc(o, ' ');
      buf_put(o, s, n);
      if (left)
        while (pad-- > 0) buf_putc(o, ' ');
    }
    return 0;
  case 'd':
  case 'i':
  case 'o':
  case 'x':
  case 'X':
  case 'u': return awk_fmt_int(o, conv, flags, w, pr, haspr, awk_val_num(v));
  default:
    d = awk_val_num(v);
    if (isnan(d) || isinf(d)) {
      awk_fmt_special(o, d, conv >= 'A' && conv <= 'Z');
      return 0;
    }
    snprintf(spec, sizeof spec, "%%%s*.*%c", flags, conv);
    return awk_fmt_num(o, spec, d, w, haspr ? pr : -1);
  }
}

static int awk_fmt_short(awk_rt *A, const char *f, size_t fn, size_t at) {
  size_t i;
  buf *e = A->c->err;
  buf_printf(e, "%s: ", cmd_name(A->c));
  if (A->cur_line > 0) buf_printf(e, "cmd. line:%d: ", A->cur_line);
  buf_puts(e, "fatal: not enough arguments to satisfy format string\n\t`");
  buf_put(e, f, fn);
  buf_puts(e, "'\n\t");
  for (i = 0; i < at; i++) buf_putc(e, ' ');
  buf_puts(e, "^ ran out for this one\n");
  return A->err = AWK_FATAL;
}

/* gawk's "%N$" argument index at f[*i] (1-based; 0 when absent, -1 after
 * a fatal error). *mode remembers whether formats use them (1) or not (2):
 * gawk refuses a mix. */
static int awk_fmt_pos(awk_rt *A, const char *f, size_t fn, size_t *i,
                       int nargs, int *mode) {
  size_t j = *i;
  long n = 0;
  while (j < fn && f[j] >= '0' && f[j] <= '9' && n < 100000)
    n = n * 10 + (f[j++] - '0');
  if (j == *i || j >= fn || f[j] != '$') {
    if (*mode == 1) goto mixed;
    *mode = 2;
    return 0;
  }
  if (*mode == 2) goto mixed;
  *mode = 1;
  *i = j + 1;
  if (n <= 0) {
    A->err = awk_fatal(A, "argument index with `$' must be > 0");
    return -1;
  }
  if (n > nargs) {
    A->err = awk_fatal(
        A, "argument index %ld greater than total number of supplied arguments",
        n);
    return -1;
  }
  return (int)n;
mixed:
  A->err = awk_fatal(A, "must use `count$' on all formats or none");
  return -1;
}

int awk_format(awk_rt *A, buf *o, const char *f, size_t fn, awk_val *args,
               int nargs) {
  size_t i = 0;
  int ai = 0, rc, posmode = 0;
  while (i < fn) {
    char flags[8];
    int nf = 0, w = 0, pr = 0, haspr = 0, pos;
    size_t start = i;
    if (f[i] != '%') {
      const char *q = memchr(f + i, '%', fn - i);
      size_t e = q ? (size_t)(q - f) : fn;
      buf_put(o, f + i, e - i);
      i = e;
      continue;
    }
    i++;
    if (i < fn && f[i] == '%') {
      buf_putc(o, '%');
      i++;
      continue;
    }
    if ((pos = awk_fmt_pos(A, f, fn, &i, nargs, &posmode)) < 0) return A->err;
    if (pos) ai = pos - 1;
    while (i < fn && strchr("-+ #0'", f[i]) && f[i]) {
      if (nf < 6 && f[i] != '\'') flags[nf++] = f[i];
      i++;
    }
    flags[nf] = 0;
    if (i < fn && f[i] == '*') {
      int wpos;
      i++;
      if ((wpos = awk_fmt_pos(A, f, fn, &i, nargs, &posmode)) < 0)
        return A->err;
      if (wpos) ai = wpos - 1;
      if (ai >= nargs) return awk_fmt_short(A, f, fn, i - 1);
      w = (int)awk_val_num(&args[ai++]);
      if (pos) ai = pos - 1; /* the value is the positional argument */
      if (w < 0) {
        w = -w;
        if (nf < 6) flags[nf++] = '-', flags[nf] = 0;
      }
    } else
      while (i < fn && f[i] >= '0' && f[i] <= '9') w = w * 10 + (f[i++] - '0');
    if (i < fn && f[i] == '.') {
      haspr = 1;
      i++;
      if (i < fn && f[i] == '*') {
        if (ai >= nargs) return awk_fmt_short(A, f, fn, i);
        pr = (int)awk_val_num(&args[ai++]);
        if (pr < 0) haspr = 0, pr = 0;
        i++;
      } else
        while (i < fn && f[i] >= '0' && f[i] <= '9')
          pr = pr * 10 + (f[i++] - '0');
    }
    while (i < fn && strchr("hlLqjzt", f[i]) && f[i]) i++;
    if (i < fn && f[i] == '%') {
      /* "%%", also with flags or a width: one percent sign */
      buf_putc(o, '%');
      i++;
      continue;
    }
    if (i >= fn) {
      /* a lone % at the end is printed as is */
      buf_put(o, f + start, fn - start);
      break;
    }
    if (!strchr("cdiouxXeEfFgGaAs", f[i])) {
      buf_put(o, f + start, i + 1 - start);
      i++;
      continue;
    }
    if (w > 100000 || pr > 100000)
      return A->err = awk_fatal(A, "printf: field width too large");
    if (ai >= nargs) return awk_fmt_short(A, f, fn, i);
    if ((rc = awk_fmt_one(A, o, f[i], flags, w, pr, haspr, &args[ai++])) != 0)
      return rc;
    i++;
  }
  if (o->err) return A->err = o->err;
  {
    const msb_limits *lim = A->c->lim;
    if (lim && lim->max_string_bytes && o->len > lim->max_string_bytes)
      return A->err = MSB_ELIMIT;
  }
  return 0;
}

/* ---- sub, gsub, gensub ------------------------------------------------ */

/* The backslash sequences of sub and gsub's replacement, as gawk reads
 * them (measured against gawk 5): text, its length, whether the matched
 * text follows. Anything else is a literal backslash. */
static const struct {
  const char *seq;
  size_t len;
  const char *out;
  int match;
} awk_sub_escapes[] = {
    {"\\\\\\&", 4, "\\&", 0}, /* \\\& -> \& */
    {"\\\\&", 3, "\\", 1},      /* \\& -> \ then the match */
    {"\\&", 2, "&", 0},             /* \& -> & */
    {"\\\\\\\\", 4, "\\\\", 0}, /* four backslashes -> two */
};

/* Appends the replacement for one match: & is the matched text; sub and
 * gsub read backslashes by awk_sub_escapes, gensub takes \0..\9 as
 * groups and any other escaped character as itself. */
static void awk_repl(buf *o, const char *r, size_t rn, const char *s,
                     const rx_match *m, int gen) {
  size_t i, k;
  for (i = 0; i < rn; i++) {
    if (r[i] == '\\' && gen && i + 1 < rn) {
      char c = r[++i];
      if (c >= '0' && c <= '9') {
        const rx_match *g = &m[c - '0'];
        if (g->so >= 0) buf_put(o, s + g->so, (size_t)(g->eo - g->so));
      } else
        buf_putc(o, c);
      continue;
    }
    if (r[i] == '\\' && !gen) {
      for (k = 0; k < sizeof awk_sub_escapes / sizeof awk_sub_escapes[0]; k++)
        if (rn - i >= awk_sub_escapes[k].len &&
            !memcmp(r + i, awk_sub_escapes[k].seq, awk_sub_escapes[k].len))
          break;
      if (k < sizeof awk_sub_escapes / sizeof awk_sub_escapes[0]) {
        buf_puts(o, awk_sub_escapes[k].out);
        if (awk_sub_escapes[k].match)
          buf_put(o, s + m[0].so, (size_t)(m[0].eo - m[0].so));
        i += awk_sub_escapes[k].len - 1;
        continue;
      }
    }
    if (r[i] == '&') {
      buf_put(o, s + m[0].so, (size_t)(m[0].eo - m[0].so));
      continue;
    }
    buf_putc(o, r[i]);
  }
}

/* Replaces matches of re in s (which: 0 all, n the nth) into o; returns
 * the number of replacements or a negative code. */
static int awk_subst(awk_rt *A, rx *re, const char *s, size_t n, const char *r,
                     size_t rn, long which, int gen, buf *o) {
  rx_match m[10];
  size_t pos = 0, last = 0;
  long count = 0, done = 0;
  int rc, k;
  for (k = 0; k < 10; k++) m[k].so = m[k].eo = -1;
  while (pos <= n) {
    rc = awk_rx_exec(A, re, s, n, pos, 0, m, 10);
    if (rc < 0) return rc;
    if (rc != 1) break;
    if (m[0].eo == m[0].so && (size_t)m[0].so == last && done && last != 0) {
      /* no empty match right after the previous match */
      if ((size_t)m[0].so >= n) break;
      buf_put(o, s + pos, (size_t)m[0].so + 1 - pos);
      pos = (size_t)m[0].so + 1;
      continue;
    }
    count++;
    buf_put(o, s + pos, (size_t)m[0].so - pos);
    if (!which || count == which) {
      awk_repl(o, r, rn, s, m, gen);
      done++;
    } else
      buf_put(o, s + m[0].so, (size_t)(m[0].eo - m[0].so));
    if (m[0].eo == m[0].so) {
      if ((size_t)m[0].eo < n) buf_putc(o, s[m[0].eo]);
      pos = (size_t)m[0].eo + 1;
    } else
      pos = (size_t)m[0].eo;
    last = pos;
    if (which && count == which) break;
    if (!which && (rc = awk_tick(A)) != 0) return rc;
    if (m[0].eo == m[0].so)
      last = 0, done = 0;
    else
      done = 1;
  }
  if (pos < n) buf_put(o, s + pos, n - pos);
  if (o->err) return A->err = o->err;
  return (int)(which ? (done ? 1 : 0) : count);
}

static int awk_target_store(awk_rt *A, awk_node *t, buf *o) {
  awk_val v;
  int rc;
  memset(&v, 0, sizeof v);
  if ((rc = awk_set_str(A, &v, o->p ? o->p : "", o->len, 0)) != 0) return rc;
  if (!t) {
    rc = awk_set_record(A, v.s->p, v.s->len);
    awk_val_free(A, &v);
    return rc;
  }
  return awk_store_lval(A, t, &v);
}

static int awk_b_sub(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  awk_val r, t;
  rx *re;
  buf o;
  int rc, cnt;
  awk_node *target = n->idx > 2 ? a[2] : NULL;
  if (target && target->op != N_VAR && target->op != N_LOCAL &&
      target->op != N_FIELD && target->op != N_INDEX)
    target = NULL;
  memset(&r, 0, sizeof r);
  memset(&t, 0, sizeof t);
  if (!(re = awk_regex(A, a[0], &rc))) return rc ? rc : A->err;
  if ((rc = awk_eval_str(A, a[1], &r)) != 0) return rc;
  if (n->idx > 2)
    rc = awk_eval_str(A, a[2], &t);
  else {
    awk_val *rec;
    if (!(rc = awk_rec_val(A, &rec))) awk_val_copy(&t, rec);
  }
  if (rc) return awk_val_free(A, &r), rc;
  buf_init(&o, A->m);
  cnt = awk_subst(A, re, t.s->p, t.s->len, r.s->p, r.s->len,
                  n->sub == B_SUB ? 1 : 0, 0, &o);
  rc = cnt < 0 ? cnt : 0;
  if (cnt > 0 && (n->idx <= 2 || target)) rc = awk_target_store(A, target, &o);
  buf_finish(&o);
  awk_val_free(A, &r);
  awk_val_free(A, &t);
  if (!rc) awk_set_num(A, out, cnt);
  return rc;
}

static int awk_b_gensub(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  awk_val r, h, t;
  rx *re;
  buf o;
  long which = 0;
  int rc, cnt;
  memset(&r, 0, sizeof r);
  memset(&h, 0, sizeof h);
  memset(&t, 0, sizeof t);
  if (!(re = awk_regex(A, a[0], &rc))) return rc ? rc : A->err;
  if ((rc = awk_eval_str(A, a[1], &r)) != 0) return rc;
  if ((rc = awk_eval(A, a[2], &h)) != 0) return awk_val_free(A, &r), rc;
  if (h.type != AV_NUM && (awk_val_str(A, &h, 0), h.s) && h.s->len &&
      (h.s->p[0] == 'g' || h.s->p[0] == 'G'))
    which = 0;
  else {
    double d = awk_val_num(&h);
    which = d < 1 ? 1 : (long)d;
    if (d < 1)
      awk_warn(A, "gensub: third argument `%s' treated as 1",
               h.s ? h.s->p : "0");
  }
  if (n->idx > 3)
    rc = awk_eval_str(A, a[3], &t);
  else {
    awk_val *rec;
    if (!(rc = awk_rec_val(A, &rec))) awk_val_copy(&t, rec);
  }
  if (!rc) {
    buf_init(&o, A->m);
    cnt = awk_subst(A, re, t.s->p, t.s->len, r.s->p, r.s->len, which, 1, &o);
    if (cnt < 0)
      rc = cnt;
    else
      rc = awk_set_str(A, out, o.p ? o.p : "", o.len, 0);
    buf_finish(&o);
  }
  awk_val_free(A, &r);
  awk_val_free(A, &h);
  awk_val_free(A, &t);
  return rc;
}

/* ---- match, split, patsplit ------------------------------------------- */

static int awk_set_elem(awk_rt *A, awk_arr *arr, const char *k, size_t kn,
                        const char *s, size_t n, int num, double d) {
  awk_val *v = awk_arr_get(A, arr, k, kn, 1);
  if (!v) return A->err;
  if (num) {
    awk_set_num(A, v, d);
    return 0;
  }
  return awk_set_str(A, v, s, n, 1);
}

/* An array argument of a builtin, with gawk's message when it is not a
 * name ("split: second argument is not an array"). */
static awk_arr *awk_arr_arg(awk_rt *A, awk_node *n, awk_node *arg, int pos) {
  static const char *const nth[] = {"first", "second", "third", "fourth"};
  static const char *const names[] = {[B_SPLIT] = "split",
                                      [B_MATCH] = "match",
                                      [B_PATSPLIT] = "patsplit",
                                      [B_ASORT] = "asort",
                                      [B_ASORTI] = "asorti"};
  if (arg->op != N_VAR && arg->op != N_LOCAL) {
    A->err = awk_fatal(A, "%s: %s argument is not an array", names[n->sub],
                       nth[pos]);
    return NULL;
  }
  return awk_cell_arr(A, arg);
}

static int awk_b_match(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  awk_val s;
  rx *re;
  rx_match m[10];
  int rc, r, k;
  awk_arr *arr = NULL;
  memset(&s, 0, sizeof s);
  if ((rc = awk_eval_str(A, a[0], &s)) != 0) return rc;
  if (!(re = awk_regex(A, a[1], &rc)))
    return awk_val_free(A, &s), rc ? rc : A->err;
  if (n->idx > 2) {
    if (!(arr = awk_arr_arg(A, n, a[2], 2))) return awk_val_free(A, &s), A->err;
    awk_arr_clear(A, arr);
  }
  r = awk_rx_exec(A, re, s.s->p, s.s->len, 0, 0, m, 10);
  if (r < 0) return awk_val_free(A, &s), r;
  if (r == 1) {
    awk_set_num(A, &A->g[V_RSTART].v, (double)m[0].so + 1);
    awk_set_num(A, &A->g[V_RLENGTH].v, (double)(m[0].eo - m[0].so));
    for (k = 0; arr && k < 10 && (size_t)k <= rx_nsub(re); k++) {
      char key[40];
      int kn;
      const char *ss = A->g[V_SUBSEP].v.s ? A->g[V_SUBSEP].v.s->p : "\034";
      if (m[k].so < 0) continue;
      kn = snprintf(key, sizeof key, "%d", k);
      if ((rc = awk_set_elem(A, arr, key, (size_t)kn, s.s->p + m[k].so,
                             (size_t)(m[k].eo - m[k].so), 0, 0)) != 0)
        break;
      kn = snprintf(key, sizeof key, "%d%sstart", k, ss);
      if ((rc = awk_set_elem(A, arr, key, (size_t)kn, 0, 0, 1,
                             (double)m[k].so + 1)) != 0)
        break;
      kn = snprintf(key, sizeof key, "%d%slength", k, ss);
      if ((rc = awk_set_elem(A, arr, key, (size_t)kn, 0, 0, 1,
                             (double)(m[k].eo - m[k].so))) != 0)
        break;
    }
  } else {
    awk_set_num(A, &A->g[V_RSTART].v, 0);
    awk_set_num(A, &A->g[V_RLENGTH].v, -1);
  }
  awk_val_free(A, &s);
  if (!rc) awk_set_num(A, out, r == 1 ? (double)m[0].so + 1 : 0);
  return rc;
}

static int awk_b_split(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  awk_val s, fs;
  awk_arr *arr, *seps = NULL;
  int rc, cnt = 0;
  memset(&s, 0, sizeof s);
  memset(&fs, 0, sizeof fs);
  if ((rc = awk_eval_str(A, a[0], &s)) != 0) return rc;
  if (!(arr = awk_arr_arg(A, n, a[1], 1))) return awk_val_free(A, &s), A->err;
  if (n->idx > 3 && !(seps = awk_arr_arg(A, n, a[3], 3)))
    return awk_val_free(A, &s), A->err;
  if (n->idx > 2 && a[2]->op != N_ERE)
    rc = awk_eval_str(A, a[2], &fs);
  else if (n->idx <= 2)
    awk_val_copy(&fs, &A->g[V_FS].v);
  if (!rc) {
    awk_arr_clear(A, arr);
    if (seps) awk_arr_clear(A, seps);
    if (n->sub == B_PATSPLIT) {
      rc = awk_patsplit(A, s.s->p, s.s->len, n->idx > 2 ? a[2] : NULL, arr,
                        seps, &cnt);
    } else if (n->idx <= 2 && A->fs_mode == 5) {
      rc = awk_split_csv_arr(A, s.s->p, s.s->len, arr, seps, &cnt);
    } else
      rc = awk_split_str(A, s.s->p, s.s->len, &fs, n->idx > 2 ? a[2] : NULL,
                         arr, seps, &cnt);
  }
  awk_val_free(A, &s);
  awk_val_free(A, &fs);
  if (!rc) awk_set_num(A, out, cnt);
  return rc;
}

int awk_patsplit(awk_rt *A, const char *s, size_t n, awk_node *pat,
                 awk_arr *arr, awk_arr *seps, int *count) {
  rx *re;
  int rc = 0, k = 0;
  size_t pos = 0, prev = 0, last = SIZE_MAX;
  rx_match m;
  char key[24];
  if (pat)
    re = awk_regex(A, pat, &rc);
  else {
    awk_val *fp = &A->g[V_FPAT].v;
    if ((rc = awk_val_str(A, fp, 0)) != 0) return rc;
    re = awk_regex_str(A, fp->s->p, fp->s->len, &rc);
  }
  if (!re) return rc ? rc : A->err;
  while ((rc = awk_next_field_match(A, re, s, n, &pos, &last, &m)) == 1) {
    int kn;
    if (seps) {
      kn = snprintf(key, sizeof key, "%d", k);
      if ((rc = awk_set_elem(A, seps, key, (size_t)kn, s + prev,
                             (size_t)m.so - prev, 0, 0)) != 0)
        return rc;
    }
    kn = snprintf(key, sizeof key, "%d", ++k);
    if ((rc = awk_set_elem(A, arr, key, (size_t)kn, s + m.so,
                           (size_t)(m.eo - m.so), 0, 0)) != 0)
      return rc;
    prev = (size_t)m.eo;
  }
  if (rc < 0) return rc;
  if (seps && (k > 0 || prev < n)) { /* seps[n] even when empty */
    int kn = snprintf(key, sizeof key, "%d", k);
    if ((rc = awk_set_elem(A, seps, key, (size_t)kn, s + prev, n - prev, 0,
                           0)) != 0)
      return rc;
  }
  *count = k;
  return 0;
}

/* ---- sorting (asort, asorti, sorted_in) ------------------------------- */

typedef struct awk_sortent {
  awk_str *key;
  awk_val *v;
} awk_sortent;

typedef struct awk_sorter {
  awk_rt *A;
  int mode; /* 0 ind_str, 1 ind_num, 2 val_str, 3 val_num, 4 val_type,
               5 user function */
  int desc;
  int fi;
  int err;
} awk_sorter;

static int awk_cmp_str(const awk_str *a, const awk_str *b) {
  size_t n = a->len < b->len ? a->len : b->len;
  int r = memcmp(a->p, b->p, n);
  if (r) return r < 0 ? -1 : 1;
  return a->len < b->len ? -1 : a->len > b->len;
}

static int awk_cmp_num(double x, double y) {
  return x < y ? -1 : x > y ? 1 : 0;
}

static int awk_isnum(awk_val *v) {
  if (v->type == AV_STRNUM) awk_val_num(v);
  return v->type == AV_NUM || v->type == AV_NUMSTR;
}

static int awk_sort_cmp(awk_sorter *S, awk_sortent *a, awk_sortent *b) {
  awk_rt *A = S->A;
  int r = 0, la, lb;
  switch (S->mode) {
  case 0: r = awk_cmp_str(a->key, b->key); break;
  case 1:
    r = awk_cmp_num(awk_strtod(a->key->p, a->key->len, &la),
                    awk_strtod(b->key->p, b->key->len, &lb));
    if (!r) r = awk_cmp_str(a->key, b->key);
    break;
  case 2:
  case 3:
  case 4: {
    int na = awk_isnum(a->v), nb = awk_isnum(b->v);
    if (S->mode == 3 || (S->mode == 4 && na && nb)) {
      if (na != nb && S->mode == 4)
        r = na ? -1 : 1;
      else
        r = awk_cmp_num(awk_val_num(a->v), awk_val_num(b->v));
    } else if (S->mode == 4 && na != nb)
      r = na ? -1 : 1;
    else {
      if (awk_val_str(A, a->v, 0) || awk_val_str(A, b->v, 0)) {
        S->err = A->err;
        return 0;
      }
      r = awk_cmp_str(a->v->s, b->v->s);
    }
    if (!r) r = awk_cmp_str(a->key, b->key);
    break;
  }
  default: {
    awk_val args[4], res;
    int i;
    memset(args, 0, sizeof args);
    memset(&res, 0, sizeof res);
    args[0].type = args[2].type = AV_STRNUM;
    args[0].have = args[2].have = AV_HSTR;
    args[0].s = a->key;
    args[2].s = b->key;
    args[1] = *a->v;
    args[3] = *b->v;
    a->key->ref++;
    b->key->ref++;
    if (a->v->s) a->v->s->ref++;
    if (b->v->s) b->v->s->ref++;
    S->err = awk_call_user(A, S->fi, NULL, 4, &res, args);
    r = awk_cmp_num(awk_val_num(&res), 0);
    awk_val_free(A, &res);
    for (i = 0; i < 4; i++) awk_val_free(A, &args[i]);
    return r;
  }
  }
  return S->desc ? -r : r;
}

/* Merge sort: stable, and the comparison may call awk code. */
static int awk_msort(awk_sorter *S, awk_sortent *v, awk_sortent *tmp,
                     size_t n) {
  size_t h = n / 2, i = 0, j = h, k = 0;
  if (n < 2) return 0;
  if (awk_msort(S, v, tmp, h) || awk_msort(S, v + h, tmp, n - h)) return S->err;
  while (i < h && j < n) {
    if (S->err) return S->err;
    tmp[k++] = awk_sort_cmp(S, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
  }
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof *v * n);
  return S->err;
}

static int awk_sort_entries(awk_rt *A, awk_arr *a, awk_sorter *S,
                            awk_sortent **out, size_t *n) {
  awk_sortent *v, *tmp;
  size_t i, k = 0;
  v = mem_alloc(A->m, sizeof *v * (a->live + 1));
  tmp = mem_alloc(A->m, sizeof *tmp * (a->live + 1));
  if (!v || !tmp) {
    mem_free(A->m, v);
    mem_free(A->m, tmp);
    return A->err = MSB_ENOMEM;
  }
  for (i = 0; i < a->n; i++)
    if (a->e[i].key) {
      v[k].key = a->e[i].key;
      v[k++].v = &a->e[i].v;
    }
  S->A = A;
  S->err = 0;
  awk_msort(S, v, tmp, k);
  mem_free(A->m, tmp);
  *out = v;
  *n = k;
  return S->err;
}

/* Parses a sorted_in / asort "how" string; 0 or -1 when unsorted. */
static int awk_sort_mode(awk_rt *A, const char *how, awk_sorter *S) {
  static const char *const names[] = {"@ind_str_", "@ind_num_", "@val_str_",
                                      "@val_num_", "@val_type_"};
  int i;
  memset(S, 0, sizeof *S);
  if (!strcmp(how, "@unsorted") || !*how) return -1;
  for (i = 0; i < 5; i++) {
    size_t l = strlen(names[i]);
    if (!strncmp(how, names[i], l)) {
      S->mode = i;
      S->desc = !strcmp(how + l, "desc");
      return 0;
    }
  }
  for (i = 0; i < A->p->nfuncs; i++)
    if (!strcmp(A->p->funcs[i].name, how)) {
      S->mode = 5;
      S->fi = i;
      return 0;
    }
  return A->err =
             awk_fatal(A, "sort comparison function `%s' is not defined", how);
}

int awk_foreach_order(awk_rt *A, awk_arr *a, awk_str ***keys, size_t *n) {
  awk_sorter S;
  awk_sortent *v;
  size_t i, k;
  awk_val *how = NULL;
  int rc;
  if (A->g[V_PROCINFO].kind == C_ARRAY)
    how = awk_arr_get(A, A->g[V_PROCINFO].a, "sorted_in", 9, 0);
  if (!how || awk_val_str(A, how, 0) ||
      (rc = awk_sort_mode(A, how->s->p, &S)) < 0)
    return awk_arr_keys(A, a, keys, n);
  if (rc) return rc;
  if ((rc = awk_sort_entries(A, a, &S, &v, &k)) != 0) {
    mem_free(A->m, v);
    return rc;
  }
  *keys = mem_alloc(A->m, sizeof **keys * (k + 1));
  if (!*keys) return mem_free(A->m, v), A->err = MSB_ENOMEM;
  for (i = 0; i < k; i++) {
    (*keys)[i] = v[i].key;
    v[i].key->ref++;
  }
  *n = k;
  mem_free(A->m, v);
  return 0;
}

static int awk_b_asort(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  awk_arr *src = awk_arr_arg(A, n, a[0], 0), *dst;
  awk_sorter S;
  awk_sortent *v;
  size_t k, i;
  int rc;
  awk_val *vals;
  if (!src) return A->err;
  dst = n->idx > 1 ? awk_arr_arg(A, n, a[1], 1) : src;
  if (!dst) return A->err;
  if (n->idx > 2) {
    awk_val how;
    memset(&how, 0, sizeof how);
    if ((rc = awk_eval_str(A, a[2], &how)) != 0) return rc;
    rc = awk_sort_mode(A, how.s->p, &S);
    awk_val_free(A, &how);
    if (rc > 0) return rc;
    if (rc < 0) S.mode = n->sub == B_ASORT ? 4 : 0;
  } else {
    memset(&S, 0, sizeof S);
    S.mode = n->sub == B_ASORT ? 4 : 0;
  }
  if ((rc = awk_sort_entries(A, src, &S, &v, &k)) != 0)
    return mem_free(A->m, v), rc;
  /* copy what the sorted order needs before dst (maybe src) is cleared */
  vals = mem_zalloc(A->m, sizeof *vals * (k + 1));
  if (!vals) return mem_free(A->m, v), A->err = MSB_ENOMEM;
  for (i = 0; i < k; i++) {
    if (n->sub == B_ASORTI) {
      vals[i].type = AV_STR;
      vals[i].have = AV_HSTR;
      vals[i].s = v[i].key;
      v[i].key->ref++;
    } else
      awk_val_copy(&vals[i], v[i].v);
  }
  mem_free(A->m, v);
  awk_arr_clear(A, dst);
  for (i = 0; i < k && !rc; i++) {
    char key[24];
    int kn = snprintf(key, sizeof key, "%zu", i + 1);
    awk_val *d = awk_arr_get(A, dst, key, (size_t)kn, 1);
    if (!d)
      rc = A->err;
    else {
      *d = vals[i];
      memset(&vals[i], 0, sizeof vals[i]);
    }
  }
  for (i = 0; i < k; i++) awk_val_free(A, &vals[i]);
  mem_free(A->m, vals);
  if (!rc) awk_set_num(A, out, (double)k);
  return rc;
}

/* ---- the rest -------------------------------------------------------- */

/* gawk truncates the start and the length; a start before 1 counts as
 * 1 with the length kept. */
static int awk_b_substr(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  double st = awk_val_num(&av[1]), l, len = (double)av[0].s->len;
  st = isnan(st) ? 1 : st < 0 ? ceil(st) : floor(st);
  if (st < 1) st = 1;
  if (n->idx > 2) {
    l = awk_val_num(&av[2]);
    if (isnan(l) || l < 1) return awk_set_str(A, out, "", 0, 0);
    l = floor(l);
  } else
    l = len;
  if (st > len) return awk_set_str(A, out, "", 0, 0);
  if (l > len - st + 1) l = len - st + 1;
  return awk_set_str(A, out, av[0].s->p + (size_t)st - 1, (size_t)l, 0);
}

static int awk_b_bits(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  static const char *const names[] = {"and", "or", "xor"};
  uint64_t x = 0, y;
  double d[64];
  int i;
  for (i = 0; i < n->idx; i++) d[i] = awk_val_num(&av[i]);
  switch (n->sub) {
  case B_AND:
  case B_OR:
  case B_XOR: {
    const char *nm = names[n->sub == B_AND ? 0 : n->sub == B_OR ? 1 : 2];
    if (n->idx < 2)
      return A->err =
                 awk_fatal(A, "%s: called with less than two arguments", nm);
    for (i = 0; i < n->idx; i++) {
      if (d[i] < 0)
        return A->err = awk_fatal(
                   A, "%s: argument %d negative value %g is not allowed", nm,
                   i + 1, d[i]);
      y = (uint64_t)d[i];
      x = i == 0 ? y : n->sub == B_AND ? x & y : n->sub == B_OR ? x | y : x ^ y;
    }
    break;
  }
  case B_LSHIFT:
  case B_RSHIFT:
    if (d[0] < 0 || d[1] < 0)
      return A->err = awk_fatal(
                 A, "%s(%f, %f): negative values are not allowed",
                 n->sub == B_LSHIFT ? "lshift" : "rshift", d[0], d[1]);
    x = (uint64_t)d[0];
    y = (uint64_t)d[1] & 63;
    x = n->sub == B_LSHIFT ? x << y : x >> y;
    break;
  default:
    if (d[0] < 0)
      return A->err =
                 awk_fatal(A, "compl(%f): negative value is not allowed", d[0]);
    x = ~(uint64_t)d[0] & ((1ULL << 53) - 1);
    break;
  }
  awk_set_num(A, out, (double)x);
  return 0;
}

/* Hex and octal only at the very start: gawk reads " 0x10" as decimal. */
static double awk_strtonum(const char *s) {
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return (double)strtoull(s, 0, 16);
  if (s[0] == '0' && s[1] >= '0' && s[1] <= '7') {
    const char *p = s;
    while (*p >= '0' && *p <= '7') p++;
    if (*p != '.' && *p != 'e' && *p != 'E' && !(*p >= '8' && *p <= '9'))
      return (double)strtoull(s, 0, 8);
  }
  {
    int looks;
    return awk_strtod(s, strlen(s), &looks);
  }
}

/* strftime() without arguments formats with PROCINFO["strftime"]. */
static const char *awk_strftime_default(awk_rt *A) {
  awk_val *v = A->g[V_PROCINFO].kind == C_ARRAY
                   ? awk_arr_get(A, A->g[V_PROCINFO].a, "strftime", 8, 0)
                   : NULL;
  if (!v || awk_val_str(A, v, 0)) return AWK_STRFTIME_FMT;
  return v->s->p;
}

/* strftime(fmt, t, utc): gawk's zone name under gmtime is "GMT", where the
 * sandbox's local zone (UTC) is "UTC"; %Z is spelled out before formatting. */
static int awk_strftime_gmt(awk_rt *A, buf *o, const char *fmt, int64_t t) {
  buf f;
  int rc;
  buf_init(&f, A->m);
  for (; *fmt; fmt++)
    if (fmt[0] == '%' && fmt[1] == 'Z')
      buf_puts(&f, "GMT"), fmt++;
    else if (fmt[0] == '%' && fmt[1])
      buf_putc(&f, *fmt++), buf_putc(&f, *fmt);
    else
      buf_putc(&f, *fmt);
  rc = f.err ? f.err : cmd_strftime(o, f.p ? f.p : "", t * 1000000000LL);
  buf_finish(&f);
  return rc;
}

static int awk_b_time(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  int64_t now = A->c->clock_ns ? *A->c->clock_ns : 0;
  if (n->sub == B_SYSTIME) {
    awk_set_num(A, out, (double)cmd_ns_to_s(now));
    return 0;
  }
  if (n->sub == B_MKTIME) {
    cmd_tm tm;
    long long y = 0;
    int mo = 0, d = 0, h = 0, mi = 0, s = 0, k;
    memset(&tm, 0, sizeof tm);
    k = sscanf(av[0].s->p, "%lld %d %d %d %d %d", &y, &mo, &d, &h, &mi, &s);
    if (k < 6) {
      awk_set_num(A, out, -1);
      return 0;
    }
    tm.year = y;
    tm.mon = mo;
    tm.mday = d;
    tm.hour = h;
    tm.min = mi;
    tm.sec = s;
    awk_set_num(A, out, (double)cmd_timegm(&tm));
    return 0;
  }
  {
    const char *fmt = n->idx > 0 ? av[0].s->p : awk_strftime_default(A);
    int64_t t = n->idx > 1 ? (int64_t)awk_val_num(&av[1]) : cmd_ns_to_s(now);
    buf o;
    int rc;
    buf_init(&o, A->m);
    rc = n->idx > 2 && awk_val_bool(A, &av[2])
             ? awk_strftime_gmt(A, &o, fmt, t)
             : cmd_strftime(&o, fmt, t * 1000000000LL);
    if (!rc && !o.err)
      rc = awk_set_str(A, out, o.p ? o.p : "", o.len, 0);
    else if (!rc)
      rc = A->err = o.err;
    buf_finish(&o);
    return rc;
  }
}

static int awk_b_case(awk_rt *A, awk_node *n, awk_val *s, awk_val *out) {
  size_t i;
  int rc = awk_set_str(A, out, s->s->p, s->s->len, 0);
  if (rc) return rc;
  for (i = 0; i < out->s->len; i++) {
    char c = out->s->p[i];
    if (n->sub == B_TOLOWER && c >= 'A' && c <= 'Z') out->s->p[i] = c + 32;
    if (n->sub == B_TOUPPER && c >= 'a' && c <= 'z') out->s->p[i] = c - 32;
  }
  return 0;
}

static int awk_b_length(awk_rt *A, awk_node *a, awk_val *out) {
  awk_val v, *rec;
  int rc;
  if (!a) {
    if ((rc = awk_rec_val(A, &rec)) != 0) return rc;
    awk_set_num(A, out, (double)rec->s->len);
    return 0;
  }
  if (a->op == N_VAR || a->op == N_LOCAL) {
    awk_cell *c = a->op == N_LOCAL ? &A->fr->cells[a->idx] : &A->g[a->idx];
    while (c->kind == C_REF) c = c->ref;
    if (c->kind == C_ARRAY) {
      awk_set_num(A, out, (double)c->a->live);
      return 0;
    }
  }
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval_str(A, a, &v)) != 0) return rc;
  awk_set_num(A, out, (double)v.s->len);
  awk_val_free(A, &v);
  return 0;
}

/* Builtins whose arguments are arrays, regexes or lvalues. */
static int awk_b_special(awk_rt *A, awk_node *n, awk_node **a, awk_val *out) {
  switch (n->sub) {
  case B_LENGTH: return awk_b_length(A, n->idx ? a[0] : NULL, out);
  case B_SUB:
  case B_GSUB: return awk_b_sub(A, n, a, out);
  case B_GENSUB: return awk_b_gensub(A, n, a, out);
  case B_MATCH: return awk_b_match(A, n, a, out);
  case B_SPLIT:
  case B_PATSPLIT: return awk_b_split(A, n, a, out);
  case B_ASORT:
  case B_ASORTI: return awk_b_asort(A, n, a, out);
  case B_ISARRAY:
  case B_TYPEOF: {
    awk_cell *c = NULL;
    awk_val v;
    const char *t;
    int rc;
    if (a[0]->op == N_VAR || a[0]->op == N_LOCAL) {
      c = a[0]->op == N_LOCAL ? &A->fr->cells[a[0]->idx] : &A->g[a[0]->idx];
      while (c->kind == C_REF) c = c->ref;
    }
    if (c && c->kind == C_ARRAY)
      t = "array";
    else if (c && (c->kind == C_UNTYPED ||
                   (c->kind == C_SCALAR && c->v.type == AV_UNINIT)))
      t = c->kind == C_UNTYPED ? "untyped" : "unassigned";
    else {
      memset(&v, 0, sizeof v);
      if ((rc = awk_eval(A, a[0], &v)) != 0) return rc;
      if (v.type == AV_STRNUM) awk_val_num(&v);
      t = v.type == AV_NUM      ? "number"
          : v.type == AV_NUMSTR ? "strnum"
          : v.type == AV_UNINIT ? "untyped"
          : a[0]->op == N_ERE   ? "regexp"
                                : "string";
      awk_val_free(A, &v);
    }
    if (n->sub == B_ISARRAY) {
      awk_set_num(A, out, !strcmp(t, "array"));
      return 0;
    }
    return awk_set_str(A, out, t, strlen(t), 0);
  }
  default: return -1;
  }
}

static int awk_b_math(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  double x = n->idx ? awk_val_num(&av[0]) : 0, r;
  switch (n->sub) {
  case B_SIN: r = sin(x); break;
  case B_COS: r = cos(x); break;
  case B_ATAN2: r = atan2(x, awk_val_num(&av[1])); break;
  case B_EXP:
    r = exp(x);
    /* overflow or underflow: glibc's ERANGE, which gawk reports */
    if (isfinite(x) && (isinf(r) || r == 0))
      awk_warn(A, "exp: argument %g is out of range", x);
    break;
  case B_LOG:
    if (x < 0) awk_warn(A, "log: received negative argument %g", x);
    r = log(x);
    break;
  case B_SQRT:
    if (x < 0) awk_warn(A, "sqrt: received negative argument %g", x);
    r = sqrt(x);
    break;
  case B_INT: r = x < 0 ? ceil(x) : floor(x); break;
  case B_RAND: r = awk_rand(A); break;
  case B_SRAND:
    r = A->prev_seed;
    A->prev_seed =
        n->idx ? x : (double)cmd_ns_to_s(A->c->clock_ns ? *A->c->clock_ns : 0);
    awk_srandom(A, (uint32_t)(long long)A->prev_seed);
    break;
  case B_STRTONUM:
    r = av[0].type == AV_NUM ? x : awk_strtonum(av[0].s->p);
    break;
  default: return -1;
  }
  awk_set_num(A, out, r);
  return 0;
}

static int awk_b_io(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  double d = 0;
  int rc = 0;
  switch (n->sub) {
  case B_SYSTEM: rc = awk_system(A, av[0].s->p, &d); break;
  case B_CLOSE: rc = awk_close(A, av[0].s->p, av[0].s->len, &d); break;
  case B_FFLUSH: rc = awk_fflush(A, n->idx ? av[0].s->p : NULL, &d); break;
  default: return -1;
  }
  if (!rc) awk_set_num(A, out, d);
  return rc;
}

static int awk_b_str(awk_rt *A, awk_node *n, awk_val *av, awk_val *out) {
  switch (n->sub) {
  case B_SUBSTR: return awk_b_substr(A, n, av, out);
  case B_INDEX: {
    const char *h = av[0].s->p, *nd = av[1].s->p;
    size_t hn = av[0].s->len, nn = av[1].s->len, i;
    double r = 1; /* the empty string is found at once */
    int ic = awk_icase(A);
    if (nn)
      for (r = 0, i = 0; i + nn <= hn; i++)
        if (ic ? !strncasecmp(h + i, nd, nn)
               : h[i] == nd[0] && !memcmp(h + i, nd, nn)) {
          r = (double)i + 1;
          break;
        }
    awk_set_num(A, out, r);
    return 0;
  }
  case B_SPRINTF: {
    buf o;
    int rc;
    buf_init(&o, A->m);
    rc = awk_format(A, &o, av[0].s->p, av[0].s->len, av + 1, n->idx - 1);
    if (!rc) rc = awk_set_str(A, out, o.p ? o.p : "", o.len, 0);
    buf_finish(&o);
    return rc;
  }
  case B_TOLOWER:
  case B_TOUPPER: return awk_b_case(A, n, &av[0], out);
  case B_STRFTIME:
  case B_SYSTIME:
  case B_MKTIME: return awk_b_time(A, n, av, out);
  case B_AND:
  case B_OR:
  case B_XOR:
  case B_LSHIFT:
  case B_RSHIFT:
  case B_COMPL: return awk_b_bits(A, n, av, out);
  default: return -1;
  }
}

int awk_builtin(awk_rt *A, awk_node *n, awk_val *out) {
  awk_node *a[64], *x;
  awk_val av[64];
  int i = 0, rc = 0;
  for (x = n->a; x && i < 64; x = x->next) a[i++] = x;
  if ((rc = awk_b_special(A, n, a, out)) != -1) return rc;
  rc = 0;
  memset(av, 0, sizeof av);
  for (i = 0; i < n->idx; i++) {
    int strarg =
        n->sub == B_SUBSTR || n->sub == B_INDEX || n->sub == B_SPRINTF ||
        n->sub == B_TOLOWER || n->sub == B_TOUPPER || n->sub == B_SYSTEM ||
        n->sub == B_CLOSE || n->sub == B_FFLUSH || n->sub == B_STRFTIME ||
        n->sub == B_MKTIME || n->sub == B_STRTONUM;
    rc = strarg && !(n->sub == B_SPRINTF && i > 0)
             ? awk_eval_str(A, a[i], &av[i])
             : awk_eval(A, a[i], &av[i]);
    if (rc) break;
  }
  if (!rc) {
    rc = awk_b_math(A, n, av, out);
    if (rc == -1) rc = awk_b_io(A, n, av, out);
    if (rc == -1) rc = awk_b_str(A, n, av, out);
  }
  for (i = 0; i < n->idx; i++) awk_val_free(A, &av[i]);
  return rc;
}
