/* patch.c - the patch engine (see patch.h).
 *
 * Parsing is one forward pass over the patch's lines; hunks and body lines
 * go into growable arrays that borrow the patch text, so parsing allocates
 * O(lines) and never copies bodies. Locating a hunk follows GNU patch 2.7's
 * locate_hunk: try the stated line plus the running offset, then offsets
 * +1, -1, +2, -2 ... within the file; fuzz ignores leading/trailing context
 * lines, and a hunk with less leading (trailing) context than trailing
 * (leading) must sit at the start (end) of the file. Every line comparison
 * is charged to a budget so hostile inputs end with MSB_ELIMIT instead of
 * running quadratically for ever. V4A patches use a forward cursor and
 * three matching levels (exact, trailing whitespace, surrounding
 * whitespace) as Codex's applier does. */
#include "patch.h"

#include <string.h>

#include "memsandbox.h"
#include "sha256.h"

#define PATCH_DEFAULT_BUDGET 400000000ull

/* ---- Growable arrays --------------------------------------------------- */

static int patch_grow(mem *m, void **p, size_t *cap, size_t need, size_t elem) {
  size_t nc;
  void *q;
  if (need <= *cap) return 0;
  nc = *cap ? *cap : 16;
  while (nc < need) {
    if (nc > ((size_t)-1) / 2 / elem) return MSB_ENOMEM;
    nc *= 2;
  }
  q = mem_realloc(m, *p, nc * elem);
  if (!q) return MSB_ENOMEM;
  *p = q;
  *cap = nc;
  return 0;
}

static patch_file *patch_new_file(patch_set *ps) {
  patch_file *f;
  if (ps->nfiles >= PATCH_MAX_FILES) return NULL;
  if (patch_grow(ps->m, (void **)&ps->files, &ps->capf, ps->nfiles + 1,
                 sizeof *ps->files))
    return NULL;
  f = &ps->files[ps->nfiles++];
  memset(f, 0, sizeof *f);
  f->first_hunk = ps->nhunks;
  return f;
}

static patch_hunk *patch_new_hunk(patch_set *ps) {
  patch_hunk *h;
  if (ps->nhunks >= PATCH_MAX_HUNKS) return NULL;
  if (patch_grow(ps->m, (void **)&ps->hunks, &ps->caph, ps->nhunks + 1,
                 sizeof *ps->hunks))
    return NULL;
  h = &ps->hunks[ps->nhunks++];
  memset(h, 0, sizeof *h);
  h->first = ps->nlines;
  return h;
}

static int patch_add_line(patch_set *ps, char op, const char *s, size_t n) {
  patch_line *l;
  if (patch_grow(ps->m, (void **)&ps->lines, &ps->capl, ps->nlines + 1,
                 sizeof *ps->lines))
    return MSB_ENOMEM;
  l = &ps->lines[ps->nlines++];
  l->s = s;
  l->n = n;
  l->op = op;
  return 0;
}

/* ---- Line reader over the patch text ----------------------------------- */

typedef struct patch_rd {
  const char *p, *end;
  int64_t no; /* number of the line last returned */
} patch_rd;

/* Next line without its newline; 0 at the end. */
static int patch_rd_next(patch_rd *r, const char **s, size_t *n) {
  const char *e;
  if (r->p >= r->end) return 0;
  e = memchr(r->p, '\n', (size_t)(r->end - r->p));
  if (!e) e = r->end;
  *s = r->p;
  *n = (size_t)(e - r->p);
  r->p = e < r->end ? e + 1 : e;
  r->no++;
  return 1;
}

/* Peeks at the next line without consuming it. */
static int patch_rd_peek(const patch_rd *r, const char **s, size_t *n) {
  patch_rd c = *r;
  return patch_rd_next(&c, s, n);
}

static int patch_starts(const char *s, size_t n, const char *pre) {
  size_t k = strlen(pre);
  return n >= k && memcmp(s, pre, k) == 0;
}

static int patch_sp(int c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
}

/* Trims surrounding whitespace of [*s, *s + *n). */
static void patch_trim(const char **s, size_t *n) {
  while (*n && patch_sp((*s)[0])) (*s)++, (*n)--;
  while (*n && patch_sp((*s)[*n - 1])) (*n)--;
}

static int patch_err(buf *err, int64_t line, const char *what, const char *s,
                     size_t n) {
  if (err) {
    buf_printf(err, "malformed patch at line %lld: ", (long long)line);
    buf_put(err, s, n);
    if (what && *what) buf_printf(err, " (%s)", what);
  }
  return MSB_ECORRUPT;
}

/* A header file name: up to a TAB (timestamp follows), trailing blanks
 * removed. */
static char *patch_hdr_name(patch_set *ps, const char *s, size_t n) {
  const char *t = memchr(s, '\t', n);
  if (t) n = (size_t)(t - s);
  while (n && patch_sp(s[n - 1])) n--;
  while (n && (s[0] == ' ')) s++, n--;
  return arena_strndup(&ps->a, s, n);
}

/* Reads "N[,M]" at *p; *count defaults to 1. */
static int patch_range(const char **p, const char *e, int64_t *start,
                       int64_t *count) {
  int64_t v = 0;
  int any = 0;
  while (*p < e && **p >= '0' && **p <= '9') {
    if (v > 1000000000000ll) return -1;
    v = v * 10 + (**p - '0');
    (*p)++;
    any = 1;
  }
  if (!any) return -1;
  *start = v;
  *count = 1;
  if (*p < e && **p == ',') {
    (*p)++;
    v = 0;
    any = 0;
    while (*p < e && **p >= '0' && **p <= '9') {
      if (v > 1000000000000ll) return -1;
      v = v * 10 + (**p - '0');
      (*p)++;
      any = 1;
    }
    if (!any) return -1;
    *count = v;
  }
  return 0;
}

/* Parses one "@@ -a,b +c,d @@" hunk and its body. */
static int patch_unified_hunk_body(patch_set *ps, patch_rd *r, const char *s,
                                   size_t n, buf *err);

/* Parses one hunk; on failure the partial hunk is dropped. */
static int patch_unified_hunk(patch_set *ps, patch_rd *r, const char *s,
                              size_t n, buf *err) {
  size_t nh = ps->nhunks, nl = ps->nlines;
  int rc = patch_unified_hunk_body(ps, r, s, n, err);
  if (rc) {
    ps->nhunks = nh;
    ps->nlines = nl;
  }
  return rc;
}

