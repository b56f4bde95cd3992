/* glob.c - bash pattern matching and pathname expansion (see glob.h).
 *
 * A pattern is compiled into a flat node array: literals, ?, *, bracket
 * sets (a 256-bit map each) and extglob groups. A group node is followed by
 * its alternatives, each ended by an ALT marker, the last by END; the node
 * after that END is the group's successor.
 *
 * Patterns without extglob groups are matched by the classic linear scan
 * that remembers only the last `*` (any later star makes earlier choices
 * irrelevant), so the work is at most pattern x string. Patterns with
 * groups are matched by recursion over (node, start, end) triples whose
 * results are memoised in a hash table, so each triple is solved once;
 * repetition (`*(..)`, `+(..)`) is a reachability scan, not recursion, so
 * the C stack depth is bounded by the number of star and group nodes
 * (capped). Every step is charged to the caller's budget.
 *
 * glob_match_ends answers "which prefixes (or suffixes) match" for
 * ${x#p} and friends in one pass: a state-set simulation over the node
 * list (read backwards for suffixes), O(string x pattern) for all lengths
 * together.
 *
 * Expansion walks the pattern one `/`-separated segment at a time over the
 * vfs, keeping the spelling of the pattern's literal parts, and sorts the
 * final list bytewise as bash does in the C locale. */
#include "glob.h"

#include <string.h>

#include "memsandbox.h"
#include "order.h"

enum { GN_END, GN_ALT, GN_LIT, GN_ANY, GN_STAR, GN_SET, GN_EXT };

/* Most star and group nodes an extglob pattern may hold (C stack bound). */
#define GLOB_MAX_REC_NODES 200

typedef struct glob_node {
  uint8_t type;
  uint8_t ch;    /* GN_LIT byte; GN_EXT operator: ? * + @ ! */
  uint32_t set;  /* GN_SET: index into sets */
  uint32_t next; /* GN_EXT: index of the node after the group */
} glob_node;

typedef struct glob_pat {
  glob_node *n;
  size_t nn, ncap;
  uint8_t (*sets)[32];
  size_t nsets, setcap;
  int has_ext;
  size_t rec_nodes;
} glob_pat;

typedef struct glob_memo_ent {
  uint32_t node, p, e; /* node is stored + 1; 0 marks an empty slot */
  uint8_t kind, val;
} glob_memo_ent;

typedef struct glob_m {
  mem *m;
  const glob_pat *pat;
  const uint8_t *s;
  size_t slen;
  unsigned flags;
  uint64_t *budget;
  glob_memo_ent *memo;
  size_t mcap, mcount;
} glob_m;

static int glob_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int glob_upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

static int glob_charge(uint64_t *budget, uint64_t n) {
  if (!budget) return 0;
  if (*budget < n) {
    *budget = 0;
    return MSB_ELIMIT;
  }
  *budget -= n;
  return 0;
}

/* ---- compiling -------------------------------------------------------- */

static int glob_add(mem *m, glob_pat *g, int type, int ch) {
  if (g->nn == g->ncap) {
    size_t nc = g->ncap ? g->ncap * 2 : 16;
    glob_node *nn = mem_realloc(m, g->n, nc * sizeof *nn);
    if (!nn) return MSB_ENOMEM;
    g->n = nn;
    g->ncap = nc;
  }
  memset(&g->n[g->nn], 0, sizeof g->n[0]);
  g->n[g->nn].type = (uint8_t)type;
  g->n[g->nn].ch = (uint8_t)ch;
  g->nn++;
  return 0;
}

static int glob_class_has(const char *name, size_t len, int c) {
#define GLOB_IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
  if (GLOB_IS("alpha")) return (c | 32) >= 'a' && (c | 32) <= 'z';
  if (GLOB_IS("digit")) return c >= '0' && c <= '9';
  if (GLOB_IS("alnum"))
    return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9');
  if (GLOB_IS("upper")) return c >= 'A' && c <= 'Z';
  if (GLOB_IS("lower")) return c >= 'a' && c <= 'z';
  if (GLOB_IS("space")) return c == ' ' || (c >= '\t' && c <= '\r');
  if (GLOB_IS("blank")) return c == ' ' || c == '\t';
  if (GLOB_IS("punct"))
    return c > ' ' && c < 127 && !((c | 32) >= 'a' && (c | 32) <= 'z') &&
           !(c >= '0' && c <= '9');
  if (GLOB_IS("print")) return c >= ' ' && c < 127;
  if (GLOB_IS("graph")) return c > ' ' && c < 127;
  if (GLOB_IS("cntrl")) return c < ' ' || c == 127;
  if (GLOB_IS("xdigit"))
    return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f');
  if (GLOB_IS("word"))
    return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
  if (GLOB_IS("ascii")) return c < 128;
#undef GLOB_IS
  return 0;
}

/* Parses a bracket expression at p[i] == '['. Returns the index after the
 * closing ']' and fills set, or 0 when it is not a valid bracket (then the
 * '[' is literal). */
