/* csplit.c - split a file into sections determined by context lines (GNU
 * coreutils 9).
 *
 * Patterns: N (split before line N), /REGEX/[OFFSET] (before the matching
 * line, moved by OFFSET), %REGEX%[OFFSET] (skip to it, no file), each
 * optionally followed by {N} or {*} to repeat it. A search starts at the
 * first line of the current section, or one line later when the section
 * was begun by a regex, as GNU's does. Each section is written as
 * PREFIX + suffix (xx00, xx01 ...; -f, -n, -b) and its size printed
 * unless -s; -z leaves out empty sections. On an error the files made so
 * far are removed unless -k.
 *
 * Usage: csplit [OPTION]... FILE PATTERN... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "../regex.h"
#include "cmd.h"

static const char csplit_usage[] MSB_COLD =
    "Usage: csplit [OPTION]... FILE PATTERN...\n"
    "Output pieces of FILE separated by PATTERN(s) to files 'xx00', "
    "'xx01', ...,\n"
    "and output byte counts of each piece to standard output.\n"
    "\n"
    "Read standard input if FILE is -\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -b, --suffix-format=FORMAT  use sprintf FORMAT instead of %02d\n"
    "  -f, --prefix=PREFIX        use PREFIX instead of 'xx'\n"
    "  -k, --keep-files           do not remove output files on errors\n"
    "      --suppress-matched     suppress the lines matching PATTERN\n"
    "  -n, --digits=DIGITS        use specified number of digits instead of "
    "2\n"
    "  -s, --quiet, --silent      do not print counts of output file sizes\n"
    "  -z, --elide-empty-files    suppress empty output files\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { CSPLIT_SUPPRESS = 256 };

static const cmd_opt csplit_opts[] = {
    {'b', "suffix-format", CMD_ARG_REQ, 'b'},
    {'f', "prefix", CMD_ARG_REQ, 'f'},
    {'k', "keep-files", CMD_ARG_NONE, 'k'},
    {0, "suppress-matched", CMD_ARG_NONE, CSPLIT_SUPPRESS},
    {'n', "digits", CMD_ARG_REQ, 'n'},
    {'s', "quiet", CMD_ARG_NONE, 's'},
    {0, "silent", CMD_ARG_NONE, 's'},
    {'z', "elide-empty-files", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

typedef struct csplit_pat {
  const char *text; /* as given, for messages */
  int kind;         /* 'n', '/' or '%' */
  long num;         /* line number, or regex offset */
  long repeat;      /* extra times; -1 for {*} */
  rx *re;
} csplit_pat;

typedef struct csplit_st {
  cmd_ctx *c;
  const uint8_t *d;
  size_t *off; /* start of each line, plus the end */
  long nlines;
  long cur;     /* first line of the current section */
  int after_re; /* the current section was begun by a regex */
  const char *prefix, *sfmt;
  int digits, quiet, elide, keep, nfiles;
  const char **made;
} csplit_st;

/* Writes lines [from, to) as the next file. 0 or a negative code. */
static int csplit_emit(csplit_st *s, long from, long to) {
  cmd_ctx *c = s->c;
  char sfx[64];
  size_t a = s->off[from], b = s->off[to];
  const char *name, *abs;
  int rc;
  if (s->elide && a == b) return 0;
  if (s->sfmt)
    snprintf(sfx, sizeof sfx, s->sfmt, s->nfiles);
  else
    snprintf(sfx, sizeof sfx, "%0*d", s->digits, s->nfiles);
  {
    size_t pl = strlen(s->prefix);
    char *n = arena_alloc(c->a, pl + strlen(sfx) + 1);
    if (!n) return MSB_ENOMEM;
    memcpy(n, s->prefix, pl);
    strcpy(n + pl, sfx);
    name = n;
  }
  if (!(abs = cmd_path(c, name))) return MSB_ENOMEM;
  rc = vfs_write(c->fs, abs, s->d + a, b - a, 0, CMD_NEWFILE(c), NULL);
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  if (rc) {
    cmd_err(c, "%s: %s", cmd_quotef(c, name), cmd_strerror(rc));
    return 1;
  }
  s->made[s->nfiles++] = abs;
  if (!s->quiet) buf_printf(c->out, "%llu\n", (unsigned long long)(b - a));
  return cmd_charge_bytes(c, b - a);
}