static int patch_unified_hunk_body(patch_set *ps, patch_rd *r, const char *s,
                                   size_t n, buf *err) {
  const char *p = s + 3, *e = s + n;
  int64_t orem, nrem, hline = r->no;
  patch_hunk *h = patch_new_hunk(ps);
  char last = 0;
  if (!h) return ps->nhunks >= PATCH_MAX_HUNKS ? MSB_ELIMIT : MSB_ENOMEM;
  h->line_no = hline;
  if (p >= e || *p != '-') return patch_err(err, hline, "", s, n);
  p++;
  if (patch_range(&p, e, &h->old_start, &h->old_count) || p >= e || *p != ' ')
    return patch_err(err, hline, "", s, n);
  p++;
  if (p >= e || *p != '+') return patch_err(err, hline, "", s, n);
  p++;
  if (patch_range(&p, e, &h->new_start, &h->new_count) || e - p < 3 ||
      memcmp(p, " @@", 3) != 0)
    return patch_err(err, hline, "", s, n);
  h->fn = p + 3;
  h->fn_len = (size_t)(e - (p + 3));
  orem = h->old_count;
  nrem = h->new_count;
  while (orem > 0 || nrem > 0) {
    const char *l;
    size_t ln;
    char op;
    int rc;
    if (!patch_rd_next(r, &l, &ln)) {
      /* GNU pads a truncated hunk that has changes with blank context
       * lines; when the counts cannot both be met it reports the last
       * line with the blank line it made up. */
      size_t i;
      int changes = 0;
      for (i = h->first; i < ps->nlines; i++)
        if (ps->lines[i].op != ' ') changes = 1;
      if (!changes || orem != nrem || orem > 1000)
        return patch_err(err, r->no, "", " ", 1);
      for (; orem > 0; orem--, nrem--) {
        rc = patch_add_line(ps, ' ', "", 0);
        if (rc) return rc;
      }
      last = ' ';
      break;
    }
    op = ln ? l[0] : ' ';
    if (op == '\\') {
      if (last == '-' || last == ' ') h->old_noeol = 1;
      if (last == '+' || last == ' ') h->new_noeol = 1;
      continue;
    }
    if (op == ' ') {
      orem--;
      nrem--;
    } else if (op == '-') {
      orem--;
    } else if (op == '+') {
      nrem--;
    } else {
      return patch_err(err, r->no, "", l, ln);
    }
    if (orem < 0 || nrem < 0) return patch_err(err, r->no, "", l, ln);
    rc = patch_add_line(ps, op, ln ? l + 1 : l, ln ? ln - 1 : 0);
    if (rc) return rc;
    last = op;
  }
  {
    const char *l;
    size_t ln;
    if (patch_rd_peek(r, &l, &ln) && ln && l[0] == '\\') {
      patch_rd_next(r, &l, &ln);
      if (last == '-' || last == ' ') h->old_noeol = 1;
      if (last == '+' || last == ' ') h->new_noeol = 1;
    }
  }
  h->nlines = ps->nlines - h->first;
  return 0;
}

/* diff -N marks an absent side with the epoch as its timestamp. */
static int patch_epoch(const char *ts, size_t n) {
  size_t i;
  for (i = 0; i + 19 <= n; i++)
    if (memcmp(ts + i, "1970-01-01 00:00:00", 19) == 0) return 1;
  return 0;
}

/* "diff --git a/x b/x": split at the last " b/". */
static void patch_git_names(patch_set *ps, const char *s, size_t n, char **o,
                            char **nw) {
  size_t i, k = 0;
  s += 11;
  n -= 11;
  for (i = 0; i + 3 <= n; i++)
    if (memcmp(s + i, " b/", 3) == 0) k = i;
  if (!k) return;
  *o = arena_strndup(&ps->a, s, k);
  *nw = arena_strndup(&ps->a, s + k + 1, n - k - 1);
}

static int patch_parse_unified(patch_set *ps, const char *text, size_t len,
                               buf *err) {
  patch_rd r = {text, text + len, 0};
  const char *s, *pre = text;
  size_t n;
  char *gold = NULL, *gnew = NULL;
  int gkind = PATCH_UPDATE;
  while (patch_rd_next(&r, &s, &n)) {
    const char *s2;
    size_t n2;
    patch_file *f;
    if (patch_starts(s, n, "diff --git ")) {
      gold = gnew = NULL;
      gkind = PATCH_UPDATE;
      patch_git_names(ps, s, n, &gold, &gnew);
      continue;
    }
    if (patch_starts(s, n, "new file mode")) gkind = PATCH_ADD;
    if (patch_starts(s, n, "deleted file mode")) gkind = PATCH_DELETE;
    if (!patch_starts(s, n, "--- ") || !patch_rd_peek(&r, &s2, &n2) ||
        !patch_starts(s2, n2, "+++ "))
      continue;
    patch_rd_next(&r, &s2, &n2);
    f = patch_new_file(ps);
    if (!f) return ps->nfiles >= PATCH_MAX_FILES ? MSB_ELIMIT : MSB_ENOMEM;
    f->old_name = patch_hdr_name(ps, s + 4, n - 4);
    f->new_name = patch_hdr_name(ps, s2 + 4, n2 - 4);
    {
      const char *t1 = memchr(s, '\t', n), *t2 = memchr(s2, '\t', n2);
      if (t1) f->old_ts = t1, f->old_ts_len = (size_t)(s + n - t1);
      if (t2) f->new_ts = t2, f->new_ts_len = (size_t)(s2 + n2 - t2);
    }
    if (!f->old_name || !f->new_name) return MSB_ENOMEM;
    f->git_old = gold;
    f->git_new = gnew;
    f->kind = gkind;
    if (strcmp(f->old_name, "/dev/null") == 0 ||
        patch_epoch(f->old_ts, f->old_ts_len))
      f->kind = PATCH_ADD;
    if (strcmp(f->new_name, "/dev/null") == 0 ||
        patch_epoch(f->new_ts, f->new_ts_len))
      f->kind = PATCH_DELETE;
    f->hdr_line = r.no;
    f->pre = pre;
    f->pre_len = (size_t)(s2 + n2 - pre);
    gold = gnew = NULL;
    gkind = PATCH_UPDATE;
    while (patch_rd_peek(&r, &s, &n) && patch_starts(s, n, "@@ ")) {
      int rc;
      patch_rd_next(&r, &s, &n);
      rc = patch_unified_hunk(ps, &r, s, n, err);
      if (rc) return rc;
    }
    f->nhunks = ps->nhunks - f->first_hunk;
    pre = r.p;
  }
  return 0;
}

/* ---- V4A ---------------------------------------------------------------- */

static int patch_v4a_err(buf *err, int64_t line, const char *msg, const char *s,
                         size_t n) {
  if (err) {
    buf_printf(err, "invalid V4A patch at line %lld: %s", (long long)line, msg);
    if (s) {
      buf_puts(err, ": '");
      buf_put(err, s, n);
      buf_puts(err, "'");
    }
  }
  return MSB_ECORRUPT;
}

/* Value after a "*** Marker: " prefix, trimmed, arena copy. */
static char *patch_v4a_arg(patch_set *ps, const char *s, size_t n,
                           const char *pre) {
  s += strlen(pre);
  n -= strlen(pre);
  patch_trim(&s, &n);
  return arena_strndup(&ps->a, s, n);
}

