/* diff.c - compare files line by line (GNU diffutils 3.8).
 *
 * Usage: diff [OPTION]... FILES
 *   -q, --brief               report only when files differ
 *   -s, --report-identical-files
 *   -u, -U NUM, --unified[=NUM]   unified context (default 3)
 *   -c, -C NUM, --context[=NUM]   copied context (default 3)
 *       --normal              normal diff (the default)
 *   -r, --recursive           recursively compare subdirectories
 *   -N, --new-file            treat absent files as empty
 *   -i, --ignore-case         ignore case differences
 *   -b, --ignore-space-change ignore changes in the amount of white space
 *   -w, --ignore-all-space    ignore all white space
 *   -B, --ignore-blank-lines  ignore changes whose lines are all blank
 *   -a, --text                treat all files as text
 *       --label LABEL         use LABEL instead of the file name (twice)
 * The algorithm is Myers' O(ND) with the linear-space middle snake, as in
 * GNU's compareseq, followed by GNU's boundary shifting, so hunks come out
 * as GNU prints them for the inputs agents compare. Timestamps in headers
 * are the sandbox mtimes in GNU's format. Exit 0 same, 1 different,
 * 2 trouble. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char diff_usage[] MSB_COLD =
    "Usage: diff [OPTION]... FILES\n"
    "Compare FILES line by line.\n"
    "\n"
    "  -q, --brief                   report only when files differ\n"
    "  -s, --report-identical-files  report when two files are the same\n"
    "  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied "
    "context\n"
    "  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified "
    "context\n"
    "      --normal                  output a normal diff (the default)\n"
    "  -r, --recursive               recursively compare any subdirectories "
    "found\n"
    "  -N, --new-file                treat absent files as empty\n"
    "  -i, --ignore-case             ignore case differences in file "
    "contents\n"
    "  -b, --ignore-space-change     ignore changes in the amount of white "
    "space\n"
    "  -w, --ignore-all-space        ignore all white space\n"
    "  -B, --ignore-blank-lines      ignore changes where lines are all "
    "blank\n"
    "  -a, --text                    treat all files as text\n"
    "      --label LABEL             use LABEL instead of file name and "
    "timestamp\n"
    "      --help                    display this help and exit\n"
    "  -v, --version                 output version information and exit\n";

enum { DIFF_NORMAL = 256, DIFF_LABEL, DIFF_NOCOLOR };
static const cmd_opt diff_opts[] = {
    {'q', "brief", CMD_ARG_NONE, 'q'},
    {'s', "report-identical-files", CMD_ARG_NONE, 's'},
    {'u', 0, CMD_ARG_NONE, 'u'},
    {'U', 0, CMD_ARG_REQ, 'U'},
    {0, "unified", CMD_ARG_OPT, 'U'},
    {'c', 0, CMD_ARG_NONE, 'c'},
    {'C', 0, CMD_ARG_REQ, 'C'},
    {0, "context", CMD_ARG_OPT, 'C'},
    {0, "normal", CMD_ARG_NONE, DIFF_NORMAL},
    {'r', "recursive", CMD_ARG_NONE, 'r'},
    {'N', "new-file", CMD_ARG_NONE, 'N'},
    {'i', "ignore-case", CMD_ARG_NONE, 'i'},
    {'b', "ignore-space-change", CMD_ARG_NONE, 'b'},
    {'w', "ignore-all-space", CMD_ARG_NONE, 'w'},
    {'B', "ignore-blank-lines", CMD_ARG_NONE, 'B'},
    {'a', "text", CMD_ARG_NONE, 'a'},
    {0, "label", CMD_ARG_REQ, DIFF_LABEL},
    {0, 0, 0, 0}};

typedef struct diff_opt {
  int fmt; /* 'n' normal, 'u' unified, 'c' context */
  int ctx, brief, same, rec, newfile, icase, space, allspace, blank, text;
  const char *label[2];
  const char *argv_flags; /* "-r", "-ru" ... for "diff -r a b" lines */
} diff_opt;

typedef struct diff_file {
  const char *name;  /* as printed */
  const char *path;  /* absolute, or NULL when absent (-N) */
  const uint8_t *d;
  size_t len;
  int64_t mtime;
  size_t n;          /* lines */
  const uint8_t **ln; /* line starts; ln[n] is the end */
  int *eq;           /* equivalence class per line */
  char *chg;         /* changed flags, with a sentinel on each side */
  int noeol;         /* last line lacks '\n' */
} diff_file;

/* ---- line equivalence -------------------------------------------------- */

static int diff_space(int ch) {
  return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' || ch == '\r';
}

static int diff_lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

/* Hashes a line under the comparison options. */
static uint64_t diff_hash(const diff_opt *o, const uint8_t *p,
                          const uint8_t *e) {
  uint64_t h = 1469598103934665603ull;
  int pend = 0;
  for (; p < e; p++) {
    int ch = *p;
    if ((o->allspace || o->space) && diff_space(ch)) {
      pend = o->space && !o->allspace;
      continue;
    }
    if (pend) {
      h = (h ^ ' ') * 1099511628211ull;
      pend = 0;
    }
    if (o->icase) ch = diff_lower(ch);
    h = (h ^ (uint64_t)ch) * 1099511628211ull;
  }
  return h;
}

