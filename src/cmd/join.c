/* join.c - join lines of two files on a common field (GNU coreutils).
 *
 * Both inputs are split into records up front; a merge walks them, and
 * for each key present in both files the two groups of equal keys are
 * joined pairwise. Fields are runs of non-blanks (leading blanks ignored)
 * or, with -t, the text between separator characters. Order checking
 * follows GNU: a line out of order is reported when read (once lines that
 * cannot pair were seen, or always with --check-order, which also makes it
 * fatal), and the default mode ends with "input is not in sorted order".
 *
 * Usage: join [OPTION]... FILE1 FILE2 */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char join_usage[] MSB_COLD =
    "Usage: join [OPTION]... FILE1 FILE2\n"
    "For each pair of input lines with identical join fields, write a line "
    "to\n"
    "standard output.  The default join field is the first, delimited by "
    "blanks.\n"
    "\n"
    "When FILE1 or FILE2 (not both) is -, read standard input.\n"
    "\n"
    "  -a FILENUM        also print unpairable lines from file FILENUM, "
    "where\n"
    "                      FILENUM is 1 or 2, corresponding to FILE1 or "
    "FILE2\n"
    "  -e STRING         replace missing (empty) input fields with STRING\n"
    "  -i, --ignore-case  ignore differences in case when comparing "
    "fields\n"
    "  -j FIELD          equivalent to '-1 FIELD -2 FIELD'\n"
    "  -o FORMAT         obey FORMAT while constructing output line\n"
    "  -t CHAR           use CHAR as input and output field separator\n"
    "  -v FILENUM        like -a FILENUM, but suppress joined output "
    "lines\n"
    "  -1 FIELD          join on this FIELD of file 1\n"
    "  -2 FIELD          join on this FIELD of file 2\n"
    "  --check-order     check that the input is correctly sorted\n"
    "  --nocheck-order   do not check that the input is correctly sorted\n"
    "  --header          treat the first line in each file as field "
    "headers\n"
    "  -z, --zero-terminated     line delimiter is NUL, not newline\n";

enum { JOIN_O_CHECK = 256, JOIN_O_NOCHECK, JOIN_O_HEADER };

static const cmd_opt join_opts[] = {
    {'a', 0, CMD_ARG_REQ, 'a'},
    {'e', 0, CMD_ARG_REQ, 'e'},
    {'i', "ignore-case", CMD_ARG_NONE, 'i'},
    {'j', 0, CMD_ARG_REQ, 'j'},
    {'o', 0, CMD_ARG_REQ, 'o'},
    {'t', 0, CMD_ARG_REQ, 't'},
    {'v', 0, CMD_ARG_REQ, 'v'},
    {'1', 0, CMD_ARG_REQ, '1'},
    {'2', 0, CMD_ARG_REQ, '2'},
    {0, "check-order", CMD_ARG_NONE, JOIN_O_CHECK},
    {0, "nocheck-order", CMD_ARG_NONE, JOIN_O_NOCHECK},
    {0, "header", CMD_ARG_NONE, JOIN_O_HEADER},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

typedef struct join_line {
  const uint8_t *p;
  size_t len;
} join_line;

typedef struct join_file {
  const char *name;
  join_line *v;
  size_t n, cap, seen; /* seen: lines read so far (order checked) */
  size_t field;        /* join field, 0-based */
  int warned;
} join_file;

typedef struct join_spec {
  int file;   /* 0 for the join field, else 1 or 2 */
  size_t field;
} join_spec;

typedef struct join_st {
  cmd_ctx *c;
  join_file f[2];
  int tab;    /* -1: blanks */
  int icase, check, unpairable, eol, autofmt;
  const char *empty;
  join_spec *o;
  size_t no;
  size_t nf[2]; /* field counts of the first lines (-o auto) */
} join_st;

/* Field k (0-based) of a line; 0 when missing. */
static int join_field(const join_st *s, const join_line *l, size_t k,
                      const uint8_t **fp, size_t *fl) {
  const uint8_t *p = l->p, *e = l->p + l->len;
  size_t i;
  if (s->tab >= 0) {
    for (i = 0;; i++) {
      const uint8_t *q = memchr(p, s->tab, (size_t)(e - p));
      if (i == k) {
        *fp = p;
        *fl = q ? (size_t)(q - p) : (size_t)(e - p);
        return 1;
      }
      if (!q) return 0;
      p = q + 1;
    }
  }
  for (i = 0;; i++) {
    const uint8_t *st;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p >= e) return 0;
    st = p;
    while (p < e && *p != ' ' && *p != '\t') p++;
    if (i == k) {
      *fp = st;
      *fl = (size_t)(p - st);
      return 1;
    }
  }
}

