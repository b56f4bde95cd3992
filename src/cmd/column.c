/* column.c - columnate lists (util-linux column 2.38, C locale).
 *
 * Fill mode (default, -x for rows first) follows util-linux: the widest
 * entry rounded up past the next multiple of 8 gives the column width, the
 * terminal width (-c, else $COLUMNS, else 80) the column count, and tabs
 * pad between entries. Table mode (-t) splits lines at runs of blanks, or
 * at each character of -s without merging, pads every column but the last
 * to its widest cell and joins cells with -o (two spaces by default); rows
 * with fewer cells get empty ones; -R right-aligns, -N adds a header.
 * Other util-linux options (JSON, wrapping, trees...) are not supported and
 * are rejected as unknown options.
 *
 * Usage: column [options] [<file>...] */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char column_usage[] MSB_COLD =
    "\n"
    "Usage:\n"
    " column [options] [<file>...]\n"
    "\n"
    "Columnate lists.\n"
    "\n"
    "Options:\n"
    " -t, --table                      create a table\n"
    " -N, --table-columns <names>      comma separated columns names\n"
    " -R, --table-right <columns>      right align text in these columns\n"
    " -s, --separator <string>         possible table delimiters\n"
    " -o, --output-separator <string>  columns separator for table output\n"
    "                                    (default is two spaces)\n"
    " -c, --output-width <width>       width of output in number of "
    "characters\n"
    " -x, --fillrows                   fill rows before columns\n";

static const cmd_opt column_opts[] = {
    {'t', "table", CMD_ARG_NONE, 't'},
    {'N', "table-columns", CMD_ARG_REQ, 'N'},
    {'R', "table-right", CMD_ARG_REQ, 'R'},
    {'s', "separator", CMD_ARG_REQ, 's'},
    {'o', "output-separator", CMD_ARG_REQ, 'o'},
    {'c', "output-width", CMD_ARG_REQ, 'c'},
    {'x', "fillrows", CMD_ARG_NONE, 'x'},
    {0, 0, 0, 0}};

typedef struct column_cell {
  const uint8_t *p;
  size_t len;
} column_cell;

typedef struct column_vec {
  column_cell *v;
  size_t n, cap;
} column_vec;

static int column_push(cmd_ctx *c, column_vec *x, const uint8_t *p,
                       size_t len) {
  if (x->n == x->cap) {
    column_cell *nv = cmd_grow(c, x->v, x->n, &x->cap, sizeof *nv, 64);
    if (!nv) return MSB_ENOMEM;
    x->v = nv;
  }
  x->v[x->n].p = p;
  x->v[x->n].len = len;
  x->n++;
  return 0;
}

/* Display width in the C locale: printable ASCII counts, control bytes
 * (tabs too) and non-ASCII bytes count zero, as util-linux measures. */
static size_t column_width(const uint8_t *p, size_t n) {
  size_t i, w = 0;
  for (i = 0; i < n; i++)
    if (p[i] >= 0x20 && p[i] < 0x7f) w++;
  return w;
}

static void column_pad(buf *o, size_t n) {
  while (n--) buf_putc(o, ' ');
}

/* Table mode over the collected lines. */
static int column_table(cmd_ctx *c, const column_vec *lines, const char *sep,
                        const char *osep, const char *names,
                        const char *right) {
  column_vec cells;
  size_t *rowstart, *width, ncol = 0, r, k, nrows = lines->n;
  int *ralign;
  int hdr = names != NULL;
  memset(&cells, 0, sizeof cells);
  rowstart = arena_alloc(c->a, (nrows + 2) * sizeof *rowstart);
  if (!rowstart) return MSB_ENOMEM;
  r = 0;
  if (hdr) {
    const char *p = names;
    rowstart[r++] = 0;
    for (;;) {
      const char *q = strchr(p, ',');
      size_t l = q ? (size_t)(q - p) : strlen(p);
      if (column_push(c, &cells, (const uint8_t *)p, l) < 0) return MSB_ENOMEM;
      if (!q) break;
      p = q + 1;
    }
  }
  for (k = 0; k < nrows; k++) {
    const uint8_t *s = lines->v[k].p, *e = s + lines->v[k].len, *p = s;
    rowstart[r++] = cells.n;
    if (!sep) {
      for (;;) {
        const uint8_t *st;
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        if (p >= e) break;
        st = p;
        while (p < e && *p != ' ' && *p != '\t') p++;
        if (column_push(c, &cells, st, (size_t)(p - st)) < 0) return MSB_ENOMEM;
      }
    } else {
      for (;;) {
        const uint8_t *st = p;
        while (p < e && !strchr(sep, *p)) p++;
        if (column_push(c, &cells, st, (size_t)(p - st)) < 0) return MSB_ENOMEM;
        if (p >= e) break;
        p++;
      }
    }
  }
  rowstart[r] = cells.n;
  nrows = r;
  for (r = 0; r < nrows; r++)
    if (rowstart[r + 1] - rowstart[r] > ncol)
      ncol = rowstart[r + 1] - rowstart[r];
  width = arena_zalloc(c->a, (ncol + 1) * sizeof *width);
  ralign = arena_zalloc(c->a, (ncol + 1) * sizeof *ralign);
  if (!width || !ralign) return MSB_ENOMEM;
  if (right) {
    const char *p = right;
    while (*p) {
      long v = strtol(p, NULL, 10);
      if (v >= 1 && (size_t)v <= ncol) ralign[v - 1] = 1;
      p += strcspn(p, ",");
      if (*p) p++;
    }
  }
  for (r = 0; r < nrows; r++)
    for (k = rowstart[r]; k < rowstart[r + 1]; k++) {
      size_t w = column_width(cells.v[k].p, cells.v[k].len);
      if (w > width[k - rowstart[r]]) width[k - rowstart[r]] = w;
    }
  for (r = 0; r < nrows; r++) {
    size_t nc = rowstart[r + 1] - rowstart[r];
    for (k = 0; k < ncol; k++) {
      const column_cell *cl = k < nc ? &cells.v[rowstart[r] + k] : NULL;
      size_t len = cl ? column_width(cl->p, cl->len) : 0;
      int last = k + 1 == ncol;
      if (k) buf_puts(c->out, osep);
      if (ralign[k]) column_pad(c->out, width[k] - len);
      if (cl) buf_put(c->out, cl->p, cl->len);
      if (!ralign[k] && !last) column_pad(c->out, width[k] - len);
    }
    buf_putc(c->out, '\n');
  }
  return c->out->err;
}

