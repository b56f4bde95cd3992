/* rg.c - recursively search for a regex pattern (ripgrep 13).
 *
 * Prints what ripgrep prints when its output is not a terminal: no
 * heading, no colour, no line numbers unless -n, file names when a
 * directory or several paths are searched ("PATH:LINE"). Directories are
 * walked in path order (as --sort path), skipping hidden entries, symlinks
 * (unless -L), binary files (a NUL byte), and what .gitignore (inside a
 * git repository: a .git in the directory or above), .ignore and .rgignore
 * files in the searched directories and their parents exclude, with
 * ripgrep's precedence: -g globs, then .rgignore, .ignore, .gitignore (the
 * deepest file deciding), then -t/-T types, then hiddenness.
 *
 * Patterns use the shared engine's Perl syntax, which is leftmost-first
 * like Rust's regex crate; several patterns (-e, -f) join into one
 * alternation. With no path, stdin is searched when it carries data (a
 * pipe or a redirection), else the working directory.
 *
 * Deviations: matching is on bytes (Rust's regex is Unicode-aware, so `.`
 * against a multi-byte character and \w on letters beyond ASCII differ);
 * regex errors keep ripgrep's frame but our wording and no caret line;
 * binary detection looks at the whole file where ripgrep looks per 64 KiB
 * buffer; .git/info/exclude and global gitignores are not read. --json,
 * -U/--multiline, -P/--pcre2, --sortr, --type-add, -p/--pretty and
 * --color=always are refused.
 *
 * Usage: rg [OPTIONS] PATTERN [PATH ...]
 *        rg [OPTIONS] -e PATTERN ... [PATH ...]
 *        rg [OPTIONS] --files [PATH ...]
 *        rg [OPTIONS] --type-list */
#include <string.h>

#include "../cold.h"
#include "../glob.h"
#include "../regex.h"
#include "cmd.h"
#include "rg_types.h"

static const char rg_usage[] MSB_COLD =
    "ripgrep 13.0.0\n"
    "\n"
    "USAGE:\n"
    "    rg [OPTIONS] PATTERN [PATH ...]\n"
    "    rg [OPTIONS] -e PATTERN ... [PATH ...]\n"
    "    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]\n"
    "    rg [OPTIONS] --files [PATH ...]\n"
    "    rg [OPTIONS] --type-list\n"
    "\n"
    "OPTIONS:\n"
    "    -A, --after-context <NUM>    Show NUM lines after each match.\n"
    "    -B, --before-context <NUM>   Show NUM lines before each match.\n"
    "    -C, --context <NUM>          Show NUM lines before and after each "
    "match.\n"
    "        --column                 Show column numbers.\n"
    "    -c, --count                  Only show the count of matching lines "
    "for each file.\n"
    "        --count-matches          Only show the count of individual "
    "matches for each file.\n"
    "    -e, --regexp <PATTERN>...    A pattern to search for.\n"
    "    -f, --file <PATTERNFILE>...  Search for patterns from the given "
    "file.\n"
    "        --files                  Print each file that would be "
    "searched.\n"
    "    -l, --files-with-matches     Print the paths with at least one "
    "match.\n"
    "        --files-without-match    Print the paths that contain zero "
    "matches.\n"
    "    -F, --fixed-strings          Treat the pattern as a literal "
    "string.\n"
    "    -L, --follow                 Follow symbolic links.\n"
    "    -g, --glob <GLOB>...         Include or exclude files.\n"
    "        --iglob <GLOB>...        Include or exclude files case "
    "insensitively.\n"
    "        --heading                Print matches grouped by each file.\n"
    "        --no-heading             Don't group matches by each file.\n"
    "    -., --hidden                 Search hidden files and directories.\n"
    "    -i, --ignore-case            Case insensitive search.\n"
    "    -s, --case-sensitive         Search case sensitively (default).\n"
    "    -S, --smart-case             Smart case search.\n"
    "    -v, --invert-match           Invert matching.\n"
    "    -n, --line-number            Show line numbers.\n"
    "    -N, --no-line-number         Suppress line numbers.\n"
    "    -x, --line-regexp            Only show matches surrounded by line "
    "boundaries.\n"
    "    -w, --word-regexp            Only show matches surrounded by word "
    "boundaries.\n"
    "    -m, --max-count <NUM>        Limit the number of matches.\n"
    "    -d, --max-depth <NUM>        Descend at most NUM directories.\n"
    "        --no-ignore              Don't respect ignore files.\n"
    "        --no-messages            Suppress some error messages.\n"
    "    -0, --null                   Print a NUL byte after file paths.\n"
    "    -o, --only-matching          Print only matched parts of a line.\n"
    "    -q, --quiet                  Do not print anything to stdout.\n"
    "    -r, --replace <REPLACEMENT>  Replace matches with the given text.\n"
    "        --sort <SORTBY>          Sort results (path or none).\n"
    "    -a, --text                   Search binary files as if they were "
    "text.\n"
    "    -t, --type <TYPE>...         Only search files matching TYPE.\n"
    "    -T, --type-not <TYPE>...     Do not search files matching TYPE.\n"
    "        --type-list              Show all supported file types.\n"
    "    -u, --unrestricted           Reduce the level of \"smart\" "
    "searching.\n"
    "        --vimgrep                Show results in vim compatible "
    "format.\n"
    "    -H, --with-filename          Display the file path for matches.\n"
    "    -I, --no-filename            Never print the file path with the "
    "matched lines.\n";

enum {
  RG_O_COLUMN = 256,
  RG_O_COUNTM,
  RG_O_FILES,
  RG_O_WITHOUT,
  RG_O_IGLOB,
  RG_O_HEADING,
  RG_O_NOHEADING,
  RG_O_NOIGNORE,
  RG_O_NOMSG,
  RG_O_SORT,
  RG_O_TYPELIST,
  RG_O_VIMGREP,
  RG_O_COLOR,
  RG_O_IGNORED,
  RG_O_REFUSED,
  RG_O_NOHIDDEN,
  RG_O_NOFOLLOW,
  RG_O_NOTEXT,
  RG_O_NOVCS,
  RG_O_NOREQGIT
};

static const char rg_usage_err[] MSB_COLD =
    "error: The following required arguments were not provided:\n"
    "    <PATTERN>\n\nUSAGE:\n    \n"
    "    rg [OPTIONS] PATTERN [PATH ...]\n"
    "    rg [OPTIONS] -e PATTERN ... [PATH ...]\n"
    "    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]\n"
    "    rg [OPTIONS] --files [PATH ...]\n"
    "    rg [OPTIONS] --type-list\n"
    "    command | rg [OPTIONS] PATTERN\n"
    "    rg [OPTIONS] --help\n"
    "    rg [OPTIONS] --version\n\n"
    "For more information try --help\n\n";

/* clap's frame for an unknown option, replacing getopt's message. */
static void rg_bad_option(cmd_ctx *c, size_t mark) {
  const char *e = c->err->p ? c->err->p + mark : "", *q;
  char name[64];
  size_t n = 0;
  if ((q = strstr(e, "option '")) != NULL && !strstr(e, "requires")) {
    for (q += 8; *q && *q != '\'' && n < sizeof name - 1; q++) name[n++] = *q;
  } else if ((q = strstr(e, "option -- '")) != NULL) {
    name[n++] = '-';
    name[n++] = q[11];
  } else {
    return;
  }
  name[n] = 0;
  buf_truncate(c->err, mark);
  buf_printf(c->err,
             "error: Found argument '%s' which wasn't expected, or isn't "
             "valid in this context\n\n%s",
             name, strstr(cold_get(rg_usage_err), "USAGE:"));
}