static int patch_parse_v4a(patch_set *ps, const char *text, size_t len,
                           buf *err) {
  patch_rd r = {text, text + len, 0};
  const char *s, *t;
  size_t n, tn;
  int begun = 0, ended = 0;
  patch_file *f = NULL;
  patch_hunk *h = NULL;
  ps->v4a = 1;
  while (patch_rd_next(&r, &s, &n)) {
    int rc;
    t = s;
    tn = n;
    patch_trim(&t, &tn);
    if (!begun) {
      if (tn == 15 && memcmp(t, "*** Begin Patch", 15) == 0) begun = 1;
      continue;
    }
    if (patch_starts(t, tn, "*** ")) {
      if (f) f->nhunks = ps->nhunks - f->first_hunk;
      if (tn == 13 && memcmp(t, "*** End Patch", 13) == 0) {
        ended = 1;
        break;
      }
      if (tn == 15 && memcmp(t, "*** End of File", 15) == 0) {
        if (!h || !f || f->kind != PATCH_UPDATE)
          return patch_v4a_err(err, r.no, "unexpected marker", t, tn);
        h->eof = 1;
        h->nlines = ps->nlines - h->first;
        h = NULL;
        continue;
      }
      if (f && f->kind == PATCH_UPDATE && f->nhunks == 0 && !f->move_to &&
          patch_starts(t, tn, "*** Move to: ")) {
        f->move_to = patch_v4a_arg(ps, t, tn, "*** Move to: ");
        if (!f->move_to) return MSB_ENOMEM;
        continue;
      }
      if (f && f->kind == PATCH_UPDATE && f->nhunks == 0) {
        if (err)
          buf_printf(err, "Update file hunk for path '%s' is empty", f->path);
        return MSB_ECORRUPT;
      }
      h = NULL;
      f = patch_new_file(ps);
      if (!f) return ps->nfiles >= PATCH_MAX_FILES ? MSB_ELIMIT : MSB_ENOMEM;
      f->v4a = 1;
      f->hdr_line = r.no;
      if (patch_starts(t, tn, "*** Add File: ")) {
        f->kind = PATCH_ADD;
        f->path = patch_v4a_arg(ps, t, tn, "*** Add File: ");
        h = patch_new_hunk(ps);
        if (!h) return MSB_ENOMEM;
        h->line_no = r.no;
      } else if (patch_starts(t, tn, "*** Delete File: ")) {
        f->kind = PATCH_DELETE;
        f->path = patch_v4a_arg(ps, t, tn, "*** Delete File: ");
      } else if (patch_starts(t, tn, "*** Update File: ")) {
        f->kind = PATCH_UPDATE;
        f->path = patch_v4a_arg(ps, t, tn, "*** Update File: ");
      } else {
        return patch_v4a_err(err, r.no, "unknown marker", t, tn);
      }
      if (!f->path) return MSB_ENOMEM;
      if (!*f->path) return patch_v4a_err(err, r.no, "empty path", NULL, 0);
      if (memchr(t, 0, tn))
        return patch_v4a_err(err, r.no, "NUL byte in path", NULL, 0);
      continue;
    }
    if (!f) return patch_v4a_err(err, r.no, "expected a file marker", s, n);
    if (f->kind == PATCH_DELETE)
      return patch_v4a_err(err, r.no, "unexpected line after Delete File", s,
                           n);
    if (f->kind == PATCH_ADD) {
      if (!n || s[0] != '+')
        return patch_v4a_err(err, r.no, "Add File lines must start with '+'", s,
                             n);
      rc = patch_add_line(ps, '+', s + 1, n - 1);
      if (rc) return rc;
      h->nlines = ps->nlines - h->first;
      h->new_count++;
      continue;
    }
    /* Update body. */
    if (patch_starts(t, tn, "@@") && (tn == 2 || t[2] == ' ')) {
      const char *a = t + 2;
      size_t an = tn - 2;
      patch_trim(&a, &an);
      /* A new hunk unless the current one holds only anchors (stacked
       * "@@ class A" / "@@ def m()" lines scope one hunk). */
      int only_anchors = h != NULL;
      size_t i;
      if (h)
        for (i = h->first; i < ps->nlines; i++)
          if (ps->lines[i].op != '@') only_anchors = 0;
      if (!only_anchors) {
        h = patch_new_hunk(ps);
        if (!h) return ps->nhunks >= PATCH_MAX_HUNKS ? MSB_ELIMIT : MSB_ENOMEM;
        h->line_no = r.no;
      }
      if (an) {
        rc = patch_add_line(ps, '@', a, an);
        if (rc) return rc;
      }
      h->nlines = ps->nlines - h->first;
      continue;
    }
    if (!h) {
      if (f->nhunks || ps->nhunks > f->first_hunk)
        return patch_v4a_err(err, r.no, "expected '@@'", s, n);
      h = patch_new_hunk(ps);
      if (!h) return MSB_ENOMEM;
      h->line_no = r.no;
    }
    if (n && s[n - 1] == '\r') n--;
    if (!n) {
      rc = patch_add_line(ps, ' ', s, 0);
    } else if (s[0] == ' ' || s[0] == '-' || s[0] == '+') {
      rc = patch_add_line(ps, s[0], s + 1, n - 1);
    } else {
      return patch_v4a_err(err, r.no, "invalid hunk line", s, n);
    }
    if (rc) return rc;
    h->nlines = ps->nlines - h->first;
  }
  if (!begun)
    return patch_v4a_err(err, r.no, "missing '*** Begin Patch'", NULL, 0);
  if (!ended) {
    if (err)
      buf_puts(err,
               "invalid V4A patch: the last line of the patch must be "
               "'*** End Patch'");
    return MSB_ECORRUPT;
  }
  if (f && f->kind == PATCH_UPDATE && f->nhunks == 0) {
    if (err)
      buf_printf(err, "Update file hunk for path '%s' is empty", f->path);
    return MSB_ECORRUPT;
  }
  if (!ps->nfiles) {
    if (err) buf_puts(err, "No files were modified.");
    return MSB_ECORRUPT;
  }
  return 0;
}

/* Detects the format, then parses (see patch.h). */
int patch_parse(mem *m, const char *text, size_t len, patch_set **out,
                buf *err) {
  patch_set *ps;
  patch_rd r = {text, text + len, 0};
  const char *s;
  size_t n;
  int rc, v4a = 0;
  *out = NULL;
  if (len > PATCH_MAX_BYTES) {
    if (err)
      buf_printf(err, "patch contains %zu bytes; limit is %u bytes", len,
                 PATCH_MAX_BYTES);
    return MSB_ELIMIT;
  }
  while (patch_rd_next(&r, &s, &n)) {
    patch_trim(&s, &n);
    if (!n) continue;
    v4a = n == 15 && memcmp(s, "*** Begin Patch", 15) == 0;
    break;
  }
  ps = mem_zalloc(m, sizeof *ps);
  if (!ps) return MSB_ENOMEM;
  ps->m = m;
  arena_init(&ps->a, m);
  rc = v4a ? patch_parse_v4a(ps, text, len, err)
           : patch_parse_unified(ps, text, len, err);
  if (rc && rc != MSB_ECORRUPT) {
    patch_free(ps);
    return rc;
  }
  if (rc && v4a) {
    patch_free(ps);
    return rc;
  }
  if (rc) {
    /* Keep what parsed: files before the bad one are whole; the bad one
     * (last) keeps only its complete hunks. */
    patch_file *f = ps->nfiles ? &ps->files[ps->nfiles - 1] : NULL;
    if (f) f->nhunks = ps->nhunks - f->first_hunk;
    ps->bad = 1;
    *out = ps;
    return rc;
  }
  *out = ps;
  return 0;
}

/* Frees a set and everything it owns. */
void patch_free(patch_set *ps) {
  if (!ps) return;
  mem_free(ps->m, ps->files);
  mem_free(ps->m, ps->hunks);
  mem_free(ps->m, ps->lines);
  arena_finish(&ps->a);
  mem_free(ps->m, ps);
}

/* ---- GNU-style application --------------------------------------------- */

static int patch_split(mem *m, const uint8_t *data, size_t len,
                       patch_tline **out, int64_t *nout, int *noeol) {
  size_t i, k = 0, cnt = 0;
  patch_tline *v;
  for (i = 0; i < len; i++)
    if (data[i] == '\n') cnt++;
  if (len && data[len - 1] != '\n') cnt++;
  v = mem_alloc(m, (cnt + 1) * sizeof *v);
  if (!v) return MSB_ENOMEM;
  for (i = 0; i < len;) {
    const uint8_t *e = memchr(data + i, '\n', len - i);
    size_t end = e ? (size_t)(e - data) : len;
    v[k].s = (const char *)data + i;
    v[k].n = end - i;
    k++;
    i = end + 1;
  }
  *out = v;
  *nout = (int64_t)k;
  *noeol = len && data[len - 1] != '\n';
  return 0;
}

/* Spends n comparisons: 0, or -1 when the budget (or the meter's) is
 * gone. */
static int patch_spend(patch_tgt *t, uint64_t n) {
  uint64_t steps;
  if (t->budget < n && t->meter.charge) {
    steps = (n - t->budget + PATCH_UNITS_PER_STEP - 1) / PATCH_UNITS_PER_STEP;
    if (t->meter.charge(t->meter.arg, steps)) return -1;
    t->budget += steps * PATCH_UNITS_PER_STEP;
  }
  if (t->budget < n) return -1;
  t->budget -= n;
  return 0;
}

