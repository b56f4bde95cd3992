/* fmt.c - simple optimal text formatter (GNU coreutils 9).
 *
 * A paragraph is a run of non-blank lines with the first line's
 * indentation (-c and -t relax that for the first line); blank lines pass
 * through. Its words are refilled by GNU's cost model: each line is
 * charged for its distance from the goal width (93% of -w), for raggedness
 * against the next line, and with bonuses and penalties for breaking
 * after sentence ends, punctuation and before parentheses, and the
 * cheapest set of breaks is found by dynamic programming from the end.
 * Words keep their spacing (two spaces after a sentence end at a line's
 * end); -u makes it one space, two after sentences.
 *
 * -p formats only the lines that start (after blanks) with the prefix and
 * puts it back on each output line; other lines are copied.
 *
 * Deviation: paragraphs are not split at 1000 words as GNU's fixed
 * buffers may do.
 *
 * Usage: fmt [-WIDTH] [OPTION]... [FILE]... */
#include <limits.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char fmt_usage[] MSB_COLD =
    "Usage: fmt [-WIDTH] [OPTION]... [FILE]...\n"
    "Reformat each paragraph in the FILE(s), writing to standard output.\n"
    "The option -WIDTH is an abbreviated form of --width=DIGITS.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -c, --crown-margin        preserve indentation of first two lines\n"
    "  -p, --prefix=STRING       reformat only lines beginning with STRING,\n"
    "                              reattaching the prefix to reformatted "
    "lines\n"
    "  -s, --split-only          split long lines, but do not refill\n"
    "  -t, --tagged-paragraph    indentation of first line different from "
    "second\n"
    "  -u, --uniform-spacing     one space between words, two after "
    "sentences\n"
    "  -w, --width=WIDTH         maximum line width (default of 75 columns)\n"
    "  -g, --goal=WIDTH          goal width (default of 93% of width)\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt fmt_opts[] = {{'c', "crown-margin", CMD_ARG_NONE, 'c'},
                                   {'p', "prefix", CMD_ARG_REQ, 'p'},
                                   {'s', "split-only", CMD_ARG_NONE, 's'},
                                   {'t', "tagged-paragraph", CMD_ARG_NONE, 't'},
                                   {'u', "uniform-spacing", CMD_ARG_NONE, 'u'},
                                   {'w', "width", CMD_ARG_REQ, 'w'},
                                   {'g', "goal", CMD_ARG_REQ, 'g'},
                                   {0, 0, 0, 0}};

/* GNU's costs: squares, so that one long miss costs more than two short. */
typedef long long fmt_cost;
#define FMT_EQUIV(n) ((fmt_cost)(n) * (n))
#define FMT_SHORT(n) FMT_EQUIV((n) * 10)
#define FMT_RAGGED(n) (FMT_SHORT(n) / 2)
#define FMT_LINE FMT_EQUIV(70)
#define FMT_WIDOW(n) (FMT_EQUIV(200) / ((n) + 2))
#define FMT_ORPHAN(n) (FMT_EQUIV(150) / ((n) + 2))
#define FMT_SENTENCE FMT_EQUIV(50)
#define FMT_NOBREAK FMT_EQUIV(600)
#define FMT_PAREN FMT_EQUIV(40)
#define FMT_PUNCT FMT_EQUIV(40)

typedef struct fmt_word {
  const char *text;
  int length, space;
  int paren, punct, period, final;
  int line_length, next_break;
  fmt_cost best;
} fmt_word;

typedef struct fmt_st {
  cmd_ctx *c;
  int width, goal, crown, tagged, split, uniform, tabs;
  fmt_word *w; /* the paragraph's words, plus a sentinel */
  int n, cap;
  int first_indent, other_indent, last_line_length;
  int col; /* output column */
  /* -p: the prefix without its blanks, its length with the trailing ones,
   * its leading blank count, and the current paragraph's prefix column */
  const char *prefix;
  int plen, pfull, plead, pindent;
} fmt_st;

