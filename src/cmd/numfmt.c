/* numfmt.c - convert numbers from/to human-readable strings (GNU
 * coreutils 9).
 *
 * Numbers come from the operands, or from stdin a line at a time (the
 * fields --field picks, split on blanks or -d). --from reads suffixes
 * (si: K = 1000, iec: K = 1024, iec-i: Ki = 1024, auto: either), --to
 * writes them: below 10 with one decimal, rounded as --round says (away
 * from zero by default), else whole. --suffix, --padding, --header,
 * --format (%[-0][width][.prec]f with text around it) and -z as GNU.
 * An invalid number stops the run with status 2, as --invalid=abort.
 *
 * Deviation: --from-unit, --to-unit, --grouping and --invalid other than
 * abort are refused by name.
 *
 * Usage: numfmt [OPTION]... [NUMBER]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char numfmt_usage[] MSB_COLD =
    "Usage: numfmt [OPTION]... [NUMBER]...\n"
    "Reformat NUMBER(s), or the numbers from standard input if none are "
    "specified.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -d, --delimiter=X    use X instead of whitespace for field "
    "delimiter\n"
    "      --field=FIELDS   replace the numbers in these input fields "
    "(default=1);\n"
    "      --format=FORMAT  use printf style floating-point FORMAT;\n"
    "      --from=UNIT      auto-scale input numbers to UNITs; default is "
    "'none';\n"
    "      --header[=N]     print (without converting) the first N header "
    "lines;\n"
    "      --padding=N      pad the output to N characters; positive N will\n"
    "                         right-align; negative N will left-align;\n"
    "      --round=METHOD   use METHOD for rounding when scaling; METHOD can "
    "be:\n"
    "                         up, down, from-zero (default), towards-zero, "
    "nearest\n"
    "      --suffix=SUFFIX  add SUFFIX to output numbers, and accept "
    "optional\n"
    "                         SUFFIX in input numbers\n"
    "      --to=UNIT        auto-scale output numbers to UNITs; see UNIT "
    "below\n"
    "  -z, --zero-terminated    line delimiter is NUL, not newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum {
  NF_FROM = 256,
  NF_TO,
  NF_SUFFIX,
  NF_PADDING,
  NF_FORMAT,
  NF_FIELD,
  NF_HEADER,
  NF_ROUND,
  NF_INVALID,
  NF_UNSUP
};

static const cmd_opt numfmt_opts[] = {
    {'d', "delimiter", CMD_ARG_REQ, 'd'},
    {0, "field", CMD_ARG_REQ, NF_FIELD},
    {0, "format", CMD_ARG_REQ, NF_FORMAT},
    {0, "from", CMD_ARG_REQ, NF_FROM},
    {0, "from-unit", CMD_ARG_REQ, NF_UNSUP},
    {0, "grouping", CMD_ARG_NONE, NF_UNSUP},
    {0, "header", CMD_ARG_OPT, NF_HEADER},
    {0, "invalid", CMD_ARG_REQ, NF_INVALID},
    {0, "padding", CMD_ARG_REQ, NF_PADDING},
    {0, "round", CMD_ARG_REQ, NF_ROUND},
    {0, "suffix", CMD_ARG_REQ, NF_SUFFIX},
    {0, "to", CMD_ARG_REQ, NF_TO},
    {0, "to-unit", CMD_ARG_REQ, NF_UNSUP},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

/* Units, in the order of numfmt_units. */
enum { NF_NONE, NF_SI, NF_IEC, NF_IECI, NF_AUTO };
static const char *const numfmt_units[] = {"none",  "si",   "iec",
                                           "iec-i", "auto", 0};
/* Rounding methods, in the order of numfmt_rounds. */
enum { NF_UP, NF_DOWN, NF_FROMZERO, NF_TOWARDS, NF_NEAREST };
static const char *const numfmt_rounds[] = {
    "up", "down", "from-zero", "towards-zero", "nearest", 0};

typedef struct numfmt_st {
  cmd_ctx *c;
  int from, to, round, padding, delim, zero;
  const char *suffix;
  const char *fields;           /* --field list, NULL for 1 */
  const char *fpre, *fpost;     /* --format text around the directive */
  size_t fprel;
  int fwidth, fprec, fleft, fzero; /* fprec -1 when not given */
} numfmt_st;

