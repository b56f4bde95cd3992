/* tr.c - translate, squeeze, and/or delete characters (GNU coreutils tr).
 *
 * Each SET is parsed into elements (characters, ranges, classes, [=c=],
 * [c*n]) and expanded to a byte array; translation is then a 256-entry
 * table and deletion / squeezing are membership tables, so the input is
 * processed in one pass. Classes expand in byte order, which pairs
 * [:lower:] with [:upper:] position by position as GNU requires; GNU's
 * misalignment check for those pairs is not made.
 *
 * Usage: tr [OPTION]... STRING1 [STRING2] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char tr_usage[] MSB_COLD =
    "Usage: tr [OPTION]... STRING1 [STRING2]\n"
    "Translate, squeeze, and/or delete characters from standard input,\n"
    "writing to standard output.  STRING1 and STRING2 specify arrays of\n"
    "characters ARRAY1 and ARRAY2 that control the action.\n"
    "\n"
    "  -c, -C, --complement    use the complement of ARRAY1\n"
    "  -d, --delete            delete characters in ARRAY1, do not "
    "translate\n"
    "  -s, --squeeze-repeats   replace each sequence of a repeated "
    "character\n"
    "                            that is listed in the last specified "
    "ARRAY,\n"
    "                            with a single occurrence of that "
    "character\n"
    "  -t, --truncate-set1     first truncate ARRAY1 to length of ARRAY2\n";

static const cmd_opt tr_opts[] = {{'c', "complement", CMD_ARG_NONE, 'c'},
                                  {'C', 0, CMD_ARG_NONE, 'c'},
                                  {'d', "delete", CMD_ARG_NONE, 'd'},
                                  {'s', "squeeze-repeats", CMD_ARG_NONE, 's'},
                                  {'t', "truncate-set1", CMD_ARG_NONE, 't'},
                                  {0, 0, 0, 0}};

/* An expanded set: bytes in order, and where a [c*] fill goes. */
typedef struct tr_set {
  uint8_t *v;
  size_t n, cap;
  long fill_at;  /* index of a [c*] / [c*0] fill, -1 none */
  int fill_ch;
  int has_class; /* a class other than upper/lower appeared */
  size_t casepos[16]; /* where [:upper:] / [:lower:] expansions start */
  int ncase;
} tr_set;

static int tr_push(cmd_ctx *c, tr_set *s, int ch, size_t count) {
  while (s->n + count > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 256;
    uint8_t *nv = arena_alloc(c->a, nc);
    if (!nv) return MSB_ENOMEM;
    if (s->n) memcpy(nv, s->v, s->n);
    s->v = nv;
    s->cap = nc;
  }
  memset(s->v + s->n, ch, count);
  s->n += count;
  return 0;
}

static int tr_inclass(const char *cls, int ch) {
  int up = ch >= 'A' && ch <= 'Z', lo = ch >= 'a' && ch <= 'z';
  int dg = ch >= '0' && ch <= '9';
  if (!strcmp(cls, "alnum")) return up || lo || dg;
  if (!strcmp(cls, "alpha")) return up || lo;
  if (!strcmp(cls, "blank")) return ch == ' ' || ch == '\t';
  if (!strcmp(cls, "cntrl")) return ch < 32 || ch == 127;
  if (!strcmp(cls, "digit")) return dg;
  if (!strcmp(cls, "graph")) return ch > 32 && ch < 127;
  if (!strcmp(cls, "lower")) return lo;
  if (!strcmp(cls, "print")) return ch >= 32 && ch < 127;
  if (!strcmp(cls, "punct")) return ch > 32 && ch < 127 && !up && !lo && !dg;
  if (!strcmp(cls, "space")) return ch == ' ' || (ch >= 9 && ch <= 13);
  if (!strcmp(cls, "upper")) return up;
  if (!strcmp(cls, "xdigit"))
    return dg || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
  return -1;
}

/* Reads one possibly escaped character at *p; returns it. */
static int tr_char(cmd_ctx *c, const char **pp, const char *end) {
  const char *p = *pp;
  int ch = (unsigned char)*p++;
  if (ch == '\\') {
    if (p >= end) {
      cmd_err(c,
              "warning: an unescaped backslash at end of string is not "
              "portable");
      *pp = p;
      return '\\';
    }
    ch = (unsigned char)*p++;
    switch (ch) {
    case 'a': ch = '\a'; break;
    case 'b': ch = '\b'; break;
    case 'f': ch = '\f'; break;
    case 'n': ch = '\n'; break;
    case 'r': ch = '\r'; break;
    case 't': ch = '\t'; break;
    case 'v': ch = '\v'; break;
    default:
      if (ch >= '0' && ch <= '7') {
        int v = ch - '0', k;
        for (k = 1; k < 3 && p < end && *p >= '0' && *p <= '7'; k++) {
          if (v * 8 + (*p - '0') > 255) break;
          v = v * 8 + (*p++ - '0');
        }
        ch = v;
      }
      break;
    }
  }
  *pp = p;
  return ch;
}

