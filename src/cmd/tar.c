/* tar.c - create, list and extract tar archives (GNU tar 1.34 subset).
 *
 * Usage: tar -c|-t|-x [-zvpO] [-f ARCHIVE] [-C DIR] [--strip-components=N]
 *            [--exclude=PATTERN]... [FILE]...
 * Old-style bundles ("tar czf a.tgz dir") are unbundled first: each
 * letter becomes an option and f/C take the next arguments in order.
 * Archives are read whole (bounded by the filesystem quota), gzip is
 * detected by its magic on -t/-x, and entries go through archive.c, which
 * rejects what it cannot vouch for. Created archives are POSIX ustar/pax
 * with owner user/user (1000), children in byte order, and -z output has
 * GNU gzip's stdin header (no name, mtime 0), so GNU tar reads them.
 * Deviations: -C applies to every operand (GNU applies it positionally);
 * hard links are stored as copies on create; -j/-J/--zstd and modes other
 * than -c/-t/-x are refused with a message; corrupt archives stop with
 * archive.c's reason instead of GNU's resynchronisation, and device, FIFO
 * and sparse members stop listing and extraction ("device nodes are not
 * supported"); names holding ".." are stored as given on create (GNU
 * strips the prefix up to the last ".."). */
#include <stdio.h>
#include <string.h>

#include "../archive.h"
#include "../glob.h"
#include "cmd.h"

static const char tar_usage[] =
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
    "      --strip-components=NUMBER   strip NUMBER leading components "
    "from file\n"
    "                             names on extraction\n"
    "      --exclude=PATTERN      exclude files, given as a PATTERN\n";

enum { TAR_STRIP = 256, TAR_EXCLUDE, TAR_ZSTD };

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
    {0, "strip-components", CMD_ARG_REQ, TAR_STRIP},
    {0, "exclude", CMD_ARG_REQ, TAR_EXCLUDE},
    {0, 0, 0, 0}};

typedef struct tar_st {
  cmd_ctx *c;
  int mode, gz, auto_gz, verbose, perms, tostdout, status, slash_warned;
  const char *file, *dir, *base;
  int64_t strip;
  const char *prefixes[16]; /* removed prefixes already reported */
  size_t nprefix;
  const char **excl;
  int nexcl;
  size_t ugw;
} tar_st;

typedef struct tar_dirtime {
  const char *path;
  int64_t mtime;
} tar_dirtime;

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

