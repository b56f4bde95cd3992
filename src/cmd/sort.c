/* sort.c - sort, merge or check lines of text (GNU coreutils sort).
 *
 * Every input is read whole (borrowed views), split into records and sorted
 * with a stable merge sort (O(n log n), one scratch array, no allocation per
 * comparison). Keys follow GNU exactly: fields are found per comparison with
 * GNU's begfield/limfield rules (leading blanks belong to a field unless -t
 * or b), ordering options attach to a key or, for keys without any, come
 * from the global options; equal keys fall back to a whole-line byte
 * comparison unless -s or -u. The C locale is assumed: byte comparison, '.'
 * decimal point, no thousands separator.
 *
 * -m merges the inputs as runs (pairwise stable merges; GNU merges k-way,
 * which differs only for unsorted inputs). Deviations: -R orders by a
 * seeded 64-bit hash of the key, so the random order differs from GNU's
 * (equal keys still group); -g converts at most 255 bytes of a key. The
 * first key's field range is computed once per record. -S, -T, --parallel,
 * --batch-size and --compress-program only tune GNU's external sort and
 * are accepted and ignored. --debug, --files0-from and --random-source are
 * refused.
 *
 * Usage: sort [OPTION]... [FILE]... */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char sort_usage[] MSB_COLD =
    "Usage: sort [OPTION]... [FILE]...\n"
    "Write sorted concatenation of all FILE(s) to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, -d, -f, -g, -i, -M, -h, -n, -R, -r, -V  ordering options\n"
    "  -c, -C, -k KEYDEF, -m, -o FILE, -s, -t SEP, -u, -z\n";

enum {
  SORT_O_SORT = 256,
  SORT_O_DEBUG,
  SORT_O_FILES0,
  SORT_O_RANDSRC,
  SORT_O_IGNORED,
  SORT_O_CHECK
};

static const cmd_opt sort_opts[] = {
    {'b', "ignore-leading-blanks", CMD_ARG_NONE, 'b'},
    {'d', "dictionary-order", CMD_ARG_NONE, 'd'},
    {'f', "ignore-case", CMD_ARG_NONE, 'f'},
    {'g', "general-numeric-sort", CMD_ARG_NONE, 'g'},
    {'i', "ignore-nonprinting", CMD_ARG_NONE, 'i'},
    {'M', "month-sort", CMD_ARG_NONE, 'M'},
    {'h', "human-numeric-sort", CMD_ARG_NONE, 'h'},
    {'n', "numeric-sort", CMD_ARG_NONE, 'n'},
    {'R', "random-sort", CMD_ARG_NONE, 'R'},
    {0, "random-source", CMD_ARG_REQ, SORT_O_RANDSRC},
    {'r', "reverse", CMD_ARG_NONE, 'r'},
    {0, "sort", CMD_ARG_REQ, SORT_O_SORT},
    {'V', "version-sort", CMD_ARG_NONE, 'V'},
    {0, "batch-size", CMD_ARG_REQ, SORT_O_IGNORED},
    {'c', 0, CMD_ARG_NONE, 'c'},
    {0, "check", CMD_ARG_OPT, SORT_O_CHECK},
    {'C', 0, CMD_ARG_NONE, 'C'},
    {0, "compress-program", CMD_ARG_REQ, SORT_O_IGNORED},
    {0, "debug", CMD_ARG_NONE, SORT_O_DEBUG},
    {0, "files0-from", CMD_ARG_REQ, SORT_O_FILES0},
    {'k', "key", CMD_ARG_REQ, 'k'},
    {'m', "merge", CMD_ARG_NONE, 'm'},
    {'o', "output", CMD_ARG_REQ, 'o'},
    {'s', "stable", CMD_ARG_NONE, 's'},
    {'S', "buffer-size", CMD_ARG_REQ, SORT_O_IGNORED},
    {'t', "field-separator", CMD_ARG_REQ, 't'},
    {'T', "temporary-directory", CMD_ARG_REQ, SORT_O_IGNORED},
    {'u', "unique", CMD_ARG_NONE, 'u'},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, "parallel", CMD_ARG_REQ, SORT_O_IGNORED},
    {0, 0, 0, 0}};

/* Ignore tables for -d and -i. */
enum { SORT_IGN_NONE, SORT_IGN_DICT, SORT_IGN_PRINT };

typedef struct sort_key {
  size_t sword, schar, eword, echar; /* eword SIZE_MAX: to end of line */
  int sblanks, eblanks, ign, fold, numeric, general, human, month, version;
  int random, reverse;
  struct sort_key *next;
} sort_key;