static size_t glob_bracket(const char *p, size_t plen, size_t i,
                           uint8_t set[32]) {
  size_t j = i + 1;
  int neg = 0, first = 1, c, lo, k;
  memset(set, 0, 32);
  if (j < plen && (p[j] == '!' || p[j] == '^')) {
    neg = 1;
    j++;
  }
  for (;;) {
    if (j >= plen) return 0;
    c = (unsigned char)p[j];
    if (c == ']' && !first) break;
    first = 0;
    if (c == '[' && j + 1 < plen &&
        (p[j + 1] == ':' || p[j + 1] == '=' || p[j + 1] == '.')) {
      char kind = p[j + 1];
      size_t q = j + 2;
      while (q + 1 < plen && !(p[q] == kind && p[q + 1] == ']')) q++;
      if (q + 1 < plen) {
        if (kind == ':') {
          for (k = 0; k < 256; k++)
            if (glob_class_has(p + j + 2, q - j - 2, k))
              set[k >> 3] |= (uint8_t)(1u << (k & 7));
        } else if (q - j - 2 == 1) {
          k = (unsigned char)p[j + 2];
          set[k >> 3] |= (uint8_t)(1u << (k & 7));
        }
        j = q + 2;
        continue;
      }
    }
    if (c == '\\' && j + 1 < plen) c = (unsigned char)p[++j];
    j++;
    lo = c;
    if (j + 1 < plen && p[j] == '-' && p[j + 1] != ']') {
      int hi;
      j++;
      hi = (unsigned char)p[j];
      if (hi == '\\' && j + 1 < plen) hi = (unsigned char)p[++j];
      j++;
      for (k = lo; k <= hi; k++) set[k >> 3] |= (uint8_t)(1u << (k & 7));
      continue;
    }
    set[lo >> 3] |= (uint8_t)(1u << (lo & 7));
  }
  /* shell strings never hold NUL, so its bit marks a negated set */
  set[0] = (uint8_t)((set[0] & ~1u) | (unsigned)neg);
  return j + 1;
}

/* Index of the ')' closing an extglob group whose '(' is at p[i], or 0. */
static size_t glob_group_end(const char *p, size_t plen, size_t i) {
  int lev = 0;
  uint8_t tmp[32];
  size_t j = i;
  while (j < plen) {
    char c = p[j];
    if (c == '\\') {
      j += 2;
      continue;
    }
    if (c == '[') {
      size_t e = glob_bracket(p, plen, j, tmp);
      if (e) {
        j = e;
        continue;
      }
    }
    if (c == '(') lev++;
    if (c == ')' && --lev == 0) return j;
    j++;
  }
  return 0;
}

static int glob_is_extop(char c) {
  return c == '?' || c == '*' || c == '+' || c == '@' || c == '!';
}

/* Compiles p[i..end) into nodes, ending the sequence with `term`. */
static int glob_compile_seq(mem *m, glob_pat *g, const char *p, size_t i,
                            size_t end, unsigned flags, int term) {
  int rc;
  while (i < end) {
    char c = p[i];
    if ((flags & GLOB_EXTGLOB) && glob_is_extop(c) && i + 1 < end &&
        p[i + 1] == '(') {
      size_t close = glob_group_end(p, end, i + 1);
      if (close) {
        size_t gi = g->nn, a = i + 2, j;
        int lev = 0;
        uint8_t tmp[32];
        if ((rc = glob_add(m, g, GN_EXT, c))) return rc;
        g->has_ext = 1;
        /* bounds the compile recursion as well as the matcher's */
        if (++g->rec_nodes > GLOB_MAX_REC_NODES) return MSB_ELIMIT;
        /* split alternatives at top-level '|' */
        for (j = a; j <= close; j++) {
          if (j < close && p[j] == '\\') {
            j++;
            continue;
          }
          if (j < close && p[j] == '[') {
            size_t e = glob_bracket(p, close, j, tmp);
            if (e) {
              j = e - 1;
              continue;
            }
          }
          if (j < close && p[j] == '(') lev++;
          if (j < close && p[j] == ')') lev--;
          if (j == close || (p[j] == '|' && lev == 0)) {
            rc = glob_compile_seq(m, g, p, a, j, flags,
                                  j == close ? GN_END : GN_ALT);
            if (rc) return rc;
            a = j + 1;
          }
        }
        g->n[gi].next = (uint32_t)g->nn;
        i = close + 1;
        continue;
      }
    }
    if (c == '*') {
      if (g->nn == 0 || g->n[g->nn - 1].type != GN_STAR) {
        if ((rc = glob_add(m, g, GN_STAR, 0))) return rc;
        g->rec_nodes++;
      }
      i++;
      continue;
    }
    if (c == '?') {
      if ((rc = glob_add(m, g, GN_ANY, 0))) return rc;
      i++;
      continue;
    }
    if (c == '[') {
      uint8_t set[32];
      size_t e = glob_bracket(p, end, i, set);
      if (e) {
        if (g->nsets == g->setcap) {
          size_t nc = g->setcap ? g->setcap * 2 : 4;
          uint8_t(*ns)[32] = mem_realloc(m, g->sets, nc * 32);
          if (!ns) return MSB_ENOMEM;
          g->sets = ns;
          g->setcap = nc;
        }
        memcpy(g->sets[g->nsets], set, 32);
        if ((rc = glob_add(m, g, GN_SET, 0))) return rc;
        g->n[g->nn - 1].set = (uint32_t)g->nsets++;
        i = e;
        continue;
      }
    }
    if (c == '\\' && i + 1 < end) i++;
    if ((rc = glob_add(m, g, GN_LIT, (unsigned char)p[i]))) return rc;
    i++;
  }
  return glob_add(m, g, term, 0);
}

static void glob_pat_free(mem *m, glob_pat *g) {
  mem_free(m, g->n);
  mem_free(m, g->sets);
}

