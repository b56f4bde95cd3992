/* jq_json.c - JSON text for jq: a streaming reader with jq 1.7.1's error
 * messages and positions, and the writer (indentation, escaping, -a, -S,
 * number formatting).
 *
 * The reader works like jq's: characters are consumed one at a time;
 * literals (numbers, true, false, null, nan) end at a delimiter, which is
 * consumed before the literal is checked, and a string is checked when its
 * closing quote is consumed, so positions match jq's "at line L, column C"
 * (C counts characters since the last newline). Containers are built on an
 * explicit stack, so deep input cannot exhaust the native stack. Numbers
 * keep the literal text decNumber would print when it differs from the
 * double's shortest form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

#define JQ_MAX_DEPTH 10000

/* ---- UTF-8 ----------------------------------------------------------- */

size_t jq_utf8_next(const uint8_t *s, size_t n, uint32_t *cp) {
  uint32_t c = s[0], min;
  size_t len, i;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xc2 && c <= 0xdf)
    len = 2, c &= 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3, c &= 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4, c &= 0x07, min = 0x10000;
  else {
    *cp = 0xfffd;
    return 1;
  }
  for (i = 1; i < len; i++) {
    if (i >= n || (s[i] & 0xc0) != 0x80) {
      *cp = 0xfffd;
      return i;
    }
    c = (c << 6) | (s[i] & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
  *cp = c;
  return len;
}

void jq_utf8_put(buf *b, uint32_t c) {
  char t[4];
  size_t n;
  if (c < 0x80)
    t[0] = (char)c, n = 1;
  else if (c < 0x800)
    t[0] = (char)(0xc0 | c >> 6), t[1] = (char)(0x80 | (c & 0x3f)), n = 2;
  else if (c < 0x10000)
    t[0] = (char)(0xe0 | c >> 12), t[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
    t[2] = (char)(0x80 | (c & 0x3f)), n = 3;
  else
    t[0] = (char)(0xf0 | c >> 18), t[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
    t[2] = (char)(0x80 | ((c >> 6) & 0x3f)), t[3] = (char)(0x80 | (c & 0x3f)),
    n = 4;
  buf_put(b, t, n);
}

static int jq_utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint32_t cp;
    if (s[i] < 0x80) {
      i++;
      continue;
    }
    i += jq_utf8_next(s + i, n - i, &cp);
    if (cp == 0xfffd) return 0;
  }
  return 1;
}

jv jv_str_utf8(jq_rt *R, const char *s, size_t n) {
  buf b;
  size_t i = 0;
  jv v;
  if (jq_utf8_valid((const uint8_t *)s, n)) return jv_str(R, s, n);
  buf_init(&b, R->m);
  while (i < n) {
    uint32_t cp;
    i += jq_utf8_next((const uint8_t *)s + i, n - i, &cp);
    jq_utf8_put(&b, cp);
  }
  if (b.err) R->oom = 1;
  v = jv_str(R, buf_str(&b), b.len);
  buf_finish(&b);
  return v;
}

/* ---- numbers --------------------------------------------------------- */

int jq_numlit(const char *s, size_t n, buf *out) {
  char dig[512];
  size_t nd = 0, i = 0;
  long exp = 0, adj;
  int neg = 0, seen = 0, dot = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  for (; i < n; i++) {
    if (s[i] == '.' && !dot)
      dot = 1;
    else if (s[i] >= '0' && s[i] <= '9') {
      seen = 1;
      if (s[i] == '0' && !nd) {
        if (dot) exp--;
        continue;
      }
      if (nd >= sizeof dig - 1) return -1;
      dig[nd++] = s[i];
      if (dot) exp--;
    } else
      break;
  }
  if (!seen) return -1;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    long e = 0;
    int eneg = 0;
    i++;
    if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i >= n) return -1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (e < 100000000) e = e * 10 + (s[i] - '0');
    exp += eneg ? -e : e;
  }
  if (i != n) return -1;
  if (!nd) dig[nd++] = '0';
  dig[nd] = 0;
  if (neg) buf_putc(out, '-');
  adj = exp + (long)nd - 1;
  if (exp <= 0 && adj >= -6) {
    if (exp == 0)
      buf_put(out, dig, nd);
    else if ((long)nd > -exp) {
      buf_put(out, dig, nd + (size_t)exp);
      buf_putc(out, '.');
      buf_puts(out, dig + nd + exp);
    } else {
      long z;
      buf_puts(out, "0.");
      for (z = -exp - (long)nd; z > 0; z--) buf_putc(out, '0');
      buf_put(out, dig, nd);
    }
  } else {
    buf_putc(out, dig[0]);
    if (nd > 1) {
      buf_putc(out, '.');
      buf_puts(out, dig + 1);
    }
    buf_printf(out, "E%c%ld", adj < 0 ? '-' : '+', adj < 0 ? -adj : adj);
  }
  return 0;
}