static long double numfmt_round(long double x, int how) {
  switch (how) {
  case NF_UP: return ceill(x);
  case NF_DOWN: return floorl(x);
  case NF_TOWARDS: return x < 0 ? ceill(x) : floorl(x);
  case NF_NEAREST: return x < 0 ? -floorl(-x + 0.5L) : floorl(x + 0.5L);
  default: return x < 0 ? floorl(x) : ceill(x);
  }
}

/* Parses one number; 0, or 1 after the message (status 2). */
static int numfmt_parse(numfmt_st *s, const char *t, size_t n, long double *out,
                        int *prec) {
  static const char letters[] = "KMGTPEZY";
  char *text = arena_strndup(s->c->a, t, n), *end, *num;
  const char *q, *hit;
  size_t sl = s->suffix ? strlen(s->suffix) : 0;
  long double v;
  int base = 1000, power = 0;
  if (!text) return -1;
  if (sl && n >= sl && !strcmp(text + n - sl, s->suffix)) text[n - sl] = 0;
  q = text;
  while (*q == ' ' || *q == '\t') q++;
  /* [-]digits[.digits], then at most a unit suffix */
  end = (char *)q + (*q == '-' || *q == '+');
  while (*end >= '0' && *end <= '9') end++;
  if (*end == '.')
    for (end++; *end >= '0' && *end <= '9'; end++) {
    }
  if (end == q || !(num = arena_strndup(s->c->a, q, (size_t)(end - q))) ||
      (end[-1] < '0' && end[-1] != '.') || (*q == '.' && end == q + 1)) {
    cmd_err(s->c, "invalid number: %s", cmd_quote(s->c, text));
    return 1;
  }
  v = strtold(num, NULL);
  *prec = 0;
  if ((hit = strchr(q, '.')) && hit < end) *prec = (int)(end - hit - 1);
  if (*end) {
    if (!(hit = strchr(letters, *end)) && *end != 'k') {
      cmd_err(s->c, "invalid suffix in input: %s", cmd_quote(s->c, text));
      return 1;
    }
    if (s->from == NF_NONE) {
      cmd_err(s->c, "rejecting suffix in input: %s (consider using --from)",
              cmd_quote(s->c, text));
      return 1;
    }
    power = hit ? (int)(hit - letters) + 1 : 1;
    if (end[1] == 'i' && (s->from == NF_AUTO || s->from == NF_IECI)) {
      base = 1024;
      end++;
    } else if (s->from == NF_IECI) {
      cmd_err(s->c, "missing 'i' suffix in input: %s (e.g Ki/Mi/Gi)",
              cmd_quote(s->c, text));
      return 1;
    } else if (s->from == NF_IEC) {
      base = 1024;
    }
    if (end[1]) {
      cmd_err(s->c, "invalid suffix in input: %s", cmd_quote(s->c, text));
      return 1;
    }
    while (power-- > 0) v *= base;
    *prec = -1; /* scaled: printed whole */
  }
  *out = v;
  return 0;
}