static int fmt_push(fmt_st *f, const char *text, int len) {
  if (f->n + 1 >= f->cap) {
    int nc = f->cap ? 2 * f->cap : 256;
    fmt_word *nw = arena_alloc(f->c->a, sizeof *nw * (size_t)nc);
    if (!nw) return MSB_ENOMEM;
    if (f->n) memcpy(nw, f->w, sizeof *nw * (size_t)f->n);
    f->w = nw;
    f->cap = nc;
  }
  memset(&f->w[f->n], 0, sizeof *f->w);
  f->w[f->n].text = text;
  f->w[f->n++].length = len;
  return 0;
}

/* Sets paren, punct and period from the word's ends. */
static void fmt_punct(fmt_word *w) {
  const char *s = w->text, *e = s + w->length - 1;
  w->paren = strchr("(['`\"", *s) != NULL;
  w->punct = (*e >= '!' && *e <= '/') || (*e >= ':' && *e <= '@') ||
             (*e >= '[' && *e <= '`') || (*e >= '{' && *e <= '~');
  while (s < e && strchr(")]'\"", *e)) e--;
  w->period = strchr(".?!", *e) != NULL;
}

/* Splits one line (from column col on) into words appended to f->w. */
static int fmt_line_words(fmt_st *f, const char *p, const char *end, int col,
                          int last) {
  while (p < end) {
    const char *st = p;
    int sp = col, rc;
    fmt_word *w;
    while (p < end && *p != ' ' && *p != '\t') p++, col++;
    if ((rc = fmt_push(f, st, (int)(p - st)))) return rc;
    w = &f->w[f->n - 1];
    fmt_punct(w);
    sp = col;
    while (p < end && (*p == ' ' || *p == '\t')) {
      col = *p == '\t' ? (col / 8 + 1) * 8 : col + 1;
      p++;
    }
    w->space = col - sp;
    w->final = (p == end && last) || (w->period && (p == end || w->space > 1));
    if (p == end || f->uniform) w->space = w->final ? 2 : 1;
  }
  return 0;
}

/* The cost of a line ending before word nx at length len. */
static fmt_cost fmt_line_cost(fmt_st *f, int nx, int len) {
  fmt_cost cost;
  if (nx == f->n) return 0;
  cost = FMT_SHORT(f->goal - len);
  if (f->w[nx].next_break != f->n)
    cost += FMT_RAGGED(len - f->w[nx].line_length);
  return cost;
}

/* The cost of starting a line at word i. */
static fmt_cost fmt_base_cost(fmt_st *f, int i) {
  fmt_cost cost = FMT_LINE;
  fmt_word *w = f->w;
  if (i > 0) {
    if (w[i - 1].period) {
      if (w[i - 1].final)
        cost -= FMT_SENTENCE;
      else
        cost += FMT_NOBREAK;
    } else if (w[i - 1].punct) {
      cost -= FMT_PUNCT;
    } else if (i > 1 && w[i - 2].final) {
      cost += FMT_WIDOW(w[i - 1].length);
    }
  }
  if (w[i].paren)
    cost -= FMT_PAREN;
  else if (w[i].final)
    cost += FMT_ORPHAN(w[i].length);
  return cost;
}

/* The cheapest breaks, from the last word back. */
static void fmt_breaks(fmt_st *f) {
  int start;
  f->w[f->n].best = 0;
  for (start = f->n - 1; start >= 0; start--) {
    fmt_cost best = LLONG_MAX;
    int len = (start == 0 ? f->first_indent : f->other_indent) +
              f->w[start].length,
        i = start;
    do {
      fmt_cost c;
      i++;
      c = fmt_line_cost(f, i, len) + f->w[i].best;
      if (start == 0 && f->last_line_length > 0)
        c += FMT_RAGGED(len - f->last_line_length);
      if (c < best) {
        best = c;
        f->w[start].next_break = i;
        f->w[start].line_length = len;
      }
      if (i == f->n) break;
      len += f->w[i - 1].space + f->w[i].length;
    } while (len < f->width);
    f->w[start].best = best + fmt_base_cost(f, start);
  }
}

