/* zip.c - package and compress files into a zip archive (Info-ZIP 3.0).
 *
 * Adds or replaces the named files (directories with -r) in ZIPFILE,
 * which gets ".zip" appended when its name has no suffix. An existing
 * archive is read through src/zip.c and its entries copied unchanged; a
 * named file that is already there is replaced in place ("updating:"),
 * new ones are appended ("  adding:"), as Info-ZIP does. Entries are
 * deflated with zlib at the chosen level and stored when that does not
 * shrink them; times are the files' mtimes in MS-DOS form (the sandbox's
 * TZ is UTC) plus an extended timestamp field, modes are kept.
 *
 * Options may come anywhere; -x and -i take the names that follow up to
 * the next option, matched as Info-ZIP does (a '*' also matches '/').
 *
 * Deviations: directories are walked in bytewise order (Info-ZIP uses
 * directory order); the compressed sizes (and so the percentages) are
 * zlib's, which can differ from Info-ZIP's own deflate by a few bytes;
 * -f -u -d -m -T -e -c -z -@, -F and reading names or data from stdin are
 * refused with a message.
 *
 * Usage: zip [-options] zipfile list [-x list] [-i list] */
#include <string.h>

#include "../cold.h"
#include "../glob.h"
#include "../zip.h"
#include "cmd.h"

static const char zip_usage[] MSB_COLD =
    "Copyright (c) 1990-2008 Info-ZIP - Type 'zip \"-L\"' for software "
    "license.\n"
    "Zip 3.0 (July 5th 2008). Usage:\n"
    "zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] "
    "[-xi list]\n"
    "  The default action is to add or replace zipfile entries from list, "
    "which\n"
    "  can include the special name - to compress standard input.\n"
    "  If zipfile and list are omitted, zip compresses stdin to stdout.\n"
    "  -r   recurse into directories     -j   junk (don't record) directory "
    "names\n"
    "  -0   store only                   -1   compress faster\n"
    "  -9   compress better              -q   quiet operation\n"
    "  -x   exclude the following names  -i   include only the following "
    "names\n"
    "  -D   do not add directory entries -y   store symbolic links as the "
    "link\n";

typedef struct zip_pats {
  const char **v;
  int n;
} zip_pats;

/* One member of the new archive: an old entry kept, or a new item. */
typedef struct zip_slot {
  zip_entry old;
  int has_old;
  int has_new;
  char *name;
  size_t nlen;
  char *abs; /* the file to read for a new item */
  int is_dir;
} zip_slot;

typedef struct zip_st {
  cmd_ctx *c;
  int recurse, junk, nodirs, quiet, level, symlinks;
  zip_pats excl, incl;
  zip_slot *v;
  size_t n, cap;
  int matched;
  const char *zabs; /* the archive itself, never added */
} zip_st;

static int zip_pat_add(cmd_ctx *c, zip_pats *p, const char *s) {
  const char **nv = arena_alloc(c->a, (size_t)(p->n + 1) * sizeof *nv);
  if (!nv) return MSB_ENOMEM;
  if (p->n) memcpy(nv, p->v, (size_t)p->n * sizeof *nv);
  nv[p->n++] = s;
  p->v = nv;
  return 0;
}

static int zip_pat_any(cmd_ctx *c, const zip_pats *p, const char *name) {
  int i;
  for (i = 0; i < p->n; i++)
    if (glob_match(c->m, p->v[i], strlen(p->v[i]), name, strlen(name), 0,
                   NULL) == 1)
      return 1;
  return 0;
}

/* The slot for name: an existing one (an old entry being replaced) or a
 * new one at the end. */
static zip_slot *zip_slot_get(zip_st *s, const char *name, size_t nlen) {
  size_t i;
  for (i = 0; i < s->n; i++)
    if (s->v[i].nlen == nlen && !memcmp(s->v[i].name, name, nlen))
      return &s->v[i];
  if (s->n == s->cap) {
    zip_slot *nv = cmd_grow(s->c, s->v, s->n, &s->cap, sizeof *nv, 16);
    if (!nv) return NULL;
    s->v = nv;
  }
  memset(&s->v[s->n], 0, sizeof s->v[s->n]);
  s->v[s->n].name = arena_strndup(s->c->a, name, nlen);
  s->v[s->n].nlen = nlen;
  if (!s->v[s->n].name) return NULL;
  return &s->v[s->n++];
}