/* Whether two lines are equal under the options. */
static int diff_same(const diff_opt *o, const uint8_t *a, const uint8_t *ae,
                     const uint8_t *b, const uint8_t *be) {
  if (!o->icase && !o->space && !o->allspace)
    return ae - a == be - b && !memcmp(a, b, (size_t)(ae - a));
  for (;;) {
    if (o->allspace || o->space) {
      int sa = 0, sb = 0;
      while (a < ae && diff_space(*a)) a++, sa = 1;
      while (b < be && diff_space(*b)) b++, sb = 1;
      if (o->space && !o->allspace && sa != sb && a < ae && b < be) return 0;
    }
    if (a == ae || b == be) return a == ae && b == be;
    if ((o->icase ? diff_lower(*a) : *a) != (o->icase ? diff_lower(*b) : *b))
      return 0;
    a++;
    b++;
  }
}

/* Line end without its newline. */
static const uint8_t *diff_end(const diff_file *f, size_t i) {
  const uint8_t *e = f->ln[i + 1];
  return e > f->ln[i] && e[-1] == '\n' ? e - 1 : e;
}

static int diff_split(cmd_ctx *c, diff_file *f) {
  size_t i, n = 0;
  for (i = 0; i < f->len; i++)
    if (f->d[i] == '\n') n++;
  if (f->len && f->d[f->len - 1] != '\n') {
    n++;
    f->noeol = 1;
  }
  f->n = n;
  f->ln = arena_alloc(c->a, sizeof *f->ln * (n + 1));
  f->eq = arena_alloc(c->a, sizeof *f->eq * (n + 1));
  f->chg = arena_zalloc(c->a, n + 2);
  if (!f->ln || !f->eq || !f->chg) return MSB_ENOMEM;
  f->chg++; /* chg[-1] and chg[n] are sentinels */
  n = 0;
  f->ln[0] = f->d;
  for (i = 0; i < f->len; i++)
    if (f->d[i] == '\n') f->ln[++n] = f->d + i + 1;
  f->ln[f->n] = f->d + f->len;
  return 0;
}

/* Assigns equivalence classes with one open-addressing table over both
 * files, so the core compares ints. */
static int diff_classes(cmd_ctx *c, const diff_opt *o, diff_file *f) {
  size_t cap = 16, i, total = f[0].n + f[1].n;
  int next = 0, k;
  typedef struct slot {
    uint64_t h;
    int cls;
    int file;
    size_t line;
  } slot;
  slot *t;
  while (cap < 2 * total + 2) cap *= 2;
  t = mem_alloc(c->m, sizeof *t * cap);
  if (!t) return MSB_ENOMEM;
  for (i = 0; i < cap; i++) t[i].cls = -1;
  for (k = 0; k < 2; k++)
    for (i = 0; i < f[k].n; i++) {
      const uint8_t *p = f[k].ln[i], *e = diff_end(&f[k], i);
      /* a last line without its newline never equals a complete line,
       * unless white space is ignored: GNU counts the newline as space */
      int part = i + 1 == f[k].n && f[k].noeol && !o->space && !o->allspace;
      uint64_t h = diff_hash(o, p, e) ^ (uint64_t)part;
      size_t j = (size_t)h & (cap - 1);
      for (;; j = (j + 1) & (cap - 1)) {
        slot *s = &t[j];
        if (s->cls < 0) {
          s->h = h;
          s->cls = next++;
          s->file = k;
          s->line = i;
          break;
        }
        if (s->h == h &&
            part == (s->line + 1 == f[s->file].n && f[s->file].noeol &&
                     !o->space && !o->allspace) &&
            diff_same(o, p, e, f[s->file].ln[s->line],
                      diff_end(&f[s->file], s->line)))
          break;
      }
      f[k].eq[i] = t[j].cls;
    }
  mem_free(c->m, t);
  return 0;
}

/* ---- Myers' middle snake (linear space) ------------------------------- */

typedef struct diff_ctx {
  const int *a, *b;     /* classes of the lines kept after discarding */
  const long *ra, *rb;  /* their real line numbers */
  char *ca, *cb;
  long *fd, *bd; /* diagonal vectors, offset by n + m + 1 */
  cmd_ctx *c;
  uint64_t work;
} diff_ctx;

/* Finds the middle snake of a[xo..xl) / b[yo..yl): stores its split point. */
static void diff_diag(diff_ctx *x, long xo, long xl, long yo, long yl, long *sx,
                      long *sy) {
  long *fd = x->fd, *bd = x->bd;
  long dmin = xo - yl, dmax = xl - yo, fmid = xo - yo, bmid = xl - yl;
  long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid, d;
  int odd = (fmid - bmid) & 1;
  fd[fmid] = xo;
  bd[bmid] = xl;
  for (;;) {
    x->work++;
    if (fmin > dmin)
      fd[--fmin - 1] = -1;
    else
      ++fmin;
    if (fmax < dmax)
      fd[++fmax + 1] = -1;
    else
      --fmax;
    for (d = fmax; d >= fmin; d -= 2) {
      long px, py, tlo = fd[d - 1], thi = fd[d + 1];
      px = tlo >= thi ? tlo + 1 : thi;
      py = px - d;
      while (px < xl && py < yl && x->a[px] == x->b[py]) px++, py++;
      fd[d] = px;
      if (odd && bmin <= d && d <= bmax && bd[d] <= px) {
        *sx = px;
        *sy = py;
        return;
      }
    }
    if (bmin > dmin)
      bd[--bmin - 1] = LONG_MAX;
    else
      ++bmin;
    if (bmax < dmax)
      bd[++bmax + 1] = LONG_MAX;
    else
      --bmax;
    for (d = bmax; d >= bmin; d -= 2) {
      long px, py, tlo = bd[d - 1], thi = bd[d + 1];
      px = tlo < thi ? tlo : thi - 1;
      py = px - d;
      while (px > xo && py > yo && x->a[px - 1] == x->b[py - 1]) px--, py--;
      bd[d] = px;
      if (!odd && fmin <= d && d <= fmax && px <= fd[d]) {
        *sx = px;
        *sy = py;
        return;
      }
    }
  }
}