/* Splits the input into lines; the output starts empty. */
int patch_tgt_init(patch_tgt *t, mem *m, const uint8_t *data, size_t len,
                   uint64_t budget, const patch_meter *meter) {
  memset(t, 0, sizeof *t);
  t->m = m;
  if (meter && meter->charge)
    t->meter = *meter;
  else
    t->budget = budget ? budget : PATCH_DEFAULT_BUDGET;
  buf_init(&t->out, m);
  return patch_split(m, data, len, &t->in, &t->nin, &t->in_noeol);
}

/* Frees a target's lines and output. */
void patch_tgt_free(patch_tgt *t) {
  mem_free(t->m, t->in);
  t->in = NULL;
  buf_finish(&t->out);
}

static int patch_is_old(char op, int reverse) {
  return op == ' ' || op == (reverse ? '+' : '-');
}

static int patch_is_new(char op, int reverse) {
  return op == ' ' || op == (reverse ? '-' : '+');
}

/* Lines the hunk expects in the file. */
int64_t patch_hunk_old_lines(const patch_set *ps, const patch_hunk *h,
                             int reverse) {
  size_t i;
  int64_t k = 0;
  for (i = 0; i < h->nlines; i++)
    if (patch_is_old(ps->lines[h->first + i].op, reverse)) k++;
  return k;
}

/* Leading and trailing context; returns the larger (GNU pch_context). */
int patch_hunk_context(const patch_set *ps, const patch_hunk *h, int reverse,
                       int *prefix, int *suffix) {
  size_t i;
  int a = 0, b = 0;
  (void)reverse;
  for (i = 0; i < h->nlines && ps->lines[h->first + i].op == ' '; i++) a++;
  if (i == h->nlines) {
    *prefix = a;
    *suffix = 0;
    return a;
  }
  for (i = h->nlines; i > 0 && ps->lines[h->first + i - 1].op == ' '; i--) b++;
  *prefix = a;
  *suffix = b;
  return a > b ? a : b;
}

/* Old-side line k (1-based) of h. The hunk's lines are walked once per
 * match attempt, so this is only used through patch_match's cursor. */
static int patch_match(patch_tgt *t, const patch_set *ps, const patch_hunk *h,
                       int reverse, int64_t base, int64_t pat_lines,
                       int64_t pfuzz, int64_t sfuzz) {
  size_t i;
  int64_t k = 0, iline;
  int noeol = reverse ? h->new_noeol : h->old_noeol;
  for (i = 0; i < h->nlines; i++) {
    const patch_line *l = &ps->lines[h->first + i];
    if (!patch_is_old(l->op, reverse)) continue;
    k++;
    if (k <= pfuzz) continue;
    if (k > pat_lines - sfuzz) break;
    iline = base + k - 1;
    if (iline < 1 || iline > t->nin) return 0;
    if (patch_spend(t, 1)) return -1;
    if (t->in[iline - 1].n != l->n ||
        memcmp(t->in[iline - 1].s, l->s, l->n) != 0)
      return 0;
    /* A line without its newline matches only the same (GNU compares
     * the newline too). */
    if (k == pat_lines && (iline == t->nin && t->in_noeol) != (noeol != 0))
      return 0;
    if (k < pat_lines && iline == t->nin && t->in_noeol) return 0;
  }
  return 1;
}

/* GNU locate_hunk (see the file comment). */
int64_t patch_tgt_locate(patch_tgt *t, const patch_set *ps, const patch_hunk *h,
                         int reverse, int fuzz, int64_t *offset_out) {
  int64_t start = reverse ? h->new_start : h->old_start;
  int64_t count = reverse ? h->new_count : h->old_count;
  int64_t first = count ? start : start + 1;
  int64_t first_guess = first + t->in_offset;
  int64_t pat = patch_hunk_old_lines(ps, h, reverse);
  int pc, sc, ctx = patch_hunk_context(ps, h, reverse, &pc, &sc);
  int64_t pfuzz = fuzz + pc - ctx, sfuzz = fuzz + sc - ctx;
  int64_t max_where = t->nin - (pat - sfuzz) + 1;
  int64_t min_where = t->frozen + 1 - (pc - pfuzz);
  int64_t max_pos = max_where - first_guess;
  int64_t max_neg = first_guess - min_where;
  int64_t max_off = max_pos < max_neg ? max_neg : max_pos;
  int64_t off;
  int rc;
  *offset_out = 0;
  if (!pat) {
    /* In a creation patch "-0,0" applies only to an empty file. */
    if (start == 0 && t->nin > 0 && t->creating) return 0;
    if (first_guess < t->frozen + 1) return 0;
    if (first_guess > t->nin + 1) return 0;
    *offset_out = t->in_offset;
    return first_guess;
  }
  if (first_guess <= max_neg) max_neg = first_guess - 1;
  if (pfuzz < 0 && first <= 1) {
    if (sfuzz < 0 && (pat != t->nin || pc < t->frozen)) return 0;
    off = 1 - first_guess;
    if (t->frozen <= pc && off <= max_pos) {
      rc = patch_match(t, ps, h, reverse, first_guess + off, pat, 0,
                       sfuzz < 0 ? 0 : sfuzz);
      if (rc < 0) return MSB_ELIMIT;
      if (rc) {
        t->in_offset += off;
        *offset_out = t->in_offset;
        return first_guess + off;
      }
    }
    return 0;
  }
  if (pfuzz < 0) pfuzz = 0;
  if (sfuzz < 0) {
    off = first_guess - (t->nin - pat + 1);
    if (off <= max_neg) {
      rc = patch_match(t, ps, h, reverse, first_guess - off, pat, pfuzz, 0);
      if (rc < 0) return MSB_ELIMIT;
      if (rc) {
        t->in_offset -= off;
        *offset_out = t->in_offset;
        return first_guess - off;
      }
    }
    return 0;
  }
  {
    /* Only offsets that keep the compared lines inside the file can
     * match; start at the nearest one so a hunk stated at a huge line
     * costs nothing (the order of tries stays GNU's). */
    int64_t lo = 1 - pfuzz, hi = t->nin - pat + sfuzz + 1, start_off = 0;
    if (hi - first_guess < max_pos) max_pos = hi - first_guess;
    if (first_guess - lo < max_neg) max_neg = first_guess - lo;
    max_off = max_pos < max_neg ? max_neg : max_pos;
    if (first_guess > hi)
      start_off = first_guess - hi;
    else if (first_guess < lo)
      start_off = lo - first_guess;
    off = start_off;
  }
  for (; off <= max_off; off++) {
    if (patch_spend(t, 1)) return MSB_ELIMIT;
    if (off <= max_pos) {
      rc = patch_match(t, ps, h, reverse, first_guess + off, pat, pfuzz, sfuzz);
      if (rc < 0) return MSB_ELIMIT;
      if (rc) {
        t->in_offset += off;
        *offset_out = t->in_offset;
        return first_guess + off;
      }
    }
    if (off > 0 && off <= max_neg) {
      rc = patch_match(t, ps, h, reverse, first_guess - off, pat, pfuzz, sfuzz);
      if (rc < 0) return MSB_ELIMIT;
      if (rc) {
        t->in_offset -= off;
        *offset_out = t->in_offset;
        return first_guess - off;
      }
    }
  }
  return 0;
}

/* Appends one output line; noeol leaves it without a newline (a later
 * line first supplies the missing one). */
static void patch_emit(patch_tgt *t, const char *s, size_t n, int noeol) {
  if (t->out_noeol) buf_putc(&t->out, '\n');
  buf_put(&t->out, s, n);
  if (noeol) {
    t->out_noeol = 1;
  } else {
    buf_putc(&t->out, '\n');
    t->out_noeol = 0;
  }
}

static void patch_copy_input(patch_tgt *t, int64_t upto) {
  while (t->frozen < upto && t->frozen < t->nin) {
    patch_tline *l = &t->in[t->frozen];
    t->frozen++;
    patch_emit(t, l->s, l->n, t->frozen == t->nin && t->in_noeol);
  }
}