/* Parsed decimal number: sign, integer digits without leading zeros and
 * fraction digits without trailing zeros. */
typedef struct sort_num {
  int neg;
  const uint8_t *ip, *fp;
  size_t il, fl;
} sort_num;

/* A record, with its first key's range computed once so the comparisons
 * of the sort do not search for fields again. Records are moved by value
 * (32 bytes): merging streams through two arrays, which is cheaper than
 * chasing pointers to scattered records. */
typedef struct sort_line {
  const uint8_t *p;
  size_t len;
  const uint8_t *kb, *ke;
} sort_line;

typedef struct sort_state {
  sort_key *keys;
  int tab;      /* -1 default (blank separation) */
  int stable, unique, reverse, delim;
  uint64_t seed;
} sort_state;

static int sort_blank(int ch) { return ch == ' ' || ch == '\t' || ch == '\n'; }

static int sort_isdigit(int ch) { return ch >= '0' && ch <= '9'; }
static int sort_isalpha(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int sort_ignored(int ign, int ch) {
  if (ign == SORT_IGN_DICT)
    return !(sort_blank(ch) || sort_isdigit(ch) || sort_isalpha(ch)) ||
           ch == '\n';
  if (ign == SORT_IGN_PRINT) return !(ch >= 32 && ch < 127);
  return 0;
}

static int sort_upper(int ch) {
  return (ch >= 'a' && ch <= 'z') ? ch - 32 : ch;
}

/* Key start per GNU begfield. */
static const uint8_t *sort_begfield(const sort_state *s, const sort_line *l,
                                    const sort_key *k) {
  const uint8_t *p = l->p, *lim = l->p + l->len;
  size_t sword = k->sword, schar = k->schar;
  if (s->tab >= 0) {
    while (p < lim && sword--) {
      while (p < lim && *p != s->tab) p++;
      if (p < lim) p++;
    }
  } else {
    while (p < lim && sword--) {
      while (p < lim && sort_blank(*p)) p++;
      while (p < lim && !sort_blank(*p)) p++;
    }
  }
  if (k->sblanks)
    while (p < lim && sort_blank(*p)) p++;
  return (size_t)(lim - p) < schar ? lim : p + schar;
}

/* Key end per GNU limfield. */
static const uint8_t *sort_limfield(const sort_state *s, const sort_line *l,
                                    const sort_key *k) {
  const uint8_t *p = l->p, *lim = l->p + l->len;
  size_t eword = k->eword, echar = k->echar;
  if (eword == (size_t)-1) return lim;
  if (echar == 0) eword++;
  if (s->tab >= 0) {
    while (p < lim && eword--) {
      while (p < lim && *p != s->tab) p++;
      if (p < lim && (eword || echar)) p++;
    }
  } else {
    while (p < lim && eword--) {
      while (p < lim && sort_blank(*p)) p++;
      while (p < lim && !sort_blank(*p)) p++;
    }
  }
  if (echar) {
    if (k->eblanks)
      while (p < lim && sort_blank(*p)) p++;
    p = (size_t)(lim - p) < echar ? lim : p + echar;
  }
  return p;
}

static const uint8_t *sort_numparse(const uint8_t *p, const uint8_t *e,
                                    sort_num *n) {
  memset(n, 0, sizeof *n);
  if (p < e && *p == '-') {
    n->neg = 1;
    p++;
  }
  while (p < e && *p == '0') p++;
  n->ip = p;
  while (p < e && sort_isdigit(*p)) p++;
  n->il = (size_t)(p - n->ip);
  n->fp = p;
  if (p < e && *p == '.') {
    p++;
    n->fp = p;
    while (p < e && sort_isdigit(*p)) p++;
    n->fl = (size_t)(p - n->fp);
    while (n->fl && n->fp[n->fl - 1] == '0') n->fl--;
  }
  if (!n->il && !n->fl) n->neg = 0;
  return p;
}

/* Compares magnitudes of two parsed numbers. */
static int sort_nummag(const sort_num *a, const sort_num *b) {
  size_t i, m;
  int d;
  if (a->il != b->il) return a->il < b->il ? -1 : 1;
  if (a->il && (d = memcmp(a->ip, b->ip, a->il))) return d < 0 ? -1 : 1;
  m = a->fl < b->fl ? a->fl : b->fl;
  for (i = 0; i < m; i++)
    if (a->fp[i] != b->fp[i]) return a->fp[i] < b->fp[i] ? -1 : 1;
  return a->fl == b->fl ? 0 : a->fl < b->fl ? -1 : 1;
}

static void sort_numkey(const uint8_t *a, const uint8_t *ae, sort_num *x) {
  while (a < ae && sort_blank(*a)) a++;
  sort_numparse(a, ae, x);
}

static int sort_numcmp2(const sort_num *xp, const sort_num *yp) {
  sort_num x = *xp, y = *yp;
  int sx, sy;
  sx = (x.il || x.fl) ? (x.neg ? -1 : 1) : 0;
  sy = (y.il || y.fl) ? (y.neg ? -1 : 1) : 0;
  if (sx != sy) return sx < sy ? -1 : 1;
  if (!sx) return 0;
  return sx > 0 ? sort_nummag(&x, &y) : sort_nummag(&y, &x);
}

static int sort_numcmp(const uint8_t *a, const uint8_t *ae, const uint8_t *b,
                       const uint8_t *be) {
  sort_num x, y;
  sort_numkey(a, ae, &x);
  sort_numkey(b, be, &y);
  return sort_numcmp2(&x, &y);
}

/* SI suffix order of a number for -h (0 without digits or suffix). */
static int sort_unit(const uint8_t *p, const uint8_t *e) {
  static const char units[] = "KMGTPEZYRQ";
  const char *u;
  sort_num n;
  const uint8_t *q;
  int neg = p < e && *p == '-';
  q = sort_numparse(p, e, &n);
  if (!n.il && !n.fl) return 0;
  if (q >= e) return 0;
  if (*q == 'k') return neg ? -1 : 1;
  if (!*q || !(u = strchr(units, *q))) return 0;
  return (int)(u - units + 1) * (neg ? -1 : 1);
}

static int sort_humancmp(const uint8_t *a, const uint8_t *ae, const uint8_t *b,
                         const uint8_t *be) {
  int d;
  while (a < ae && sort_blank(*a)) a++;
  while (b < be && sort_blank(*b)) b++;
  d = sort_unit(a, ae) - sort_unit(b, be);
  return d ? d : sort_numcmp(a, ae, b, be);
}

/* strtold on a bounded copy; returns 0 when nothing converts. */
static int sort_strtold(const uint8_t *p, const uint8_t *e, long double *v) {
  char tmp[256];
  char *end;
  size_t n = (size_t)(e - p);
  if (n > sizeof tmp - 1) n = sizeof tmp - 1;
  memcpy(tmp, p, n);
  tmp[n] = 0;
  *v = strtold(tmp, &end);
  return end != tmp;
}

static int sort_generalcmp(const uint8_t *a, const uint8_t *ae,
                           const uint8_t *b, const uint8_t *be) {
  long double x, y;
  int okx = sort_strtold(a, ae, &x), oky = sort_strtold(b, be, &y);
  if (!okx) return oky ? -1 : 0;
  if (!oky) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x == y) return 0;
  if (y == y) return -1; /* x is NaN */
  if (x == x) return 1;
  return 0;
}