/* Marks changed lines of a[xo..xl) and b[yo..yl): GNU's compareseq with an
 * explicit stack (the recursion depth would follow the edit distance). */
static int diff_compare(diff_ctx *x, long xl0, long yl0) {
  typedef struct range {
    long xo, xl, yo, yl;
  } range;
  range *st;
  size_t top = 0, cap = 64;
  st = mem_alloc(x->c->m, sizeof *st * cap);
  if (!st) return MSB_ENOMEM;
  st[top++] = (range){0, xl0, 0, yl0};
  while (top) {
    range r = st[--top];
    long sx, sy;
    while (r.xo < r.xl && r.yo < r.yl && x->a[r.xo] == x->b[r.yo])
      r.xo++, r.yo++;
    while (r.xl > r.xo && r.yl > r.yo && x->a[r.xl - 1] == x->b[r.yl - 1])
      r.xl--, r.yl--;
    if (r.xo == r.xl) {
      while (r.yo < r.yl) x->cb[x->rb[r.yo++]] = 1;
      continue;
    }
    if (r.yo == r.yl) {
      while (r.xo < r.xl) x->ca[x->ra[r.xo++]] = 1;
      continue;
    }
    if ((x->work & 1023) == 0 && cmd_tick(x->c, 1) < 0) {
      mem_free(x->c->m, st);
      return MSB_ELIMIT;
    }
    diff_diag(x, r.xo, r.xl, r.yo, r.yl, &sx, &sy);
    if (top + 2 > cap) {
      range *n2 = mem_realloc(x->c->m, st, sizeof *st * cap * 2);
      if (!n2) {
        mem_free(x->c->m, st);
        return MSB_ENOMEM;
      }
      st = n2;
      cap *= 2;
    }
    /* the left half first, as GNU's recursion does */
    st[top++] = (range){sx, r.xl, sy, r.yl};
    st[top++] = (range){r.xo, sx, r.yo, sy};
  }
  mem_free(x->c->m, st);
  return 0;
}

/* GNU's discard_confusing_lines: lines with no match in the other file
 * are changed for sure and are left out of the search; lines matching very
 * many others are left out too when they sit inside such a run. This is
 * what makes GNU's hunks what they are, so it is reproduced exactly. */
static int diff_discard(cmd_ctx *c, diff_file *f, int **keep, long **real,
                        long *kept) {
  size_t ncls = 0, i;
  long *count[2];
  char *dis[2];
  int k;
  for (k = 0; k < 2; k++)
    for (i = 0; i < f[k].n; i++)
      if ((size_t)f[k].eq[i] + 1 > ncls) ncls = (size_t)f[k].eq[i] + 1;
  for (k = 0; k < 2; k++) {
    count[k] = arena_zalloc(c->a, sizeof(long) * (ncls + 1));
    dis[k] = arena_zalloc(c->a, f[k].n + 1);
    keep[k] = arena_alloc(c->a, sizeof(int) * (f[k].n + 1));
    real[k] = arena_alloc(c->a, sizeof(long) * (f[k].n + 1));
    if (!count[k] || !dis[k] || !keep[k] || !real[k]) return MSB_ENOMEM;
    for (i = 0; i < f[k].n; i++) count[k][f[k].eq[i]]++;
  }
  for (k = 0; k < 2; k++) {
    long end = (long)f[k].n, many = 5, tem = end / 64, li;
    while ((tem = tem >> 2) > 0) many *= 2;
    for (li = 0; li < end; li++) {
      long nm = count[1 - k][f[k].eq[li]];
      if (nm == 0)
        dis[k][li] = 1;
      else if (nm > many)
        dis[k][li] = 2;
    }
  }
  for (k = 0; k < 2; k++) {
    char *d = dis[k];
    long end = (long)f[k].n, li, j, length, prov, consec, minimum, t2;
    for (li = 0; li < end; li++) {
      if (d[li] == 2) {
        d[li] = 0;
        continue;
      }
      if (!d[li]) continue;
      prov = 0;
      for (j = li; j < end && d[j]; j++)
        if (d[j] == 2) prov++;
      while (j > li && d[j - 1] == 2) d[--j] = 0, prov--;
      length = j - li;
      if (prov * 4 > length) {
        while (j > li)
          if (d[--j] == 2) d[j] = 0;
        continue;
      }
      minimum = 1;
      t2 = length >> 2;
      while (0 < (t2 >>= 2)) minimum <<= 1;
      minimum++;
      for (j = 0, consec = 0; j < length; j++) {
        if (d[li + j] != 2)
          consec = 0;
        else if (minimum == ++consec)
          j -= consec;
        else if (minimum < consec)
          d[li + j] = 0;
      }
      for (j = 0, consec = 0; j < length; j++) {
        if (j >= 8 && d[li + j] == 1) break;
        if (d[li + j] == 2)
          consec = 0, d[li + j] = 0;
        else if (d[li + j] == 0)
          consec = 0;
        else
          consec++;
        if (consec == 3) break;
      }
      li += length - 1;
      for (j = 0, consec = 0; j < length; j++) {
        if (j >= 8 && d[li - j] == 1) break;
        if (d[li - j] == 2)
          consec = 0, d[li - j] = 0;
        else if (d[li - j] == 0)
          consec = 0;
        else
          consec++;
        if (consec == 3) break;
      }
    }
  }
  for (k = 0; k < 2; k++) {
    long j = 0;
    for (i = 0; i < f[k].n; i++)
      if (!dis[k][i]) {
        keep[k][j] = f[k].eq[i];
        real[k][j++] = (long)i;
      } else {
        f[k].chg[i] = 1;
      }
    kept[k] = j;
  }
  return 0;
}