/* Copies input up to where, then emits the hunk's new side. */
int patch_tgt_apply(patch_tgt *t, const patch_set *ps, const patch_hunk *h,
                    int reverse, int64_t where) {
  size_t i, lastnew = (size_t)-1;
  int64_t cur = where; /* next input line of the hunk's old side */
  int new_noeol = reverse ? h->old_noeol : h->new_noeol;
  patch_copy_input(t, where - 1);
  for (i = 0; i < h->nlines; i++)
    if (patch_is_new(ps->lines[h->first + i].op, reverse)) lastnew = i;
  for (i = 0; i < h->nlines; i++) {
    const patch_line *l = &ps->lines[h->first + i];
    if (l->op == ' ') {
      if (cur >= 1 && cur <= t->nin) {
        int noeol = cur == t->nin && t->in_noeol;
        if (i == lastnew) noeol = new_noeol;
        patch_emit(t, t->in[cur - 1].s, t->in[cur - 1].n, noeol);
      }
      cur++;
    } else if (patch_is_old(l->op, reverse)) {
      cur++;
    } else {
      patch_emit(t, l->s, l->n, i == lastnew && new_noeol);
    }
  }
  if (cur - 1 > t->frozen) t->frozen = cur - 1 > t->nin ? t->nin : cur - 1;
  return t->out.err;
}

/* Copies the input after the last hunk. */
int patch_tgt_finish(patch_tgt *t) {
  patch_copy_input(t, t->nin);
  return t->out.err;
}

static void patch_range_out(buf *b, int64_t start, int64_t count) {
  if (count == 1)
    buf_printf(b, "%lld", (long long)start);
  else
    buf_printf(b, "%lld,%lld", (long long)start, (long long)count);
}

/* Reject text of one hunk, GNU 2.7 style. */
int patch_hunk_unified(const patch_set *ps, const patch_hunk *h, int reverse,
                       buf *b) {
  size_t i, lastold = (size_t)-1, lastnew = (size_t)-1;
  int onl = reverse ? h->new_noeol : h->old_noeol;
  int nnl = reverse ? h->old_noeol : h->new_noeol;
  buf_puts(b, "@@ -");
  patch_range_out(b, reverse ? h->new_start : h->old_start,
                  reverse ? h->new_count : h->old_count);
  buf_puts(b, " +");
  patch_range_out(b, reverse ? h->old_start : h->new_start,
                  reverse ? h->old_count : h->new_count);
  buf_puts(b, " @@");
  buf_put(b, h->fn, h->fn_len);
  buf_putc(b, '\n');
  for (i = 0; i < h->nlines; i++) {
    char op = ps->lines[h->first + i].op;
    if (patch_is_old(op, reverse)) lastold = i;
    if (patch_is_new(op, reverse)) lastnew = i;
  }
  /* Within each run of changes, removed lines come before added ones
   * (a reversed "-x +y" run prints as "-y +x"). */
  for (i = 0; i < h->nlines;) {
    size_t j = i, pass, k;
    if (ps->lines[h->first + i].op != ' ') {
      while (j < h->nlines && ps->lines[h->first + j].op != ' ') j++;
    } else {
      j = i + 1;
    }
    for (pass = 0; pass < 2; pass++) {
      for (k = i; k < j; k++) {
        const patch_line *l = &ps->lines[h->first + k];
        char op = l->op;
        if (op != ' ' && reverse) op = op == '+' ? '-' : '+';
        if (op != ' ' && (op == '-') != (pass == 0)) continue;
        if (op == ' ' && pass == 1) continue;
        buf_putc(b, op);
        buf_put(b, l->s, l->n);
        /* GNU 2.7 writes a line lacking its newline as is, without the
         * "\ No newline" marker. */
        if (!((k == lastold && onl && op != '+') ||
              (k == lastnew && nnl && op != '-')))
          buf_putc(b, '\n');
      }
    }
    i = j;
  }
  return b->err;
}

/* ---- V4A application ----------------------------------------------------- */

/* Line equality at level 0 exact, 1 ignoring trailing whitespace, 2
 * ignoring surrounding whitespace. */
static int patch_v4a_eq(const char *a, size_t an, const char *b, size_t bn,
                        int level) {
  if (level >= 1) {
    while (an && patch_sp(a[an - 1])) an--;
    while (bn && patch_sp(b[bn - 1])) bn--;
  }
  if (level >= 2) {
    while (an && patch_sp(a[0])) a++, an--;
    while (bn && patch_sp(b[0])) b++, bn--;
  }
  return an == bn && memcmp(a, b, an) == 0;
}

/* Finds the m pattern lines (old side of h, or the single anchor when
 * anchor is set) in the input at or after from; -1 when absent, -2 when
 * the budget is gone. */
static int64_t patch_v4a_find(patch_tgt *t, const patch_line **pat, int64_t m,
                              int64_t from, int eof) {
  int level;
  int64_t pos, k;
  for (level = 0; level < 3; level++) {
    if (eof && t->nin - m >= from) {
      pos = t->nin - m;
      for (k = 0; k < m; k++)
        if (!patch_v4a_eq(t->in[pos + k].s, t->in[pos + k].n, pat[k]->s,
                          pat[k]->n, level))
          break;
      if (k == m) return pos;
    }
    for (pos = from; pos + m <= t->nin; pos++) {
      if (patch_spend(t, (uint64_t)m + 1)) return -2;
      for (k = 0; k < m; k++)
        if (!patch_v4a_eq(t->in[pos + k].s, t->in[pos + k].n, pat[k]->s,
                          pat[k]->n, level))
          break;
      if (k == m) return pos;
    }
  }
  return -1;
}

static void patch_v4a_fail(buf *err, const patch_file *f, size_t hno,
                           const char *what, const patch_line *const *pat,
                           int64_t m) {
  int64_t k;
  if (!err) return;
  buf_printf(err, "Failed to find %s in %s (hunk #%zu)", what, f->path, hno);
  if (m) buf_puts(err, ":");
  for (k = 0; k < m; k++) {
    buf_puts(err, "\n");
    buf_put(err, pat[k]->s, pat[k]->n);
  }
}

