/* expand_brace.c - brace expansion ({a,b}, {1..9..2}) of a word's
 * unquoted text into new part lists, with its work charged. */
#include "expand_int.h"

#include <string.h>

typedef struct bitem {
  int c;                /* byte, or -1 for an opaque part */
  const ast_part *p;
} bitem;

typedef struct bseq {
  bitem *it;
  size_t n;
} bseq;

typedef struct bctx {
  shell *sh;
  arena *a;
  bseq *out;
  size_t n, cap;
  uint64_t work;
  int err;
} bctx;

static void brace_emit(bctx *b, bitem *it, size_t n) {
  if (b->err) return;
  if (b->n == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 16;
    bseq *no = mem_realloc(b->sh->m, b->out, nc * sizeof *no);
    if (!no) {
      b->err = MSB_ENOMEM;
      return;
    }
    b->out = no;
    b->cap = nc;
  }
  b->out[b->n].it = it;
  b->out[b->n].n = n;
  b->n++;
}

/* Brace work: items scanned and copied (every alternative is a copy of
 * the word, and a nested one is copied again at each level), charged
 * before the copy is made, so that a word expanding to millions of words
 * or nested thousands deep stops at max_glob_work after a bounded amount
 * of time and memory (BRACE_WORK items of it per unit of the limit). */
#define BRACE_WORK 4
static int brace_charge(bctx *b, uint64_t n) {
  uint64_t max = b->sh->lim->max_glob_work;
  b->work += n;
  if ((max && b->work > max * BRACE_WORK) ||
      (b->sh->lim->max_array_items && b->n > b->sh->lim->max_array_items)) {
    if (!b->sh->run->limit) b->sh->run->limit = LIMIT_MAX_GLOB_WORK;
    b->err = MSB_ELIMIT;
  }
  return b->err;
}

static int brace_num(const bitem *it, size_t n, int64_t *v, int *width) {
  size_t i = 0;
  int neg = 0;
  uint64_t u = 0;
  if (n && it[0].c == '-')
    neg = 1, i = 1;
  else if (n && it[0].c == '+')
    i = 1;
  if (i >= n) return 0;
  *width = (it[i].c == '0' && n - i > 1) ? (int)n : 0;
  for (; i < n; i++) {
    if (it[i].c < '0' || it[i].c > '9') return 0;
    u = u * 10 + (uint64_t)(it[i].c - '0');
    if (u > (uint64_t)1 << 62) return 0;
  }
  *v = neg ? -(int64_t)u : (int64_t)u;
  return 1;
}

static void brace_expand(bctx *b, bitem *it, size_t n);

static bitem *brace_concat(bctx *b, const bitem *a, size_t an, const bitem *m,
                           size_t mn, const bitem *z, size_t zn) {
  bitem *r;
  if (brace_charge(b, an + mn + zn)) return NULL;
  r = arena_alloc(b->a, (an + mn + zn + 1) * sizeof *r);
  if (!r) {
    b->err = MSB_ENOMEM;
    return NULL;
  }
  memcpy(r, a, an * sizeof *r);
  memcpy(r + an, m, mn * sizeof *r);
  memcpy(r + an + mn, z, zn * sizeof *r);
  return r;
}

