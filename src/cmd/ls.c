/* ls.c - list directory contents (GNU coreutils).
 *
 * Usage: ls [OPTION]... [FILE]...
 *   -a -A -d -f -F -p -h --si -i -l -g -o -n -L -H -r -R -s -S -t -U -X?
 *   -1 -C -x -m -w COLS --color[=never|auto] --full-time --time-style=...
 * Output is what GNU prints to a non-terminal: one name per line unless
 * -C/-x/-m ask for columns (80 wide, tab-padded as GNU does); names are
 * printed literally. Owner and group are "user" (uid/gid 1000 with -n).
 * Sizes and "total" follow the deterministic block rule of cmd_blocks
 * (4 KiB allocation units; directories 4096 bytes). Directory order is
 * bytewise (the C locale's strcoll). Not implemented, and rejected with a
 * message: --color=always, -v/-X/-c/-u/-b/-q/-Q. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../order.h"
#include "cmd.h"

static const char ls_usage[] MSB_COLD =
    "Usage: ls [OPTION]... [FILE]...\n"
    "List information about the FILEs (the current directory by default).\n"
    "Sort entries alphabetically if none of -StU is specified.\n"
    "\n"
    "  -a, --all                  do not ignore entries starting with .\n"
    "  -A, --almost-all           do not list implied . and ..\n"
    "  -C                         list entries by columns\n"
    "      --color[=WHEN]         'never' or 'auto' (no colors off a "
    "terminal)\n"
    "  -d, --directory            list directories themselves, not their "
    "contents\n"
    "  -f                         do not sort, enable -aU\n"
    "  -F, --classify             append indicator (one of */=>@|) to "
    "entries\n"
    "      --full-time            like -l --time-style=full-iso\n"
    "  -g                         like -l, but do not list owner\n"
    "  -h, --human-readable       with -l and -s, print sizes like 1K 234M "
    "2G etc.\n"
    "      --si                   likewise, but use powers of 1000 not "
    "1024\n"
    "  -H, --dereference-command-line\n"
    "                             follow symbolic links listed on the "
    "command line\n"
    "  -i, --inode                print the index number of each file\n"
    "  -l                         use a long listing format\n"
    "  -L, --dereference          show information for the file a link "
    "references\n"
    "  -m                         fill width with a comma separated list of "
    "entries\n"
    "  -n, --numeric-uid-gid      like -l, but list numeric user and group "
    "IDs\n"
    "  -o                         like -l, but do not list group "
    "information\n"
    "  -p                         append / indicator to directories\n"
    "  -r, --reverse              reverse order while sorting\n"
    "  -R, --recursive            list subdirectories recursively\n"
    "  -s, --size                 print the allocated size of each file, in "
    "blocks\n"
    "  -S                         sort by file size, largest first\n"
    "  -t                         sort by time, newest first\n"
    "  -U                         do not sort; list entries in directory "
    "order\n"
    "  -w, --width=COLS           set output width to COLS.  0 means no "
    "limit\n"
    "  -x                         list entries by lines instead of by "
    "columns\n"
    "  -1                         list one file per line\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum {
  LS_COLOR = 256,
  LS_FULLTIME,
  LS_SI,
  LS_TIMESTYLE,
  LS_GROUPDIRS,
  LS_INDICATOR
};