void jv_dblfmt(char *out, double d) {
  char t[40], dig[20];
  int p, nd = 0, decpt, i;
  char *o = out;
  if (isnan(d)) {
    strcpy(out, "null");
    return;
  }
  if (isinf(d)) d = d > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
  if (d == 0) {
    strcpy(out, signbit(d) ? "-0" : "0");
    return;
  }
  if (fabs(d) < 1e16 && d == (double)(long long)d) {
    snprintf(out, 40, "%lld", (long long)d);
    return;
  }
  for (p = 1; p <= 17; p++) {
    snprintf(t, sizeof t, "%.*e", p - 1, d);
    if (strtod(t, NULL) == d) break;
  }
  {
    char *s = t, *e = strchr(t, 'e');
    if (*s == '-') *o++ = *s++;
    for (; s < e; s++)
      if (*s != '.') dig[nd++] = *s;
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    dig[nd] = 0;
    decpt = atoi(e + 1) + 1;
  }
  if (decpt <= -4 || decpt > nd + 15) {
    int x = decpt - 1;
    *o++ = dig[0];
    if (nd > 1) {
      *o++ = '.';
      for (i = 1; i < nd; i++) *o++ = dig[i];
    }
    sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
  } else if (decpt <= 0) {
    *o++ = '0';
    *o++ = '.';
    for (i = decpt; i < 0; i++) *o++ = '0';
    strcpy(o, dig);
  } else {
    for (i = 0; i < nd; i++) {
      *o++ = dig[i];
      if (i + 1 == decpt && i + 1 < nd) *o++ = '.';
    }
    for (i = nd; i < decpt; i++) *o++ = '0';
    *o = 0;
  }
}

void jv_numfmt(buf *b, jv v) {
  char t[40];
  if (v.p) {
    buf_put(b, jv_sp(v), jv_sl(v));
    return;
  }
  jv_dblfmt(t, v.n);
  buf_puts(b, t);
}

/* Decimal comparison of two literal numbers (jq compares literals with
 * decNumber, so 100000000000000000001 > 100000000000000000000). */
typedef struct jq_dec {
  int neg, zero;
  long adj;
  char d[512];
  size_t nd;
} jq_dec;

static void jq_dec_parse(const char *s, jq_dec *x) {
  long exp = 0;
  int dot = 0;
  memset(x, 0, sizeof *x);
  if (*s == '-') x->neg = 1, s++;
  for (; *s && *s != 'E'; s++) {
    if (*s == '.')
      dot = 1;
    else if (*s != '0' || x->nd) {
      if (x->nd < sizeof x->d - 1) x->d[x->nd++] = *s;
      if (dot) exp--;
    } else if (dot)
      exp--;
  }
  if (*s == 'E') exp += atol(s + 1);
  while (x->nd && x->d[x->nd - 1] == '0') x->nd--, exp++;
  x->zero = !x->nd;
  x->adj = exp + (long)x->nd - 1;
}