static size_t join_nfields(const join_st *s, const join_line *l) {
  size_t n = 0;
  const uint8_t *fp;
  size_t fl;
  while (join_field(s, l, n, &fp, &fl)) n++;
  return n;
}

static int join_keycmp(const join_st *s, const join_line *a, size_t fa,
                       const join_line *b, size_t fb) {
  const uint8_t *x = (const uint8_t *)"", *y = (const uint8_t *)"";
  size_t xl = 0, yl = 0, i, m;
  join_field(s, a, fa, &x, &xl);
  join_field(s, b, fb, &y, &yl);
  m = xl < yl ? xl : yl;
  for (i = 0; i < m; i++) {
    int p = x[i], q = y[i];
    if (s->icase) {
      if (p >= 'A' && p <= 'Z') p += 32;
      if (q >= 'A' && q <= 'Z') q += 32;
    }
    if (p != q) return p < q ? -1 : 1;
  }
  return xl == yl ? 0 : xl < yl ? -1 : 1;
}

/* Marks line k of file w as read, checking its order. 1: fatal. */
static int join_read(join_st *s, int w, size_t k) {
  join_file *f = &s->f[w];
  if (k < f->seen || k >= f->n) return 0;
  f->seen = k + 1;
  if (k == 0 || s->check == 0 || f->warned) return 0;
  if (s->check < 0 && !s->unpairable) return 0;
  if (join_keycmp(s, &f->v[k - 1], f->field, &f->v[k], f->field) <= 0) return 0;
  buf_printf(s->c->err, "%s: %s:%lu: is not sorted: ", cmd_name(s->c), f->name,
             (unsigned long)(k + 1));
  buf_put(s->c->err, f->v[k].p, f->v[k].len);
  buf_putc(s->c->err, '\n');
  f->warned = 1;
  return s->check > 0;
}

static void join_sep(join_st *s) {
  buf_putc(s->c->out, s->tab >= 0 ? s->tab : ' ');
}

static void join_put_field(join_st *s, const join_line *l, size_t k) {
  const uint8_t *fp;
  size_t fl;
  if (l && join_field(s, l, k, &fp, &fl) && (fl || !s->o))
    buf_put(s->c->out, fp, fl);
  else
    buf_puts(s->c->out, s->empty ? s->empty : "");
}

/* Writes one output line; a or b may be NULL (unpaired). */
static void join_out(join_st *s, const join_line *a, const join_line *b) {
  size_t k, n;
  int first = 1, w;
  if (s->o) {
    for (k = 0; k < s->no; k++) {
      const join_spec *sp = &s->o[k];
      if (k) join_sep(s);
      if (sp->file == 0) {
        if (a)
          join_put_field(s, a, s->f[0].field);
        else
          join_put_field(s, b, s->f[1].field);
      } else {
        join_put_field(s, sp->file == 1 ? a : b, sp->field);
      }
    }
    buf_putc(s->c->out, s->eol);
    return;
  }
  /* Default: key, then the other fields of file 1, then of file 2. */
  if (a)
    join_put_field(s, a, s->f[0].field);
  else
    join_put_field(s, b, s->f[1].field);
  first = 0;
  for (w = 0; w < 2; w++) {
    const join_line *l = w ? b : a;
    if (!l) continue;
    n = join_nfields(s, l);
    for (k = 0; k < n; k++) {
      if (k == s->f[w].field) continue;
      if (!first) join_sep(s);
      join_put_field(s, l, k);
    }
  }
  buf_putc(s->c->out, s->eol);
}