static const cmd_opt ls_opts[] = {
    {'a', "all", CMD_ARG_NONE, 'a'},
    {'A', "almost-all", CMD_ARG_NONE, 'A'},
    {'b', "escape", CMD_ARG_NONE, 'b'},
    {'c', 0, CMD_ARG_NONE, 'c'},
    {'C', 0, CMD_ARG_NONE, 'C'},
    {0, "color", CMD_ARG_OPT, LS_COLOR},
    {'d', "directory", CMD_ARG_NONE, 'd'},
    {'f', 0, CMD_ARG_NONE, 'f'},
    {'F', "classify", CMD_ARG_NONE, 'F'},
    {0, "full-time", CMD_ARG_NONE, LS_FULLTIME},
    {'g', 0, CMD_ARG_NONE, 'g'},
    {0, "group-directories-first", CMD_ARG_NONE, LS_GROUPDIRS},
    {'G', "no-group", CMD_ARG_NONE, 'G'},
    {'h', "human-readable", CMD_ARG_NONE, 'h'},
    {0, "si", CMD_ARG_NONE, LS_SI},
    {'H', "dereference-command-line", CMD_ARG_NONE, 'H'},
    {0, "indicator-style", CMD_ARG_REQ, LS_INDICATOR},
    {'i', "inode", CMD_ARG_NONE, 'i'},
    {'k', "kibibytes", CMD_ARG_NONE, 'k'},
    {'l', 0, CMD_ARG_NONE, 'l'},
    {'L', "dereference", CMD_ARG_NONE, 'L'},
    {'m', 0, CMD_ARG_NONE, 'm'},
    {'n', "numeric-uid-gid", CMD_ARG_NONE, 'n'},
    {'N', "literal", CMD_ARG_NONE, 'N'},
    {'o', 0, CMD_ARG_NONE, 'o'},
    {'p', 0, CMD_ARG_NONE, 'p'},
    {'q', "hide-control-chars", CMD_ARG_NONE, 'q'},
    {'Q', "quote-name", CMD_ARG_NONE, 'Q'},
    {'r', "reverse", CMD_ARG_NONE, 'r'},
    {'R', "recursive", CMD_ARG_NONE, 'R'},
    {'s', "size", CMD_ARG_NONE, 's'},
    {'S', 0, CMD_ARG_NONE, 'S'},
    {'t', 0, CMD_ARG_NONE, 't'},
    {0, "time-style", CMD_ARG_REQ, LS_TIMESTYLE},
    {'u', 0, CMD_ARG_NONE, 'u'},
    {'U', 0, CMD_ARG_NONE, 'U'},
    {'v', 0, CMD_ARG_NONE, 'v'},
    {'w', "width", CMD_ARG_REQ, 'w'},
    {'x', 0, CMD_ARG_NONE, 'x'},
    {'X', 0, CMD_ARG_NONE, 'X'},
    {'1', 0, CMD_ARG_NONE, '1'},
    {0, 0, 0, 0}};

enum { LS_ONE, LS_LONG, LS_COLS, LS_ROWS, LS_COMMAS };
enum { LS_SORT_NAME, LS_SORT_NONE, LS_SORT_SIZE, LS_SORT_TIME };

typedef struct ls_ent {
  const char *name; /* as displayed */
  const char *abs;
  struct vfs_stat st;
  const char *target; /* link target (long format) */
  int tkind;          /* kind of the link's target, 0 if dangling */
  uint32_t tmode;
} ls_ent;

typedef struct ls_state {
  cmd_ctx *c;
  cmd_inodes seen; /* -R: directories already listed */
  int all, almost, dir, classify, slash, human, si, inode, numeric, noown,
      nogrp, deref, deref_cmd, reverse, rec, size, sort, format, fulltime,
      groupdirs, kib;
  const char *tfmt; /* strftime format of --time-style, or NULL */
  uint32_t width;
  int status;
  int printed; /* something was printed (for blank lines between parts) */
} ls_state;

static int ls_cmp(const ls_state *s, const ls_ent *a, const ls_ent *b) {
  int r = 0;
  if (s->groupdirs) {
    int da = a->st.kind == VFS_DIR, db = b->st.kind == VFS_DIR;
    if (da != db) return db - da;
  }
  if (s->sort == LS_SORT_SIZE) {
    uint64_t x = cmd_size(&a->st), y = cmd_size(&b->st);
    r = x < y ? 1 : x > y ? -1 : 0;
  } else if (s->sort == LS_SORT_TIME) {
    r = a->st.mtime_ns < b->st.mtime_ns   ? 1
        : a->st.mtime_ns > b->st.mtime_ns ? -1
                                          : 0;
  }
  if (!r) r = strcmp(a->name, b->name);
  return s->reverse ? -r : r;
}

