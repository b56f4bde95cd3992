/* api_fs.c - the file operations of the public API: msb_read, msb_write,
 * msb_append, msb_stat_path, msb_list, msb_mkdir, msb_remove, msb_copy,
 * msb_move, msb_symlink, msb_readlink, msb_chmod, msb_hash, msb_root_hash.
 *
 * Each entry point runs its body (argument checks, the filesystem call,
 * a one-line message) inside api_op_begin / api_op_end (api.c). */
#include <string.h>

#include "sandbox.h"

/* Reads a whole file into a caller-freed copy. */
static int api_read_run(msb_sandbox *sb, const char *path, uint8_t **data,
                        size_t *len) {
  api_path p;
  const uint8_t *d;
  size_t n;
  int rc;
  API_CHECK(sb);
  if (!data || !len)
    return api_fail(sb, MSB_EINVAL, "data and len are required");
  *data = NULL;
  *len = 0;
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_read(sb->fs, buf_str(&p.abs), &d, &n);
  if (rc == MSB_EISDIR) {
    rc = api_fail(sb, rc, "%s is not a file", buf_str(&p.disp));
    goto out;
  }
  if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&p.disp), 0);
    goto out;
  }
  *data = mem_alloc(&sb->m, n);
  if (!*data) {
    rc = api_oom(sb);
    goto out;
  }
  if (n) memcpy(*data, d, n);
  *len = n;
  rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Shared body of msb_write and msb_append. */
static int api_write(msb_sandbox *sb, const char *path, const void *data,
                     size_t len, unsigned vflags, uint32_t mode,
                     const uint8_t *expect) {
  api_path p;
  struct vfs_stat st;
  uint64_t old = 0, size;
  int rc, exists;
  if ((rc = api_path_init(sb, &p, path))) goto out;
  exists =
      vfs_stat(sb->fs, buf_str(&p.abs), 1, &st) == 0 && st.kind == VFS_FILE;
  if (exists) old = st.size;
  size = (vflags & VFS_APPEND) ? old + len : len;
  rc = vfs_write(sb->fs, buf_str(&p.abs), data, len, vflags, mode, expect);
  if (rc == MSB_EISDIR)
    rc = api_fail(sb, rc, "%s is not a file", buf_str(&p.disp));
  else if (rc == MSB_ENOENT && (vflags & VFS_HASH_EQ) && !exists)
    rc = api_fail(sb, rc, "%s does not exist", buf_str(&p.disp));
  else if (rc)
    rc = api_quota_err(sb, rc, size, size - (size < old ? size : old),
                       exists ? 0 : 1, buf_str(&p.disp), 1);
  else
    rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Writes a whole file. */
static int api_write_run(msb_sandbox *sb, const char *path, const void *data,
                         size_t len, int cond, const uint8_t *expect_hash,
                         uint32_t mode, unsigned flags) {
  unsigned vf = 0;
  API_CHECK(sb);
  if (!data && len) return api_fail(sb, MSB_EINVAL, "data is NULL");
  if (flags & ~MSB_PARENTS)
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for write",
                    flags & ~MSB_PARENTS);
  if (mode & ~07777u)
    return api_fail(sb, MSB_EINVAL, "mode 0%o is not a permission mode",
                    (unsigned)mode);
  switch (cond) {
  case MSB_WRITE_ANY: break;
  case MSB_WRITE_MUST_NOT_EXIST: vf |= VFS_EXCL; break;
  case MSB_WRITE_HASH_EQUALS:
    if (!expect_hash)
      return api_fail(sb, MSB_EINVAL, "expect_hash is required");
    vf |= VFS_HASH_EQ;
    break;
  default: return api_fail(sb, MSB_EINVAL, "unknown write condition %d", cond);
  }
  if (flags & MSB_PARENTS) vf |= VFS_PARENTS;
  if (!mode) {
    vf |= VFS_KEEP_MODE;
    mode = 0644;
  }
  return api_write(sb, path, data, len, vf, mode, expect_hash);
}

/* Appends to a file, creating it if absent. */
static int api_append_run(msb_sandbox *sb, const char *path, const void *data,
                          size_t len, unsigned flags) {
  API_CHECK(sb);
  if (!data && len) return api_fail(sb, MSB_EINVAL, "data is NULL");
  if (flags & ~MSB_PARENTS)
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for append",
                    flags & ~MSB_PARENTS);
  return api_write(
      sb, path, data, len,
      VFS_APPEND | VFS_KEEP_MODE | ((flags & MSB_PARENTS) ? VFS_PARENTS : 0),
      0644, NULL);
}

