/* awk_io.c - awk's records, fields, getline and output redirections.
 *
 * Input files are borrowed views of the virtual filesystem, re-fetched
 * after anything that may have written to it (close of an output file,
 * system(), a pipe). Fields are split lazily, the first time a field or
 * NF is used, as spans of the record; a field becomes a value when read.
 * Standard output is buffered like gawk's: flushed before a pipe or
 * system() starts and at exit, after the pipes were closed, so a
 * pipe's output lands where gawk puts it. `| cmd`, `cmd | getline` and
 * system() run `sh -c cmd` in the sandbox's shell. */
#include <stdio.h> /* snprintf only */
#include <stdlib.h>
#include <string.h>

#include "awk.h"

#define AWK_OB_MAX 65536

/* ---- records and fields ---------------------------------------------- */

int awk_set_record(awk_rt *A, const char *s, size_t n) {
  int rc = awk_set_str(A, &A->rec, s, n, 1);
  if (rc) return rc;
  A->split = 0;
  A->dirty = 0;
  return 0;
}

static int awk_fields_reserve(awk_rt *A, size_t n) {
  awk_field *f;
  size_t cap;
  if (n <= A->fcap) return 0;
  cap = A->fcap ? A->fcap : 16;
  while (cap < n) cap *= 2;
  f = mem_realloc(A->m, A->f, sizeof *f * cap);
  if (!f) return A->err = MSB_ENOMEM;
  memset(f + A->fcap, 0, sizeof *f * (cap - A->fcap));
  A->f = f;
  A->fcap = cap;
  return 0;
}

/* A field slot's value stays allocated when the field is dropped: the next
 * record's field there rewrites the string in place (awk_set_str) instead
 * of a free and a malloc per field per record. Long ones are let go. */
#define AWK_FIELD_KEEP 256

static void awk_fields_drop(awk_rt *A) {
  size_t i;
  for (i = 0; i < A->nf; i++) {
    awk_val *v = &A->f[i].v;
    if (v->s && v->s->len > AWK_FIELD_KEEP) awk_val_free(A, v);
    A->f[i].mat = 0;
  }
  A->nf = 0;
}

/* Field i (a span of $0) as a value. */
static int awk_field_mat(awk_rt *A, size_t i) {
  awk_field *f = &A->f[i];
  int rc;
  if (f->mat) return 0;
  rc = awk_set_str(A, &f->v, A->rec.s->p + f->off, f->len, 1);
  if (!rc) f->mat = 1;
  return rc;
}

static int awk_add_span(awk_rt *A, size_t off, size_t len) {
  if (A->nf == A->fcap && awk_fields_reserve(A, A->nf + 1)) return A->err;
  A->f[A->nf].off = off;
  A->f[A->nf].len = len;
  A->f[A->nf].mat = 0;
  A->nf++;
  return 0;
}

/* The blanks that separate fields when FS is " ": a table, as this test
 * runs on every byte of the input. */
static const unsigned char awk_blank[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1};

/* Splits s by the current FS rules, calling add(off, len) per field (NULL:
 * the fields of $0, added directly as the common case). */
typedef int (*awk_addfn)(awk_rt *A, void *ctx, size_t off, size_t len,
                         size_t soff, size_t slen);

static int awk_split_add(awk_rt *A, awk_addfn add, void *ctx, size_t off,
                         size_t len, size_t soff, size_t slen) {
  return add ? add(A, ctx, off, len, soff, slen) : awk_add_span(A, off, len);
}

static int awk_split_by(awk_rt *A, const char *s, size_t n, const char *fs,
                        size_t fsn, rx *re, int para, awk_addfn add,
                        void *ctx) {
  size_t i = 0, st, pst = 0;
  int rc;
  if (n == 0) return 0;
  if (fsn == 1 && fs[0] == ' ') {
    const unsigned char *u = (const unsigned char *)s;
    for (;;) {
      while (i < n && awk_blank[u[i]]) i++;
      if (i >= n) return 0;
      st = i;
      while (i < n && !awk_blank[u[i]]) i++;
      if ((rc = awk_split_add(A, add, ctx, st, i - st, pst, st - pst)) != 0)
        return rc;
      pst = i;
    }
  }
  if (fsn == 0 && !re) {
    for (i = 0; i < n; i++)
      if ((rc = awk_split_add(A, add, ctx, i, 1, i, 0)) != 0) return rc;
    return 0;
  }
  if (!re && fsn == 1) {
    char ch = fs[0];
    for (st = 0, i = 0; i <= n; i++)
      if (i == n || s[i] == ch || (para && s[i] == '\n')) {
        if ((rc = awk_split_add(A, add, ctx, st, i - st, st ? st - 1 : 0,
                                st ? 1 : 0)) != 0)
          return rc;
        st = i + 1;
      }
    return 0;
  }
  /* regex separators */
  {
    rx_match m;
    size_t pos = 0, psl = 0;
    st = 0;
    for (;;) {
      int r = pos < n ? awk_rx_exec(A, re, s, n, pos, 0, &m, 1) : 0;
      if (r < 0) return r;
      if (r == 1 && m.eo == m.so) {
        /* an empty match separates nothing: look further */
        pos = (size_t)m.so + 1;
        if (pos <= n) continue;
        r = 0;
      }
      if (r != 1) return awk_split_add(A, add, ctx, st, n - st, pst, psl);
      if ((rc = awk_split_add(A, add, ctx, st, (size_t)m.so - st, pst, psl)) !=
          0)
        return rc;
      pst = (size_t)m.so;
      psl = (size_t)(m.eo - m.so);
      st = pos = (size_t)m.eo;
      if (st == n) return awk_split_add(A, add, ctx, st, 0, pst, psl);
    }
  }
}