/* The name a path is stored under: no leading "/" or "./", no "../". */
static const char *zip_store_name(zip_st *s, const char *path, int is_dir) {
  buf b;
  const char *p = path, *r;
  for (;;) {
    if (*p == '/')
      p++;
    else if (!strncmp(p, "./", 2) || !strncmp(p, "../", 3))
      p += p[1] == '/' ? 2 : 3;
    else
      break;
  }
  if (s->junk) {
    const char *sl = strrchr(p, '/');
    if (sl) p = sl + 1;
  }
  buf_init(&b, s->c->m);
  buf_puts(&b, p);
  while (b.len && b.p[b.len - 1] == '/') b.len--;
  if (is_dir) buf_putc(&b, '/');
  r = b.err ? NULL : arena_strndup(s->c->a, b.p ? b.p : "", b.len);
  buf_finish(&b);
  return r;
}

/* Queues one path (a file, or a directory entry) for adding. */
static int zip_queue(zip_st *s, const char *path, const char *abs, int is_dir) {
  const char *name;
  zip_slot *sl;
  if (is_dir && (s->nodirs || s->junk)) return 0;
  if (!strcmp(abs, s->zabs)) return 0;
  name = zip_store_name(s, path, is_dir);
  if (!name) return MSB_ENOMEM;
  if (!*name || !strcmp(name, "/")) return 0;
  if (s->excl.n && zip_pat_any(s->c, &s->excl, name)) return 0;
  if (s->incl.n && !zip_pat_any(s->c, &s->incl, name)) return 0;
  sl = zip_slot_get(s, name, strlen(name));
  if (!sl) return MSB_ENOMEM;
  sl->has_new = 1;
  sl->is_dir = is_dir;
  sl->abs = arena_strdup(s->c->a, abs);
  s->matched = 1;
  return sl->abs ? 0 : MSB_ENOMEM;
}

/* Queues an operand, walking it with -r. */
static int zip_operand(zip_st *s, const char *op) {
  cmd_ctx *c = s->c;
  struct vfs_stat st;
  const char *abs = cmd_path(c, op);
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc;
  if (!abs) return MSB_ENOMEM;
  if (vfs_stat(c->fs, abs, 1, &st) < 0) {
    buf_printf(c->out, "\tzip warning: name not matched: %s\n", op);
    return 0;
  }
  if (st.kind != VFS_DIR || !s->recurse)
    return zip_queue(s, op, abs, st.kind == VFS_DIR);
  rc = cmd_walk_open(
      c, op, CMD_WALK_FOLLOW_ROOT | (s->symlinks ? 0 : CMD_WALK_FOLLOW), &w);
  if (rc < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) == 1) {
    if (e->err) continue;
    if (e->st.kind == VFS_DIR || e->st.kind == VFS_FILE ||
        e->st.kind == VFS_LINK)
      if ((rc = zip_queue(s, e->path, e->abs, e->st.kind == VFS_DIR)) < 0)
        break;
  }
  cmd_walk_close(w);
  return rc < 0 ? rc : 0;
}

/* Info-ZIP's percent(): the saving, rounded. */
static int zip_percent(uint64_t n, uint64_t m) {
  if (n > 0xffffff) {
    n = (n + 0x80) >> 8;
    m = (m + 0x80) >> 8;
  }
  return n > m ? (int)((1 + 200 * (n - m) / n) / 2) : 0;
}

/* Fills the item's time fields from an mtime in nanoseconds. */
static void zip_dostime(int64_t ns, zip_item *it) {
  cmd_tm tm;
  int64_t s = cmd_ns_to_s(ns);
  cmd_gmtime(s < 315532800 ? 315532800 : s, &tm);
  it->ddate = (uint16_t)((tm.year - 1980) << 9 | tm.mon << 5 | tm.mday);
  it->dtime = (uint16_t)(tm.hour << 11 | tm.min << 5 | tm.sec / 2);
  it->mtime = s;
}