/* Whether the policy hides part of the directory at path ("none" at it
 * or below it), so that its subtree totals would count what it hides. */
static int api_stat_hides(msb_sandbox *sb, const char *path, int follow) {
  buf rp;
  int hides = 0;
  if (!sb->pol || !sb->pol->has_none) return 0;
  buf_init(&rp, &sb->m);
  /* rules apply to the resolved path; a failure hides to be safe */
  if (vfs_realpath(sb->fs, path, follow ? 0 : 1, &rp) || rp.err)
    hides = 1;
  else
    hides = policy_path_mode(sb->pol, rp.p, rp.len) == POLICY_NONE ||
            policy_below_mode(sb->pol, rp.p, rp.len) == POLICY_NONE;
  buf_finish(&rp);
  return hides;
}

/* Stats a path. */
static int api_stat_path_run(msb_sandbox *sb, const char *path, unsigned flags,
                             msb_stat *st) {
  api_path p;
  struct vfs_stat vs;
  int rc;
  API_CHECK(sb);
  if (!st) return api_fail(sb, MSB_EINVAL, "st is required");
  if (flags & ~MSB_NOFOLLOW)
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for stat",
                    flags & ~MSB_NOFOLLOW);
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_stat(sb->fs, buf_str(&p.abs), !(flags & MSB_NOFOLLOW), &vs);
  if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&p.disp), 0);
    goto out;
  }
  memset(st, 0, sizeof *st);
  st->kind = vs.kind;
  st->mode = vs.mode;
  st->size = vs.size;
  st->mtime_ns = vs.mtime_ns;
  st->nodes = vs.nodes;
  st->bytes = vs.bytes;
  if (vs.kind == VFS_DIR &&
      api_stat_hides(sb, buf_str(&p.abs), !(flags & MSB_NOFOLLOW)))
    st->nodes = st->bytes = 0; /* not reported (see msb_stat) */
  rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Lists a directory as NUL-terminated names. */
static int api_list_run(msb_sandbox *sb, const char *path, char **names,
                        size_t *len, size_t *count) {
  api_path p;
  vfs_dir d;
  const char *nm;
  size_t nl, total = 0, n = 0, o = 0;
  char *out = NULL;
  int rc;
  API_CHECK(sb);
  if (!names || !len || !count)
    return api_fail(sb, MSB_EINVAL, "names, len and count are required");
  *names = NULL;
  *len = *count = 0;
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_opendir(sb->fs, buf_str(&p.abs), &d);
  if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&p.disp), 0);
    goto out;
  }
  while (vfs_readdir(&d, &nm, &nl, NULL)) total += nl + 1, n++;
  if (total) {
    out = mem_alloc(&sb->m, total);
    if (!out) {
      vfs_closedir(&d);
      rc = api_oom(sb);
      goto out;
    }
    d.i = 0; /* rewind: positions start at 0 */
    while (vfs_readdir(&d, &nm, &nl, NULL)) {
      memcpy(out + o, nm, nl + 1);
      o += nl + 1;
    }
  }
  vfs_closedir(&d);
  *names = out;
  *len = total;
  *count = n;
  rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Creates a directory. */
static int api_mkdir_run(msb_sandbox *sb, const char *path, uint32_t mode,
                         unsigned flags) {
  api_path p;
  unsigned vf = 0;
  int rc;
  API_CHECK(sb);
  if (flags & ~(MSB_PARENTS | MSB_EXIST_OK))
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for mkdir",
                    flags & ~(MSB_PARENTS | MSB_EXIST_OK));
  if (mode & ~07777u)
    return api_fail(sb, MSB_EINVAL, "mode 0%o is not a permission mode",
                    (unsigned)mode);
  if (flags & MSB_PARENTS) vf |= VFS_MK_PARENTS;
  if (flags & MSB_EXIST_OK) vf |= VFS_MK_EXIST_OK;
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_mkdir(sb->fs, buf_str(&p.abs), mode ? mode : 0755, vf);
  rc = rc ? api_quota_err(sb, rc, 0, 0, 1, buf_str(&p.disp), 1) : api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Removes a file, link or directory. */