static int ls_order(const void *a, const void *b, void *s) {
  return ls_cmp(s, a, b);
}

/* Stable sort (ties keep their order, like GNU's). */
static int ls_sort(ls_state *s, ls_ent *v, size_t n) {
  ls_ent *tmp;
  if (s->sort == LS_SORT_NONE || n < 2) return 0;
  tmp = arena_alloc(s->c->a, n * sizeof *tmp);
  if (!tmp) return MSB_ENOMEM;
  order_sort(v, n, sizeof *v, tmp, ls_order, s);
  return 0;
}

static int ls_indicator(const ls_state *s, const ls_ent *e) {
  int kind = e->st.kind;
  if (!s->classify && !s->slash) return 0;
  if (kind == VFS_DIR) return '/';
  if (!s->classify) return 0;
  if (kind == VFS_LINK) return '@';
  if (e->st.mode & 0111) return '*';
  return 0;
}

static void ls_num(ls_state *s, uint64_t v, char out[32]) {
  if (s->human || s->si)
    cmd_human(v, s->si, out);
  else
    snprintf(out, 32, "%llu", (unsigned long long)v);
}

/* -s block column: 1 KiB units (or human). */
static void ls_blocks(ls_state *s, const ls_ent *e, char out[32]) {
  uint64_t b = cmd_blocks(&e->st);
  if (s->human || s->si)
    cmd_human(b * 512, s->si, out);
  else
    snprintf(out, 32, "%llu", (unsigned long long)(b / 2));
}

static size_t ls_name_width(ls_state *s, const ls_ent *e, int iw, int bw) {
  size_t n = strlen(e->name);
  if (s->inode) n += (size_t)iw + 1;
  if (s->size) n += (size_t)bw + 1;
  if (ls_indicator(s, e)) n++;
  return n;
}

static void ls_put_name(ls_state *s, const ls_ent *e, int iw, int bw) {
  buf *o = s->c->out;
  char tmp[32];
  int ind;
  if (s->inode) buf_printf(o, "%*llu ", iw, (unsigned long long)e->st.ino);
  if (s->size) {
    ls_blocks(s, e, tmp);
    buf_printf(o, "%*s ", bw, tmp);
  }
  buf_puts(o, e->name);
  ind = ls_indicator(s, e);
  if (ind) buf_putc(o, ind);
}

static void ls_indent(buf *o, size_t from, size_t to) {
  while (from < to) {
    if (to / 8 > (from + 1) / 8) {
      buf_putc(o, '\t');
      from += 8 - from % 8;
    } else {
      buf_putc(o, ' ');
      from++;
    }
  }
}

