/* bc_num.c - bc's arbitrary-precision decimal numbers (see bc.h).
 *
 * Schoolbook algorithms over base-10 digits: the numbers bc scripts use
 * are short, and the step meter, not speed, is what bounds the long ones.
 * Every result is computed exactly (or to one digit past its scale) and
 * then truncated, which is what GNU bc's results amount to. */
#include <string.h>

#include "bc.h"

/* Digit operations per charged step. */
#define BCN_WORK_PER_STEP 256u

int bcn_charge(bcn_env *e) {
  uint64_t n = e->work / BCN_WORK_PER_STEP;
  if (!n) return 0;
  e->work %= BCN_WORK_PER_STEP;
  return cmd_tick(e->c, n);
}

void bcn_free(bcn_env *e, bcn *a) {
  mem_free(e->c->m, a->d);
  memset(a, 0, sizeof *a);
}

/* Digits one number may hold: far past any memory limit, and small
 * enough that digit counts stay ints (scale may be set to 2^31 - 1). */
#define BCN_MAX_DIGITS (1L << 28)

/* A zero-filled number of n digits at scale s. */
static int bcn_alloc(bcn_env *e, bcn *out, int64_t n, int s) {
  memset(out, 0, sizeof *out);
  if (n < 0 || n > BCN_MAX_DIGITS) return MSB_ENOMEM;
  out->d = mem_zalloc(e->c->m, (size_t)n + 1);
  if (!out->d) return MSB_ENOMEM;
  out->n = (int)n;
  out->scale = s;
  e->work += (uint64_t)n;
  return 0;
}

static void bcn_norm(bcn *a) {
  while (a->n > 0 && a->d[a->n - 1] == 0) a->n--;
  if (!a->n) a->neg = 0;
}

int bcn_is_zero(const bcn *a) { return a->n == 0; }

/* Digit k (0 = least significant) of a written at scale s >= a->scale. */
static int bcn_dig(const bcn *a, int s, int k) {
  k -= s - a->scale;
  return k >= 0 && k < a->n ? a->d[k] : 0;
}

/* Drops digits past scale s (s < a->scale) in place. */
static void bcn_trunc(bcn *a, int s) {
  int drop = a->scale - s;
  if (drop <= 0) return;
  if (drop >= a->n) {
    a->n = 0;
  } else {
    memmove(a->d, a->d + drop, (size_t)(a->n - drop));
    a->n -= drop;
  }
  a->scale = s;
  bcn_norm(a);
}

int bcn_copy(bcn_env *e, const bcn *a, bcn *out) {
  int rc = bcn_alloc(e, out, a->n, a->scale);
  if (rc) return rc;
  if (a->n) memcpy(out->d, a->d, (size_t)a->n);
  out->neg = a->neg;
  return 0;
}

int bcn_from_long(bcn_env *e, int64_t v, bcn *out) {
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  int rc = bcn_alloc(e, out, 20, 0), i = 0;
  if (rc) return rc;
  for (; u; u /= 10) out->d[i++] = (uint8_t)(u % 10);
  out->n = i;
  out->neg = v < 0 && i;
  return 0;
}

int64_t bcn_to_long(const bcn *a) {
  int64_t v = 0;
  int k;
  for (k = a->n - 1; k >= a->scale; k--) {
    if (v > INT64_C(100000000000000000)) return a->neg ? -v : v;
    v = v * 10 + a->d[k];
  }
  return a->neg ? -v : v;
}

int bcn_length(const bcn *a) {
  if (!a->n) return 1;
  return a->n > a->scale ? a->n : a->scale;
}

