/* grep.c - print lines that match patterns (GNU grep 3.8; egrep, fgrep).
 *
 * Patterns come from the first operand, -e and -f, each split at newlines.
 * They are compiled once with the shared regex engine: several patterns are
 * joined into one alternation (so a line is scanned once) unless one of
 * them holds a back-reference, whose numbering a join would break; fixed
 * strings (-F) are escaped into an ERE. -x needs the leftmost-longest match
 * to cover the line; -w retries shorter and later matches until one sits
 * between non-word characters, as GNU does. Files are read whole, so
 * before-context is just a walk back over line starts.
 *
 * Binary files: a file holding a NUL byte (outside -z) is binary; its first
 * selected line prints "grep: NAME: binary file matches" (on stderr, as
 * grep 3.8 does) and ends the file; NULs end lines there, as GNU turns
 * them into newlines (so -c counts "a\0b\n" as two). As GNU judges each
 * 96 KiB read, lines ending before the read holding the first NUL are
 * text and print as such; with -I such a file still counts as without a
 * match once the search reaches that read. Recursion (-r, -R) visits
 * entries in bytewise order, where GNU uses directory order. --color=always and -T are refused.
 *
 * Usage: grep [OPTION]... PATTERNS [FILE]... */
#include <string.h>

#include "../cold.h"
#include "../glob.h"
#include "../regex.h"
#include "cmd.h"

/* GNU grep's read size (INITIAL_BUFSIZE): binary files are judged per
 * read of this many bytes. */
#define GREP_BUFSIZE ((size_t)98304)

static const char grep_usage[] MSB_COLD =
    "Usage: grep [OPTION]... PATTERNS [FILE]...\n"
    "Search for PATTERNS in each FILE.\n"
    "Example: grep -i 'hello world' menu.h main.c\n"
    "PATTERNS can contain multiple patterns separated by newlines.\n"
    "\n"
    "Pattern selection and interpretation:\n"
    "  -E, --extended-regexp     PATTERNS are extended regular expressions\n"
    "  -F, --fixed-strings       PATTERNS are strings\n"
    "  -G, --basic-regexp        PATTERNS are basic regular expressions\n"
    "  -P, --perl-regexp         PATTERNS are Perl regular expressions\n"
    "  -e, --regexp=PATTERNS     use PATTERNS for matching\n"
    "  -f, --file=FILE           take PATTERNS from FILE\n"
    "  -i, --ignore-case         ignore case distinctions in patterns and "
    "data\n"
    "  -w, --word-regexp         match only whole words\n"
    "  -x, --line-regexp         match only whole lines\n"
    "  -z, --null-data           a data line ends in 0 byte, not newline\n"
    "\n"
    "Miscellaneous:\n"
    "  -s, --no-messages         suppress error messages\n"
    "  -v, --invert-match        select non-matching lines\n"
    "\n"
    "Output control:\n"
    "  -m, --max-count=NUM       stop after NUM selected lines\n"
    "  -b, --byte-offset         print the byte offset with output lines\n"
    "  -n, --line-number         print line number with output lines\n"
    "  -H, --with-filename       print file name with output lines\n"
    "  -h, --no-filename         suppress the file name prefix on output\n"
    "      --label=LABEL         use LABEL as the standard input file name "
    "prefix\n"
    "  -o, --only-matching       show only nonempty parts of lines that "
    "match\n"
    "  -q, --quiet, --silent     suppress all normal output\n"
    "  -r, --recursive           search directories recursively\n"
    "  -R, --dereference-recursive  likewise, but follow all symlinks\n"
    "      --include=GLOB        search only files that match GLOB\n"
    "      --exclude=GLOB        skip files that match GLOB\n"
    "      --exclude-dir=GLOB    skip directories that match GLOB\n"
    "  -L, --files-without-match  print only names of FILEs with no "
    "selected lines\n"
    "  -l, --files-with-matches  print only names of FILEs with selected "
    "lines\n"
    "  -c, --count               print only a count of selected lines per "
    "FILE\n"
    "  -Z, --null                print 0 byte after FILE name\n"
    "\n"
    "Context control:\n"
    "  -B, --before-context=NUM  print NUM lines of leading context\n"
    "  -A, --after-context=NUM   print NUM lines of trailing context\n"
    "  -C, --context=NUM         print NUM lines of output context\n"
    "  -NUM                      same as --context=NUM\n"
    "  -a, --text                equivalent to --binary-files=text\n"
    "  -I                        equivalent to "
    "--binary-files=without-match\n"
    "\n"
    "When FILE is '-', read standard input.  With no FILE, read '.' if\n"
    "recursive, '-' otherwise.  With fewer than two FILEs, assume -h.\n"
    "Exit status is 0 if any line is selected, 1 otherwise;\n"
    "if any error occurs and -q is not given, the exit status is 2.\n";