static int join_fieldnum(cmd_ctx *c, const char *s, size_t *out) {
  int64_t v;
  int rc = cmd_parse_int(s, &v);
  if (rc || v < 1) {
    cmd_err(c, "invalid field number: %s", cmd_quote(c, s));
    return 1;
  }
  *out = (size_t)v - 1;
  return 0;
}

/* Parses -o FORMAT (may be given several times). */
static int join_format(join_st *s, const char *arg) {
  cmd_ctx *c = s->c;
  const char *p = arg;
  size_t cap = s->no + strlen(arg) / 2 + 2;
  join_spec *nv;
  if (!strcmp(arg, "auto")) {
    s->autofmt = 1;
    return 0;
  }
  nv = arena_alloc(c->a, cap * sizeof *nv);
  if (!nv) return MSB_ENOMEM;
  if (s->no) memcpy(nv, s->o, s->no * sizeof *nv);
  s->o = nv;
  while (*p) {
    size_t len = strcspn(p, ", \t");
    char *item = arena_strndup(c->a, p, len);
    if (!item) return MSB_ENOMEM;
    if (!strcmp(item, "0")) {
      s->o[s->no].file = 0;
      s->o[s->no].field = 0;
    } else if ((item[0] == '1' || item[0] == '2') && item[1] == '.') {
      s->o[s->no].file = item[0] - '0';
      if (join_fieldnum(c, item + 2, &s->o[s->no].field)) return 1;
    } else {
      if (item[0] && item[1] == '.')
        cmd_err(c, "invalid file number in field spec: %s", cmd_quote(c, item));
      else
        cmd_err(c, "invalid field specifier: %s", cmd_quote(c, item));
      return 1;
    }
    s->no++;
    p += len;
    while (*p == ',' || *p == ' ' || *p == '\t') p++;
  }
  return 0;
}

static int join_load(join_st *s, int w, const char *name) {
  const uint8_t *d, *rec;
  size_t len, rl;
  cmd_lines it;
  join_file *f = &s->f[w];
  int rc = cmd_input(s->c, name, &d, &len);
  if (rc < 0) return rc;
  f->name = name;
  cmd_lines_init(&it, d, len, s->eol);
  while (cmd_lines_next(&it, &rec, &rl, NULL)) {
    if (f->n == f->cap) {
      join_line *nv = cmd_grow(s->c, f->v, f->n, &f->cap, sizeof *nv, 256);
      if (!nv) return MSB_ENOMEM;
      f->v = nv;
    }
    f->v[f->n].p = rec;
    f->v[f->n].len = rl;
    f->n++;
  }
  return 0;
}