static const cmd_opt rg_opts[] = {
    {'A', "after-context", CMD_ARG_REQ, 'A'},
    {'B', "before-context", CMD_ARG_REQ, 'B'},
    {'C', "context", CMD_ARG_REQ, 'C'},
    {0, "column", CMD_ARG_NONE, RG_O_COLUMN},
    {'c', "count", CMD_ARG_NONE, 'c'},
    {0, "count-matches", CMD_ARG_NONE, RG_O_COUNTM},
    {'e', "regexp", CMD_ARG_REQ, 'e'},
    {'f', "file", CMD_ARG_REQ, 'f'},
    {0, "files", CMD_ARG_NONE, RG_O_FILES},
    {'l', "files-with-matches", CMD_ARG_NONE, 'l'},
    {0, "files-without-match", CMD_ARG_NONE, RG_O_WITHOUT},
    {'F', "fixed-strings", CMD_ARG_NONE, 'F'},
    {'L', "follow", CMD_ARG_NONE, 'L'},
    {0, "no-follow", CMD_ARG_NONE, RG_O_NOFOLLOW},
    {'g', "glob", CMD_ARG_REQ, 'g'},
    {0, "iglob", CMD_ARG_REQ, RG_O_IGLOB},
    {0, "heading", CMD_ARG_NONE, RG_O_HEADING},
    {0, "no-heading", CMD_ARG_NONE, RG_O_NOHEADING},
    {'.', "hidden", CMD_ARG_NONE, '.'},
    {0, "no-hidden", CMD_ARG_NONE, RG_O_NOHIDDEN},
    {'i', "ignore-case", CMD_ARG_NONE, 'i'},
    {'s', "case-sensitive", CMD_ARG_NONE, 's'},
    {'S', "smart-case", CMD_ARG_NONE, 'S'},
    {'v', "invert-match", CMD_ARG_NONE, 'v'},
    {'n', "line-number", CMD_ARG_NONE, 'n'},
    {'N', "no-line-number", CMD_ARG_NONE, 'N'},
    {'x', "line-regexp", CMD_ARG_NONE, 'x'},
    {'w', "word-regexp", CMD_ARG_NONE, 'w'},
    {'m', "max-count", CMD_ARG_REQ, 'm'},
    {0, "max-depth", CMD_ARG_REQ, 'd'},
    {0, "maxdepth", CMD_ARG_REQ, 'd'},
    {0, "no-ignore", CMD_ARG_NONE, RG_O_NOIGNORE},
    {0, "no-ignore-vcs", CMD_ARG_NONE, RG_O_NOVCS},
    {0, "no-require-git", CMD_ARG_NONE, RG_O_NOREQGIT},
    {0, "no-messages", CMD_ARG_NONE, RG_O_NOMSG},
    {'0', "null", CMD_ARG_NONE, '0'},
    {'o', "only-matching", CMD_ARG_NONE, 'o'},
    {'q', "quiet", CMD_ARG_NONE, 'q'},
    {'r', "replace", CMD_ARG_REQ, 'r'},
    {0, "sort", CMD_ARG_REQ, RG_O_SORT},
    {0, "sort-files", CMD_ARG_NONE, RG_O_IGNORED},
    {'a', "text", CMD_ARG_NONE, 'a'},
    {0, "no-text", CMD_ARG_NONE, RG_O_NOTEXT},
    {'t', "type", CMD_ARG_REQ, 't'},
    {'T', "type-not", CMD_ARG_REQ, 'T'},
    {0, "type-list", CMD_ARG_NONE, RG_O_TYPELIST},
    {'u', "unrestricted", CMD_ARG_NONE, 'u'},
    {0, "vimgrep", CMD_ARG_NONE, RG_O_VIMGREP},
    {'H', "with-filename", CMD_ARG_NONE, 'H'},
    {'I', "no-filename", CMD_ARG_NONE, 'I'},
    {0, "color", CMD_ARG_REQ, RG_O_COLOR},
    {0, "colour", CMD_ARG_REQ, RG_O_COLOR},
    {'j', "threads", CMD_ARG_REQ, RG_O_IGNORED},
    {0, "no-config", CMD_ARG_NONE, RG_O_IGNORED},
    {0, "line-buffered", CMD_ARG_NONE, RG_O_IGNORED},
    {0, "block-buffered", CMD_ARG_NONE, RG_O_IGNORED},
    {0, "mmap", CMD_ARG_NONE, RG_O_IGNORED},
    {0, "no-mmap", CMD_ARG_NONE, RG_O_IGNORED},
    {0, "json", CMD_ARG_NONE, RG_O_REFUSED},
    {'U', "multiline", CMD_ARG_NONE, RG_O_REFUSED},
    {'P', "pcre2", CMD_ARG_NONE, RG_O_REFUSED},
    {0, "sortr", CMD_ARG_REQ, RG_O_REFUSED},
    {0, "type-add", CMD_ARG_REQ, RG_O_REFUSED},
    {'p', "pretty", CMD_ARG_NONE, RG_O_REFUSED},
    {'V', "version", CMD_ARG_NONE, 'V'},
    {0, 0, 0, 0}};

/* One gitignore-style rule. */
typedef struct rg_rule {
  const char *pat; /* without '!', leading '/' and trailing '/' */
  size_t len;
  int neg;     /* "!pat": a whitelist */
  int dironly; /* "pat/" */
  int anchored; /* holds a '/': matched against the whole relative path */
  unsigned gflags; /* GLOB_NOCASE for --iglob */
} rg_rule;

typedef struct rg_rules {
  rg_rule *v;
  size_t n, cap;
} rg_rules;

/* Ignore files of one directory, an ancestor of the entry being judged. */
enum { RG_K_RG, RG_K_IGN, RG_K_GIT, RG_NKINDS };
typedef struct rg_frame {
  const char *dir; /* absolute, no trailing '/' (root is "") */
  int has_git;
  rg_rules r[RG_NKINDS];
} rg_frame;

typedef struct rg_st {
  cmd_ctx *c;
  rx *re;
  rx *pre; /* the same pattern over a whole buffer, lines as RX_NEWLINE
              sees them: finds the next candidate line in one scan */
  int npat;
  int invert, wordx, linex, count, countm, list, without, quiet, only;
  int lnum, column, vimgrep, names, heading, nul, text, hidden, noignore;
  int novcs, noreqgit, follow, nomsg, files, sep_ctx, sorted;
  int64_t maxcount; /* -1: unlimited */
  long before, after;
  int maxdepth;
  const char *replace;
  rg_rules globs;   /* -g / --iglob, as gitignore lines (root: cwd) */
  int nwhite;       /* non-negated globs */
  const char **tsel, **tnot; /* -t / -T type names */
  int ntsel, ntnot;
  rg_frame *fr;     /* ignore frames: parents of the root, then the walk */
  int nfr, capfr;
  int matched, error, stop, searched, printed_file;
} rg_st;

/* ---- ignore rules ----------------------------------------------------- */