static int sort_monthof(const uint8_t *p, const uint8_t *e) {
  static const char months[] = "JANFEBMARAPRMAYJUNJULAUGSEPOCTNOVDEC";
  int i;
  while (p < e && sort_blank(*p)) p++;
  if (e - p < 3) return 0;
  for (i = 0; i < 12; i++)
    if (sort_upper(p[0]) == months[i * 3] &&
        sort_upper(p[1]) == months[i * 3 + 1] &&
        sort_upper(p[2]) == months[i * 3 + 2])
      return i + 1;
  return 0;
}

/* Character order for version comparison (GNU filevercmp). */
static int sort_verorder(int ch) {
  if (sort_isdigit(ch)) return 0;
  if (sort_isalpha(ch)) return ch;
  if (ch == '~') return -1;
  return ch + 256 + 1;
}

static int sort_verrev(const uint8_t *a, size_t al, const uint8_t *b,
                       size_t bl) {
  size_t i = 0, j = 0;
  while (i < al || j < bl) {
    int first = 0;
    while ((i < al && !sort_isdigit(a[i])) || (j < bl && !sort_isdigit(b[j]))) {
      int x = i == al ? 0 : sort_verorder(a[i]);
      int y = j == bl ? 0 : sort_verorder(b[j]);
      if (x != y) return x - y;
      i++;
      j++;
    }
    while (i < al && a[i] == '0') i++;
    while (j < bl && b[j] == '0') j++;
    while (i < al && j < bl && sort_isdigit(a[i]) && sort_isdigit(b[j])) {
      if (!first) first = a[i] - b[j];
      i++;
      j++;
    }
    if (i < al && sort_isdigit(a[i])) return 1;
    if (j < bl && sort_isdigit(b[j])) return -1;
    if (first) return first;
  }
  return 0;
}