/* Codex-style V4A update of one file's bytes. */
int patch_v4a_update(const patch_set *ps, const patch_file *f,
                     const uint8_t *data, size_t len, buf *out, buf *err,
                     const patch_meter *meter) {
  patch_tgt t;
  const patch_line **pat = NULL;
  int64_t cursor = 0, copied = 0;
  size_t hi;
  int rc = patch_tgt_init(&t, ps->m, data, len, 0, meter);
  if (rc) return rc;
  for (hi = 0; hi < f->nhunks && !rc; hi++) {
    const patch_hunk *h = &ps->hunks[f->first_hunk + hi];
    int64_t m = 0, pos, k;
    size_t i;
    int anchored = 0;
    mem_free(ps->m, pat);
    pat = mem_alloc(ps->m, (h->nlines + 1) * sizeof *pat);
    if (!pat) {
      rc = MSB_ENOMEM;
      break;
    }
    for (i = 0; i < h->nlines; i++) {
      const patch_line *l = &ps->lines[h->first + i];
      if (l->op != '@') continue;
      pat[0] = l;
      pos = patch_v4a_find(&t, pat, 1, cursor, 0);
      if (pos == -2) {
        rc = MSB_ELIMIT;
        break;
      }
      if (pos < 0) {
        patch_v4a_fail(err, f, hi + 1, "context", pat, 1);
        rc = MSB_ECORRUPT;
        break;
      }
      cursor = pos + 1;
      anchored = 1;
    }
    if (rc) break;
    for (i = 0; i < h->nlines; i++) {
      const patch_line *l = &ps->lines[h->first + i];
      if (l->op == ' ' || l->op == '-') pat[m++] = l;
    }
    if (!m) {
      pos = anchored ? cursor : t.nin;
    } else {
      pos = patch_v4a_find(&t, pat, m, cursor, h->eof);
      if (pos == -1 && pat[m - 1]->n == 0 && pat[m - 1]->op == ' ') {
        m--;
        pos = m ? patch_v4a_find(&t, pat, m, cursor, h->eof) : cursor;
      }
      if (pos == -2) {
        rc = MSB_ELIMIT;
        break;
      }
      if (pos < 0) {
        patch_v4a_fail(err, f, hi + 1, "expected lines", pat, m);
        rc = MSB_ECORRUPT;
        break;
      }
    }
    /* Copy input up to pos, then the new side; skip the old side. */
    for (; copied < pos; copied++)
      patch_emit(&t, t.in[copied].s, t.in[copied].n, 0);
    k = 0;
    for (i = 0; i < h->nlines; i++) {
      const patch_line *l = &ps->lines[h->first + i];
      if (l->op == '@') continue;
      if (l->op == ' ' || l->op == '-') {
        if (k >= m) continue; /* a dropped trailing blank context line */
        if (l->op == ' ') patch_emit(&t, t.in[pos + k].s, t.in[pos + k].n, 0);
        k++;
      } else {
        patch_emit(&t, l->s, l->n, 0);
      }
    }
    copied = pos + m;
    cursor = copied;
  }
  if (!rc) {
    for (; copied < t.nin; copied++)
      patch_emit(&t, t.in[copied].s, t.in[copied].n, 0);
    rc = t.out.err;
    if (!rc && t.out.len) buf_put(out, t.out.p, t.out.len);
    if (!rc) rc = out->err;
  }
  mem_free(ps->m, pat);
  patch_tgt_free(&t);
  return rc;
}

/* ---- Names inside the working directory ------------------------------ */

/* Whether a path has a ".." component. */
static int patch_has_dotdot(const char *s) {
  while (*s) {
    size_t n = strcspn(s, "/");
    if (n == 2 && s[0] == '.' && s[1] == '.') return 1;
    s += n;
    s += *s == '/';
  }
  return 0;
}

/* Whether GNU patch takes the name (see patch.h). */
int patch_name_ok(const char *cwd, const char *name) {
  return !strcmp(cwd, "/") || (name[0] != '/' && !patch_has_dotdot(name));
}

/* Links followed in one name at most, as Linux's. */
#define PATCH_MAX_LINKS 40

/* An absolute link target t: *rest is what follows the first prefix of
 * t that is the working directory itself (rootreal). 0, MSB_EPERM when
 * no prefix is, or MSB_ENOMEM. */
static int patch_link_inside(vfs *v, const char *t, const char *rootreal,
                             mem *m, const char **rest) {
  size_t k = strlen(t);
  buf pre, real;
  int rc = MSB_EPERM;
  buf_init(&pre, m);
  buf_init(&real, m);
  for (;;) {
    buf_clear(&pre);
    buf_clear(&real);
    buf_put(&pre, t, k ? k : 1);
    if (pre.err) {
      rc = pre.err;
      break;
    }
    if (!vfs_realpath(v, buf_str(&pre), 0, &real) &&
        !strcmp(buf_str(&real), rootreal)) {
      *rest = t + k;
      rc = 0;
      break;
    }
    if (real.err) {
      rc = real.err;
      break;
    }
    if (k <= 1) break;
    while (k > 1 && t[k - 1] != '/') k--; /* drop the last component */
    while (k > 1 && t[k - 1] == '/') k--;
  }
  buf_finish(&pre);
  buf_finish(&real);
  return rc;
}

/* Resolves name from root as GNU patch's safe traversal does (patch.h). */
int patch_resolve(vfs *v, const char *root, const char *name, buf *out,
                  struct vfs_stat *st) {
  buf cur, rest, next, tmp; /* tmp: the working directory's real path */
  int rc = 0, links = 0, in_link;
  size_t orig = strlen(name); /* the name's own text ends rest */
  buf_clear(out);
  if (name[0] == '/') {
    rc = vfs_abspath("/", name, out);
    if (!rc) rc = out->err;
    return rc ? rc : vfs_stat(v, buf_str(out), 0, st);
  }
  buf_init(&cur, out->m);
  buf_init(&rest, out->m);
  buf_init(&next, out->m);
  buf_init(&tmp, out->m);
  rc = vfs_realpath(v, root, 0, &tmp);
  buf_puts(&cur, buf_str(&tmp));
  buf_puts(&rest, name);
  if (!rc && (cur.err || rest.err)) rc = MSB_ENOMEM;
  while (!rc) {
    const char *r = buf_str(&rest), *c, *after;
    size_t cl;
    while (*r == '/') r++;
    c = r;
    cl = strcspn(c, "/");
    after = c + cl;
    while (*after == '/') after++;
    in_link = strlen(c) > orig; /* the component comes from a link */
    if (strlen(after) < orig) orig = strlen(after);
    if (!cl || (c[0] == '.' && (cl == 1 || (cl == 2 && c[1] == '.')))) {
      if (cl == 2) { /* "..": up, but never above the working directory */
        size_t k = cur.len;
        if (!strcmp(buf_str(&cur), buf_str(&tmp))) {
          rc = MSB_EPERM;
          break;
        }
        while (k > 1 && cur.p[k - 1] != '/') k--;
        buf_truncate(&cur, k > 1 ? k - 1 : 1);
      }
      if (!*after) {
        buf_puts(out, buf_str(&cur));
        rc = out->err ? out->err : vfs_stat(v, buf_str(out), 0, st);
        break;
      }
      buf_clear(&next);
      buf_puts(&next, after);
    } else {
      struct vfs_stat s;
      buf_puts(out, buf_str(&cur));
      if (cur.len > 1) buf_putc(out, '/');
      buf_put(out, c, cl);
      if (out->err) {
        rc = out->err;
        break;
      }
      if (!*after) { /* the last component is not followed */
        rc = vfs_stat(v, buf_str(out), 0, st);
        break;
      }
      rc = vfs_stat(v, buf_str(out), 0, &s);
      if (rc == MSB_ENOENT && in_link) { /* behind a dangling link */
        buf_clear(out);
        break;
      }
      if (rc == MSB_ENOENT) { /* created below here, never above */
        buf_putc(out, '/');
        buf_puts(out, after);
        if (out->err)
          rc = out->err;
        else if (patch_has_dotdot(after))
          rc = MSB_EPERM;
        break;
      }
      if (rc) break;
      buf_clear(&next);
      if (s.kind == VFS_LINK) {
        buf lk;
        const char *t;
        if (++links > PATCH_MAX_LINKS) {
          rc = MSB_ELOOP;
          break;
        }
        buf_init(&lk, out->m);
        rc = vfs_readlink(v, buf_str(out), &lk);
        t = buf_str(&lk);
        if (!rc && t[0] == '/') {
          rc = patch_link_inside(v, t, buf_str(&tmp), out->m, &t);
          buf_clear(&cur);
          buf_puts(&cur, buf_str(&tmp));
        }
        if (!rc) {
          buf_puts(&next, t);
          buf_putc(&next, '/');
          buf_puts(&next, after);
        }
        buf_finish(&lk);
        if (rc) break;
      } else if (s.kind == VFS_DIR) {
        buf_clear(&cur);
        buf_puts(&cur, buf_str(out));
        buf_puts(&next, after);
      } else {
        rc = MSB_ENOTDIR;
        break;
      }
      buf_clear(out);
    }
    buf_clear(&rest);
    buf_put(&rest, next.p ? next.p : "", next.len);
    if (rest.err || cur.err || next.err) rc = MSB_ENOMEM;
  }
  buf_finish(&cur);
  buf_finish(&rest);
  buf_finish(&next);
  buf_finish(&tmp);
  return rc;
}