/* FS as a regex when it is one (not " ", not a single plain char). */
static rx *awk_fs_regex(awk_rt *A, awk_val *fs, int *rc) {
  *rc = 0;
  /* " ", "" and a single character (even a backslash) are not regexes */
  if (fs->s->len <= 1) return NULL;
  return awk_regex_str(A, fs->s->p, fs->s->len, rc);
}

static int awk_split_fw(awk_rt *A, size_t n) {
  awk_val *fw = &A->g[V_FIELDWIDTHS].v;
  const char *p = fw->s->p;
  size_t pos = 0;
  while (*p) {
    long skip = 0, w;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    if (*p == '*') {
      awk_add_span(A, pos, n - pos);
      return 0;
    }
    w = strtol(p, (char **)&p, 10);
    if (*p == ':') {
      skip = w;
      w = strtol(p + 1, (char **)&p, 10);
    }
    pos += (size_t)skip;
    if (pos > n) pos = n;
    if (pos >= n) break;
    if (pos + (size_t)w > n) w = (long)(n - pos);
    if (awk_add_span(A, pos, (size_t)w)) return A->err;
    pos += (size_t)w;
  }
  return 0;
}

/* The next FPAT field from *pos, as gawk finds them: a non-empty match is a
 * field; an empty match is an empty field unless it sits where the previous
 * non-empty field ended (*last, SIZE_MAX before any). */
int awk_next_field_match(awk_rt *A, rx *re, const char *s, size_t n,
                         size_t *pos, size_t *last, rx_match *m) {
  if (n == 0) return 0;
  while (*pos <= n) {
    int r = awk_rx_exec(A, re, s, n, *pos, 0, m, 1);
    if (r != 1) return r;
    if (m->eo > m->so) {
      *pos = *last = (size_t)m->eo;
      return 1;
    }
    *pos = (size_t)m->so + 1;
    if ((size_t)m->so != *last) return 1;
  }
  return 0;
}

static int awk_split_fpat(awk_rt *A, const char *s, size_t n) {
  awk_val *fp = &A->g[V_FPAT].v;
  int rc;
  rx *re = awk_regex_str(A, fp->s->p, fp->s->len, &rc);
  size_t pos = 0, last = SIZE_MAX;
  rx_match m;
  if (!re) return rc ? rc : A->err;
  while ((rc = awk_next_field_match(A, re, s, n, &pos, &last, &m)) == 1)
    if (awk_add_span(A, (size_t)m.so, (size_t)(m.eo - m.so))) return A->err;
  return rc;
}

/* Splits $0 into spans once. */
static int awk_split_rec(awk_rt *A) {
  awk_val *fs = &A->g[V_FS].v;
  const char *s = A->rec.s->p;
  size_t n = A->rec.s->len;
  rx *re;
  int rc;
  if (A->split) return 0;
  awk_fields_drop(A);
  A->split = 1;
  if (A->fs_mode == 3)
    rc = awk_split_fw(A, n);
  else if (A->fs_mode == 4)
    rc = awk_split_fpat(A, s, n);
  else if (A->fs_mode == 5)
    rc = awk_split_csv(A, s, n);
  else if ((rc = awk_val_str(A, fs, 0)) == 0) {
    re = awk_fs_regex(A, fs, &rc);
    if (!rc)
      rc = awk_split_by(A, s, n, fs->s->p, fs->s->len, re, A->rs_mode == 1,
                        NULL, NULL);
  }
  A->g[V_NF].kind = C_SCALAR;
  awk_set_num(A, &A->g[V_NF].v, (double)A->nf);
  return rc;
}

int awk_get_nf(awk_rt *A) { return awk_split_rec(A); }

/* Rebuilds $0 from the fields with OFS. */
static int awk_rebuild(awk_rt *A) {
  buf b;
  size_t i;
  awk_val *ofs = &A->g[V_OFS].v;
  int rc;
  if ((rc = awk_val_str(A, ofs, 0)) != 0) return rc;
  buf_init(&b, A->m);
  for (i = 0; i < A->nf; i++) {
    awk_field *f = &A->f[i];
    if (i) buf_put(&b, ofs->s->p, ofs->s->len);
    if (f->mat) {
      if ((rc = awk_val_str(A, &f->v, 0)) != 0) return buf_finish(&b), rc;
      buf_put(&b, f->v.s->p, f->v.s->len);
    } else
      buf_put(&b, A->rec.s->p + f->off, f->len);
  }
  if (b.err) return buf_finish(&b), A->err = MSB_ENOMEM;
  /* materialise the fields still pointing into the old record */
  for (i = 0; i < A->nf; i++)
    if ((rc = awk_field_mat(A, i)) != 0) return buf_finish(&b), rc;
  rc = awk_set_str(A, &A->rec, b.p ? b.p : "", b.len, 1);
  buf_finish(&b);
  A->dirty = 0;
  return rc;
}

int awk_rec_val(awk_rt *A, awk_val **out) {
  int rc;
  if (A->dirty && (rc = awk_rebuild(A)) != 0) return rc;
  if (!A->rec.s && (rc = awk_set_record(A, "", 0)) != 0) return rc;
  *out = &A->rec;
  return 0;
}

/* More fields than memory could ever hold (and than a 32-bit size_t can
 * count safely): the memory limit's error, before any conversion. */
#define AWK_MAX_FIELD ((double)(SIZE_MAX / 64))

/* A field number as gawk converts it: beyond the range of a long (or nan)
 * it is LONG_MIN, which is refused like any negative one. */
static double awk_field_num(double idx) {
  return idx > -9.2e18 && idx < 9.2e18 ? idx : -9223372036854775807.0 - 1;
}