/* ---- matching --------------------------------------------------------- */

/* Whether position p starts a name, where a '.' must be literal. */
static int glob_leading(const glob_m *x, size_t p) {
  if (!(x->flags & GLOB_PERIOD) || p >= x->slen || x->s[p] != '.') return 0;
  return p == 0 || ((x->flags & GLOB_PATHNAME) && x->s[p - 1] == '/');
}

/* One single-character node against s[p] (p < slen). */
static int glob_one(const glob_m *x, const glob_node *n, size_t p) {
  int c = x->s[p];
  if (n->type == GN_LIT) {
    if (x->flags & GLOB_NOCASE) return glob_lower(c) == glob_lower(n->ch);
    return c == n->ch;
  }
  if (c == '/' && (x->flags & GLOB_PATHNAME)) return 0;
  if (glob_leading(x, p)) return 0;
  if (n->type == GN_ANY) return 1;
  {
    const uint8_t *set = x->pat->sets[n->set];
    int in, neg = set[0] & 1;
#define GLOB_BIT(k) ((set[(k) >> 3] >> ((k) & 7)) & 1)
    in = c != 0 && GLOB_BIT(c);
    if (!in && c && (x->flags & GLOB_NOCASE))
      in = GLOB_BIT(glob_lower(c)) || GLOB_BIT(glob_upper(c));
#undef GLOB_BIT
    return in != neg;
  }
}

/* The linear last-star scan for patterns without groups. */
static int glob_simple(glob_m *x) {
  const glob_node *n = x->pat->n;
  size_t i = 0, p = 0, star_i = 0, star_p = 0;
  int have_star = 0, rc;
  while (p < x->slen) {
    if ((rc = glob_charge(x->budget, 1))) return rc;
    if (n[i].type == GN_STAR) {
      if (glob_leading(x, p)) return 0;
      have_star = 1;
      star_i = ++i;
      star_p = p;
      continue;
    }
    if (n[i].type != GN_END && glob_one(x, &n[i], p)) {
      i++;
      p++;
      continue;
    }
    if (!have_star) return 0;
    if ((x->flags & GLOB_PATHNAME) && x->s[star_p] == '/') return 0;
    p = ++star_p;
    i = star_i;
  }
  while (n[i].type == GN_STAR) i++;
  return n[i].type == GN_END;
}

static int glob_seq(glob_m *x, size_t i, size_t p, size_t e);

/* Memo lookup: 0/1 known result, -1 unknown (slot in *slot). */
static int glob_memo_get(glob_m *x, int kind, size_t node, size_t p, size_t e,
                         size_t *slot) {
  size_t h, mask;
  if (!x->memo) return -1;
  mask = x->mcap - 1;
  h = ((node * 2654435761u) ^ (p * 40503u) ^ (e * 97u) ^ (size_t)kind) & mask;
  for (;;) {
    glob_memo_ent *m = &x->memo[h];
    if (m->node == 0) {
      *slot = h;
      return -1;
    }
    if (m->node == node + 1 && m->p == p && m->e == e && m->kind == kind)
      return m->val;
    h = (h + 1) & mask;
  }
}

static int glob_memo_put(glob_m *x, int kind, size_t node, size_t p, size_t e,
                         int val) {
  size_t slot = 0, i;
  if (!x->memo || (x->mcount + 1) * 2 > x->mcap) {
    size_t nc = x->mcap ? x->mcap * 2 : 256;
    glob_memo_ent *old = x->memo, *nm;
    size_t oc = x->mcap;
    nm = mem_zalloc(x->m, nc * sizeof *nm);
    if (!nm) return MSB_ENOMEM;
    x->memo = nm;
    x->mcap = nc;
    x->mcount = 0;
    for (i = 0; i < oc; i++)
      if (old[i].node) {
        glob_memo_get(x, old[i].kind, old[i].node - 1, old[i].p, old[i].e,
                      &slot);
        x->memo[slot] = old[i];
        x->mcount++;
      }
    mem_free(x->m, old);
  }
  if (glob_memo_get(x, kind, node, p, e, &slot) >= 0) return 0;
  x->memo[slot].node = (uint32_t)(node + 1);
  x->memo[slot].p = (uint32_t)p;
  x->memo[slot].e = (uint32_t)e;
  x->memo[slot].kind = (uint8_t)kind;
  x->memo[slot].val = (uint8_t)val;
  x->mcount++;
  return 0;
}

/* Whether any alternative of group g matches s[p..e) exactly. */
static int glob_alts(glob_m *x, size_t g, size_t p, size_t e) {
  size_t i = g + 1;
  int rc;
  for (;;) {
    rc = glob_seq(x, i, p, e);
    if (rc) return rc;
    /* skip to this alternative's terminator */
    while (x->pat->n[i].type != GN_ALT && x->pat->n[i].type != GN_END) {
      if (x->pat->n[i].type == GN_EXT)
        i = x->pat->n[i].next;
      else
        i++;
    }
    if (x->pat->n[i].type == GN_END) return 0;
    i++;
  }
}

/* Marks in ends[q - p] every q in [p, e] such that group g matches
 * s[p..q) exactly. For * and + this is one reachability scan over cut
 * points (each piece matching an alternative), so all ends cost one
 * quadratic pass instead of one pass each. */
