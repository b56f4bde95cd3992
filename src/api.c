/* api.c - the bodies of the public msb_* operations (api_host.c wraps
 * them in policy checks and events): argument checks, path handling,
 * error messages, revisions, checkpoints.
 *
 * The layer is thin on purpose: the filesystem (vfs.c) already makes each
 * operation atomic, and the shell (interp.c) runs scripts. What lives here
 * is what a host needs: NULL and flag validation, relative paths taken
 * against /workspace, one-line messages in the reference product's
 * wording (msb_errmsg), the mapping from API flags to filesystem flags,
 * and composite operations made atomic by holding the old root (an O(1)
 * reference) and putting it back on failure.
 *
 * Paths: an absolute path goes to the filesystem unchanged, so "." and ".."
 * resolve physically like Linux; messages show the lexically normalised
 * form ("/workspace/a.txt does not exist"). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cmd/cmd.h"
#include "limits.h"
#include "memsandbox.h"
#include "sandbox.h"
#include "secret.h"

/* ---- errors --------------------------------------------------------- */

static int api_fail(msb_sandbox *sb, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int api_fail(msb_sandbox *sb, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sb->errmsg, sizeof sb->errmsg, fmt, ap);
  va_end(ap);
  if (sb->secrets &&
      secret_find(sb->secrets, sb->errmsg, strlen(sb->errmsg), NULL, 0)) {
    buf b;
    size_t k;
    buf_init(&b, &sb->m);
    if (!secret_redact(sb->secrets, sb->errmsg, strlen(sb->errmsg), &b))
      snprintf(sb->errmsg, sizeof sb->errmsg, "%s", buf_str(&b));
    else /* cannot redact: withhold rather than leak */
      snprintf(sb->errmsg, sizeof sb->errmsg,
               "%s (details withheld: they held a secret value)",
               msb_strerror(rc));
    buf_finish(&b);
    k = strlen(sb->errmsg); /* nor leave the raw text after the new end */
    memset(sb->errmsg + k, 0, sizeof sb->errmsg - k);
  }
  return rc;
}

static int api_ok(msb_sandbox *sb) {
  sb->errmsg[0] = 0;
  return 0;
}

static int api_oom(msb_sandbox *sb) {
  return api_fail(sb, MSB_ENOMEM,
                  "out of memory: the sandbox memory limit (%llu bytes) "
                  "was reached",
                  (unsigned long long)sb->lim.max_memory_bytes);
}

static unsigned long long api_ull(uint64_t x) { return (unsigned long long)x; }

/* The parent directory of a normalised absolute path, in place in b
 * (which holds a copy). */
static void api_dirname(buf *b) {
  size_t k = b->len;
  while (k > 0 && b->p[k - 1] != '/') k--;
  buf_truncate(b, k > 1 ? k - 1 : 1);
}

/* Message for a filesystem error on disp (a normalised absolute path).
 * creating: the operation creates disp, so a missing parent is named. */