static int api_remove_run(msb_sandbox *sb, const char *path, unsigned flags) {
  api_path p;
  const char *disp;
  int rc;
  API_CHECK(sb);
  if (flags & ~(MSB_RECURSIVE | MSB_MISSING_OK))
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for remove",
                    flags & ~(MSB_RECURSIVE | MSB_MISSING_OK));
  if ((rc = api_path_init(sb, &p, path))) goto out;
  disp = buf_str(&p.disp);
  rc =
      vfs_remove(sb->fs, buf_str(&p.abs),
                 VFS_RM_DIR | ((flags & MSB_RECURSIVE) ? VFS_RM_RECURSIVE : 0));
  if (rc == MSB_ENOENT && (flags & MSB_MISSING_OK) &&
      vfs_stat(sb->fs, buf_str(&p.abs), 0, NULL) == MSB_ENOENT)
    rc = 0;
  if (rc == MSB_EPERM && !strcmp(disp, "/workspace"))
    rc = api_fail(sb, rc, "the workspace root cannot be removed");
  else if (rc == MSB_EPERM)
    rc = api_fail(sb, rc, "%s cannot be removed", disp);
  else if (rc)
    rc = api_vfs_err(sb, rc, disp, 0);
  else
    rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Shared checks of copy and move: neither end may be "/" or /workspace,
 * they must differ and must not contain one another. */
static int api_two(msb_sandbox *sb, api_path *s, api_path *d, const char *src,
                   const char *dst) {
  buf rs, rd;
  int rc;
  buf_init(&d->abs, &sb->m); /* finished by the caller whatever happens */
  buf_init(&d->disp, &sb->m);
  if ((rc = api_path_init(sb, s, src)) || (rc = api_path_init(sb, d, dst)))
    return rc;
  buf_init(&rs, &sb->m);
  buf_init(&rd, &sb->m);
  rc = vfs_realpath(sb->fs, buf_str(&s->abs), 2, &rs);
  if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&s->disp), 0);
  } else if ((rc = vfs_realpath(sb->fs, buf_str(&d->abs), 2, &rd))) {
    rc = api_vfs_err(sb, rc, buf_str(&d->disp), 0);
  } else if (!strcmp(buf_str(&rs), "/") || !strcmp(buf_str(&rd), "/") ||
             !strcmp(buf_str(&rs), "/workspace") ||
             !strcmp(buf_str(&rd), "/workspace") ||
             !strcmp(buf_str(&rs), "/tmp") || !strcmp(buf_str(&rd), "/tmp")) {
    rc =
        api_fail(sb, MSB_EPERM, "the workspace root cannot be copied or moved");
  } else if (!strcmp(buf_str(&rs), buf_str(&rd))) {
    rc = api_fail(sb, MSB_ESAME, "source and destination must differ");
  } else if ((rs.len < rd.len && !memcmp(rs.p, rd.p, rs.len) &&
              rd.p[rs.len] == '/') ||
             (rd.len < rs.len && !memcmp(rd.p, rs.p, rd.len) &&
              rs.p[rd.len] == '/')) {
    rc = api_fail(sb, MSB_EBUSY,
                  "source and destination paths must not overlap");
  }
  buf_finish(&rs);
  buf_finish(&rd);
  return rc;
}

/* Copy or move with overwrite across kinds: remove the destination, then
 * copy/rename, all as one revision; on failure the old root goes back. */
static int api_copy_move(msb_sandbox *sb, const char *src, const char *dst,
                         unsigned flags, int move) {
  api_path s, d;
  struct vfs_stat ss, ds;
  unsigned vf = 0;
  vnode *saved = NULL;
  uint64_t rev = vfs_revision(sb->fs);
  int rc, dexists;
  unsigned ok = MSB_OVERWRITE | MSB_PARENTS | (move ? 0 : MSB_RECURSIVE);
  if (flags & ~ok)
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for %s",
                    flags & ~ok, move ? "move" : "copy");
  if ((rc = api_two(sb, &s, &d, src, dst))) goto out;
  rc = vfs_stat(sb->fs, buf_str(&s.abs), 0, &ss);
  if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&s.disp), 0);
    goto out;
  }
  if (!move && ss.kind == VFS_DIR && !(flags & MSB_RECURSIVE)) {
    rc = api_fail(sb, MSB_EISDIR,
                  "%s is a directory (copying it needs MSB_RECURSIVE)",
                  buf_str(&s.disp));
    goto out;
  }
  dexists = vfs_stat(sb->fs, buf_str(&d.abs), 0, &ds) == 0;
  if (dexists && !(flags & MSB_OVERWRITE)) {
    rc = api_fail(sb, MSB_EEXIST, "%s already exists", buf_str(&d.disp));
    goto out;
  }
  if (flags & MSB_PARENTS) vf |= VFS_CP_PARENTS;
  vf |= VFS_CP_OVERWRITE | VFS_CP_NOFOLLOW | VFS_CP_KEEP_META;
  saved = vfs_root_get(sb->fs);
  vfs_batch_begin(sb->fs);
  rc = 0;
  if (dexists && (ds.kind == VFS_DIR) != (ss.kind == VFS_DIR))
    rc = vfs_remove(sb->fs, buf_str(&d.abs), VFS_RM_RECURSIVE);
  if (!rc)
    rc = move ? vfs_rename(sb->fs, buf_str(&s.abs), buf_str(&d.abs), vf)
              : vfs_copy(sb->fs, buf_str(&s.abs), buf_str(&d.abs), vf);
  vfs_batch_end(sb->fs);
  if (rc) {
    vfs_root_set(sb->fs, saved);
    vfs_set_revision(sb->fs, rev);
    rc = api_quota_err(sb, rc, ss.size, move ? 0 : ss.bytes,
                       move ? 0 : ss.nodes, buf_str(&d.disp), 1);
  } else {
    rc = api_ok(sb);
  }