static int rg_rule_add(cmd_ctx *c, rg_rules *rs, const char *line, size_t n,
                       unsigned gflags) {
  rg_rule r;
  memset(&r, 0, sizeof r);
  while (n &&
         (line[n - 1] == ' ' || line[n - 1] == '\r' || line[n - 1] == '\t') &&
         !(n >= 2 && line[n - 2] == '\\'))
    n--;
  if (!n || line[0] == '#') return 0;
  if (line[0] == '!') {
    r.neg = 1;
    line++;
    n--;
  } else if (line[0] == '\\' && n > 1 && (line[1] == '!' || line[1] == '#')) {
    line++;
    n--;
  }
  if (n && line[n - 1] == '/') {
    r.dironly = 1;
    n--;
  }
  if (n && line[0] == '/') {
    r.anchored = 1;
    line++;
    n--;
  }
  if (!n) return 0;
  if (memchr(line, '/', n)) r.anchored = 1;
  r.pat = line;
  r.len = n;
  r.gflags = gflags;
  if (rs->n == rs->cap) {
    rg_rule *nv = cmd_grow(c, rs->v, rs->n, &rs->cap, sizeof *nv, 8);
    if (!nv) return MSB_ENOMEM;
    rs->v = nv;
  }
  rs->v[rs->n++] = r;
  return 0;
}

/* Adds every line of an ignore file's text. */
static int rg_rules_text(cmd_ctx *c, rg_rules *rs, const uint8_t *d,
                         size_t len) {
  cmd_lines l;
  const uint8_t *rec;
  size_t n;
  int term, rc;
  char *copy = arena_strndup(c->a, (const char *)d, len);
  if (!copy) return MSB_ENOMEM;
  cmd_lines_init(&l, (const uint8_t *)copy, len, '\n');
  while (cmd_lines_next(&l, &rec, &n, &term))
    if ((rc = rg_rule_add(c, rs, (const char *)rec, n, 0)) < 0) return rc;
  return 0;
}

/* Matches glob segments against path segments, "**" spanning any number
 * of them: a table over (pattern segment, path segment) positions, so the
 * work is their product. 1, 0 or a negative code. */
static int rg_seg_match(cmd_ctx *c, const char *pat, size_t plen,
                        const char *path, size_t len, unsigned gflags) {
  const char *ps[64], *ss[256];
  size_t pl[64], sl[256], np = 0, ns = 0, i, j, k;
  uint8_t *ok;
  int r;
  for (i = 0; i <= plen; i = k + 1) {
    for (k = i; k < plen && pat[k] != '/'; k++) {
    }
    if (np == 64) return 0;
    ps[np] = pat + i;
    pl[np++] = k - i;
  }
  for (i = 0; i <= len; i = k + 1) {
    for (k = i; k < len && path[k] != '/'; k++) {
    }
    if (ns == 256) return 0;
    ss[ns] = path + i;
    sl[ns++] = k - i;
  }
  /* ok[i * (ns + 1) + j]: pattern segments i.. match path segments j.. */
  ok = arena_zalloc(c->a, (np + 1) * (ns + 1));
  if (!ok) return MSB_ENOMEM;
  ok[np * (ns + 1) + ns] = 1;
  for (i = np; i-- > 0;) {
    int star = pl[i] == 2 && ps[i][0] == '*' && ps[i][1] == '*';
    for (j = ns + 1; j-- > 0;) {
      uint8_t v = 0;
      if (star) {
        v = ok[(i + 1) * (ns + 1) + j] || (j < ns && ok[i * (ns + 1) + j + 1]);
      } else if (j < ns && ok[(i + 1) * (ns + 1) + j + 1]) {
        r = glob_match(c->m, ps[i], pl[i], ss[j], sl[j], gflags, NULL);
        if (r < 0) return r;
        v = (uint8_t)r;
      }
      ok[i * (ns + 1) + j] = v;
    }
  }
  return ok[0];
}

/* The decision of a rule list for rel (relative to the list's directory):
 * 1 ignore, -1 whitelist, 0 none; the last matching rule wins. A negative
 * code is returned as RG_EFAIL - code. */
static int rg_rules_match(cmd_ctx *c, const rg_rules *rs, const char *rel,
                          int is_dir, int *err) {
  size_t i = rs->n, rl = strlen(rel);
  const char *base = strrchr(rel, '/');
  base = base ? base + 1 : rel;
  while (i-- > 0) {
    const rg_rule *r = &rs->v[i];
    int m;
    if (r->dironly && !is_dir) continue;
    if (r->anchored)
      m = rg_seg_match(c, r->pat, r->len, rel, rl, r->gflags);
    else
      m = glob_match(c->m, r->pat, r->len, base, strlen(base), r->gflags, NULL);
    if (m < 0) {
      *err = m;
      return 0;
    }
    if (m) return r->neg ? -1 : 1;
  }
  return 0;
}

/* Reads dir's ignore files into a new frame. */
static int rg_frame_push(rg_st *st, const char *dir) {
  static const char *const names[RG_NKINDS] = {".rgignore", ".ignore",
                                               ".gitignore"};
  cmd_ctx *c = st->c;
  rg_frame *f;
  struct vfs_stat vs;
  int k, rc;
  if (st->nfr == st->capfr) {
    int nc = st->capfr ? st->capfr * 2 : 16;
    rg_frame *nv = arena_alloc(c->a, (size_t)nc * sizeof *nv);
    if (!nv) return MSB_ENOMEM;
    if (st->nfr) memcpy(nv, st->fr, (size_t)st->nfr * sizeof *nv);
    st->fr = nv;
    st->capfr = nc;
  }
  f = &st->fr[st->nfr++];
  memset(f, 0, sizeof *f);
  f->dir = arena_strdup(c->a, dir);
  if (!f->dir) return MSB_ENOMEM;
  if (st->noignore) return 0;
  for (k = 0; k < RG_NKINDS; k++) {
    const char *p = arena_strndup(c->a, "", 0);
    const uint8_t *d;
    size_t len;
    buf b;
    if (k == RG_K_GIT && st->novcs) continue;
    buf_init(&b, c->m);
    buf_printf(&b, "%s/%s", dir, names[k]);
    p = b.err ? NULL : arena_strdup(c->a, buf_str(&b));
    buf_finish(&b);
    if (!p) return MSB_ENOMEM;
    if (vfs_read(c->fs, p, &d, &len) == 0 &&
        (rc = rg_rules_text(c, &f->r[k], d, len)) < 0)
      return rc;
  }
  {
    buf b;
    buf_init(&b, c->m);
    buf_printf(&b, "%s/.git", dir);
    f->has_git = !b.err && vfs_stat(c->fs, buf_str(&b), 0, &vs) == 0;
    buf_finish(&b);
  }
  return 0;
}

/* The ignore files' decision for an absolute path: 1 ignore, -1
 * whitelist, 0 none. For each kind the deepest deciding file wins; then
 * .rgignore before .ignore before .gitignore. */
static int rg_ignored(rg_st *st, const char *abs, int is_dir, int *err) {
  int k, i, anygit = st->noreqgit, res[RG_NKINDS] = {0, 0, 0};
  for (i = 0; i < st->nfr; i++) anygit |= st->fr[i].has_git;
  for (k = 0; k < RG_NKINDS; k++) {
    for (i = st->nfr; i-- > 0;) {
      const rg_frame *f = &st->fr[i];
      size_t dl = strlen(f->dir);
      int m;
      if (k == RG_K_GIT && !anygit) break;
      if (strncmp(abs, f->dir, dl) || abs[dl] != '/') continue;
      m = rg_rules_match(st->c, &f->r[k], abs + dl + 1, is_dir, err);
      if (*err) return 0;
      if (m) {
        res[k] = m;
        break;
      }
      if (k == RG_K_GIT && f->has_git && !st->noreqgit) break;
    }
    if (res[k]) return res[k];
  }
  return 0;
}