/* The number as --to and --format say, into o. */
static void numfmt_format(numfmt_st *s, long double v, int prec, int fieldw,
                          buf *o) {
  static const char letters[] = "KMGTPEZY";
  char num[128], tmp[160];
  int power = 0, base = s->to == NF_SI ? 1000 : 1024, width;
  if (s->to == NF_NONE) {
    if (s->fprec >= 0) prec = s->fprec;
    if (prec < 0) prec = 0;
    if (s->fprec >= 0 || prec == 0) {
      long double sc = powl(10, prec);
      v = numfmt_round(v * sc, s->round) / sc;
    }
    snprintf(num, sizeof num, "%.*Lf", prec, v);
  } else {
    long double a = fabsl(v);
    int p = s->fprec >= 0 ? s->fprec : 1;
    while (a >= base && power < 8) a /= base, power++;
    for (;;) {
      long double sc = powl(10, power && (a < 10 || s->fprec >= 0) ? p : 0);
      long double r = numfmt_round(v < 0 ? -a * sc : a * sc, s->round) / sc;
      if (fabsl(r) >= base && power < 8) {
        a /= base;
        power++;
        continue;
      }
      snprintf(num, sizeof num, "%.*Lf",
               power && (fabsl(r) < 10 || s->fprec >= 0) ? p : 0, r);
      break;
    }
    if (power) {
      size_t l = strlen(num);
      num[l++] = letters[power - 1];
      if (s->to == NF_IECI) num[l++] = 'i';
      num[l] = 0;
    }
  }
  snprintf(tmp, sizeof tmp, "%s%s", num, s->suffix ? s->suffix : "");
  width = s->fwidth    ? s->fwidth
          : s->padding ? (s->padding < 0 ? -s->padding : s->padding)
                       : fieldw;
  if (s->fpre) buf_put(o, s->fpre, s->fprel);
  if ((int)strlen(tmp) < width && !(s->fleft || s->padding < 0)) {
    int pad = width - (int)strlen(tmp), neg = tmp[0] == '-';
    if (s->fzero && neg) buf_putc(o, '-');
    while (pad-- > 0) buf_putc(o, s->fzero ? '0' : ' ');
    buf_puts(o, tmp + (s->fzero && neg));
  } else {
    int pad = width - (int)strlen(tmp);
    buf_puts(o, tmp);
    while (pad-- > 0) buf_putc(o, ' ');
  }
  if (s->fpost) buf_puts(o, s->fpost);
}

/* Whether field number f (1-based) is selected. */
static int numfmt_field_on(const numfmt_st *s, int f) {
  const char *p = s->fields;
  if (!p) return f == 1;
  while (*p) {
    long a = 1, b;
    char *e;
    if (*p == '-') {
      b = strtol(p + 1, &e, 10);
      if (e == p + 1) b = 1L << 30;
    } else {
      a = strtol(p, &e, 10);
      b = a;
      if (*e == '-') {
        const char *q = e + 1;
        b = strtol(q, &e, 10);
        if (e == q) b = 1L << 30;
      }
    }
    if (f >= a && f <= b) return 1;
    p = *e == ',' ? e + 1 : e;
    if (e == p && *p) p++;
  }
  return 0;
}

/* Converts one line's selected fields into o; 0 or 1 (invalid). */
static int numfmt_line(numfmt_st *s, const char *t, size_t n, int align,
                       buf *o) {
  size_t i = 0;
  int f = 0;
  while (i < n) {
    size_t st = i, ws = i;
    long double v;
    int prec;
    f++;
    if (s->delim) {
      while (i < n && t[i] != s->delim) i++;
    } else {
      while (i < n && (t[i] == ' ' || t[i] == '\t')) i++;
      ws = i;
      while (i < n && t[i] != ' ' && t[i] != '\t') i++;
    }
    if (!numfmt_field_on(s, f)) {
      buf_put(o, t + st, i - st);
    } else {
      /* a field after blanks keeps its width, blanks included */
      if (numfmt_parse(s, t + ws, i - ws, &v, &prec)) return 1;
      numfmt_format(s, v, prec,
                    s->delim || !align || ws == st ? 0 : (int)(i - st), o);
    }
    if (s->delim && i < n) buf_putc(o, t[i++]);
  }
  return 0;
}

/* --format: text, one %f directive with flags, width and precision. */
static int numfmt_parse_format(cmd_getopt *g, numfmt_st *s, const char *f) {
  const char *p = strchr(f, '%');
  while (p && p[1] == '%') p = strchr(p + 2, '%');
  s->fprec = -1;
  if (!p)
    return cmd_usage_err(g, "format %s has no %% directive",
                         cmd_quote(g->c, f));
  s->fpre = f;
  s->fprel = (size_t)(p - f);
  for (p++; *p == '-' || *p == '0' || *p == '\''; p++) {
    if (*p == '-') s->fleft = 1;
    if (*p == '0') s->fzero = 1;
  }
  while (*p >= '0' && *p <= '9') s->fwidth = s->fwidth * 10 + *p++ - '0';
  if (*p == '.') {
    s->fprec = 0;
    for (p++; *p >= '0' && *p <= '9'; p++) s->fprec = s->fprec * 10 + *p - '0';
  }
  if (*p != 'f') {
    cmd_err(g->c, "invalid format %s, directive must be %%[0]['][-][N][.][N]f",
            cmd_quote(g->c, f));
    return 1;
  }
  s->fpost = p + 1;
  return 0;
}

