/* tar.c - create, list and extract tar archives (GNU tar 1.34 subset).
 *
 * Usage: tar -c|-t|-x [-zvpOk] [-f ARCHIVE] [-C DIR] [--strip-components=N]
 *            [--overwrite] [--skip-old-files] [--exclude=PATTERN]... [FILE]...
 * Old-style bundles ("tar czf a.tgz dir") are unbundled first: each
 * letter becomes an option and f/C take the next arguments in order.
 * Created archives are POSIX ustar/pax with owner user/user (1000),
 * children in byte order, and -z output has GNU gzip's stdin header (no
 * name, mtime 0), so GNU tar reads them.
 *
 * Reading goes through archive.c, which rejects what it cannot vouch for.
 * A compressed archive is listed or extracted while it expands (gzip is
 * detected by its magic), a member's bytes let go once handled: expansion
 * stops at the end-of-archive block, as GNU tar stops reading there, and
 * at the header of a member whose announced end lies past the expansion
 * bound (the quota plus 64 MiB), so a bomb costs nothing.
 *
 * Extraction keeps every member inside the target as GNU tar does: the
 * prefix GNU removes from a name (leading "/", or up to its last "..") is
 * reported once, a name holding ".." is refused, hard link targets lose
 * the same prefixes, and a symbolic link that could lead outside (an
 * absolute target, or one with "..") is extracted as an empty placeholder
 * file and only made a link once the archive is done, so a later member
 * under it fails ("Cannot open: Not a directory") instead of being written
 * through it. Links that stay inside are made at once and followed, as
 * GNU does.
 *
 * Deviations: -C applies to every operand (GNU applies it positionally);
 * hard links are stored as copies on create and extracted as copies;
 * -j/-J/--zstd and modes other than -c/-t/-x are refused with a message;
 * corrupt archives stop with archive.c's reason instead of GNU's
 * resynchronisation, and device, FIFO and sparse members stop listing
 * and extraction ("device nodes are not supported"). */
#include <stdio.h>
#include <string.h>

#include "../archive.h"
#include "../cold.h"
#include "../glob.h"
#include "../inf.h"
#include "cmd.h"

static const char tar_usage[] MSB_COLD =
    "Usage: tar [OPTION...] [FILE]...\n"
    "GNU 'tar' saves many files together into a single tape or disk "
    "archive,\nand can restore individual files from the archive.\n"
    "\n"
    "  -c, --create               create a new archive\n"
    "  -t, --list                 list the contents of an archive\n"
    "  -x, --extract, --get       extract files from an archive\n"
    "  -f, --file=ARCHIVE         use archive file or device ARCHIVE\n"
    "  -C, --directory=DIR        change to directory DIR\n"
    "  -z, --gzip                 filter the archive through gzip\n"
    "  -a, --auto-compress        use archive suffix to determine the "
    "compression\n"
    "  -v, --verbose              verbosely list files processed\n"
    "  -p, --preserve-permissions extract information about file "
    "permissions\n"
    "  -O, --to-stdout            extract files to standard output\n"
    "  -k, --keep-old-files       don't replace existing files when "
    "extracting,\n"
    "                             treat them as errors\n"
    "      --overwrite            overwrite existing files when extracting\n"
    "      --skip-old-files       don't replace existing files when "
    "extracting,\n"
    "                             silently skip over them\n"
    "      --strip-components=NUMBER   strip NUMBER leading components "
    "from file\n"
    "                             names on extraction\n"
    "      --exclude=PATTERN      exclude files, given as a PATTERN\n";

enum { TAR_STRIP = 256, TAR_EXCLUDE, TAR_ZSTD, TAR_SKIP_OLD, TAR_OVERWRITE };