/* ---- file types ------------------------------------------------------- */

/* The globs of type name (borrowed from the table), or NULL. */
static const char *rg_type_find(const char *name, size_t *len) {
  const char *p = cold_get(rg_type_table);
  size_t nl = strlen(name);
  while (*p) {
    const char *eol = strchr(p, '\n');
    if (!strncmp(p, name, nl) && p[nl] == ':' && p[nl + 1] == ' ') {
      *len = (size_t)(eol - (p + nl + 2));
      return p + nl + 2;
    }
    p = eol + 1;
  }
  return NULL;
}

/* Whether a file name matches one of a type's comma-separated globs. */
static int rg_type_match(cmd_ctx *c, const char *name, const char *tname) {
  size_t len, i, k, nl = strlen(name);
  const char *g = rg_type_find(tname, &len);
  if (!g) return 0;
  for (i = 0; i < len; i = k + 2) {
    for (k = i; k < len && g[k] != ','; k++) {
    }
    if (glob_match(c->m, g + i, k - i, name, nl, 0, NULL) == 1) return 1;
  }
  return 0;
}

/* Types' decision for a file name: 1 ignore, -1 whitelist, 0 none. */
static int rg_type_decide(rg_st *st, const char *name) {
  int i;
  for (i = 0; i < st->ntnot; i++)
    if (rg_type_match(st->c, name, st->tnot[i])) return 1;
  for (i = 0; i < st->ntsel; i++)
    if (rg_type_match(st->c, name, st->tsel[i])) return -1;
  return st->ntsel ? 1 : 0;
}

/* ---- matching --------------------------------------------------------- */

static int rg_isword(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_' || ch >= 0x80;
}

/* Next match in line s at or after start, honouring -w: 1, 0 or a
 * negative code; m[0] the match, m[1..9] groups (for -r). */
static int rg_find(rg_st *st, const uint8_t *s, size_t len, size_t start,
                   rx_match *m) {
  size_t pos = start;
  if (!st->npat) return 0;
  while (pos <= len) {
    int r = cmd_rx_exec(st->c, st->re, s, len, pos, 0, m, st->replace ? 10 : 1);
    if (r <= 0) return r;
    if (!st->wordx || ((m[0].so == 0 || !rg_isword(s[m[0].so - 1])) &&
                       ((size_t)m[0].eo == len || !rg_isword(s[m[0].eo]))))
      return 1;
    pos = (size_t)m[0].so + 1;
  }
  return 0;
}

/* ---- output ----------------------------------------------------------- */

/* "PATH:" (or "PATH\0"), "LINE:", "COL:" before a printed line. */
static void rg_prefix(rg_st *st, const char *name, uint64_t lineno,
                      uint64_t col, int sep) {
  buf *o = st->c->out;
  if (st->names && !st->heading) {
    buf_puts(o, name);
    buf_putc(o, st->nul ? 0 : sep);
  }
  if (st->lnum) buf_printf(o, "%llu%c", (unsigned long long)lineno, sep);
  if (st->column && col) buf_printf(o, "%llu%c", (unsigned long long)col, sep);
}

/* Appends the replacement for match m of s: $N, ${N} and $$ expand. */
static void rg_replace_one(rg_st *st, const uint8_t *s, const rx_match *m) {
  const char *r = st->replace;
  buf *o = st->c->out;
  while (*r) {
    int g = -1;
    if (r[0] == '$' && r[1] == '$') {
      buf_putc(o, '$');
      r += 2;
      continue;
    }
    if (r[0] == '$' && r[1] >= '0' && r[1] <= '9') {
      g = 0;
      for (r++; *r >= '0' && *r <= '9'; r++) g = g * 10 + (*r - '0');
    } else if (r[0] == '$' && r[1] == '{' && r[2] >= '0' && r[2] <= '9' &&
               strchr(r, '}')) {
      const char *e = strchr(r, '}'), *q;
      g = 0;
      for (q = r + 2; q < e && *q >= '0' && *q <= '9'; q++)
        g = g * 10 + (*q - '0');
      if (q != e) g = 1000; /* a name: no such group */
      r = e + 1;
    } else {
      buf_putc(o, *r++);
      continue;
    }
    if (g < 10 && m[g].so >= 0)
      buf_put(o, s + m[g].so, (size_t)(m[g].eo - m[g].so));
  }
}

/* Prints a line with every match replaced (-r without -o). */
static int rg_print_replaced(rg_st *st, const uint8_t *s, size_t len) {
  size_t pos = 0, last = 0;
  rx_match m[10];
  int r;
  while (pos <= len && (r = rg_find(st, s, len, pos, m)) == 1) {
    buf_put(st->c->out, s + last, (size_t)m[0].so - last);
    rg_replace_one(st, s, m);
    last = (size_t)m[0].eo;
    pos = m[0].eo > m[0].so ? (size_t)m[0].eo : (size_t)m[0].so + 1;
    if (m[0].eo == m[0].so && (size_t)m[0].so < len) {
      buf_putc(st->c->out, s[m[0].so]);
      last = (size_t)m[0].so + 1;
    }
  }
  if (r < 0) return r;
  if (last < len) buf_put(st->c->out, s + last, len - last);
  return 0;
}

/* Prints a selected line: whole, one line per match (-o, --vimgrep), or
 * replaced (-r). */
static int rg_print_match(rg_st *st, const char *name, const uint8_t *s,
                          size_t len, uint64_t lineno) {
  buf *o = st->c->out;
  rx_match m[10];
  size_t pos = 0;
  int r, any = 0;
  if ((st->only || st->vimgrep) && !st->invert) {
    while (pos <= len && (r = rg_find(st, s, len, pos, m)) == 1) {
      rg_prefix(st, name, lineno, (uint64_t)m[0].so + 1, ':');
      if (st->only && st->replace)
        rg_replace_one(st, s, m);
      else if (st->only)
        buf_put(o, s + m[0].so, (size_t)(m[0].eo - m[0].so));
      else
        buf_put(o, s, len);
      buf_putc(o, '\n');
      any = 1;
      pos = m[0].eo > m[0].so ? (size_t)m[0].eo : (size_t)m[0].so + 1;
    }
    if (r < 0) return r;
    if (any) return 0;
  }
  if (st->column && !st->invert) {
    r = rg_find(st, s, len, 0, m);
    if (r < 0) return r;
    rg_prefix(st, name, lineno, r ? (uint64_t)m[0].so + 1 : 1, ':');
  } else {
    rg_prefix(st, name, lineno, st->column ? 1 : 0, ':');
  }
  if (st->replace && !st->invert) {
    if ((r = rg_print_replaced(st, s, len)) < 0) return r;
  } else {
    buf_put(o, s, len);
  }
  buf_putc(o, '\n');
  return 0;
}

/* Prints "PATH" and its terminator (-l, --files, --files-without-match). */
static void rg_print_path(rg_st *st, const char *name) {
  buf_puts(st->c->out, name);
  buf_putc(st->c->out, st->nul ? 0 : '\n');
}