static int glob_group_ends(glob_m *x, size_t g, size_t p, size_t e,
                           uint8_t *ends) {
  int op = x->pat->n[g].ch, rc, slash = 0;
  size_t q, r0;
  memset(ends, 0, e - p + 1);
  if ((rc = glob_charge(x->budget, 1))) return rc;
  if (op == '*' || op == '+') {
    /* ends[] doubles as "reached after at least one piece" */
    for (r0 = p; r0 <= e; r0++) {
      if (r0 > p && !ends[r0 - p]) continue;
      for (q = r0; q <= e; q++) {
        if (ends[q - p]) continue;
        rc = glob_alts(x, g, r0, q);
        if (rc < 0) return rc;
        if (rc) ends[q - p] = 1;
      }
    }
    if (op == '*') ends[0] = 1;
    return 0;
  }
  for (q = p; q <= e; q++) {
    if (q > p && x->s[q - 1] == '/' && (x->flags & GLOB_PATHNAME)) slash = 1;
    if (op == '?' && q == p) {
      ends[0] = 1;
      continue;
    }
    rc = glob_alts(x, g, p, q);
    if (rc < 0) return rc;
    if (op == '!') rc = !rc && !slash && !glob_leading(x, p);
    ends[q - p] = (uint8_t)rc;
  }
  return 0;
}

/* How far the star at node i may reach when matching s[p..e): it may
 * leave off before the returned position. bash's star, followed by more
 * pattern, leaves that pattern a non-empty rest of the string (`*!(a)`
 * does not match "a"), except when the pattern after it is only *(..)
 * ?(..) groups and stars (`a*?(b)` matches "a"), or the string is used up
 * and a !(..) group follows (`x*!(q)` matches "x"). */
static size_t glob_star_end(const glob_m *x, size_t i, size_t p, size_t e) {
  const glob_node *n = x->pat->n;
  size_t j = i + 1;
  int bang = n[j].type == GN_EXT && n[j].ch == '!';
  while (n[j].type == GN_STAR ||
         (n[j].type == GN_EXT && (n[j].ch == '?' || n[j].ch == '*')))
    j = n[j].type == GN_STAR ? j + 1 : n[j].next;
  if (n[j].type == GN_END || n[j].type == GN_ALT) return e + 1;
  return p == e && bang ? e + 1 : e;
}

/* Whether the node sequence from i matches s[p..e) exactly. */
static int glob_seq(glob_m *x, size_t i, size_t p, size_t e) {
  const glob_node *n = x->pat->n;
  size_t slot, q;
  int rc, r;
  for (;;) {
    if ((rc = glob_charge(x->budget, 1))) return rc;
    switch (n[i].type) {
    case GN_END:
    case GN_ALT: return p == e;
    case GN_LIT:
    case GN_ANY:
    case GN_SET:
      if (p >= e || !glob_one(x, &n[i], p)) return 0;
      i++;
      p++;
      continue;
    default: break;
    }
    break;
  }
  r = glob_memo_get(x, 0, i, p, e, &slot);
  if (r >= 0) return r;
  r = 0;
  if (n[i].type == GN_STAR) {
    if (!glob_leading(x, p)) {
      size_t end = glob_star_end(x, i, p, e);
      for (q = p; q < end; q++) {
        rc = glob_seq(x, i + 1, q, e);
        if (rc) {
          r = rc;
          break;
        }
        if (q < e && x->s[q] == '/' && (x->flags & GLOB_PATHNAME)) break;
      }
    }
  } else {
    uint8_t *ends = mem_alloc(x->m, e - p + 1);
    if (!ends) return MSB_ENOMEM;
    rc = glob_group_ends(x, i, p, e, ends);
    for (q = p; !rc && q <= e; q++) {
      if (!ends[q - p]) continue;
      rc = glob_seq(x, n[i].next, q, e);
    }
    mem_free(x->m, ends);
    r = rc;
  }
  if (r < 0) return r;
  if ((rc = glob_memo_put(x, 0, i, p, e, r))) return rc;
  return r;
}

/* Matches str against a compiled pattern; the memo is freed after. */
static int glob_run(mem *m, const glob_pat *g, const char *str, size_t slen,
                    unsigned flags, uint64_t *budget) {
  glob_m x;
  int rc;
  memset(&x, 0, sizeof x);
  x.m = m;
  x.pat = g;
  x.s = (const uint8_t *)str;
  x.slen = slen;
  x.flags = flags;
  x.budget = budget;
  if (!g->has_ext)
    rc = glob_simple(&x);
  else if (g->rec_nodes > GLOB_MAX_REC_NODES || slen > UINT32_MAX - 1)
    rc = MSB_ELIMIT;
  else
    rc = glob_seq(&x, 0, 0, slen);
  mem_free(m, x.memo);
  return rc;
}

int glob_match(mem *m, const char *pat, size_t plen, const char *str,
               size_t slen, unsigned flags, uint64_t *budget) {
  glob_pat g;
  int rc;
  memset(&g, 0, sizeof g);
  rc = glob_compile_seq(m, &g, pat, 0, plen, flags, GN_END);
  if (!rc) rc = glob_run(m, &g, str, slen, flags, budget);
  glob_pat_free(m, &g);
  return rc;
}

/* Epsilon closure over a group-free node list (logical order, see
 * glob_nfa): a star may match nothing; kill: stars are dead here because a
 * leading '.' follows that only a literal may match. */