/* GNU's shift_boundaries: slide each run of changed lines back to merge
 * with earlier runs, then forward as far as equal lines allow, then back
 * to line up with a run in the other file, so hunks land where GNU puts
 * them. Both change arrays have zero sentinels at -1 and n. */
static void diff_shift(diff_file *f, const diff_file *other) {
  const int *eq = f->eq;
  char *chg = f->chg;
  const char *ochg = other->chg;
  long i = 0, j = 0, end = (long)f->n;
  for (;;) {
    long runlen, start, corr;
    while (i < end && !chg[i]) {
      while (ochg[j++]) {
      }
      i++;
    }
    if (i == end) break;
    start = i;
    while (chg[++i]) {
    }
    while (ochg[j]) j++;
    do {
      runlen = i - start;
      while (start && eq[start - 1] == eq[i - 1]) {
        chg[--start] = 1;
        chg[--i] = 0;
        while (chg[start - 1]) start--;
        while (ochg[--j]) {
        }
      }
      corr = ochg[j - 1] ? i : end;
      while (i != end && eq[start] == eq[i]) {
        chg[start++] = 0;
        chg[i++] = 1;
        while (chg[i]) i++;
        while (ochg[++j]) corr = i;
      }
    } while (runlen != i - start);
    while (corr < i) {
      chg[--start] = 1;
      chg[--i] = 0;
      while (ochg[--j]) {
      }
    }
  }
}

/* ---- the edit script ---------------------------------------------------- */

typedef struct diff_hunk {
  long l0, l1;       /* first line in each file (0-based) */
  long del, ins;     /* lines deleted from file 0, inserted from file 1 */
  int blank;         /* -B: every line of the change is blank */
} diff_hunk;

/* Whether lines [s, s+n) are all blank, as -B judges them: empty, or only
 * white space when -b or -w is given. */
static int diff_blank_range(const diff_opt *o, const diff_file *f, long s,
                            long n) {
  long i;
  for (i = s; i < s + n; i++) {
    const uint8_t *p = f->ln[i], *e = diff_end(f, i);
    if (o->space || o->allspace)
      while (p < e && (diff_space(*p) || *p == ' ')) p++;
    if (p != e) return 0;
  }
  return 1;
}

/* Collects the changes; under -B each one is marked when all its lines
 * are blank, and a hunk of only such changes is not printed. */
static int diff_script(cmd_ctx *c, const diff_opt *o, diff_file *f,
                       diff_hunk **out, size_t *count) {
  long i = 0, j = 0, n0 = (long)f[0].n, n1 = (long)f[1].n;
  size_t n = 0, cap = 16;
  diff_hunk *h = arena_alloc(c->a, sizeof *h * cap);
  if (!h) return MSB_ENOMEM;
  while (i < n0 || j < n1) {
    if (f[0].chg[i] || f[1].chg[j]) {
      diff_hunk k = {i, j, 0, 0, 0};
      while (f[0].chg[i]) i++, k.del++;
      while (f[1].chg[j]) j++, k.ins++;
      k.blank = o->blank && diff_blank_range(o, &f[0], k.l0, k.del) &&
                diff_blank_range(o, &f[1], k.l1, k.ins);
      if (n == cap) {
        diff_hunk *h2 = arena_alloc(c->a, sizeof *h * cap * 2);
        if (!h2) return MSB_ENOMEM;
        memcpy(h2, h, sizeof *h * cap);
        h = h2;
        cap *= 2;
      }
      h[n++] = k;
    } else {
      i++;
      j++;
    }
  }
  *out = h;
  *count = n;
  return 0;
}

/* Whether changes [k, e) are all blank (-B): such a hunk is skipped. */
static int diff_trivial(const diff_hunk *h, size_t k, size_t e) {
  for (; k < e; k++)
    if (!h[k].blank) return 0;
  return 1;
}

/* ---- output ------------------------------------------------------------ */

static void diff_line(buf *b, const char *prefix, const diff_file *f, long i) {
  buf_puts(b, prefix);
  buf_put(b, f->ln[i], (size_t)(diff_end(f, i) - f->ln[i]));
  buf_putc(b, '\n');
  if (i == (long)f->n - 1 && f->noeol)
    buf_puts(b, "\\ No newline at end of file\n");
}

static void diff_range(buf *b, long a, long e, int sep) {
  /* a, e are 1-based first and last; e < a means an empty range at e */
  if (e > a)
    buf_printf(b, "%ld%c%ld", a, sep, e);
  else
    buf_printf(b, "%ld", e);
}