/* Whether a line is selected: 1, 0 or a negative code. */
static int rg_selected(rg_st *st, const uint8_t *s, size_t len) {
  rx_match m[10];
  int r = st->wordx || !st->npat
              ? rg_find(st, s, len, 0, m)
              : cmd_rx_exec(st->c, st->re, s, len, 0, 0, NULL, 0);
  if (r < 0) return r;
  return st->invert ? !r : r;
}

/* Counts the matches of a selected line for --count-matches. */
static int rg_count_matches(rg_st *st, const uint8_t *s, size_t len,
                            uint64_t *n) {
  rx_match m[10];
  size_t pos = 0;
  int r;
  if (st->invert) {
    (*n)++;
    return 0;
  }
  while (pos <= len && (r = rg_find(st, s, len, pos, m)) == 1) {
    (*n)++;
    pos = m[0].eo > m[0].so ? (size_t)m[0].eo : (size_t)m[0].so + 1;
  }
  return r < 0 ? r : 0;
}

/* Per-file search state for context printing. */
typedef struct rg_file {
  const char *name;
  const uint8_t *d;
  size_t len;
  uint64_t last_lineno; /* last printed line (0: none yet) */
  size_t last_end;      /* its end offset */
  long after_left;
} rg_file;

/* Before the first line printed for a file: the heading, and the blank
 * line or "--" that separates it from the previous file's lines. */
static void rg_file_start(rg_st *st, rg_file *f) {
  buf *o = st->c->out;
  if (f->last_lineno) return;
  if (st->printed_file) {
    if (st->heading)
      buf_putc(o, '\n');
    else if (st->sep_ctx)
      buf_puts(o, "--\n");
  }
  if (st->heading && st->names) {
    buf_puts(o, f->name);
    buf_putc(o, st->nul ? 0 : '\n');
  }
  st->printed_file = 1;
}

/* Prints a context line, and "--" before it when not adjacent. */
static void rg_context(rg_st *st, rg_file *f, size_t ls, size_t le,
                       uint64_t lineno) {
  rg_file_start(st, f);
  if (st->sep_ctx && f->last_lineno && lineno != f->last_lineno + 1)
    buf_puts(st->c->out, "--\n");
  rg_prefix(st, f->name, lineno, 0, '-');
  buf_put(st->c->out, f->d + ls, le - ls);
  buf_putc(st->c->out, '\n');
  f->last_lineno = lineno;
  f->last_end = le;
}

/* Before-context for the line at ls, then the line itself. */
static int rg_emit(rg_st *st, rg_file *f, size_t ls, size_t le,
                   uint64_t lineno) {
  size_t b = ls;
  uint64_t bl = lineno;
  long k = 0;
  int r;
  while (k < st->before && b > 0) {
    size_t p = b - 1;
    if (f->last_lineno && p <= f->last_end) break;
    while (p > 0 && f->d[p - 1] != '\n') p--;
    b = p;
    bl--;
    k++;
  }
  while (b < ls) {
    const uint8_t *e = memchr(f->d + b, '\n', ls - b);
    size_t be = e ? (size_t)(e - f->d) : ls;
    rg_context(st, f, b, be, bl++);
    b = be + 1;
  }
  rg_file_start(st, f);
  if (st->sep_ctx && f->last_lineno && lineno != f->last_lineno + 1)
    buf_puts(st->c->out, "--\n");
  if ((r = rg_print_match(st, f->name, f->d + ls, le - ls, lineno)) < 0)
    return r;
  f->last_lineno = lineno;
  f->last_end = le;
  f->after_left = st->after;
  return 0;
}

/* Skips from *pos to the start of the next line that may match, counting
 * the lines passed: a line that matches alone also matches inside the
 * buffer, so no line is missed. 1 when a candidate is left, 0 when none
 * is (or a negative code). */
static int rg_skip_to(rg_st *st, const uint8_t *d, size_t len, size_t *pos,
                      uint64_t *lineno) {
  rx_match m;
  const uint8_t *q;
  int r = cmd_rx_exec(st->c, st->pre, d, len, *pos, 0, &m, 1);
  if (r <= 0) return r;
  while ((q = memchr(d + *pos, '\n', (size_t)m.so - *pos)) != NULL) {
    *pos = (size_t)(q - d) + 1;
    (*lineno)++;
  }
  return 1;
}

/* The offset of the first NUL, or -1. */
static long rg_binary_at(const uint8_t *d, size_t len) {
  const uint8_t *z = memchr(d, 0, len);
  return z ? (long)(z - d) : -1;
}

/* Searches one buffer. explicit: a path the user named (binary files are
 * searched until their first match, then reported) rather than one found
 * by walking (binary files are skipped). 0 or a negative code. */
static int rg_search(rg_st *st, const char *name, const uint8_t *d, size_t len,
                     int explicit) {
  cmd_ctx *c = st->c;
  rg_file f;
  size_t pos = 0;
  uint64_t lineno = 0, nsel = 0, nmat = 0;
  size_t cand = 0; /* lines before it are known not to match */
  size_t ls, le;
  long bin = st->text ? -1 : rg_binary_at(d, len);
  int r, outlines = !st->count && !st->countm && !st->list && !st->without &&
                    !st->quiet;
  if (bin >= 0 && !explicit) return 0;
  st->searched = 1;
  memset(&f, 0, sizeof f);
  f.name = name;
  f.d = d;
  f.len = len;
  while (pos < len && !st->stop) {
    const uint8_t *q;
    if (st->pre && bin < 0 && f.after_left <= 0 && pos >= cand) {
      /* nothing to print before the next candidate line */
      if ((r = rg_skip_to(st, d, len, &pos, &lineno)) < 0) return r;
      if (!r) break;
      cand = pos;
    }
    q = memchr(d + pos, '\n', len - pos);
    ls = pos;
    le = q ? (size_t)(q - d) : len;
    if (bin >= 0) { /* NULs end lines too */
      const uint8_t *z = memchr(d + ls, 0, le - ls);
      if (z) le = (size_t)(z - d);
    }
    pos = le < len ? le + 1 : len;
    lineno++;
    if ((lineno & 1023) == 0 && (r = cmd_tick(c, 1)) != 0) return r;
    if (st->maxcount >= 0 && nsel >= (uint64_t)st->maxcount) {
      if (f.after_left-- > 0 && outlines) {
        rg_context(st, &f, ls, le, lineno);
        continue;
      }
      break;
    }
    if ((r = rg_selected(st, d + ls, le - ls)) < 0) return r;
    if (!r) {
      if (f.after_left > 0 && outlines) {
        f.after_left--;
        rg_context(st, &f, ls, le, lineno);
      }
      continue;
    }
    nsel++;
    st->matched = 1;
    if (st->quiet) {
      st->stop = 1;
      return 0;
    }
    if (st->countm && (r = rg_count_matches(st, d + ls, le - ls, &nmat)) < 0)
      return r;
    if (st->list || st->without) break;
    if (bin >= 0 && outlines) {
      rg_file_start(st, &f);
      if (st->names) buf_printf(c->out, "%s: ", name);
      buf_printf(c->out,
                 "binary file matches (found \"\\0\" byte around "
                 "offset %ld)\n",
                 bin);
      break;
    }
    if (outlines && (r = rg_emit(st, &f, ls, le, lineno)) < 0) return r;
  }
  if ((st->count || st->countm) && nsel) {
    if (st->names) {
      buf_puts(c->out, name);
      buf_putc(c->out, st->nul ? 0 : ':');
    }
    buf_printf(c->out, "%llu\n",
               (unsigned long long)(st->countm ? nmat : nsel));
  }
  if ((st->list && nsel) || (st->without && !nsel)) rg_print_path(st, name);
  return c->out->err;
}