/* Entry point: see the usage above. */
int cmd_join(cmd_ctx *c) {
  cmd_getopt g;
  join_st s;
  int opt, rc, i, show[2] = {0, 0}, only[2] = {0, 0}, header = 0;
  size_t a = 0, b = 0, f1 = (size_t)-1, f2 = (size_t)-1;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.tab = -1;
  s.check = -1;
  s.eol = '\n';
  cmd_opt_init(&g, c, join_opts, join_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'a':
    case 'v':
      if (strcmp(g.arg, "1") && strcmp(g.arg, "2")) {
        cmd_err(c, "invalid file number: %s", cmd_quote(c, g.arg));
        return 1;
      }
      show[g.arg[0] - '1'] = 1;
      if (opt == 'v') only[g.arg[0] - '1'] = 1;
      break;
    case 'e': s.empty = g.arg; break;
    case 'i': s.icase = 1; break;
    case 'j':
      if (join_fieldnum(c, g.arg, &f1)) return 1;
      f2 = f1;
      break;
    case '1':
      if (join_fieldnum(c, g.arg, &f1)) return 1;
      break;
    case '2':
      if (join_fieldnum(c, g.arg, &f2)) return 1;
      break;
    case 'o':
      if ((rc = join_format(&s, g.arg)) != 0) return rc < 0 ? rc : 1;
      break;
    case 't':
      if (g.arg[0] && g.arg[1] && strcmp(g.arg, "\\0")) {
        cmd_err(c, "multi-character tab %s", cmd_quote(c, g.arg));
        return 1;
      }
      s.tab = g.arg[1] ? 0 : (unsigned char)g.arg[0];
      if (!g.arg[0]) s.tab = '\n';
      break;
    case JOIN_O_CHECK: s.check = 1; break;
    case JOIN_O_NOCHECK: s.check = 0; break;
    case JOIN_O_HEADER: header = 1; break;
    case 'z': s.eol = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (g.nops != 2) return cmd_two_operands(&g);
  s.f[0].field = f1 == (size_t)-1 ? 0 : f1;
  s.f[1].field = f2 == (size_t)-1 ? 0 : f2;
  for (i = 0; i < 2; i++) {
    rc = join_load(&s, i, g.ops[i]);
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      return 1;
    }
  }
  if (s.autofmt && !s.o) {
    size_t k, n;
    join_spec *v;
    for (i = 0; i < 2; i++)
      s.nf[i] = s.f[i].n ? join_nfields(&s, &s.f[i].v[0]) : 0;
    n = 1 + s.nf[0] + s.nf[1];
    v = arena_alloc(c->a, n * sizeof *v);
    if (!v) return MSB_ENOMEM;
    v[0].file = 0;
    v[0].field = 0;
    s.no = 1;
    for (i = 0; i < 2; i++)
      for (k = 0; k < s.nf[i]; k++)
        if (k != s.f[i].field) {
          v[s.no].file = i + 1;
          v[s.no].field = k;
          s.no++;
        }
    s.o = v;
  }
  if (header && s.f[0].n && s.f[1].n) {
    join_out(&s, &s.f[0].v[0], &s.f[1].v[0]);
    a = b = 1;
  } else if (header) {
    if (s.f[0].n) join_out(&s, &s.f[0].v[0], NULL);
    if (s.f[1].n) join_out(&s, NULL, &s.f[1].v[0]);
    a = s.f[0].n ? 1 : 0;
    b = s.f[1].n ? 1 : 0;
  }
  s.f[0].seen = a;
  s.f[1].seen = b;
  while (a < s.f[0].n && b < s.f[1].n) {
    int d;
    if (join_read(&s, 0, a) || join_read(&s, 1, b)) return 1;
    d = join_keycmp(&s, &s.f[0].v[a], s.f[0].field, &s.f[1].v[b], s.f[1].field);
    if (d < 0) {
      s.unpairable = 1;
      if (show[0]) join_out(&s, &s.f[0].v[a], NULL);
      a++;
    } else if (d > 0) {
      s.unpairable = 1;
      if (show[1]) join_out(&s, NULL, &s.f[1].v[b]);
      b++;
    } else {
      size_t a2 = a + 1, b2 = b + 1, x, y;
      while (a2 < s.f[0].n) {
        if (join_read(&s, 0, a2)) return 1;
        if (join_keycmp(&s, &s.f[0].v[a2], s.f[0].field, &s.f[1].v[b],
                        s.f[1].field))
          break;
        a2++;
      }
      while (b2 < s.f[1].n) {
        if (join_read(&s, 1, b2)) return 1;
        if (join_keycmp(&s, &s.f[0].v[a], s.f[0].field, &s.f[1].v[b2],
                        s.f[1].field))
          break;
        b2++;
      }
      if (!only[0] && !only[1])
        for (x = a; x < a2; x++)
          for (y = b; y < b2; y++) join_out(&s, &s.f[0].v[x], &s.f[1].v[y]);
      a = a2;
      b = b2;
    }
    if (c->out->err) return c->out->err;
    if ((rc = cmd_tick(c, 0)) != 0) return rc;
  }
  for (; a < s.f[0].n; a++) {
    s.unpairable = 1;
    if (s.check != 0 && join_read(&s, 0, a)) return 1;
    if (show[0]) join_out(&s, &s.f[0].v[a], NULL);
  }
  for (; b < s.f[1].n; b++) {
    s.unpairable = 1;
    if (s.check != 0 && join_read(&s, 1, b)) return 1;
    if (show[1]) join_out(&s, NULL, &s.f[1].v[b]);
  }
  if (c->out->err) return c->out->err;
  if ((s.f[0].warned || s.f[1].warned) && s.check < 0) {
    cmd_err(c, "input is not in sorted order");
    return 1;
  }
  return 0;
}