/* Length of a name without its suffix (\.[A-Za-z~][A-Za-z0-9~]*)*$. */
static size_t sort_verprefix(const uint8_t *s, size_t n) {
  size_t i = 0, pre = 0;
  while (i < n) {
    i++;
    pre = i;
    while (i + 1 < n && s[i] == '.' &&
           (sort_isalpha(s[i + 1]) || s[i + 1] == '~'))
      for (i += 2;
           i < n && (sort_isalpha(s[i]) || sort_isdigit(s[i]) || s[i] == '~');
           i++);
  }
  return pre;
}

static int sort_vercmp(const uint8_t *a, size_t al, const uint8_t *b,
                       size_t bl) {
  size_t ap, bp;
  int r;
  if (!al) return bl ? -1 : 0;
  if (!bl) return 1;
  if (a[0] == '.') {
    if (b[0] != '.') return -1;
    if (al == 1) return bl == 1 ? 0 : -1;
    if (bl == 1) return 1;
    if (a[1] == '.' && al == 2) return (b[1] == '.' && bl == 2) ? 0 : -1;
    if (b[1] == '.' && bl == 2) return 1;
  } else if (b[0] == '.') {
    return 1;
  }
  ap = sort_verprefix(a, al);
  bp = sort_verprefix(b, bl);
  r = sort_verrev(a, ap, b, bp);
  if (r || (ap == al && bp == bl)) return r;
  return sort_verrev(a, al, b, bl);
}

static uint64_t sort_hash(uint64_t seed, const uint8_t *p, size_t n) {
  uint64_t h = seed ^ 0x9e3779b97f4a7c15u;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3u;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  return h;
}

static int sort_bytes(const uint8_t *a, size_t al, const uint8_t *b,
                      size_t bl) {
  size_t m = al < bl ? al : bl;
  int d = m ? memcmp(a, b, m) : 0;
  if (d) return d < 0 ? -1 : 1;
  return al == bl ? 0 : al < bl ? -1 : 1;
}

static int sort_keycmp(const sort_state *s, const sort_line *x,
                       const sort_line *y) {
  const sort_key *k;
  for (k = s->keys; k; k = k->next) {
    const uint8_t *a, *ae, *b, *be;
    int d;
    if (k == s->keys) {
      a = x->kb;
      ae = x->ke;
      b = y->kb;
      be = y->ke;
    } else {
      a = sort_begfield(s, x, k);
      ae = sort_limfield(s, x, k);
      b = sort_begfield(s, y, k);
      be = sort_limfield(s, y, k);
      if (ae < a) ae = a;
      if (be < b) be = b;
    }
    if (k->random) {
      uint64_t ha = sort_hash(s->seed, a, (size_t)(ae - a));
      uint64_t hb = sort_hash(s->seed, b, (size_t)(be - b));
      d = ha == hb ? sort_bytes(a, (size_t)(ae - a), b, (size_t)(be - b))
                   : (ha < hb ? -1 : 1);
    } else if (k->numeric) {
      d = sort_numcmp(a, ae, b, be);
    } else if (k->general) {
      d = sort_generalcmp(a, ae, b, be);
    } else if (k->human) {
      d = sort_humancmp(a, ae, b, be);
    } else if (k->month) {
      d = sort_monthof(a, ae) - sort_monthof(b, be);
    } else if (k->version) {
      d = sort_vercmp(a, (size_t)(ae - a), b, (size_t)(be - b));
    } else if (k->ign || k->fold) {
      for (;;) {
        while (a < ae && sort_ignored(k->ign, *a)) a++;
        while (b < be && sort_ignored(k->ign, *b)) b++;
        if (!(a < ae && b < be)) break;
        d = k->fold ? sort_upper(*a) - sort_upper(*b) : *a - *b;
        if (d) break;
        a++;
        b++;
      }
      if (!(a < ae && b < be)) d = (a < ae) - (b < be);
    } else {
      d = sort_bytes(a, (size_t)(ae - a), b, (size_t)(be - b));
    }
    if (d) return k->reverse ? (d < 0 ? 1 : -1) : (d < 0 ? -1 : 1);
  }
  return 0;
}

static int sort_cmp(const sort_state *s, const sort_line *x,
                    const sort_line *y) {
  int d;
  if (s->keys) {
    d = sort_keycmp(s, x, y);
    if (d || s->unique || s->stable) return d;
  }
  d = sort_bytes(x->p, x->len, y->p, y->len);
  return s->reverse ? -d : d;
}

