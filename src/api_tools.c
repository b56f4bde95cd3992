/* api_tools.c - the entry points the agent tools need beyond plain file
 * access: msb_apply_patch (unified diffs and V4A patches, atomically) and
 * msb_session_cwd and msb_session_env.
 *
 * The patch
 * engine (patch.c) computes every file first and commits in one batch;
 * this layer adds argument checks, one-line messages, and the list of
 * changed files with their hashes before and after, which a tool reports
 * so a model can chain compare-and-swap writes. The "before" hashes are
 * read from the tree as it was: the old root is held (an O(1) reference)
 * and swapped in for the lookups, which moves no data. */
#include <stdio.h>
#include <string.h>

#include "interp.h"
#include "patch.h"
#include "sandbox.h"

/* One operation of patch_apply_list's record stream. */
typedef struct api_tools_op {
  int del;
  const char *path, *from; /* from is "" unless a V4A move */
  const char *hash;        /* hex of the written content; "" for a delete */
} api_tools_op;

/* Reads the record at *p (end e); 0 at the end, 1 with *op filled. */
static int api_tools_next(const char **p, const char *e, api_tools_op *op) {
  if (*p >= e) return 0;
  op->del = **p == 'D';
  op->path = *p + 1;
  op->from = op->path + strlen(op->path) + 1;
  op->hash = op->from + strlen(op->from) + 1;
  *p = op->hash + strlen(op->hash) + 1;
  return 1;
}

/* Lowercase hex of a file's hash in the current tree, or "" when the path
 * does not name a file there. */
static void api_tools_hex(vfs *v, const char *path, char out[65]) {
  static const char digits[] = "0123456789abcdef";
  struct vfs_stat st;
  uint8_t h[32];
  int i;
  out[0] = 0;
  if (vfs_stat(v, path, 1, &st) || st.kind != VFS_FILE) return;
  if (vfs_hash(v, path, 1, h)) return;
  for (i = 0; i < 32; i++) {
    out[2 * i] = digits[h[i] >> 4];
    out[2 * i + 1] = digits[h[i] & 15];
  }
  out[64] = 0;
}

/* Appends one change record (five NUL-terminated fields). */
static void api_tools_record(buf *b, const char *op, const char *path,
                             const char *from, const char *prev,
                             const char *cur) {
  buf_put(b, op, strlen(op) + 1);
  buf_put(b, path, strlen(path) + 1);
  buf_put(b, from, strlen(from) + 1);
  buf_put(b, prev, strlen(prev) + 1);
  buf_put(b, cur, strlen(cur) + 1);
}

/* Whether an earlier record in [s, upto) already names path. */
static int api_tools_seen(const char *s, const char *upto, const char *path) {
  api_tools_op op;
  while (s < upto && api_tools_next(&s, upto, &op))
    if (!strcmp(op.path, path)) return 1;
  return 0;
}

/* Whether some write in [s, e) moved a file away from path. */
static int api_tools_moved_from(const char *s, const char *e,
                                const char *path) {
  api_tools_op op;
  while (api_tools_next(&s, e, &op))
    if (!op.del && !strcmp(op.from, path)) return 1;
  return 0;
}

/* The last operation on path in [s, e) (there is at least one). */
static api_tools_op api_tools_last(const char *s, const char *e,
                                   const char *path) {
  api_tools_op op, last;
  memset(&last, 0, sizeof last);
  while (api_tools_next(&s, e, &op))
    if (!strcmp(op.path, path)) last = op;
  return last;
}

/* Turns the engine's operations into change records: one per distinct
 * path in patch order, its final operation deciding what happened. The
 * hash before comes from old, the tree the patch started from (swapped in
 * for the lookups), the hash after from the record, so a dry run reports
 * the same as a real one. A delete that is the source of a move is covered
 * by the move's record. */
static int api_tools_changes(msb_sandbox *sb, vnode *old, const buf *ops,
                             buf *out, size_t *count) {
  const char *s = ops->p ? ops->p : "", *e = s + ops->len, *p = s, *at;
  vnode *now = vfs_root_get(sb->fs);
  api_tools_op first, op;
  char prev[65];
  *count = 0;
  for (at = p; api_tools_next(&p, e, &first); at = p) {
    const char *kind;
    if (api_tools_seen(s, at, first.path)) continue;
    op = api_tools_last(at, e, first.path);
    if (op.del && api_tools_moved_from(s, e, op.path)) continue;
    vfs_root_set(sb->fs, old);
    api_tools_hex(sb->fs, *op.from ? op.from : op.path, prev);
    vfs_root_set(sb->fs, now);
    if (*op.from)
      kind = "move";
    else if (!*prev && op.del)
      continue; /* added and deleted by the same patch */
    else
      kind = !*prev ? "add" : op.del ? "delete" : "update";
    api_tools_record(out, kind, op.path, op.from, prev, op.hash);
    (*count)++;
  }
  vnode_unref(sb->fs, now);
  return out->err;
}

/* Applies a unified diff or V4A patch atomically (msb_apply_patch's body;
 * see memsandbox.h). */