enum {
  GREP_O_COLOR = 256,
  GREP_O_LABEL,
  GREP_O_INCLUDE,
  GREP_O_EXCLUDE,
  GREP_O_EXCLUDE_DIR,
  GREP_O_BINFILES,
  GREP_O_GROUPSEP,
  GREP_O_NOGROUPSEP,
  GREP_O_IGNORED,
  GREP_O_NOICASE,
  GREP_O_EXCLUDE_FROM
};

static const cmd_opt grep_opts[] = {
    {'E', "extended-regexp", CMD_ARG_NONE, 'E'},
    {'F', "fixed-strings", CMD_ARG_NONE, 'F'},
    {'G', "basic-regexp", CMD_ARG_NONE, 'G'},
    {'P', "perl-regexp", CMD_ARG_NONE, 'P'},
    {'e', "regexp", CMD_ARG_REQ, 'e'},
    {'f', "file", CMD_ARG_REQ, 'f'},
    {'i', "ignore-case", CMD_ARG_NONE, 'i'},
    {'y', 0, CMD_ARG_NONE, 'i'},
    {0, "no-ignore-case", CMD_ARG_NONE, GREP_O_NOICASE},
    {'w', "word-regexp", CMD_ARG_NONE, 'w'},
    {'x', "line-regexp", CMD_ARG_NONE, 'x'},
    {'z', "null-data", CMD_ARG_NONE, 'z'},
    {'s', "no-messages", CMD_ARG_NONE, 's'},
    {'v', "invert-match", CMD_ARG_NONE, 'v'},
    {'V', 0, CMD_ARG_NONE, 'V'},
    {'m', "max-count", CMD_ARG_REQ, 'm'},
    {'b', "byte-offset", CMD_ARG_NONE, 'b'},
    {'n', "line-number", CMD_ARG_NONE, 'n'},
    {0, "line-buffered", CMD_ARG_NONE, GREP_O_IGNORED},
    {'H', "with-filename", CMD_ARG_NONE, 'H'},
    {'h', "no-filename", CMD_ARG_NONE, 'h'},
    {0, "label", CMD_ARG_REQ, GREP_O_LABEL},
    {'o', "only-matching", CMD_ARG_NONE, 'o'},
    {'q', "quiet", CMD_ARG_NONE, 'q'},
    {0, "silent", CMD_ARG_NONE, 'q'},
    {0, "binary-files", CMD_ARG_REQ, GREP_O_BINFILES},
    {'a', "text", CMD_ARG_NONE, 'a'},
    {'I', 0, CMD_ARG_NONE, 'I'},
    {'d', "directories", CMD_ARG_REQ, 'd'},
    {'D', "devices", CMD_ARG_REQ, 'D'},
    {'r', "recursive", CMD_ARG_NONE, 'r'},
    {'R', "dereference-recursive", CMD_ARG_NONE, 'R'},
    {0, "include", CMD_ARG_REQ, GREP_O_INCLUDE},
    {0, "exclude", CMD_ARG_REQ, GREP_O_EXCLUDE},
    {0, "exclude-from", CMD_ARG_REQ, GREP_O_EXCLUDE_FROM},
    {0, "exclude-dir", CMD_ARG_REQ, GREP_O_EXCLUDE_DIR},
    {'L', "files-without-match", CMD_ARG_NONE, 'L'},
    {'l', "files-with-matches", CMD_ARG_NONE, 'l'},
    {'c', "count", CMD_ARG_NONE, 'c'},
    {'T', "initial-tab", CMD_ARG_NONE, 'T'},
    {'Z', "null", CMD_ARG_NONE, 'Z'},
    {'B', "before-context", CMD_ARG_REQ, 'B'},
    {'A', "after-context", CMD_ARG_REQ, 'A'},
    {'C', "context", CMD_ARG_REQ, 'C'},
    {0, "color", CMD_ARG_OPT, GREP_O_COLOR},
    {0, "colour", CMD_ARG_OPT, GREP_O_COLOR},
    {'U', "binary", CMD_ARG_NONE, GREP_O_IGNORED},
    {0, "group-separator", CMD_ARG_REQ, GREP_O_GROUPSEP},
    {0, "no-group-separator", CMD_ARG_NONE, GREP_O_NOGROUPSEP},
    {0, 0, 0, 0}};

/* A glob list for --include / --exclude / --exclude-dir. */
typedef struct grep_globs {
  const char **v;
  size_t n, cap;
} grep_globs;

typedef struct grep_st {
  cmd_ctx *c;
  rx **rxs;
  size_t nrx;
  int npat;          /* number of patterns (0: nothing matches) */
  int invert, wordx, linex, count, list, listnot, only, quiet, nomsg;
  int lnum, boff, names, null, delim, text, binskip, perl;
  long before, after;
  int ctxgiven;      /* some -A/-B/-C was given, even 0: "--" separators */
  int64_t maxcount;  /* -1: unlimited */
  int recursive;     /* 0, 'r' or 'R' */
  const char *label;
  const char *groupsep;
  grep_globs inc, exc, excdir;
  int matched, error, stop;
  int early; /* the last buffer's search ended before its end (-m, -l) */
  size_t read_to; /* where the last buffer's search ended */
  int printed_any;   /* a line or separator was printed (for "--") */
  int stdin_read;    /* a "-" operand read stdin: later ones find it empty */
} grep_st;