/* ---- Whole-patch application ------------------------------------------- */

typedef struct patch_op {
  char *path; /* absolute */
  char *from; /* move source (absolute), or NULL */
  char *data; /* owned new content (NULL when empty) */
  size_t len;
  int del; /* remove path */
  int existed;
} patch_op;

typedef struct patch_job {
  vfs *v;
  mem *m;
  arena *a;
  const char *cwd;
  int workspace; /* patch_opts.workspace */
  int confined; /* patch_opts.confined, or workspace */
  patch_op *ops;
  size_t nops, cap;
  buf *rep;
  patch_meter meter; /* patch_opts.meter */
} patch_job;

/* The pending op for path, or NULL. */
static patch_op *patch_job_find(patch_job *j, const char *path) {
  size_t i;
  for (i = j->nops; i > 0; i--)
    if (strcmp(j->ops[i - 1].path, path) == 0) return &j->ops[i - 1];
  return NULL;
}

/* Current content of path as this patch sees it: 1 found, 0 missing, or
 * an error. */
static int patch_job_read(patch_job *j, const char *path, const uint8_t **d,
                          size_t *n) {
  patch_op *o = patch_job_find(j, path);
  int rc;
  if (o) {
    if (o->del) return 0;
    *d = (const uint8_t *)(o->data ? o->data : "");
    *n = o->len;
    return 1;
  }
  rc = vfs_read(j->v, path, d, n);
  if (rc == MSB_ENOENT) return 0;
  return rc < 0 ? rc : 1;
}

static int patch_job_add(patch_job *j, const char *path, buf *content, int del,
                         const char *from) {
  patch_op *o;
  int rc =
      patch_grow(j->m, (void **)&j->ops, &j->cap, j->nops + 1, sizeof *j->ops);
  if (rc) return rc;
  o = &j->ops[j->nops];
  memset(o, 0, sizeof *o);
  o->path = arena_strdup(j->a, path);
  o->from = from ? arena_strdup(j->a, from) : NULL;
  if (!o->path || (from && !o->from)) return MSB_ENOMEM;
  if (content) o->data = buf_steal(content, &o->len);
  o->del = del;
  j->nops++;
  return 0;
}

/* The path a name in the patch stands for, in the job's arena. Confined,
 * it is resolved from the working directory as GNU patch does
 * (patch_resolve), so a symbolic link leading outside is refused, as are
 * absolute names, ".." components and a name that is itself a link; with
 * workspace (the reference product's rule for a model's patches) the path
 * must also lie under /workspace, and every refusal has the reference's
 * wording. Otherwise (a host's patch) it is the name joined to cwd. */
static int patch_abs(patch_job *j, const char *rel, const char **out) {
  buf b;
  struct vfs_stat st;
  const char *why = NULL;
  int rc;
  buf_init(&b, j->m);
  rc = vfs_abspath(j->cwd, rel, &b);
  if (!rc) rc = b.err;
  if (!rc && j->workspace &&
      (patch_has_dotdot(rel) || (strcmp(buf_str(&b), "/workspace") &&
                                 strncmp(buf_str(&b), "/workspace/", 11))))
    why = "";
  else if (!rc && j->confined && !patch_name_ok(j->cwd, rel))
    why = "it is absolute or has a '..' component";
  if (!rc && !why && j->confined) {
    rc = patch_resolve(j->v, j->cwd, rel, &b, &st);
    if (rc == MSB_EPERM)
      why = "it leads outside the working directory through a symbolic link";
    else if (!rc && st.kind == VFS_LINK)
      why = "it is a symbolic link, not a regular file";
    if (rc == MSB_ENOTDIR || rc == MSB_ELOOP) { /* reading says why */
      buf_clear(&b);
      rc = vfs_abspath(j->cwd, rel, &b);
    } else if (rc == MSB_ENOENT || rc == MSB_EPERM) {
      rc = 0;
    }
  }
  if (!rc && why) {
    if (j->workspace)
      buf_puts(j->rep, "patch contains an invalid workspace path");
    else
      buf_printf(j->rep, "invalid file name '%s': %s", rel, why);
    rc = MSB_ECORRUPT;
  }
  if (!rc && !(*out = arena_strdup(j->a, buf_str(&b)))) rc = MSB_ENOMEM;
  buf_finish(&b);
  return rc;
}

/* Strips a unified header name: n components, or a/ and b/ for -1. */
static const char *patch_strip(const char *name, int strip) {
  if (!name) return NULL;
  if (strip < 0) {
    if ((name[0] == 'a' || name[0] == 'b') && name[1] == '/') return name + 2;
    return name;
  }
  while (strip-- > 0) {
    const char *s = strchr(name, '/');
    if (!s) return NULL;
    while (*s == '/') s++;
    name = s;
  }
  return name;
}

static int patch_apply_unified_file(patch_job *j, const patch_set *ps,
                                    const patch_file *f, const patch_opts *o) {
  const char *on = patch_strip(f->old_name, o->strip);
  const char *nn = patch_strip(f->new_name, o->strip);
  const char *name, *abs;
  const uint8_t *d = NULL;
  size_t n = 0, hi;
  patch_tgt t;
  int rc, exists;
  if (f->kind == PATCH_ADD)
    name = nn;
  else if (f->kind == PATCH_DELETE)
    name = on;
  else
    name = on ? on : nn;
  if (!name || !*name) {
    buf_printf(j->rep, "cannot strip the file name '%s'",
               f->old_name ? f->old_name : "");
    return MSB_ECORRUPT;
  }
  rc = patch_abs(j, name, &abs);
  if (rc) return rc;
  exists = patch_job_read(j, abs, &d, &n);
  if (exists < 0) {
    buf_printf(j->rep, "%s: %s", name, msb_strerror(exists));
    return exists;
  }
  if (!exists && f->kind != PATCH_ADD && nn && on) {
    const char *abs2;
    rc = patch_abs(j, nn, &abs2);
    if (rc) return rc;
    exists = patch_job_read(j, abs2, &d, &n);
    if (exists < 0) return exists;
    if (exists) abs = abs2, name = nn;
  }
  if (!exists && f->kind != PATCH_ADD) {
    buf_printf(j->rep, "%s: No such file or directory", name);
    return MSB_ENOENT;
  }
  if (exists && f->kind == PATCH_ADD && n) {
    buf_printf(j->rep, "%s: file already exists", name);
    return MSB_EEXIST;
  }
  rc =
      patch_tgt_init(&t, j->m, exists ? d : NULL, exists ? n : 0, 0, &o->meter);
  t.creating = f->kind == (o->reverse ? PATCH_DELETE : PATCH_ADD);
  if (rc) {
    patch_tgt_free(&t);
    return rc;
  }
  for (hi = 0; hi < f->nhunks; hi++) {
    const patch_hunk *h = &ps->hunks[f->first_hunk + hi];
    int64_t where = 0, off = 0;
    int fuzz, pc, sc, maxf = patch_hunk_context(ps, h, o->reverse, &pc, &sc);
    if (o->exact || maxf > o->max_fuzz) maxf = o->exact ? 0 : o->max_fuzz;
    for (fuzz = 0; fuzz <= maxf && !where; fuzz++) {
      if (o->exact) {
        int64_t save = t.in_offset;
        t.in_offset = 0;
        where = patch_tgt_locate(&t, ps, h, o->reverse, 0, &off);
        if (where > 0 && off != 0) where = 0;
        t.in_offset = save;
      } else {
        where = patch_tgt_locate(&t, ps, h, o->reverse, fuzz, &off);
      }
      if (where < 0) break;
    }
    if (where < 0) {
      patch_tgt_free(&t);
      buf_printf(j->rep, "%s: patch is too expensive to apply", name);
      return (int)where;
    }
    if (!where) {
      int64_t at = o->reverse ? h->new_start : h->old_start;
      patch_tgt_free(&t);
      buf_printf(j->rep,
                 "patch context for %s does not match at line %lld "
                 "(hunk #%zu)",
                 name, (long long)at, hi + 1);
      return MSB_ECORRUPT;
    }
    rc = patch_tgt_apply(&t, ps, h, o->reverse, where);
    if (rc) break;
  }
  if (!rc) rc = patch_tgt_finish(&t);
  if (!rc) {
    int del = f->kind == PATCH_DELETE && t.out.len == 0;
    rc = patch_job_add(j, abs, &t.out, del, NULL);
    if (!rc)
      buf_printf(j->rep, "%c %s\n",
                 del                    ? 'D'
                 : f->kind == PATCH_ADD ? 'A'
                                        : 'M',
                 name);
  }
  patch_tgt_free(&t);
  return rc;
}