int awk_field_get(awk_rt *A, double idx, awk_val **out) {
  size_t i;
  int rc;
  idx = awk_field_num(idx);
  if (idx < 0)
    return A->err =
               awk_fatal(A, "attempt to access field %lld", (long long)idx);
  if (idx < 1) return awk_rec_val(A, out);
  if ((rc = awk_split_rec(A)) != 0) return rc;
  /* compared as doubles first: a 32-bit size_t cannot hold every index */
  i = idx - 1 < (double)A->nf ? (size_t)idx - 1 : A->nf;
  if (i >= A->nf) {
    if (!A->nofield.s && (rc = awk_set_str(A, &A->nofield, "", 0, 1)) != 0)
      return rc;
    *out = &A->nofield;
    return 0;
  }
  if ((rc = awk_field_mat(A, i)) != 0) return rc;
  *out = &A->f[i].v;
  return 0;
}

/* Grows the field list to n empty fields. */
static int awk_fields_extend(awk_rt *A, size_t n) {
  if (awk_fields_reserve(A, n)) return A->err;
  while (A->nf < n) {
    awk_field *f = &A->f[A->nf++];
    f->off = f->len = 0;
    f->mat = 1;
    if (awk_set_str(A, &f->v, "", 0, 0)) return A->err;
  }
  return 0;
}

int awk_field_set(awk_rt *A, double idx, awk_val *v) {
  size_t i;
  int rc;
  idx = awk_field_num(idx);
  if (idx > AWK_MAX_FIELD) {
    awk_val_free(A, v);
    return A->err = MSB_ENOMEM;
  }
  if (idx < 0) {
    awk_val_free(A, v);
    return A->err =
               awk_fatal(A, "attempt to access field %lld", (long long)idx);
  }
  if (idx < 1) {
    rc = awk_val_str(A, v, 0);
    if (!rc) rc = awk_set_record(A, v->s->p, v->s->len);
    awk_val_free(A, v);
    return rc;
  }
  if (A->dirty == 0 && (rc = awk_split_rec(A)) != 0) return rc;
  i = (size_t)idx - 1;
  if (i >= A->nf && (rc = awk_fields_extend(A, i + 1)) != 0) return rc;
  awk_val_free(A, &A->f[i].v);
  A->f[i].v = *v;
  A->f[i].mat = 1;
  A->dirty = 1;
  awk_set_num(A, &A->g[V_NF].v, (double)A->nf);
  return 0;
}

int awk_set_nf(awk_rt *A, double d) {
  size_t n;
  int rc;
  d = awk_field_num(d);
  if (d > AWK_MAX_FIELD) return A->err = MSB_ENOMEM;
  if (d < 0) return A->err = awk_fatal(A, "NF set to negative value");
  n = (size_t)d;
  if ((rc = awk_split_rec(A)) != 0) return rc;
  if (n > A->nf) {
    if ((rc = awk_fields_extend(A, n)) != 0) return rc;
  } else {
    /* materialise, then drop the tail */
    size_t i;
    for (i = 0; i < A->nf; i++)
      if ((rc = awk_field_mat(A, i)) != 0) return rc;
    for (i = n; i < A->nf; i++) {
      awk_val_free(A, &A->f[i].v);
      A->f[i].mat = 0;
    }
    A->nf = n;
  }
  A->dirty = 1;
  awk_set_num(A, &A->g[V_NF].v, (double)n);
  return 0;
}

/* ---- splitting into arrays -------------------------------------------- */

typedef struct awk_splitctx {
  const char *s;
  awk_arr *arr, *seps;
  int n;
} awk_splitctx;

/* arr[k] = the bytes s[0..n), a strnum as split() makes them. */
static int awk_put_elem(awk_rt *A, awk_arr *arr, int k, const char *s,
                        size_t n) {
  char key[24];
  int kn = snprintf(key, sizeof key, "%d", k);
  awk_val *v = awk_arr_get(A, arr, key, (size_t)kn, 1);
  if (!v || awk_set_str(A, v, s, n, 1)) return A->err;
  return 0;
}

static int awk_add_elem(awk_rt *A, void *ctx, size_t off, size_t len, size_t so,
                        size_t sl) {
  awk_splitctx *x = ctx;
  x->n++;
  if (awk_put_elem(A, x->arr, x->n, x->s + off, len)) return A->err;
  if (x->seps && x->n > 1 && awk_put_elem(A, x->seps, x->n - 1, x->s + so, sl))
    return A->err;
  return 0;
}

/* split(s, a, " ", seps): the blanks before the first field are seps[0]
 * and those after the last are seps[n], as gawk keeps them. */
static int awk_blank_seps(awk_rt *A, const char *s, size_t n, awk_arr *seps,
                          int nf) {
  size_t lead = 0, trail = 0;
  while (lead < n && awk_blank[(unsigned char)s[lead]]) lead++;
  if (lead && awk_put_elem(A, seps, 0, s, lead)) return A->err;
  if (!nf) return 0;
  while (trail < n && awk_blank[(unsigned char)s[n - 1 - trail]]) trail++;
  if (trail && awk_put_elem(A, seps, nf, s + n - trail, trail)) return A->err;
  return 0;
}

int awk_split_str(awk_rt *A, const char *s, size_t n, awk_val *fs,
                  awk_node *fsn, awk_arr *arr, awk_arr *seps, int *count) {
  awk_splitctx x;
  rx *re = NULL;
  int rc;
  const char *fp;
  size_t fl;
  x.s = s;
  x.arr = arr;
  x.seps = seps;
  x.n = 0;
  if (fsn && fsn->op == N_ERE) {
    re = awk_regex(A, fsn, &rc);
    if (!re) return rc ? rc : A->err;
    fp = "xx";
    fl = 2;
  } else {
    if ((rc = awk_val_str(A, fs, 0)) != 0) return rc;
    fp = fs->s->p;
    fl = fs->s->len;
    re = awk_fs_regex(A, fs, &rc);
    if (rc) return rc;
  }
  rc = awk_split_by(A, s, n, fp, fl, re, 0, awk_add_elem, &x);
  *count = x.n;
  if (!rc && seps && !re && fl == 1 && fp[0] == ' ')
    rc = awk_blank_seps(A, s, n, seps, x.n);
  return rc;
}

