/* pr.c - convert text files for printing (GNU coreutils 9), the common
 * flags.
 *
 * Pages of -l lines (66): a five-line header (two blank lines, the date,
 * the centred title and "Page N" across -w columns, two blank lines), the
 * text, blank padding and a five-line trailer; -t drops header, trailer and
 * padding (implied when the page has 10 lines or fewer). -COLUMN prints
 * columns down the page, balanced on the last page, -a across; lines are
 * cut to the column width, and columns are reached with tabs and spaces as
 * GNU pads them, or joined by -s's character without cutting. -n numbers
 * lines, -d double-spaces, -o indents, -h sets the title, -D the date
 * format (the date is the file's modification time, or now for stdin).
 *
 * Deviations: -m, -J, -e, -i, -c, -f/-F, -r, -S, -W, -N and +PAGE are
 * refused by name.
 *
 * Usage: pr [OPTION]... [FILE]... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char pr_usage[] MSB_COLD =
    "Usage: pr [OPTION]... [FILE]...\n"
    "Paginate or columnate FILE(s) for printing.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -COLUMN, --columns=COLUMN\n"
    "                    output COLUMN columns and print columns down,\n"
    "                    unless -a is used. Balance number of lines in the\n"
    "                    columns on each page\n"
    "  -a, --across      print columns across rather than down, used "
    "together\n"
    "                    with -COLUMN\n"
    "  -d, --double-space\n"
    "                    double space the output\n"
    "  -D, --date-format=FORMAT\n"
    "                    use FORMAT for the header date\n"
    "  -h, --header=HEADER\n"
    "                    use a centered HEADER instead of filename in page "
    "header,\n"
    "  -l, --length=PAGE_LENGTH\n"
    "                    set the page length to PAGE_LENGTH (66) lines\n"
    "  -n[SEP[DIGITS]], --number-lines[=SEP[DIGITS]]\n"
    "                    number lines, use DIGITS (5) digits, then SEP "
    "(TAB),\n"
    "  -o, --indent=MARGIN\n"
    "                    offset each line with MARGIN (zero) spaces\n"
    "  -s[CHAR], --separator[=CHAR]\n"
    "                    separate columns by a single character\n"
    "  -t, --omit-header  omit page headers and trailers\n"
    "  -T, --omit-pagination\n"
    "                    omit page headers and trailers, eliminate any "
    "pagination\n"
    "  -w, --width=PAGE_WIDTH\n"
    "                    set page width to PAGE_WIDTH (72) characters for\n"
    "                    multiple text-column output only\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { PR_COLUMNS = 256, PR_UNSUP };

static const cmd_opt pr_opts[] = {
    {'a', "across", CMD_ARG_NONE, 'a'},
    {0, "columns", CMD_ARG_REQ, PR_COLUMNS},
    {'c', "show-control-chars", CMD_ARG_NONE, PR_UNSUP},
    {'d', "double-space", CMD_ARG_NONE, 'd'},
    {'D', "date-format", CMD_ARG_REQ, 'D'},
    {'e', "expand-tabs", CMD_ARG_OPT, PR_UNSUP},
    {'f', 0, CMD_ARG_NONE, PR_UNSUP},
    {'F', "form-feed", CMD_ARG_NONE, PR_UNSUP},
    {'h', "header", CMD_ARG_REQ, 'h'},
    {'i', "output-tabs", CMD_ARG_OPT, PR_UNSUP},
    {'J', "join-lines", CMD_ARG_NONE, PR_UNSUP},
    {'l', "length", CMD_ARG_REQ, 'l'},
    {'m', "merge", CMD_ARG_NONE, PR_UNSUP},
    {'n', "number-lines", CMD_ARG_OPT, 'n'},
    {'N', "first-line-number", CMD_ARG_REQ, PR_UNSUP},
    {'o', "indent", CMD_ARG_REQ, 'o'},
    {'r', "no-file-warnings", CMD_ARG_NONE, PR_UNSUP},
    {'s', "separator", CMD_ARG_OPT, 's'},
    {'S', "sep-string", CMD_ARG_OPT, PR_UNSUP},
    {'t', "omit-header", CMD_ARG_NONE, 't'},
    {'T', "omit-pagination", CMD_ARG_NONE, 't'},
    {'w', "width", CMD_ARG_REQ, 'w'},
    {'W', "page-width", CMD_ARG_REQ, PR_UNSUP},
    {0, 0, 0, 0}};

typedef struct pr_st {
  cmd_ctx *c;
  int cols, across, dbl, omit, length, width, margin, numbered, ndigits;
  int sep;     /* -s character; 0 for none given */
  int sep_set; /* -s given (no cutting, no padding) */
  char nsep;
  const char *header, *datefmt;
  int col;    /* output column within the line */
  long lineno; /* lines read, for -n */
} pr_st;

/* Pads with tabs then spaces up to column target, as GNU pr does. */
static void pr_pad_to(pr_st *s, int target) {
  while ((s->col / 8 + 1) * 8 <= target) {
    buf_putc(s->c->out, '\t');
    s->col = (s->col / 8 + 1) * 8;
  }
  while (s->col < target) {
    buf_putc(s->c->out, ' ');
    s->col++;
  }
}

