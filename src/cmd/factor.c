/* factor.c - print the prime factors of each NUMBER (GNU coreutils 9).
 *
 * Numbers up to 2^128 - 1, as GNU factor without GMP: trial division by
 * small primes, then Miller-Rabin and Pollard's rho (Brent's variant) on
 * what remains. Rho's iterations are charged to the step budget, so a
 * product of two huge primes ends on max_steps rather than running on.
 * With no operands the numbers are read from stdin, separated by blanks.
 *
 * Deviation: numbers of 2^128 and more (GNU factor with GMP takes them)
 * are refused by name.
 *
 * Usage: factor [NUMBER]... */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char factor_usage[] MSB_COLD =
    "Usage: factor [NUMBER]...\n"
    "  or:  factor OPTION\n"
    "Print the prime factors of each specified integer NUMBER.  If none\n"
    "are specified on the command line, read them from standard input.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt factor_opts[] = {{0, 0, 0, 0}};

typedef unsigned __int128 factor_u128;

/* a / b and a % b. 128-bit division is done here, by shifts, rather than
 * by the compiler's runtime (the wasm build has none it can link); the
 * common 64-bit case uses the native instructions. */
static factor_u128 factor_divmod(factor_u128 a, factor_u128 b,
                                 factor_u128 *rem) {
  factor_u128 q = 0, r = 0;
  int i;
  if (!(a >> 64) && !(b >> 64)) {
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    if (rem) *rem = x % y;
    return x / y;
  }
  for (i = 127; i >= 0; i--) {
    r = r << 1 | ((a >> i) & 1);
    if (r >= b) {
      r -= b;
      q |= (factor_u128)1 << i;
    }
  }
  if (rem) *rem = r;
  return q;
}

static factor_u128 factor_mod(factor_u128 a, factor_u128 m) {
  factor_u128 r;
  factor_divmod(a, m, &r);
  return r;
}

/* Factors found so far (at most 128 for a 128-bit number). */
typedef struct factor_list {
  factor_u128 f[130];
  int n;
} factor_list;

static factor_u128 factor_mulmod(factor_u128 a, factor_u128 b, factor_u128 m) {
  factor_u128 r = 0;
  if (m >> 64 == 0) return factor_mod(factor_mod(a, m) * factor_mod(b, m), m);
  a = factor_mod(a, m);
  while (b) { /* double and add: a 128-bit product would overflow */
    if (b & 1) r = r >= m - a ? r - (m - a) : r + a;
    a = a >= m - a ? a - (m - a) : a + a;
    b >>= 1;
  }
  return r;
}

static factor_u128 factor_powmod(factor_u128 b, factor_u128 e, factor_u128 m) {
  factor_u128 r = 1;
  b = factor_mod(b, m);
  for (; e; e >>= 1) {
    if (e & 1) r = factor_mulmod(r, b, m);
    b = factor_mulmod(b, b, m);
  }
  return r;
}

/* Miller-Rabin with the first 12 primes as bases: exact below 3.3e24,
 * and a false "prime" above that needs an adversarial number. */
static int factor_is_prime(factor_u128 n) {
  static const unsigned bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  factor_u128 d = n - 1;
  int s = 0, i, r;
  if (n < 2) return 0;
  for (i = 0; i < 12; i++)
    if (factor_mod(n, bases[i]) == 0) return n == bases[i];
  while (!(d & 1)) d >>= 1, s++;
  for (i = 0; i < 12; i++) {
    factor_u128 x = factor_powmod(bases[i], d, n);
    if (x == 1 || x == n - 1) continue;
    for (r = 1; r < s; r++) {
      x = factor_mulmod(x, x, n);
      if (x == n - 1) break;
    }
    if (r == s) return 0;
  }
  return 1;
}

static factor_u128 factor_gcd(factor_u128 a, factor_u128 b) {
  while (b) {
    factor_u128 t = factor_mod(a, b);
    a = b;
    b = t;
  }
  return a;
}

/* x * x + cst modulo n (x < n). */
static factor_u128 factor_step(factor_u128 x, factor_u128 cst, factor_u128 n) {
  factor_u128 y = factor_mulmod(x, x, n);
  return y >= n - cst ? y - (n - cst) : y + cst;
}

/* A non-trivial factor of the composite n (Brent's rho), or 0 when the
 * step budget ran out (*rc set). */