static void diff_normal(buf *b, const diff_file *f, const diff_hunk *h,
                        size_t n) {
  size_t k;
  long i;
  for (k = 0; k < n; k++) {
    const diff_hunk *x = &h[k];
    if (x->blank) continue;
    diff_range(b, x->l0 + 1, x->l0 + x->del, ',');
    buf_putc(b, x->del && x->ins ? 'c' : x->del ? 'd' : 'a');
    diff_range(b, x->l1 + 1, x->l1 + x->ins, ',');
    buf_putc(b, '\n');
    for (i = 0; i < x->del; i++) diff_line(b, "< ", &f[0], x->l0 + i);
    if (x->del && x->ins) buf_puts(b, "---\n");
    for (i = 0; i < x->ins; i++) diff_line(b, "> ", &f[1], x->l1 + i);
  }
}

static void diff_stamp(cmd_ctx *c, buf *b, const char *mark, const diff_file *f,
                       const char *label, int ctx_style) {
  char t[48];
  if (label) {
    buf_printf(b, "%s %s\n", mark, label);
    return;
  }
  (void)c;
  buf_printf(b, "%s %s\t", mark, f->name);
  if (*mark == '*' || (*mark == '-' && ctx_style)) {
    cmd_strftime(b, "%a %b %e %H:%M:%S %Y\n", f->mtime);
    return;
  }
  cmd_time_full(f->mtime, t);
  buf_printf(b, "%s\n", t);
}

/* Groups changes into hunks with ctx lines of context; returns the index
 * one past the last change of the group starting at k. */
static size_t diff_group(const diff_hunk *h, size_t n, size_t k, int ctx) {
  size_t e = k + 1;
  /* Like GNU's find_hunk: a blank-only (-B) change joins only when it is
   * within ctx lines, any other within 2 * ctx. */
  while (e < n && h[e].l0 - (h[e - 1].l0 + h[e - 1].del) <
                      (h[e].blank ? (long)ctx : 2L * ctx + 1))
    e++;
  return e;
}

/* The lines a hunk of changes [k, e) shows in each file, context
 * included: [s0, e0) of file 0 and [s1, e1) of file 1. */
static void diff_bounds(const diff_opt *o, const diff_file *f,
                        const diff_hunk *h, size_t k, size_t e, long *s0,
                        long *e0, long *s1, long *e1) {
  *s0 = h[k].l0 - o->ctx < 0 ? 0 : h[k].l0 - o->ctx;
  *s1 = h[k].l1 - (h[k].l0 - *s0);
  *e0 = h[e - 1].l0 + h[e - 1].del + o->ctx;
  if (*e0 > (long)f[0].n) *e0 = (long)f[0].n;
  *e1 = h[e - 1].l1 + h[e - 1].ins + (*e0 - (h[e - 1].l0 + h[e - 1].del));
}

static void diff_unified(buf *b, const diff_opt *o, const diff_file *f,
                         const diff_hunk *h, size_t n) {
  size_t k = 0, e, q;
  while (k < n) {
    long s0, e0, s1, e1, i, j;
    e = diff_group(h, n, k, o->ctx);
    if (diff_trivial(h, k, e)) {
      k = e;
      continue;
    }
    diff_bounds(o, f, h, k, e, &s0, &e0, &s1, &e1);
    buf_puts(b, "@@ -");
    if (e0 - s0 == 1)
      buf_printf(b, "%ld", s0 + 1);
    else if (e0 == s0)
      buf_printf(b, "%ld,0", s0);
    else
      buf_printf(b, "%ld,%ld", s0 + 1, e0 - s0);
    buf_puts(b, " +");
    if (e1 - s1 == 1)
      buf_printf(b, "%ld", s1 + 1);
    else if (e1 == s1)
      buf_printf(b, "%ld,0", s1);
    else
      buf_printf(b, "%ld,%ld", s1 + 1, e1 - s1);
    buf_puts(b, " @@\n");
    i = s0;
    j = s1;
    for (q = k; q < e; q++) {
      while (i < h[q].l0) diff_line(b, " ", &f[0], i++), j++;
      for (; i < h[q].l0 + h[q].del; i++) diff_line(b, "-", &f[0], i);
      for (; j < h[q].l1 + h[q].ins; j++) diff_line(b, "+", &f[1], j);
    }
    while (i < e0) diff_line(b, " ", &f[0], i++);
    k = e;
  }
}

static void diff_context(buf *b, const diff_opt *o, const diff_file *f,
                         const diff_hunk *h, size_t n) {
  size_t k = 0, e, q;
  while (k < n) {
    long s0, e0, s1, e1, i, dels = 0, inss = 0;
    e = diff_group(h, n, k, o->ctx);
    if (diff_trivial(h, k, e)) {
      k = e;
      continue;
    }
    diff_bounds(o, f, h, k, e, &s0, &e0, &s1, &e1);
    for (q = k; q < e; q++) dels += h[q].del, inss += h[q].ins;
    buf_puts(b, "***************\n*** ");
    diff_range(b, s0 + 1, e0, ',');
    buf_puts(b, " ****\n");
    if (dels) {
      i = s0;
      for (q = k; q < e; q++) {
        while (i < h[q].l0) diff_line(b, "  ", &f[0], i++);
        for (; i < h[q].l0 + h[q].del; i++)
          diff_line(b, h[q].ins ? "! " : "- ", &f[0], i);
      }
      while (i < e0) diff_line(b, "  ", &f[0], i++);
    }
    buf_puts(b, "--- ");
    diff_range(b, s1 + 1, e1, ',');
    buf_puts(b, " ----\n");
    if (inss) {
      i = s1;
      for (q = k; q < e; q++) {
        while (i < h[q].l1) diff_line(b, "  ", &f[1], i++);
        for (; i < h[q].l1 + h[q].ins; i++)
          diff_line(b, h[q].del ? "! " : "+ ", &f[1], i);
      }
      while (i < e1) diff_line(b, "  ", &f[1], i++);
    }
    k = e;
  }
}