/* Stable merge of src[lo..mid) and src[mid..hi) into dst. The shortcut
 * for already ordered halves is only valid when the halves are sorted, so
 * merge mode (-m, whose inputs may be unsorted) skips it. */
static void sort_merge2(const sort_state *s, const sort_line *src,
                        sort_line *dst, size_t lo, size_t mid, size_t hi,
                        int trust) {
  size_t a = lo, b = mid, o = lo;
  if (mid >= hi || (trust && sort_cmp(s, &src[mid - 1], &src[mid]) <= 0)) {
    memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
    return;
  }
  while (a < mid && b < hi)
    dst[o++] = sort_cmp(s, &src[b], &src[a]) < 0 ? src[b++] : src[a++];
  while (a < mid) dst[o++] = src[a++];
  while (b < hi) dst[o++] = src[b++];
}

/* Bottom-up stable merge over runs: run r is v[run[r]..run[r+1]). For a
 * plain sort every line is a run of one. nrun runs, run[nrun] == n. The
 * run array is rewritten in place as runs combine. */
static int sort_msort(cmd_ctx *c, const sort_state *s, sort_line *v,
                      sort_line *tmp, size_t n, size_t *run, size_t nrun,
                      int trust) {
  sort_line *src = v, *dst = tmp, *t;
  size_t r, w;
  int rc;
  while (nrun > 1) {
    for (r = 0, w = 0; r < nrun; r += 2, w++) {
      size_t lo = run[r], mid = run[r + 1];
      size_t hi = r + 2 <= nrun ? run[r + 2 < nrun ? r + 2 : nrun] : mid;
      if (r + 1 >= nrun) hi = mid;
      sort_merge2(s, src, dst, lo, mid, hi, trust);
      run[w] = lo;
    }
    run[w] = n;
    nrun = w;
    if ((rc = cmd_tick(c, n / 64 + 1)) != 0) return rc;
    t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
  return 0;
}

/* Parses a field count; SIZE_MAX on overflow. NULL when no digits. */
static const char *sort_count(const char *s, size_t *out) {
  size_t v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9') {
    size_t d = (size_t)(*p - '0');
    v = v > ((size_t)-1 - d) / 10 ? (size_t)-1 : v * 10 + d;
    p++;
  }
  *out = v;
  return p == s ? NULL : p;
}

/* Applies ordering letters; returns the first unknown character's
 * position. blanks: 1 start, 2 end. */
static const char *sort_keyopts(const char *p, sort_key *k, int blanks) {
  for (;; p++) {
    switch (*p) {
    case 'b':
      if (blanks == 1)
        k->sblanks = 1;
      else
        k->eblanks = 1;
      break;
    case 'd': k->ign = SORT_IGN_DICT; break;
    case 'f': k->fold = 1; break;
    case 'g': k->general = 1; break;
    case 'h': k->human = 1; break;
    case 'i': k->ign = SORT_IGN_PRINT; break;
    case 'M': k->month = 1; break;
    case 'n': k->numeric = 1; break;
    case 'R': k->random = 1; break;
    case 'r': k->reverse = 1; break;
    case 'V': k->version = 1; break;
    default: return p;
    }
  }
}

static int sort_badkey(cmd_ctx *c, const char *what, const char *spec) {
  cmd_err(c, "%s: invalid field specification %s", what, cmd_quote(c, spec));
  return 2;
}

static int sort_badcount(cmd_ctx *c, const char *what, const char *rest) {
  cmd_err(c, "%s: invalid count at start of %s", what, cmd_quote(c, rest));
  return 2;
}

/* Parses -k POS1[,POS2]; 0 or an exit status after printing. */
static int sort_parsekey(cmd_ctx *c, const char *spec, sort_key *k) {
  const char *p = spec, *q;
  memset(k, 0, sizeof *k);
  q = sort_count(p, &k->sword);
  if (!q) return sort_badcount(c, "invalid number at field start", p);
  if (!k->sword--) return sort_badkey(c, "field number is zero", spec);
  p = q;
  if (*p == '.') {
    q = sort_count(p + 1, &k->schar);
    if (!q) return sort_badcount(c, "invalid number after '.'", p + 1);
    if (!k->schar--) return sort_badkey(c, "character offset is zero", spec);
    p = q;
  }
  p = sort_keyopts(p, k, 1);
  if (*p != ',') {
    k->eword = (size_t)-1;
    k->echar = 0;
  } else {
    q = sort_count(p + 1, &k->eword);
    if (!q) return sort_badcount(c, "invalid number after ','", p + 1);
    if (!k->eword--) return sort_badkey(c, "field number is zero", spec);
    p = q;
    if (*p == '.') {
      q = sort_count(p + 1, &k->echar);
      if (!q) return sort_badcount(c, "invalid number after '.'", p + 1);
      p = q;
    }
    p = sort_keyopts(p, k, 2);
  }
  if (*p) return sort_badkey(c, "stray character in field spec", spec);
  return 0;
}