static void glob_eps(const glob_node *n, uint8_t *st, size_t e, int fwd,
                     int kill) {
  size_t j;
  for (j = 0; j < e; j++)
    if (st[j] && (fwd ? &n[j] : &n[e - 1 - j])->type == GN_STAR) {
      if (kill)
        st[j] = 0;
      else
        st[j + 1] = 1;
    }
}

/* Closes st at string position pos and records whether the end is
 * reached: a prefix ending at pos has no leading '.' after it, so the end
 * test uses the closure without the leading rule. */
static void glob_settle(glob_m *x, uint8_t *st, uint8_t *tmp, size_t e, int fwd,
                        size_t pos, uint8_t *found) {
  if (fwd && glob_leading(x, pos)) {
    memcpy(tmp, st, e + 1);
    glob_eps(x->pat->n, tmp, e, fwd, 0);
    *found = tmp[e];
    glob_eps(x->pat->n, st, e, fwd, 1);
  } else {
    glob_eps(x->pat->n, st, e, fwd, 0);
    *found = st[e];
  }
}

/* All matching prefix lengths (fwd) or suffix lengths (!fwd, the node
 * list read backwards) of a group-free pattern in one pass: a state-set
 * simulation, O(string x pattern) in all. found[k] covers k bytes. */
static int glob_nfa(glob_m *x, int fwd, uint8_t *found) {
  const glob_node *n = x->pat->n;
  size_t e = 0, k, j;
  uint8_t *blk, *cur, *nxt, *tmp, *sw;
  int rc = 0, alive;
  while (n[e].type != GN_END) e++;
  blk = mem_zalloc(x->m, 3 * (e + 1));
  if (!blk) return MSB_ENOMEM;
  cur = blk;
  nxt = blk + e + 1;
  tmp = blk + 2 * (e + 1);
  memset(found, 0, x->slen + 1);
  cur[0] = 1;
  glob_settle(x, cur, tmp, e, fwd, 0, &found[0]);
  for (k = 0; k < x->slen; k++) {
    size_t pos = fwd ? k : x->slen - 1 - k;
    if ((rc = glob_charge(x->budget, e + 1))) break;
    memset(nxt, 0, e + 1);
    alive = 0;
    for (j = 0; j < e; j++) {
      const glob_node *nd = fwd ? &n[j] : &n[e - 1 - j];
      if (!cur[j]) continue;
      if (nd->type == GN_STAR) {
        if (!(x->s[pos] == '/' && (x->flags & GLOB_PATHNAME)))
          nxt[j] = alive = 1;
      } else if (glob_one(x, nd, pos)) {
        nxt[j + 1] = alive = 1;
      }
    }
    if (!alive) break;
    glob_settle(x, nxt, tmp, e, fwd, k + 1, &found[k + 1]);
    sw = cur;
    cur = nxt;
    nxt = sw;
  }
  mem_free(x->m, blk);
  return rc;
}

int glob_match_ends(mem *m, const char *pat, size_t plen, const char *str,
                    size_t slen, unsigned flags, int suffix, uint64_t *budget,
                    uint8_t *ends) {
  glob_pat g;
  glob_m x;
  uint8_t *found = 0;
  size_t k;
  int rc;
  memset(&g, 0, sizeof g);
  memset(ends, 0, slen + 1);
  rc = glob_compile_seq(m, &g, pat, 0, plen, flags, GN_END);
  memset(&x, 0, sizeof x);
  x.m = m;
  x.pat = &g;
  x.s = (const uint8_t *)str;
  x.slen = slen;
  x.flags = flags;
  x.budget = budget;
  if (!rc && !g.has_ext && !(suffix && (flags & GLOB_PERIOD))) {
    found = mem_alloc(m, slen + 1);
    rc = found ? glob_nfa(&x, !suffix, found) : MSB_ENOMEM;
    for (k = 0; !rc && k <= slen; k++) ends[suffix ? slen - k : k] = found[k];
  } else if (!rc && g.has_ext &&
             (g.rec_nodes > GLOB_MAX_REC_NODES || slen > UINT32_MAX - 1)) {
    rc = MSB_ELIMIT;
  } else if (!rc) {
    /* groups: one memo serves every range */
    for (k = 0; k <= slen; k++) {
      if (g.has_ext) {
        rc = suffix ? glob_seq(&x, 0, k, slen) : glob_seq(&x, 0, 0, k);
      } else {
        x.s = (const uint8_t *)str + (suffix ? k : 0);
        x.slen = suffix ? slen - k : k;
        rc = glob_simple(&x);
      }
      if (rc < 0) break;
      ends[k] = (uint8_t)rc;
      rc = 0;
    }
  }
  if (rc) memset(ends, 0, slen + 1);
  mem_free(m, found);
  mem_free(m, x.memo);
  glob_pat_free(m, &g);
  return rc;
}

int glob_has_magic(const char *pat, size_t plen, unsigned flags) {
  size_t i;
  for (i = 0; i < plen; i++) {
    char c = pat[i];
    if (c == '\\') {
      i++;
      continue;
    }
    if (c == '*' || c == '?') return 1;
    if (c == '[') {
      uint8_t set[32];
      if (glob_bracket(pat, plen, i, set)) return 1;
    }
    if ((flags & GLOB_EXTGLOB) && (c == '+' || c == '@' || c == '!') &&
        i + 1 < plen && pat[i + 1] == '(')
      return 1;
  }
  return 0;
}

int glob_unescape(const char *pat, size_t plen, buf *out) {
  size_t i;
  for (i = 0; i < plen; i++) {
    if (pat[i] == '\\' && i + 1 < plen) i++;
    buf_putc(out, (unsigned char)pat[i]);
  }
  return out->err;
}