/* ---- comparing two files ---------------------------------------------- */

static int diff_binary(const diff_file *f) {
  size_t n = f->len < 8192 ? f->len : 8192;
  return memchr(f->d, 0, n) != NULL;
}

/* Like GNU's find_identical_ends: the identical leading and trailing
 * lines take no part in the search (only `horizon` of them, the context
 * the output needs, stay), which decides the line counts and match counts
 * that discard_confusing_lines sees. mid[] are views into f[]. */
static void diff_middle(const diff_opt *o, const diff_file *f, diff_file *mid) {
  size_t pre = 0, suf = 0, n0 = f[0].n, n1 = f[1].n, h, lo, k;
  long horizon = o->fmt == 'n' ? 0 : o->ctx;
  while (pre < n0 && pre < n1 &&
         f[0].ln[pre + 1] - f[0].ln[pre] == f[1].ln[pre + 1] - f[1].ln[pre] &&
         !memcmp(f[0].ln[pre], f[1].ln[pre],
                 (size_t)(f[0].ln[pre + 1] - f[0].ln[pre])))
    pre++;
  while (suf < n0 - pre && suf < n1 - pre &&
         f[0].ln[n0 - suf] - f[0].ln[n0 - suf - 1] ==
             f[1].ln[n1 - suf] - f[1].ln[n1 - suf - 1] &&
         !memcmp(f[0].ln[n0 - suf - 1], f[1].ln[n1 - suf - 1],
                 (size_t)(f[0].ln[n0 - suf] - f[0].ln[n0 - suf - 1])))
    suf++;
  h = (size_t)horizon;
  pre = pre > h ? pre - h : 0;
  suf = suf > h ? suf - h : 0;
  for (k = 0; k < 2; k++) {
    lo = pre;
    mid[k] = f[k];
    mid[k].ln += lo;
    mid[k].eq += lo;
    mid[k].chg += lo;
    mid[k].n = f[k].n - pre - suf;
    mid[k].noeol = f[k].noeol && suf == 0;
  }
}

/* Compares two loaded files; prints and returns 0/1 or a negative code. */
static int diff_files(cmd_ctx *c, const diff_opt *o, diff_file *f,
                      const char *header) {
  diff_ctx x;
  diff_hunk *h;
  size_t n, k;
  long *v, *real[2], kept[2];
  int *keep[2];
  diff_file mid[2];
  int rc;
  if (f[0].len == f[1].len && !memcmp(f[0].d, f[1].d, f[0].len)) {
    if (o->same)
      buf_printf(c->out, "Files %s and %s are identical\n", f[0].name,
                 f[1].name);
    return 0;
  }
  if (!o->text && (diff_binary(&f[0]) || diff_binary(&f[1]))) {
    if (header) buf_printf(c->out, "%s\n", header);
    buf_printf(c->out, "%s %s and %s differ\n",
               o->brief ? "Files" : "Binary files", f[0].name, f[1].name);
    return 1;
  }
  for (k = 0; k < 2; k++)
    if ((rc = diff_split(c, &f[k]))) return rc;
  diff_middle(o, f, mid);
  if ((rc = diff_classes(c, o, mid))) return rc;
  if ((rc = diff_discard(c, mid, keep, real, kept))) return rc;
  n = f[0].n + f[1].n + 3;
  v = mem_alloc(c->m, sizeof *v * 2 * (2 * n + 1));
  if (!v) return MSB_ENOMEM;
  x.a = keep[0];
  x.b = keep[1];
  x.ra = real[0];
  x.rb = real[1];
  x.ca = mid[0].chg;
  x.cb = mid[1].chg;
  x.fd = v + n;
  x.bd = v + 2 * n + 1 + n;
  x.c = c;
  x.work = 0;
  rc = diff_compare(&x, kept[0], kept[1]);
  mem_free(c->m, v);
  if (rc) return rc;
  diff_shift(&mid[0], &mid[1]);
  diff_shift(&mid[1], &mid[0]);
  if ((rc = diff_script(c, o, f, &h, &n))) return rc;
  if (diff_trivial(h, 0, n)) {
    if (o->same)
      buf_printf(c->out, "Files %s and %s are identical\n", f[0].name,
                 f[1].name);
    return 0;
  }
  if (o->brief) {
    buf_printf(c->out, "Files %s and %s differ\n", f[0].name, f[1].name);
    return 1;
  }
  if (header) buf_printf(c->out, "%s\n", header);
  if (o->fmt == 'u') {
    diff_stamp(c, c->out, "---", &f[0], o->label[0], 0);
    diff_stamp(c, c->out, "+++", &f[1], o->label[1], 0);
    diff_unified(c->out, o, f, h, n);
  } else if (o->fmt == 'c') {
    diff_stamp(c, c->out, "***", &f[0], o->label[0], 1);
    diff_stamp(c, c->out, "---", &f[1], o->label[1], 1);
    diff_context(c->out, o, f, h, n);
  } else {
    diff_normal(c->out, f, h, n);
  }
  return c->out->err ? c->out->err : 1;
}