static int grep_isword(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

/* Leftmost match of any pattern at or after start (longest at that start
 * for POSIX syntaxes). 1, 0 or a negative code. */
static int grep_exec(grep_st *st, const uint8_t *s, size_t len, size_t start,
                     unsigned ef, long *so, long *eo) {
  size_t i;
  int found = 0;
  for (i = 0; i < st->nrx; i++) {
    rx_match m;
    int r = cmd_rx_exec(st->c, st->rxs[i], s, len, start, ef, &m, 1);
    if (r < 0) return r;
    if (r == 1 && (!found || m.so < *so || (m.so == *so && m.eo > *eo))) {
      *so = m.so;
      *eo = m.eo;
      found = 1;
    }
  }
  return found;
}

/* Finds the next match honouring -w and -x. */
static int grep_find(grep_st *st, const uint8_t *s, size_t len, size_t start,
                     long *so, long *eo) {
  size_t pos = start;
  int r;
  if (st->linex) {
    if (start > 0) return 0;
    r = grep_exec(st, s, len, 0, 0, so, eo);
    if (r <= 0) return r;
    /* Perl patterns are compiled anchored (leftmost-first would not find
     * the whole-line match otherwise). */
    return *so == 0 && (size_t)*eo == len;
  }
  while (pos <= len) {
    long s0, e0;
    r = grep_exec(st, s, len, pos, 0, &s0, &e0);
    if (r <= 0) return r;
    if (!st->wordx) {
      *so = s0;
      *eo = e0;
      return 1;
    }
    for (;;) {
      int okl = s0 == 0 || !grep_isword(s[s0 - 1]);
      int okr = (size_t)e0 == len || !grep_isword(s[e0]);
      long s1, e1;
      if (okl && okr) {
        *so = s0;
        *eo = e0;
        return 1;
      }
      if (!okl || e0 <= s0) break;
      /* Try a shorter match at the same start. */
      r = grep_exec(st, s, (size_t)e0 - 1, (size_t)s0, RX_NOTEOL, &s1, &e1);
      if (r < 0) return r;
      if (r == 0 || s1 != s0) break;
      e0 = e1;
    }
    pos = (size_t)s0 + 1;
  }
  return 0;
}

/* Whether a line is selected: 1, 0 or a negative code. */
static int grep_line_selected(grep_st *st, const uint8_t *s, size_t len) {
  long so, eo;
  int r;
  if (!st->npat) return st->invert;
  r = grep_find(st, s, len, 0, &so, &eo);
  if (r < 0) return r;
  return st->invert ? !r : r;
}

static void grep_prefix(grep_st *st, const char *name, uint64_t lineno,
                        uint64_t off, int sep) {
  buf *o = st->c->out;
  if (st->names) {
    buf_puts(o, name);
    buf_putc(o, st->null ? 0 : sep);
  }
  if (st->lnum) buf_printf(o, "%llu%c", (unsigned long long)lineno, sep);
  if (st->boff) buf_printf(o, "%llu%c", (unsigned long long)off, sep);
}

static void grep_print_line(grep_st *st, const char *name, const uint8_t *d,
                            size_t so, size_t eo, uint64_t lineno, int sep) {
  grep_prefix(st, name, lineno, so, sep);
  buf_put(st->c->out, d + so, eo - so);
  buf_putc(st->c->out, st->delim);
}

/* Prints the nonempty matches of a selected line (-o). */
static int grep_print_only(grep_st *st, const char *name, const uint8_t *d,
                           size_t ls, size_t le, uint64_t lineno) {
  size_t pos = 0, len = le - ls;
  long so, eo;
  int r;
  while (pos <= len) {
    r = grep_find(st, d + ls, len, pos, &so, &eo);
    if (r < 0) return r;
    if (!r) break;
    if (eo > so) {
      grep_prefix(st, name, lineno, ls + (size_t)so, ':');
      buf_put(st->c->out, d + ls + so, (size_t)(eo - so));
      buf_putc(st->c->out, st->delim);
      pos = (size_t)eo;
    } else {
      pos = (size_t)so + 1;
    }
  }
  return 0;
}

/* Finds the end of the line starting at POS. In a binary file GNU grep
 * turns each NUL into a line end before matching, so "a\0b\n" is two lines
 * for -c, -l, -q and the like; a byte loop keeps that one pass. */
static const uint8_t *grep_eol(const uint8_t *d, size_t pos, size_t len,
                               int delim, int binary) {
  const uint8_t *p = d + pos, *e = d + len;
  if (!binary) return memchr(p, delim, len - pos);
  for (; p < e; p++)
    if (*p == '\n' || !*p) return p;
  return NULL;
}

/* Searches one buffer. Returns 0 or a negative code (limit, memory). */
static int grep_buf(grep_st *st, const char *name, const uint8_t *d,
                    size_t len) {
  cmd_ctx *c = st->c;
  size_t pos = 0, ls, le, next;
  uint64_t lineno = 0, nsel = 0;
  size_t last_out = (size_t)-1; /* line end offset of the last printed */
  uint64_t last_lineno = 0;
  long after_left = 0;
  int binary = 0, r, listing = st->count || st->list || st->listnot;
  size_t binstart = 0;
  const uint8_t *z;
  int matched0 = st->matched;
  int outlines = !listing && !st->quiet;
  if (!st->text && st->delim == '\n' && (z = memchr(d, 0, len)) != NULL) {
    binary = 1;
    /* GNU reads GREP_BUFSIZE bytes at a time and judges each read: lines
     * ending before the read that holds the first NUL are text. */
    binstart = (size_t)(z - d) / GREP_BUFSIZE * GREP_BUFSIZE;
    /* Without-match: nothing from there is selected; -c still prints its
     * count and -L its name. */
    if (st->binskip) len = binstart;
  }
  while (pos < len && !st->stop) {
    const uint8_t *q = grep_eol(d, pos, len, st->delim, binary);
    ls = pos;
    le = q ? (size_t)(q - d) : len;
    next = q ? le + 1 : len;
    lineno++;
    if ((lineno & 1023) == 0 && (r = cmd_tick_pause(c, 1)) != 0) return r;
    if (st->maxcount >= 0 && nsel >= (uint64_t)st->maxcount) {
      /* Past -m: only trailing context remains. */
      if (after_left > 0 && outlines && (!binary || le < binstart)) {
        grep_print_line(st, name, d, ls, le, lineno, '-');
        last_out = le;
        last_lineno = lineno;
        after_left--;
        pos = next;
        continue;
      }
      break;
    }
    r = grep_line_selected(st, d + ls, le - ls);
    if (r < 0) return r;
    if (r) {
      nsel++;
      st->matched = 1;
      if (st->quiet) {
        st->stop = 1;
        st->read_to = next;
        return 0;
      }
      if (st->list || st->listnot) break;
      if (binary && outlines && le >= binstart) {
        buf_printf(c->err, "%s: %s: binary file matches\n", cmd_name(c), name);
        break;
      }
      if (outlines) {
        /* Leading context. */
        size_t bstart = ls;
        uint64_t bl = lineno;
        long k = 0;
        while (k < st->before && bstart > 0) {
          size_t p = bstart - 1;
          if (last_out != (size_t)-1 && p <= last_out) break;
          while (p > 0 && d[p - 1] != st->delim) p--;
          bstart = p;
          bl--;
          k++;
        }
        if (st->ctxgiven && st->groupsep && st->printed_any &&
            (last_out == (size_t)-1 || bl != last_lineno + 1))
          buf_printf(c->out, "%s\n", st->groupsep);
        while (bstart < ls) {
          const uint8_t *e = memchr(d + bstart, st->delim, ls - bstart);
          size_t be = e ? (size_t)(e - d) : ls;
          grep_print_line(st, name, d, bstart, be, bl, '-');
          bl++;
          bstart = be + 1;
        }
        if (st->only) {
          if (!st->invert &&
              (r = grep_print_only(st, name, d, ls, le, lineno)) < 0)
            return r;
        } else {
          grep_print_line(st, name, d, ls, le, lineno, ':');
        }
        st->printed_any = 1;
        last_out = le;
        last_lineno = lineno;
        after_left = st->after;
      }
    } else if (after_left > 0 && outlines && (!binary || le < binstart)) {
      grep_print_line(st, name, d, ls, le, lineno, '-');
      last_out = le;
      last_lineno = lineno;
      after_left--;
    }
    pos = next;
  }
  if (st->binskip && binary && pos >= len && !st->stop) {
    /* GNU reached the binary read: the file counts as without a match,
     * whatever it printed before */
    nsel = 0;
    st->matched = matched0;
  }
  st->read_to = pos;
  st->early = pos < len || (st->maxcount >= 0 &&
                            nsel >= (uint64_t)st->maxcount && after_left <= 0);
  if (st->count) {
    if (st->names) {
      buf_puts(c->out, name);
      buf_putc(c->out, st->null ? 0 : ':');
    }
    buf_printf(c->out, "%llu\n", (unsigned long long)nsel);
  }
  if ((st->list && nsel) || (st->listnot && !nsel)) {
    buf_puts(c->out, name);
    buf_putc(c->out, st->null ? 0 : '\n');
  }
  return c->out->err;
}

static int grep_glob_add(cmd_ctx *c, grep_globs *g, const char *s) {
  if (g->n == g->cap) {
    const char **nv = cmd_grow(c, g->v, g->n, &g->cap, sizeof *nv, 8);
    if (!nv) return MSB_ENOMEM;
    g->v = nv;
  }
  g->v[g->n++] = s;
  return 0;
}

static int grep_glob_any(cmd_ctx *c, const grep_globs *g, const char *name) {
  size_t i;
  for (i = 0; i < g->n; i++)
    if (glob_match(c->m, g->v[i], strlen(g->v[i]), name, strlen(name), 0,
                   NULL) == 1)
      return 1;
  return 0;
}

/* Whether a file passes --include / --exclude (name: its last part). */
static int grep_file_ok(grep_st *st, const char *name) {
  if (st->exc.n && grep_glob_any(st->c, &st->exc, name)) return 0;
  if (st->inc.n && !grep_glob_any(st->c, &st->inc, name)) return 0;
  return 1;
}

static void grep_file_err(grep_st *st, const char *name, int rc) {
  st->error = 1;
  if (!st->nomsg) cmd_err(st->c, "%s: %s", name, cmd_strerror(rc));
}

/* Searches one operand (file, "-", or a directory when recursive). */
static int grep_operand(grep_st *st, const char *op, int implicit) {
  cmd_ctx *c = st->c;
  const uint8_t *d;
  size_t len;
  int rc;
  if (!strcmp(op, "-") && !implicit) {
    const char *nm = st->label ? st->label : "(standard input)";
    if (c->in_err) { /* `grep x < dir` */
      grep_file_err(st, nm, c->in_err);
      return st->count && c->in_err == MSB_EISDIR
                 ? grep_buf(st, nm, (const uint8_t *)"", 0)
                 : 0;
    }
    if (st->stdin_read) return grep_buf(st, nm, (const uint8_t *)"", 0);
    st->stdin_read = 1;
    c->in_used = c->in_len;
    c->in_eof = 1;
    st->early = 0;
    rc = grep_buf(st, nm, c->in ? c->in : (const uint8_t *)"", c->in_len);
    /* -m, -q and -l stop reading once they know the answer */
    if (st->stop || st->early) {
      c->in_eof = 0;
      c->in_stop = st->read_to;
    }
    return rc;
  }
  rc = cmd_input(c, op, &d, &len);
  if (rc == MSB_EISDIR && st->recursive) {
    cmd_walk *w;
    cmd_walk_ent *e;
    rc = cmd_walk_open(
        c, op, st->recursive == 'R' ? CMD_WALK_FOLLOW : CMD_WALK_FOLLOW_ROOT,
        &w);
    if (rc < 0) return rc;
    while (!st->stop && (rc = cmd_walk_next(w, &e)) == 1) {
      const char *shown = e->path;
      if (implicit && !strncmp(shown, "./", 2)) shown += 2;
      if (e->err) {
        grep_file_err(st, shown, e->err);
        continue;
      }
      if (e->st.kind == VFS_DIR) {
        if (e->depth > 0 && st->excdir.n &&
            grep_glob_any(c, &st->excdir, e->name))
          cmd_walk_prune(w);
        continue;
      }
      if (e->st.kind != VFS_FILE) continue;
      if (!grep_file_ok(st, e->name)) continue;
      rc = vfs_read(c->fs, e->abs, &d, &len);
      if (rc < 0) {
        grep_file_err(st, shown, rc);
        continue;
      }
      if ((rc = grep_buf(st, shown, d, len)) < 0) break;
    }
    cmd_walk_close(w);
    return rc < 0 ? rc : 0;
  }
  if (!implicit && !grep_file_ok(st, cmd_base_name(c, op))) return 0;
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    grep_file_err(st, op, rc);
    return 0;
  }
  return grep_buf(st, op, d, len);
}