static const cmd_opt tar_opts[] = {
    {'c', "create", CMD_ARG_NONE, 'c'},
    {'t', "list", CMD_ARG_NONE, 't'},
    {'x', "extract", CMD_ARG_NONE, 'x'},
    {0, "get", CMD_ARG_NONE, 'x'},
    {'f', "file", CMD_ARG_REQ, 'f'},
    {'C', "directory", CMD_ARG_REQ, 'C'},
    {'z', "gzip", CMD_ARG_NONE, 'z'},
    {0, "gunzip", CMD_ARG_NONE, 'z'},
    {'a', "auto-compress", CMD_ARG_NONE, 'a'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {'p', "preserve-permissions", CMD_ARG_NONE, 'p'},
    {'O', "to-stdout", CMD_ARG_NONE, 'O'},
    {'j', "bzip2", CMD_ARG_NONE, 'j'},
    {'J', "xz", CMD_ARG_NONE, 'J'},
    {0, "zstd", CMD_ARG_NONE, TAR_ZSTD},
    {'k', "keep-old-files", CMD_ARG_NONE, 'k'},
    {0, "skip-old-files", CMD_ARG_NONE, TAR_SKIP_OLD},
    {0, "overwrite", CMD_ARG_NONE, TAR_OVERWRITE},
    {0, "strip-components", CMD_ARG_REQ, TAR_STRIP},
    {0, "exclude", CMD_ARG_REQ, TAR_EXCLUDE},
    {0, 0, 0, 0}};

/* A set of strings with a number each (open addressing, doubled at half
 * full), in the arena: the prefixes already reported, the placeholders'
 * paths. */
typedef struct tar_set {
  const char **key;
  size_t *val;
  size_t cap, n;
} tar_set;

typedef struct tar_rd tar_rd;

typedef struct tar_st {
  cmd_ctx *c;
  int mode, gz, auto_gz, verbose, perms, tostdout, status;
  int keep;      /* -k: 1; --skip-old-files: 2 */
  int overwrite; /* --overwrite */
  const char *file, *dir, *base;
  int64_t strip;
  tar_set prefixes; /* removed prefixes already reported, tagged M or L */
  const char **excl;
  int nexcl;
  size_t ugw;
  tar_rd *rd; /* while listing or extracting */
  arc_links links; /* while creating: files of several names met */
} tar_st;

/* Output bytes between two looks at an expanding archive. */
#define TAR_WATCH_STEP ((size_t)64 << 10)

static void tar_msg(tar_st *s, const char *a, const char *b, const char *c2) {
  buf *e = s->c->err;
  buf_puts(e, "tar: ");
  buf_puts(e, a);
  if (b) buf_puts(e, b);
  if (c2) buf_puts(e, c2);
  buf_putc(e, '\n');
}

static int tar_fatal(tar_st *s, const char *a, const char *b) {
  if (a) tar_msg(s, a, b, NULL);
  tar_msg(s, "Error is not recoverable: exiting now", NULL, NULL);
  return 2;
}

static size_t tar_hash(const char *k, size_t n) {
  uint32_t h = 2166136261u;
  while (n--) h = (h ^ (uint8_t)*k++) * 16777619u;
  return h;
}

/* The number kept for k[0..n), or NULL. */
static size_t *tar_set_find(tar_set *t, const char *k, size_t n) {
  size_t i;
  if (!t->cap) return NULL;
  for (i = tar_hash(k, n) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
    if (strlen(t->key[i]) == n && !memcmp(t->key[i], k, n)) return &t->val[i];
  return NULL;
}

/* Keeps v for a copy of k[0..n) (replacing an earlier number). */
static int tar_set_put(cmd_ctx *c, tar_set *t, const char *k, size_t n,
                       size_t v) {
  size_t *old = tar_set_find(t, k, n), i;
  if (old) {
    *old = v;
    return 0;
  }
  if (2 * (t->n + 1) > t->cap) {
    tar_set g;
    g.cap = t->cap ? 2 * t->cap : 64;
    g.n = 0;
    g.key = arena_zalloc(c->a, g.cap * sizeof *g.key);
    g.val = arena_alloc(c->a, g.cap * sizeof *g.val);
    if (!g.key || !g.val) return MSB_ENOMEM;
    for (i = 0; i < t->cap; i++)
      if (t->key[i]) {
        size_t j = tar_hash(t->key[i], strlen(t->key[i])) & (g.cap - 1);
        while (g.key[j]) j = (j + 1) & (g.cap - 1);
        g.key[j] = t->key[i];
        g.val[j] = t->val[i];
        g.n++;
      }
    *t = g;
  }
  i = tar_hash(k, n) & (t->cap - 1);
  while (t->key[i]) i = (i + 1) & (t->cap - 1);
  if (!(t->key[i] = arena_strndup(c->a, k, n))) return MSB_ENOMEM;
  t->val[i] = v;
  t->n++;
  return 0;
}

/* Rewrites an old-style first argument ("czf") into options. */
static int tar_unbundle(cmd_ctx *c) {
  char **nv;
  int i, k = 1, next = 2, n;
  const char *b;
  if (c->argc < 2 || c->argv[1][0] == '-') return 0;
  b = c->argv[1];
  n = c->argc + (int)strlen(b) + 1;
  nv = arena_alloc(c->a, (size_t)n * sizeof *nv);
  if (!nv) return MSB_ENOMEM;
  nv[0] = c->argv[0];
  for (; *b; b++) {
    char *o = arena_alloc(c->a, 3);
    if (!o) return MSB_ENOMEM;
    o[0] = '-';
    o[1] = *b;
    o[2] = 0;
    nv[k++] = o;
    if ((*b == 'f' || *b == 'C') && next < c->argc) nv[k++] = c->argv[next++];
  }
  for (i = next; i < c->argc; i++) nv[k++] = c->argv[i];
  nv[k] = NULL;
  c->argv = nv;
  c->argc = k;
  return 0;
}

static int tar_excluded(tar_st *s, const char *name) {
  int i;
  for (i = 0; i < s->nexcl; i++) {
    const char *p = name;
    size_t pl = strlen(s->excl[i]);
    for (;;) {
      if (glob_match(s->c->m, s->excl[i], pl, p, strlen(p), 0, NULL) == 1)
        return 1;
      p = strchr(p, '/');
      if (!p) break;
      p++;
    }
  }
  return 0;
}

/* ---- create --------------------------------------------------------- */

/* The prefix GNU tar removes from a member name: leading slashes, or
 * everything up to the last ".." component. */
static size_t tar_prefix(const char *op) {
  const char *p = op, *cut;
  while (*p == '/') p++;
  cut = p;
  while (*p) {
    const char *q = p;
    while (*q && *q != '/') q++;
    if (q - p == 2 && p[0] == '.' && p[1] == '.') {
      while (*q == '/') q++;
      cut = q;
    }
    while (*q == '/') q++;
    p = q;
  }
  return (size_t)(cut - op);
}

/* Reports a removed prefix once per distinct prefix, as GNU tar does:
 * separately for member names and for hard link targets (link). */
static void tar_prefix_msg(tar_st *s, const char *op, size_t k, int link) {
  cmd_ctx *c = s->c;
  buf key;
  int seen;
  buf_init(&key, c->m);
  buf_putc(&key, link ? 'L' : 'M');
  buf_put(&key, op, k);
  seen = key.err || tar_set_find(&s->prefixes, key.p, key.len) != NULL;
  if (!seen) tar_set_put(c, &s->prefixes, key.p, key.len, 0);
  buf_finish(&key);
  if (!seen)
    buf_printf(c->err, "tar: Removing leading `%.*s' from %s\n", (int)k, op,
               link ? "hard link targets" : "member names");
}

static int tar_add(tar_st *s, buf *out, const char *op) {
  cmd_ctx *c = s->c;
  cmd_walk *w;
  cmd_walk_ent *e;
  const char *abs, *mname = op;
  buf ab, nm, lk;
  size_t rootlen, ol, cut = tar_prefix(op);
  int rc;
  buf *vout = s->file && strcmp(s->file, "-") ? c->out : c->err;
  if (cut) {
    tar_prefix_msg(s, op, cut, 0);
    mname = op + cut;
    if (!*mname) mname = ".";
  }
  ol = strlen(mname);
  while (ol > 1 && mname[ol - 1] == '/') ol--;
  buf_init(&ab, c->m);
  buf_init(&nm, c->m);
  buf_init(&lk, c->m);
  rc = vfs_abspath(s->base, op, &ab);
  if (rc) {
    buf_finish(&ab);
    return rc == MSB_ENOMEM ? rc : 0;
  }
  abs = buf_str(&ab);
  rootlen = strlen(abs);
  rc = cmd_walk_open(c, abs, 0, &w);
  if (rc) {
    buf_finish(&ab);
    return rc;
  }
  while ((rc = cmd_walk_next(w, &e)) == 1) {
    arc_wentry we;
    const uint8_t *d = NULL;
    size_t n = 0;
    if (e->err) {
      tar_msg(s, e->depth ? e->path + 1 : op,
              ": Cannot stat: ", cmd_strerror(e->err));
      s->status = 2;
      continue;
    }
    buf_clear(&nm);
    buf_put(&nm, mname, ol);
    if (strlen(e->path) > rootlen) {
      if (nm.len && nm.p[nm.len - 1] == '/') buf_truncate(&nm, nm.len - 1);
      buf_puts(&nm, e->path + rootlen);
    }
    if (nm.err) break;
    if (s->nexcl && tar_excluded(s, buf_str(&nm))) {
      if (e->st.kind == VFS_DIR) cmd_walk_prune(w);
      continue;
    }
    memset(&we, 0, sizeof we);
    we.path = buf_str(&nm);
    we.mode = e->st.mode;
    /* whole seconds, as GNU tar's default format stores them */
    we.mtime_ns = cmd_ns_to_s(e->st.mtime_ns) * 1000000000;
    we.uid = we.gid = 1000;
    we.uname = we.gname = "user";
    if (e->st.kind == VFS_DIR) {
      we.type = ARC_DIR;
    } else if (e->st.kind == VFS_LINK) {
      buf_clear(&lk);
      if (vfs_readlink(c->fs, e->abs, &lk)) continue;
      we.type = ARC_SYMLINK;
      we.link = buf_str(&lk);
    } else if (e->st.nlink > 1 &&
               (we.link = arc_links_seen(&s->links, e->st.ino, we.path))) {
      we.type = ARC_HARDLINK; /* a later name of an earlier member */
    } else {
      if (s->links.names.err) break;
      if (vfs_read(c->fs, e->abs, &d, &n)) continue;
      we.type = ARC_FILE;
      we.data = d;
      we.size = n;
      we.command = vfs_prog_name(c->fs, e->st.prog); /* a command file */
    }
    if (s->verbose) { /* GNU prints the name as given, prefix and all */
      buf_put(vout, op, cut);
      buf_puts(vout, we.path);
      buf_puts(vout, e->st.kind == VFS_DIR ? "/\n" : "\n");
    }
    if (arc_tar_put(out, &we)) break;
  }
  cmd_walk_close(w);
  buf_finish(&ab);
  buf_finish(&nm);
  buf_finish(&lk);
  if (rc < 0) return rc;
  return out->err;
}

static int tar_create(tar_st *s, char **ops, int nops) {
  cmd_ctx *c = s->c;
  buf out, z;
  int i, rc = 0;
  if (nops == 0) {
    tar_msg(s, "Cowardly refusing to create an empty archive", NULL, NULL);
    buf_puts(c->err,
             "Try 'tar --help' or 'tar --usage' for more "
             "information.\n");
    return 2;
  }
  buf_init(&out, c->m);
  buf_init(&z, c->m);
  arc_links_init(&s->links, c->m);
  for (i = 0; i < nops && !rc; i++) rc = tar_add(s, &out, ops[i]);
  if (!rc) rc = s->links.names.err;
  arc_links_finish(&s->links);
  if (!rc) rc = arc_tar_end(&out, 0);
  if (!rc && s->gz)
    rc = arc_gzip(c->m, (const uint8_t *)out.p, out.len, ARC_GZ_LEVEL, NULL, 0,
                  &z);
  if (!rc) {
    buf *b = s->gz ? &z : &out;
    if (!s->file || !strcmp(s->file, "-")) {
      rc = cmd_write(c, b->p, b->len);
    } else {
      const char *p = cmd_path(c, s->file);
      rc = p ? vfs_write(c->fs, p, b->p, b->len, VFS_KEEP_MODE, CMD_NEWFILE(c),
                         NULL)
             : MSB_ENOMEM;
      if (rc && rc != MSB_ENOMEM) {
        tar_msg(s, s->file, ": Cannot open: ", cmd_strerror(rc));
        rc = 0;
        s->status = 2;
        buf_finish(&out);
        buf_finish(&z);
        return tar_fatal(s, NULL, NULL);
      }
    }
  }
  buf_finish(&out);
  buf_finish(&z);
  return rc;
}

/* ---- list and extract ----------------------------------------------- */

/* The reader's state while listing or extracting. */
typedef struct tar_rd {
  arc_tar t;
  arc_limits lim;
  char **ops;
  int nops;
  char *found;        /* operands matched */
  buf nm, dst, tmp, lnk; /* scratch names */
  buf dirs;           /* tar_dirtime records: directory mtimes, set last */
  buf delays;         /* tar_delay records, in extraction order */
  tar_set dset;       /* destination path -> its latest tar_delay */
  const char *fault;  /* why the watcher stopped the expansion */
  int err;            /* an error code that stopped it */
  int eoa;            /* the end of the archive was read */
} tar_rd;

typedef struct tar_dirtime {
  const char *path;
  int64_t mtime;
} tar_dirtime;

/* A symbolic link that could lead outside the target (absolute, or with
 * a ".." component), extracted as GNU tar does: an empty placeholder file
 * first, so no later member can be written through it, replaced by the
 * link once the archive is done. A later member extracted at the same
 * path takes the placeholder's place (GNU's check finds the same inode,
 * the one freed by the replacement), except a hard link, which is
 * another file's. */
typedef struct tar_delay {
  const char *abs, *shown, *link;
  int64_t mtime;
  uint64_t ino; /* the placeholder's */
  int live;
} tar_delay;

/* Whether a name has a ".." component. */
static int tar_dotdot(const char *p) {
  while (*p) {
    const char *q = p;
    while (*q && *q != '/') q++;
    if (q - p == 2 && p[0] == '.' && p[1] == '.') return 1;
    while (*q == '/') q++;
    p = q;
  }
  return 0;
}

/* Whether a symbolic link's target could lead outside the target
 * directory (GNU tar's test): absolute, or with a ".." component. */
static int tar_dangerous(const char *link) {
  return link[0] == '/' || tar_dotdot(link);
}

static void tar_listline(tar_st *s, const arc_entry *e, const char *name,
                         const char *link) {
  cmd_ctx *c = s->c;
  char modes[11], ug[80], size[24];
  cmd_tm tm;
  size_t pad;
  int kind = e->type == ARC_DIR       ? VFS_DIR
             : e->type == ARC_SYMLINK ? VFS_LINK
                                      : VFS_FILE;
  cmd_mode_str(kind, e->type == ARC_SYMLINK ? 0777 : e->mode, modes);
  if (e->type == ARC_HARDLINK) modes[0] = 'h';
  if (e->uname[0] && e->gname[0])
    snprintf(ug, sizeof ug, "%s/%s", e->uname, e->gname);
  else
    snprintf(ug, sizeof ug, "%llu/%llu", (unsigned long long)e->uid,
             (unsigned long long)e->gid);
  snprintf(size, sizeof size, "%llu",
           (unsigned long long)(e->type == ARC_FILE ? e->size : 0));
  pad = strlen(ug) + strlen(size);
  if (pad > s->ugw) s->ugw = pad;
  cmd_gmtime(cmd_ns_to_s(e->mtime_ns), &tm);
  cmd_outf(c, "%s %s %*s %04lld-%02d-%02d %02d:%02d %s", modes, ug,
           (int)(s->ugw - pad + strlen(size)), size, (long long)tm.year, tm.mon,
           tm.mday, tm.hour, tm.min, name);
  if (e->type == ARC_SYMLINK)
    cmd_outf(c, " -> %s", e->link);
  else if (e->type == ARC_HARDLINK)
    cmd_outf(c, " link to %s", link);
  cmd_puts(c, "\n");
}

/* Whether name is selected by the operands (exact or under a directory);
 * marks the operand found. */
static int tar_selected(const char *name, char **ops, int nops, char *found) {
  int i, any = 0;
  if (!nops) return 1;
  for (i = 0; i < nops; i++) {
    size_t k = strlen(ops[i]);
    while (k > 1 && ops[i][k - 1] == '/') k--;
    if (!strncmp(name, ops[i], k) && (name[k] == 0 || name[k] == '/')) {
      found[i] = 1;
      any = 1;
    }
  }
  return any;
}

/* A member or hard link target name as GNU extracts it: the prefix GNU
 * removes (reported once), then --strip-components, then cleaned; the
 * relative result goes to rel and base + it to abs. Returns the relative
 * name, or NULL when nothing is left. */
static const char *tar_dest(tar_st *s, const char *name, int link, buf *rel,
                            buf *abs) {
  size_t cut = tar_prefix(name);
  int64_t k = s->strip;
  const char *why;
  int sl;
  if (cut) tar_prefix_msg(s, name, cut, link);
  name += cut;
  while (k > 0 && *name) {
    const char *p = strchr(name, '/');
    if (!p) return NULL;
    while (*p == '/') p++;
    name = p;
    k--;
  }
  buf_clear(rel);
  if (!*name || arc_path_clean(name, rel, &sl, &why)) return NULL;
  buf_clear(abs);
  if (vfs_abspath(s->base, buf_str(rel), abs)) return NULL;
  return buf_str(rel);
}

/* "tar: NAME: Cannot WHAT: reason" and a failure status. */
static void tar_cannot(tar_st *s, const char *name, const char *what,
                       const char *link, int rc) {
  buf *e = s->c->err;
  buf_printf(e, "tar: %s: Cannot %s", name, what);
  if (link) buf_printf(e, " '%s'", link);
  buf_printf(e, ": %s\n", cmd_strerror(rc));
  s->status = 2;
}

/* The words of a creation failure for a member of type type. */
static const char *tar_verb(int type, int rc) {
  if (type == ARC_SYMLINK) return "create symlink to";
  if (type == ARC_HARDLINK) return "hard link to";
  if (type == ARC_DIR) return "mkdir";
  return rc == MSB_EFBIG || rc == MSB_ENOSPC ? "write" : "open";
}

/* Clears the way for a member of type type at d, as GNU tar's default,
 * --overwrite, -k and --skip-old-files do: 0 to create it, 1 to leave it
 * (a message printed where GNU prints one). Missing parents are made. */
static int tar_room(tar_st *s, tar_rd *r, const char *d, const char *shown,
                    int type, const char *link) {
  struct vfs_stat st;
  size_t k = strlen(d);
  int rc;
  while (k > 1 && d[k - 1] != '/') k--;
  buf_clear(&r->tmp);
  buf_put(&r->tmp, d, k > 1 ? k - 1 : 1);
  if (!r->tmp.err)
    vfs_mkdir(s->c->fs, buf_str(&r->tmp), 0755,
              VFS_MK_PARENTS | VFS_MK_EXIST_OK);
  if (vfs_stat(s->c->fs, d, 0, &st)) return 0; /* the creation says why */
  if (type == ARC_DIR) {
    if (st.kind == VFS_DIR || s->keep) return st.kind == VFS_DIR ? 0 : 1;
  } else if (s->keep) {
    if (s->keep == 1) tar_cannot(s, shown, tar_verb(type, 0), link, MSB_EEXIST);
    return 1;
  } else if (st.kind == VFS_DIR && st.nodes > 1) {
    rc = s->overwrite && type == ARC_FILE ? MSB_EISDIR : MSB_EEXIST;
    tar_cannot(s, shown, tar_verb(type, 0), link, rc);
    return 1;
  }
  rc = vfs_remove(s->c->fs, d, VFS_RM_DIR);
  if (rc && rc != MSB_ENOENT) {
    tar_cannot(s, shown, "unlink", NULL, rc);
    return 1;
  }
  return 0;
}

/* Extracts a dangerous symlink as its placeholder (see tar_delay). */
static int tar_placeholder(tar_st *s, tar_rd *r, const char *d,
                           const char *shown, const char *link, int64_t mtime) {
  cmd_ctx *c = s->c;
  tar_delay dl;
  struct vfs_stat st;
  int rc = vfs_write(c->fs, d, "", 0, VFS_EXCL, 0, NULL);
  if (rc) return rc;
  vfs_chmod(c->fs, d, 0);
  memset(&dl, 0, sizeof dl);
  dl.abs = arena_strdup(c->a, d);
  dl.shown = arena_strdup(c->a, shown);
  dl.link = arena_strdup(c->a, link);
  dl.mtime = mtime;
  dl.live = 1;
  if (!vfs_stat(c->fs, d, 0, &st)) dl.ino = st.ino;
  if (!dl.abs || !dl.shown || !dl.link) return MSB_ENOMEM;
  if (tar_set_put(c, &r->dset, dl.abs, strlen(dl.abs),
                  r->delays.len / sizeof dl))
    return MSB_ENOMEM;
  return buf_put(&r->delays, &dl, sizeof dl);
}

/* The live delayed link whose placeholder is still at abs, or NULL. */
static tar_delay *tar_delay_at(tar_st *s, tar_rd *r, const char *abs) {
  const size_t *i = tar_set_find(&r->dset, abs, strlen(abs));
  tar_delay *dl;
  struct vfs_stat st;
  if (!i) return NULL;
  dl = (tar_delay *)(void *)r->delays.p + *i;
  if (!dl->live || vfs_stat(s->c->fs, abs, 0, &st) || st.ino != dl->ino)
    return NULL;
  return dl;
}

/* A hard link to t (absolute; NULL when its name left nothing), shown
 * as shown_t: another name of an earlier member (vfs_link), or another
 * placeholder when it names one. */
static int tar_hardlink(tar_st *s, tar_rd *r, const arc_entry *e, const char *d,
                        const char *shown, const char *t, const char *shown_t) {
  cmd_ctx *c = s->c;
  tar_delay *dl = t ? tar_delay_at(s, r, t) : NULL;
  int rc;
  if (dl) {
    tar_delay copy = *dl;
    rc = tar_placeholder(s, r, d, shown, copy.link, copy.mtime);
  } else {
    rc = t ? vfs_link(c->fs, t, d) : MSB_ENOENT;
  }
  if (rc == MSB_ENOMEM) return rc;
  if (rc) {
    if (rc == MSB_ENOTDIR) tar_cannot(s, shown_t, "stat", NULL, rc);
    tar_cannot(s, shown, "hard link to", shown_t, rc);
  } else if (!dl) {
    vfs_utime(c->fs, d, e->mtime_ns, 1);
  }
  return 0;
}

/* Extracts one member at d (absolute), named shown in messages. */
static int tar_extract_one(tar_st *s, tar_rd *r, const arc_entry *e,
                           const char *d, const char *shown) {
  cmd_ctx *c = s->c;
  uint32_t mode = s->perms ? e->mode : e->mode & ~cmd_umask(c);
  const size_t *i;
  const char *link = NULL, *t = NULL;
  int rc = 0, type = e->type;
  if (type == ARC_SYMLINK && tar_dangerous(e->link))
    type = ARC_FILE; /* its placeholder is a file */
  else if (type == ARC_SYMLINK)
    link = e->link;
  if (type == ARC_HARDLINK) {
    link = tar_dest(s, e->link, 1, &r->tmp, &r->lnk);
    t = link ? buf_str(&r->lnk) : NULL;
    if (!link) link = e->link;
    if (!(link = arena_strdup(c->a, link))) return MSB_ENOMEM;
  }
  if (t && !strcmp(t, d)) return 0; /* a link to itself: already there */
  if (tar_room(s, r, d, shown, type, link)) return 0;
  i = tar_set_find(&r->dset, d, strlen(d));
  if (i && type == ARC_HARDLINK) /* another file takes the path */
    ((tar_delay *)(void *)r->delays.p)[*i].live = 0;
  switch (e->type) {
  case ARC_DIR:
    rc = vfs_mkdir(c->fs, d, mode, VFS_MK_EXIST_OK);
    if (!rc) {
      tar_dirtime dt;
      vfs_chmod(c->fs, d, mode);
      dt.path = arena_strdup(c->a, d);
      dt.mtime = e->mtime_ns;
      if (!dt.path || buf_put(&r->dirs, &dt, sizeof dt)) return MSB_ENOMEM;
    }
    break;
  case ARC_FILE:
    if (e->size > (uint64_t)(size_t)-1) {
      rc = MSB_EFBIG;
      break;
    }
    rc = vfs_write(c->fs, d, e->data, (size_t)e->have, 0, mode, NULL);
    /* a command file stays one; an unknown mark is ignored, as GNU tar
     * ignores extended attributes it does not restore */
    if (!rc && !e->size && e->command[0])
      rc = vfs_set_prog(c->fs, d, vfs_prog_id(c->fs, e->command));
    /* cut short, it keeps the mode GNU tar creates files with */
    if (!rc) vfs_chmod(c->fs, d, r->t.trunc ? mode & 0600 : mode);
    break;
  case ARC_SYMLINK:
    rc = link ? vfs_symlink(c->fs, e->link, d)
              : tar_placeholder(s, r, d, shown, e->link, e->mtime_ns);
    break;
  default: return tar_hardlink(s, r, e, d, shown, t, link);
  }
  if (rc == MSB_ENOMEM) return rc;
  if (rc)
    tar_cannot(s, shown, tar_verb(type, rc), link, rc);
  else if (e->type != ARC_DIR)
    vfs_utime(c->fs, d, e->mtime_ns, 1);
  return 0;
}

/* Lists or extracts one whole member. */
static int tar_member(tar_st *s, tar_rd *r, const arc_entry *e) {
  cmd_ctx *c = s->c;
  const char *name = e->path, *plain = name + strspn(name, "/"), *rel;
  const char *link = e->link, *why;
  int rc, sl;
  /* operands match the cleaned name, before --strip-components */
  buf_clear(&r->tmp);
  rc = arc_path_clean(name, &r->tmp, &sl, &why);
  if (rc == MSB_ENOMEM) return rc;
  if (!tar_selected(rc ? plain : buf_str(&r->tmp), r->ops, r->nops, r->found))
    return 0;
  if (s->nexcl && tar_excluded(s, plain)) return 0;
  if ((rc = cmd_tick(c, 1)) < 0) return rc;
  rel = tar_dest(s, name, 0, &r->nm, &r->dst);
  if (s->mode == 't') {
    if (e->type == ARC_HARDLINK && tar_dest(s, link, 1, &r->tmp, &r->lnk))
      link = buf_str(&r->tmp); /* shown as GNU strips it */
    if (s->verbose)
      tar_listline(s, e, name, link);
    else
      cmd_outf(c, "%s\n", name);
    return 0;
  }
  if (tar_dotdot(name)) {
    tar_msg(s, name, ": Member name contains '..'", NULL);
    s->status = 2;
    return 0;
  }
  if (!rel) return 0; /* --strip-components took it all */
  if (s->verbose) buf_printf(s->tostdout ? c->err : c->out, "%s\n", name);
  if (s->tostdout) {
    if (e->type == ARC_FILE) cmd_write(c, e->data, (size_t)e->have);
    return 0;
  }
  rc = tar_extract_one(s, r, e, buf_str(&r->dst), rel);
  if (!rc && r->t.trunc) /* its data was cut short */
    tar_msg(s, "Unexpected EOF in archive", NULL, NULL);
  return rc;
}

/* Lists or extracts every whole member the reader has: 0 when it needs
 * more bytes or reached the end, 2 for a corrupt archive (the reader's
 * reason in r->t.why), or a negative code. */
static int tar_steps(tar_st *s, tar_rd *r) {
  arc_entry e;
  int rc;
  while ((rc = arc_tar_next(&r->t, &e)) == 1)
    if ((rc = tar_member(s, r, &e)) < 0) return rc;
  if (rc == ARC_MORE) return 0;
  return rc == MSB_ECORRUPT ? 2 : rc;
}

/* The watcher of a compressed archive: members are listed or extracted
 * as they expand, and their bytes let go; a member whose announced end
 * lies past the expansion bound stops the stream at its header (it would
 * fail there anyway), and the end of the archive stops it as GNU tar
 * stops reading there. */
static int tar_watch(void *ctx, arc_look *l) {
  tar_st *s = ctx;
  tar_rd *r = s->rd;
  int rc;
  arc_tar_feed(&r->t, l->p, l->len, l->base, 1);
  rc = tar_steps(s, r);
  if (rc < 0) r->err = rc;
  if (rc) return rc == MSB_ENOMEM ? rc : 1;
  if (r->t.ended) {
    r->eoa = 1;
    return 1;
  }
  if (r->t.need > r->lim.max_out) {
    r->fault = "expanded size exceeds the limit";
    return 1;
  }
  l->next = r->t.need;
  l->keep = arc_tar_keep(&r->t);
  return 0;
}

/* The end of reading: the reader's verdict in GNU's words. Returns 0, 2
 * (fatal) or a negative code. */
static int tar_read_end(tar_st *s, tar_rd *r, int rc) {
  const char *why = r->t.why;
  if (rc != 2) return rc;
  if (!strncmp(why, "trailing garbage", 16) ||
      !strcmp(why, "missing end-of-archive blocks"))
    return 0; /* GNU tar stops reading at the end marker */
  if (r->t.members == 0 && (!strncmp(why, "header checksum", 15) ||
                            !strcmp(why,
                                    "truncated archive: partial "
                                    "header block"))) {
    tar_msg(s, "This does not look like a tar archive", NULL, NULL);
    s->status = 2;
    return 0;
  }
  tar_msg(s, !strncmp(why, "truncated", 9) ? "Unexpected EOF in archive" : why,
          NULL, NULL);
  return 2;
}

/* Expands a compressed archive, reading members as they come. Returns
 * 0, 2 (fatal, reported) or a negative code. */
static int tar_gunzip(tar_st *s, tar_rd *r, const uint8_t *d, size_t n,
                      buf *raw) {
  cmd_ctx *c = s->c;
  const char *why = NULL;
  arc_watch w;
  uint64_t base = 0;
  int rc, st = 0;
  w.fn = tar_watch;
  w.ctx = s;
  w.every = TAR_WATCH_STEP;
  rc = arc_gunzip_watch(d, n, &r->lim, &w, raw, &base, NULL, &why);
  if (r->err) return r->err;
  if (r->eoa) return 0;
  if (rc == MSB_ENOMEM) return rc;
  if (r->t.done && !r->t.ended) return tar_read_end(s, r, 2);
  if (!rc) {
    arc_tar_feed(&r->t, (const uint8_t *)raw->p, raw->len, base, 0);
    return tar_read_end(s, r, tar_steps(s, r));
  }
  if (r->fault) {
    why = r->fault;
  } else if (rc == MSB_ECORRUPT && !strcmp(why, "unexpected end of file")) {
    /* GNU tar reads what there is, then meets the end too soon */
    buf_printf(c->err, "\ngzip: stdin: %s\n", why);
    arc_tar_feed(&r->t, (const uint8_t *)raw->p, raw->len, base, 0);
    st = tar_steps(s, r);
    if (st < 0) return st;
    if (tar_read_end(s, r, st) == 2) return 2;
    tar_msg(s, "Child returned status 1", NULL, NULL);
    return 2;
  } else if (rc == MSB_ECORRUPT) {
    /* GNU reads what gzip gave before its complaint */
    arc_tar_feed(&r->t, (const uint8_t *)raw->p, raw->len, base, 1);
    st = tar_steps(s, r);
    if (st < 0) return st;
  } else {
    return rc;
  }
  if (st == 2 && tar_read_end(s, r, 2) == 2) return 2;
  buf_printf(c->err, "\ngzip: stdin: %s\n", why);
  tar_msg(s, "Child returned status 1", NULL, NULL);
  return 2;
}

/* Creates the delayed links (tar_delay), then sets directory mtimes. */
static void tar_finish_links(tar_st *s, tar_rd *r) {
  cmd_ctx *c = s->c;
  const tar_delay *dl = (const tar_delay *)(void *)r->delays.p;
  const tar_dirtime *dt = (const tar_dirtime *)(void *)r->dirs.p;
  size_t i, n = r->delays.len / sizeof *dl;
  struct vfs_stat st;
  for (i = n; i-- > 0;) { /* newest first, as GNU keeps them */
    int rc;
    if (!dl[i].live || vfs_stat(c->fs, dl[i].abs, 0, &st)) continue;
    rc = st.kind == VFS_DIR ? MSB_EISDIR
                            : vfs_remove(c->fs, dl[i].abs, VFS_RM_NODIR);
    if (rc) {
      tar_cannot(s, dl[i].shown, "unlink", NULL, rc);
      continue;
    }
    rc = vfs_symlink(c->fs, dl[i].link, dl[i].abs);
    if (rc)
      tar_cannot(s, dl[i].shown, "create symlink to", dl[i].link, rc);
    else
      vfs_utime(c->fs, dl[i].abs, dl[i].mtime, 1);
  }
  for (i = r->dirs.len / sizeof *dt; i-- > 0;)
    vfs_utime(c->fs, dt[i].path, dt[i].mtime, 1);
}

static int tar_read(tar_st *s, char **ops, int nops) {
  cmd_ctx *c = s->c;
  const uint8_t *d;
  size_t n;
  buf raw;
  tar_rd r;
  int rc, k;
  const char *src = s->file ? s->file : "-";
  rc = cmd_input(c, src, &d, &n);
  if (rc) {
    if (rc == MSB_ENOMEM) return rc;
    tar_msg(s, src, ": Cannot open: ", cmd_strerror(rc));
    return tar_fatal(s, NULL, NULL);
  }
  if (!arc_is_gzip(d, n) && s->gz) {
    buf_puts(c->err, "\ngzip: stdin: not in gzip format\n");
    tar_msg(s, "Child returned status 1", NULL, NULL);
    return tar_fatal(s, NULL, NULL);
  }
  memset(&r, 0, sizeof r);
  r.lim.max_in = (uint64_t)-1;
  r.lim.max_out = c->lim->max_total_bytes + ((uint64_t)64 << 20);
  r.lim.max_members = c->lim->max_nodes * 4;
  r.lim.max_header = (uint64_t)1 << 20;
  r.ops = ops;
  r.nops = nops;
  if (nops && !(r.found = arena_zalloc(c->a, (size_t)nops))) return MSB_ENOMEM;
  buf_init(&raw, c->m);
  buf_init(&r.nm, c->m);
  buf_init(&r.dst, c->m);
  buf_init(&r.tmp, c->m);
  buf_init(&r.lnk, c->m);
  buf_init(&r.dirs, c->m);
  buf_init(&r.delays, c->m);
  arc_tar_init(&r.t, c->m, d, n, &r.lim);
  r.t.lenient = 1;
  r.t.nodata = s->mode == 't';
  s->rd = &r;
  if (arc_is_gzip(d, n)) {
    rc = tar_gunzip(s, &r, d, n, &raw);
  } else {
    rc = tar_read_end(s, &r, tar_steps(s, &r));
  }
  if (rc != MSB_ENOMEM) tar_finish_links(s, &r);
  arc_tar_finish(&r.t);
  buf_finish(&r.nm);
  buf_finish(&r.dst);
  buf_finish(&r.tmp);
  buf_finish(&r.lnk);
  buf_finish(&r.dirs);
  buf_finish(&r.delays);
  buf_finish(&raw);
  s->rd = NULL;
  if (rc == 2) return tar_fatal(s, NULL, NULL);
  if (rc < 0) return rc;
  for (k = 0; k < nops; k++)
    if (!r.found[k]) {
      tar_msg(s, ops[k], ": Not found in archive", NULL);
      s->status = 2;
    }
  return 0;
}

/* tar: -c, -t, -x. */
int cmd_tar(cmd_ctx *c) {
  cmd_getopt g;
  tar_st s;
  int k, rc;
  int64_t v;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.ugw = 18; /* GNU's ugswidth (19) counts the separating space */
  rc = tar_unbundle(c);
  if (rc) return rc;
  cmd_opt_init(&g, c, tar_opts, tar_usage, CMD_OPTF_ARGP);
  g.status = 64; /* argp's EX_USAGE for option errors */
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'c':
    case 't':
    case 'x':
      if (s.mode && s.mode != k) {
        tar_msg(&s,
                "You may not specify more than one '-Acdtrux', "
                "'--delete' or  '--test-label' option",
                NULL, NULL);
        buf_puts(c->err,
                 "Try 'tar --help' or 'tar --usage' for more "
                 "information.\n");
        return 2;
      }
      s.mode = k;
      break;
    case 'f':
      if (s.file) {
        tar_msg(&s, "Multiple archive files require '-M' option", NULL, NULL);
        buf_puts(c->err,
                 "Try 'tar --help' or 'tar --usage' for more "
                 "information.\n");
        return 2;
      }
      s.file = g.arg;
      break;
    case 'C': s.dir = g.arg; break;
    case 'z': s.gz = 1; break;
    case 'a': s.auto_gz = 1; break;
    case 'v': s.verbose = 1; break;
    case 'p': s.perms = 1; break;
    case 'O': s.tostdout = 1; break;
    case 'k': s.keep = 1; break;
    case TAR_SKIP_OLD: s.keep = 2; break;
    case TAR_OVERWRITE: s.overwrite = 1; break;
    case 'j':
    case 'J':
    case TAR_ZSTD:
      tar_msg(&s,
              k == 'j'   ? "bzip2"
              : k == 'J' ? "xz"
                         : "zstd",
              " compression is not supported in this sandbox (only gzip: "
              "-z)",
              NULL);
      return 2;
    case TAR_STRIP:
      if (cmd_parse_int(g.arg, &v) || v < 0) {
        tar_msg(&s, "Invalid number of elements: '", g.arg, "'");
        return 2;
      }
      s.strip = v;
      break;
    case TAR_EXCLUDE: {
      const char **ne = arena_alloc(c->a, (size_t)(s.nexcl + 1) * sizeof *ne);
      if (!ne) return MSB_ENOMEM;
      if (s.nexcl) memcpy(ne, s.excl, (size_t)s.nexcl * sizeof *ne);
      ne[s.nexcl++] = g.arg;
      s.excl = ne;
      break;
    }
    }
  }
  if (k == CMD_OPT_ERR) return g.status;
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k;
  if (!s.mode) {
    tar_msg(&s,
            "You must specify one of the '-Acdtrux', '--delete' or "
            "'--test-label' options",
            NULL, NULL);
    buf_puts(c->err,
             "Try 'tar --help' or 'tar --usage' for more "
             "information.\n");
    return 2;
  }
  if (s.auto_gz && s.file) {
    size_t n = strlen(s.file);
    if ((n > 4 && !strcmp(s.file + n - 4, ".tgz")) ||
        (n > 3 && !strcmp(s.file + n - 3, ".gz")))
      s.gz = 1;
  }
  s.base = s.dir ? cmd_path(c, s.dir) : c->cwd;
  if (!s.base) return MSB_ENOMEM;
  if (s.dir) {
    struct vfs_stat st;
    int r = vfs_stat(c->fs, s.base, 1, &st);
    if (!r && st.kind != VFS_DIR) r = MSB_ENOTDIR;
    if (r) {
      tar_msg(&s, s.dir, ": Cannot open: ", cmd_strerror(r));
      return tar_fatal(&s, NULL, NULL);
    }
  }
  rc = s.mode == 'c' ? tar_create(&s, g.ops, g.nops)
                     : tar_read(&s, g.ops, g.nops);
  if (rc) return rc;
  if (s.status)
    tar_msg(&s, "Exiting with failure status due to previous errors", NULL,
            NULL);
  return s.status;
}