/* CSV fields (--csv, as gawk 5.3): commas separate, a double-quoted field
 * may hold commas, newlines and "" for a quote. Each field's value is built
 * in a buffer (a quoted field is not a span of the text) and handed to fn. */
typedef int (*awk_csvfn)(awk_rt *A, void *ctx, const char *p, size_t n);

static int awk_csv_scan(awk_rt *A, const char *s, size_t n, awk_csvfn fn,
                        void *ctx) {
  size_t i = 0;
  buf b;
  int rc = 0;
  if (n == 0) return 0;
  buf_init(&b, A->m);
  for (;;) {
    buf_clear(&b);
    if (i < n && s[i] == '"') {
      i++;
      while (i < n) {
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            buf_putc(&b, '"');
            i += 2;
            continue;
          }
          i++;
          break;
        }
        buf_putc(&b, s[i++]);
      }
    }
    while (i < n && s[i] != ',') buf_putc(&b, s[i++]);
    if (b.err) {
      rc = A->err = b.err;
      break;
    }
    if ((rc = fn(A, ctx, b.p ? b.p : "", b.len)) != 0) break;
    if (i >= n) break;
    i++; /* the comma */
  }
  buf_finish(&b);
  return rc;
}

static int awk_csv_field(awk_rt *A, void *ctx, const char *p, size_t n) {
  awk_field *f;
  (void)ctx;
  if (awk_add_span(A, 0, 0)) return A->err;
  f = &A->f[A->nf - 1];
  if (awk_set_str(A, &f->v, p, n, 1)) return A->err;
  f->mat = 1;
  return 0;
}

int awk_split_csv(awk_rt *A, const char *s, size_t n) {
  return awk_csv_scan(A, s, n, awk_csv_field, NULL);
}

static int awk_csv_elem(awk_rt *A, void *ctx, const char *p, size_t n) {
  awk_splitctx *x = ctx;
  x->n++;
  if (awk_put_elem(A, x->arr, x->n, p, n)) return A->err;
  if (x->seps && x->n > 1 && awk_put_elem(A, x->seps, x->n - 1, ",", 1))
    return A->err;
  return 0;
}

/* split(s, a) under --csv: the CSV rules, as gawk 5.3 splits. */
int awk_split_csv_arr(awk_rt *A, const char *s, size_t n, awk_arr *arr,
                      awk_arr *seps, int *count) {
  awk_splitctx x;
  int rc;
  x.s = s;
  x.arr = arr;
  x.seps = seps;
  x.n = 0;
  rc = awk_csv_scan(A, s, n, awk_csv_elem, &x);
  *count = x.n;
  return rc;
}

/* ---- input ------------------------------------------------------------ */

/* Re-fetches a file view after the filesystem may have changed. */
static int awk_in_fresh(awk_rt *A, awk_in *in) {
  int rc;
  if (!in->abs || in->gen == A->gen) return 0;
  rc = vfs_read(A->c->fs, in->abs, &in->data, &in->len);
  if (rc) {
    in->data = NULL;
    in->len = 0;
  }
  if (in->pos > in->len) in->pos = in->len;
  in->gen = A->gen;
  return 0;
}

/* The end of a CSV record: a newline outside double quotes. */
static size_t awk_csv_end(const char *d, size_t pos, size_t len) {
  int q = 0;
  size_t i;
  for (i = pos; i < len; i++) {
    if (d[i] == '"')
      q = !q;
    else if (d[i] == '\n' && !q)
      return i;
  }
  return len;
}

/* Next record of in: 1 with the record in p, n and its terminator in rt,
 * rtn; 0 at
 * the end, or a negative code. */
static int awk_in_record(awk_rt *A, awk_in *in, const char **p, size_t *n,
                         const char **rt, size_t *rtn) {
  const char *d;
  size_t len, pos, e;
  awk_in_fresh(A, in);
  d = in->data ? (const char *)in->data : "";
  len = in->data ? in->len : 0;
  pos = in->pos;
  *rt = "";
  *rtn = 0;
  if (A->rs_mode == 1) {
    while (pos < len && d[pos] == '\n') pos++;
    if (pos >= len) return in->pos = len, 0;
    for (e = pos; e < len; e++)
      if (d[e] == '\n' && e + 1 < len && d[e + 1] == '\n') break;
    *p = d + pos;
    *n = (e < len ? e : len) - pos;
    if (e >= len && *n && d[len - 1] == '\n') {
      (*n)--;
      *rt = d + len - 1;
      *rtn = 1;
      in->pos = len;
      return 1;
    }
    pos = e;
    while (e < len && d[e] == '\n') e++;
    *rt = d + pos;
    *rtn = e - pos;
    in->pos = e;
    return 1;
  }
  if (pos >= len) return 0;
  if (A->rs_mode == 2) {
    rx_match m;
    size_t from = pos;
    int r;
    for (;;) {
      r = awk_rx_exec(A, A->rs_rx, d, len, from, 0, &m, 1);
      if (r < 0) return r;
      if (r == 1 && m.eo == m.so) {
        if ((size_t)m.so + 1 > len)
          r = 0;
        else {
          from = (size_t)m.so + 1;
          continue;
        }
      }
      break;
    }
    *p = d + pos;
    if (r != 1) {
      *n = len - pos;
      in->pos = len;
      return 1;
    }
    *n = (size_t)m.so - pos;
    *rt = d + m.so;
    *rtn = (size_t)(m.eo - m.so);
    in->pos = (size_t)m.eo;
    return 1;
  }
  if (A->rs_mode == 3) {
    e = awk_csv_end(d, pos, len);
  } else {
    int ch = A->rs_mode == 0   ? (unsigned char)A->g[V_RS].v.s->p[0]
             : A->rs_mode == 4 ? 0
                               : '\n';
    const char *q = memchr(d + pos, ch, len - pos);
    e = q ? (size_t)(q - d) : len;
  }
  *p = d + pos;
  *n = e - pos;
  if (e < len) {
    *rt = d + e;
    *rtn = 1;
    in->pos = e + 1;
  } else
    in->pos = len;
  if (A->rs_mode == 3 && *n && (*p)[*n - 1] == '\r') (*n)--;
  return 1;
}