out:
  vnode_unref(sb->fs, saved);
  api_path_finish(&s);
  api_path_finish(&d);
  return rc;
}

/* Copies src to dst. */
static int api_copy_run(msb_sandbox *sb, const char *src, const char *dst,
                        unsigned flags) {
  API_CHECK(sb);
  return api_copy_move(sb, src, dst, flags, 0);
}

/* Moves src to dst. */
static int api_move_run(msb_sandbox *sb, const char *src, const char *dst,
                        unsigned flags) {
  API_CHECK(sb);
  return api_copy_move(sb, src, dst, flags, 1);
}

/* Creates a symbolic link. */
static int api_symlink_run(msb_sandbox *sb, const char *target,
                           const char *linkpath) {
  api_path p;
  int rc;
  API_CHECK(sb);
  if (!target || !*target)
    return api_fail(sb, MSB_EINVAL, "link target must not be empty");
  if (strlen(target) > sb->lim.max_path_bytes)
    return api_fail(sb, MSB_ENAMETOOLONG, "link target exceeds %lu bytes",
                    (unsigned long)sb->lim.max_path_bytes);
  if ((rc = api_path_init(sb, &p, linkpath))) goto out;
  rc = vfs_symlink(sb->fs, target, buf_str(&p.abs));
  rc = rc ? api_quota_err(sb, rc, 0, 0, 1, buf_str(&p.disp), 1) : api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Reads a link target into a caller-freed string. */
static int api_readlink_run(msb_sandbox *sb, const char *path, char **target) {
  api_path p;
  buf b;
  int rc;
  API_CHECK(sb);
  if (!target) return api_fail(sb, MSB_EINVAL, "target is required");
  *target = NULL;
  buf_init(&b, &sb->m);
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_readlink(sb->fs, buf_str(&p.abs), &b);
  if (rc == MSB_EINVAL) {
    rc = api_fail(sb, rc, "%s is not a symbolic link", buf_str(&p.disp));
  } else if (rc) {
    rc = api_vfs_err(sb, rc, buf_str(&p.disp), 0);
  } else {
    *target = buf_steal(&b, NULL);
    rc = *target ? api_ok(sb) : api_oom(sb);
  }
out:
  buf_finish(&b);
  api_path_finish(&p);
  return rc;
}

/* Sets permission bits. */
static int api_chmod_run(msb_sandbox *sb, const char *path, uint32_t mode) {
  api_path p;
  int rc;
  API_CHECK(sb);
  if (mode & ~07777u)
    return api_fail(sb, MSB_EINVAL, "mode 0%o is not a permission mode",
                    (unsigned)mode);
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_chmod(sb->fs, buf_str(&p.abs), mode);
  rc = rc ? api_vfs_err(sb, rc, buf_str(&p.disp), 0) : api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* SHA-256 of a path (a link hashes as its target string). */
static int api_hash_run(msb_sandbox *sb, const char *path, uint8_t out[32]) {
  api_path p;
  int rc;
  API_CHECK(sb);
  if (!out) return api_fail(sb, MSB_EINVAL, "out is required");
  if ((rc = api_path_init(sb, &p, path))) goto out;
  rc = vfs_hash(sb->fs, buf_str(&p.abs), 0, out);
  rc = rc ? api_vfs_err(sb, rc, buf_str(&p.disp), 0) : api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Hash of /workspace. */
static int api_root_hash_run(msb_sandbox *sb, uint8_t out[32]) {
  int rc;
  API_CHECK(sb);
  if (!out) return api_fail(sb, MSB_EINVAL, "out is required");
  rc = vfs_hash(sb->fs, "/workspace", 0, out);
  return rc ? api_vfs_err(sb, rc, "/workspace", 0) : api_ok(sb);
}

/* ---- entry points ---------------------------------------------------- */

/* Reads a whole file. */
int msb_read(msb_sandbox *sb, const char *path, uint8_t **data, size_t *len) {
  api_op o;
  events_ev x;
  int rc;
  API_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_READ_FILE, path, NULL, 0);
  if (!rc) {
    rc = api_read_run(sb, path, data, len);
    if (!rc) x.has = EVENTS_HAS_READ, x.read = *len;
  } else {
    if (data) *data = NULL;
    if (len) *len = 0;
  }
  return api_op_end(sb, &o, rc, &x);
}

/* Ends a write of len bytes: the terminal event counts them. */
static int api_fs_written(msb_sandbox *sb, api_op *o, int rc, size_t len) {
  events_ev x;
  api_x(&x);
  if (!rc) x.has = EVENTS_HAS_WRITTEN, x.written = len;
  return api_op_end(sb, o, rc, &x);
}

/* Writes a whole file. */
int msb_write(msb_sandbox *sb, const char *path, const void *data, size_t len,
              int cond, const uint8_t *expect_hash, uint32_t mode,
              unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_WRITE_FILE, path, NULL, 0);
  if (!rc)
    rc = api_write_run(sb, path, data, len, cond, expect_hash, mode, flags);
  return api_fs_written(sb, &o, rc, len);
}

/* Appends to a file. */
int msb_append(msb_sandbox *sb, const char *path, const void *data, size_t len,
               unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_WRITE_FILE, path, NULL, 0);
  if (!rc) rc = api_append_run(sb, path, data, len, flags);
  return api_fs_written(sb, &o, rc, len);
}