/* ---- walking ---------------------------------------------------------- */

static void rg_err(rg_st *st, const char *name, int rc, int top) {
  st->error = 1;
  if (st->nomsg) return;
  /* Rust's io::Error wording: the errno text and its number; no "rg: "
   * prefix, and walkdir's frame when sorting */
  buf_printf(st->c->err, "%s: ", name);
  if (st->sorted && top)
    buf_printf(st->c->err, "IO error for operation on %s: ", name);
  buf_printf(st->c->err, "%s (os error %d)\n", cmd_strerror(rc),
             rc == MSB_ENOENT    ? 2
             : rc == MSB_ENOTDIR ? 20
             : rc == MSB_EISDIR  ? 21
             : rc == MSB_ELOOP   ? 40
             : rc == MSB_EPERM   ? 1
                                 : 5);
}

/* The path -g globs are matched against: relative to the working
 * directory when inside it, without a leading "./". */
static const char *rg_glob_path(rg_st *st, const char *shown, const char *abs) {
  size_t cl = strlen(st->c->cwd);
  if (!strncmp(abs, st->c->cwd, cl) && abs[cl] == '/') return abs + cl + 1;
  if (!strcmp(st->c->cwd, "/")) return abs + 1;
  return !strncmp(shown, "./", 2) ? shown + 2 : shown;
}

/* Whether a walked entry is skipped: 1 skip, 0 keep, or a negative code.
 * ripgrep's order: -g globs, ignore files, types, hidden names. */
static int rg_skip(rg_st *st, const cmd_walk_ent *e, const char *shown) {
  int is_dir = e->st.kind == VFS_DIR, err = 0, m, white = 0;
  if (st->globs.n) {
    m = rg_rules_match(st->c, &st->globs, rg_glob_path(st, shown, e->abs),
                       is_dir, &err);
    if (err) return err;
    if (m) return m > 0; /* a -g glob is a whitelist, "!glob" ignores */
    if (st->nwhite && !is_dir) return 1;
  }
  m = rg_ignored(st, e->abs, is_dir, &err);
  if (err) return err;
  if (m > 0) return 1;
  white = m < 0;
  if (!is_dir) {
    m = rg_type_decide(st, e->name);
    if (m > 0) return 1;
    white |= m < 0;
  }
  return !white && !st->hidden && e->name[0] == '.';
}

/* Pushes frames for the ignore files of dir and its ancestors, "/"
 * first ("" is the root). */
static int rg_parent_frames(rg_st *st, const char *dir) {
  const char *p = dir;
  int rc;
  if ((rc = rg_frame_push(st, "")) < 0) return rc;
  while (*p) {
    char *pre;
    p = strchr(p + 1, '/');
    if (!p) p = dir + strlen(dir);
    if (!(pre = arena_strndup(st->c->a, dir, (size_t)(p - dir))))
      return MSB_ENOMEM;
    if ((rc = rg_frame_push(st, pre)) < 0) return rc;
  }
  return 0;
}

/* Visits one file found by walking, or prints it for --files. */
static int rg_walk_file(rg_st *st, const char *shown, const char *abs) {
  const uint8_t *d;
  size_t len;
  int rc;
  if (st->files) {
    st->matched = 1;
    if (!st->quiet) rg_print_path(st, shown);
    return st->c->out->err;
  }
  rc = vfs_read(st->c->fs, abs, &d, &len);
  if (rc < 0) {
    rg_err(st, shown, rc, 0);
    return 0;
  }
  return rg_search(st, shown, d, len, 0);
}

/* Walks a directory operand. implicit: the "." searched when no path is
 * given (names are shown without "./"). */
static int rg_walk(rg_st *st, const char *op, const char *abs, int implicit) {
  cmd_ctx *c = st->c;
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc, base = st->nfr, top;
  const char *slash = strrchr(abs, '/');
  char *parent = arena_strndup(c->a, abs, slash ? (size_t)(slash - abs) : 0);
  if (!parent) return MSB_ENOMEM;
  if (!st->noignore && strcmp(abs, "/") &&
      (rc = rg_parent_frames(st, parent)) < 0)
    return rc;
  top = st->nfr; /* the frame of a directory at depth d is fr[top + d] */
  rc = cmd_walk_open(c, op, st->follow ? CMD_WALK_FOLLOW : CMD_WALK_FOLLOW_ROOT,
                     &w);
  if (rc < 0) return rc;
  if (st->maxdepth >= 0) cmd_walk_max_depth(w, st->maxdepth);
  while (!st->stop && (rc = cmd_walk_next(w, &e)) == 1) {
    const char *shown = e->path;
    int skip;
    if (implicit && !strncmp(shown, "./", 2)) shown += 2;
    if (e->err) {
      rg_err(st, shown, e->err, 0);
      continue;
    }
    /* Frames deeper than this entry's parent belong to finished dirs. */
    if (st->nfr > top + e->depth) st->nfr = top + e->depth;
    if (e->depth > 0) {
      if ((skip = rg_skip(st, e, shown)) < 0) {
        rc = skip;
        break;
      }
      if (skip) {
        if (e->st.kind == VFS_DIR) cmd_walk_prune(w);
        continue;
      }
    }
    if (e->st.kind == VFS_DIR) {
      if ((rc = rg_frame_push(st, strcmp(e->abs, "/") ? e->abs : "")) < 0)
        break;
      continue;
    }
    if (e->st.kind != VFS_FILE) continue;
    if ((rc = rg_walk_file(st, shown, e->abs)) < 0) break;
  }
  cmd_walk_close(w);
  st->nfr = base;
  return rc < 0 ? rc : 0;
}

/* Searches one path operand ("-" is stdin). */
static int rg_operand(rg_st *st, const char *op, int implicit) {
  cmd_ctx *c = st->c;
  const uint8_t *d;
  size_t len;
  struct vfs_stat vs;
  const char *abs;
  int rc;
  if (!strcmp(op, "-")) {
    if (c->in_err) {
      rg_err(st, "<stdin>", c->in_err, 0);
      return 0;
    }
    c->in_used = c->in_len;
    c->in_eof = 1;
    if (st->files) return 0;
    return rg_search(st, "<stdin>", c->in ? c->in : (const uint8_t *)"",
                     c->in_len, 1);
  }
  abs = cmd_path(c, op);
  if (!abs) return MSB_ENOMEM;
  rc = vfs_stat(c->fs, abs, 1, &vs);
  if (rc < 0) {
    rg_err(st, op, rc, 1);
    return 0;
  }
  if (vs.kind == VFS_DIR) return rg_walk(st, op, abs, implicit);
  if (st->files) return rg_walk_file(st, op, abs);
  rc = vfs_read(c->fs, abs, &d, &len);
  if (rc < 0) {
    rg_err(st, op, rc, 0);
    return 0;
  }
  return rg_search(st, op, d, len, 1);
}

typedef struct rg_opts_st {
  buf pats; /* patterns, each ended by '\n' */
  buf alt;
  int icase, smart, have, fixed, unres, typelist;
  long ctxa, ctxb, ctxc;
  int withname;
} rg_opts_st;

/* ---- patterns --------------------------------------------------------- */