/* Writes one queued new item. */
static int zip_add_new(zip_st *s, zip_wr *w, zip_slot *sl) {
  cmd_ctx *c = s->c;
  struct vfs_stat st;
  zip_item it;
  buf link;
  uint64_t csize;
  int method, rc, islink;
  memset(&it, 0, sizeof it);
  buf_init(&link, c->m);
  rc = vfs_stat(c->fs, sl->abs, 0, &st);
  islink = rc == 0 && st.kind == VFS_LINK && s->symlinks;
  if (rc == 0 && st.kind == VFS_LINK && !islink)
    rc = vfs_stat(c->fs, sl->abs, 1, &st);
  if (rc < 0) {
    buf_printf(c->out, "\tzip warning: could not open for reading: %s\n",
               sl->name);
    return 0;
  }
  it.name = sl->name;
  it.nlen = sl->nlen;
  it.level = s->level;
  it.mode = (st.mode & 07777) | (islink       ? 0120000u
                                 : sl->is_dir ? 0040000u
                                              : 0100000u);
  zip_dostime(st.mtime_ns, &it);
  if (islink) {
    if ((rc = vfs_readlink(c->fs, sl->abs, &link)) < 0) goto out;
    it.data = (const uint8_t *)(link.p ? link.p : "");
    it.len = link.len;
  } else if (!sl->is_dir &&
             (rc = vfs_read(c->fs, sl->abs, &it.data, &it.len)) < 0) {
    goto out;
  }
  if ((rc = zip_wr_add(w, &it, &csize, &method)) < 0) goto out;
  if (!s->quiet)
    buf_printf(c->out, "%s %s (%s %d%%)\n",
               sl->has_old ? "updating:" : "  adding:", sl->name,
               method == 8 ? "deflated" : "stored",
               method == 8 ? zip_percent(it.len, csize) : 0);
out:
  buf_finish(&link);
  return rc;
}

/* Reads the existing archive's entries into slots. 0, 3 (reported) or a
 * negative code. */
static int zip_load(zip_st *s, const char *zname, const uint8_t *d,
                    size_t len) {
  zip_rd z;
  zip_entry e;
  int rc = zip_rd_open(&z, d, len, s->c->lim->max_nodes * 4);
  while (rc == 0 && (rc = zip_rd_next(&z, &e)) == 1) {
    zip_slot *sl = zip_slot_get(s, e.name, e.nlen);
    if (!sl) return MSB_ENOMEM;
    sl->old = e;
    sl->has_old = 1;
    rc = 0;
  }
  if (rc == MSB_ECORRUPT) {
    if (strstr(z.why, "signature not found"))
      buf_puts(s->c->out,
               "\tzip warning: missing end signature--probably not a zip "
               "file (did you\n\tzip warning: remember to use binary mode "
               "when you transferred it?)\n\tzip warning: (if you are "
               "trying to read a damaged archive try -F)\n");
    else
      buf_printf(s->c->out, "\tzip warning: %s\n", z.why);
    buf_printf(s->c->out, "\nzip error: Zip file structure invalid (%s)\n",
               zname);
    return 3;
  }
  return rc;
}

/* The archive's name: ".zip" added when the last part has no '.'. */
static const char *zip_archive_name(cmd_ctx *c, const char *op) {
  const char *b = strrchr(op, '/');
  buf n;
  const char *r;
  if (strchr(b ? b + 1 : op, '.')) return op;
  buf_init(&n, c->m);
  buf_printf(&n, "%s.zip", op);
  r = n.err ? NULL : arena_strdup(c->a, n.p);
  buf_finish(&n);
  return r;
}

/* Parses the arguments: options anywhere, -x / -i lists. Returns 0 with
 * the operands in ops, or an exit status. */