/* Appends pattern text (split at newlines later) to the pattern list. */
static int grep_addpat(buf *pats, int *npat, const char *s, size_t n) {
  if (*npat) buf_putc(pats, '\n');
  (*npat)++;
  return buf_put(pats, s, n);
}

/* Whether a -f file holds at least one byte (a lone newline is one empty
 * pattern; an empty file is none). */
static int grep_nonempty(cmd_ctx *c, const char *name) {
  const uint8_t *d;
  size_t len;
  return cmd_input(c, name, &d, &len) == 0 && len > 0;
}

static int grep_has_backref(const char *p, size_t n) {
  size_t i;
  for (i = 0; i + 1 < n; i++)
    if (p[i] == '\\') {
      if (p[i + 1] >= '1' && p[i + 1] <= '9') return 1;
      i++;
    }
  return 0;
}

/* Prints what rx_compile left in em: warning lines, then the error. */
static void grep_rx_msgs(cmd_ctx *c, buf *em) {
  const char *e = buf_str(em), *nl;
  while (*e) {
    nl = strchr(e, '\n');
    cmd_err(c, "%.*s", nl ? (int)(nl - e) : (int)strlen(e), e);
    if (!nl) break;
    e = nl + 1;
  }
}

/* Compiles the pattern list; 0, 2 (error printed) or a negative code. */
static int grep_compile(grep_st *st, const char *pats, size_t plen, int mode,
                        int icase) {
  cmd_ctx *c = st->c;
  unsigned fl = (mode == 'E' || mode == 'F') ? RX_ERE
                : mode == 'P'                ? RX_PERL
                                             : RX_BRE;
  const char *p = pats, *end = pats + plen;
  buf joined, em;
  size_t n = 0, i;
  int backref = 0, rc = 0;
  const char *alt = fl == RX_BRE ? "\\|" : "|";
  if (icase) fl |= RX_ICASE;
  if (mode != 'P') fl |= RX_GREP;
  /* Count patterns. */
  for (i = 0; i < plen; i++)
    if (pats[i] == '\n') n++;
  n++;
  st->npat = (int)n;
  st->rxs = arena_alloc(c->a, n * sizeof *st->rxs);
  if (!st->rxs) return MSB_ENOMEM;
  buf_init(&joined, c->m);
  buf_init(&em, c->m);
  if (mode != 'F') backref = grep_has_backref(pats, plen);
  if (!backref) fl |= RX_NOSUB;
  while (p <= end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    buf one;
    buf_init(&one, c->m);
    if (mode == 'F') {
      for (i = 0; i < len; i++) {
        if (strchr(".[]()*+?{}|^$\\", p[i]) && p[i]) buf_putc(&one, '\\');
        buf_putc(&one, p[i]);
      }
    } else {
      buf_put(&one, p, len);
    }
    if (mode == 'P' && st->linex) {
      buf tmp;
      buf_init(&tmp, c->m);
      buf_puts(&tmp, "^(?:");
      buf_put(&tmp, one.p ? one.p : "", one.len);
      buf_puts(&tmp, ")$");
      buf_finish(&one);
      one = tmp;
    }
    if (one.err) {
      buf_finish(&one);
      rc = MSB_ENOMEM;
      break;
    }
    if (backref || mode == 'P' || n == 1) {
      rx *r;
      buf_clear(&em);
      rc = rx_compile(c->m, one.p ? one.p : "", one.len, fl, &r, &em);
      grep_rx_msgs(c, &em);
      if (rc < 0) {
        buf_finish(&one);
        if (rc == MSB_EINVAL) rc = 2;
        break;
      }
      st->rxs[st->nrx++] = r;
    } else {
      if (joined.len || p != pats) buf_puts(&joined, alt);
      if (fl & RX_ERE || mode == 'F')
        buf_putc(&joined, '(');
      else
        buf_puts(&joined, "\\(");
      buf_put(&joined, one.p ? one.p : "", one.len);
      if (fl & RX_ERE || mode == 'F')
        buf_putc(&joined, ')');
      else
        buf_puts(&joined, "\\)");
      /* Validate alone so errors read as GNU's. */
      if (mode != 'F') {
        rx *r;
        buf_clear(&em);
        rc = rx_compile(c->m, one.p ? one.p : "", one.len, fl | RX_NOSUB, &r,
                        &em);
        grep_rx_msgs(c, &em);
        if (rc < 0) {
          buf_finish(&one);
          if (rc == MSB_EINVAL) rc = 2;
          break;
        }
        rx_free(r);
      }
    }
    buf_finish(&one);
    if (!nl) break;
    p = nl + 1;
  }
  if (!rc && joined.len) {
    rx *r;
    buf_clear(&em);
    if (joined.err) {
      rc = MSB_ENOMEM;
    } else {
      rc = rx_compile(c->m, joined.p, joined.len, fl, &r, &em);
      if (rc == MSB_EINVAL) {
        /* Each piece compiled alone; skip the warnings seen then. */
        const char *e = buf_str(&em), *nl;
        while ((nl = strchr(e, '\n')) != NULL) e = nl + 1;
        cmd_err(c, "%s", e);
        rc = 2;
      } else if (rc == 0) {
        st->rxs[st->nrx++] = r;
      }
    }
  }
  buf_finish(&joined);
  buf_finish(&em);
  return rc;
}