/* Stats a path. */
int msb_stat_path(msb_sandbox *sb, const char *path, unsigned flags,
                  msb_stat *st) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_STAT, path, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_stat_path_run(sb, path, flags, st),
                    NULL);
}

/* Lists a directory. */
int msb_list(msb_sandbox *sb, const char *path, char **names, size_t *len,
             size_t *count) {
  api_op o;
  int rc;
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_LIST_ENTRIES, path, NULL, 0);
  if (!rc) {
    rc = api_list_run(sb, path, names, len, count);
  } else {
    if (names) *names = NULL;
    if (len) *len = 0;
    if (count) *count = 0;
  }
  return api_op_end(sb, &o, rc, NULL);
}

/* Creates a directory. */
int msb_mkdir(msb_sandbox *sb, const char *path, uint32_t mode,
              unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_CREATE_DIRECTORY, path, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_mkdir_run(sb, path, mode, flags),
                    NULL);
}

/* Removes a path. */
int msb_remove(msb_sandbox *sb, const char *path, unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_REMOVE_PATH, path, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_remove_run(sb, path, flags), NULL);
}

/* Copies src to dst. */
int msb_copy(msb_sandbox *sb, const char *src, const char *dst,
             unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_COPY_PATH, src, dst, 0);
  return api_op_end(sb, &o, rc ? rc : api_copy_run(sb, src, dst, flags), NULL);
}

/* Moves src to dst. */
int msb_move(msb_sandbox *sb, const char *src, const char *dst,
             unsigned flags) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_MOVE_PATH, src, dst, 0);
  return api_op_end(sb, &o, rc ? rc : api_move_run(sb, src, dst, flags), NULL);
}

/* Creates a symbolic link (the target is not a path the link touches). */
int msb_symlink(msb_sandbox *sb, const char *target, const char *linkpath) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_CREATE_SYMLINK, linkpath, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_symlink_run(sb, target, linkpath),
                    NULL);
}

/* Reads a link target. */
int msb_readlink(msb_sandbox *sb, const char *path, char **target) {
  api_op o;
  int rc;
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_READ_LINK, path, NULL, 0);
  if (!rc)
    rc = api_readlink_run(sb, path, target);
  else if (target)
    *target = NULL;
  return api_op_end(sb, &o, rc, NULL);
}

/* Sets permission bits. */
int msb_chmod(msb_sandbox *sb, const char *path, uint32_t mode) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_CHANGE_MODE, path, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_chmod_run(sb, path, mode), NULL);
}

/* SHA-256 of a path. */
int msb_hash(msb_sandbox *sb, const char *path, uint8_t out[32]) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_HASH, path, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_hash_run(sb, path, out), NULL);
}

/* Hash of /workspace. */
int msb_root_hash(msb_sandbox *sb, uint8_t out[32]) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_HASH, "/workspace", NULL, 1);
  return api_op_end(sb, &o, rc ? rc : api_root_hash_run(sb, out), NULL);
}