int jq_litcmp(jv a, jv b);
int jq_litcmp(jv a, jv b) {
  jq_dec x, y;
  int r, sx, sy;
  size_t i, n;
  if (a.n != b.n || isnan(a.n) || isnan(b.n)) return a.n < b.n ? -1 : a.n > b.n;
  jq_dec_parse(jv_sp(a), &x);
  jq_dec_parse(jv_sp(b), &y);
  sx = x.zero ? 0 : x.neg ? -1 : 1;
  sy = y.zero ? 0 : y.neg ? -1 : 1;
  if (sx != sy) return sx < sy ? -1 : 1;
  if (!sx) return 0;
  if (x.adj != y.adj)
    r = x.adj < y.adj ? -1 : 1;
  else {
    n = x.nd > y.nd ? x.nd : y.nd;
    r = 0;
    for (i = 0; i < n && !r; i++) {
      char cx = i < x.nd ? x.d[i] : '0', cy = i < y.nd ? y.d[i] : '0';
      r = cx < cy ? -1 : cx > cy;
    }
  }
  return sx < 0 ? -r : r;
}

/* Whether a number's text is already the double's shortest form (a plain
 * decimal of at most 15 significant digits, no exponent, no redundant
 * zeros, at least 0.0001): then no literal needs keeping. */
static int jq_plain_num(const char *t, size_t n) {
  size_t i = t[0] == '-', sig = 0, lead = 0;
  if (i >= n) return 0;
  if (t[i] == '0') {
    i++;
    if (i < n && t[i] != '.') return 0;
  } else {
    if (t[i] < '1' || t[i] > '9') return 0;
    for (; i < n && t[i] >= '0' && t[i] <= '9'; i++) sig++;
  }
  if (i < n) {
    if (t[i] != '.' || i + 1 >= n || t[n - 1] == '0') return 0;
    for (i++; i < n; i++) {
      if (t[i] < '0' || t[i] > '9') return 0;
      if (!sig && t[i] == '0')
        lead++;
      else
        sig++;
    }
  }
  return sig <= 15 && lead <= 3;
}

/* The double of a literal as jq 1.7.1 computes it: decNumber rounds the
 * literal to 17 significant digits (half even) before converting, so
 * 100000000000000000000001 is 1e+23, not 1.0000000000000001e+23. */
static double jq_lit_double(const char *t) {
  char dig[600], out[640];
  int nd = 0, dot = 0, neg = 0, any = 0, i;
  long e10 = 0;
  const char *p = t;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  for (;; p++) {
    if (*p == '.' && !dot) {
      dot = 1;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    if (dot) e10--;
    if (*p == '0' && !nd) continue;
    if (nd < (int)sizeof dig - 1) dig[nd++] = *p;
  }
  if (nd <= 17) return strtod(t, NULL);
  if (*p == 'e' || *p == 'E') e10 += strtol(p + 1, NULL, 10);
  for (i = 18; i < nd; i++) any |= dig[i] != '0';
  e10 += nd - 17;
  if (dig[17] > '5' || (dig[17] == '5' && (any || (dig[16] - '0') % 2))) {
    for (i = 16; i >= 0 && dig[i] == '9'; i--) dig[i] = '0';
    if (i < 0) {
      memmove(dig + 1, dig, 16);
      dig[0] = '1';
      e10++;
    } else
      dig[i]++;
  }
  snprintf(out, sizeof out, "%s%.17se%ld", neg ? "-" : "", dig, e10);
  return strtod(out, NULL);
}

/* A number from its text: the double and, when it prints differently,
 * the canonical literal. */
static int jq_mknum(jq_rt *R, const char *s, size_t n, jv *out) {
  char t[600], d[40];
  buf lit;
  double v;
  char *end;
  if (n >= sizeof t) return -1;
  memcpy(t, s, n);
  t[n] = 0;
  if (n <= 15) {
    size_t i = t[0] == '-';
    for (; i < n && t[i] >= '0' && t[i] <= '9'; i++);
    if (i == n && n && t[n - 1] != '-' &&
        (t[t[0] == '-'] != '0' || n == 1 + (t[0] == '-')) &&
        !(t[0] == '-' && n == 2 && t[1] == '0')) {
      *out = jv_num(strtod(t, NULL));
      return 0;
    }
  }
  if (jq_plain_num(t, n)) {
    *out = jv_num(strtod(t, NULL));
    return 0;
  }
  buf_init(&lit, R->m);
  if (jq_numlit(t, n, &lit) < 0) {
    buf_finish(&lit);
    v = strtod(t, &end);
    if (*end || (!isnan(v) && !isinf(v))) return -1;
    if (t[0] == '+' || (t[0] == '.')) return -1;
    *out = jv_num(v);
    return 0;
  }
  v = jq_lit_double(t);
  if (lit.err) R->oom = 1;
  jv_dblfmt(d, v);
  if (isinf(v) || strcmp(d, buf_str(&lit)))
    *out = jv_num_lit(R, v, buf_str(&lit), lit.len);
  else
    *out = jv_num(v);
  buf_finish(&lit);
  return 0;
}

/* ---- reader ---------------------------------------------------------- */

void jq_rd_init(jq_rd *r, jq_rt *R, const uint8_t *p, size_t n) {
  memset(r, 0, sizeof *r);
  r->R = R;
  r->epath = jv_null();
  r->p = r->start = p;
  r->end = p + n;
  /* jq skips a UTF-8 byte order mark at the start */
  if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) r->p += 3;
}