/* The first line at or after from matching re, or -1. */
static long csplit_search(csplit_st *s, rx *re, long from, int *rc) {
  long i;
  for (i = from; i < s->nlines; i++) {
    size_t a = s->off[i], b = s->off[i + 1];
    int m;
    if (b > a && s->d[b - 1] == '\n') b--;
    m = cmd_rx_exec(s->c, re, s->d + a, b - a, 0, 0, NULL, 0);
    if (m < 0 && m != MSB_EINVAL) {
      *rc = m;
      return -1;
    }
    if (m > 0) return i;
  }
  return -1;
}

/* Runs one pattern with its repetitions. 0, 1 (reported) or a code. */
static int csplit_apply(csplit_st *s, const csplit_pat *p) {
  long k;
  int rc = 0;
  for (k = 0; p->repeat < 0 || k <= p->repeat; k++) {
    long at;
    if (p->kind == 'n') {
      at = p->num * (k + 1) - 1;
      if (at >= s->nlines) {
        if ((rc = csplit_emit(s, s->cur, s->nlines))) return rc;
        if (k)
          cmd_err(s->c, "%s: line number out of range on repetition %ld",
                  cmd_quote(s->c, p->text), k);
        else
          cmd_err(s->c, "%s: line number out of range",
                  cmd_quote(s->c, p->text));
        return 1;
      }
      if ((rc = csplit_emit(s, s->cur, at))) return rc;
      s->cur = at;
      s->after_re = 0;
      continue;
    }
    at = csplit_search(s, p->re, s->cur + s->after_re, &rc);
    if (rc) return rc;
    if (at >= 0) at += p->num;
    if (at < 0 || at > s->nlines || at < s->cur) {
      if (p->repeat < 0) return 0;
      if (p->kind == '/' && (rc = csplit_emit(s, s->cur, s->nlines))) return rc;
      if (k)
        cmd_err(s->c, "%s: match not found on repetition %ld",
                cmd_quote(s->c, p->text), k);
      else
        cmd_err(s->c, "%s: match not found", cmd_quote(s->c, p->text));
      return 1;
    }
    if (p->kind == '/' && (rc = csplit_emit(s, s->cur, at))) return rc;
    s->cur = at;
    s->after_re = 1;
  }
  return 0;
}

/* Parses the patterns; 0 or an error status after the message. */
static int csplit_parse(cmd_getopt *g, char **ops, int n, csplit_pat *pats,
                        int *np) {
  cmd_ctx *c = g->c;
  long last = 0;
  int i;
  *np = 0;
  for (i = 0; i < n; i++) {
    const char *t = ops[i];
    csplit_pat *p = &pats[*np];
    char *end;
    if (t[0] == '{') {
      long r = strtol(t + 1, &end, 10);
      if (!*np) return cmd_usage_err(g, "%s: invalid pattern", cmd_quote(c, t));
      if (!strcmp(t, "{*}"))
        r = -1;
      else if (end == t + 1 || strcmp(end, "}") || r < 0) {
        cmd_err(c, "%s: invalid repeat count", cmd_quote(c, t));
        return 1;
      }
      pats[*np - 1].repeat = r;
      continue;
    }
    memset(p, 0, sizeof *p);
    p->text = t;
    if (t[0] == '/' || t[0] == '%') {
      const char *close = strrchr(t + 1, t[0]);
      buf em;
      int rc;
      if (!close) {
        cmd_err(c, "%s: closing delimiter '%c' missing", t, t[0]);
        return 1;
      }
      p->kind = t[0];
      if (close[1]) {
        p->num = strtol(close + 1, &end, 10);
        if (*end) {
          cmd_err(c, "%s: integer expected after delimiter", cmd_quote(c, t));
          return 1;
        }
      }
      buf_init(&em, c->m);
      rc = rx_compile(c->m, t + 1, (size_t)(close - t - 1), RX_BRE | RX_NOSUB,
                      &p->re, &em);
      if (rc) {
        if (rc == MSB_EINVAL)
          cmd_err(c, "%s: invalid regular expression: %s", cmd_quote(c, t),
                  buf_str(&em));
        buf_finish(&em);
        return rc == MSB_EINVAL ? 1 : rc;
      }
      buf_finish(&em);
    } else {
      p->kind = 'n';
      p->num = strtol(t, &end, 10);
      if (end == t || *end || p->num <= 0) {
        cmd_err(c, "%s: invalid pattern", cmd_quote(c, t));
        return 1;
      }
      if (p->num < last) {
        cmd_err(c, "line number %s is smaller than preceding line number, %ld",
                cmd_quote(c, t), last);
        return 1;
      }
      if (p->num == last)
        cmd_err(c,
                "warning: line number %s is the same as preceding line "
                "number",
                cmd_quote(c, t));
      last = p->num;
    }
    (*np)++;
  }
  return 0;
}