/* Loads one side: a file, stdin, or (absent with -N) empty. */
static int diff_load(cmd_ctx *c, diff_file *f, const char *name,
                     const char *path, int absent_ok) {
  struct vfs_stat st;
  int rc;
  memset(f, 0, sizeof *f);
  f->name = name;
  f->path = path;
  if (!strcmp(name, "-") && !path) {
    f->d = c->in;
    f->len = c->in_len;
    c->in_used = c->in_len;
    c->in_eof = 1;
    f->mtime = *c->clock_ns;
    return 0;
  }
  if (!strcmp(path, "/dev/null")) {
    f->d = (const uint8_t *)"";
    f->mtime = 0;
    return 0;
  }
  rc = vfs_stat(c->fs, path, 1, &st);
  if (rc == MSB_ENOENT && absent_ok) {
    f->d = (const uint8_t *)"";
    f->mtime = 0;
    f->path = NULL;
    return 0;
  }
  if (rc) return rc;
  f->mtime = st.mtime_ns;
  return vfs_read(c->fs, path, &f->d, &f->len);
}

static int diff_paths(cmd_ctx *c, const diff_opt *o, const char *n0,
                      const char *n1, const char *p0, const char *p1, int top);

/* Sorted names of a directory (arena), NULL-terminated, into *out; 0, the
 * error opening the directory, or MSB_ENOMEM. */
static int diff_names(cmd_ctx *c, const char *path, char ***out,
                      size_t *count) {
  vfs_dir d;
  const char *name;
  size_t len, n = 0, cap = 16;
  char **v = arena_alloc(c->a, sizeof *v * cap);
  int rc;
  *out = NULL;
  if (!v) return MSB_ENOMEM;
  if ((rc = vfs_opendir(c->fs, path, &d))) return rc;
  while (vfs_readdir(&d, &name, &len, NULL) == 1) {
    if (n + 1 >= cap) {
      char **v2 = arena_alloc(c->a, sizeof *v * cap * 2);
      if (!v2) break;
      memcpy(v2, v, sizeof *v * n);
      v = v2;
      cap *= 2;
    }
    v[n++] = arena_strndup(c->a, name, len);
  }
  vfs_closedir(&d);
  v[n] = NULL;
  *count = n;
  *out = v;
  return 0;
}

static char *diff_join(cmd_ctx *c, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = arena_alloc(c->a, la + lb + 2);
  if (!s) return NULL;
  memcpy(s, a, la);
  s[la] = '/';
  memcpy(s + la + 1, b, lb + 1);
  if (la && a[la - 1] == '/') memmove(s + la, s + la + 1, lb + 1);
  return s;
}

static int diff_dirs(cmd_ctx *c, const diff_opt *o, const char *n0,
                     const char *n1, const char *p0, const char *p1) {
  size_t c0 = 0, c1 = 0, i = 0, j = 0;
  char **a, **b;
  int status = 0, rc;
  /* an unreadable directory (policy) is an error, like GNU's EACCES */
  if ((rc = diff_names(c, p0, &a, &c0)) || (rc = diff_names(c, p1, &b, &c1))) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "%s: %s", a ? n1 : n0, cmd_strerror(rc));
    return 2;
  }
  while (i < c0 || j < c1) {
    int cmp = i == c0 ? 1 : j == c1 ? -1 : strcmp(a[i], b[j]);
    const char *name = cmp <= 0 ? a[i] : b[j];
    char *q0 = diff_join(c, n0, name), *q1 = diff_join(c, n1, name);
    char *r0 = diff_join(c, p0, name), *r1 = diff_join(c, p1, name);
    if (!q0 || !q1 || !r0 || !r1) return MSB_ENOMEM;
    if (cmp && !o->newfile) {
      buf_printf(c->out, "Only in %s: %s\n", cmp < 0 ? n0 : n1, name);
      status = 1;
    } else {
      rc = diff_paths(c, o, q0, q1, r0, r1, 0);
      if (rc < 0) return rc;
      if (rc > status) status = rc;
    }
    if (cmp <= 0) i++;
    if (cmp >= 0) j++;
  }
  return status;
}

/* vfs_stat, with /dev/null an empty file (it is not in the filesystem). */
static int diff_stat(cmd_ctx *c, const char *path, struct vfs_stat *st) {
  if (!strcmp(path, "/dev/null")) {
    memset(st, 0, sizeof *st);
    st->kind = VFS_FILE;
    return 0;
  }
  return vfs_stat(c->fs, path, 1, st);
}