/* Index of arg in list, or a usage error. */
static int numfmt_pick(cmd_getopt *g, const char *const *list, const char *what,
                       const char *arg, int *out) {
  int i;
  for (i = 0; list[i]; i++)
    if (!strcmp(list[i], arg)) {
      *out = i;
      return 0;
    }
  cmd_err(g->c, "invalid argument %s for %s", cmd_quote(g->c, arg), what);
  buf_puts(g->c->err, "Valid arguments are:\n");
  for (i = 0; list[i]; i++)
    if (!(list == numfmt_units && i == NF_AUTO && what[3] == 't'))
      buf_printf(g->c->err, "  - '%s'\n", list[i]);
  buf_printf(g->c->err, "Try '%s --help' for more information.\n",
             cmd_name(g->c));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_numfmt(cmd_ctx *c) {
  cmd_getopt g;
  numfmt_st s;
  int k, i, rc = 0, header = 0;
  buf o;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.round = NF_FROMZERO;
  s.fprec = -1;
  cmd_opt_init(&g, c, numfmt_opts, numfmt_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    int64_t v;
    if (k == NF_FROM &&
        numfmt_pick(&g, numfmt_units, "'--from'", g.arg, &s.from))
      return 1;
    if (k == NF_TO && (numfmt_pick(&g, numfmt_units, "'--to'", g.arg, &s.to) ||
                       s.to == NF_AUTO))
      return s.to == NF_AUTO ? (cmd_err(c, "invalid argument %s for '--to'",
                                        cmd_quote(c, g.arg)),
                                1)
                             : 1;
    if (k == NF_ROUND &&
        numfmt_pick(&g, numfmt_rounds, "'--round'", g.arg, &s.round))
      return 1;
    if (k == NF_SUFFIX) s.suffix = g.arg;
    if (k == NF_FIELD) s.fields = g.arg;
    if (k == NF_FORMAT && numfmt_parse_format(&g, &s, g.arg)) return 1;
    if (k == 'd') s.delim = g.arg[0];
    if (k == 'z') s.zero = 1;
    if (k == NF_PADDING) {
      if (cmd_parse_int(g.arg, &v) || !v || v > 1000000 || v < -1000000) {
        cmd_err(c, "invalid padding value %s", cmd_quote(c, g.arg));
        return 1;
      }
      s.padding = (int)v;
    }
    if (k == NF_HEADER) {
      header = 1;
      if (g.arg && (cmd_parse_int(g.arg, &v) || v < 1)) {
        cmd_err(c, "invalid header value %s", cmd_quote(c, g.arg));
        return 1;
      }
      if (g.arg) header = (int)v;
    }
    if (k == NF_INVALID && strcmp(g.arg, "abort")) {
      cmd_err(c, "--invalid=%s is not supported in memsandbox", g.arg);
      return 1;
    }
    if (k == NF_UNSUP) {
      cmd_err(c, "--%s is not supported in memsandbox", g.optname);
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  buf_init(&o, c->m);
  if (g.nops) {
    for (i = 0; i < g.nops && !rc; i++) {
      buf_clear(&o);
      rc = numfmt_line(&s, g.ops[i], strlen(g.ops[i]), 0, &o);
      if (!rc) buf_putc(&o, s.zero ? 0 : '\n');
      if (!rc || o.len) cmd_write(c, o.p, rc ? 0 : o.len);
    }
  } else {
    const uint8_t *d, *rec;
    size_t len, rl;
    int term;
    cmd_lines ls;
    if ((rc = cmd_input(c, "-", &d, &len))) {
      buf_finish(&o);
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "%s", cmd_strerror(rc));
      return 2;
    }
    cmd_lines_init(&ls, d, len, s.zero ? 0 : '\n');
    while (!rc && cmd_lines_next(&ls, &rec, &rl, &term)) {
      buf_clear(&o);
      if (header > 0) {
        header--;
        buf_put(&o, rec, rl);
      } else {
        rc = numfmt_line(&s, (const char *)rec, rl, 1, &o);
      }
      if (!rc) {
        buf_putc(&o, s.zero ? 0 : '\n');
        cmd_write(c, o.p, o.len);
      }
    }
  }
  buf_finish(&o);
  return rc ? 2 : 0;
}