static int grep_context_arg(cmd_ctx *c, const char *s, long *out) {
  int64_t v;
  int rc = cmd_parse_int(s, &v);
  if (rc == CMD_NUM_RANGE && *s != '-') {
    *out = 0x7fffffffL;
    return 0;
  }
  if (rc || v < 0) {
    cmd_err(c, "%s: invalid context length argument", s);
    return 2;
  }
  *out = v > 0x7fffffffL ? 0x7fffffffL : (long)v;
  return 0;
}

/* GNU grep puts its usage line between a getopt diagnostic and the "Try"
 * line; the shared parser printed both lines after err[mark..). */
static void grep_usage_line(cmd_ctx *c, size_t mark) {
  buf *e = c->err;
  const char *nm = cmd_name(c);
  char *p = e->p ? e->p + mark : NULL;
  char *nl = p ? memchr(p, '\n', e->len - mark) : NULL;
  size_t cut, tl;
  char *tail;
  if (!nl) return;
  cut = (size_t)(nl + 1 - e->p);
  tl = e->len - cut;
  tail = arena_strndup(c->a, e->p + cut, tl);
  if (!tail) return;
  buf_truncate(e, cut);
  buf_printf(e, "Usage: %s [OPTION]... PATTERNS [FILE]...\n", nm);
  buf_put(e, tail, tl);
}