static int awk_set_rt(awk_rt *A, const char *rt, size_t n) {
  return awk_set_str(A, &A->g[V_RT].v, rt, n, 0);
}

static void awk_bump(awk_rt *A, int slot) {
  awk_val *v = &A->g[slot].v;
  awk_set_num(A, v, awk_val_num(v) + 1);
}

void awk_set_errno(awk_rt *A, const char *msg) {
  awk_set_str(A, &A->g[V_ERRNO].v, msg, strlen(msg), 0);
}

static int awk_run_rules(awk_rt *A, int kind) {
  int i, rc;
  for (i = 0; i < A->p->nrules; i++)
    if (A->p->rules[i].kind == kind) {
      rc = awk_exec(A, A->p->rules[i].body);
      if (rc) return rc;
    }
  return 0;
}

/* ARGV[i] as a string (NULL when absent). */
static const awk_val *awk_argv(awk_rt *A, int i) {
  char key[24];
  int n = snprintf(key, sizeof key, "%d", i);
  awk_val *v;
  if (A->g[V_ARGV].kind != C_ARRAY) return NULL;
  v = awk_arr_get(A, A->g[V_ARGV].a, key, (size_t)n, 0);
  if (!v || awk_val_str(A, v, 0)) return NULL;
  return v;
}

/* Opens main input NAME: 0 when open, 1 for a directory, 2 when it cannot
 * be read (the reason in *oerr); FILENAME names it in every case. */
static int awk_open_main(awk_rt *A, const char *name, size_t nlen, int *oerr) {
  const char *abs;
  int rc;
  struct vfs_stat st;
  awk_in *in = &A->main;
  awk_set_num(A, &A->g[V_FNR].v, 0);
  mem_free(A->m, in->name);
  mem_free(A->m, in->abs);
  memset(in, 0, sizeof *in);
  in->name = mem_strndup(A->m, name, nlen);
  if (!in->name) return A->err = MSB_ENOMEM;
  if (!strcmp(in->name, "-") || !strcmp(in->name, "/dev/stdin")) {
    if (A->c->in_err)
      return A->err = awk_fatal(A, "cannot open file `%s' for reading: %s",
                                in->name, cmd_strerror(A->c->in_err));
    in->data = A->c->in;
    in->len = A->c->in_len;
    A->c->in_used = A->c->in_len;
    A->c->in_eof = 1;
  } else {
    abs = cmd_path(A->c, in->name);
    if (!abs) return A->err = MSB_ENOMEM;
    if ((rc = awk_set_str(A, &A->g[V_FILENAME].v, in->name, nlen, 0)) != 0)
      return rc;
    if (vfs_stat(A->c->fs, abs, 1, &st) == 0 && st.kind == VFS_DIR) return 1;
    /* cmd_input charges the read to the step budget */
    rc = cmd_input(A->c, in->name, &in->data, &in->len);
    if (rc) return *oerr = rc, 2;
    in->abs = mem_strdup(A->m, abs);
    if (!in->abs) return A->err = MSB_ENOMEM;
    in->gen = A->gen;
  }
  A->main_open = 1;
  awk_set_num(A, &A->g[V_FNR].v, 0);
  if ((rc = awk_set_str(A, &A->g[V_FILENAME].v, in->name, nlen, 0)) != 0)
    return rc;
  return 0;
}

static int awk_has_rules(awk_rt *A, int kind) {
  int i;
  for (i = 0; i < A->p->nrules; i++)
    if (A->p->rules[i].kind == kind) return 1;
  return 0;
}

/* A main input that is a directory (err 0) or unreadable: BEGINFILE sees
 * ERRNO and may skip it with nextfile (1); otherwise a directory is skipped
 * with gawk's warning and an unreadable file is fatal. */
static int awk_open_failed(awk_rt *A, int err) {
  const char *name = A->main.name;
  if (awk_has_rules(A, R_BEGINFILE)) {
    int rc;
    awk_set_errno(A, err ? cmd_strerror(err) : "Is a directory");
    rc = awk_run_rules(A, R_BEGINFILE);
    if (rc == AWK_NEXTFILE) return 1;
    if (rc) return rc;
  }
  if (!err) {
    awk_warn(A, "command line argument `%s' is a directory: skipped", name);
    return 1;
  }
  return A->err = awk_fatal(A, "cannot open file `%s' for reading: %s", name,
                            cmd_strerror(err));
}

/* Opens the next main input file; 0 when one is open, 1 at the end. */
static int awk_main_advance(awk_rt *A) {
  int rc, oerr = 0;
  for (;;) {
    const awk_val *a;
    int argc = (int)awk_val_num(&A->g[V_ARGC].v);
    if (A->argi >= argc) {
      if (A->main_done) return 1;
      A->main_done = 1;
      if (A->nfiles) return 1;
      A->nfiles++;
      if ((rc = awk_open_main(A, "-", 1, &oerr)) != 0) return rc;
      awk_set_str(A, &A->g[V_FILENAME].v, "", 0, 0);
      break;
    }
    a = awk_argv(A, A->argi++);
    if (!a || !a->s->len) continue;
    rc = awk_cmdline_assign(A, a->s->p, a->s->len);
    if (rc < 0 || rc == AWK_FATAL) return rc;
    if (rc == 1) continue;
    A->nfiles++;
    awk_set_errno(A, "");
    rc = awk_open_main(A, a->s->p, a->s->len, &oerr);
    if (rc == 1 || rc == 2) rc = awk_open_failed(A, rc == 1 ? 0 : oerr);
    if (rc == 1) continue;
    if (rc) return rc;
    break;
  }
  rc = awk_run_rules(A, R_BEGINFILE);
  if (rc == AWK_NEXTFILE) {
    A->main_open = 0;
    return awk_main_advance(A);
  }
  return rc;
}