static factor_u128 factor_rho(cmd_ctx *c, factor_u128 n, int *rc) {
  factor_u128 cst;
  for (cst = 1;; cst++) {
    factor_u128 y = 2, x, g = 1, q = 1, ys = 2;
    unsigned long r = 1, k, i;
    do {
      x = y;
      for (i = 0; i < r; i++) y = factor_step(y, cst, n);
      for (k = 0; k < r && g == 1; k += 64) {
        ys = y;
        for (i = 0; i < 64 && i < r - k; i++) {
          y = factor_step(y, cst, n);
          q = factor_mulmod(q, x > y ? x - y : y - x, n);
        }
        g = factor_gcd(q, n);
        if ((*rc = cmd_tick(c, 1))) return 0;
      }
      r *= 2;
    } while (g == 1);
    if (g == n) {
      do { /* the batch overshot: step back one at a time */
        ys = factor_step(ys, cst, n);
        g = factor_gcd(x > ys ? x - ys : ys - x, n);
      } while (g == 1);
    }
    if (g != n) return g;
  }
}

/* Appends n's prime factors (unsorted). */
static int factor_split(cmd_ctx *c, factor_u128 n, factor_list *l) {
  factor_u128 d;
  int rc = 0;
  if (n == 1) return 0;
  if (factor_is_prime(n)) {
    l->f[l->n++] = n;
    return 0;
  }
  if (!(d = factor_rho(c, n, &rc))) return rc;
  if ((rc = factor_split(c, d, l))) return rc;
  return factor_split(c, factor_divmod(n, d, NULL), l);
}

static int factor_cmp(const void *a, const void *b) {
  factor_u128 x = *(const factor_u128 *)a, y = *(const factor_u128 *)b;
  return x < y ? -1 : x > y;
}

static void factor_put(buf *o, factor_u128 v) {
  char tmp[48];
  int i = sizeof tmp;
  tmp[--i] = 0;
  do {
    factor_u128 r;
    v = factor_divmod(v, 10, &r);
    tmp[--i] = (char)('0' + (int)r);
  } while (v);
  buf_puts(o, tmp + i);
}

/* Factors one NUMBER word; 0, 1 (reported) or a negative code. */
static int factor_one(cmd_ctx *c, const char *s, size_t len) {
  factor_u128 n = 0, p;
  factor_list l;
  size_t i = 0;
  int k, rc;
  while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) i++;
  if (i < len && s[i] == '+') i++;
  if (i == len) goto invalid;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') goto invalid;
    if (n > factor_divmod(~(factor_u128)0 - (unsigned)(s[i] - '0'), 10, NULL)) {
      cmd_err(c, "%s is too large", cmd_quote(c, arena_strndup(c->a, s, len)));
      return 1;
    }
    n = n * 10 + (unsigned)(s[i] - '0');
  }
  factor_put(c->out, n);
  buf_putc(c->out, ':');
  l.n = 0;
  for (p = 2; p < 1000 && p * p <= n; p++) {
    factor_u128 q, r;
    while ((q = factor_divmod(n, p, &r)), r == 0) {
      l.f[l.n++] = p;
      n = q;
    }
  }
  if (n > 1 && (rc = factor_split(c, n, &l))) return rc;
  qsort(l.f, (size_t)l.n, sizeof *l.f, factor_cmp);
  for (k = 0; k < l.n; k++) {
    buf_putc(c->out, ' ');
    factor_put(c->out, l.f[k]);
  }
  return buf_putc(c->out, '\n') ? MSB_ENOMEM : 0;
invalid:
  cmd_err(c, "%s is not a valid positive integer",
          cmd_quote(c, arena_strndup(c->a, s, len)));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_factor(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, rc, status = 0;
  cmd_opt_init(&g, c, factor_opts, factor_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  for (i = 0; i < g.nops; i++) {
    if ((rc = factor_one(c, g.ops[i], strlen(g.ops[i]))) < 0) return rc;
    status |= rc;
  }
  if (!g.nops) {
    const uint8_t *d;
    size_t len, at = 0;
    if ((rc = cmd_input(c, "-", &d, &len))) {
      cmd_err(c, "%s", cmd_strerror(rc));
      return 1;
    }
    while (at < len) {
      size_t st;
      while (at < len && strchr(" \t\n", d[at])) at++;
      st = at;
      while (at < len && !strchr(" \t\n", d[at])) at++;
      if (at == st) break;
      if ((rc = factor_one(c, (const char *)d + st, at - st)) < 0) return rc;
      status |= rc;
    }
  }
  return status;
}