typedef struct jq_frame {
  jv c;      /* container */
  jv key;    /* pending key (objects) */
  jv last;   /* key of the last member (objects, --stream) */
  int state; /* 0 expecting first/value, 1 after value, 2 after ',', 3
                after key, 4 after ':' */
} jq_frame;

/* Position after consuming up to p. */
void jq_rd_fail(jq_rd *r, const char *msg, const uint8_t *p) {
  const uint8_t *q;
  size_t line = 1, col = 0;
  for (q = r->start; q < p; q++) {
    if (*q == '\n')
      line++, col = 0;
    else
      col++;
  }
  r->err = msg;
  r->errp = p;
  r->eline = line;
  r->ecol = col;
}

static int jq_isdelim(int c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '[' ||
         c == ']' || c == '{' || c == '}' || c == ',' || c == ':' || c == '"';
}

/* Scans a string starting after the opening quote; *pp ends after the
 * closing quote. */
static int jq_rd_string(jq_rd *r, const uint8_t **pp, jv *out) {
  const uint8_t *p = *pp, *s = p;
  buf b;
  const char *err = NULL;
  int esc = 0;
  while (p < r->end && *p != '"') {
    if (*p == '\\') {
      esc = 1;
      if (++p >= r->end) break;
    }
    p++;
  }
  if (p >= r->end) {
    jq_rd_fail(r, "Unfinished string at EOF", r->end);
    return -1;
  }
  *pp = p + 1;
  if (!esc) {
    const uint8_t *q;
    for (q = s; q < p; q++)
      if (*q < 0x20) break;
    if (q == p) {
      *out = jv_str_utf8(r->R, (const char *)s, (size_t)(p - s));
      return 0;
    }
  }
  buf_init(&b, r->R->m);
  while (s < p && !err) {
    uint32_t cp;
    if (*s < 0x20) {
      err =
          "Invalid string: control characters from U+0000 through U+001F "
          "must be escaped";
      break;
    }
    if (*s != '\\') {
      const uint8_t *q = s;
      while (q < p && *q != '\\' && *q >= 0x20) q++;
      {
        jv t = jv_str_utf8(r->R, (const char *)s, (size_t)(q - s));
        buf_put(&b, jv_sp(t), jv_sl(t));
        jv_unref(r->R, t);
      }
      s = q;
      continue;
    }
    s++;
    switch (*s++) {
    case '"': buf_putc(&b, '"'); break;
    case '\\': buf_putc(&b, '\\'); break;
    case '/': buf_putc(&b, '/'); break;
    case 'b': buf_putc(&b, '\b'); break;
    case 'f': buf_putc(&b, '\f'); break;
    case 'n': buf_putc(&b, '\n'); break;
    case 'r': buf_putc(&b, '\r'); break;
    case 't': buf_putc(&b, '\t'); break;
    case 'u': {
      int i;
      cp = 0;
      if (p - s < 4) {
        err = "Invalid \\uXXXX escape";
        break;
      }
      for (i = 0; i < 4; i++) {
        int c = *s++, v = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (v < 0) err = "Invalid characters in \\uXXXX escape";
        cp = cp * 16 + (uint32_t)(v < 0 ? 0 : v);
      }
      if (err) break;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t lo = 0;
        if (p - s >= 6 && s[0] == '\\' && s[1] == 'u') {
          for (i = 2; i < 6; i++) {
            int c = s[i], v = c >= '0' && c <= '9'   ? c - '0'
                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                     : -1;
            lo = lo * 16 + (uint32_t)(v < 0 ? 0 : v);
          }
        }
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          s += 6;
        } else {
          err = "Invalid \\uXXXX\\uXXXX surrogate pair escape";
          break;
        }
      } else if (cp >= 0xdc00 && cp <= 0xdfff)
        cp = 0xfffd;
      jq_utf8_put(&b, cp);
      break;
    }
    default: err = "Invalid escape"; break;
    }
  }
  if (err) {
    buf_finish(&b);
    jq_rd_fail(r, err, p + 1);
    return -1;
  }
  if (b.err) r->R->oom = 1;
  *out = jv_str(r->R, buf_str(&b), b.len);
  buf_finish(&b);
  return 0;
}