int awk_end_file(awk_rt *A) {
  int rc = 0;
  if (A->main_open) {
    A->main_open = 0;
    rc = awk_run_rules(A, R_ENDFILE);
  }
  return rc;
}

int awk_next_main(awk_rt *A, int *got) {
  const char *p, *rt;
  size_t n, rtn;
  int rc;
  *got = 0;
  for (;;) {
    if (!A->main_open) {
      if (A->main_done && A->argi >= (int)awk_val_num(&A->g[V_ARGC].v))
        return 0;
      rc = awk_main_advance(A);
      if (rc == 1) return 0;
      if (rc) return rc;
    }
    rc = awk_in_record(A, &A->main, &p, &n, &rt, &rtn);
    if (rc < 0) return rc;
    if (rc == 1) break;
    if ((rc = awk_end_file(A)) != 0) return rc;
  }
  if ((rc = awk_tick(A)) != 0) return rc;
  A->rec_p = p;
  A->rec_n = n;
  awk_bump(A, V_NR);
  awk_bump(A, V_FNR);
  *got = 1;
  return awk_set_rt(A, rt, rtn);
}

/* ---- streams ------------------------------------------------------------- */

static int awk_run_sh(awk_rt *A, const char *cmd, const uint8_t *in,
                      size_t inlen, buf *out) {
  char *argv[4];
  int rc;
  if (!A->c->run)
    return A->err = awk_fatal(A, "cannot run `%s': no shell", cmd);
  argv[0] = (char *)"sh";
  argv[1] = (char *)"-c";
  argv[2] = (char *)cmd;
  argv[3] = NULL;
  rc = A->c->run(A->c, 3, argv, in, inlen, out, A->c->err);
  A->gen++;
  if (rc < 0) A->err = rc;
  return rc;
}

int awk_ob_flush(awk_rt *A) {
  int rc;
  if (!A->ob.len) return 0;
  rc = cmd_write(A->c, A->ob.p, A->ob.len);
  buf_clear(&A->ob);
  if (rc) A->err = rc;
  return rc;
}

static int awk_out_flush(awk_rt *A, awk_out *o) {
  int rc = 0;
  if (o->dev == 1 || o->kind == RD_PIPE || !o->b.len) return 0;
  if (o->dev == 2) {
    buf_put(A->c->err, o->b.p, o->b.len);
    buf_clear(&o->b);
    return 0;
  }
  rc = vfs_write(A->c->fs, o->abs, o->b.p, o->b.len, VFS_APPEND | VFS_KEEP_MODE,
                 CMD_NEWFILE(A->c), 0);
  A->gen++;
  buf_clear(&o->b);
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return A->err = rc;
  if (rc)
    return A->err = awk_fatal(A, "cannot write to `%s': %s", o->name,
                              cmd_strerror(rc));
  return 0;
}

int awk_flush_all(awk_rt *A) {
  int i, rc;
  if ((rc = awk_ob_flush(A)) != 0) return rc;
  for (i = 0; i < A->nouts; i++)
    if ((rc = awk_out_flush(A, A->outs[i])) != 0) return rc;
  return 0;
}

static int awk_out_finish(awk_rt *A, awk_out *o, double *res) {
  int rc = 0;
  *res = 0;
  if (o->kind == RD_PIPE) {
    int st = awk_run_sh(A, o->name, (const uint8_t *)(o->b.p ? o->b.p : ""),
                        o->b.len, A->c->out);
    if (st < 0)
      rc = st;
    else
      *res = st;
    if (!rc && A->c->out_max && A->c->out->len > A->c->out_max)
      rc = A->err = MSB_ELIMIT;
  } else
    rc = awk_out_flush(A, o);
  buf_finish(&o->b);
  mem_free(A->m, o->name);
  mem_free(A->m, o->abs);
  mem_free(A->m, o);
  return rc;
}

/* Finds or opens an output stream (kind RD_FILE, RD_APPEND, RD_PIPE). */
int awk_out_stream(awk_rt *A, int kind, const char *name, buf **b) {
  int i, rc;
  awk_out *o;
  for (i = 0; i < A->nouts; i++)
    if (!strcmp(A->outs[i]->name, name)) {
      *b = A->outs[i]->dev == 1 ? &A->ob : &A->outs[i]->b;
      return 0;
    }
  if (A->nouts == AWK_MAX_STREAMS)
    return A->err = awk_fatal(A, "too many open files");
  o = mem_zalloc(A->m, sizeof *o);
  if (!o || !(o->name = mem_strdup(A->m, name))) {
    mem_free(A->m, o);
    return A->err = MSB_ENOMEM;
  }
  o->kind = kind;
  buf_init(&o->b, A->m);
  if (!strcmp(name, "/dev/stdout") || !strcmp(name, "-"))
    o->dev = 1;
  else if (!strcmp(name, "/dev/stderr"))
    o->dev = 2;
  if (kind == RD_PIPE) {
    if ((rc = awk_flush_all(A)) != 0) return awk_out_finish(A, o, 0), rc;
  } else if (!o->dev) {
    const char *abs = cmd_path(A->c, name);
    o->abs = abs ? mem_strdup(A->m, abs) : NULL;
    if (!o->abs) {
      double d;
      awk_out_finish(A, o, &d);
      return A->err = MSB_ENOMEM;
    }
    rc = vfs_write(A->c->fs, o->abs, "", 0,
                   (kind == RD_APPEND ? VFS_APPEND : 0) | VFS_KEEP_MODE,
                   CMD_NEWFILE(A->c), 0);
    A->gen++;
    if (rc) {
      double d;
      awk_out_finish(A, o, &d);
      if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return A->err = rc;
      return A->err = awk_fatal(A, "cannot redirect to `%s': %s", name,
                                cmd_strerror(rc));
    }
  }
  A->outs[A->nouts++] = o;
  *b = o->dev == 1 ? &A->ob : &o->b;
  return 0;
}