static int api_vfs_err(msb_sandbox *sb, int rc, const char *disp,
                       int creating) {
  buf b;
  size_t i;
  switch (rc) {
  case MSB_ENOMEM: return api_oom(sb);
  case MSB_ENOENT:
    if (creating) {
      buf_init(&b, &sb->m);
      buf_puts(&b, disp);
      api_dirname(&b);
      if (!b.err && vfs_stat(sb->fs, buf_str(&b), 1, NULL) == MSB_ENOENT) {
        api_fail(sb, rc, "parent directory %s does not exist", buf_str(&b));
        buf_finish(&b);
        return rc;
      }
      buf_finish(&b);
    }
    return api_fail(sb, rc, "%s does not exist", disp);
  case MSB_ENOTDIR:
    /* name the first component that exists and is not a directory */
    buf_init(&b, &sb->m);
    for (i = 1; disp[i]; i++) {
      struct vfs_stat st;
      if (disp[i] != '/') continue;
      buf_clear(&b);
      buf_put(&b, disp, i);
      if (b.err) break;
      if (vfs_stat(sb->fs, buf_str(&b), 1, &st) == 0 && st.kind != VFS_DIR) {
        api_fail(sb, rc, "%s is not a directory", buf_str(&b));
        buf_finish(&b);
        return rc;
      }
    }
    buf_finish(&b);
    return api_fail(sb, rc, "%s is not a directory", disp);
  case MSB_EEXIST: return api_fail(sb, rc, "%s already exists", disp);
  case MSB_EISDIR: return api_fail(sb, rc, "%s is a directory", disp);
  case MSB_ENOTEMPTY: return api_fail(sb, rc, "%s is not empty", disp);
  case MSB_ELOOP:
    return api_fail(sb, rc, "%s: too many levels of symbolic links", disp);
  case MSB_ESTALE:
    return api_fail(sb, rc, "%s content hash does not match the expected hash",
                    disp);
  case MSB_EPERM:
    if (!strcmp(disp, "/workspace"))
      return api_fail(sb, rc, "the workspace root cannot be modified");
    return api_fail(sb, rc, "%s cannot be modified", disp);
  case MSB_ENAMETOOLONG: {
    const char *p = disp, *q;
    uint32_t depth = 0;
    if (strlen(disp) > sb->lim.max_path_bytes)
      return api_fail(sb, rc, "path exceeds %lu UTF-8 bytes",
                      (unsigned long)sb->lim.max_path_bytes);
    while (*p) {
      while (*p == '/') p++;
      if (!*p) break;
      for (q = p; *q && *q != '/'; q++) {
      }
      if ((size_t)(q - p) > sb->lim.max_segment_bytes)
        return api_fail(sb, rc, "path segment exceeds %lu UTF-8 bytes",
                        (unsigned long)sb->lim.max_segment_bytes);
      depth++;
      p = q;
    }
    if (depth > sb->lim.max_depth)
      return api_fail(sb, rc, "path exceeds %lu levels",
                      (unsigned long)sb->lim.max_depth);
    return api_fail(sb, rc, "%s: file name too long", disp);
  }
  case MSB_EINVAL: return api_fail(sb, rc, "%s: invalid argument", disp);
  case MSB_EPOLICY:
    return api_fail(sb, rc, "%s: permission denied by the policy's path rules",
                    disp);
  default: return api_fail(sb, rc, "%s: %s", disp, msb_strerror(rc));
  }
}

/* " (max_nodes=N)": the quota a filesystem error code stands for, so a
 * message names the limit to raise; "" for other codes. Borrowed from
 * sb->errname until the next call. */
static const char *api_quota_name(msb_sandbox *sb, int rc) {
  limit_id id = limit_of_code(rc);
  if (!id) return "";
  snprintf(sb->errname, sizeof sb->errname, " (%s=%llu)", limit_name(id),
           api_ull(limit_value(&sb->lim, id)));
  return sb->errname;
}

/* Quota messages; add_* is the growth the operation asked for. */
static int api_quota_err(msb_sandbox *sb, int rc, uint64_t file_size,
                         uint64_t add_bytes, uint64_t add_nodes,
                         const char *disp, int creating) {
  switch (rc) {
  case MSB_EFBIG:
    return api_fail(sb, rc, "file contains %llu bytes; limit is %llu bytes",
                    api_ull(file_size), api_ull(sb->lim.max_file_bytes));
  case MSB_ENOSPC:
    return api_fail(sb, rc,
                    "workspace contains %llu bytes; limit is %llu bytes",
                    api_ull(vfs_total_bytes(sb->fs) + add_bytes),
                    api_ull(sb->lim.max_total_bytes));
  case MSB_EDQUOT:
    return api_fail(sb, rc,
                    "workspace contains %llu nodes; limit is %llu nodes",
                    api_ull(vfs_total_nodes(sb->fs) + add_nodes),
                    api_ull(sb->lim.max_nodes));
  }
  return api_vfs_err(sb, rc, disp, creating);
}

/* ---- paths ---------------------------------------------------------- */

/* A path argument: abs receives the absolute path handed to the
 * filesystem, disp its normalised form for messages. */
typedef struct api_path {
  buf abs, disp;
} api_path;

static void api_path_finish(api_path *p) {
  buf_finish(&p->abs);
  buf_finish(&p->disp);
}

static int api_path_init(msb_sandbox *sb, api_path *p, const char *path) {
  buf_init(&p->abs, &sb->m);
  buf_init(&p->disp, &sb->m);
  if (!path) return api_fail(sb, MSB_EINVAL, "path must not be NULL");
  if (!*path) return api_fail(sb, MSB_EINVAL, "path must not be empty");
  if (path[0] != '/') buf_puts(&p->abs, "/workspace/");
  buf_puts(&p->abs, path);
  vfs_abspath("/workspace", path, &p->disp);
  if (p->abs.err || p->disp.err) return api_oom(sb);
  return 0;
}