static int sort_default_key(const sort_key *k) {
  return !(k->ign || k->fold || k->sblanks || k->eblanks || k->month ||
           k->numeric || k->general || k->human || k->version || k->random);
}

/* GNU's incompatible-option check; 0 or exit status 2. */
static int sort_compat(cmd_ctx *c, const sort_key *k) {
  char o[16];
  int n = 0;
  if (k->numeric + k->general + k->human + k->month +
          (k->version | k->random | !!k->ign) <=
      1)
    return 0;
  if (k->ign == SORT_IGN_DICT) o[n++] = 'd';
  if (k->fold) o[n++] = 'f';
  if (k->general) o[n++] = 'g';
  if (k->human) o[n++] = 'h';
  if (k->ign == SORT_IGN_PRINT) o[n++] = 'i';
  if (k->month) o[n++] = 'M';
  if (k->numeric) o[n++] = 'n';
  if (k->random) o[n++] = 'R';
  if (k->version) o[n++] = 'V';
  o[n] = 0;
  cmd_err(c, "options '-%s' are incompatible", o);
  return 2;
}

static int sort_read(cmd_ctx *c, const char *name, sort_line **v, size_t *n,
                     size_t *cap, int delim) {
  const uint8_t *d, *rec;
  size_t len, rl;
  int rc, term;
  cmd_lines it;
  rc = cmd_input(c, name, &d, &len);
  if (rc < 0) return rc;
  cmd_lines_init(&it, d, len, delim);
  while (cmd_lines_next(&it, &rec, &rl, &term)) {
    if (*n == *cap) {
      sort_line *nv = cmd_grow(c, *v, *n, cap, sizeof *nv, 1024);
      if (!nv) return MSB_ENOMEM;
      *v = nv;
    }
    (*v)[*n].p = rec;
    (*v)[*n].len = rl;
    (*n)++;
  }
  return 0;
}

/* Checks order (-c/-C); returns 0 sorted, 1 disorder. */
static int sort_check(cmd_ctx *c, const sort_state *s, const char *name,
                      const sort_line *v, size_t n, int quiet) {
  size_t i;
  for (i = 1; i < n; i++) {
    int d = sort_cmp(s, &v[i - 1], &v[i]);
    if (d > 0 || (s->unique && d == 0)) {
      if (!quiet) {
        buf_printf(c->err, "%s: %s:%lu: disorder: ", cmd_name(c), name,
                   (unsigned long)(i + 1));
        buf_put(c->err, v[i].p, v[i].len);
        buf_putc(c->err, '\n');
      }
      return 1;
    }
  }
  return 0;
}

/* GNU's quote() in the C locale: single quotes with C escapes for the
 * backslash (sort prints "multi-character tab '\\t'"). */
static const char *sort_quote_c(cmd_ctx *c, const char *s) {
  size_t n = strlen(s), i, k = 0;
  char *q = arena_alloc(c->a, 2 * n + 3);
  if (!q) return "";
  q[k++] = '\'';
  for (i = 0; i < n; i++) {
    if (s[i] == '\\') q[k++] = '\\';
    q[k++] = s[i];
  }
  q[k++] = '\'';
  q[k] = 0;
  return q;
}