static void awk_in_free(awk_rt *A, awk_in *in) {
  buf_finish(&in->own);
  mem_free(A->m, in->name);
  mem_free(A->m, in->abs);
  mem_free(A->m, in);
}

int awk_close(awk_rt *A, const char *name, size_t n, double *res) {
  int i, rc;
  *res = -1;
  for (i = 0; i < A->nouts; i++)
    if (strlen(A->outs[i]->name) == n && !memcmp(A->outs[i]->name, name, n)) {
      awk_out *o = A->outs[i];
      memmove(A->outs + i, A->outs + i + 1,
              sizeof *A->outs * (size_t)(A->nouts - i - 1));
      A->nouts--;
      if (o->dev == 1 && (rc = awk_ob_flush(A)) != 0) return rc;
      return awk_out_finish(A, o, res);
    }
  for (i = 0; i < A->nins; i++)
    if (strlen(A->ins[i]->name) == n && !memcmp(A->ins[i]->name, name, n)) {
      awk_in *in = A->ins[i];
      *res = in->kind == RD_CMD ? in->eof : 0;
      memmove(A->ins + i, A->ins + i + 1,
              sizeof *A->ins * (size_t)(A->nins - i - 1));
      A->nins--;
      awk_in_free(A, in);
      return 0;
    }
  awk_set_errno(A, "close of redirection that was never opened");
  return 0;
}

/* fflush(name): everything is flushed (output reaches the sandbox in order
 * anyway); the result and warnings are gawk's for a name not open for
 * writing. */
int awk_fflush(awk_rt *A, const char *name, double *res) {
  int i, rc = awk_flush_all(A);
  *res = 0;
  if (rc || !name || !*name || !strcmp(name, "/dev/stdout") ||
      !strcmp(name, "/dev/stderr"))
    return rc;
  for (i = 0; i < A->nouts; i++)
    if (!strcmp(A->outs[i]->name, name)) return 0;
  *res = -1;
  for (i = 0; i < A->nins; i++)
    if (!strcmp(A->ins[i]->name, name)) {
      awk_warn(A,
               "fflush: cannot flush: %s `%s' opened for reading, not writing",
               A->ins[i]->kind == RD_CMD ? "pipe" : "file", name);
      return 0;
    }
  awk_warn(A, "fflush: `%s' is not an open file, pipe or co-process", name);
  return 0;
}

int awk_close_all(awk_rt *A) {
  int rc = 0, r;
  double d;
  while (A->nouts) {
    awk_out *o = A->outs[0];
    memmove(A->outs, A->outs + 1, sizeof *A->outs * (size_t)(A->nouts - 1));
    A->nouts--;
    r = awk_out_finish(A, o, &d);
    if (r && !rc) rc = r;
  }
  while (A->nins) awk_in_free(A, A->ins[--A->nins]);
  return rc;
}

int awk_system(awk_rt *A, const char *cmd, double *status) {
  int rc = awk_flush_all(A);
  if (rc) return rc;
  rc = awk_run_sh(A, cmd, (const uint8_t *)"", 0, A->c->out);
  if (rc < 0) return rc;
  *status = rc;
  return 0;
}

/* ---- getline ------------------------------------------------------------ */

static int awk_in_stream(awk_rt *A, int kind, const char *name, awk_in **out) {
  int i, rc;
  awk_in *in = NULL;
  for (i = 0; i < A->nins; i++)
    if (!strcmp(A->ins[i]->name, name)) {
      *out = A->ins[i];
      return 0;
    }
  if (A->nins == AWK_MAX_STREAMS)
    return A->err = awk_fatal(A, "too many open files");
  in = mem_zalloc(A->m, sizeof *in);
  if (!in || !(in->name = mem_strdup(A->m, name))) {
    mem_free(A->m, in);
    return A->err = MSB_ENOMEM;
  }
  in->kind = kind;
  buf_init(&in->own, A->m);
  if (kind == RD_CMD) {
    if ((rc = awk_flush_all(A)) != 0) return awk_in_free(A, in), rc;
    rc = awk_run_sh(A, name, (const uint8_t *)"", 0, &in->own);
    if (rc < 0) return awk_in_free(A, in), rc;
    in->eof = rc; /* the status close() returns */
    in->data = (const uint8_t *)(in->own.p ? in->own.p : "");
    in->len = in->own.len;
  } else if (!strcmp(name, "-") || !strcmp(name, "/dev/stdin")) {
    in->data = A->c->in;
    in->len = A->c->in_len;
    A->c->in_used = A->c->in_len;
    A->c->in_eof = 1;
  } else {
    const char *abs = cmd_path(A->c, name);
    if (!abs || !(in->abs = mem_strdup(A->m, abs)))
      return awk_in_free(A, in), A->err = MSB_ENOMEM;
    rc = cmd_input(A->c, name, &in->data, &in->len);
    if (rc) {
      awk_set_errno(A, cmd_strerror(rc));
      awk_in_free(A, in);
      *out = NULL;
      return 0;
    }
    in->gen = A->gen;
  }
  A->ins[A->nins++] = in;
  *out = in;
  return 0;
}

/* Stores a record read by getline into $0 or the variable. */
static int awk_getline_store(awk_rt *A, awk_node *var, const char *p,
                             size_t n) {
  awk_val v;
  int rc;
  if (!var) return awk_set_record(A, p, n);
  memset(&v, 0, sizeof v);
  if ((rc = awk_set_str(A, &v, p, n, 1)) != 0) return rc;
  return awk_store_lval(A, var, &v);
}