static void grep_free(grep_st *st) {
  size_t i;
  for (i = 0; i < st->nrx; i++) rx_free(st->rxs[i]);
  st->nrx = 0;
}

/* Entry point: see the usage above. */
int cmd_grep(cmd_ctx *c) {
  cmd_getopt g;
  grep_st st;
  buf pats;
  int have = 0, npat = 0, opt, rc, mode = 'G', icase = 0, i, withname = -1;
  long ctxa = -1, ctxb = -1, ctxc = -1;
  const char *nm = cmd_name(c);
  char **ops;
  int nops;
  memset(&st, 0, sizeof st);
  st.c = c;
  st.maxcount = -1;
  st.delim = '\n';
  st.groupsep = "--";
  if (!strcmp(nm, "egrep")) mode = 'E';
  if (!strcmp(nm, "fgrep")) mode = 'F';
  buf_init(&pats, c->m);
  cmd_opt_init(&g, c, grep_opts, grep_usage, CMD_OPTF_NUMERIC);
  g.status = 2;
  for (;;) {
    size_t mark = c->err->len;
    if ((opt = cmd_opt_next(&g)) == CMD_OPT_END) break;
    switch (opt) {
    case CMD_OPT_ERR:
      grep_usage_line(c, mark);
      /* fall through */
    case CMD_OPT_EXIT: buf_finish(&pats); return opt == CMD_OPT_EXIT ? 0 : 2;
    case CMD_OPT_NUM:
      if ((rc = grep_context_arg(c, g.arg, &ctxc)) != 0) {
        buf_finish(&pats);
        return rc;
      }
      break;
    case 'E':
    case 'F':
    case 'G':
    case 'P': mode = opt; break;
    case 'e':
      have = 1;
      grep_addpat(&pats, &npat, g.arg, strlen(g.arg));
      break;
    case 'f': {
      const uint8_t *d;
      size_t len;
      rc = cmd_input(c, g.arg, &d, &len);
      if (rc < 0) {
        cmd_err(c, "%s: %s", g.arg, cmd_strerror(rc));
        buf_finish(&pats);
        return 2;
      }
      have = 1;
      if (len && d[len - 1] == '\n') len--;
      if (len || grep_nonempty(c, g.arg))
        grep_addpat(&pats, &npat, (const char *)d, len);
      break;
    }
    case 'i': icase = 1; break;
    case GREP_O_NOICASE: icase = 0; break;
    case 'w': st.wordx = 1; break;
    case 'x': st.linex = 1; break;
    case 'z': st.delim = 0; break;
    case 's': st.nomsg = 1; break;
    case 'v': st.invert = 1; break;
    case 'V':
      buf_printf(c->out, "%s (memsandbox) %s\n", nm, MSB_VERSION);
      buf_finish(&pats);
      return 0;
    case 'm': {
      int64_t v;
      rc = cmd_parse_int(g.arg, &v);
      if (rc == CMD_NUM_RANGE && g.arg[0] != '-') v = INT64_MAX, rc = 0;
      if (rc) {
        cmd_err(c, "invalid max count");
        buf_finish(&pats);
        return 2;
      }
      st.maxcount = v < 0 ? -1 : v;
      break;
    }
    case 'b': st.boff = 1; break;
    case 'n': st.lnum = 1; break;
    case 'H': withname = 1; break;
    case 'h': withname = 0; break;
    case GREP_O_LABEL: st.label = g.arg; break;
    case 'o': st.only = 1; break;
    case 'q': st.quiet = 1; break;
    case GREP_O_BINFILES:
      if (!strcmp(g.arg, "text")) {
        st.text = 1;
        st.binskip = 0;
      } else if (!strcmp(g.arg, "without-match")) {
        st.binskip = 1;
        st.text = 0;
      } else if (!strcmp(g.arg, "binary")) {
        st.text = st.binskip = 0;
      } else {
        cmd_err(c, "unknown binary-files type");
        buf_finish(&pats);
        return 2;
      }
      break;
    case 'a': st.text = 1; break;
    case 'I': st.binskip = 1; break;
    case 'd':
      if (!strcmp(g.arg, "recurse")) {
        st.recursive = 'r';
      } else if (strcmp(g.arg, "read") && strcmp(g.arg, "skip")) {
        cmd_err(c, "invalid argument %s for %s", cmd_quote(c, g.arg),
                cmd_quote(c, "--directories"));
        buf_puts(c->err,
                 "Valid arguments are:\n  - 'read'\n"
                 "  - 'recurse'\n  - 'skip'\n");
        buf_printf(c->err,
                   "Usage: %s [OPTION]... PATTERNS [FILE]...\n"
                   "Try '%s --help' for more information.\n",
                   nm, nm);
        buf_finish(&pats);
        return 1; /* argmatch's failure status, not grep's 2 */
      }
      break;
    case 'D': break;
    case 'r': st.recursive = 'r'; break;
    case 'R': st.recursive = 'R'; break;
    case GREP_O_INCLUDE: grep_glob_add(c, &st.inc, g.arg); break;
    case GREP_O_EXCLUDE: grep_glob_add(c, &st.exc, g.arg); break;
    case GREP_O_EXCLUDE_DIR: grep_glob_add(c, &st.excdir, g.arg); break;
    case GREP_O_EXCLUDE_FROM:
      cmd_err(c, "--exclude-from is not supported in memsandbox");
      buf_finish(&pats);
      return 2;
    case 'L':
      st.listnot = 1;
      st.list = 0;
      break;
    case 'l':
      st.list = 1;
      st.listnot = 0;
      break;
    case 'c': st.count = 1; break;
    case 'T':
      cmd_err(c, "-T (--initial-tab) is not supported in memsandbox");
      buf_finish(&pats);
      return 2;
    case 'Z': st.null = 1; break;
    case 'A':
    case 'B':
    case 'C':
      if ((rc = grep_context_arg(c, g.arg,
                                 opt == 'A'   ? &ctxa
                                 : opt == 'B' ? &ctxb
                                              : &ctxc)) != 0) {
        buf_finish(&pats);
        return rc;
      }
      break;
    case GREP_O_COLOR:
      if (g.arg && strcmp(g.arg, "never") && strcmp(g.arg, "auto") &&
          strcmp(g.arg, "none") && strcmp(g.arg, "no") &&
          strcmp(g.arg, "tty") && strcmp(g.arg, "if-tty")) {
        if (!strcmp(g.arg, "always") || !strcmp(g.arg, "yes") ||
            !strcmp(g.arg, "force"))
          cmd_err(c, "--color=always is not supported in memsandbox");
        else {
          /* GNU grep answers an unknown WHEN with its --help text. */
          buf_finish(&pats);
          buf_puts(c->out, cold_get(grep_usage));
          return 0;
        }
        buf_finish(&pats);
        return 2;
      }
      break;
    case GREP_O_GROUPSEP: st.groupsep = g.arg; break;
    case GREP_O_NOGROUPSEP: st.groupsep = NULL; break;
    case GREP_O_IGNORED: break;
    default:
      if (opt < 0) {
        buf_finish(&pats);
        return 2;
      }
      break;
    }
  }
  ops = g.ops;
  nops = g.nops;
  if (!have) {
    if (nops < 1) {
      buf_printf(c->err,
                 "Usage: %s [OPTION]... PATTERNS [FILE]...\n"
                 "Try '%s --help' for more information.\n",
                 nm, nm);
      buf_finish(&pats);
      return 2;
    }
    grep_addpat(&pats, &npat, ops[0], strlen(ops[0]));
    ops++;
    nops--;
  }
  /* GNU: -q overrides -l and -L, which override -c and context */
  if (st.quiet) st.list = st.listnot = 0;
  if (st.quiet || st.list || st.listnot) {
    st.count = 0;
    ctxa = ctxb = ctxc = -1;
  }
  /* Nothing can match (-m 0, or no pattern without -v): GNU exits at
   * once, reading nothing, unless -L must list the files. */
  if ((st.maxcount == 0 || (have && !npat && !st.invert)) && !st.listnot) {
    buf_finish(&pats);
    return 1;
  }
  st.ctxgiven = ctxa >= 0 || ctxb >= 0 || ctxc >= 0;
  st.after = ctxa >= 0 ? ctxa : ctxc >= 0 ? ctxc : 0;
  st.before = ctxb >= 0 ? ctxb : ctxc >= 0 ? ctxc : 0;
  st.perl = mode == 'P';
  if (pats.err) {
    buf_finish(&pats);
    return MSB_ENOMEM;
  }
  rc =
      npat ? grep_compile(&st, pats.p ? pats.p : "", pats.len, mode, icase) : 0;
  buf_finish(&pats);
  if (rc != 0) {
    grep_free(&st);
    if (rc == 2) c->fail = CMD_FAIL_USAGE; /* a bad pattern is an argument */
    return rc;
  }
  if (withname >= 0)
    st.names = withname;
  else
    st.names = nops > 1 || (st.recursive && nops == 0);
  if (st.recursive && nops == 1 && withname < 0) {
    const uint8_t *d;
    size_t len;
    st.names = cmd_input(c, ops[0], &d, &len) == MSB_EISDIR;
  }
  rc = 0;
  if (nops == 0)
    rc = grep_operand(&st, st.recursive ? "." : "-", st.recursive != 0);
  for (i = 0; i < nops && rc >= 0 && !st.stop; i++)
    rc = grep_operand(&st, ops[i], 0);
  grep_free(&st);
  if (rc < 0) return rc;
  if (st.quiet && st.matched) return 0;
  if (st.error) return 2;
  if (!st.matched) c->fail = CMD_FAIL_NO_MATCH;
  return st.matched ? 0 : 1;
}