/* Fill mode, columns first (or rows first with -x), util-linux style. */
static int column_fill(cmd_ctx *c, const column_vec *e, size_t width,
                       int rows) {
  size_t maxl = 0, ncols, nrows, i, r, col;
  buf *o = c->out;
  if (!e->n) return 0;
  for (i = 0; i < e->n; i++)
    if (column_width(e->v[i].p, e->v[i].len) > maxl)
      maxl = column_width(e->v[i].p, e->v[i].len);
  if (maxl >= width) {
    /* An entry as wide as the output: one entry per line (util-linux). */
    for (i = 0; i < e->n; i++) {
      buf_put(o, e->v[i].p, e->v[i].len);
      buf_putc(o, '\n');
    }
    return o->err;
  }
  maxl = (maxl + 8) & ~(size_t)7;
  ncols = width / maxl;
  if (rows) {
    /* util-linux never wraps -x output when no column fits. */
    size_t chcnt = 0, endcol = maxl, cnt;
    col = 0;
    for (i = 0; i < e->n; i++) {
      buf_put(o, e->v[i].p, e->v[i].len);
      chcnt += column_width(e->v[i].p, e->v[i].len);
      if (i + 1 == e->n) break;
      if (++col == ncols) {
        chcnt = col = 0;
        endcol = maxl;
        buf_putc(o, '\n');
      } else {
        while ((cnt = (chcnt + 8) & ~(size_t)7) <= endcol) {
          buf_putc(o, '\t');
          chcnt = cnt;
        }
        endcol += maxl;
      }
    }
    buf_putc(o, '\n');
    return o->err;
  }
  if (!ncols) ncols = 1;
  nrows = e->n / ncols + (e->n % ncols ? 1 : 0);
  for (r = 0; r < nrows; r++) {
    size_t endcol = maxl, chcnt = 0, base = r, cnt;
    for (col = 0; col < ncols; col++) {
      buf_put(o, e->v[base].p, e->v[base].len);
      chcnt += column_width(e->v[base].p, e->v[base].len);
      if ((base += nrows) >= e->n) break;
      while ((cnt = (chcnt + 8) & ~(size_t)7) <= endcol) {
        buf_putc(o, '\t');
        chcnt = cnt;
      }
      endcol += maxl;
    }
    buf_putc(o, '\n');
  }
  return o->err;
}

/* Entry point: see the usage above. */
int cmd_column(cmd_ctx *c) {
  cmd_getopt g;
  int opt, i, nops, status = 0, table = 0, rows = 0, rc;
  const char *sep = NULL, *osep = "  ", *names = NULL, *right = NULL;
  size_t width = 80;
  char *const *ops;
  column_vec lines;
  char **env;
  for (env = c->envp; env && *env; env++)
    if (!strncmp(*env, "COLUMNS=", 8)) {
      long v = strtol(*env + 8, NULL, 10);
      if (v > 0) width = (size_t)v;
    }
  memset(&lines, 0, sizeof lines);
  cmd_opt_init(&g, c, column_opts, column_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 't': table = 1; break;
    case 'N': names = g.arg; break;
    case 'R': right = g.arg; break;
    case 's': sep = g.arg; break;
    case 'o': osep = g.arg; break;
    case 'c': {
      int64_t v;
      if (cmd_parse_int(g.arg, &v) || v <= 0) {
        cmd_err(c, "invalid columns argument: '%s'", g.arg);
        return 1;
      }
      width = v > 100000 ? 100000 : (size_t)v;
      break;
    }
    case 'x': rows = 1; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  ops = cmd_operands(&g, &nops);
  for (i = 0; i < nops; i++) {
    const uint8_t *d, *rec;
    size_t len, rl;
    cmd_lines it;
    rc = cmd_input(c, ops[i], &d, &len);
    if (rc < 0) {
      cmd_err(c, "%s: %s", ops[i], cmd_strerror(rc));
      status = 1;
      continue;
    }
    cmd_lines_init(&it, d, len, '\n');
    while (cmd_lines_next(&it, &rec, &rl, NULL)) {
      size_t k;
      int blank = 1;
      for (k = 0; k < rl && blank; k++)
        if (rec[k] != ' ' && rec[k] != '\t') blank = 0;
      if (blank) continue;
      if (column_push(c, &lines, rec, rl) < 0) return MSB_ENOMEM;
    }
  }
  rc = table ? column_table(c, &lines, sep, osep, names, right)
             : column_fill(c, &lines, width, rows);
  return rc < 0 ? rc : status;
}