/* Scans a bare literal at *pp; checks it once its delimiter is consumed. */
static int jq_rd_literal(jq_rd *r, const uint8_t **pp, jv *out) {
  const uint8_t *s = *pp, *p = s;
  size_t n;
  while (p < r->end && !jq_isdelim(*p)) p++;
  n = (size_t)(p - s);
  *pp = p;
  if (*s == 't' || *s == 'f' || *s == 'n') {
    if (n == 4 && !memcmp(s, "true", 4))
      *out = jv_bool(1);
    else if (n == 5 && !memcmp(s, "false", 5))
      *out = jv_bool(0);
    else if (n == 4 && !memcmp(s, "null", 4))
      *out = jv_null();
    else if (n == 3 && !memcmp(s, "nan", 3))
      *out = jv_num(NAN);
    else {
      jq_rd_fail(r, p < r->end ? "Invalid literal" : "Invalid literal at EOF",
                 p < r->end ? p + 1 : p);
      return -1;
    }
    return 0;
  }
  if (jq_mknum(r->R, (const char *)s, n, out) < 0) {
    jq_rd_fail(r,
               p < r->end ? "Invalid numeric literal"
                          : "Invalid numeric literal at EOF",
               p < r->end ? p + 1 : p);
    return -1;
  }
  return 0;
}

static void jq_rd_unwind(jq_rd *r, jq_frame *st, int sp) {
  while (sp > 0) {
    sp--;
    jv_unref(r->R, st[sp].c);
    jv_unref(r->R, st[sp].key);
    jv_unref(r->R, st[sp].last);
  }
}

/* ---- --stream events ------------------------------------------------- */

/* The path of the value being read in the top of n frames: each array's
 * next index, each object's pending key (null before it is read). */
static jv jq_rd_path(jq_rd *r, jq_frame *st, int n) {
  jv p = jv_arr(r->R);
  int i;
  for (i = 0; i < n; i++)
    jv_apush(r->R, &p,
             st[i].c.k == JV_ARRAY ? jv_num((double)jv_alen(st[i].c))
                                   : jv_ref(st[i].key));
  return p;
}

/* [path, v] for a leaf (a scalar or an empty container). */
static void jq_rd_leaf(jq_rd *r, jq_frame *st, int sp, jv v) {
  jv ev = jv_arr(r->R);
  jv_apush(r->R, &ev, jq_rd_path(r, st, sp));
  jv_apush(r->R, &ev, jv_ref(v));
  jv_apush(r->R, r->evs, ev);
}

/* The event of the top frame's container closing: [path to its last
 * member], or [path, []] / [path, {}] when it is empty. */