int awk_getline(awk_rt *A, awk_node *n, awk_val *out) {
  const char *p, *rt;
  size_t len, rtn;
  int rc, got;
  if (n->sub == RD_NONE) {
    if ((rc = awk_next_main(A, &got)) != 0) return rc;
    if (!got) return awk_set_num(A, out, 0), 0;
    if ((rc = awk_getline_store(A, n->a, A->rec_p, A->rec_n)) != 0) return rc;
    awk_set_num(A, out, 1);
    return 0;
  }
  {
    awk_val name;
    awk_in *in = NULL;
    memset(&name, 0, sizeof name);
    if ((rc = awk_eval_str(A, n->b, &name)) != 0) return rc;
    rc = awk_in_stream(A, n->sub, name.s->p, &in);
    awk_val_free(A, &name);
    if (rc) return rc;
    if (!in) return awk_set_num(A, out, -1), 0;
    rc = awk_in_record(A, in, &p, &len, &rt, &rtn);
    if (rc < 0) return rc;
    if (rc == 0) return awk_set_num(A, out, 0), 0;
    if ((rc = awk_set_rt(A, rt, rtn)) != 0) return rc;
    if ((rc = awk_getline_store(A, n->a, p, len)) != 0) return rc;
    awk_set_num(A, out, 1);
    return 0;
  }
}

/* ---- print ------------------------------------------------------------- */

static int awk_print_val(awk_rt *A, buf *b, awk_val *v) {
  int rc;
  if (v->type == AV_NUM && !(v->have & AV_HSTR)) {
    awk_val *of = &A->g[V_OFMT].v;
    return awk_num_to_str(A, v->n, of->s ? of->s->p : "%.6g", b);
  }
  if ((rc = awk_val_str(A, v, 0)) != 0) return rc;
  return buf_put(b, v->s->p, v->s->len);
}

/* Field idx as print writes it: a field still a span of $0 goes into the
 * line from $0, without becoming a value first (print $1, $NF). */
static int awk_print_field(awk_rt *A, buf *b, double idx) {
  awk_val *v;
  int rc;
  if (idx >= 1 && idx < AWK_MAX_FIELD) {
    if ((rc = awk_split_rec(A)) != 0) return rc;
    if (idx - 1 < (double)A->nf && !A->f[(size_t)idx - 1].mat) {
      awk_field *f = &A->f[(size_t)idx - 1];
      return buf_put(b, A->rec.s->p + f->off, f->len);
    }
  }
  if ((rc = awk_field_get(A, idx, &v)) != 0) return rc;
  return awk_print_val(A, b, v);
}

int awk_print(awk_rt *A, awk_node *n) {
  buf *dst = &A->ob, line;
  awk_node *a;
  awk_val v;
  int rc = 0, own = !A->pline_busy;
  /* a print inside a function called by print's arguments gets its own */
  if (own) {
    line = A->pline;
    buf_clear(&line);
    A->pline_busy = 1;
  } else
    buf_init(&line, A->m);
  if (n->op == S_PRINTF) {
    awk_val args[64];
    int k = 0, i;
    memset(args, 0, sizeof args);
    for (a = n->a; a && !rc; a = a->next, k++) {
      if (k == 64) {
        rc = A->err = awk_fatal(A, "too many arguments to printf");
        break;
      }
      rc = awk_eval(A, a, &args[k]);
    }
    if (!rc) rc = awk_val_str(A, &args[0], 0);
    if (!rc)
      rc = awk_format(A, &line, args[0].s->p, args[0].s->len, args + 1, k - 1);
    for (i = 0; i < k && i < 64; i++) awk_val_free(A, &args[i]);
  } else if (!n->a) {
    awk_val *rec;
    if (!(rc = awk_rec_val(A, &rec))) buf_put(&line, rec->s->p, rec->s->len);
  } else {
    awk_val *ofs = &A->g[V_OFS].v;
    for (a = n->a; a && !rc; a = a->next) {
      /* a field's number is evaluated where the field would be */
      int field = a->op == N_FIELD;
      double idx = 0;
      memset(&v, 0, sizeof v);
      if ((rc = awk_eval(A, field ? a->a : a, &v)) != 0) break;
      if (field) idx = awk_val_num(&v);
      if (a != n->a && !(rc = awk_val_str(A, ofs, 0)))
        buf_put(&line, ofs->s->p, ofs->s->len);
      if (!rc)
        rc = field ? awk_print_field(A, &line, idx)
                   : awk_print_val(A, &line, &v);
      awk_val_free(A, &v);
    }
  }
  if (!rc && n->op == S_PRINT) {
    awk_val *ors = &A->g[V_ORS].v;
    if (!(rc = awk_val_str(A, ors, 0))) buf_put(&line, ors->s->p, ors->s->len);
  }
  if (!rc && line.err) rc = A->err = line.err;
  if (!rc && n->sub != RD_NONE) {
    awk_val name;
    memset(&name, 0, sizeof name);
    if (!(rc = awk_eval_str(A, n->b, &name)))
      rc = awk_out_stream(A, n->sub, name.s->p, &dst);
    awk_val_free(A, &name);
  }
  if (!rc && line.len) {
    buf_put(dst, line.p, line.len);
    if (dst->err)
      rc = A->err = dst->err;
    else if (dst == &A->ob && A->ob.len >= AWK_OB_MAX)
      rc = awk_ob_flush(A);
    else if (dst != &A->ob && dst->len >= AWK_OB_MAX) {
      int i;
      for (i = 0; i < A->nouts; i++)
        if (&A->outs[i]->b == dst && A->outs[i]->kind != RD_PIPE)
          rc = awk_out_flush(A, A->outs[i]);
    }
  }
  if (own && line.cap <= AWK_OB_MAX) {
    A->pline = line;
    A->pline_busy = 0;
  } else {
    buf_finish(&line);
    if (own) {
      buf_init(&A->pline, A->m); /* grown past a line worth keeping */
      A->pline_busy = 0;
    }
  }
  return rc;
}
