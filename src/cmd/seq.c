/* seq.c - print a sequence of numbers (GNU coreutils 9).
 *
 * Usage: seq [OPTION]... LAST | FIRST LAST | FIRST INCREMENT LAST
 *   -f, --format=FORMAT      use printf style floating-point FORMAT
 *   -s, --separator=STRING   use STRING to separate numbers (default \n)
 *   -w, --equal-width        equalize width by padding with leading zeroes
 * Integer operands use exact 64-bit arithmetic; others use double (GNU uses
 * long double; results agree for the decimal inputs agents write). The
 * precision is the larger of FIRST's and INCREMENT's fraction digits, as in
 * GNU. Values are FIRST + i * INCREMENT, never accumulated, so no drift. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char seq_usage[] MSB_COLD =
    "Usage: seq [OPTION]... LAST\n"
    "  or:  seq [OPTION]... FIRST LAST\n"
    "  or:  seq [OPTION]... FIRST INCREMENT LAST\n"
    "Print numbers from FIRST to LAST, in steps of INCREMENT.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -f, --format=FORMAT      use printf style floating-point FORMAT\n"
    "  -s, --separator=STRING   use STRING to separate numbers (default: "
    "\\n)\n"
    "  -w, --equal-width        equalize width by padding with leading "
    "zeroes\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt seq_opts[] = {{'f', "format", CMD_ARG_REQ, 'f'},
                                   {'s', "separator", CMD_ARG_REQ, 's'},
                                   {'w', "equal-width", CMD_ARG_NONE, 'w'},
                                   {0, 0, 0, 0}};

typedef struct seq_num {
  double v;
  int64_t i;   /* exact value when is_int */
  int is_int;  /* plain decimal integer that fits in 64 bits */
  int prec;    /* digits after the point (minus the exponent) */
} seq_num;

/* Parses an operand like GNU's strtold-based check; 0 on success. */
static int seq_parse(const char *s, seq_num *n) {
  char *end;
  const char *dot, *e;
  if (!*s || strchr(" \t\n", *s)) return -1;
  n->v = strtod(s, &end);
  if (*end || isnan(n->v)) return -1;
  n->is_int = !cmd_parse_int(s[0] == '+' ? s + 1 : s, &n->i) && s[1] != '+';
  dot = strchr(s, '.');
  e = strpbrk(s, "eE");
  n->prec = 0;
  if (dot) n->prec = (int)((e ? e : s + strlen(s)) - dot - 1);
  if (e) {
    long ex = strtol(e + 1, NULL, 10);
    n->prec = n->prec - ex > 0 ? (int)(n->prec - ex) : 0;
  }
  if (strpbrk(s, "xXiInN")) n->prec = 0;
  return 0;
}

/* Validates a user format: exactly one floating directive. */
static int seq_check_format(cmd_getopt *g, const char *f) {
  const char *p;
  int count = 0;
  for (p = f; *p; p++) {
    if (*p != '%') continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    p++;
    p += strspn(p, "-+ #0'");
    p += strspn(p, "0123456789");
    if (*p == '.') p += 1 + strspn(p + 1, "0123456789");
    if (!*p || !strchr("aAeEfFgG", *p)) {
      cmd_err(g->c, "format %s has unknown %%%c directive", cmd_quote(g->c, f),
              *p ? *p : '%');
      return 1;
    }
    count++;
  }
  if (count == 1) return 0;
  cmd_err(g->c, "format %s has %s %% directive%s", cmd_quote(g->c, f),
          count ? "too many" : "no", count ? "s" : "");
  return 1;
}

static int seq_emit(cmd_ctx *c, const char *sep, int first, const char *s,
                    size_t n) {
  int rc;
  if (!first && (rc = cmd_puts(c, sep)) < 0) return rc;
  return cmd_write(c, s, n);
}

/* Integer fast path: exact, no formatting surprises. */
static int seq_ints(cmd_ctx *c, int64_t a, int64_t step, int64_t b,
                    const char *sep, int width) {
  char s[32];
  int64_t x = a;
  int first = 1, rc, n;
  uint64_t count = 0;
  while (step > 0 ? x <= b : x >= b) {
    n = width ? snprintf(s, sizeof s, "%0*lld", width, (long long)x)
              : snprintf(s, sizeof s, "%lld", (long long)x);
    if ((rc = seq_emit(c, sep, first, s, (size_t)n)) < 0) return rc;
    first = 0;
    if ((++count & 1023) == 0 && (rc = cmd_tick_pause(c, 1)) < 0) return rc;
    if (step > 0 ? x > INT64_MAX - step : x < INT64_MIN - step) break;
    x += step;
  }
  return first ? 0 : cmd_write(c, "\n", 1);
}