/* Entry point: see the usage above. */
int cmd_sort(cmd_ctx *c) {
  cmd_getopt g;
  sort_state s;
  sort_key gkey, *k, **tail;
  sort_line *v = NULL, *tmp;
  size_t n = 0, cap = 0, i, nstart = 0, *starts;
  const char *outfile = NULL;
  int opt, rc, check = 0, merge = 0, bad;
  buf ob;
  memset(&s, 0, sizeof s);
  memset(&gkey, 0, sizeof gkey);
  gkey.eword = (size_t)-1;
  s.tab = -1;
  s.delim = '\n';
  s.seed = c->rng ? *c->rng : 0;
  tail = &s.keys;
  cmd_opt_init(&g, c, sort_opts, sort_usage, 0);
  g.status = 2;
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 2;
    case CMD_OPT_EXIT: return 0;
    case 'b': gkey.sblanks = gkey.eblanks = 1; break;
    case 'd': gkey.ign = SORT_IGN_DICT; break;
    case 'f': gkey.fold = 1; break;
    case 'g': gkey.general = 1; break;
    case 'i': gkey.ign = SORT_IGN_PRINT; break;
    case 'M': gkey.month = 1; break;
    case 'h': gkey.human = 1; break;
    case 'n': gkey.numeric = 1; break;
    case 'R': gkey.random = 1; break;
    case 'r': gkey.reverse = 1; break;
    case 'V': gkey.version = 1; break;
    case SORT_O_SORT: {
      static const char *const words[] = {"general-numeric", "human-numeric",
                                          "month",           "numeric",
                                          "random",          "version"};
      static const char letters[] = "ghMnRV";
      size_t w, len = strlen(g.arg), hit = 6, hits = 0;
      for (w = 0; w < 6; w++)
        if (len && !strncmp(words[w], g.arg, len)) {
          if (strlen(words[w]) == len) {
            hit = w;
            hits = 1;
            break;
          }
          hit = w;
          hits++;
        }
      if (hits != 1) {
        cmd_err(c, "%s argument %s for %s", hits ? "ambiguous" : "invalid",
                cmd_quote(c, g.arg), cmd_quote(c, "--sort"));
        buf_puts(c->err,
                 "Valid arguments are:\n  - 'general-numeric'\n"
                 "  - 'human-numeric'\n  - 'month'\n"
                 "  - 'numeric'\n  - 'random'\n  - 'version'\n");
        buf_printf(c->err, "Try '%s --help' for more information.\n",
                   cmd_name(c));
        return 1;
      }
      {
        char one[2];
        one[0] = letters[hit];
        one[1] = 0;
        sort_keyopts(one, &gkey, 1);
      }
      break;
    }
    case SORT_O_CHECK:
      if (g.arg && strcmp(g.arg, "diagnose-first") && strcmp(g.arg, "quiet") &&
          strcmp(g.arg, "silent")) {
        cmd_err(c, "invalid argument %s for %s", cmd_quote(c, g.arg),
                cmd_quote(c, "--check"));
        buf_puts(c->err,
                 "Valid arguments are:\n  - 'quiet', 'silent'\n"
                 "  - 'diagnose-first'\n");
        buf_printf(c->err, "Try '%s --help' for more information.\n",
                   cmd_name(c));
        return 1;
      }
      opt = (g.arg && g.arg[0] != 'd') ? 'C' : 'c';
      if (check && check != opt) {
        cmd_err(c, "options '-cC' are incompatible");
        return 2;
      }
      check = opt;
      break;
    case 'c':
    case 'C':
      if (check && check != opt) {
        cmd_err(c, "options '-cC' are incompatible");
        return 2;
      }
      check = opt;
      break;
    case SORT_O_DEBUG:
    case SORT_O_FILES0:
    case SORT_O_RANDSRC:
      cmd_err(c, "--%s is not supported in memsandbox", g.optname);
      return 2;
    case SORT_O_IGNORED: break;
    case 'k':
      k = arena_alloc(c->a, sizeof *k);
      if (!k) return 2;
      if ((rc = sort_parsekey(c, g.arg, k)) != 0) return rc;
      *tail = k;
      tail = &k->next;
      break;
    case 'm': merge = 1; break;
    case 'o':
      if (outfile && strcmp(outfile, g.arg)) {
        cmd_err(c, "multiple output files specified");
        return 2;
      }
      outfile = g.arg;
      break;
    case 's': s.stable = 1; break;
    case 't': {
      int t = (unsigned char)g.arg[0];
      if (!t) {
        cmd_err(c, "empty tab");
        return 2;
      }
      if (g.arg[1]) {
        if (!strcmp(g.arg, "\\0")) {
          t = 0;
        } else {
          cmd_err(c, "multi-character tab %s", sort_quote_c(c, g.arg));
          return 2;
        }
      }
      if (s.tab >= 0 && s.tab != t) {
        cmd_err(c, "incompatible tabs");
        return 2;
      }
      s.tab = t;
      break;
    }
    case 'u': s.unique = 1; break;
    case 'z': s.delim = 0; break;
    default:
      if (opt < 0) return 2;
      break;
    }
  }
  /* Keys without ordering options inherit the global ones. */
  for (k = s.keys; k; k = k->next)
    if (sort_default_key(k) && !k->reverse) {
      k->ign = gkey.ign;
      k->fold = gkey.fold;
      k->sblanks = gkey.sblanks;
      k->eblanks = gkey.eblanks;
      k->month = gkey.month;
      k->numeric = gkey.numeric;
      k->general = gkey.general;
      k->human = gkey.human;
      k->version = gkey.version;
      k->random = gkey.random;
      k->reverse = gkey.reverse;
    }
  if (!s.keys && !sort_default_key(&gkey)) s.keys = &gkey;
  for (k = s.keys; k; k = k->next)
    if ((rc = sort_compat(c, k)) != 0) return rc;
  if (!s.keys && !sort_default_key(&gkey) && (rc = sort_compat(c, &gkey)))
    return rc;
  s.reverse = gkey.reverse;
  if (check && g.nops > 1) {
    cmd_err(c, "extra operand %s not allowed with -%c", cmd_quote(c, g.ops[1]),
            check);
    return 2;
  }
  if (check && outfile) {
    cmd_err(c, "options '-%co' are incompatible", check);
    return 2;
  }
  /* Read everything first so -o may name an input. */
  starts = arena_alloc(c->a, ((size_t)g.nops + 1) * sizeof *starts);
  if (!starts) return 2;
  /* Count the records first so the array is allocated once. */
  for (i = 0; i < (size_t)g.nops || (i == 0 && g.nops == 0); i++) {
    const uint8_t *d, *q, *e;
    size_t len;
    if (cmd_input(c, g.nops ? g.ops[i] : "-", &d, &len) < 0 || !len) continue;
    for (e = d + len; d < e && (q = memchr(d, s.delim, (size_t)(e - d)));
         d = q + 1)
      cap++;
    if (d < e) cap++;
  }
  if (cap) {
    v = arena_alloc(c->a, cap * sizeof *v);
    if (!v) return 2;
  }
  for (i = 0; i < (size_t)g.nops || (i == 0 && g.nops == 0); i++) {
    const char *name = g.nops ? g.ops[i] : "-";
    if (!i || starts[nstart - 1] != n) starts[nstart++] = n;
    rc = sort_read(c, name, &v, &n, &cap, s.delim);
    if (rc == MSB_ENOMEM) return 2;
    if (rc < 0) {
      cmd_err(c, "%s: %s: %s",
              rc == MSB_EISDIR  ? "read failed"
              : rc == CMD_EBADF ? "stat failed"
                                : "cannot read",
              cmd_quotef(c, name), cmd_strerror(rc));
      return 2;
    }
  }
  if (s.keys)
    for (i = 0; i < n; i++) {
      v[i].kb = sort_begfield(&s, &v[i], s.keys);
      v[i].ke = sort_limfield(&s, &v[i], s.keys);
      if (v[i].ke < v[i].kb) v[i].ke = v[i].kb;
    }
  if (check)
    return sort_check(c, &s, g.nops ? g.ops[0] : "-", v, n, check == 'C');
  if (n > 1) {
    size_t nrun = merge ? nstart : n, *run;
    tmp = arena_alloc(c->a, n * sizeof *tmp);
    run = arena_alloc(c->a, (nrun + 1) * sizeof *run);
    if (!tmp || !run) return 2;
    for (i = 0; i < nrun; i++) run[i] = merge ? starts[i] : i;
    run[nrun] = n;
    if ((rc = sort_msort(c, &s, v, tmp, n, run, nrun, !merge)) != 0) return rc;
  }
  buf_init(&ob, c->m);
  bad = 0;
  for (i = 0; i < n; i++) {
    if (s.unique && i && sort_cmp(&s, &v[i - 1], &v[i]) == 0) continue;
    if (outfile) {
      buf_put(&ob, v[i].p, v[i].len);
      buf_putc(&ob, s.delim);
    } else if (cmd_write(c, v[i].p, v[i].len) < 0 ||
               cmd_write(c, s.delim ? "\n" : "", 1) < 0) {
      bad = 1;
      break;
    }
  }
  if (outfile) {
    const char *abs = cmd_path(c, outfile);
    rc = ob.err;
    if (!rc)
      rc = abs ? vfs_write(c->fs, abs, ob.p ? ob.p : "", ob.len, VFS_KEEP_MODE,
                           CMD_NEWFILE(c), NULL)
               : MSB_ENOMEM;
    buf_finish(&ob);
    if (rc < 0) {
      cmd_err(c, "open failed: %s: %s", cmd_quotef(c, outfile),
              cmd_strerror(rc));
      return 2;
    }
  }
  return bad ? 2 : 0;
}