/* Parses and expands a set. 0, 1 (error printed) or a negative code. */
static int tr_parse(cmd_ctx *c, const char *str, int is2, tr_set *s) {
  const char *p = str, *end = str + strlen(str);
  int rc;
  memset(s, 0, sizeof *s);
  s->fill_at = -1;
  while (p < end) {
    if (p[0] == '[' && p + 1 < end && p[1] == ':') {
      const char *q = strstr(p + 2, ":]");
      if (q) {
        char cls[16];
        size_t len = (size_t)(q - p - 2);
        int ch;
        if (len < sizeof cls) {
          memcpy(cls, p + 2, len);
          cls[len] = 0;
        }
        if (len >= sizeof cls || tr_inclass(cls, 'a') < 0) {
          char *bad = arena_strndup(c->a, p + 2, (size_t)(q - p - 2));
          cmd_err(c, "invalid character class %s",
                  cmd_quote(c, bad ? bad : ""));
          return 1;
        }
        if (is2 && strcmp(cls, "upper") && strcmp(cls, "lower"))
          s->has_class = 1;
        if ((!strcmp(cls, "upper") || !strcmp(cls, "lower")) && s->ncase < 16)
          s->casepos[s->ncase++] = s->n;
        for (ch = 0; ch < 256; ch++)
          if (tr_inclass(cls, ch) && (rc = tr_push(c, s, ch, 1)) < 0) return rc;
        p = q + 2;
        continue;
      }
    }
    if (p[0] == '[' && p + 1 < end && p[1] == '=') {
      const char *q = p + 2;
      int ch;
      if (q < end) {
        const char *r = q;
        ch = tr_char(c, &r, end);
        if (r + 1 < end && r[0] == '=' && r[1] == ']') {
          if ((rc = tr_push(c, s, ch, 1)) < 0) return rc;
          p = r + 2;
          continue;
        }
      }
    }
    if (p[0] == '[' && p + 1 < end) {
      const char *r = p + 1;
      int ch = tr_char(c, &r, end);
      if (r < end && *r == '*') {
        const char *q = r + 1;
        size_t n = 0;
        int base = (q < end && *q == '0') ? 8 : 10, ok = 1;
        while (q < end && *q >= '0' && *q <= '9') {
          if (base == 8 && *q > '7') ok = 0;
          n = n * (size_t)base + (size_t)(*q - '0');
          if (n > 0x7fffffff) n = 0x7fffffff;
          q++;
        }
        if (q < end && *q == ']') {
          if (!ok) {
            char *bad = arena_strndup(c->a, r + 1, (size_t)(q - r - 1));
            cmd_err(c, "invalid repeat count %s in [c*n] construct",
                    cmd_quote(c, bad ? bad : ""));
            return 1;
          }
          if (!is2 && n == 0) {
            /* [c*n] with a count is fine in string1 too. */
            cmd_err(c,
                    "the [c*] repeat construct may not appear in "
                    "string1");
            return 1;
          }
          if (n == 0) {
            if (s->fill_at >= 0) {
              cmd_err(c,
                      "only one [c*] repeat construct may appear in "
                      "string2");
              return 1;
            }
            s->fill_at = (long)s->n;
            s->fill_ch = ch;
          } else if ((rc = tr_push(c, s, ch, n)) < 0) {
            return rc;
          }
          p = q + 1;
          continue;
        }
      }
    }
    {
      const char *r = p;
      int a = tr_char(c, &r, end);
      if (r + 1 < end && *r == '-') {
        const char *q = r + 1;
        int b = tr_char(c, &q, end), ch;
        if (b < a) {
          char *bad = arena_strndup(c->a, p, (size_t)(q - p));
          cmd_err(c,
                  "range-endpoints of %s are in reverse collating "
                  "sequence order",
                  cmd_quote(c, bad ? bad : ""));
          return 1;
        }
        for (ch = a; ch <= b; ch++)
          if ((rc = tr_push(c, s, ch, 1)) < 0) return rc;
        p = q;
        continue;
      }
      if ((rc = tr_push(c, s, a, 1)) < 0) return rc;
      p = r;
    }
  }
  return 0;
}