static int seq_floats(cmd_ctx *c, const seq_num *a, const seq_num *st,
                      const seq_num *b, const char *fmt, const char *sep,
                      int equal) {
  char dfmt[32], s[512];
  int prec = a->prec > st->prec ? a->prec : st->prec, first = 1, rc, n;
  int width = 0;
  uint64_t i;
  if (!fmt) {
    if (equal) {
      int wa = snprintf(s, sizeof s, "%.*f", prec, a->v);
      int wb = snprintf(s, sizeof s, "%.*f", prec, b->v);
      width = wa > wb ? wa : wb;
    }
    snprintf(dfmt, sizeof dfmt, "%%0%d.%df", width, prec);
    fmt = dfmt;
  }
  for (i = 0;; i++) {
    double x = a->v + (double)i * st->v;
    int past = st->v > 0 ? x > b->v : x < b->v;
    n = snprintf(s, sizeof s, fmt, x);
    if (n < 0) return MSB_EINVAL;
    if ((size_t)n >= sizeof s) n = (int)sizeof s - 1;
    if (past) {
      /* Like GNU: a value just past LAST that prints as LAST (rounding
       * error) and differs from the previous output is still printed. */
      char l[512], prev[512];
      snprintf(l, sizeof l, fmt, b->v);
      snprintf(prev, sizeof prev, fmt, x - st->v);
      if (i == 0 || strcmp(s, l) || !strcmp(s, prev)) break;
    }
    if ((rc = seq_emit(c, sep, first, s, (size_t)n)) < 0) return rc;
    first = 0;
    if (past) break;
    if (((i + 1) & 1023) == 0 && (rc = cmd_tick_pause(c, 1)) < 0) return rc;
  }
  return first ? 0 : cmd_write(c, "\n", 1);
}

/* seq: print FIRST, FIRST+INCREMENT, ... up to LAST. */
int cmd_seq(cmd_ctx *c) {
  cmd_getopt g;
  const char *fmt = NULL, *sep = "\n";
  int k, equal = 0, i;
  seq_num v[3], one = {1, 1, 1, 0};
  seq_num *a = &one, *st = &one, *b;
  /* Like GNU, options end at the first operand, and "-3" is an operand. */
  cmd_opt_init(&g, c, seq_opts, seq_usage,
               CMD_OPTF_NUMERIC | CMD_OPTF_NOPERMUTE);
  while ((k = cmd_opt_next(&g)) != CMD_OPT_END) {
    if (k == CMD_OPT_NUM) {
      g.ops = c->argv + g.ind - 1;
      g.nops = c->argc - g.ind + 1;
      break;
    }
    if (k == CMD_OPT_EXIT) return 0;
    if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
    if (k == 'f') fmt = g.arg;
    if (k == 's') sep = g.arg;
    if (k == 'w') equal = 1;
  }
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (g.nops > 3)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[3]));
  for (i = 0; i < g.nops; i++)
    if (seq_parse(g.ops[i], &v[i]))
      return cmd_usage_err(&g, "invalid floating point argument: %s",
                           cmd_quote(c, g.ops[i]));
  b = &v[g.nops - 1];
  if (g.nops >= 2) a = &v[0];
  if (g.nops == 3) {
    st = &v[1];
    if (st->v == 0)
      return cmd_usage_err(&g, "invalid Zero increment value: %s",
                           cmd_quote(c, g.ops[1]));
  }
  if (fmt && equal) {
    cmd_err(c,
            "format string may not be specified when printing equal "
            "width strings");
    buf_puts(c->err, "Try 'seq --help' for more information.\n");
    return 1;
  }
  if (fmt && seq_check_format(&g, fmt)) return 1;
  if (!fmt && a->is_int && st->is_int && b->is_int && st->i != 0) {
    int width = 0;
    if (equal) {
      char s[32];
      int wa = snprintf(s, sizeof s, "%lld", (long long)a->i);
      int wb = snprintf(s, sizeof s, "%lld", (long long)b->i);
      width = wa > wb ? wa : wb;
    }
    return seq_ints(c, a->i, st->i, b->i, sep, width);
  }
  return seq_floats(c, a, st, b, fmt, sep, equal);
}
