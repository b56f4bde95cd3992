/* cut.c - remove sections from each line of files (GNU coreutils cut).
 *
 * The list (-b, -c, -f) is parsed into ranges that are sorted and merged
 * once; each line is then scanned left to right while a cursor walks the
 * ranges, so a line costs O(its length). -c equals -b (C locale). With
 * --output-delimiter, byte ranges that stay separate after merging are
 * joined by it, as GNU does.
 *
 * Usage: cut OPTION... [FILE]... */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char cut_usage[] MSB_COLD =
    "Usage: cut OPTION... [FILE]...\n"
    "Print selected parts of lines from each FILE to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, --bytes=LIST        select only these bytes\n"
    "  -c, --characters=LIST   select only these characters\n"
    "  -d, --delimiter=DELIM   use DELIM instead of TAB for field "
    "delimiter\n"
    "  -f, --fields=LIST       select only these fields;  also print any "
    "line\n"
    "                            that contains no delimiter character, "
    "unless\n"
    "                            the -s option is specified\n"
    "  -n                      (ignored)\n"
    "      --complement        complement the set of selected bytes, "
    "characters\n"
    "                            or fields\n"
    "  -s, --only-delimited    do not print lines not containing "
    "delimiters\n"
    "      --output-delimiter=STRING  use STRING as the output delimiter\n"
    "  -z, --zero-terminated   line delimiter is NUL, not newline\n";

enum { CUT_O_COMPLEMENT = 256, CUT_O_OUTDELIM };