/* Tries a sequence {x..y[..s]}; 1 when it was one. */
static int brace_seq(bctx *b, bitem *it, size_t open, size_t close, size_t n) {
  bitem *in = it + open + 1;
  size_t m = close - open - 1, d1 = 0, d2 = 0, i;
  int64_t x, y, step = 1;
  int w1 = 0, w2 = 0, w3 = 0, alpha = 0;
  for (i = 0; i + 1 < m; i++)
    if (in[i].c == '.' && in[i + 1].c == '.') {
      if (!d1)
        d1 = i + 1;
      else if (!d2)
        d2 = i + 1;
      i++;
    }
  if (!d1) return 0;
  for (i = 0; i < m; i++)
    if (in[i].c < 0) return 0;
  {
    size_t e1 = d1 - 1, s2 = d1 + 1, e2 = d2 ? d2 - 1 : m;
    if (brace_num(in, e1, &x, &w1) && brace_num(in + s2, e2 - s2, &y, &w2)) {
      alpha = 0;
    } else if (e1 == 1 && e2 - s2 == 1 &&
               ((in[0].c >= 'a' && in[0].c <= 'z') ||
                (in[0].c >= 'A' && in[0].c <= 'Z')) &&
               ((in[s2].c >= 'a' && in[s2].c <= 'z') ||
                (in[s2].c >= 'A' && in[s2].c <= 'Z'))) {
      alpha = 1;
      x = in[0].c;
      y = in[s2].c;
    } else
      return 0;
    if (d2) {
      if (!brace_num(in + d2 + 1, m - d2 - 1, &step, &w3)) return 0;
      if (step < 0) step = -step;
      if (step == 0) step = 1;
    }
  }
  {
    int width = w1 > w2 ? w1 : w2;
    int64_t v = x;
    int dir = x <= y ? 1 : -1;
    for (;;) {
      char nb[40];
      bitem tmp[40];
      size_t k, len;
      if (brace_charge(b, 1)) return 1;
      if (alpha) {
        nb[0] = (char)v;
        nb[1] = 0;
      } else {
        char t[24];
        int neg = v < 0, pad;
        expand_fmt_i64(t, neg ? -v : v);
        pad = width - (int)strlen(t) - neg;
        k = 0;
        if (neg) nb[k++] = '-';
        while (pad-- > 0 && k < 30) nb[k++] = '0';
        strcpy(nb + k, t);
      }
      len = strlen(nb);
      for (k = 0; k < len; k++) {
        tmp[k].c = (uint8_t)nb[k];
        tmp[k].p = NULL;
      }
      {
        bitem *r =
            brace_concat(b, it, open, tmp, len, it + close + 1, n - close - 1);
        if (!r) return 1;
        brace_expand(b, r, open + len + n - close - 1);
        if (b->err) return 1;
      }
      if ((dir > 0 && (v > y - step)) || (dir < 0 && (v < y + step))) break;
      v += dir * step;
    }
  }
  return 1;
}

static void brace_expand_run(bctx *b, bitem *it, size_t n);

/* Brace expansion recurses once per nesting level and alternative. */
static void brace_expand(bctx *b, bitem *it, size_t n) {
  if (b->err) return;
  if ((b->err = interp_stack_push(b->sh, SH_STACK_BRACE))) return;
  brace_expand_run(b, it, n);
  interp_stack_pop(b->sh, SH_STACK_BRACE);
}

static void brace_expand_run(bctx *b, bitem *it, size_t n) {
  size_t i, j;
  if (brace_charge(b, n / 8 + 1)) return;
  for (i = 0; i < n; i++) {
    int depth = 0, comma = 0;
    size_t close = 0;
    if (it[i].c != '{') continue;
    if (i > 0 && it[i - 1].c == '$') continue;
    for (j = i + 1; j < n; j++) {
      if (it[j].c == '{')
        depth++;
      else if (it[j].c == '}') {
        if (!depth) {
          close = j;
          break;
        }
        depth--;
      } else if (it[j].c == ',' && !depth)
        comma = 1;
    }
    if (!close) continue;
    if (!comma) {
      if (brace_seq(b, it, i, close, n)) return;
      continue;
    }
    {
      size_t st = i + 1;
      depth = 0;
      for (j = i + 1; j <= close; j++) {
        if (it[j].c == '{')
          depth++;
        else if (it[j].c == '}' && depth)
          depth--;
        else if ((it[j].c == ',' && !depth) || j == close) {
          bitem *r = brace_concat(b, it, i, it + st, j - st, it + close + 1,
                                  n - close - 1);
          if (!r) return;
          brace_expand(b, r, i + (j - st) + (n - close - 1));
          if (b->err) return;
          st = j + 1;
        }
      }
    }
    return;
  }
  brace_emit(b, it, n);
}