/* One column cell starting at column start: number, then the text cut
 * to width (when cut). In columns, GNU pads a number's leading blanks
 * like the gap before it and expands a TAB separator from the column's
 * start. */
static void pr_cell(pr_st *s, const uint8_t *t, size_t n, int start, int width,
                    int cut, long number, int last) {
  if (number && s->numbered) {
    char tmp[32];
    int l = snprintf(tmp, sizeof tmp, "%*ld", s->ndigits, number % 100000000L),
        sp = 0;
    const char *num = tmp + (l > s->ndigits ? l - s->ndigits : 0);
    if (s->cols > 1) {
      while (num[sp] == ' ') sp++;
      pr_pad_to(s, s->col + sp);
    }
    buf_put(s->c->out, num + sp, (size_t)(s->ndigits - sp));
    s->col += s->ndigits - sp;
    if (s->nsep != '\t' || s->cols == 1) {
      buf_putc(s->c->out, s->nsep);
      s->col = s->nsep == '\t' ? (s->col / 8 + 1) * 8 : s->col + 1;
    } else {
      int target = start + ((s->col - start) / 8 + 1) * 8;
      if ((s->col / 8 + 1) * 8 == target) {
        buf_putc(s->c->out, '\t');
        s->col = target;
      }
      while (s->col < target) buf_putc(s->c->out, ' '), s->col++;
    }
    width -= s->col - start;
  }
  if (cut && (int)n > width) {
    n = width > 0 ? (size_t)width : 0;
    /* a cut line ending a row loses its trailing blanks */
    while (last && n > 0 && t[n - 1] == ' ') n--;
  }
  buf_put(s->c->out, t, n);
  s->col += (int)n;
}

/* Prints one page's rows; returns the rows printed. */
static int pr_page_rows(pr_st *s, const uint8_t **ln, const size_t *ll,
                        const long *num, int n, int rows) {
  int colw = s->cols > 1
                 ? (s->width - (s->cols - 1) * (s->sep_set ? 1 : 1)) / s->cols
                 : 0;
  int start[64], count[64], c, r, used = 0, left = n;
  if (s->cols == 1) {
    for (r = 0; r < n; r++) {
      s->col = 0;
      pr_pad_to(s, s->margin);
      pr_cell(s, ln[r], ll[r], s->margin, 0, 0, num[r], 1);
      buf_putc(s->c->out, '\n');
    }
    return n;
  }
  /* down: balanced columns; across: row-major */
  for (c = 0; c < s->cols; c++) {
    int k = (left + (s->cols - c) - 1) / (s->cols - c);
    if (k > rows) k = rows;
    start[c] = used;
    count[c] = k;
    used += k;
    left -= k;
  }
  if (s->across)
    rows = (n + s->cols - 1) / s->cols;
  else
    rows = count[0];
  for (r = 0; r < rows; r++) {
    int last = -1;
    for (c = 0; c < s->cols; c++) {
      int i = s->across ? r * s->cols + c : start[c] + r;
      if (s->across ? i < n : r < count[c]) last = c;
    }
    s->col = 0;
    pr_pad_to(s, s->margin);
    for (c = 0; c <= last; c++) {
      int i = s->across ? r * s->cols + c : start[c] + r;
      int have = s->across ? i < n : r < count[c];
      if (have) {
        pr_cell(s, ln[i], ll[i], s->col, colw, !s->sep_set, num[i], c == last);
      }
      if (c == last) break;
      if (s->sep_set) {
        if (s->sep) buf_putc(s->c->out, s->sep), s->col++;
      } else {
        pr_pad_to(s, s->margin + (c + 1) * (colw + 1));
      }
    }
    buf_putc(s->c->out, '\n');
  }
  return rows;
}

/* The header line: date, centred title, "Page N" across the width. */
static void pr_header(pr_st *s, const char *date, const char *title, int page) {
  char pg[32];
  int dl = (int)strlen(date), tl = (int)strlen(title), pl, blanks, k;
  pl = snprintf(pg, sizeof pg, "Page %d", page);
  blanks = s->width - dl - tl - pl;
  if (blanks < 2) blanks = 2;
  buf_puts(s->c->out, "\n\n");
  for (k = 0; k < s->margin; k++) buf_putc(s->c->out, ' ');
  buf_puts(s->c->out, date);
  for (k = 0; k < blanks / 2; k++) buf_putc(s->c->out, ' ');
  buf_puts(s->c->out, title);
  for (k = 0; k < blanks - blanks / 2; k++) buf_putc(s->c->out, ' ');
  buf_puts(s->c->out, pg);
  buf_puts(s->c->out, "\n\n\n");
}