static int ls_columns(ls_state *s, ls_ent *v, size_t n, int iw, int bw) {
  size_t max_cols, i, f, cols, rows, *arr, *len, *lens;
  size_t width = s->width ? s->width : SIZE_MAX / 4;
  int *valid;
  buf *o = s->c->out;
  int by_cols = s->format == LS_COLS;
  if (!n) return 0;
  max_cols = width / 3;
  if (!max_cols || max_cols > n) max_cols = n;
  if (max_cols > 1000) max_cols = 1000; /* bounds the O(cols^2) table */
  arr = arena_zalloc(s->c->a, max_cols * (max_cols + 1) / 2 * sizeof *arr);
  len = arena_zalloc(s->c->a, max_cols * sizeof *len);
  valid = arena_zalloc(s->c->a, max_cols * sizeof *valid);
  lens = arena_zalloc(s->c->a, n * sizeof *lens);
  if (!arr || !len || !valid || !lens) return MSB_ENOMEM;
  /* Column i+1 candidate widths live at arr[i*(i+1)/2 ...]. */
  for (i = 0; i < max_cols; i++) {
    size_t j;
    valid[i] = 1;
    len[i] = (i + 1) * 3;
    for (j = 0; j <= i; j++) arr[i * (i + 1) / 2 + j] = 3;
  }
  for (f = 0; f < n; f++) {
    lens[f] = ls_name_width(s, &v[f], iw, bw);
    for (i = 0; i < max_cols; i++) {
      size_t idx, real, *ca;
      if (!valid[i]) continue;
      idx = by_cols ? f / ((n + i) / (i + 1)) : f % (i + 1);
      real = lens[f] + (idx == i ? 0 : 2);
      ca = &arr[i * (i + 1) / 2 + idx];
      if (*ca < real) {
        len[i] += real - *ca;
        *ca = real;
        valid[i] = len[i] < width;
      }
    }
  }
  for (cols = max_cols; cols > 1; cols--)
    if (valid[cols - 1]) break;
  {
    size_t *cw = &arr[(cols - 1) * cols / 2];
    if (by_cols) {
      size_t r;
      rows = n / cols + (n % cols != 0);
      for (r = 0; r < rows; r++) {
        size_t col = 0, pos = 0;
        f = r;
        for (;;) {
          size_t mx = cw[col++];
          ls_put_name(s, &v[f], iw, bw);
          if ((f += rows) >= n) break;
          ls_indent(o, pos + lens[f - rows], pos + mx);
          pos += mx;
        }
        buf_putc(o, '\n');
      }
    } else {
      size_t pos = 0, mx = cw[0];
      ls_put_name(s, &v[0], iw, bw);
      for (f = 1; f < n; f++) {
        size_t col = f % cols;
        if (col == 0) {
          buf_putc(o, '\n');
          pos = 0;
        } else {
          ls_indent(o, pos + lens[f - 1], pos + mx);
          pos += mx;
        }
        ls_put_name(s, &v[f], iw, bw);
        mx = cw[col];
      }
      buf_putc(o, '\n');
    }
  }
  return 0;
}

static int ls_commas(ls_state *s, ls_ent *v, size_t n, int iw, int bw) {
  size_t pos = 0, f, w = s->width;
  buf *o = s->c->out;
  for (f = 0; f < n; f++) {
    size_t len = ls_name_width(s, &v[f], iw, bw);
    if (f) {
      if (!w || pos + len + 2 < w) {
        buf_puts(o, ", ");
        pos += 2;
      } else {
        buf_puts(o, ",\n");
        pos = 0;
      }
    }
    ls_put_name(s, &v[f], iw, bw);
    pos += len;
  }
  if (n) buf_putc(o, '\n');
  return 0;
}

/* The size column: bytes, or a device's "major, minor" as GNU ls. */
static void ls_size(ls_state *s, const struct vfs_stat *st, char tmp[32]) {
  if (st->mode & VFS_CHR)
    snprintf(tmp, 32, "%u, %u", (unsigned)(st->rdev >> 8),
             (unsigned)(st->rdev & 0xff));
  else
    ls_num(s, cmd_size(st), tmp);
}