static int diff_paths(cmd_ctx *c, const diff_opt *o, const char *n0,
                      const char *n1, const char *p0, const char *p1, int top) {
  struct vfs_stat s0, s1;
  int e0 = p0 ? diff_stat(c, p0, &s0) : 0;
  int e1 = p1 ? diff_stat(c, p1, &s1) : 0;
  int d0 = p0 && !e0 && s0.kind == VFS_DIR,
      d1 = p1 && !e1 && s1.kind == VFS_DIR;
  diff_file f[2];
  char *header = NULL;
  int rc;
  if (top && d0 != d1) {
    /* "diff file dir" compares with dir/basename(file) */
    const char *base = cmd_base_name(c, d0 ? n1 : n0);
    if (d0) {
      n0 = diff_join(c, n0, base);
      p0 = diff_join(c, p0, base);
    } else {
      n1 = diff_join(c, n1, base);
      p1 = diff_join(c, p1, base);
    }
    return diff_paths(c, o, n0, n1, p0, p1, 0);
  }
  if (d0 && d1) {
    if (!top && !o->rec) {
      buf_printf(c->out, "Common subdirectories: %s and %s\n", n0, n1);
      return 0;
    }
    return diff_dirs(c, o, n0, n1, p0, p1);
  }
  if (!top && (d0 || d1) && !(e0 && o->newfile) && !(e1 && o->newfile)) {
    buf_printf(c->out, "File %s is a %s while file %s is a %s\n", n0,
               d0 ? "directory" : "regular file", n1,
               d1 ? "directory" : "regular file");
    return 1;
  }
  if ((e0 && e1) || ((e0 || e1) && !o->newfile)) {
    const char *bad = e0 ? n0 : n1;
    cmd_err(c, "%s: %s", bad, cmd_strerror(e0 ? e0 : e1));
    return 2;
  }
  if (!top) {
    size_t hl = strlen(o->argv_flags) + strlen(n0) + strlen(n1) + 8;
    header = arena_alloc(c->a, hl);
    if (!header) return MSB_ENOMEM;
    snprintf(header, hl, "diff%s %s %s", o->argv_flags, n0, n1);
  }
  if ((rc = diff_load(c, &f[0], n0, p0, o->newfile)) ||
      (rc = diff_load(c, &f[1], n1, p1, o->newfile))) {
    if (rc < 0 && rc != MSB_ENOENT && rc != MSB_EISDIR && rc != MSB_ENOTDIR)
      return rc;
    cmd_err(c, "%s: %s", f[0].d ? n1 : n0, cmd_strerror(rc));
    return 2;
  }
  return diff_files(c, o, f, header);
}

/* diff: compare files or directory trees. */
int cmd_diff(cmd_ctx *c) {
  cmd_getopt g;
  diff_opt o;
  buf flags;
  int k, labels = 0, i, rc;
  const char *p[2];
  memset(&o, 0, sizeof o);
  o.fmt = 'n';
  o.ctx = 3;
  cmd_opt_init(&g, c, diff_opts, diff_usage, CMD_OPTF_TRYNAME);
  g.status = 2;
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'q': o.brief = 1; break;
    case 's': o.same = 1; break;
    case 'u':
    case 'c': o.fmt = k; break;
    case 'U':
    case 'C': {
      int64_t n = 3;
      if (g.arg && (cmd_parse_int(g.arg, &n) || n < 0)) {
        cmd_err(c, "invalid context length %s", cmd_quote(c, g.arg));
        cmd_err(c, "Try 'diff --help' for more information.");
        return 2;
      }
      o.fmt = k == 'U' ? 'u' : 'c';
      o.ctx = (int)(n > 1000000 ? 1000000 : n);
      break;
    }
    case DIFF_NORMAL: o.fmt = 'n'; break;
    case 'r': o.rec = 1; break;
    case 'N': o.newfile = 1; break;
    case 'i': o.icase = 1; break;
    case 'b': o.space = 1; break;
    case 'w': o.allspace = 1; break;
    case 'B': o.blank = 1; break;
    case 'a': o.text = 1; break;
    case DIFF_LABEL:
      if (labels == 2) {
        cmd_err(c, "too many file label options");
        return 2;
      }
      o.label[labels++] = g.arg;
      break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 2 : k;
  if (g.nops < 2) {
    if (g.nops == 0)
      cmd_err(c, "missing operand after 'diff'");
    else
      cmd_err(c, "missing operand after %s", cmd_quote(c, g.ops[0]));
    buf_puts(c->err, "diff: Try 'diff --help' for more information.\n");
    return 2;
  }
  if (g.nops > 2) {
    cmd_err(c, "extra operand %s", cmd_quote(c, g.ops[2]));
    buf_puts(c->err, "diff: Try 'diff --help' for more information.\n");
    return 2;
  }
  /* "diff -r -u a b" headers repeat the options as given */
  buf_init(&flags, c->m);
  for (i = 1; i < c->argc; i++)
    if (c->argv[i] != g.ops[0] && c->argv[i] != g.ops[1])
      buf_printf(&flags, " %s", c->argv[i]);
  o.argv_flags = arena_strdup(c->a, buf_str(&flags));
  buf_finish(&flags);
  if (!o.argv_flags) return MSB_ENOMEM;
  for (i = 0; i < 2; i++) {
    p[i] = strcmp(g.ops[i], "-") ? cmd_path(c, g.ops[i]) : NULL;
    if (strcmp(g.ops[i], "-") && !p[i]) return MSB_ENOMEM;
  }
  if (!p[0] || !p[1]) {
    diff_file f[2];
    if ((rc = diff_load(c, &f[0], g.ops[0], p[0], 0)) ||
        (rc = diff_load(c, &f[1], g.ops[1], p[1], 0))) {
      cmd_err(c, "%s: %s", p[0] ? g.ops[0] : g.ops[1], cmd_strerror(rc));
      return 2;
    }
    return diff_files(c, &o, f, NULL);
  }
  return diff_paths(c, &o, g.ops[0], g.ops[1], p[0], p[1], 1);
}