static int tr_operr(cmd_ctx *c, const char *msg, const char *arg,
                    const char *extra) {
  if (arg)
    cmd_err(c, msg, cmd_quote(c, arg));
  else
    cmd_err(c, "%s", msg);
  if (extra) buf_printf(c->err, "%s\n", extra);
  buf_printf(c->err, "Try '%s --help' for more information.\n", cmd_name(c));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_tr(cmd_ctx *c) {
  cmd_getopt g;
  int opt, comp = 0, del = 0, sq = 0, trunc = 0, rc, ch, nsets;
  tr_set s1, s2;
  uint8_t map[256], delset[256], sqset[256];
  size_t i;
  cmd_opt_init(&g, c, tr_opts, tr_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'c': comp = 1; break;
    case 'd': del = 1; break;
    case 's': sq = 1; break;
    case 't': trunc = 1; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  nsets = g.nops;
  if (nsets == 0) return tr_operr(c, "missing operand", NULL, NULL);
  if (!del && !sq && nsets == 1)
    return tr_operr(c, "missing operand after %s", g.ops[0],
                    "Two strings must be given when translating.");
  if (del && sq && nsets == 1)
    return tr_operr(c, "missing operand after %s", g.ops[0],
                    "Two strings must be given when both deleting and "
                    "squeezing repeats.");
  if (del && !sq && nsets == 2)
    return tr_operr(c, "extra operand %s", g.ops[1],
                    "Only one string may be given when deleting without "
                    "squeezing repeats.");
  if (nsets > 2) return tr_operr(c, "extra operand %s", g.ops[2], NULL);
  if ((rc = tr_parse(c, g.ops[0], 0, &s1)) != 0) return rc < 0 ? rc : 1;
  memset(&s2, 0, sizeof s2);
  s2.fill_at = -1;
  if (nsets == 2 && (rc = tr_parse(c, g.ops[1], 1, &s2)) != 0)
    return rc < 0 ? rc : 1;
  if (comp) {
    uint8_t in[256];
    tr_set cs;
    memset(in, 0, sizeof in);
    for (i = 0; i < s1.n; i++) in[s1.v[i]] = 1;
    memset(&cs, 0, sizeof cs);
    for (ch = 0; ch < 256; ch++)
      if (!in[ch] && (rc = tr_push(c, &cs, ch, 1)) < 0) return rc;
    s1 = cs;
  }
  for (ch = 0; ch < 256; ch++) map[ch] = (uint8_t)ch;
  memset(delset, 0, sizeof delset);
  memset(sqset, 0, sizeof sqset);
  if (!del && nsets == 2) {
    /* Translation: size SET2 to SET1. */
    if (s2.has_class) {
      cmd_err(c,
              "when translating, the only character classes that may "
              "appear in\nstring2 are 'upper' and 'lower'");
      return 1;
    }
    if (s2.fill_at >= 0) {
      size_t need = s1.n > s2.n ? s1.n - s2.n : 0;
      tr_set f;
      memset(&f, 0, sizeof f);
      if ((rc = tr_push(c, &f, 0, s2.n + need)) < 0) return rc;
      if (s2.fill_at) memcpy(f.v, s2.v, (size_t)s2.fill_at);
      if (need) memset(f.v + s2.fill_at, s2.fill_ch, need);
      if (s2.n > (size_t)s2.fill_at)
        memcpy(f.v + s2.fill_at + need, s2.v + s2.fill_at,
               s2.n - (size_t)s2.fill_at);
      f.n = s2.n + need;
      s2.v = f.v;
      s2.n = f.n;
    }
    for (i = 0; i < (size_t)s2.ncase; i++) {
      int k, ok = 0;
      for (k = 0; k < s1.ncase && !comp; k++)
        if (s1.casepos[k] == s2.casepos[i]) ok = 1;
      if (!ok) {
        cmd_err(c, "misaligned [:upper:] and/or [:lower:] construct");
        return 1;
      }
    }
    if (trunc && s1.n > s2.n) s1.n = s2.n;
    if (s2.n == 0 && s1.n > 0) {
      cmd_err(c, "when not truncating set1, string2 must be non-empty");
      return 1;
    }
    for (i = 0; i < s1.n; i++)
      map[s1.v[i]] = i < s2.n ? s2.v[i] : s2.v[s2.n - 1];
    if (sq)
      for (i = 0; i < s2.n; i++) sqset[s2.v[i]] = 1;
  } else {
    if (del)
      for (i = 0; i < s1.n; i++) delset[s1.v[i]] = 1;
    if (sq) {
      const tr_set *q = del ? &s2 : &s1;
      for (i = 0; i < q->n; i++) sqset[q->v[i]] = 1;
    }
  }
  if (c->in_err) {
    cmd_err(c, "read error: %s", cmd_strerror(c->in_err));
    return 1;
  }
  {
    const uint8_t *d = c->in ? c->in : (const uint8_t *)"";
    size_t n = c->in_len;
    int last = -1;
    c->in_used = c->in_len;
    c->in_eof = 1;
    buf *o = c->out;
    if ((rc = buf_reserve(o, n)) < 0) return rc;
    for (i = 0; i < n; i++) {
      int x = d[i];
      if (delset[x]) continue;
      x = map[x];
      if (sqset[x] && x == last) continue;
      last = x;
      buf_putc(o, x);
    }
    if (o->err) return o->err;
  }
  return 0;
}