/* ---- expansion -------------------------------------------------------- */

typedef struct glob_list {
  mem *m;
  char **v;
  size_t n, cap;
} glob_list;

static int glob_list_add(glob_list *l, const char *s, size_t len) {
  char *d;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 16;
    char **nv = mem_realloc(l->m, l->v, nc * sizeof *nv);
    if (!nv) return MSB_ENOMEM;
    l->v = nv;
    l->cap = nc;
  }
  d = mem_strndup(l->m, s, len);
  if (!d) return MSB_ENOMEM;
  l->v[l->n++] = d;
  return 0;
}

static void glob_list_free(glob_list *l) {
  size_t i;
  for (i = 0; i < l->n; i++) mem_free(l->m, l->v[i]);
  mem_free(l->m, l->v);
  l->v = 0;
  l->n = l->cap = 0;
}

typedef struct glob_x {
  vfs *v;
  mem *m;
  const char *cwd;
  unsigned flags;
  uint64_t *budget;
  buf path; /* scratch: absolute path for vfs calls */
} glob_x;

/* Absolute path of a displayed candidate (relative to cwd). */
static int glob_abs(glob_x *g, const char *disp) {
  buf_clear(&g->path);
  return vfs_abspath(g->cwd, *disp ? disp : ".", &g->path);
}

static int glob_is_dir(glob_x *g, const char *disp, int follow) {
  struct vfs_stat st;
  if (glob_abs(g, disp)) return 0;
  if (vfs_stat(g->v, buf_str(&g->path), follow, &st)) return 0;
  return st.kind == VFS_DIR;
}

static int glob_exists(glob_x *g, const char *disp) {
  struct vfs_stat st;
  if (glob_abs(g, disp)) return 0;
  return vfs_stat(g->v, buf_str(&g->path), 0, &st) == 0;
}

/* Joins a candidate prefix and a name into scratch b. */
static int glob_join(buf *b, const char *pre, const char *name, size_t nlen) {
  buf_clear(b);
  buf_puts(b, pre);
  buf_put(b, name, nlen);
  return b->err;
}

/* Adds matching entries of directory `pre` (a displayed prefix ending in
 * '/' or empty) to out. dirs_only keeps directories (following links). */
static int glob_scan(glob_x *g, const char *pre, const char *seg, size_t seglen,
                     glob_list *out) {
  vfs_dir d;
  const char *name;
  size_t nlen;
  buf tmp;
  unsigned mf = g->flags & (GLOB_EXTGLOB | GLOB_NOCASE);
  glob_pat pat;
  int rc;
  if (!(g->flags & GLOB_DOTGLOB)) mf |= GLOB_PERIOD;
  if (glob_abs(g, pre)) return g->path.err;
  if (vfs_opendir(g->v, buf_str(&g->path), &d)) return 0;
  /* compiled once for the whole directory */
  memset(&pat, 0, sizeof pat);
  rc = glob_compile_seq(g->m, &pat, seg, 0, seglen, mf, GN_END);
  if (rc) {
    glob_pat_free(g->m, &pat);
    vfs_closedir(&d);
    return rc;
  }
  buf_init(&tmp, g->m);
  while (vfs_readdir(&d, &name, &nlen, 0) == 1) {
    if ((rc = glob_charge(g->budget, 1))) break;
    if ((nlen == 1 && name[0] == '.') ||
        (nlen == 2 && name[0] == '.' && name[1] == '.'))
      continue;
    /* without dotglob, GLOB_PERIOD makes wildcards refuse a leading dot */
    rc = glob_run(g->m, &pat, name, nlen, mf, g->budget);
    if (rc < 0) break;
    if (rc == 0) continue;
    if ((rc = glob_join(&tmp, pre, name, nlen))) break;
    if ((rc = glob_list_add(out, buf_str(&tmp), tmp.len))) break;
  }
  vfs_closedir(&d);
  buf_finish(&tmp);
  glob_pat_free(g->m, &pat);
  return rc < 0 ? rc : 0;
}

/* Adds every directory below `pre` (recursively, not through symlinks,
 * hidden ones only with dotglob) as "pre" + "sub/"; with all, files too
 * (without the slash). links: also list symlinks to directories (bash does
 * for a final "**" + "/", not for one in the middle). */
static int glob_walk(glob_x *g, const char *pre, int all, int links,
                     glob_list *out) {
  glob_list level;
  vfs_dir d;
  const char *name;
  size_t nlen, i;
  struct vfs_stat st;
  buf tmp;
  int rc = 0;
  if (glob_abs(g, pre)) return g->path.err;
  if (vfs_opendir(g->v, buf_str(&g->path), &d)) return 0;
  memset(&level, 0, sizeof level);
  level.m = g->m;
  buf_init(&tmp, g->m);
  while (vfs_readdir(&d, &name, &nlen, &st) == 1) {
    int isdir = st.kind == VFS_DIR;
    if ((rc = glob_charge(g->budget, 1))) break;
    if (name[0] == '.' && !(g->flags & GLOB_DOTGLOB)) continue;
    if ((nlen == 1 && name[0] == '.') ||
        (nlen == 2 && name[0] == '.' && name[1] == '.'))
      continue;
    if ((rc = glob_join(&tmp, pre, name, nlen))) break;
    /* a symlink to a directory is listed as one but not descended */
    if (st.kind == VFS_LINK && (all || links))
      isdir = glob_is_dir(g, buf_str(&tmp), 1);
    if (isdir) {
      buf_putc(&tmp, '/');
      if ((rc = tmp.err)) break;
      if (st.kind == VFS_DIR &&
          (rc = glob_list_add(&level, buf_str(&tmp), tmp.len)))
        break;
      if ((rc = glob_list_add(out, buf_str(&tmp), tmp.len - (all ? 1 : 0))))
        break;
    } else if (all) {
      if ((rc = glob_list_add(out, buf_str(&tmp), tmp.len))) break;
    }
  }
  vfs_closedir(&d);
  buf_finish(&tmp);
  for (i = 0; !rc && i < level.n; i++)
    rc = glob_walk(g, level.v[i], all, links, out);
  glob_list_free(&level);
  return rc;
}