static void jq_rd_close_ev(jq_rd *r, jq_frame *st, int sp) {
  jq_frame *f = &st[sp - 1];
  jv p, ev;
  size_t n = f->c.k == JV_ARRAY ? jv_alen(f->c) : jv_olen(f->c);
  if (!n) {
    jq_rd_leaf(r, st, sp - 1, f->c);
    return;
  }
  p = jq_rd_path(r, st, sp - 1);
  jv_apush(r->R, &p,
           f->c.k == JV_ARRAY ? jv_num((double)n - 1) : jv_ref(f->last));
  ev = jv_arr(r->R);
  jv_apush(r->R, &ev, p);
  jv_apush(r->R, r->evs, ev);
}

/* Places a finished value v into the top frame, or returns it when the
 * stack is empty. */
static int jq_rd_place(jq_rd *r, jq_frame *st, int sp, jv v, const uint8_t *p) {
  jq_frame *f = &st[sp - 1];
  if (r->R->c) (void)cmd_charge_bytes(r->R->c, CMD_COST_JQ_VALUE);
  if (f->c.k == JV_ARRAY) {
    if (f->state == 1) {
      jv_unref(r->R, v);
      jq_rd_fail(r, "Expected separator between values", p);
      return -1;
    }
    jv_apush(r->R, &f->c, v);
    f->state = 1;
    return 0;
  }
  if (f->state == 4) {
    if (r->evs) {
      jv_unref(r->R, f->last);
      f->last = jv_ref(f->key);
    }
    jv_oset(r->R, &f->c, f->key, v);
    f->key = jv_null();
    f->state = 1;
    return 0;
  }
  if (f->state == 0 || f->state == 2) {
    if (v.k != JV_STRING) {
      jv_unref(r->R, v);
      jq_rd_fail(r, "Object keys must be strings", p);
      return -1;
    }
    f->key = v;
    f->state = 3;
    return 0;
  }
  jv_unref(r->R, v);
  jq_rd_fail(r, "Expected separator between values", p);
  return -1;
}