/* Appends one pattern to the alternation, escaped for -F. */
static void rg_addpat(rg_st *st, buf *alt, const char *p, size_t n, int fixed) {
  size_t i;
  if (st->npat++) buf_putc(alt, '|');
  buf_puts(alt, "(?:");
  for (i = 0; i < n; i++) {
    if (fixed && strchr("\\.+*?()|[]{}^$#&-~ ", p[i]) && p[i])
      buf_putc(alt, '\\');
    buf_putc(alt, p[i]);
  }
  buf_putc(alt, ')');
}

/* Whether a pattern has an uppercase letter outside escapes (-S). */
static int rg_has_upper(const char *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (p[i] == '\\') {
      i++;
      continue;
    }
    if (p[i] >= 'A' && p[i] <= 'Z') return 1;
  }
  return 0;
}

/* Joins the patterns into one alternation. */
static int rg_patterns(rg_st *st, rg_opts_st *o) {
  const char *p = o->pats.p, *end = p + o->pats.len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    rg_addpat(st, &o->alt, p, (size_t)(nl - p), o->fixed);
    p = nl + 1;
  }
  return o->pats.err || o->alt.err ? MSB_ENOMEM : 0;
}

/* Whether seq occurs in the pattern outside an escape ("\\(?=" is not a
 * lookahead); seq may itself start with a backslash. */
static int rg_has_seq(const buf *alt, const char *seq) {
  size_t i, n = strlen(seq);
  for (i = 0; i + n <= alt->len; i++) {
    if (!memcmp(alt->p + i, seq, n)) return 1;
    if (alt->p[i] == '\\') i++;
  }
  return 0;
}

static int rg_has_backref(const buf *alt) {
  size_t i;
  for (i = 0; i + 1 < alt->len; i++)
    if (alt->p[i] == '\\' && alt->p[++i] >= '1' && alt->p[i] <= '9') return 1;
  return 0;
}

/* Compiles the alternation (shown: the patterns as given, for errors); 0, 2 (message printed) or a negative code. */
static int rg_compile(rg_st *st, buf *alt, int icase, const buf *shown) {
  cmd_ctx *c = st->c;
  buf full, em;
  unsigned fl =
      RX_PERL | (icase ? RX_ICASE : 0u) | (st->replace ? 0u : RX_NOSUB);
  int rc;
  if (!st->npat) return 0;
  if (rg_has_seq(alt, "(?=") || rg_has_seq(alt, "(?!") ||
      rg_has_seq(alt, "(?<=") || rg_has_seq(alt, "(?<!") ||
      rg_has_backref(alt)) {
    /* Rust's regex has neither; ripgrep points at PCRE2 */
    buf_printf(c->err,
               "regex parse error:\n    %.*s\nerror: %s not supported\n\n"
               "Consider enabling PCRE2 with the --pcre2 flag, which can "
               "handle backreferences\nand look-around.\n",
               (int)(shown->len ? shown->len - 1 : 0), shown->p ? shown->p : "",
               rg_has_backref(alt) ? "backreferences are"
                                   : "look-around, including look-ahead and "
                                     "look-behind, is");
    return 2;
  }
  buf_init(&full, c->m);
  buf_init(&em, c->m);
  buf_puts(&full, st->linex ? "^(?:" : "(?:");
  buf_put(&full, alt->p, alt->len);
  buf_puts(&full, st->linex ? ")$" : ")");
  rc = full.err ? MSB_ENOMEM
                : rx_compile(c->m, full.p, full.len, fl, &st->re, &em);
  /* the prefilter: only when -v does not need every line, and not for
   * \A \z \Z, which mean the line's ends, not the buffer's */
  if (rc == 0 && !st->invert && !rg_has_seq(alt, "\\A") &&
      !rg_has_seq(alt, "\\z") && !rg_has_seq(alt, "\\Z") &&
      rx_compile(c->m, full.p, full.len, fl | RX_NEWLINE | RX_NOSUB, &st->pre,
                 NULL) != 0)
    st->pre = NULL;
  if (rc == MSB_EINVAL) {
    buf_printf(c->err, "regex parse error:\n    %.*s\nerror: %s\n",
               (int)(shown->len ? shown->len - 1 : 0), shown->p ? shown->p : "",
               buf_str(&em));
    rc = 2;
  }
  buf_finish(&full);
  buf_finish(&em);
  return rc;
}

/* ---- options ---------------------------------------------------------- */

static int rg_num(rg_st *st, const char *s, int64_t *out) {
  if (cmd_parse_int(s, out) || *out < 0) {
    cmd_err(st->c, "%s: invalid digit found in string", s);
    return 2;
  }
  return 0;
}

static int rg_addname(cmd_ctx *c, const char ***v, int *n, const char *s) {
  const char **nv = arena_alloc(c->a, (size_t)(*n + 1) * sizeof *nv);
  if (!nv) return MSB_ENOMEM;
  if (*n) memcpy(nv, *v, (size_t)*n * sizeof *nv);
  nv[(*n)++] = s;
  *v = nv;
  return 0;
}

/* Checks -t/-T names against the table. */
static int rg_check_types(rg_st *st) {
  int i;
  size_t len;
  for (i = 0; i < st->ntsel + st->ntnot; i++) {
    const char *t = i < st->ntsel ? st->tsel[i] : st->tnot[i - st->ntsel];
    if (!rg_type_find(t, &len)) {
      buf_printf(st->c->err, "unrecognized file type: %s\n", t);
      return 2;
    }
  }
  return 0;
}

static void rg_pat(rg_opts_st *o, const char *p, size_t n) {
  o->have = 1;
  buf_put(&o->pats, p, n);
  buf_putc(&o->pats, '\n');
}