static const cmd_opt cut_opts[] = {
    {'b', "bytes", CMD_ARG_REQ, 'b'},
    {'c', "characters", CMD_ARG_REQ, 'c'},
    {'d', "delimiter", CMD_ARG_REQ, 'd'},
    {'f', "fields", CMD_ARG_REQ, 'f'},
    {'n', 0, CMD_ARG_NONE, 'n'},
    {0, "complement", CMD_ARG_NONE, CUT_O_COMPLEMENT},
    {'s', "only-delimited", CMD_ARG_NONE, 's'},
    {0, "output-delimiter", CMD_ARG_REQ, CUT_O_OUTDELIM},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

typedef struct cut_range {
  size_t lo, hi; /* 1-based, inclusive; hi SIZE_MAX: to the end */
} cut_range;

static int cut_rcmp(const void *a, const void *b) {
  const cut_range *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Parses a number; SIZE_MAX on overflow, NULL without digits. */
static const char *cut_num(const char *p, size_t *out) {
  size_t v = 0;
  const char *s = p;
  while (*p >= '0' && *p <= '9') {
    size_t d = (size_t)(*p - '0');
    v = v > ((size_t)-1 - d) / 10 ? (size_t)-1 : v * 10 + d;
    p++;
  }
  *out = v;
  return p == s ? NULL : p;
}

static int cut_usage_invalid(cmd_getopt *g, const char *fmt, const char *arg);

/* Parses LIST into sorted merged ranges; 0 or prints a usage error. */
static int cut_list(cmd_getopt *g, const char *list, int fields,
                    cut_range **out, size_t *nout) {
  cmd_ctx *c = g->c;
  size_t n = 1, k = 0, i, w;
  const char *p;
  cut_range *v;
  for (p = list; *p; p++)
    if (*p == ',' || *p == ' ' || *p == '\t') n++;
  v = arena_alloc(c->a, n * sizeof *v);
  if (!v) return MSB_ENOMEM;
  p = list;
  for (;;) {
    const char *start = p, *q;
    size_t lo = 1, hi;
    int dash = 0, haslo = 0;
    q = cut_num(p, &lo);
    if (q) {
      haslo = 1;
      p = q;
    }
    if (*p == '-') {
      dash = 1;
      p++;
      q = cut_num(p, &hi);
      if (q) {
        p = q;
      } else {
        if (!haslo)
          return cut_usage_invalid(g,
                                   "invalid range with no "
                                   "endpoint: -",
                                   NULL);
        hi = (size_t)-1;
      }
      if (!haslo) lo = 1;
    } else {
      hi = lo;
    }
    if (*p && *p != ',' && *p != ' ' && *p != '\t') {
      size_t len = strcspn(start, ", \t");
      char *bad = arena_strndup(c->a, start, len);
      return cut_usage_invalid(g,
                               fields ? "invalid field value %s"
                                      : "invalid byte/character "
                                        "position %s",
                               bad ? cmd_quote(c, bad) : "");
    }
    if ((haslo && lo == 0) || (!haslo && !dash) || (dash && hi == 0)) {
      return cut_usage_invalid(g,
                               fields ? "fields are numbered from 1"
                                      : "byte/character positions are "
                                        "numbered from 1",
                               NULL);
    }
    if (lo == (size_t)-1 || (hi == (size_t)-1 && q && dash)) {
      size_t len = strcspn(start, ", \t-");
      char *bad = arena_strndup(c->a, start, len);
      return cut_usage_invalid(g,
                               fields ? "field number %s is too large"
                                      : "byte/character offset %s is "
                                        "too large",
                               bad ? cmd_quote(c, bad) : "");
    }
    if (hi < lo) return cut_usage_invalid(g, "invalid decreasing range", NULL);
    v[k].lo = lo;
    v[k].hi = hi;
    k++;
    if (!*p) break;
    p++;
  }
  qsort(v, k, sizeof *v, cut_rcmp);
  for (i = 0, w = 0; i < k; i++) {
    if (w && (v[w - 1].hi == (size_t)-1 || v[i].lo <= v[w - 1].hi + 1)) {
      if (v[i].hi > v[w - 1].hi) v[w - 1].hi = v[i].hi;
    } else {
      v[w++] = v[i];
    }
  }
  *out = v;
  *nout = w;
  return 0;
}

static int cut_usage_invalid(cmd_getopt *g, const char *fmt, const char *arg) {
  if (arg)
    cmd_usage_err(g, fmt, arg);
  else
    cmd_usage_err(g, "%s", fmt);
  return 1;
}

/* Complements merged ranges over 1..SIZE_MAX. */
static int cut_complement(cmd_ctx *c, cut_range **v, size_t *n) {
  cut_range *o = arena_alloc(c->a, (*n + 1) * sizeof *o);
  size_t i, k = 0, next = 1;
  if (!o) return MSB_ENOMEM;
  for (i = 0; i < *n; i++) {
    if ((*v)[i].lo > next) {
      o[k].lo = next;
      o[k].hi = (*v)[i].lo - 1;
      k++;
    }
    if ((*v)[i].hi == (size_t)-1) {
      next = (size_t)-1;
      break;
    }
    next = (*v)[i].hi + 1;
  }
  if (next != (size_t)-1) {
    o[k].lo = next;
    o[k].hi = (size_t)-1;
    k++;
  }
  *v = o;
  *n = k;
  return 0;
}

typedef struct cut_st {
  cut_range *r;
  size_t nr;
  int fields, only_delim, delim, eol;
  const char *odelim;
  size_t odlen;
  int have_od;
} cut_st;

static void cut_bytes(cmd_ctx *c, const cut_st *st, const uint8_t *s,
                      size_t len) {
  size_t i, ri = 0;
  int first = 1;
  for (ri = 0; ri < st->nr; ri++) {
    size_t lo = st->r[ri].lo, hi = st->r[ri].hi;
    if (lo > len) break;
    if (hi > len) hi = len;
    if (!first && st->have_od) buf_put(c->out, st->odelim, st->odlen);
    first = 0;
    i = lo - 1;
    buf_put(c->out, s + i, hi - i);
  }
  buf_putc(c->out, st->eol);
}

static void cut_fields(cmd_ctx *c, const cut_st *st, const uint8_t *s,
                       size_t len) {
  size_t pos = 0, fno = 1, ri = 0;
  int first = 1;
  if (!memchr(s, st->delim, len)) {
    if (!st->only_delim) {
      buf_put(c->out, s, len);
      buf_putc(c->out, st->eol);
    }
    return;
  }
  while (pos <= len) {
    const uint8_t *q = memchr(s + pos, st->delim, len - pos);
    size_t e = q ? (size_t)(q - s) : len;
    while (ri < st->nr && st->r[ri].hi < fno) ri++;
    if (ri >= st->nr) break;
    if (st->r[ri].lo <= fno) {
      if (!first) buf_put(c->out, st->odelim, st->odlen);
      first = 0;
      buf_put(c->out, s + pos, e - pos);
    }
    if (!q) break;
    pos = e + 1;
    fno++;
  }
  buf_putc(c->out, st->eol);
}

/* Entry point: see the usage above. */
int cmd_cut(cmd_ctx *c) {
  cmd_getopt g;
  cut_st st;
  const char *list = NULL, *delim = NULL;
  int opt, kind = 0, complement = 0, rc;
  cmd_inputs in;
  const uint8_t *d;
  size_t len;
  char dch[2];
  memset(&st, 0, sizeof st);
  st.delim = '\t';
  st.eol = '\n';
  cmd_opt_init(&g, c, cut_opts, cut_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'b':
    case 'c':
    case 'f':
      if (kind) return cmd_usage_err(&g, "only one list may be specified");
      kind = opt;
      list = g.arg;
      break;
    case 'd':
      if (g.arg[0] && g.arg[1])
        return cmd_usage_err(&g, "the delimiter must be a single character");
      delim = g.arg;
      break;
    case 'n': break;
    case CUT_O_COMPLEMENT: complement = 1; break;
    case 's': st.only_delim = 1; break;
    case CUT_O_OUTDELIM:
      st.odelim = g.arg;
      st.odlen = strlen(g.arg);
      st.have_od = 1;
      break;
    case 'z': st.eol = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (!kind)
    return cmd_usage_err(&g,
                         "you must specify a list of bytes, characters, "
                         "or fields");
  st.fields = kind == 'f';
  if (!st.fields && delim)
    return cmd_usage_err(&g,
                         "an input delimiter may be specified only when "
                         "operating on fields");
  if (!st.fields && st.only_delim)
    return cmd_usage_err(&g,
                         "suppressing non-delimited lines makes sense\n"
                         "\tonly when operating on fields");
  if ((rc = cut_list(&g, list, st.fields, &st.r, &st.nr)) != 0)
    return rc < 0 ? rc : 1;
  if (complement && (rc = cut_complement(c, &st.r, &st.nr)) < 0) return rc;
  if (delim) st.delim = (unsigned char)delim[0];
  if (!st.have_od && st.fields) {
    dch[0] = (char)st.delim;
    dch[1] = 0;
    st.odelim = dch;
    st.odlen = 1;
  }
  cmd_inputs_init(&in, c, &g);
  while (cmd_inputs_next(&in, &d, &len)) {
    const uint8_t *rec;
    size_t rl;
    cmd_lines it;
    cmd_lines_init(&it, d, len, st.eol);
    while (cmd_lines_next(&it, &rec, &rl, NULL)) {
      if (st.fields)
        cut_fields(c, &st, rec, rl);
      else
        cut_bytes(c, &st, rec, rl);
      if (c->out->err) return c->out->err;
    }
    if ((rc = cmd_tick(c, 1)) != 0) return rc;
  }
  return in.status;
}