int jq_rd_next(jq_rd *r, jv *out) {
  jq_frame *st = NULL;
  int sp = 0, cap = 0, rc = -1, lit = 0;
  const uint8_t *p = r->p;
  jv v;
  for (;;) {
    int c;
    while (p < r->end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
      p++;
    if (p >= r->end) {
      if (!sp) {
        r->p = p;
        rc = 0;
        goto done;
      }
      jq_rd_fail(r, "Unfinished JSON term at EOF", p);
      goto fail;
    }
    c = *p;
    if (c == '[' || c == '{') {
      if (sp >= JQ_MAX_DEPTH) {
        jq_rd_fail(r, "Exceeds depth limit for parsing", p + 1);
        goto fail;
      }
      if (sp && st[sp - 1].c.k == JV_OBJECT && st[sp - 1].state != 4) {
        jq_rd_fail(r,
                   st[sp - 1].state == 3
                       ? "Objects must consist of key:value pairs"
                       : "Object keys must be strings",
                   p + 1);
        goto fail;
      }
      if (sp && st[sp - 1].c.k == JV_ARRAY && st[sp - 1].state == 1) {
        jq_rd_fail(r, "Expected separator between values", p + 1);
        goto fail;
      }
      if (sp == cap) {
        int nc = cap ? cap * 2 : 16;
        jq_frame *ns = mem_realloc(r->R->m, st, (size_t)nc * sizeof *ns);
        if (!ns) {
          r->R->oom = 1;
          jq_rd_fail(r, "Out of memory", p);
          goto fail;
        }
        st = ns;
        cap = nc;
      }
      st[sp].c = c == '[' ? jv_arr(r->R) : jv_obj(r->R);
      st[sp].key = jv_null();
      st[sp].last = jv_null();
      st[sp].state = 0;
      sp++;
      p++;
      continue;
    }
    if (c == ']' || c == '}') {
      jq_frame *f = sp ? &st[sp - 1] : NULL;
      lit = 0;
      p++;
      if (!f || f->c.k != (c == ']' ? JV_ARRAY : JV_OBJECT)) {
        jq_rd_fail(r, c == ']' ? "Unmatched ']'" : "Unmatched '}'", p);
        goto fail;
      }
      if (f->state == 2) {
        jq_rd_fail(r,
                   c == ']' ? "Expected another array element"
                   : r->evs ? "Expected another key:value pair"
                            : "Expected another key-value pair",
                   p);
        goto fail;
      }
      if (f->state == 3 || f->state == 4) {
        jq_rd_fail(r, "Objects must consist of key:value pairs", p);
        goto fail;
      }
      if (r->evs) jq_rd_close_ev(r, st, sp);
      v = f->c;
      jv_unref(r->R, f->last);
      sp--;
      goto value;
    }
    if (c == ',') {
      jq_frame *f = sp ? &st[sp - 1] : NULL;
      p++;
      if (!f || f->state != 1) {
        jq_rd_fail(r,
                   f && f->state == 3
                       ? "Objects must consist of key:value pairs"
                       : "Expected value before ','",
                   p);
        goto fail;
      }
      f->state = 2;
      continue;
    }
    if (c == ':') {
      jq_frame *f = sp ? &st[sp - 1] : NULL;
      p++;
      if (!f || f->c.k != JV_OBJECT || f->state != 3) {
        jq_rd_fail(r, "Expected string key before ':'", p);
        goto fail;
      }
      f->state = 4;
      continue;
    }
    lit = c != '"';
    if (c == '"') {
      p++;
      if (jq_rd_string(r, &p, &v)) goto fail;
    } else if (jq_rd_literal(r, &p, &v))
      goto fail;
    if (r->evs && lit && sp && p >= r->end) {
      /* jq's streaming parser ends a bare literal at its delimiter */
      jv_unref(r->R, v);
      jq_rd_fail(r, "Unfinished JSON term at EOF", p);
      goto fail;
    }
    /* a leaf's event, unless it is an object's key */
    if (r->evs && (!sp || st[sp - 1].c.k == JV_ARRAY || st[sp - 1].state == 4))
      jq_rd_leaf(r, st, sp, v);
  value:
    if (!sp) {
      *out = v;
      r->p = p;
      rc = 1;
      goto done;
    }
    if (jq_rd_place(r, st, sp, v, lit && p < r->end && c != '"' ? p + 1 : p))
      goto fail;
  }
fail:
  if (r->evs) {
    jv_unref(r->R, r->epath);
    r->epath = jq_rd_path(r, st, sp);
  }
  jq_rd_unwind(r, st, sp);
  r->p = r->end;
  rc = -1;
done:
  mem_free(r->R->m, st);
  return rc;
}

int jq_parse_one(jq_rt *R, const char *s, size_t n, jv *out, buf *err) {
  jq_rd r;
  jv v, w;
  int rc;
  jq_rd_init(&r, R, (const uint8_t *)s, n);
  rc = jq_rd_next(&r, &v);
  if (rc == 1 && jq_rd_next(&r, &w) == 1) {
    jv_unref(R, v);
    jv_unref(R, w);
    buf_printf(err, "Unexpected extra JSON values");
    return -1;
  }
  if (rc == 1 && r.err) {
    jv_unref(R, v);
    rc = -1;
  }
  if (rc < 0) {
    buf_printf(err, "%s at line %zu, column %zu", r.err, r.eline, r.ecol);
    return -1;
  }
  if (rc == 0) {
    *out = jv_invalid();
    return 0;
  }
  *out = v;
  return 0;
}

/* ---- writer ---------------------------------------------------------- */

static void jq_dump_str(buf *b, const char *s, size_t n, int ascii) {
  size_t i = 0, run;
  buf_putc(b, '"');
  while (i < n) {
    uint8_t c = (uint8_t)s[i];
    for (run = i; run < n; run++) {
      uint8_t d = (uint8_t)s[run];
      if (d < 0x20 || d == '"' || d == '\\' || d == 0x7f ||
          (ascii && d >= 0x80))
        break;
    }
    if (run > i) {
      buf_put(b, s + i, run - i);
      i = run;
      continue;
    }
    c = (uint8_t)s[i];
    switch (c) {
    case '"': buf_puts(b, "\\\""); break;
    case '\\': buf_puts(b, "\\\\"); break;
    case '\n': buf_puts(b, "\\n"); break;
    case '\t': buf_puts(b, "\\t"); break;
    case '\r': buf_puts(b, "\\r"); break;
    case '\b': buf_puts(b, "\\b"); break;
    case '\f': buf_puts(b, "\\f"); break;
    default:
      if (c < 0x80) {
        buf_printf(b, "\\u%04x", c);
      } else {
        uint32_t cp;
        i += jq_utf8_next((const uint8_t *)s + i, n - i, &cp);
        if (cp >= 0x10000) {
          cp -= 0x10000;
          buf_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                     0xdc00 + (cp & 0x3ff));
        } else
          buf_printf(b, "\\u%04x", cp);
        continue;
      }
    }
    i++;
  }
  buf_putc(b, '"');
}