/* Spaces up to column target, with tabs when the input indented so. */
static void fmt_space(fmt_st *f, int n) {
  int target = f->col + n;
  if (f->tabs) {
    int tt = target / 8 * 8;
    if (f->col + 1 < tt)
      while (f->col < tt) {
        buf_putc(f->c->out, '\t');
        f->col = (f->col / 8 + 1) * 8;
      }
  }
  while (f->col < target) {
    buf_putc(f->c->out, ' ');
    f->col++;
  }
}

static void fmt_put_line(fmt_st *f, int i, int indent) {
  int end = f->w[i].next_break - 1;
  f->col = 0;
  fmt_space(f, f->pindent);
  buf_put(f->c->out, f->prefix, (size_t)f->plen);
  f->col += f->plen;
  fmt_space(f, indent - f->col);
  for (; i <= end; i++) {
    buf_put(f->c->out, f->w[i].text, (size_t)f->w[i].length);
    f->col += f->w[i].length;
    if (i < end) fmt_space(f, f->w[i].space);
  }
  f->last_line_length = f->col;
  buf_putc(f->c->out, '\n');
}

/* Formats and prints the collected paragraph. */
static int fmt_flush(fmt_st *f) {
  int i;
  if (!f->n) return 0;
  f->w[f->n - 1].final = 1; /* a paragraph's end counts as a sentence's */
  fmt_breaks(f);
  fmt_put_line(f, 0, f->first_indent);
  for (i = f->w[0].next_break; i != f->n; i = f->w[i].next_break)
    fmt_put_line(f, i, f->other_indent);
  f->n = 0;
  return cmd_tick(f->c, 1);
}

/* Indentation column of a line, and where its text starts. */
static int fmt_indent(fmt_st *f, const char *p, const char *end,
                      const char **text) {
  int col = 0;
  while (p < end && (*p == ' ' || *p == '\t')) {
    if (*p == '\t') f->tabs = 1;
    col = *p == '\t' ? (col / 8 + 1) * 8 : col + 1;
    p++;
  }
  *text = p;
  return col;
}

/* Formats one input. */
/* A line -p does not format: copied with its prefix part re-spaced (a
 * line of blanks becomes empty), as GNU's copy_rest. */
static void fmt_copy(fmt_st *f, int pind, int matched, const char *rest,
                     const char *end, int col) {
  f->col = 0;
  if (col > pind || rest < end) {
    fmt_space(f, pind);
    buf_put(f->c->out, f->prefix, (size_t)matched);
    f->col += matched;
    if (rest < end) fmt_space(f, col - f->col);
    buf_put(f->c->out, rest, (size_t)(end - rest));
  }
  buf_putc(f->c->out, '\n');
}