static int zip_args(zip_st *s, char ***ops, int *nops) {
  cmd_ctx *c = s->c;
  int i, list = 0, n = 0, rc;
  char **v = arena_alloc(c->a, (size_t)(c->argc + 1) * sizeof *v);
  if (!v) return MSB_ENOMEM;
  for (i = 1; i < c->argc; i++) {
    const char *a = c->argv[i];
    if (a[0] == '-' && a[1] && strcmp(a, "--")) {
      if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        buf_puts(c->out, cold_get(zip_usage));
        return -1;
      }
      if (!strncmp(a, "--", 2)) {
        buf_printf(c->err,
                   "zip error: Invalid command arguments (long "
                   "option '%s' not supported)\n",
                   a + 2);
        return 16;
      }
      list = 0;
      for (a++; *a; a++) {
        if (*a >= '0' && *a <= '9')
          s->level = *a - '0';
        else if (*a == 'r' || *a == 'R')
          s->recurse = 1;
        else if (*a == 'j')
          s->junk = 1;
        else if (*a == 'D')
          s->nodirs = 1;
        else if (*a == 'q')
          s->quiet = 1;
        else if (*a == 'y')
          s->symlinks = 1;
        else if (*a == 'x' || *a == 'i')
          list = *a;
        else if (*a == 'X' || *a == 'v' || *a == 'o' || *a == 'S') {
        } else {
          buf_printf(c->err,
                     "zip error: Invalid command arguments "
                     "(option -%c is not supported in memsandbox)\n",
                     *a);
          return 16;
        }
      }
      continue;
    }
    if (list) {
      if ((rc = zip_pat_add(c, list == 'x' ? &s->excl : &s->incl, a)) < 0)
        return rc;
      continue;
    }
    v[n++] = (char *)a;
  }
  *ops = v;
  *nops = n;
  return 0;
}

/* Writes the slots into a new archive and stores it. */
static int zip_write(zip_st *s, const char *zname) {
  cmd_ctx *c = s->c;
  zip_wr w;
  buf out;
  size_t i;
  int rc = 0;
  const char *abs = cmd_path(c, zname);
  if (!abs) return MSB_ENOMEM;
  buf_init(&out, c->m);
  zip_wr_init(&w, c->m, &out);
  for (i = 0; i < s->n && rc >= 0; i++) {
    if ((i & 255) == 255 && (rc = cmd_tick(c, 1)) != 0) break;
    rc = s->v[i].has_new ? zip_add_new(s, &w, &s->v[i])
                         : zip_wr_copy(&w, &s->v[i].old);
  }
  if (rc >= 0)
    rc = zip_wr_end(&w);
  else
    zip_wr_abort(&w);
  if (rc >= 0)
    rc = vfs_write(c->fs, abs, out.p ? out.p : "", out.len, VFS_KEEP_MODE,
                   CMD_NEWFILE(c), NULL);
  buf_finish(&out);
  if (rc < 0 && rc != MSB_ENOMEM && rc != MSB_ELIMIT) {
    buf_printf(c->err,
               "zip I/O error: %s\nzip error: Could not create "
               "output file (%s)\n",
               cmd_strerror(rc), zname);
    return 15;
  }
  return rc;
}

/* Entry point: see the usage above. */
int cmd_zip(cmd_ctx *c) {
  zip_st s;
  char **ops;
  int nops, rc, i;
  const char *zname, *zabs;
  const uint8_t *d;
  size_t len;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.level = 6;
  if ((rc = zip_args(&s, &ops, &nops)) != 0) return rc == -1 ? 0 : rc;
  if (nops < 1) {
    buf_puts(c->err,
             "zip error: Invalid command arguments (reading an "
             "archive from stdin is not supported in memsandbox)\n");
    return 16;
  }
  zname = zip_archive_name(c, ops[0]);
  zabs = zname ? cmd_path(c, zname) : NULL;
  if (!zabs) return MSB_ENOMEM;
  s.zabs = zabs;
  if (vfs_read(c->fs, zabs, &d, &len) == 0 &&
      (rc = zip_load(&s, zname, d, len)) != 0)
    return rc;
  for (i = 1; i < nops; i++)
    if ((rc = zip_operand(&s, ops[i])) < 0) return rc;
  if (!s.matched) {
    buf_printf(c->out, "\nzip error: Nothing to do! (%s)\n", zname);
    return 12;
  }
  return zip_write(&s, zname);
}