static void jq_dump_nl(buf *b, const jq_fmt *f, int level) {
  int i;
  buf_putc(b, '\n');
  if (f->tab)
    for (i = 0; i < level; i++) buf_putc(b, '\t');
  else
    for (i = 0; i < level * f->indent; i++) buf_putc(b, ' ');
}

void jv_dump(jq_rt *R, buf *b, jv v, const jq_fmt *f, int level) {
  int pretty = f->indent || f->tab;
  size_t i, n;
  if (R->c) (void)cmd_charge_bytes(R->c, CMD_COST_JQ_VALUE);
  switch (v.k) {
  case JV_NULL: buf_puts(b, "null"); break;
  case JV_FALSE: buf_puts(b, "false"); break;
  case JV_TRUE: buf_puts(b, "true"); break;
  case JV_NUMBER: jv_numfmt(b, v); break;
  case JV_STRING: jq_dump_str(b, jv_sp(v), jv_sl(v), f->ascii); break;
  case JV_ARRAY:
    n = jv_alen(v);
    buf_putc(b, '[');
    for (i = 0; i < n && !b->err; i++) {
      if (i) buf_putc(b, ',');
      if (pretty) jq_dump_nl(b, f, level + 1);
      jv_dump(R, b, jv_aget(v, i), f, level + 1);
    }
    if (n && pretty) jq_dump_nl(b, f, level);
    buf_putc(b, ']');
    break;
  case JV_OBJECT: {
    jv keys = jv_null();
    jq_ent *e;
    size_t it = 0;
    n = jv_olen(v);
    buf_putc(b, '{');
    if (f->sort) keys = jv_keys(R, v);
    for (i = 0; i < n && !b->err && !R->oom; i++) {
      jv k, val;
      if (f->sort) {
        k = jv_aget(keys, i);
        val = *jv_oget(v, jv_sp(k), jv_sl(k));
      } else {
        e = jv_onext(v, &it);
        k = e->key;
        val = e->val;
      }
      if (i) buf_putc(b, ',');
      if (pretty) jq_dump_nl(b, f, level + 1);
      jq_dump_str(b, jv_sp(k), jv_sl(k), f->ascii);
      buf_puts(b, pretty ? ": " : ":");
      jv_dump(R, b, val, f, level + 1);
    }
    jv_unref(R, keys);
    if (n && pretty) jq_dump_nl(b, f, level);
    buf_putc(b, '}');
    break;
  }
  default: buf_puts(b, "<invalid>"); break;
  }
}

jv jv_tojson(jq_rt *R, jv v) {
  buf b;
  jq_fmt f = {0, 0, 0, 0};
  jv r;
  buf_init(&b, R->m);
  jv_dump(R, &b, v, &f, 0);
  if (b.err) R->oom = 1;
  r = jv_str(R, buf_str(&b), b.len);
  buf_finish(&b);
  return r;
}

void jv_dump_trunc(jq_rt *R, buf *b, jv v, size_t n) {
  buf t;
  jq_fmt f = {0, 0, 0, 0};
  buf_init(&t, R->m);
  jv_dump(R, &t, v, &f, 0);
  if (t.len > n - 1) {
    buf_put(b, t.p, n - 4);
    buf_puts(b, "...");
  } else
    buf_put(b, buf_str(&t), t.len);
  buf_finish(&t);
}