/* Paginates one input. */
static int pr_file(pr_st *s, const char *title, const uint8_t *d, size_t len,
                   const char *date) {
  cmd_lines ls;
  const uint8_t *rec, **ln;
  size_t rl, *ll, n = 0, cap = 0, at;
  long *num;
  int term, page = 1, rc, omit = s->omit || s->length <= 10;
  int body = omit ? s->length : s->length - 10, per;
  for (at = 0; at < len; at++) cap += d[at] == '\n';
  cap = (cap + 2) * (s->dbl ? 2 : 1);
  ln = arena_alloc(s->c->a, sizeof *ln * cap);
  ll = arena_alloc(s->c->a, sizeof *ll * cap);
  num = arena_alloc(s->c->a, sizeof *num * cap);
  if (!ln || !ll || !num) return MSB_ENOMEM;
  s->lineno = 0;
  cmd_lines_init(&ls, d, len, '\n');
  while (cmd_lines_next(&ls, &rec, &rl, &term)) {
    ln[n] = rec;
    ll[n] = rl;
    num[n] = ++s->lineno; /* the line's number for -n */
    n++;
    if (s->dbl) {
      ln[n] = rec;
      ll[n] = 0;
      num[n++] = 0;
    }
  }
  if (body < 1) body = 1;
  per = body * (s->cols > 1 ? s->cols : 1);
  for (at = 0; at < n; page++) {
    int take = n - at < (size_t)per ? (int)(n - at) : per, rows, k;
    if (!omit) pr_header(s, date, title, page);
    rows = pr_page_rows(s, ln + at, ll + at, num + at, take, body);
    if (!omit) {
      for (k = rows; k < body; k++) buf_putc(s->c->out, '\n');
      buf_puts(s->c->out, "\n\n\n\n\n");
    }
    at += (size_t)take;
    if ((rc = cmd_tick(s->c, 1))) return rc;
  }
  return 0;
}

/* A positive number operand of an option. */
static int pr_num(cmd_ctx *c, const char *a, const char *what, int *out) {
  int64_t v;
  if (cmd_parse_int(a, &v) || v < 1 || v > 100000) {
    cmd_err(c, "invalid %s: %s", what, cmd_quote(c, a));
    return 1;
  }
  *out = (int)v;
  return 0;
}

/* Entry point: see the usage above. */
int cmd_pr(cmd_ctx *c) {
  cmd_getopt g;
  pr_st s;
  int k, i, rc, status = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.cols = 1;
  s.length = 66;
  s.width = 72;
  s.ndigits = 5;
  s.nsep = '\t';
  cmd_opt_init(&g, c, pr_opts, pr_usage, CMD_OPTF_NUMERIC);
  while ((k = cmd_opt_next(&g)) > 0 || k == CMD_OPT_NUM) {
    if ((k == CMD_OPT_NUM || k == PR_COLUMNS) &&
        (pr_num(c, g.arg, "number of columns", &s.cols) || s.cols > 64))
      return 1;
    if (k == 'a') s.across = 1;
    if (k == 'd') s.dbl = 1;
    if (k == 'D') s.datefmt = g.arg;
    if (k == 'h') s.header = g.arg;
    if (k == 't') s.omit = 1;
    if (k == 'l' && pr_num(c, g.arg, "page length", &s.length)) return 1;
    if (k == 'w' && pr_num(c, g.arg, "page width", &s.width)) return 1;
    if (k == 'o') {
      int64_t v;
      if (cmd_parse_int(g.arg, &v) || v < 0 || v > 10000) {
        cmd_err(c, "'-o MARGIN' invalid line offset: %s", cmd_quote(c, g.arg));
        return 1;
      }
      s.margin = (int)v;
    }
    if (k == 'n') {
      const char *a = g.arg;
      s.numbered = 1;
      if (a && *a && !(*a >= '0' && *a <= '9')) s.nsep = *a++;
      if (a && *a && pr_num(c, a, "line number digits", &s.ndigits)) return 1;
    }
    if (k == 's') {
      s.sep_set = 1;
      s.sep = g.arg ? g.arg[0] : '\t';
    }
    if (k == PR_UNSUP) {
      if (g.opt)
        cmd_err(c, "-%c is not supported in memsandbox", g.opt);
      else
        cmd_err(c, "--%s is not supported in memsandbox", g.optname);
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  for (i = 0; i < (g.nops ? g.nops : 1); i++) {
    const char *op = g.nops ? g.ops[i] : "-";
    const uint8_t *d;
    size_t len;
    int64_t t = *c->clock_ns;
    buf date;
    if (op[0] == '+') {
      cmd_err(c, "+PAGE is not supported in memsandbox");
      return 1;
    }
    if ((rc = cmd_input(c, op, &d, &len))) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "%s: %s", op, cmd_strerror(rc));
      status = 1;
      continue;
    }
    if (strcmp(op, "-")) {
      struct vfs_stat st;
      const char *abs = cmd_path(c, op);
      if (abs && vfs_stat(c->fs, abs, 1, &st) == 0) t = st.mtime_ns;
    }
    buf_init(&date, c->m);
    cmd_strftime(&date, s.datefmt ? s.datefmt : "%Y-%m-%d %H:%M", t);
    rc = pr_file(&s,
                 s.header          ? s.header
                 : strcmp(op, "-") ? op
                                   : "",
                 d, len, buf_str(&date));
    buf_finish(&date);
    if (rc) return rc;
    if ((rc = cmd_charge_bytes(c, len))) return rc;
  }
  return status;
}