/* How deep matched braces nest in it[0..n) ("${" excluded). Expansion
 * recurses at least that deep, so a word nested deeper than the native
 * stack allows is refused before any of its work is done. */
static size_t brace_depth(arena *a, const bitem *it, size_t n) {
  size_t *open = arena_alloc(a, (n + 1) * sizeof *open), top = 0, i;
  unsigned char *pair = arena_zalloc(a, n + 1);
  size_t d = 0, max = 0;
  if (!open || !pair) return 0; /* the expansion meets ENOMEM itself */
  for (i = 0; i < n; i++)
    if (it[i].c == '{' && !(i > 0 && it[i - 1].c == '$'))
      open[top++] = i;
    else if (it[i].c == '}' && top)
      pair[open[--top]] = pair[i] = 1;
  for (i = 0; i < n; i++)
    if (pair[i] && it[i].c == '{') {
      if (++d > max) max = d;
    } else if (pair[i])
      d--;
  return max;
}

int brace_word(shell *sh, arena *a, ast_word *w, ast_part ***lists,
               size_t *count) {
  bctx b;
  const ast_part *p;
  size_t n = 0, k, i;
  bitem *it;
  int has = 0;
  *lists = NULL;
  *count = 0;
  for (p = w->parts; p; p = p->next) {
    if (p->kind == AST_P_LIT) {
      n += p->len;
      if (memchr(p->text, '{', p->len)) has = 1;
    } else
      n++;
  }
  if (!has) return 0;
  it = arena_alloc(a, (n + 1) * sizeof *it);
  if (!it) return MSB_ENOMEM;
  k = 0;
  for (p = w->parts; p; p = p->next) {
    if (p->kind == AST_P_LIT)
      for (i = 0; i < p->len; i++) {
        it[k].c = (uint8_t)p->text[i];
        it[k++].p = NULL;
      }
    else {
      it[k].c = -1;
      it[k++].p = p;
    }
  }
  if (brace_depth(a, it, n) * SH_STACK_BRACE > interp_stack_left(sh))
    return interp_stack_fail(sh);
  memset(&b, 0, sizeof b);
  b.sh = sh;
  b.a = a;
  brace_expand(&b, it, n);
  if (!b.err && b.n == 1 && b.out[0].it == it) {
    mem_free(sh->m, b.out);
    return 0;
  }
  if (!b.err) {
    *lists = arena_zalloc(a, (b.n + 1) * sizeof **lists);
    if (!*lists) b.err = MSB_ENOMEM;
  }
  for (k = 0; k < b.n && !b.err; k++) {
    ast_part *head = NULL, **tail = &head;
    bseq *s = &b.out[k];
    for (i = 0; i < s->n && !b.err;) {
      ast_part *np = arena_zalloc(a, sizeof *np);
      if (!np) {
        b.err = MSB_ENOMEM;
        break;
      }
      if (s->it[i].c < 0) {
        *np = *s->it[i].p;
        np->next = NULL;
        i++;
      } else {
        size_t j = i, m;
        char *t;
        while (j < s->n && s->it[j].c >= 0) j++;
        t = arena_alloc(a, j - i + 1);
        if (!t) {
          b.err = MSB_ENOMEM;
          break;
        }
        for (m = i; m < j; m++) t[m - i] = (char)s->it[m].c;
        t[j - i] = 0;
        np->kind = AST_P_LIT;
        np->text = t;
        np->len = j - i;
        i = j;
      }
      *tail = np;
      tail = &np->next;
    }
    (*lists)[k] = head;
  }
  mem_free(sh->m, b.out);
  if (b.err) return b.err;
  *count = b.n;
  return 0;
}