static int ls_long(ls_state *s, ls_ent *v, size_t n, int iw, int bw) {
  int lw = 0, sw = 0, ow = 4, w;
  size_t i;
  char tmp[32];
  buf *o = s->c->out;
  int64_t now = s->c->clock_ns ? *s->c->clock_ns : vfs_clock(s->c->fs);
  const char *own = s->numeric ? "1000" : "user";
  for (i = 0; i < n; i++) {
    snprintf(tmp, sizeof tmp, "%lu", (unsigned long)v[i].st.nlink);
    w = (int)strlen(tmp);
    if (w > lw) lw = w;
    ls_size(s, &v[i].st, tmp);
    w = (int)strlen(tmp);
    if (w > sw) sw = w;
  }
  for (i = 0; i < n; i++) {
    ls_ent *e = &v[i];
    char mode[11], tbuf[48];
    if (s->inode) buf_printf(o, "%*llu ", iw, (unsigned long long)e->st.ino);
    if (s->size) {
      ls_blocks(s, e, tmp);
      buf_printf(o, "%*s ", bw, tmp);
    }
    cmd_mode_str(e->st.kind, e->st.mode, mode);
    buf_printf(o, "%s %*lu ", mode, lw, (unsigned long)e->st.nlink);
    if (!s->noown) buf_printf(o, "%-*s ", ow, own);
    if (!s->nogrp) buf_printf(o, "%-*s ", ow, own);
    ls_size(s, &e->st, tmp);
    buf_printf(o, "%*s ", sw, tmp);
    if (s->tfmt) {
      /* --time-style=long-iso or +FORMAT */
      cmd_strftime(o, s->tfmt, e->st.mtime_ns);
      buf_putc(o, ' ');
    } else {
      if (s->fulltime)
        cmd_time_full(e->st.mtime_ns, tbuf);
      else
        cmd_time_ls(e->st.mtime_ns, now, tbuf);
      buf_printf(o, "%s ", tbuf);
    }
    buf_puts(o, e->name);
    if (e->st.kind == VFS_LINK && e->target) {
      buf_puts(o, " -> ");
      buf_puts(o, e->target);
      if (s->classify && e->tkind) {
        ls_ent t = *e;
        t.st.kind = e->tkind;
        t.st.mode = e->tmode;
        if (ls_indicator(s, &t)) buf_putc(o, ls_indicator(s, &t));
      }
    } else {
      int ind = ls_indicator(s, e);
      if (ind) buf_putc(o, ind);
    }
    buf_putc(o, '\n');
  }
  return 0;
}

/* Prints a block of entries (already sorted) in the chosen format. */
static int ls_print(ls_state *s, ls_ent *v, size_t n, int total) {
  int iw = 0, bw = 0, w, rc = 0;
  size_t i;
  char tmp[32];
  uint64_t blocks = 0;
  for (i = 0; i < n; i++) {
    if (s->inode) {
      snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v[i].st.ino);
      w = (int)strlen(tmp);
      if (w > iw) iw = w;
    }
    if (s->size) {
      ls_blocks(s, &v[i], tmp);
      w = (int)strlen(tmp);
      if (w > bw) bw = w;
    }
    blocks += cmd_blocks(&v[i].st);
  }
  if (s->format == LS_COMMAS) iw = bw = 0; /* GNU pads all but -m */
  if (total && (s->format == LS_LONG || s->size)) {
    if (s->human || s->si)
      cmd_human(blocks * 512, s->si, tmp);
    else
      snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)(blocks / 2));
    buf_printf(s->c->out, "total %s\n", tmp);
  }
  if (s->format == LS_LONG)
    rc = ls_long(s, v, n, iw, bw);
  else if (s->format == LS_COLS || s->format == LS_ROWS)
    rc = ls_columns(s, v, n, iw, bw);
  else if (s->format == LS_COMMAS)
    rc = ls_commas(s, v, n, iw, bw);
  else
    for (i = 0; i < n; i++) {
      ls_put_name(s, &v[i], iw, bw);
      buf_putc(s->c->out, '\n');
    }
  if (s->c->out->err) return s->c->out->err;
  if (s->c->out_max && s->c->out->len > s->c->out_max) return MSB_ELIMIT;
  return rc;
}

/* Fills link details for long format. */
static void ls_link(ls_state *s, ls_ent *e) {
  buf b;
  struct vfs_stat t;
  if (e->st.kind != VFS_LINK) return;
  buf_init(&b, s->c->m);
  if (vfs_readlink(s->c->fs, e->abs, &b) == 0 && !b.err)
    e->target = arena_strndup(s->c->a, buf_str(&b), b.len);
  buf_finish(&b);
  if (vfs_stat(s->c->fs, e->abs, 1, &t) == 0) {
    e->tkind = t.kind;
    e->tmode = t.mode;
  }
}

