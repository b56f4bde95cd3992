/* snap.c - snapshot export (deterministic tar.gz) and restore.
 *
 * Export walks /tmp then /workspace depth-first with children in byte
 * order (the order GNU tar --sort=name gives), so equal states give equal
 * bytes: fixed owner, no host data, a fixed gzip header. Each file's
 * contents become an independently compressed piece (archive_gzw.c) that
 * is kept on the contents themselves (vfs_read_slot), so the next
 * snapshot only compresses what changed: a checkpoint, a fork or a copy
 * sharing the contents shares the piece too, and the bytes never depend
 * on what was kept.
 *
 * Restore is all or nothing without a second tree: it keeps a reference to
 * the current root (an O(1) checkpoint), empties the target directories
 * and builds the archive's members in place, so the filesystem's own
 * quotas and path checks apply. Any failure - a hostile member, a quota, a
 * root hash that does not match the snapshot's record - puts the old root
 * and revision back. Members are created with their parents checked
 * symlink-free (realpath of the parent must be the parent itself), so a
 * member can never be written through a link an earlier member planted. */
#include "snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inf.h"
#include "memsandbox.h"

/* Bounds: the whole quota plus room for headers; ratio past 1 MiB. */
void snap_limits(const vfs_limits *vl, arc_limits *al) {
  uint64_t hdr = vl->max_nodes * 3 * 512 + ((uint64_t)1 << 20);
  al->max_out = vl->max_total_bytes + hdr;
  if (al->max_out > (uint64_t)((size_t)-1 / 2)) al->max_out = (size_t)-1 / 2;
  al->max_in = al->max_out;
  al->max_ratio = 200;
  al->max_members = vl->max_nodes;
  al->max_header = (uint64_t)vl->max_path_bytes * 2 + 4096;
  /* the session (variables, functions) has no bound of its own short of
   * the sandbox's memory; the whole archive's bound covers it */
  al->max_global = al->max_out;
}

/* ---- export --------------------------------------------------------- */

/* One export: the tar goes to tar (plain), or through gz, in which case
 * tar only collects the header blocks before each file's piece. */
typedef struct snap_out {
  vfs *fs;
  mem *m;
  buf *tar;
  arc_gzw *gz;
  buf tmp;
  arc_links links; /* files of several names met so far */
} snap_out;

typedef struct snap_frame {
  vfs_dir d;
  size_t plen;
} snap_frame;

/* Header bytes held for the header encoder at most (a tree of many
 * directories and no files would otherwise pile up). */
#define SNAP_HEADERS ((size_t)256 * 1024)

/* Pieces are kept on file contents only while the sandbox uses at most
 * half its memory limit, so the cache never crowds out the workload, and
 * only when they come from the filesystem's own allocator (which frees
 * them with the contents). */
static int snap_may_keep(const snap_out *o) {
  const mem *m = o->m;
  return m == vfs_mem(o->fs) && (!m->limit || m->used <= m->limit / 2);
}

/* The compressed piece of a file's contents (tar padding included): the
 * one an earlier snapshot kept if it has this level, else a new one,
 * kept when there is room. *own says whether the caller frees it. */
static int snap_piece(snap_out *o, const uint8_t *d, size_t n, void **slot,
                      arc_piece **pc, int *own) {
  arc_piece *kept = *slot;
  int rc;
  *own = 0;
  if (kept && kept->ulen == n + arc_tar_pad(n) &&
      kept->level == arc_gzw_level(o->gz)) {
    *pc = kept;
    return 0;
  }
  rc = arc_gzw_piece_make(o->gz, d, n, arc_tar_pad(n), pc);
  if (rc) return rc;
  if (snap_may_keep(o)) {
    mem_free(o->m, *slot);
    *slot = *pc;
  } else {
    *own = 1;
  }
  return 0;
}