#define API_CHECK(sb)              \
  do {                             \
    if (!(sb)) return MSB_EMISUSE; \
  } while (0)

/* ---- lifecycle ------------------------------------------------------ */

/* Opens a sandbox. */
/* Makes /dev/null (the null device node, see vfs_mknull) and lists every
 * command as an empty executable file in /usr/bin, with /bin a
 * link to it (as on Debian), so probes such as `ls /usr/bin`, `test -x
 * /usr/bin/jq` and `command -v` answer truthfully. The entries are real
 * nodes outside /workspace (the root hash does not see them) made before
 * the first script runs rather than at open, which keeps creation cheap;
 * they come back if a script removes /usr/bin. The revision is unchanged. */
static int api_install_bin(msb_sandbox *sb) {
  size_t n, i;
  const cmd_desc *t = cmd_table(&n);
  struct vfs_stat st;
  uint64_t rev = vfs_revision(sb->fs);
  buf path;
  int rc;
  vnode *saved;
  struct policy *pol;
  int have_bin = !vfs_stat(sb->fs, "/usr/bin", 0, &st);
  int have_null = !vfs_stat(sb->fs, "/dev/null", 0, &st) && (st.mode & VFS_CHR);
  if (have_bin && have_null) return 0;
  pol = vfs_set_policy(sb->fs, NULL); /* the listing is ours, not a script's */
  saved = vfs_root_get(sb->fs); /* all or nothing */
  rc = 0;
  if (!have_null) { /* `test -c /dev/null`, `cp /dev/null f` */
    /* best effort: a script may have put a file at /dev or /dev/null */
    rc = vfs_mkdir(sb->fs, "/dev", 0755, VFS_MK_EXIST_OK);
    if (!rc) rc = vfs_remove(sb->fs, "/dev/null", 0);
    if (!rc || rc == MSB_ENOENT) rc = vfs_mknull(sb->fs, "/dev/null");
    if (rc != MSB_ENOMEM) rc = 0;
  }
  if (!rc && !have_bin) {
    rc = vfs_mkdir(sb->fs, "/usr/bin", 0755, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
    if (!rc) rc = vfs_symlink(sb->fs, "usr/bin", "/bin");
    if (rc == MSB_EEXIST) rc = 0;
  }
  buf_init(&path, &sb->m);
  for (i = 0; i < n + 2 && !rc && !have_bin; i++) {
    buf_clear(&path);
    buf_puts(&path, "/usr/bin/");
    /* the shell itself runs in-process but is a file there too */
    buf_puts(&path, i < n ? t[i].name : i == n ? "bash" : "sh");
    rc = path.err ? path.err
                  : vfs_write(sb->fs, buf_str(&path), "", 0, 0, 0755, NULL);
  }
  buf_finish(&path);
  if (rc) vfs_root_set(sb->fs, saved);
  vnode_unref(sb->fs, saved);
  vfs_set_revision(sb->fs, rev);
  vfs_set_policy(sb->fs, pol);
  return rc;
}

int msb_open(const msb_config *cfg, msb_sandbox **out) {
  mem m;
  msb_sandbox *sb;
  msb_limits lim;
  vfs_limits vl;
  size_t cap;
  if (!out) return MSB_EINVAL;
  *out = NULL;
  if (cfg && cfg->limits)
    lim = *cfg->limits;
  else
    msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  if (!limit_check(&lim)) return MSB_EINVAL;
  cap =
      lim.max_memory_bytes > SIZE_MAX ? SIZE_MAX : (size_t)lim.max_memory_bytes;
  mem_init(&m, cap);
  sb = mem_zalloc(&m, sizeof *sb);
  if (!sb) return MSB_ENOMEM;
  sb->m = m;
  sb->lim = lim;
  sb->clock = cfg ? cfg->clock_ns : 0;
  sb->seed = cfg ? cfg->seed : 0;
  sb->next_cp = 1;
  events_init(&sb->ev, &sb->m);
  vl.max_total_bytes = lim.max_total_bytes;
  vl.max_file_bytes = lim.max_file_bytes;
  vl.max_nodes = lim.max_nodes;
  vl.max_path_bytes = lim.max_path_bytes;
  vl.max_segment_bytes = lim.max_segment_bytes;
  vl.max_depth = lim.max_depth;
  sb->fs = vfs_create(&sb->m, &vl, sb->clock);
  if (sb->fs) {
    vfs_bind_clock(sb->fs, &sb->clock);
    sb->sh = shell_create(&sb->m, sb->fs, &sb->lim, sb->seed, &sb->clock);
  }
  if (!sb->sh) {
    api_close(sb);
    return MSB_ENOMEM;
  }
  api_event(sb, "sandbox.created", 0);
  *out = sb;
  return 0;
}

/* Closes and reports leaked bytes (see sandbox.h). */
size_t api_close(msb_sandbox *sb) {
  size_t i, leaked;
  mem m;
  if (!sb) return 0;
  for (i = 0; i < sb->ncps; i++) {
    vnode_unref(sb->fs, sb->cps[i].root);
    shell_destroy(sb->cps[i].sh);
  }
  mem_free(&sb->m, sb->cps);
  shell_destroy(sb->sh);
  vfs_destroy(sb->fs);
  policy_destroy(sb->pol);
  events_finish(&sb->ev);
  m = sb->m;
  leaked = m.used - mem_size(sb) + (m.blocks - 1);
  mem_free(&m, sb);
  return leaked;
}

/* Closes a sandbox. */
void msb_close(msb_sandbox *sb) { (void)api_close(sb); }

/* Last error message. */
const char *msb_errmsg(const msb_sandbox *sb) {
  if (!sb) return "the sandbox handle is NULL";
  return sb->errmsg;
}

/* Frees memory returned as "caller frees". */
void msb_free(msb_sandbox *sb, void *p) {
  if (sb && p) mem_free(&sb->m, p);
}

/* Sets the sandbox clock. */
int msb_set_clock(msb_sandbox *sb, int64_t clock_ns) {
  API_CHECK(sb);
  sb->clock = clock_ns;
  return api_ok(sb);
}

/* The sandbox clock. */
int64_t msb_clock(const msb_sandbox *sb) { return sb ? sb->clock : 0; }

/* Bytes in use by the sandbox's allocator. */
uint64_t msb_memory_used(const msb_sandbox *sb) { return sb ? sb->m.used : 0; }

/* ---- filesystem ----------------------------------------------------- */

/* Reads a whole file into a caller-freed copy. */
int api_read_run(msb_sandbox *sb, const char *path, uint8_t **data,
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
int api_write_run(msb_sandbox *sb, const char *path, const void *data,
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
int api_append_run(msb_sandbox *sb, const char *path, const void *data,
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

/* Stats a path. */
int api_stat_path_run(msb_sandbox *sb, const char *path, unsigned flags,
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
  rc = api_ok(sb);
out:
  api_path_finish(&p);
  return rc;
}

/* Lists a directory as NUL-terminated names. */
int api_list_run(msb_sandbox *sb, const char *path, char **names, size_t *len,
                 size_t *count) {
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
int api_mkdir_run(msb_sandbox *sb, const char *path, uint32_t mode,
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
int api_remove_run(msb_sandbox *sb, const char *path, unsigned flags) {
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
    rc = api_fail(sb, MSB_EINVAL, "source and destination must differ");
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
int api_copy_run(msb_sandbox *sb, const char *src, const char *dst,
                 unsigned flags) {
  API_CHECK(sb);
  return api_copy_move(sb, src, dst, flags, 0);
}

/* Moves src to dst. */
int api_move_run(msb_sandbox *sb, const char *src, const char *dst,
                 unsigned flags) {
  API_CHECK(sb);
  return api_copy_move(sb, src, dst, flags, 1);
}

/* Creates a symbolic link. */
int api_symlink_run(msb_sandbox *sb, const char *target, const char *linkpath) {
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
int api_readlink_run(msb_sandbox *sb, const char *path, char **target) {
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
int api_chmod_run(msb_sandbox *sb, const char *path, uint32_t mode) {
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
int api_hash_run(msb_sandbox *sb, const char *path, uint8_t out[32]) {
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

/* The workspace revision. */
uint64_t msb_revision(const msb_sandbox *sb) {
  return sb ? vfs_revision(sb->fs) : 0;
}

/* Hash of /workspace. */
int api_root_hash_run(msb_sandbox *sb, uint8_t out[32]) {
  int rc;
  API_CHECK(sb);
  if (!out) return api_fail(sb, MSB_EINVAL, "out is required");
  rc = vfs_hash(sb->fs, "/workspace", 0, out);
  return rc ? api_vfs_err(sb, rc, "/workspace", 0) : api_ok(sb);
}

/* ---- shell ---------------------------------------------------------- */

static int api_exec_body(msb_sandbox *sb, const char *script, size_t len,
                         const msb_exec_opts *opts, msb_result *res);

/* Runs a script in the session (msb_exec's body): checks the arguments and
 * binds the secrets for the run. */
int api_exec_run(msb_sandbox *sb, const char *script, size_t len,
                 const msb_exec_opts *opts, msb_result *res) {
  secret_set sec;
  int rc;
  memset(&sec, 0, sizeof sec);
  API_CHECK(sb);
  if (!res) return api_fail(sb, MSB_EINVAL, "res is required");
  memset(res, 0, sizeof *res);
  if (!script && len) return api_fail(sb, MSB_EINVAL, "script is NULL");
  if (!script) script = "";
  if (opts && opts->stdin_len && !opts->stdin_data)
    return api_fail(sb, MSB_EINVAL, "stdin_data is NULL");
  if (opts && ((opts->env_count && !opts->env) ||
               (opts->secret_count && !opts->secrets)))
    return api_fail(sb, MSB_EINVAL, "env or secrets array is NULL");
  if (opts && opts->secret_count) {
    /* checked here for the message; the shell binds its own copy */
    buf why;
    sb->m.wipe = 1; /* until the call ends, no value goes back unzeroed */
    buf_init(&why, &sb->m);
    rc = secret_set_init(&sec, &sb->m, opts->secrets, opts->secret_count,
                         opts->env, opts->env_count, &why);
    if (rc == MSB_EINVAL) api_fail(sb, rc, "%s", buf_str(&why));
    buf_finish(&why);
    if (rc) {
      sb->m.wipe = 0;
      return rc == MSB_EINVAL ? rc : api_oom(sb);
    }
    sb->secrets = &sec;
  }
  rc = api_exec_body(sb, script, len, opts, res);
  sb->secrets = NULL;
  secret_set_finish(&sec);
  sb->m.wipe = 0;
  return rc;
}

/* msb_exec once its arguments are checked. */
static int api_exec_body(msb_sandbox *sb, const char *script, size_t len,
                         const msb_exec_opts *opts, msb_result *res) {
  vnode *saved = NULL;
  shell *keep = NULL;
  uint64_t rev;
  int rc;
  /* hold the current tree (O(1)) so a failed exec changes nothing */
  rev = vfs_revision(sb->fs);
  saved = vfs_root_get(sb->fs);
  if (opts && opts->atomic) keep = shell_share(sb->sh);
  if (shell_own(&sb->sh)) {
    shell_destroy(keep);
    vnode_unref(sb->fs, saved);
    return api_oom(sb);
  }
  if ((rc = api_install_bin(sb))) {
    shell_destroy(keep);
    vnode_unref(sb->fs, saved);
    return rc == MSB_ENOMEM
               ? api_oom(sb)
               : api_fail(sb, rc, "cannot create /usr/bin: %s%s",
                          msb_strerror(rc), api_quota_name(sb, rc));
  }
  vfs_batch_begin(sb->fs);
  rc = shell_exec(sb->sh, script, len, opts, res);
  vfs_batch_end(sb->fs);
  if (!rc && !res->cwd) {
    res->cwd = mem_strdup(&sb->m, shell_cwd(sb->sh));
    if (!res->cwd) rc = MSB_ENOMEM;
  }
  if (rc || (keep && res->exit_code != 0)) {
    vfs_root_set(sb->fs, saved);
    vfs_set_revision(sb->fs, rev);
  }
  if (keep && (rc || res->exit_code != 0)) {
    /* atomic run failed: the session goes back too */
    shell_destroy(sb->sh);
    sb->sh = keep;
    keep = NULL;
    if (!rc) res->rolled_back = 1;
  }
  shell_destroy(keep);
  vnode_unref(sb->fs, saved);
  if (rc) {
    msb_result_finish(sb, res);
    if (rc == MSB_ENOMEM) return api_oom(sb);
    return api_fail(sb, rc, "exec failed: %s", msb_strerror(rc));
  }
  return api_ok(sb);
}

/* Frees a result's buffers. */
void msb_result_finish(msb_sandbox *sb, msb_result *res) {
  if (!sb || !res) return;
  mem_free(&sb->m, res->out);
  mem_free(&sb->m, res->err);
  mem_free(&sb->m, res->cwd);
  res->out = res->err = NULL;
  res->cwd = NULL;
  res->out_len = res->err_len = 0;
}

/* Whether a script is complete. */
int msb_parse_check(msb_sandbox *sb, const char *script, size_t len) {
  int rc;
  API_CHECK(sb);
  if (!script && len) return api_fail(sb, MSB_EINVAL, "script is NULL");
  rc = shell_parse_check(sb->sh, script ? script : "", len);
  if (rc == MSB_ESYNTAX) return api_fail(sb, rc, "syntax error");
  if (rc == MSB_EINCOMPLETE) return api_fail(sb, rc, "incomplete input");
  if (rc == MSB_ENOMEM) return api_oom(sb);
  if (rc) return api_fail(sb, rc, "%s", msb_strerror(rc));
  return api_ok(sb);
}

/* ---- checkpoints and forks ----------------------------------------- */

static api_checkpoint *api_cp_find(msb_sandbox *sb, uint32_t id) {
  size_t lo = 0, hi = sb->ncps;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sb->cps[mid].id == id) return &sb->cps[mid];
    if (sb->cps[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Takes an O(1) checkpoint: one reference to the filesystem's root and
 * one to the shell session (see shell_share). */
int api_checkpoint_run(msb_sandbox *sb, uint32_t *id) {
  api_checkpoint *c;
  API_CHECK(sb);
  if (!id) return api_fail(sb, MSB_EINVAL, "id is required");
  if (sb->next_cp == 0)
    return api_fail(sb, MSB_ELIMIT, "checkpoint ids are exhausted");
  if (sb->ncps == sb->capcps) {
    size_t cap = sb->capcps ? sb->capcps * 2 : 4;
    api_checkpoint *p = mem_realloc(&sb->m, sb->cps, cap * sizeof *p);
    if (!p) return api_oom(sb);
    sb->cps = p;
    sb->capcps = cap;
  }
  c = &sb->cps[sb->ncps++]; /* ids grow, so the array stays sorted */
  c->id = sb->next_cp++;
  c->sh = shell_share(sb->sh);
  c->root = vfs_root_get(sb->fs);
  c->rev = vfs_revision(sb->fs);
  *id = c->id;
  return api_ok(sb);
}

/* Returns to a checkpoint, which stays valid. */
int api_rollback_run(msb_sandbox *sb, uint32_t id) {
  api_checkpoint *c;
  API_CHECK(sb);
  c = api_cp_find(sb, id);
  if (!c)
    return api_fail(sb, MSB_EINVAL, "no checkpoint %lu", (unsigned long)id);
  vfs_root_set(sb->fs, c->root);
  vfs_set_revision(sb->fs, c->rev);
  shell_destroy(sb->sh);
  sb->sh = shell_share(c->sh);
  return api_ok(sb);
}

/* Releases a checkpoint. */
int api_release_run(msb_sandbox *sb, uint32_t id) {
  api_checkpoint *c;
  size_t i;
  API_CHECK(sb);
  c = api_cp_find(sb, id);
  if (!c)
    return api_fail(sb, MSB_EINVAL, "no checkpoint %lu", (unsigned long)id);
  vnode_unref(sb->fs, c->root);
  shell_destroy(c->sh);
  i = (size_t)(c - sb->cps);
  memmove(c, c + 1, (sb->ncps - i - 1) * sizeof *c);
  sb->ncps--;
  return api_ok(sb);
}

/* Creates an independent sandbox with the same state: a deep copy into
 * the new sandbox's own allocator (O(size); the JS layer forks by copying
 * the whole module memory instead). Checkpoints are not carried over. */
int api_fork_run(msb_sandbox *sb, msb_sandbox **out) {
  int rc;
  API_CHECK(sb);
  if (!out) return api_fail(sb, MSB_EINVAL, "out is required");
  *out = NULL;
  if ((rc = api_snap_fork(sb, out))) return rc;
  /* the host's policy is not workspace state: the fork keeps it too */
  if (sb->pol && policy_copy(&(*out)->m, sb->pol, &(*out)->pol)) {
    msb_close(*out);
    *out = NULL;
    return api_oom(sb);
  }
  if (sb->pol) vfs_set_policy((*out)->fs, (*out)->pol);
  return 0;
}