/* Applies one option; 0 to go on, else the status to return. */
static int rg_option(rg_st *st, rg_opts_st *o, cmd_getopt *g, int opt) {
  cmd_ctx *c = st->c;
  int64_t v;
  int rc;
  switch (opt) {
  case 'A':
  case 'B':
  case 'C':
    if ((rc = rg_num(st, g->arg, &v)) != 0) return rc;
    *(opt == 'A'   ? &o->ctxa
      : opt == 'B' ? &o->ctxb
                   : &o->ctxc) = v > 0x7fffffffL ? 0x7fffffffL : (long)v;
    break;
  case RG_O_COLUMN: st->column = 1; break;
  case 'c': st->count = 1; break;
  case RG_O_COUNTM: st->countm = 1; break;
  case 'e': rg_pat(o, g->arg, strlen(g->arg)); break;
  case 'f': {
    const uint8_t *d, *rec;
    size_t len, n;
    int term;
    cmd_lines l;
    if ((rc = cmd_input(c, g->arg, &d, &len)) < 0) {
      rg_err(st, g->arg, rc, 0);
      return 2;
    }
    o->have = 1;
    cmd_lines_init(&l, d, len, '\n');
    while (cmd_lines_next(&l, &rec, &n, &term)) rg_pat(o, (const char *)rec, n);
    break;
  }
  case RG_O_FILES: st->files = 1; break;
  case 'l': st->list = 1; break;
  case RG_O_WITHOUT: st->without = 1; break;
  case 'F': o->fixed = 1; break;
  case 'L': st->follow = 1; break;
  case RG_O_NOFOLLOW: st->follow = 0; break;
  case 'g':
  case RG_O_IGLOB:
    if ((rc = rg_rule_add(c, &st->globs, g->arg, strlen(g->arg),
                          opt == 'g' ? 0u : GLOB_NOCASE)) < 0)
      return rc;
    /* -g's meaning is the gitignore line's, inverted */
    if (st->globs.n && st->globs.v[st->globs.n - 1].pat) {
      rg_rule *r = &st->globs.v[st->globs.n - 1];
      r->neg = !r->neg;
      st->nwhite += r->neg;
    }
    break;
  case RG_O_HEADING: st->heading = 1; break;
  case RG_O_NOHEADING: st->heading = 0; break;
  case '.': st->hidden = 1; break;
  case RG_O_NOHIDDEN: st->hidden = 0; break;
  case 'i': o->icase = 1, o->smart = 0; break;
  case 's': o->icase = 0, o->smart = 0; break;
  case 'S': o->smart = 1, o->icase = 0; break;
  case 'v': st->invert = 1; break;
  case 'n': st->lnum = 1; break;
  case 'N': st->lnum = 0; break;
  case 'x': st->linex = 1; break;
  case 'w': st->wordx = 1; break;
  case 'm':
    if ((rc = rg_num(st, g->arg, &v)) != 0) return rc;
    st->maxcount = v;
    break;
  case 'd':
    if ((rc = rg_num(st, g->arg, &v)) != 0) return rc;
    st->maxdepth = v > 100000 ? 100000 : (int)v;
    break;
  case RG_O_NOIGNORE: st->noignore = 1; break;
  case RG_O_NOVCS: st->novcs = 1; break;
  case RG_O_NOREQGIT: st->noreqgit = 1; break;
  case RG_O_NOMSG: st->nomsg = 1; break;
  case '0': st->nul = 1; break;
  case 'o': st->only = 1; break;
  case 'q': st->quiet = 1; break;
  case 'r': st->replace = g->arg; break;
  case RG_O_SORT:
    st->sorted = 1;
    if (strcmp(g->arg, "path") && strcmp(g->arg, "none")) {
      cmd_err(c, "--sort %s is not supported in memsandbox", g->arg);
      return 2;
    }
    break;
  case 'a': st->text = 1; break;
  case RG_O_NOTEXT: st->text = 0; break;
  case 't': return rg_addname(c, &st->tsel, &st->ntsel, g->arg);
  case 'T': return rg_addname(c, &st->tnot, &st->ntnot, g->arg);
  case RG_O_TYPELIST: o->typelist = 1; break;
  case 'u':
    if (++o->unres == 1) st->noignore = 1;
    if (o->unres == 2) st->hidden = 1;
    if (o->unres >= 3) st->text = 1;
    break;
  case RG_O_VIMGREP: st->vimgrep = 1; break;
  case 'H': o->withname = 1; break;
  case 'I': o->withname = 0; break;
  case RG_O_COLOR:
    if (!strcmp(g->arg, "always") || !strcmp(g->arg, "ansi")) {
      cmd_err(c, "--color=%s is not supported in memsandbox", g->arg);
      return 2;
    }
    break;
  case RG_O_REFUSED:
    cmd_err(c, "%s%s is not supported in memsandbox", g->optname ? "--" : "-",
            g->optname ? g->optname : (const char[]){(char)g->opt, 0});
    return 2;
  case 'V': buf_puts(c->out, "ripgrep 13.0.0\n"); return -1;
  default: break;
  }
  return 0;
}

/* Settles the options that depend on each other after parsing. */
static void rg_settle(rg_st *st, rg_opts_st *o, int nops, int anydir) {
  st->sep_ctx = o->ctxa > 0 || o->ctxb > 0 || o->ctxc > 0;
  st->after = o->ctxa >= 0 ? o->ctxa : o->ctxc >= 0 ? o->ctxc : 0;
  st->before = o->ctxb >= 0 ? o->ctxb : o->ctxc >= 0 ? o->ctxc : 0;
  if (st->vimgrep) st->lnum = st->column = 1;
  if (st->column) st->lnum = 1;
  if (o->withname >= 0)
    st->names = o->withname;
  else
    st->names = nops > 1 || anydir || st->vimgrep;
}

static int rg_type_list(cmd_ctx *c) {
  return buf_puts(c->out, cold_get(rg_type_table)) < 0 ? MSB_ENOMEM : 0;
}

/* Entry point: see the usage above. */
int cmd_rg(cmd_ctx *c) {
  cmd_getopt g;
  rg_st st;
  rg_opts_st o;
  int opt, rc = 0, i, anydir = 0, implicit;
  char **ops;
  int nops;
  memset(&st, 0, sizeof st);
  memset(&o, 0, sizeof o);
  st.c = c;
  st.maxcount = -1;
  st.maxdepth = -1;
  o.ctxa = o.ctxb = o.ctxc = -1;
  o.withname = -1;
  buf_init(&o.alt, c->m);
  buf_init(&o.pats, c->m);
  cmd_opt_init(&g, c, rg_opts, rg_usage, 0);
  g.status = 2;
  for (;;) {
    size_t mark = c->err->len;
    if ((opt = cmd_opt_next(&g)) == CMD_OPT_END) break;
    if (opt == CMD_OPT_ERR) rg_bad_option(c, mark);
    if (opt == CMD_OPT_ERR || opt == CMD_OPT_EXIT || opt < 0) {
      rc = opt == CMD_OPT_EXIT ? 0 : opt == CMD_OPT_ERR ? 2 : opt;
      goto out;
    }
    if ((rc = rg_option(&st, &o, &g, opt)) != 0) {
      if (rc == -1) rc = 0;
      goto out;
    }
  }
  if (o.typelist) {
    rc = rg_type_list(c);
    goto out;
  }
  if ((rc = rg_check_types(&st)) != 0) goto out;
  ops = g.ops;
  nops = g.nops;
  if (!o.have && !st.files) {
    if (nops < 1) {
      buf_puts(c->err, cold_get(rg_usage_err));
      rc = 2;
      goto out;
    }
    rg_pat(&o, ops[0], strlen(ops[0]));
    ops++;
    nops--;
  }
  if ((rc = rg_patterns(&st, &o)) != 0) goto out;
  implicit = nops == 0 && !(c->in_len > 0 || c->in_regular);
  for (i = 0; i < nops; i++) {
    struct vfs_stat vs;
    const char *abs = cmd_path(c, ops[i]);
    if (abs && vfs_stat(c->fs, abs, 1, &vs) == 0 && vs.kind == VFS_DIR)
      anydir = 1;
  }
  rg_settle(&st, &o, nops, anydir || implicit);
  rc = rg_compile(&st, &o.alt,
                  o.icase || (o.smart && !rg_has_upper(o.alt.p, o.alt.len)),
                  &o.pats);
  if (rc != 0) goto out;
  if (nops == 0) rc = rg_operand(&st, implicit ? "." : "-", implicit);
  for (i = 0; i < nops && rc >= 0 && !st.stop; i++)
    rc = rg_operand(&st, ops[i], 0);
  if (rc >= 0 && !st.searched && !st.files && !st.error && !st.quiet &&
      (st.error = 1))
    buf_puts(c->err,
             "No files were searched, which means ripgrep probably "
             "applied a filter you didn't expect.\n"
             "Running with --debug will show why files are being skipped.\n");
  if (rc >= 0)
    rc = st.matched && (st.quiet || !st.error) ? 0 : st.error ? 2 : 1;
out:
  if (st.re) rx_free(st.re);
  if (st.pre) rx_free(st.pre);
  buf_finish(&o.alt);
  buf_finish(&o.pats);
  return rc;
}