static int fmt_text(fmt_st *f, const uint8_t *d, size_t len) {
  cmd_lines ls;
  const uint8_t *rec;
  size_t rl;
  int term, rc, lineno = 0;
  cmd_lines_init(&ls, d, len, '\n');
  while (cmd_lines_next(&ls, &rec, &rl, &term)) {
    const char *p = (const char *)rec, *end = p + rl, *text;
    int pind = fmt_indent(f, p, end, &text), ind = pind, matched = 0, more;
    /* the prefix, then the text's own indentation */
    while (matched < f->plen && text < end && *text == f->prefix[matched])
      text++, matched++;
    if (matched == f->plen) {
      ind = pind + matched;
      while (text < end && (*text == ' ' || *text == '\t')) {
        if (*text == '\t') f->tabs = 1;
        ind = *text++ == '\t' ? (ind / 8 + 1) * 8 : ind + 1;
      }
    } else {
      ind = pind + matched;
    }
    if (!f->plen) /* no prefix: GNU's prefix column is the -p blanks' */
      pind = pind < f->plead ? pind : f->plead;
    if (matched < f->plen || text == end || pind < f->plead ||
        ind < pind + f->pfull) {
      /* blank, or not the prefix's: ends the paragraph, copied */
      if ((rc = fmt_flush(f))) return rc;
      fmt_copy(f, pind, matched, text, end, ind);
      lineno = 0;
      continue;
    }
    if (f->n && pind != f->pindent) {
      if ((rc = fmt_flush(f))) return rc;
      lineno = 0;
    } else if (f->n && lineno == 1 && (f->crown || f->tagged)) {
      if (f->tagged && ind == f->first_indent) {
        if ((rc = fmt_flush(f))) return rc;
        lineno = 0;
      } else {
        f->other_indent = ind;
      }
    } else if (f->n && (f->split || ind != f->other_indent)) {
      if ((rc = fmt_flush(f))) return rc;
      lineno = 0;
    }
    if (!f->n) {
      f->first_indent = f->other_indent = ind;
      f->pindent = pind;
      f->last_line_length = 0;
      if (f->tagged) f->other_indent = ind == 0 ? 3 : 0;
    }
    more = term || ls.p < ls.end;
    if ((rc = fmt_line_words(f, text, end, ind, !more))) return rc;
    lineno++;
  }
  return fmt_flush(f);
}

/* A width operand: a positive number of columns. */
static int fmt_width(cmd_ctx *c, const char *s, int *out) {
  int64_t v;
  if (cmd_parse_int(s, &v) || v < 0 || v > 2500) {
    cmd_err(c, "invalid width: %s", cmd_quote(c, s));
    return 1;
  }
  *out = (int)v;
  return 0;
}

/* Entry point: see the usage above. */
int cmd_fmt(cmd_ctx *c) {
  cmd_getopt g;
  fmt_st f;
  const char *w = NULL, *goal = NULL;
  int k, i, rc, status = 0;
  memset(&f, 0, sizeof f);
  f.c = c;
  f.prefix = "";
  cmd_opt_init(&g, c, fmt_opts, fmt_usage, CMD_OPTF_NUMERIC);
  while ((k = cmd_opt_next(&g)) > 0 || k == CMD_OPT_NUM) {
    if (k == CMD_OPT_NUM || k == 'w') w = g.arg;
    if (k == 'g') goal = g.arg;
    if (k == 'c') f.crown = 1;
    if (k == 's') f.split = 1;
    if (k == 't') f.tagged = 1;
    if (k == 'u') f.uniform = 1;
    if (k == 'p') {
      const char *q = g.arg;
      f.plead = 0;
      while (*q == ' ') q++, f.plead++;
      f.prefix = q;
      f.pfull = (int)strlen(q);
      for (f.plen = f.pfull; f.plen > 0 && q[f.plen - 1] == ' ';) f.plen--;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  f.width = 75;
  if (w && fmt_width(c, w, &f.width)) return 1;
  if (goal) {
    if (fmt_width(c, goal, &f.goal)) return 1;
    if (!w) f.width = f.goal + 10;
  } else {
    f.goal = f.width * (2 * (100 - 7) + 1) / 200;
  }
  if (f.goal > f.width) {
    cmd_err(c, "invalid width: %s: Numerical result out of range",
            cmd_quote(c, goal));
    return 1;
  }
  for (i = 0; i < (g.nops ? g.nops : 1); i++) {
    const char *op = g.nops ? g.ops[i] : "-";
    const uint8_t *d;
    size_t len;
    if ((rc = cmd_input(c, op, &d, &len))) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "cannot open %s for reading: %s", cmd_quote(c, op),
              cmd_strerror(rc));
      status = 1;
      continue;
    }
    if ((rc = fmt_text(&f, d, len)) || (rc = cmd_charge_bytes(c, len)))
      return rc;
  }
  return status;
}