static int ls_make(ls_state *s, ls_ent *e, const char *name, const char *abs,
                   int follow) {
  int rc;
  memset(e, 0, sizeof *e);
  e->name = name;
  e->abs = abs;
  rc = vfs_stat(s->c->fs, abs, follow, &e->st);
  if (rc < 0 && follow) rc = vfs_stat(s->c->fs, abs, 0, &e->st);
  if (rc == 0 && s->format == LS_LONG) ls_link(s, e);
  return rc;
}

static char *ls_join(cmd_ctx *c, const char *dir, const char *name, size_t nl) {
  size_t dl = strlen(dir);
  int slash = dl && dir[dl - 1] != '/';
  char *p = arena_alloc(c->a, dl + (size_t)slash + nl + 1);
  if (!p) return 0;
  memcpy(p, dir, dl);
  if (slash) p[dl] = '/';
  memcpy(p + dl + (size_t)slash, name, nl);
  p[dl + (size_t)slash + nl] = 0;
  return p;
}

/* Lists one directory (name as displayed, abs path); header when asked.
 * Recursion (-R) uses an explicit worklist in the caller. */
static int ls_dir(ls_state *s, const char *name, const char *abs, int header,
                  char ***subs, size_t *nsubs) {
  vfs_dir d;
  const char *en;
  size_t nl, n = 0, cap = 16, i;
  ls_ent *v;
  int rc;
  cmd_ctx *c = s->c;
  *subs = 0;
  *nsubs = 0;
  rc = vfs_opendir(c->fs, abs, &d);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "cannot open directory %s: %s", cmd_quote(c, name),
            cmd_strerror(rc));
    s->status = 2;
    return 0;
  }
  if (header) {
    if (s->printed) buf_putc(c->out, '\n');
    buf_printf(c->out, "%s:\n", name);
  }
  s->printed = 1;
  v = arena_alloc(c->a, cap * sizeof *v);
  if (!v) {
    vfs_closedir(&d);
    return MSB_ENOMEM;
  }
  if (s->all) {
    const char *dots[] = {".", ".."};
    for (i = 0; i < 2; i++) {
      const char *p = i ? cmd_path(c, ls_join(c, abs, "..", 2)) : abs;
      if (!p) {
        vfs_closedir(&d);
        return MSB_ENOMEM;
      }
      ls_make(s, &v[n], dots[i], p, 1);
      n++;
    }
  }
  while (vfs_readdir(&d, &en, &nl, 0) == 1) {
    char *nm, *p;
    if (en[0] == '.' && !s->all && !s->almost) continue;
    if ((n % 1000) == 999 && (rc = cmd_tick(c, 1)) < 0) {
      vfs_closedir(&d);
      return rc;
    }
    if (n == cap) {
      ls_ent *nv = arena_alloc(c->a, cap * 2 * sizeof *nv);
      if (!nv) {
        vfs_closedir(&d);
        return MSB_ENOMEM;
      }
      memcpy(nv, v, n * sizeof *v);
      v = nv;
      cap *= 2;
    }
    nm = arena_strndup(c->a, en, nl);
    p = nm ? ls_join(c, abs, en, nl) : 0;
    if (!p) {
      vfs_closedir(&d);
      return MSB_ENOMEM;
    }
    ls_make(s, &v[n], nm, p, s->deref);
    n++;
  }
  vfs_closedir(&d);
  if ((rc = ls_sort(s, v, n)) < 0) return rc;
  if ((rc = ls_print(s, v, n, 1)) < 0) return rc;
  if (s->rec) {
    char **sv = arena_alloc(c->a, (n + 1) * sizeof *sv);
    size_t k = 0;
    if (!sv) return MSB_ENOMEM;
    for (i = 0; i < n; i++) {
      if (v[i].st.kind != VFS_DIR) continue;
      if (!strcmp(v[i].name, ".") || !strcmp(v[i].name, "..")) continue;
      sv[k] = ls_join(c, name, v[i].name, strlen(v[i].name));
      if (!sv[k]) return MSB_ENOMEM;
      k++;
    }
    *subs = sv;
    *nsubs = k;
  }
  return 0;
}