/* Line start offsets of d (arena). */
static int csplit_lines(csplit_st *s, size_t len) {
  size_t i, n = 0;
  for (i = 0; i < len; i++) n += s->d[i] == '\n';
  s->off = arena_alloc(s->c->a, sizeof *s->off * (n + 3));
  if (!s->off) return MSB_ENOMEM;
  s->nlines = 0;
  s->off[0] = 0;
  for (i = 0; i < len; i++)
    if (s->d[i] == '\n') s->off[++s->nlines] = i + 1;
  if (!len || s->d[len - 1] != '\n') s->off[++s->nlines] = len;
  if (!len) s->nlines = 0;
  return 0;
}

/* A -b format: one integer conversion and nothing else with '%'. */
static int csplit_fmt_ok(const char *f) {
  int convs = 0;
  for (; *f; f++) {
    if (*f != '%') continue;
    if (f[1] == '%') {
      f++;
      continue;
    }
    f++;
    while (*f && strchr("-+ #0'", *f)) f++;
    while (*f >= '0' && *f <= '9') f++;
    if (!*f || !strchr("diouxX", *f)) return 0;
    convs++;
  }
  return convs == 1;
}

/* Entry point: see the usage above. */
int cmd_csplit(cmd_ctx *c) {
  cmd_getopt g;
  csplit_st s;
  csplit_pat *pats;
  size_t len;
  int k, i, np, rc = 0;
  int64_t v;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.prefix = "xx";
  s.digits = 2;
  cmd_opt_init(&g, c, csplit_opts, csplit_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'b') s.sfmt = g.arg;
    if (k == 'f') s.prefix = g.arg;
    if (k == 'k') s.keep = 1;
    if (k == 's') s.quiet = 1;
    if (k == 'z') s.elide = 1;
    if (k == 'n') {
      if (cmd_parse_int(g.arg, &v) || v < 0 || v > 20) {
        cmd_err(c, "invalid number: %s", cmd_quote(c, g.arg));
        return 1;
      }
      s.digits = (int)v;
    }
    if (k == CSPLIT_SUPPRESS) {
      cmd_err(c, "--suppress-matched is not supported in memsandbox");
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (s.sfmt && !csplit_fmt_ok(s.sfmt)) {
    cmd_err(c, "invalid conversion specifier in suffix: %s", s.sfmt);
    return 1;
  }
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (g.nops < 2)
    return cmd_usage_err(&g, "missing operand after %s",
                         cmd_quote(c, g.ops[0]));
  pats = arena_zalloc(c->a, sizeof *pats * (size_t)g.nops);
  s.made = arena_zalloc(c->a, sizeof *s.made * 2 * ((size_t)g.nops + 1));
  if (!pats || !s.made) return MSB_ENOMEM;
  if ((rc = csplit_parse(&g, g.ops + 1, g.nops - 1, pats, &np))) goto done;
  if ((rc = cmd_input(c, g.ops[0], &s.d, &len))) {
    if (rc != MSB_ENOMEM) {
      cmd_err(c, "cannot open %s for reading: %s", cmd_quote(c, g.ops[0]),
              cmd_strerror(rc));
      rc = 1;
    }
    goto done;
  }
  if ((rc = csplit_lines(&s, len))) goto done;
  for (i = 0; i < np && !rc; i++) {
    /* every repetition may make a file: grow the list as needed */
    long extra = pats[i].repeat < 0 ? s.nlines + 1 : pats[i].repeat;
    const char **nm =
        arena_alloc(c->a, sizeof *nm * ((size_t)s.nfiles + (size_t)extra + 4));
    if (!nm) {
      rc = MSB_ENOMEM;
      break;
    }
    memcpy(nm, s.made, sizeof *nm * (size_t)s.nfiles);
    s.made = nm;
    rc = csplit_apply(&s, &pats[i]);
  }
  if (!rc) rc = csplit_emit(&s, s.cur, s.nlines);
  if (rc > 0 && !s.keep)
    for (i = 0; i < s.nfiles; i++) vfs_remove(c->fs, s.made[i], 0);
done:
  for (i = 0; i < g.nops; i++)
    if (pats[i].re) rx_free(pats[i].re);
  return rc;
}