static int api_apply_patch_run(msb_sandbox *sb, const char *text, size_t len,
                               const char *cwd, unsigned flags, char **changes,
                               size_t *changes_len, size_t *count) {
  const unsigned known =
      MSB_PATCH_EXACT | MSB_PATCH_DRY_RUN | MSB_PATCH_WORKSPACE;
  patch_opts o = {-1, 0, 0, 0, 0, 0, 0, {NULL, NULL}};
  buf rep, ops, out;
  vnode *old;
  uint64_t rev;
  int rc;
  if (!sb) return MSB_EMISUSE;
  if (changes) *changes = NULL;
  if (changes_len) *changes_len = 0;
  if (count) *count = 0;
  if (!text && len) return api_fail(sb, MSB_EINVAL, "text is NULL");
  if (flags & ~known)
    return api_fail(sb, MSB_EINVAL, "unsupported flags 0x%x for patch",
                    flags & ~known);
  if (!cwd) cwd = "/workspace";
  if (cwd[0] != '/')
    return api_fail(sb, MSB_EINVAL, "cwd must be an absolute path");
  if (memchr(text ? text : "", 0, len))
    return api_fail(sb, MSB_ECORRUPT, "patch contains a NUL byte");
  o.exact = (flags & MSB_PATCH_EXACT) != 0;
  o.dry_run = (flags & MSB_PATCH_DRY_RUN) != 0;
  o.workspace = (flags & MSB_PATCH_WORKSPACE) != 0;
  buf_init(&rep, &sb->m);
  buf_init(&ops, &sb->m);
  buf_init(&out, &sb->m);
  old = vfs_root_get(sb->fs);
  rev = vfs_revision(sb->fs);
  rc = patch_apply_list(sb->fs, cwd, text ? text : "", len, &o, &rep, &ops);
  if (!rc && changes) {
    size_t n = 0;
    rc = api_tools_changes(sb, old, &ops, &out, &n);
    if (!rc) {
      *changes = buf_steal(&out, changes_len);
      if (count) *count = n;
    } else if (!o.dry_run) {
      /* Out of memory while listing: undo, so a failure changes nothing. */
      vfs_root_set(sb->fs, old);
      vfs_set_revision(sb->fs, rev);
    }
  }
  vnode_unref(sb->fs, old);
  if (rc == MSB_ENOMEM)
    api_oom(sb);
  else if (rc)
    api_fail(sb, rc, "%s", rep.len ? buf_str(&rep) : msb_strerror(rc));
  else
    sb->errmsg[0] = 0;
  buf_finish(&rep);
  buf_finish(&ops);
  buf_finish(&out);
  return rc;
}

/* The session's working directory (borrowed). */
const char *msb_session_cwd(const msb_sandbox *sb) {
  return sb && sb->sh ? shell_cwd(sb->sh) : "";
}

/* The session's exported variables (see memsandbox.h). */
/* The last execute's environment changes, in order (see memsandbox.h). */
int msb_env_changes(msb_sandbox *sb, char **out, size_t *len, size_t *count) {
  const var_change *c;
  size_t n, i;
  buf b;
  if (!sb) return MSB_EMISUSE;
  if (!out || !len || !count)
    return api_fail(sb, MSB_EINVAL, "out, len and count are required");
  c = var_log_get(sb->sh->vars, &n);
  buf_init(&b, &sb->m);
  for (i = 0; i < n; i++) {
    buf_putc(&b, c[i].value ? 'S' : 'U');
    buf_puts(&b, c[i].name);
    if (c[i].value) {
      buf_putc(&b, '=');
      buf_puts(&b, c[i].value);
    }
    buf_putc(&b, 0);
  }
  if (b.err) {
    buf_finish(&b);
    return api_oom(sb);
  }
  *out = buf_steal(&b, len);
  *count = n;
  return api_ok(sb);
}

int msb_session_env(msb_sandbox *sb, char **env, size_t *len, size_t *count) {
  char **e;
  buf b;
  size_t n = 0;
  if (!sb) return MSB_EMISUSE;
  if (!env || !len || !count)
    return api_fail(sb, MSB_EINVAL, "env, len and count are required");
  *env = NULL;
  *len = *count = 0;
  e = var_environ(sb->sh->vars);
  buf_init(&b, &sb->m);
  for (; e && e[n]; n++) buf_put(&b, e[n], strlen(e[n]) + 1);
  if (!e || b.err) {
    buf_finish(&b);
    return api_oom(sb);
  }
  *env = buf_steal(&b, len);
  *count = n;
  sb->errmsg[0] = 0;
  return 0;
}

/* Applies a unified diff or V4A patch atomically. The files it touches
 * are checked by the path rules as it writes them. */
int msb_apply_patch(msb_sandbox *sb, const char *text, size_t len,
                    const char *cwd, unsigned flags, char **changes,
                    size_t *changes_len, size_t *count) {
  api_op o;
  int rc;
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_APPLY_PATCH, NULL, NULL, 0);
  if (!rc)
    rc = api_apply_patch_run(sb, text, len, cwd, flags, changes, changes_len,
                             count);
  else if (changes)
    *changes = NULL;
  return api_op_end(sb, &o, rc, NULL);
}