/* -R: 1 if the directory at abs was not listed before (and records it),
 * 0 if it was (a symlink loop under -L), or MSB_ENOMEM. */
static int ls_first_visit(ls_state *s, const char *abs) {
  struct vfs_stat st;
  if (vfs_stat(s->c->fs, abs, 1, &st) < 0) return 1;
  return cmd_inodes_add(s->c, &s->seen, st.ino);
}

/* Lists a directory and, with -R, its subdirectories depth-first using an
 * explicit stack (no C recursion). */
static int ls_tree(ls_state *s, const char *name, int header) {
  char **stack;
  size_t n = 1, cap = 64;
  int rc;
  cmd_ctx *c = s->c;
  stack = arena_alloc(c->a, cap * sizeof *stack);
  if (!stack) return MSB_ENOMEM;
  stack[0] = (char *)name;
  while (n) {
    char *nm = stack[--n], **subs;
    const char *abs = cmd_path(c, nm);
    size_t ns, i;
    if (!abs) return MSB_ENOMEM;
    if (s->rec && s->deref) {
      rc = ls_first_visit(s, abs);
      if (rc < 0) return rc;
      if (rc == 0) {
        cmd_err(c, "%s: not listing already-listed directory",
                cmd_quotef(c, nm));
        s->status = 2;
        continue;
      }
    }
    rc = ls_dir(s, nm, abs, header, &subs, &ns);
    if (rc < 0) return rc;
    header = 1;
    if (n + ns > cap) {
      char **nst;
      while (n + ns > cap) cap *= 2;
      nst = arena_alloc(c->a, cap * sizeof *nst);
      if (!nst) return MSB_ENOMEM;
      memcpy(nst, stack, n * sizeof *nst);
      stack = nst;
    }
    for (i = ns; i > 0; i--) stack[n++] = subs[i - 1];
  }
  return 0;
}

static int ls_refuse(cmd_ctx *c, const char *what) {
  cmd_err(c, "%s is not supported in this sandbox", what);
  return 2;
}