static int patch_apply_v4a_file(patch_job *j, const patch_set *ps,
                                const patch_file *f) {
  const char *abs, *dst = NULL;
  const uint8_t *d = NULL;
  size_t n = 0, i;
  buf out;
  int rc = patch_abs(j, f->path, &abs), exists;
  if (rc) return rc;
  exists = patch_job_read(j, abs, &d, &n);
  if (exists < 0) {
    buf_printf(j->rep, "%s: %s", f->path, msb_strerror(exists));
    return exists;
  }
  buf_init(&out, j->m);
  if (f->kind == PATCH_ADD && exists && patch_job_find(j, abs)) {
    /* written by an earlier section: one of the two would be lost */
    buf_printf(j->rep, "invalid V4A patch: path '%s' is added twice", f->path);
    return MSB_ECORRUPT;
  }
  if (f->kind == PATCH_ADD) {
    const patch_hunk *h = &ps->hunks[f->first_hunk];
    for (i = 0; f->nhunks && i < h->nlines; i++) {
      buf_put(&out, ps->lines[h->first + i].s, ps->lines[h->first + i].n);
      buf_putc(&out, '\n');
    }
    rc = out.err ? out.err : patch_job_add(j, abs, &out, 0, NULL);
    if (!rc) buf_printf(j->rep, "A %s\n", f->path);
    buf_finish(&out);
    return rc;
  }
  if (!exists) {
    buf_printf(j->rep, "%s %s: No such file or directory",
               f->kind == PATCH_DELETE ? "Failed to delete file"
                                       : "Failed to read file to update",
               f->path);
    return MSB_ENOENT;
  }
  if (f->kind == PATCH_DELETE) {
    rc = patch_job_add(j, abs, NULL, 1, NULL);
    if (!rc) buf_printf(j->rep, "D %s\n", f->path);
    return rc;
  }
  rc = patch_v4a_update(ps, f, d, n, &out, j->rep, &j->meter);
  if (rc) {
    buf_finish(&out);
    return rc;
  }
  if (f->move_to)
    rc = patch_abs(j, f->move_to, &dst);
  else
    dst = abs;
  if (!rc && f->move_to && strcmp(dst, abs) != 0)
    rc = patch_job_add(j, abs, NULL, 1, NULL);
  else if (dst == abs || (dst && strcmp(dst, abs) == 0))
    abs = NULL; /* not a move: no source to record */
  if (!rc) rc = patch_job_add(j, dst, &out, 0, abs);
  if (!rc) buf_printf(j->rep, "M %s\n", f->move_to ? f->move_to : f->path);
  buf_finish(&out);
  return rc;
}

/* Parse, compute every file, then commit in one batch (see patch.h). */
int patch_apply(vfs *v, const char *cwd, const char *text, size_t len,
                const patch_opts *o, buf *report) {
  return patch_apply_list(v, cwd, text, len, o, report, NULL);
}

/* patch_apply plus the list of operations (see patch.h). */
int patch_apply_list(vfs *v, const char *cwd, const char *text, size_t len,
                     const patch_opts *o, buf *report, buf *changes) {
  static const patch_opts defaults = {-1, 2, 0, 0, 0, 0, 0, {NULL, NULL}};
  patch_set *ps = NULL;
  patch_job j;
  arena a;
  buf msgs;
  size_t i;
  int rc;
  mem *m = report->m;
  if (!o) o = &defaults;
  memset(&j, 0, sizeof j);
  arena_init(&a, m);
  buf_init(&msgs, m);
  j.v = v;
  j.m = m;
  j.a = &a;
  j.cwd = cwd;
  j.workspace = o->workspace;
  j.meter = o->meter;
  j.confined = o->workspace || o->confined;
  j.rep = &msgs;
  rc = patch_parse(m, text, len, &ps, &msgs);
  if (!rc && ps->nfiles == 0) {
    buf_puts(&msgs, "patch contains no file changes");
    rc = MSB_ECORRUPT;
  }
  for (i = 0; !rc && i < ps->nfiles; i++) {
    const patch_file *f = &ps->files[i];
    size_t mark = msgs.len;
    rc = f->v4a ? patch_apply_v4a_file(&j, ps, f)
                : patch_apply_unified_file(&j, ps, f, o);
    if (rc && !msgs.err && mark) {
      /* The report is the error alone. */
      memmove(msgs.p, msgs.p + mark, msgs.len - mark);
      buf_truncate(&msgs, msgs.len - mark);
    }
  }
  /* Listed before the commit, so running out of memory here changes
   * nothing. */
  for (i = 0; !rc && changes && i < j.nops; i++) {
    static const char hx[] = "0123456789abcdef";
    uint8_t h[32];
    size_t k;
    buf_putc(changes, j.ops[i].del ? 'D' : 'W');
    buf_put(changes, j.ops[i].path, strlen(j.ops[i].path) + 1);
    if (j.ops[i].from) buf_puts(changes, j.ops[i].from);
    buf_putc(changes, 0);
    if (!j.ops[i].del) {
      sha256_digest(j.ops[i].data ? j.ops[i].data : "", j.ops[i].len, h);
      for (k = 0; k < 32; k++) {
        buf_putc(changes, hx[h[k] >> 4]);
        buf_putc(changes, hx[h[k] & 15]);
      }
    }
    buf_putc(changes, 0);
    if (changes->err) rc = changes->err;
  }
  if (!rc && !o->dry_run) {
    vnode *saved = vfs_root_get(v);
    uint64_t rev = vfs_revision(v);
    vfs_batch_begin(v);
    for (i = 0; !rc && i < j.nops; i++) {
      patch_op *p = &j.ops[i];
      if (p->del) {
        rc = vfs_remove(v, p->path, VFS_RM_NODIR);
        if (rc == MSB_ENOENT) rc = 0;
      } else {
        rc = vfs_write(v, p->path, p->data ? p->data : "", p->len,
                       VFS_PARENTS | VFS_KEEP_MODE, 0644, NULL);
      }
      if (rc) {
        buf_clear(&msgs);
        buf_printf(&msgs, "%s: %s", p->path, msb_strerror(rc));
      }
    }
    if (rc && saved) vfs_root_set(v, saved);
    vfs_batch_end(v);
    /* A rolled-back patch is no mutation: the tree is the saved one, so
     * the revision goes back too. */
    if (rc && saved) vfs_set_revision(v, rev);
    if (saved) vnode_unref(v, saved);
  }
  if (!rc && msgs.err) rc = msgs.err;
  if (rc == MSB_ENOMEM && !msgs.len) buf_puts(&msgs, "out of memory");
  buf_put(report, msgs.p ? msgs.p : "", msgs.len);
  for (i = 0; i < j.nops; i++) mem_free(m, j.ops[i].data);
  mem_free(m, j.ops);
  buf_finish(&msgs);
  arena_finish(&a);
  patch_free(ps);
  return rc;
}