/* Reports a removed prefix once per distinct prefix, as GNU tar does. */
static void tar_prefix_msg(tar_st *s, const char *op, size_t k) {
  size_t i;
  const char *pre;
  for (i = 0; i < s->nprefix; i++)
    if (strlen(s->prefixes[i]) == k && !strncmp(s->prefixes[i], op, k)) return;
  pre = arena_strndup(s->c->a, op, k);
  if (pre && s->nprefix < sizeof s->prefixes / sizeof s->prefixes[0])
    s->prefixes[s->nprefix++] = pre;
  buf_printf(s->c->err, "tar: Removing leading `%.*s' from member names\n",
             (int)k, op);
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
    tar_prefix_msg(s, op, cut);
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
    } else {
      if (vfs_read(c->fs, e->abs, &d, &n)) continue;
      we.type = ARC_FILE;
      we.data = d;
      we.size = n;
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
  for (i = 0; i < nops && !rc; i++) rc = tar_add(s, &out, ops[i]);
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

static void tar_listline(tar_st *s, const arc_entry *e, const char *name) {
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
    cmd_outf(c, " link to %s", e->link);
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

/* Destination path: base + name with strip components applied; NULL when
 * nothing is left. */
static const char *tar_dest(tar_st *s, const char *name, buf *b) {
  int64_t k = s->strip;
  while (k > 0 && *name) {
    const char *sl = strchr(name, '/');
    if (!sl) return NULL;
    name = sl + 1;
    k--;
  }
  if (!*name) return NULL;
  buf_clear(b);
  if (vfs_abspath(s->base, name, b)) return NULL;
  return buf_str(b);
}

static void tar_extract_one(tar_st *s, const arc_entry *e, const char *name,
                            buf *dst, tar_dirtime **dts, size_t *ndt) {
  cmd_ctx *c = s->c;
  const char *d = tar_dest(s, name, dst);
  uint32_t mode = s->perms ? e->mode : e->mode & ~cmd_umask(c);
  struct vfs_stat st;
  int rc = 0;
  if (!d) return;
  if (s->tostdout) {
    if (e->type == ARC_FILE) cmd_write(c, e->data, (size_t)e->size);
    return;
  }
  if (e->type == ARC_DIR) {
    rc = vfs_mkdir(c->fs, d, mode, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
    if (!rc) vfs_chmod(c->fs, d, mode);
    if (!rc) {
      tar_dirtime *n = arena_alloc(c->a, (*ndt + 1) * sizeof *n);
      if (n) {
        if (*ndt) memcpy(n, *dts, *ndt * sizeof *n);
        n[*ndt].path = arena_strdup(c->a, d);
        n[(*ndt)++].mtime = e->mtime_ns;
        *dts = n;
      }
    }
  } else {
    buf par;
    size_t k = strlen(d);
    buf_init(&par, c->m);
    while (k > 1 && d[k - 1] != '/') k--;
    buf_put(&par, d, k > 1 ? k - 1 : 1);
    if (!par.err)
      vfs_mkdir(c->fs, buf_str(&par), 0755, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
    buf_finish(&par);
    if (vfs_stat(c->fs, d, 0, &st) == 0 && st.kind != VFS_DIR)
      vfs_remove(c->fs, d, VFS_RM_NODIR);
    if (e->type == ARC_FILE) {
      if (e->size > (uint64_t)(size_t)-1) {
        rc = MSB_EFBIG;
      } else {
        rc = vfs_write(c->fs, d, e->data, (size_t)e->size, 0, mode, NULL);
        if (!rc) vfs_chmod(c->fs, d, mode);
      }
    } else if (e->type == ARC_SYMLINK) {
      rc = vfs_symlink(c->fs, e->link, d);
    } else {
      buf tb, cl;
      const char *t, *why;
      int sl;
      buf_init(&tb, c->m);
      buf_init(&cl, c->m);
      rc = arc_path_clean(e->link, &cl, &sl, &why);
      t = rc ? NULL : tar_dest(s, buf_str(&cl), &tb);
      rc = t ? vfs_copy(c->fs, t, d,
                        VFS_CP_NOFOLLOW | VFS_CP_OVERWRITE | VFS_CP_KEEP_META)
             : MSB_ENOENT;
      if (rc) {
        tar_msg(s, name, ": Cannot hard link to '", e->link);
        buf_truncate(c->err, c->err->len - 1);
        buf_puts(c->err, "': No such file or directory\n");
        s->status = 2;
        rc = 0;
      }
      buf_finish(&tb);
      buf_finish(&cl);
    }
    if (!rc) vfs_utime(c->fs, d, e->mtime_ns, 1);
  }
  if (rc) {
    tar_msg(s, name, ": Cannot open: ", cmd_strerror(rc));
    s->status = 2;
  }
}

static int tar_read(tar_st *s, char **ops, int nops) {
  cmd_ctx *c = s->c;
  const uint8_t *d;
  size_t n, i;
  buf raw, nm, dst;
  arc_tar t;
  arc_entry e;
  arc_limits lim;
  char *found = NULL;
  tar_dirtime *dts = NULL;
  size_t ndt = 0;
  int rc, k;
  const char *src = s->file ? s->file : "-";
  rc = cmd_input(c, src, &d, &n);
  if (rc) {
    if (rc == MSB_ENOMEM) return rc;
    tar_msg(s, src, ": Cannot open: ", cmd_strerror(rc));
    return tar_fatal(s, NULL, NULL);
  }
  memset(&lim, 0, sizeof lim);
  lim.max_in = (uint64_t)-1;
  lim.max_out = c->lim->max_total_bytes + ((uint64_t)64 << 20);
  lim.max_members = c->lim->max_nodes * 4;
  lim.max_header = (uint64_t)1 << 20;
  buf_init(&raw, c->m);
  if (arc_is_gzip(d, n)) {
    const char *why = NULL;
    rc = arc_gunzip(d, n, &lim, &raw, NULL, &why);
    if (rc == MSB_ENOMEM) {
      buf_finish(&raw);
      return rc;
    }
    if (rc) {
      buf_finish(&raw);
      buf_printf(c->err, "\ngzip: stdin: %s\n", why);
      tar_msg(s, "Child returned status 1", NULL, NULL);
      return tar_fatal(s, NULL, NULL);
    }
    d = (const uint8_t *)raw.p;
    n = raw.len;
  } else if (s->gz) {
    buf_finish(&raw);
    buf_puts(c->err, "\ngzip: stdin: not in gzip format\n");
    tar_msg(s, "Child returned status 1", NULL, NULL);
    return tar_fatal(s, NULL, NULL);
  }
  if (nops) {
    found = arena_zalloc(c->a, (size_t)nops);
    if (!found) {
      buf_finish(&raw);
      return MSB_ENOMEM;
    }
  }
  buf_init(&nm, c->m);
  buf_init(&dst, c->m);
  arc_tar_init(&t, c->m, d, n, &lim);
  t.lenient = 1;
  while ((rc = arc_tar_next(&t, &e)) == 1) {
    const char *why = NULL, *name;
    int sl;
    buf_clear(&nm);
    k = arc_path_clean(e.path, &nm, &sl, &why);
    if (k == MSB_ENOMEM) {
      rc = k;
      break;
    }
    if (sl && !s->slash_warned) {
      tar_msg(s, "Removing leading `/' from member names", NULL, NULL);
      s->slash_warned = 1;
    }
    name = e.path;
    while (*name == '/') name++;
    if (k == MSB_EINVAL) {
      if (s->mode == 'x') {
        tar_msg(s, name, ": Member name contains '..'", NULL);
        s->status = 2;
        continue;
      }
    }
    if (!tar_selected(k ? name : buf_str(&nm), ops, nops, found)) continue;
    if (s->nexcl && tar_excluded(s, name)) continue;
    if ((rc = cmd_tick(c, 1)) < 0) break;
    if (s->mode == 't') {
      if (s->verbose)
        tar_listline(s, &e, name);
      else
        cmd_outf(c, "%s\n", name);
      continue;
    }
    if (s->verbose) buf_printf(s->tostdout ? c->err : c->out, "%s\n", name);
    if (k == 0) tar_extract_one(s, &e, buf_str(&nm), &dst, &dts, &ndt);
  }
  if (rc == MSB_ECORRUPT) {
    if (!strncmp(t.why, "trailing garbage", 16) ||
        !strcmp(t.why, "missing end-of-archive blocks")) {
      rc = 0; /* GNU tar stops reading at the end marker */
    } else if (t.members == 0 && (!strncmp(t.why, "header checksum", 15) ||
                                  !strcmp(t.why,
                                          "truncated archive: partial "
                                          "header block"))) {
      tar_msg(s, "This does not look like a tar archive", NULL, NULL);
      s->status = 2;
      rc = 0;
    } else {
      tar_msg(
          s,
          !strncmp(t.why, "truncated", 9) ? "Unexpected EOF in archive" : t.why,
          NULL, NULL);
      rc = 2;
    }
  }
  for (i = ndt; i-- > 0;) vfs_utime(c->fs, dts[i].path, dts[i].mtime, 1);
  arc_tar_finish(&t);
  buf_finish(&nm);
  buf_finish(&dst);
  buf_finish(&raw);
  if (rc == 2) return tar_fatal(s, NULL, NULL);
  if (rc < 0) return rc;
  for (k = 0; k < nops; k++)
    if (!found[k]) {
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
    case 'f': s.file = g.arg; break;
    case 'C': s.dir = g.arg; break;
    case 'z': s.gz = 1; break;
    case 'a': s.auto_gz = 1; break;
    case 'v': s.verbose = 1; break;
    case 'p': s.perms = 1; break;
    case 'O': s.tostdout = 1; break;
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