/* ls: list files and directory contents. */
int cmd_ls(cmd_ctx *c) {
  static char *dot[] = {(char *)".", 0};
  cmd_getopt g;
  ls_state s;
  int k, i, rc, nops;
  char **ops;
  ls_ent *files, *dirs;
  size_t nf = 0, nd = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.width = 80;
  s.format = LS_ONE;
  cmd_opt_init(&g, c, ls_opts, ls_usage, 0);
  g.status = 2;
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'a':
      s.all = 1;
      s.almost = 0;
      break;
    case 'A':
      s.almost = 1;
      s.all = 0;
      break;
    case 'C': s.format = LS_COLS; break;
    case 'd': s.dir = 1; break;
    case 'f':
      s.all = 1;
      s.sort = LS_SORT_NONE;
      break;
    case 'F': s.classify = 1; break;
    case 'g':
      s.format = LS_LONG;
      s.noown = 1;
      break;
    case 'G': s.nogrp = 1; break;
    case 'h': s.human = 1; break;
    case 'H': s.deref_cmd = 1; break;
    case 'i': s.inode = 1; break;
    case 'k': s.kib = 1; break;
    case 'l': s.format = LS_LONG; break;
    case 'L': s.deref = 1; break;
    case 'm': s.format = LS_COMMAS; break;
    case 'n':
      s.format = LS_LONG;
      s.numeric = 1;
      break;
    case 'N': break;
    case 'o':
      s.format = LS_LONG;
      s.nogrp = 1;
      break;
    case 'p': s.slash = 1; break;
    case 'r': s.reverse = 1; break;
    case 'R': s.rec = 1; break;
    case 's': s.size = 1; break;
    case 'S': s.sort = LS_SORT_SIZE; break;
    case 't': s.sort = LS_SORT_TIME; break;
    case 'U': s.sort = LS_SORT_NONE; break;
    case 'x': s.format = LS_ROWS; break;
    case '1': s.format = LS_ONE; break;
    case LS_SI: s.si = 1; break;
    case LS_FULLTIME:
      s.format = LS_LONG;
      s.fulltime = 1;
      break;
    case LS_GROUPDIRS: s.groupdirs = 1; break;
    case 'w': {
      int64_t w;
      if (cmd_parse_int(g.arg, &w) < 0 || w < 0 || w > 100000) {
        cmd_err(c, "invalid line width: %s", cmd_quote(c, g.arg));
        return 2;
      }
      s.width = (uint32_t)w;
      break;
    }
    case LS_COLOR:
      if (g.arg && strcmp(g.arg, "never") && strcmp(g.arg, "no") &&
          strcmp(g.arg, "none") && strcmp(g.arg, "auto") &&
          strcmp(g.arg, "tty") && strcmp(g.arg, "if-tty"))
        return ls_refuse(c, "--color=always");
      if (!g.arg) return ls_refuse(c, "--color=always");
      break;
    case LS_TIMESTYLE:
      if (!strcmp(g.arg, "full-iso")) {
        s.fulltime = 1;
      } else if (!strcmp(g.arg, "long-iso")) {
        s.tfmt = "%Y-%m-%d %H:%M";
      } else if (g.arg[0] == '+' && !strchr(g.arg, '\n')) {
        s.tfmt = g.arg + 1;
      } else if (strcmp(g.arg, "locale") && strcmp(g.arg, "posix-locale")) {
        return ls_refuse(c,
                         "--time-style other than full-iso, long-iso, "
                         "+FORMAT or locale");
      }
      break;
    case LS_INDICATOR:
      if (!strcmp(g.arg, "slash"))
        s.slash = 1;
      else if (!strcmp(g.arg, "classify"))
        s.classify = 1;
      else if (strcmp(g.arg, "none"))
        return ls_refuse(c, "that indicator");
      break;
    case 'b': return ls_refuse(c, "ls -b");
    case 'c': return ls_refuse(c, "ls -c (change time)");
    case 'q': return ls_refuse(c, "ls -q");
    case 'Q': return ls_refuse(c, "ls -Q");
    case 'u': return ls_refuse(c, "ls -u (access time)");
    case 'v': return ls_refuse(c, "ls -v (version sort)");
    case 'X': return ls_refuse(c, "ls -X (extension sort)");
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  (void)s.kib;
  ops = g.nops ? g.ops : dot;
  nops = g.nops ? g.nops : 1;
  files = arena_alloc(c->a, (size_t)nops * sizeof *files);
  dirs = arena_alloc(c->a, (size_t)nops * sizeof *dirs);
  if (!files || !dirs) return MSB_ENOMEM;
  for (i = 0; i < nops; i++) {
    const char *abs = cmd_path(c, ops[i]);
    size_t ol = strlen(ops[i]);
    int follow = s.deref || s.deref_cmd ||
                 !(s.dir || s.classify || s.format == LS_LONG) ||
                 (ol && ops[i][ol - 1] == '/');
    ls_ent e;
    if (!abs) return MSB_ENOMEM;
    rc = cmd_slash_check(c, ops[i], abs);
    if (rc == 0) rc = ls_make(&s, &e, ops[i], abs, follow);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      cmd_err(c, "cannot access %s: %s", cmd_quote(c, ops[i]),
              cmd_strerror(rc));
      s.status = 2;
      continue;
    }
    if (e.st.kind == VFS_DIR && !s.dir)
      dirs[nd++] = e;
    else
      files[nf++] = e;
  }
  if ((rc = ls_sort(&s, files, nf)) < 0) return rc;
  if ((rc = ls_sort(&s, dirs, nd)) < 0) return rc;
  if (nf) {
    if ((rc = ls_print(&s, files, nf, 0)) < 0) return rc;
    s.printed = 1;
  }
  for (i = 0; i < (int)nd; i++) {
    int header = nops > 1 || s.rec;
    rc = ls_tree(&s, dirs[i].name, header);
    if (rc < 0) return rc;
  }
  return s.status;
}