static int glob_order(const void *a, const void *b, void *arg) {
  (void)arg;
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the matches bytewise (stable, O(n log n)). */
static int glob_sort(mem *m, char **v, size_t n) {
  char **tmp;
  if (n < 2) return 0;
  tmp = mem_alloc(m, n * sizeof *tmp);
  if (!tmp) return MSB_ENOMEM;
  order_sort(v, n, sizeof *v, tmp, glob_order, NULL);
  mem_free(m, tmp);
  return 0;
}

/* Expands one segment over every candidate in cur into next. Candidates
 * are displayed prefixes ending in '/' (or empty for the cwd). last says
 * whether this is the final segment. */
static int glob_step(glob_x *g, glob_list *cur, const char *seg, size_t seglen,
                     int last, int trailing, int strip_zero, int dbl,
                     glob_list *next) {
  size_t i;
  int rc = 0;
  buf tmp;
  int globstar = (g->flags & GLOB_GLOBSTAR) && seglen == 2 && seg[0] == '*' &&
                 seg[1] == '*';
  buf_init(&tmp, g->m);
  for (i = 0; !rc && i < cur->n; i++) {
    const char *pre = cur->v[i];
    if (globstar) {
      if (last) {
        /* "**" at the end: the directory itself (as "pre") when it is a
         * named prefix, and everything below */
        /* bash shows "d" for a magic d + one slash, else the prefix */
        size_t pl = strlen(pre);
        if (pl && strip_zero) pl--;
        if (pl) rc = glob_list_add(next, pre, pl);
        if (!rc) rc = glob_walk(g, pre, 1, 0, next);
      } else {
        /* "**" + "//" acts as a directory pattern of its own in bash: no
         * empty match at the top, symlinked directories listed */
        if (*pre || !dbl) rc = glob_list_add(next, pre, strlen(pre));
        /* bash lists symlinked directories below a named prefix (and for
         * a final "**" + "/"), never descending through them */
        if (!rc) rc = glob_walk(g, pre, 0, trailing || dbl || *pre, next);
      }
    } else if (!glob_has_magic(seg, seglen, g->flags)) {
      buf_clear(&tmp);
      buf_puts(&tmp, pre);
      glob_unescape(seg, seglen, &tmp);
      if ((rc = tmp.err)) break;
      rc = glob_list_add(next, buf_str(&tmp), tmp.len);
    } else {
      rc = glob_scan(g, pre, seg, seglen, next);
    }
  }
  buf_finish(&tmp);
  return rc;
}

int glob_expand(vfs *v, mem *m, const char *cwd, const char *pattern,
                size_t plen, unsigned flags, uint64_t *budget, char ***out,
                size_t *count) {
  glob_x g;
  glob_list cur, next;
  size_t i = 0, j, k;
  int rc = 0, trailing = 0, lit = 1;
  size_t run = 0;
  *out = 0;
  *count = 0;
  memset(&g, 0, sizeof g);
  g.v = v;
  g.m = m;
  g.cwd = cwd;
  g.flags = flags;
  g.budget = budget;
  buf_init(&g.path, m);
  memset(&cur, 0, sizeof cur);
  memset(&next, 0, sizeof next);
  cur.m = next.m = m;
  /* the leading slashes are the first prefix */
  while (i < plen && pattern[i] == '/') i++;
  rc = glob_list_add(&cur, pattern, i);
  while (!rc && i < plen) {
    int last, gs;
    j = i;
    while (j < plen && pattern[j] != '/') {
      if (pattern[j] == '\\' && j + 1 < plen) j++;
      j++;
    }
    k = j;
    while (k < plen && pattern[k] == '/') k++;
    last = k >= plen;
    if (last && k > j) trailing = 1;
    gs = (flags & GLOB_GLOBSTAR) && j - i == 2 && pattern[i] == '*' &&
         pattern[i + 1] == '*';
    if (gs && k + 2 <= plen && pattern[k] == '*' && pattern[k + 1] == '*' &&
        (k + 2 == plen || pattern[k + 2] == '/')) {
      i = k; /* "**" + "/" + "**" is one "**", as in bash */
      continue;
    }
    rc = glob_step(&g, &cur, pattern + i, j - i, last && !trailing, trailing,
                   !lit && run == 1, k - j >= 2, &next);
    /* bash keeps the slashes of a literal leading part as written; after a
     * wildcard segment a run of slashes becomes one */
    if (gs || glob_has_magic(pattern + i, j - i, flags)) lit = 0;
    run = k - j;
    if (rc) break;
    glob_list_free(&cur);
    cur = next;
    memset(&next, 0, sizeof next);
    next.m = m;
    /* keep the pattern's own slashes after each candidate; a candidate
     * that must be followed by '/' has to be a directory */
    if (k > j) {
      size_t n, w = 0;
      buf tmp;
      buf_init(&tmp, m);
      for (n = 0; n < cur.n; n++) {
        char *nv;
        /* "**" results already end in '/' (or are the empty prefix) */
        if (!gs && !glob_is_dir(&g, cur.v[n], 1)) {
          mem_free(m, cur.v[n]);
          continue;
        }
        buf_clear(&tmp);
        buf_puts(&tmp, cur.v[n]);
        if (lit)
          buf_put(&tmp, pattern + j + (gs ? 1 : 0), k - j - (gs ? 1 : 0));
        else if (!gs)
          buf_putc(&tmp, '/');
        nv = tmp.err ? 0 : mem_strndup(m, tmp.p, tmp.len);
        if (!nv) {
          rc = MSB_ENOMEM;
          mem_free(m, cur.v[n]);
          continue;
        }
        mem_free(m, cur.v[n]);
        cur.v[w++] = nv;
      }
      cur.n = w;
      buf_finish(&tmp);
    }
    i = k;
  }
  /* literal final segments were not checked against the tree */
  if (!rc) {
    size_t n, w = 0;
    for (n = 0; n < cur.n; n++) {
      /* the empty prefix stands for "no directories" of a "**" */
      if (cur.v[n][0] && glob_exists(&g, cur.v[n]))
        cur.v[w++] = cur.v[n];
      else
        mem_free(m, cur.v[n]);
    }
    cur.n = w;
  }
  if (!rc && (flags & GLOB_MARK)) {
    size_t n;
    buf tmp;
    buf_init(&tmp, m);
    for (n = 0; !rc && n < cur.n; n++) {
      size_t cl = strlen(cur.v[n]);
      char *nv;
      if (cl == 0 || cur.v[n][cl - 1] == '/' || !glob_is_dir(&g, cur.v[n], 1))
        continue;
      buf_clear(&tmp);
      buf_puts(&tmp, cur.v[n]);
      buf_putc(&tmp, '/');
      nv = tmp.err ? 0 : mem_strndup(m, tmp.p, tmp.len);
      if (!nv) {
        rc = MSB_ENOMEM;
        break;
      }
      mem_free(m, cur.v[n]);
      cur.v[n] = nv;
    }
    buf_finish(&tmp);
  }
  if (!rc) rc = glob_sort(m, cur.v, cur.n);
  buf_finish(&g.path);
  glob_list_free(&next);
  if (rc || cur.n == 0) {
    glob_list_free(&cur);
    return rc;
  }
  *out = cur.v;
  *count = cur.n;
  return 0;
}

void glob_free(mem *m, char **list, size_t count) {
  size_t i;
  if (!list) return;
  for (i = 0; i < count; i++) mem_free(m, list[i]);
  mem_free(m, list);
}

/* Whether pat ends with an unescaped `*`: bash lets such a star match the
 * rest of a path, '/' included, even where a slash ends other wildcards. */
static int glob_trailing_star(const char *pat, size_t plen) {
  size_t bs = 0;
  if (!plen || pat[plen - 1] != '*') return 0;
  while (bs + 1 < plen && pat[plen - 2 - bs] == '\\') bs++;
  return bs % 2 == 0;
}

/* One GLOBIGNORE pattern against one expanded name. */
static int glob_ignore_one(mem *m, const char *pat, size_t plen,
                           const char *name, unsigned flags, uint64_t *budget) {
  size_t n = strlen(name), k;
  uint8_t *ends;
  int rc = glob_match(m, pat, plen, name, n, flags | GLOB_PATHNAME, budget);
  if (rc || !glob_trailing_star(pat, plen)) return rc;
  while (plen && glob_trailing_star(pat, plen)) plen--;
  ends = mem_alloc(m, n + 1);
  if (!ends) return MSB_ENOMEM;
  rc = glob_match_ends(m, pat, plen, name, n, flags | GLOB_PATHNAME, 0, budget,
                       ends);
  for (k = 0; !rc && k <= n; k++)
    if (ends[k]) rc = 1;
  mem_free(m, ends);
  return rc;
}

/* Whether one name is ignored: "." and ".." as a last component always. */
static int glob_ignored(mem *m, const char *ignore, const char *name,
                        unsigned flags, uint64_t *budget) {
  const char *last = strrchr(name, '/');
  const char *p = ignore;
  last = last && last[1] ? last + 1 : name;
  if (!strcmp(last, ".") || !strcmp(last, "..")) return 1;
  while (*p) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) {
      int rc = glob_ignore_one(m, p, len, name, flags, budget);
      if (rc) return rc;
    }
    p += len + (e ? 1 : 0);
  }
  return 0;
}

int glob_ignore(mem *m, const char *ignore, unsigned flags, char **list,
                size_t *count, uint64_t *budget) {
  size_t i, kept = 0;
  int rc = 0;
  flags &= GLOB_EXTGLOB | GLOB_NOCASE;
  for (i = 0; i < *count; i++) {
    int hit = rc ? 0 : glob_ignored(m, ignore, list[i], flags, budget);
    if (hit < 0) rc = hit;
    if (hit > 0) {
      mem_free(m, list[i]);
      list[i] = NULL;
    } else
      list[kept++] = list[i];
  }
  *count = kept;
  return rc;
}