static int snap_put_node(snap_out *o, const char *abs,
                         const struct vfs_stat *st) {
  arc_wentry w;
  const uint8_t *d = NULL;
  size_t n = 0;
  void **slot = NULL;
  arc_piece *pc;
  int rc, own;
  memset(&w, 0, sizeof w);
  w.path = abs + 1;
  w.mode = st->mode;
  w.mtime_ns = st->mtime_ns;
  w.uid = w.gid = 1000;
  w.uname = w.gname = "user";
  if (st->kind == VFS_DIR) {
    w.type = ARC_DIR;
  } else if (st->kind == VFS_LINK) {
    buf_clear(&o->tmp);
    rc = vfs_readlink(o->fs, abs, &o->tmp);
    if (rc) return rc;
    w.type = ARC_SYMLINK;
    w.link = buf_str(&o->tmp);
  } else if (st->nlink > 1 &&
             (w.link = arc_links_seen(&o->links, st->ino, w.path))) {
    w.type = ARC_HARDLINK;
  } else {
    if (o->links.names.err) return o->links.names.err;
    rc = vfs_read_slot(o->fs, abs, &d, &n, &slot);
    if (rc) return rc;
    w.type = ARC_FILE;
    w.data = d;
    w.size = n;
    w.command = vfs_prog_name(o->fs, st->prog);
  }
  if (!o->gz) return arc_tar_put(o->tar, &w);
  if (!n) {
    /* headers wait for the next piece, up to SNAP_HEADERS bytes */
    rc = arc_tar_put(o->tar, &w);
    if (!rc && o->tar->len >= SNAP_HEADERS)
      rc = arc_gzw_headers(o->gz, o->tar->p, o->tar->len);
    if (o->tar->len >= SNAP_HEADERS) buf_clear(o->tar);
    return rc;
  }
  rc = arc_tar_put_header(o->tar, &w);
  if (!rc) rc = arc_gzw_headers(o->gz, o->tar->p, o->tar->len);
  buf_clear(o->tar);
  if (!rc) rc = snap_piece(o, d, n, slot, &pc, &own);
  if (rc) return rc;
  rc = arc_gzw_piece(o->gz, pc);
  if (own) mem_free(o->m, pc);
  return rc;
}
static int snap_push(vfs *fs, mem *m, snap_frame **st, size_t *sp, size_t *cap,
                     const buf *path) {
  int rc;
  if (*sp == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    snap_frame *ns = mem_realloc(m, *st, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    *st = ns;
    *cap = nc;
  }
  rc = vfs_opendir(fs, buf_str(path), &(*st)[*sp].d);
  if (rc) return rc;
  (*st)[(*sp)++].plen = path->len;
  return 0;
}

/* Appends the subtree at top (a directory) depth-first. */
static int snap_walk(snap_out *o, const char *top) {
  snap_frame *st = NULL;
  size_t sp = 0, cap = 0;
  buf path;
  struct vfs_stat s;
  vfs *fs = o->fs;
  mem *m = o->m;
  int rc;
  buf_init(&path, m);
  rc = vfs_stat(fs, top, 0, &s);
  if (rc == MSB_ENOENT || (!rc && s.kind != VFS_DIR)) rc = -1;
  if (!rc) rc = buf_puts(&path, top);
  if (!rc) rc = snap_put_node(o, top, &s);
  if (!rc) rc = snap_push(fs, m, &st, &sp, &cap, &path);
  while (!rc && sp) {
    snap_frame *f = &st[sp - 1];
    const char *name;
    size_t nl;
    if (!vfs_readdir(&f->d, &name, &nl, &s)) {
      vfs_closedir(&f->d);
      sp--;
      continue;
    }
    buf_truncate(&path, f->plen);
    buf_putc(&path, '/');
    buf_put(&path, name, nl);
    rc = path.err;
    if (!rc) rc = snap_put_node(o, buf_str(&path), &s);
    if (!rc && s.kind == VFS_DIR) rc = snap_push(fs, m, &st, &sp, &cap, &path);
  }
  while (sp) vfs_closedir(&st[--sp].d);
  mem_free(m, st);
  buf_finish(&path);
  return rc == -1 ? 0 : rc;
}

static void snap_hex(const uint8_t *h, char *out) {
  static const char dig[] = "0123456789abcdef";
  int i;
  for (i = 0; i < 32; i++) {
    out[2 * i] = dig[h[i] >> 4];
    out[2 * i + 1] = dig[h[i] & 15];
  }
  out[64] = 0;
}

/* The global header's records: the sandbox's and extra (the session). */
static int snap_globals(vfs *fs, const char *cwd, const char *extra,
                        size_t extralen, const char *hex, buf *rec) {
  char num[24];
  snprintf(num, sizeof num, "%llu", (unsigned long long)vfs_revision(fs));
  arc_pax_record(rec, "MEMSANDBOX.cwd", cwd, strlen(cwd));
  arc_pax_record(rec, "MEMSANDBOX.format", SNAP_FORMAT, 1);
  arc_pax_record(rec, "MEMSANDBOX.revision", num, strlen(num));
  if (hex) arc_pax_record(rec, "MEMSANDBOX.root_hash", hex, 64);
  if (extralen) buf_put(rec, extra, extralen);
  return rec->err;
}

/* Writes the snapshot: the global header, /tmp, /workspace, the end. */
static int snap_tar(snap_out *o, const char *cwd, const char *extra,
                    size_t extralen, const char *hex) {
  buf rec;
  arc_piece *pc = NULL;
  int rc;
  buf_init(&rec, o->m);
  rc = snap_globals(o->fs, cwd, extra, extralen, hex, &rec);
  if (!rc) rc = arc_tar_put_global(o->tar, rec.p, rec.len);
  buf_finish(&rec);
  if (!rc && o->gz) {
    /* the session can be large text: deflated, not header-encoded */
    rc = arc_gzw_piece_make(o->gz, (const uint8_t *)o->tar->p, o->tar->len, 0,
                            &pc);
    if (!rc) rc = arc_gzw_piece(o->gz, pc);
    mem_free(o->m, pc);
    buf_clear(o->tar);
  }
  if (!rc) rc = snap_walk(o, "/tmp");
  if (!rc) rc = snap_walk(o, "/workspace");
  if (!rc) rc = arc_tar_end(o->tar, o->gz ? arc_gzw_total(o->gz) : 0);
  return rc;
}

/* Deflated bytes expected per entry for its header blocks: encoded
 * against the previous headers, they are mostly a few references. */
#define SNAP_HEADER_GUESS 128

/* Reserves a compressed export's output once, before any piece is made,
 * at a guess of its size: a third of the file bytes (what level 1 makes
 * of text) plus a little per entry; past it the output grows as before.
 * Growing it by doubling around the pieces made on the way left holes in
 * the wasm heap, which never shrinks: a sandbox that snapshotted 8 MB of
 * text kept 18.0 MiB of memory instead of 15.2, all of which a fork
 * copies. Nothing is reserved when no piece is kept, nor a guess that
 * would crowd the memory limit. */
static int snap_reserve(snap_out *o, size_t extralen, buf *out) {
  static const char *const tops[] = {"/tmp", "/workspace"};
  const mem *m = o->m;
  uint64_t guess = extralen + SNAP_HEADER_GUESS;
  struct vfs_stat st;
  size_t i;
  for (i = 0; i < sizeof tops / sizeof tops[0]; i++)
    if (!vfs_stat(o->fs, tops[i], 0, &st))
      guess += st.bytes / 3 + st.nodes * SNAP_HEADER_GUESS;
  if (!snap_may_keep(o)) return 0; /* no piece stays to leave holes */
  if (!m->limit ? guess < (size_t)-1 / 2 : guess <= (m->limit - m->used) / 2)
    return buf_reserve_exact(out, (size_t)guess);
  return 0;
}

static int snap_run(vfs *fs, const char *cwd, const char *extra,
                    size_t extralen, const char *hex, buf *tar, arc_gzw *gz,
                    buf *out) {
  snap_out o;
  int rc = 0;
  memset(&o, 0, sizeof o);
  o.fs = fs;
  o.m = tar->m;
  o.tar = tar;
  o.gz = gz;
  buf_init(&o.tmp, o.m);
  arc_links_init(&o.links, o.m);
  if (gz) rc = snap_reserve(&o, extralen, out);
  if (!rc) rc = snap_tar(&o, cwd, extra, extralen, hex);
  buf_finish(&o.tmp);
  arc_links_finish(&o.links);
  return rc;
}

/* Writes the snapshot tar through the piecewise gzip writer. */
int snap_export(vfs *fs, const char *cwd, const char *extra, size_t extralen,
                int level, buf *out) {
  buf tar;
  arc_gzw *gz = NULL;
  uint8_t h[32];
  char hex[65];
  int rc;
  if (level < -1 || level > 9) return MSB_EINVAL;
  if (level == -1) level = SNAP_LEVEL;
  rc = vfs_hash(fs, "/workspace", 0, h);
  if (rc) return rc;
  snap_hex(h, hex);
  buf_init(&tar, out->m);
  rc = arc_gzw_begin(out->m, level, out, &gz);
  if (!rc) {
    rc = snap_run(fs, cwd, extra, extralen, hex, &tar, gz, out);
    if (!rc)
      rc = arc_gzw_finish(gz, tar.p, tar.len);
    else
      arc_gzw_abort(gz);
  }
  buf_finish(&tar);
  return rc;
}

/* The uncompressed snapshot tar without a root hash (forks). */
int snap_export_tar(vfs *fs, const char *cwd, const char *extra,
                    size_t extralen, buf *out) {
  return snap_run(fs, cwd, extra, extralen, NULL, out, NULL, NULL);
}

/* ---- import --------------------------------------------------------- */

typedef struct snap_rec {
  size_t off; /* path offset in the names buffer */
  int64_t mtime;
  int kind;
} snap_rec;

typedef struct snap_in {
  vfs *fs;
  mem *m;
  arc_tar *t;
  const arc_limits *lim;
  int fault;      /* why the watcher stopped the expansion */
  int ours;      /* a MEMSANDBOX snapshot */
  int cleared;   /* targets emptied */
  int crc_ok;    /* the bytes came through gzip's CRC-32 check */
  buf names;     /* NUL-separated absolute paths */
  snap_rec *recs;
  size_t nrec, caprec;
  buf abs, tmp;
  buf par; /* the parent directory checked last (snap_parent) */
  char *why;
  size_t whylen;
} snap_in;

static int snap_why(snap_in *s, int rc, const char *fmt, const char *a,
                    const char *b) {
  snprintf(s->why, s->whylen, fmt, a, b ? b : "");
  return rc;
}

/* Removes every entry of dir. */
static int snap_clear(vfs *fs, const char *dir, mem *m) {
  vfs_dir d;
  const char *name;
  size_t nl;
  buf p;
  int rc = vfs_opendir(fs, dir, &d);
  if (rc == MSB_ENOENT) return vfs_mkdir(fs, dir, 0755, 0);
  if (rc) return rc;
  buf_init(&p, m);
  while (!rc && vfs_readdir(&d, &name, &nl, NULL)) {
    buf_clear(&p);
    buf_puts(&p, dir);
    buf_putc(&p, '/');
    buf_put(&p, name, nl);
    rc = p.err ? p.err
               : vfs_remove(fs, buf_str(&p), VFS_RM_RECURSIVE | VFS_RM_DIR);
  }
  vfs_closedir(&d);
  buf_finish(&p);
  return rc;
}

static int snap_cmp(const void *a, const void *b) {
  const char *const *x = a, *const *y = b;
  return strcmp(*x, *y);
}

/* Maps a cleaned relative name to an absolute sandbox path in s->abs. */
static int snap_map(snap_in *s, const char *raw, buf *out) {
  const char *why = NULL;
  int slash, rc;
  buf_clear(&s->tmp);
  rc = arc_path_clean(raw, &s->tmp, &slash, &why);
  if (rc == MSB_ENOMEM) return rc;
  if (rc == MSB_ENOENT) return 1; /* "." or "./": the root itself */
  if (rc) return snap_why(s, MSB_ECORRUPT, "member '%s' %s", raw, why);
  if (slash)
    return snap_why(s, MSB_ECORRUPT, "member '%s' has an absolute path%s", raw,
                    NULL);
  buf_clear(out);
  if (s->ours) {
    const char *t = buf_str(&s->tmp);
    if (strcmp(t, "workspace") && strncmp(t, "workspace/", 10) &&
        strcmp(t, "tmp") && strncmp(t, "tmp/", 4))
      return snap_why(s, MSB_ECORRUPT,
                      "member '%s' is outside workspace/ and tmp/%s", raw,
                      NULL);
    buf_putc(out, '/');
  } else {
    buf_puts(out, "/workspace/");
  }
  buf_put(out, s->tmp.p, s->tmp.len);
  return out->err;
}

static int snap_note(snap_in *s, const char *abs, int64_t mtime, int kind) {
  if (s->nrec == s->caprec) {
    size_t nc = s->caprec ? s->caprec * 2 : 64;
    snap_rec *r = mem_realloc(s->m, s->recs, nc * sizeof *r);
    if (!r) return MSB_ENOMEM;
    s->recs = r;
    s->caprec = nc;
  }
  s->recs[s->nrec].off = s->names.len;
  s->recs[s->nrec].mtime = mtime;
  s->recs[s->nrec++].kind = kind;
  buf_puts(&s->names, abs);
  buf_putc(&s->names, 0);
  return s->names.err;
}

static const char *snap_errtext(int rc) {
  return rc == MSB_ENOTDIR  ? "conflicts with an earlier non-directory "
                              "member"
         : rc == MSB_EEXIST ? "conflicts with an earlier member"
         : rc == MSB_EISDIR ? "conflicts with an earlier directory member"
         : rc == MSB_ENOENT ? "has a missing parent"
         : rc == MSB_ELOOP  ? "passes through a symbolic link"
                            : msb_strerror(rc);
}

/* Checks that the directory abs[0..n) is a real directory, made if
 * missing, whose path resolves to itself: no symlink on the way, so no
 * member can be written through a link an earlier one planted. Members
 * come grouped by directory and none can replace a directory already
 * there (duplicates are refused), so the last parent checked is
 * remembered. */
static int snap_parent(snap_in *s, const char *abs, size_t n) {
  struct vfs_stat st;
  const char *par;
  int rc;
  if (s->par.len == n && !memcmp(s->par.p, abs, n)) return 0;
  buf_clear(&s->par);
  buf_put(&s->par, abs, n);
  buf_clear(&s->tmp);
  par = buf_str(&s->par);
  rc = s->par.err ? s->par.err : vfs_realpath(s->fs, par, 2, &s->tmp);
  if (!rc && strcmp(buf_str(&s->tmp), par)) rc = MSB_ELOOP;
  if (!rc) {
    rc = vfs_stat(s->fs, par, 0, &st);
    if (rc == MSB_ENOENT)
      rc = vfs_mkdir(s->fs, par, 0755, VFS_MK_PARENTS);
    else if (!rc && st.kind != VFS_DIR)
      rc = MSB_ENOTDIR;
  }
  if (rc) buf_clear(&s->par);
  return rc;
}

/* Judges a regular file whose data has yet to be expanded (e->data
 * NULL) by the quotas its announced size would break, so a bomb stops at
 * its header instead of after expanding. */
static int snap_pending(snap_in *s, const arc_entry *e) {
  const vfs_limits *vl = vfs_get_limits(s->fs);
  uint64_t total = vfs_total_bytes(s->fs);
  int rc = 0;
  if (e->size > vl->max_file_bytes)
    rc = MSB_EFBIG;
  else if (total > vl->max_total_bytes || e->size > vl->max_total_bytes - total)
    rc = MSB_ENOSPC;
  return rc ? snap_why(s, rc, "member '%s': %s", e->path, snap_errtext(rc)) : 0;
}

/* Creates one member, or judges it while its data is pending. */
/* Marks a restored file as the command its record names: only an empty
 * file (what a command file holds) and a command this sandbox has. */
static int snap_command(snap_in *s, const arc_entry *e, const char *abs) {
  unsigned prog = vfs_prog_id(s->fs, e->command);
  if (!prog || e->size)
    return snap_why(s, MSB_ECORRUPT, "member '%s' is marked as command '%s'",
                    e->path, e->command);
  return vfs_set_prog(s->fs, abs, prog);
}

static int snap_member(snap_in *s, const arc_entry *e) {
  struct vfs_stat st;
  const char *abs;
  size_t cut;
  int rc = snap_map(s, e->path, &s->abs), exists;
  if (rc == 1) {
    if (e->type == ARC_DIR) return 0;
    return snap_why(s, MSB_ECORRUPT, "member '%s' has an empty name%s", e->path,
                    NULL);
  }
  if (rc) return rc;
  /* only a regular file's data is kept: other members carry none, so
   * none can make a restore expand what it then skips */
  if (e->type != ARC_FILE && e->size)
    return snap_why(s, MSB_ECORRUPT,
                    "member '%s' carries data but is not a regular file%s",
                    e->path, NULL);
  abs = buf_str(&s->abs);
  cut = s->abs.len;
  while (cut > 1 && abs[cut - 1] != '/') cut--;
  if (cut > 1) {
    rc = snap_parent(s, abs, cut - 1);
    if (rc == MSB_ELOOP)
      return snap_why(s, MSB_ECORRUPT,
                      "member '%s' is placed under a symbolic link%s", e->path,
                      NULL);
    if (rc == MSB_ENOTDIR)
      return snap_why(s, MSB_ECORRUPT, "member '%s' %s", e->path,
                      snap_errtext(rc));
    if (rc)
      return snap_why(s, rc, "member '%s': %s", e->path, snap_errtext(rc));
  }
  exists = vfs_stat(s->fs, abs, 0, &st) == 0;
  if (exists && !(e->type == ARC_DIR && st.kind == VFS_DIR))
    return snap_why(s, MSB_ECORRUPT, "duplicate member '%s'%s", e->path, NULL);
  if (!e->data) return snap_pending(s, e);
  switch (e->type) {
  case ARC_DIR:
    rc = exists ? vfs_chmod(s->fs, abs, e->mode)
                : vfs_mkdir(s->fs, abs, e->mode, 0);
    break;
  case ARC_FILE:
    if (e->size > (uint64_t)((size_t)-1))
      return snap_why(s, MSB_EFBIG, "member '%s': %s", e->path,
                      msb_strerror(MSB_EFBIG));
    rc = vfs_write(s->fs, abs, e->data, (size_t)e->size, VFS_EXCL, e->mode,
                   NULL);
    if (!rc && e->command[0]) rc = snap_command(s, e, abs);
    if (rc == MSB_ECORRUPT) return rc;
    break;
  case ARC_SYMLINK: rc = vfs_symlink(s->fs, e->link, abs); break;
  default: { /* hard link: another name of an earlier regular file */
    buf tgt;
    buf_init(&tgt, s->m);
    rc = snap_map(s, e->link, &tgt);
    if (rc == 1)
      rc = snap_why(s, MSB_ECORRUPT, "hard link '%s' to '%s' has no target",
                    e->path, e->link);
    if (!rc) {
      if (vfs_stat(s->fs, buf_str(&tgt), 0, &st) || st.kind != VFS_FILE)
        rc = snap_why(s, MSB_ECORRUPT,
                      "hard link '%s' to '%s': no earlier regular file",
                      e->path, e->link);
      else
        rc = vfs_link(s->fs, buf_str(&tgt), abs);
    }
    buf_finish(&tgt);
    if (rc == MSB_ECORRUPT || rc == MSB_ENOMEM) return rc;
    break;
  }
  }
  if (rc) return snap_why(s, rc, "member '%s': %s", e->path, snap_errtext(rc));
  return snap_note(s, abs, e->mtime_ns, e->type);
}

/* Checks the snapshot's root hash once the tree is built. A gzip stream's
 * CRC-32 already vouches for every byte we wrote, so there the hashing
 * (most of a restore's time) is left to the first msb_root_hash; a plain
 * tar has no checksum over file contents and is hashed here. */
static int snap_verify(snap_in *s, const arc_tar *t) {
  const char *want = arc_tar_global(t, "root_hash");
  uint8_t h[32];
  char hex[65];
  int rc;
  if (!want || s->crc_ok) return 0;
  rc = vfs_hash(s->fs, "/workspace", 0, h);
  if (rc) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  snap_hex(h, hex);
  if (strcmp(hex, want))
    return snap_why(s, MSB_ECORRUPT,
                    "root hash mismatch: the snapshot records %s%s", want,
                    NULL);
  return 0;
}

/* Empties the targets when the first member comes: /workspace, and /tmp
 * for our own snapshots (known by their global records). */
static int snap_start(snap_in *s, const arc_tar *t) {
  const char *fmt = arc_tar_global(t, "format");
  int rc;
  if (fmt && strcmp(fmt, SNAP_FORMAT) && strcmp(fmt, "1"))
    return snap_why(s, MSB_ECORRUPT,
                    "unsupported snapshot format version '%s'%s", fmt, NULL);
  s->ours = fmt != NULL;
  rc = snap_clear(s->fs, "/workspace", s->m);
  if (!rc && s->ours) rc = snap_clear(s->fs, "/tmp", s->m);
  if (rc) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  s->cleared = 1;
  return 0;
}

/* Builds every member the reader has whole, and judges one whose data is
 * still to come: 0 at the end or when the reader needs more bytes. */
static int snap_steps(snap_in *s, arc_tar *t) {
  arc_entry e;
  int rc;
  for (;;) {
    e.type = 0;
    rc = arc_tar_next(t, &e);
    if (rc <= 0 || (rc == ARC_MORE && !e.type)) break;
    if (!s->cleared && (rc = snap_start(s, t))) return rc;
    if ((rc = snap_member(s, &e))) return rc;
    if (!e.data) return 0;
  }
  if (rc == MSB_ECORRUPT) return snap_why(s, rc, "%s%s", t->why, NULL);
  if (rc < 0) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  return 0;
}

/* Output bytes between two looks at a restore's expanding stream: small
 * next to a member's cost, large next to a header. */
#define SNAP_WATCH_STEP ((size_t)64 << 10)

/* Bounds applied while a gzip stream expands beyond the reader's: bytes
 * after the end of the archive (only zeros may follow it) are held to the
 * ratio limit as they come, since nothing there can need room. */
static int snap_tail_bounded(snap_in *s, uint64_t out, uint64_t in) {
  const arc_limits *l = s->lim;
  if (out > ((uint64_t)1 << 20) && l->max_ratio &&
      out / (in ? in : 1) > l->max_ratio)
    return snap_why(s, MSB_ECORRUPT,
                    "gzip: compression ratio exceeds the limit%s", "", NULL);
  return 0;
}

/* The watcher of a restore's gzip stream: builds the members as they
 * come (so their checks run before the rest expands, and their bytes can
 * go once built), and stops the expansion at the first fault. */
static int snap_watch(void *ctx, arc_look *l) {
  snap_in *s = ctx;
  int rc;
  arc_tar_feed(s->t, l->p, l->len, l->base, 1);
  rc = snap_steps(s, s->t);
  if (!rc && s->t->ended)
    rc = snap_tail_bounded(s, l->base + l->len, l->in_used);
  if (rc) return s->fault = rc;
  l->next = s->t->need;
  l->keep = arc_tar_keep(s->t);
  return 0;
}

/* Expands a gzip archive under snap_watch: raw keeps the bytes from
 * stream offset *base on, which the watcher has not consumed. */
static int snap_gunzip(snap_in *s, const uint8_t *data, size_t len, buf *raw,
                       uint64_t *base) {
  arc_watch w;
  arc_gz_info gi;
  const char *why = NULL;
  int rc;
  w.fn = snap_watch;
  w.ctx = s;
  w.every = SNAP_WATCH_STEP;
  rc = arc_gunzip_watch(data, len, s->lim, &w, raw, base, &gi, &why);
  if (s->fault) return s->fault; /* the watcher's, with its reason */
  if (rc == MSB_ECORRUPT) return snap_why(s, rc, "gzip: %s%s", why, NULL);
  if (rc) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  if (gi.trailing)
    return snap_why(s, MSB_ECORRUPT, "trailing garbage after the gzip stream%s",
                    "", NULL);
  return 0;
}

/* Builds the rest once the whole tar is at hand, then checks it. */
static int snap_build(snap_in *s, arc_tar *t) {
  const char **v = NULL;
  size_t i;
  int rc = snap_steps(s, t);
  if (rc) return rc;
  if (!s->cleared) {
    rc = snap_clear(s->fs, "/workspace", s->m);
    if (rc) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  }
  /* duplicates (directories can repeat silently above) */
  if (s->nrec > 1) {
    v = mem_alloc(s->m, s->nrec * sizeof *v);
    if (!v) return MSB_ENOMEM;
    for (i = 0; i < s->nrec; i++) v[i] = s->names.p + s->recs[i].off;
    qsort(v, s->nrec, sizeof *v, snap_cmp);
    for (i = 1; i < s->nrec; i++)
      if (!strcmp(v[i - 1], v[i])) {
        rc = snap_why(s, MSB_ECORRUPT, "duplicate member '%s'%s", v[i], NULL);
        break;
      }
    mem_free(s->m, v);
    if (rc) return rc;
  }
  /* mtimes last: creating children changed the directories' */
  for (i = s->nrec; i-- > 0;) {
    rc = vfs_utime(s->fs, s->names.p + s->recs[i].off, s->recs[i].mtime, 1);
    if (rc) return snap_why(s, rc, "%s%s", msb_strerror(rc), NULL);
  }
  return snap_verify(s, t);
}

/* The revision record's value, or UINT64_MAX when it is not a decimal
 * number up to SNAP_MAX_REVISION. */
static uint64_t snap_revision(const char *r) {
  uint64_t v = 0;
  if (!*r) return UINT64_MAX;
  for (; *r; r++) {
    if (*r < '0' || *r > '9') return UINT64_MAX;
    v = v * 10 + (uint64_t)(*r - '0');
    if (v > SNAP_MAX_REVISION) return UINT64_MAX;
  }
  return v;
}

/* Our snapshot's own records: a working directory and a revision the
 * host can hold exactly. */
static int snap_check_globals(const arc_tar *t, char *why, size_t whylen) {
  const char *r = arc_tar_global(t, "revision");
  const char *c = arc_tar_global(t, "cwd");
  if (!c) {
    snprintf(why, whylen, "the snapshot has no cwd record");
    return MSB_ECORRUPT;
  }
  if (r && snap_revision(r) == UINT64_MAX) {
    snprintf(why, whylen, "invalid revision record");
    return MSB_ECORRUPT;
  }
  return 0;
}

/* Restores an archive (see snap.h). */
int snap_import(vfs *fs, const uint8_t *data, size_t len, const arc_limits *lim,
                buf *cwd_out, char *why, size_t whylen) {
  return snap_import_state(fs, data, len, lim, NULL, NULL, cwd_out, why,
                           whylen);
}

/* Restores an archive, consulting state before keeping it (see snap.h). */
int snap_import_state(vfs *fs, const uint8_t *data, size_t len,
                      const arc_limits *lim, snap_state_fn state, void *ctx,
                      buf *cwd_out, char *why, size_t whylen) {
  snap_in s;
  arc_tar t;
  buf raw;
  vnode *old;
  uint64_t rev = vfs_revision(fs), base = 0;
  mem *m = cwd_out->m;
  int rc = 0;
  why[0] = 0;
  if (len > lim->max_in) {
    snprintf(why, whylen, "archive size exceeds the limit");
    return MSB_ECORRUPT;
  }
  if (len >= 3 && !memcmp(data, "BZh", 3)) {
    snprintf(why, whylen, "bzip2 compression is not supported");
    return MSB_ECORRUPT;
  }
  if (len >= 6 && !memcmp(data,
                          "\xfd"
                          "7zXZ\0",
                          6)) {
    snprintf(why, whylen, "xz compression is not supported");
    return MSB_ECORRUPT;
  }
  if (len >= 4 && !memcmp(data, "\x28\xb5\x2f\xfd", 4)) {
    snprintf(why, whylen, "zstd compression is not supported");
    return MSB_ECORRUPT;
  }
  if (!arc_is_gzip(data, len) && len > lim->max_out) {
    snprintf(why, whylen, "archive size exceeds the limit");
    return MSB_ECORRUPT;
  }
  buf_init(&raw, m);
  memset(&s, 0, sizeof s);
  s.fs = fs;
  s.m = m;
  s.t = &t;
  s.lim = lim;
  s.why = why;
  s.whylen = whylen;
  buf_init(&s.names, m);
  buf_init(&s.abs, m);
  buf_init(&s.tmp, m);
  buf_init(&s.par, m);
  arc_tar_init(&t, m, (const uint8_t *)"", 0, lim);
  old = vfs_root_get(fs);
  vfs_batch_begin(fs);
  if (arc_is_gzip(data, len)) {
    rc = snap_gunzip(&s, data, len, &raw, &base);
    data = (const uint8_t *)raw.p;
    len = raw.len;
    s.crc_ok = !rc;
  }
  if (!rc) {
    arc_tar_feed(&t, data ? data : (const uint8_t *)"", len, base, 0);
    rc = snap_build(&s, &t);
  }
  vfs_batch_end(fs);
  if (!rc && s.ours) rc = snap_check_globals(&t, why, whylen);
  if (!rc && state)
    rc = state(ctx, s.ours ? t.globals.p : NULL, s.ours ? t.globals.len : 0,
               why, whylen);
  if (rc) {
    if (!why[0]) snprintf(why, whylen, "%s", msb_strerror(rc));
    vfs_root_set(fs, old);
    vfs_set_revision(fs, rev);
  } else {
    const char *r = arc_tar_global(&t, "revision");
    const char *c = arc_tar_global(&t, "cwd");
    if (s.ours && r) {
      vfs_set_revision(fs, snap_revision(r));
    } else {
      vfs_set_revision(fs, rev + 1);
    }
    if (s.ours && c) buf_puts(cwd_out, c);
  }
  vnode_unref(fs, old);
  arc_tar_finish(&t);
  buf_finish(&s.names);
  buf_finish(&s.abs);
  buf_finish(&s.tmp);
  buf_finish(&s.par);
  mem_free(m, s.recs);
  buf_finish(&raw);
  return rc;
}