/* Compares magnitudes. */
static int bcn_cmp_mag(const bcn *a, const bcn *b) {
  int s = a->scale > b->scale ? a->scale : b->scale;
  int ta = a->n ? a->n + s - a->scale : 0, tb = b->n ? b->n + s - b->scale : 0;
  int k;
  if (ta != tb) return ta < tb ? -1 : 1;
  for (k = ta - 1; k >= 0; k--) {
    int x = bcn_dig(a, s, k), y = bcn_dig(b, s, k);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int bcn_cmp(const bcn *a, const bcn *b) {
  int m;
  if (a->neg != b->neg) return a->neg ? -1 : 1;
  m = bcn_cmp_mag(a, b);
  return a->neg ? -m : m;
}

/* out = |a| + |b| (sub = 0) or |a| - |b| with |a| >= |b|. */
static int bcn_addsub_mag(bcn_env *e, const bcn *a, const bcn *b, int sub,
                          bcn *out) {
  int s = a->scale > b->scale ? a->scale : b->scale;
  int ta = a->n + s - a->scale, tb = b->n + s - b->scale;
  int n = (ta > tb ? ta : tb) + 1, k, carry = 0, rc;
  if ((rc = bcn_alloc(e, out, n, s))) return rc;
  for (k = 0; k < n; k++) {
    int v =
        bcn_dig(a, s, k) + (sub ? -bcn_dig(b, s, k) : bcn_dig(b, s, k)) + carry;
    carry = v < 0 ? -1 : v / 10;
    out->d[k] = (uint8_t)(v < 0 ? v + 10 : v % 10);
  }
  bcn_norm(out);
  return 0;
}

int bcn_add(bcn_env *e, const bcn *a, const bcn *b, int sub, bcn *out) {
  int bneg = sub ? !b->neg && b->n : b->neg, rc;
  if (a->neg == bneg) {
    rc = bcn_addsub_mag(e, a, b, 0, out);
    if (!rc) out->neg = a->neg && out->n;
  } else if (bcn_cmp_mag(a, b) >= 0) {
    rc = bcn_addsub_mag(e, a, b, 1, out);
    if (!rc) out->neg = a->neg && out->n;
  } else {
    rc = bcn_addsub_mag(e, b, a, 1, out);
    if (!rc) out->neg = bneg && out->n;
  }
  return rc;
}

/* Exact product, scale a->scale + b->scale. */
static int bcn_mul_exact(bcn_env *e, const bcn *a, const bcn *b, bcn *out) {
  int i, j, rc;
  if ((rc = bcn_alloc(e, out, a->n + b->n + 1, a->scale + b->scale))) return rc;
  for (i = 0; i < a->n; i++) {
    unsigned carry = 0, x = a->d[i];
    if (!x) continue;
    for (j = 0; j < b->n; j++) {
      unsigned t = out->d[i + j] + x * b->d[j] + carry;
      out->d[i + j] = (uint8_t)(t % 10);
      carry = t / 10;
    }
    for (j = i + b->n; carry; j++) {
      unsigned t = out->d[j] + carry;
      out->d[j] = (uint8_t)(t % 10);
      carry = t / 10;
    }
  }
  e->work += (uint64_t)a->n * (uint64_t)b->n;
  out->neg = a->neg != b->neg;
  bcn_norm(out);
  if ((rc = bcn_charge(e))) bcn_free(e, out);
  return rc;
}

int bcn_mul(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out) {
  int full = a->scale + b->scale,
      big = a->scale > b->scale ? a->scale : b->scale;
  int rc = bcn_mul_exact(e, a, b, out);
  if (rc) return rc;
  if (scale < big) scale = big;
  if (full > scale) bcn_trunc(out, scale);
  return 0;
}

/* Integer long division of magnitude digits: q = floor(a / b), b != 0. */
static int bcn_divmag(bcn_env *e, const uint8_t *a, int an, const bcn *b,
                      bcn *q) {
  uint8_t *r;
  int rn = 0, i, rc, k;
  if ((rc = bcn_alloc(e, q, an > 0 ? an : 1, 0))) return rc;
  r = mem_zalloc(e->c->m, (size_t)b->n + 2);
  if (!r) {
    bcn_free(e, q);
    return MSB_ENOMEM;
  }
  for (i = an - 1; i >= 0; i--) {
    int cnt = 0;
    memmove(r + 1, r, (size_t)rn);
    r[0] = a[i];
    rn++;
    while (rn > 0 && r[rn - 1] == 0) rn--;
    for (;;) { /* while r >= b: r -= b */
      int ge = rn != b->n ? rn > b->n : 1, borrow = 0;
      if (rn == b->n)
        for (k = rn - 1; k >= 0; k--)
          if (r[k] != b->d[k]) {
            ge = r[k] > b->d[k];
            break;
          }
      if (!ge) break;
      for (k = 0; k < rn; k++) {
        int v = r[k] - (k < b->n ? b->d[k] : 0) - borrow;
        borrow = v < 0;
        r[k] = (uint8_t)(v < 0 ? v + 10 : v);
      }
      while (rn > 0 && r[rn - 1] == 0) rn--;
      cnt++;
    }
    q->d[i] = (uint8_t)cnt;
    e->work += (uint64_t)(cnt + 1) * (uint64_t)(b->n + 1);
  }
  mem_free(e->c->m, r);
  bcn_norm(q);
  if ((rc = bcn_charge(e))) bcn_free(e, q);
  return rc;
}

int bcn_div(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out) {
  int64_t shift = (int64_t)scale + b->scale - a->scale;
  int rc;
  bcn t;
  if (!b->n) return BCN_EDIV;
  if (shift > BCN_MAX_DIGITS) return MSB_ENOMEM;
  /* a's digits times 10^shift (or with -shift digits dropped) */
  if (shift >= 0) {
    if ((rc = bcn_alloc(e, &t, a->n + shift, 0))) return rc;
    if (a->n) memcpy(t.d + shift, a->d, (size_t)a->n);
  } else {
    int64_t keep = a->n + shift > 0 ? a->n + shift : 0;
    if ((rc = bcn_alloc(e, &t, keep, 0))) return rc;
    if (keep) memcpy(t.d, a->d - shift, (size_t)keep);
  }
  rc = bcn_divmag(e, t.d, t.n, b, out);
  bcn_free(e, &t);
  if (rc) return rc;
  out->scale = scale;
  out->neg = a->neg != b->neg && out->n;
  bcn_norm(out);
  return 0;
}

int bcn_mod(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out) {
  int64_t rl = (int64_t)scale + b->scale > a->scale ? (int64_t)scale + b->scale
                                                    : a->scale;
  int rs = rl > BCN_MAX_DIGITS ? (int)BCN_MAX_DIGITS : (int)rl, rc;
  bcn q, p;
  if (!b->n) return BCN_EDIV;
  if ((rc = bcn_div(e, a, b, scale, &q))) return rc;
  rc = bcn_mul(e, &q, b, rs, &p);
  bcn_free(e, &q);
  if (rc) return rc;
  rc = bcn_add(e, a, &p, 1, out);
  bcn_free(e, &p);
  return rc;
}

int bcn_pow(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out) {
  int64_t ex = bcn_to_long(b);
  uint64_t u = ex < 0 ? (uint64_t)0 - (uint64_t)ex : (uint64_t)ex;
  bcn acc, sq, t;
  int rc, rs;
  if (!ex) return bcn_from_long(e, 1, out);
  if ((rc = bcn_from_long(e, 1, &acc))) return rc;
  if ((rc = bcn_copy(e, a, &sq))) goto done_acc;
  for (;;) {
    if (u & 1) {
      if ((rc = bcn_mul_exact(e, &acc, &sq, &t))) goto done;
      bcn_free(e, &acc);
      acc = t;
    }
    u >>= 1;
    if (!u) break;
    if ((rc = bcn_mul_exact(e, &sq, &sq, &t))) goto done;
    bcn_free(e, &sq);
    sq = t;
  }
  if (ex < 0) {
    bcn one;
    if ((rc = bcn_from_long(e, 1, &one))) goto done;
    rc = bcn_div(e, &one, &acc, scale, out);
    bcn_free(e, &one);
    if (rc == BCN_EDIV) rc = BCN_EDIV;
    goto done;
  }
  rs = scale > a->scale ? scale : a->scale;
  if ((int64_t)a->scale * ex < rs) rs = (int)(a->scale * ex);
  bcn_trunc(&acc, rs);
  *out = acc;
  memset(&acc, 0, sizeof acc);
done:
  bcn_free(e, &sq);
done_acc:
  bcn_free(e, &acc);
  return rc;
}

int bcn_sqrt(bcn_env *e, const bcn *a, int scale, bcn *out) {
  int rs = scale > a->scale ? scale : a->scale, rc;
  int64_t shift;
  bcn n, x, y, q, two;
  if (a->neg) return BCN_ENEG;
  if (!a->n) return bcn_from_long(e, 0, out);
  if (a->n == a->scale + 1 && a->d[a->n - 1] == 1) {
    int k, one = 1;
    for (k = 0; k < a->n - 1; k++) one &= a->d[k] == 0;
    if (one) return bcn_from_long(e, 1, out);
  }
  /* isqrt of the integer a * 10^(2 rs), by Newton's method from above */
  shift = 2L * rs - a->scale;
  if (shift > BCN_MAX_DIGITS) return MSB_ENOMEM;
  if ((rc = bcn_alloc(e, &n, a->n + shift, 0))) return rc;
  memcpy(n.d + shift, a->d, (size_t)a->n);
  if ((rc = bcn_alloc(e, &x, (n.n + 1) / 2 + 1, 0))) goto done_n;
  x.d[x.n - 1] = 1;
  if ((rc = bcn_from_long(e, 2, &two))) goto done_x;
  for (;;) {
    if ((rc = bcn_div(e, &n, &x, 0, &q))) break;
    rc = bcn_add(e, &x, &q, 0, &y);
    bcn_free(e, &q);
    if (rc) break;
    rc = bcn_div(e, &y, &two, 0, &q);
    bcn_free(e, &y);
    if (rc) break;
    if (bcn_cmp(&q, &x) >= 0) {
      bcn_free(e, &q);
      break;
    }
    bcn_free(e, &x);
    x = q;
  }
  bcn_free(e, &two);
  if (!rc) {
    x.scale = rs;
    *out = x;
    bcn_norm(out);
    bcn_free(e, &n);
    return 0;
  }
done_x:
  bcn_free(e, &x);
done_n:
  bcn_free(e, &n);
  return rc;
}

/* Digit value of an input character (0-9, A-Z). */
static int bcn_digval(int ch) {
  return ch >= '0' && ch <= '9' ? ch - '0' : ch - 'A' + 10;
}

/* n = n * base + d (in place; n has room for one more digit). */
static void bcn_muladd(bcn *n, unsigned base, unsigned d) {
  uint64_t carry = d;
  int k;
  for (k = 0; k < n->n; k++) {
    uint64_t t = (uint64_t)n->d[k] * base + carry;
    n->d[k] = (uint8_t)(t % 10);
    carry = t / 10;
  }
  while (carry) {
    n->d[n->n++] = (uint8_t)(carry % 10);
    carry /= 10;
  }
}

int bcn_parse(bcn_env *e, const char *s, int ibase, bcn *out) {
  const char *dot = strchr(s, '.');
  size_t len = strlen(s), ni = dot ? (size_t)(dot - s) : len, k;
  size_t nf = dot ? len - ni - 1 : 0;
  int rc, single = len == 1;
  bcn num, den, q;
  /* sizes: a base-16 digit adds at most two decimal digits */
  if ((rc = bcn_alloc(e, &num, (int)(2 * len + 4), 0))) return rc;
  if ((rc = bcn_alloc(e, &den, (int)(2 * nf + 4), 0))) goto fail_num;
  num.n = 0;
  den.n = 1;
  den.d[0] = 1;
  for (k = 0; k < len; k++) {
    int v;
    if (s[k] == '.') continue;
    v = bcn_digval(s[k]);
    if (!single && v >= ibase) v = ibase - 1;
    bcn_muladd(&num, (unsigned)ibase, (unsigned)v);
    if (k > ni) bcn_muladd(&den, (unsigned)ibase, 0);
  }
  bcn_norm(&num);
  if (!nf || ibase == 10) {
    num.scale = (int)nf;
    bcn_free(e, &den);
    *out = num;
    return 0;
  }
  rc = bcn_div(e, &num, &den, (int)nf, &q);
  bcn_free(e, &den);
  bcn_free(e, &num);
  if (!rc) *out = q;
  return rc;
fail_num:
  bcn_free(e, &num);
  return rc;
}

int bcn_putc(buf *o, int ch, int *col, int linelen) {
  if (linelen && ch != '\n' && *col >= linelen - 2) {
    if (buf_put(o, "\\\n", 2)) return MSB_ENOMEM;
    *col = 0;
  }
  if (buf_putc(o, ch)) return MSB_ENOMEM;
  *col = ch == '\n' ? 0 : *col + 1;
  return 0;
}

/* One output digit: a character up to base 16, else " %0Nd". */
static int bcn_put_digit(buf *o, uint64_t v, int obase, int space, int *col,
                         int linelen) {
  char tmp[24];
  int w = 0, i, rc;
  uint64_t m;
  if (obase <= 16) return bcn_putc(o, "0123456789ABCDEF"[v], col, linelen);
  for (m = (uint64_t)obase - 1; m; m /= 10) w++;
  if (space && (rc = bcn_putc(o, ' ', col, linelen))) return rc;
  for (i = w - 1; i >= 0; i--, v /= 10) tmp[i] = (char)('0' + v % 10);
  for (i = 0; i < w; i++)
    if ((rc = bcn_putc(o, tmp[i], col, linelen))) return rc;
  return 0;
}

/* Remainder of the integer digits of a divided by base (a changes). */
static uint64_t bcn_divsmall(bcn *a, uint64_t base) {
  uint64_t r = 0;
  int k;
  for (k = a->n - 1; k >= 0; k--) {
    uint64_t t = r * 10 + a->d[k];
    a->d[k] = (uint8_t)(t / base);
    r = t % base;
  }
  bcn_norm(a);
  return r;
}

/* Prints a's integer part in obase (not 10). */
static int bcn_print_int(bcn_env *e, const bcn *a, int obase, buf *o, int *col,
                         int linelen) {
  bcn t;
  uint64_t *dg;
  int nd = 0, rc = 0, i;
  if ((rc = bcn_copy(e, a, &t))) return rc;
  bcn_trunc(&t, 0);
  t.scale = 0;
  dg = mem_alloc(e->c->m, sizeof *dg * (4 * (size_t)t.n + 2));
  if (!dg) {
    bcn_free(e, &t);
    return MSB_ENOMEM;
  }
  while (t.n) {
    dg[nd++] = bcn_divsmall(&t, (uint64_t)obase);
    e->work += (uint64_t)t.n;
  }
  if (!nd) dg[nd++] = 0;
  for (i = nd - 1; i >= 0 && !rc; i--)
    rc = bcn_put_digit(o, dg[i], obase, 1, col, linelen);
  mem_free(e->c->m, dg);
  bcn_free(e, &t);
  return rc ? rc : bcn_charge(e);
}

/* Prints a's fraction in obase (not 10): digits until obase^k reaches
 * 10^scale, each the integer part of the fraction times obase. */
static int bcn_print_frac(bcn_env *e, const bcn *a, int obase, buf *o, int *col,
                          int linelen) {
  int s = a->scale, k, rc, first = 1;
  uint8_t *f = mem_zalloc(e->c->m, (size_t)s + 1);
  bcn place;
  if (!f) return MSB_ENOMEM;
  for (k = 0; k < s; k++) f[k] = (uint8_t)bcn_dig(a, s, k);
  if ((rc = bcn_alloc(e, &place, s + 24, 0))) goto done;
  place.n = 1;
  place.d[0] = 1;
  while (place.n <= s) {
    uint64_t carry = 0;
    for (k = 0; k < s; k++) {
      uint64_t t = (uint64_t)f[k] * (uint64_t)obase + carry;
      f[k] = (uint8_t)(t % 10);
      carry = t / 10;
    }
    if ((rc = bcn_put_digit(o, carry, obase, !first, col, linelen))) break;
    first = 0;
    bcn_muladd(&place, (unsigned)obase, 0);
    e->work += (uint64_t)s;
    if ((rc = bcn_charge(e))) break;
  }
  bcn_free(e, &place);
done:
  mem_free(e->c->m, f);
  return rc;
}

int bcn_print(bcn_env *e, const bcn *a, int obase, buf *o, int *col,
              int linelen) {
  int rc = 0, k;
  if (!a->n) return bcn_putc(o, '0', col, linelen);
  if (a->neg && (rc = bcn_putc(o, '-', col, linelen))) return rc;
  if (obase == 10) {
    for (k = a->n - 1; k >= a->scale && !rc; k--)
      rc = bcn_putc(o, '0' + a->d[k], col, linelen);
    if (a->scale && !rc) rc = bcn_putc(o, '.', col, linelen);
    for (k = a->scale - 1; k >= 0 && !rc; k--)
      rc = bcn_putc(o, '0' + (k < a->n ? a->d[k] : 0), col, linelen);
    e->work += (uint64_t)(a->n + a->scale);
    return rc ? rc : bcn_charge(e);
  }
  if (a->n > a->scale && (rc = bcn_print_int(e, a, obase, o, col, linelen)))
    return rc;
  if (!a->scale) return 0;
  if ((rc = bcn_putc(o, '.', col, linelen))) return rc;
  return bcn_print_frac(e, a, obase, o, col, linelen);
}
