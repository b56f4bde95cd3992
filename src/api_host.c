/* api_host.c - the host controls: msb_set_policy, msb_events_take, and the
 * public entry points of every operation, each wrapped in the policy's
 * admission check and its events.
 *
 * An operation runs as: "operation.started" (with its normalised paths),
 * the admission check (a denied operation emits "policy.denied" and fails
 * with MSB_EPOLICY before anything runs), the body (api.c, api_snap.c),
 * then any "policy.denied" for paths or commands the body was refused,
 * "limit.exceeded" and snapshot events, and exactly one terminal event,
 * "operation.completed" or "operation.failed". Whole-state operations
 * (snapshots, checkpoints, root hash) are governed by operation rules
 * only, so path rules are suspended while they run. */
#include <stdio.h>
#include <string.h>

#include "limits.h"
#include "sandbox.h"

#define API_HOST_CHECK(sb)         \
  do {                             \
    if (!(sb)) return MSB_EMISUSE; \
  } while (0)

/* One operation in flight. */
typedef struct api_op {
  int op;
  uint64_t id;
  buf path[2]; /* normalised path arguments */
  size_t npaths;
  uint64_t dpaths, dcmds; /* the policy's denial counters at the start */
  policy *suspended;      /* path rules set aside for a whole-state op */
} api_op;

static void api_ev_init(events_ev *ev, const char *kind, const api_op *o) {
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  if (o) {
    size_t i;
    ev->operation = o->id;
    ev->op = policy_op_name(o->op);
    for (i = 0; i < o->npaths; i++) ev->paths[ev->npaths++] = o->path[i].p;
  }
}

/* Queues an event with no operation fields. */
void api_event(msb_sandbox *sb, const char *kind, uint64_t op) {
  events_ev ev;
  api_ev_init(&ev, kind, NULL);
  ev.operation = op;
  events_emit(&sb->ev, &ev);
}

/* Starts an operation: ids, "operation.started", the admission check.
 * whole: suspend path rules while it runs. */
static int api_op_begin(msb_sandbox *sb, api_op *o, int op, const char *p1,
                        const char *p2, int whole) {
  events_ev ev;
  const char *in[2];
  size_t i;
  memset(o, 0, sizeof *o);
  o->op = op;
  o->id = ++sb->ev.next_op;
  in[0] = p1;
  in[1] = p2;
  for (i = 0; i < 2; i++) {
    buf_init(&o->path[o->npaths], &sb->m);
    if (!in[i] || !*in[i]) continue;
    /* best effort: a path that cannot be copied is left out */
    if (vfs_abspath("/workspace", in[i], &o->path[o->npaths]) ||
        o->path[o->npaths].err)
      buf_clear(&o->path[o->npaths]);
    else
      o->npaths++;
  }
  api_ev_init(&ev, "operation.started", o);
  events_emit(&sb->ev, &ev);
  if (sb->pol) {
    o->dpaths = sb->pol->denied_paths;
    o->dcmds = sb->pol->denied_cmds;
    if (!policy_op_allowed(sb->pol, op)) {
      api_ev_init(&ev, "policy.denied", o);
      ev.reason = "operation";
      events_emit(&sb->ev, &ev);
      snprintf(sb->errmsg, sizeof sb->errmsg,
               "operation %s is denied by policy", policy_op_name(op));
      return MSB_EPOLICY;
    }
    if (whole) o->suspended = vfs_set_policy(sb->fs, NULL);
  }
  return 0;
}

/* Ends an operation: denials seen, limits, the terminal event. x holds
 * the terminal event's extra fields (exit code, bytes, limit). */
static int api_op_end(msb_sandbox *sb, api_op *o, int rc, const events_ev *x) {
  events_ev ev;
  size_t i;
  const char *limit = rc < 0 ? limit_name(limit_of_code(rc))
                      : x    ? x->limit
                             : NULL;
  if (o->suspended) vfs_set_policy(sb->fs, o->suspended);
  if (sb->pol) {
    uint64_t dp = sb->pol->denied_paths - o->dpaths;
    uint64_t dc = sb->pol->denied_cmds - o->dcmds;
    if (dc) {
      api_ev_init(&ev, "policy.denied", o);
      ev.reason = "command";
      ev.has = EVENTS_HAS_COUNT;
      ev.count = dc;
      events_emit(&sb->ev, &ev);
    }
    if (dp) {
      api_ev_init(&ev, "policy.denied", o);
      ev.reason = "path";
      ev.has = EVENTS_HAS_COUNT;
      ev.count = dp;
      events_emit(&sb->ev, &ev);
    }
  }
  if (limit) {
    api_ev_init(&ev, "limit.exceeded", o);
    ev.limit = limit;
    events_emit(&sb->ev, &ev);
  }
  if (rc < 0) {
    api_ev_init(&ev, "operation.failed", o);
    ev.code = msb_code_name(rc);
  } else {
    api_ev_init(&ev, "operation.completed", o);
    if (x) {
      ev.has = x->has;
      ev.exit_code = x->exit_code;
      ev.out = x->out;
      ev.err = x->err;
      ev.read = x->read;
      ev.written = x->written;
    }
  }
  ev.has |= EVENTS_HAS_REV;
  ev.revision = vfs_revision(sb->fs);
  events_emit(&sb->ev, &ev);
  for (i = 0; i < 2; i++) buf_finish(&o->path[i]);
  return rc;
}

static void api_x(events_ev *x) { memset(x, 0, sizeof *x); }

/* ---- filesystem ----------------------------------------------------- */

/* Reads a whole file. */
int msb_read(msb_sandbox *sb, const char *path, uint8_t **data, size_t *len) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
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

/* Writes a whole file. */
int msb_write(msb_sandbox *sb, const char *path, const void *data, size_t len,
              int cond, const uint8_t *expect_hash, uint32_t mode,
              unsigned flags) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_WRITE_FILE, path, NULL, 0);
  if (!rc)
    rc = api_write_run(sb, path, data, len, cond, expect_hash, mode, flags);
  if (!rc) x.has = EVENTS_HAS_WRITTEN, x.written = len;
  return api_op_end(sb, &o, rc, &x);
}

/* Appends to a file. */
int msb_append(msb_sandbox *sb, const char *path, const void *data, size_t len,
               unsigned flags) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_WRITE_FILE, path, NULL, 0);
  if (!rc) rc = api_append_run(sb, path, data, len, flags);
  if (!rc) x.has = EVENTS_HAS_WRITTEN, x.written = len;
  return api_op_end(sb, &o, rc, &x);
}

/* Stats a path. */
int msb_stat_path(msb_sandbox *sb, const char *path, unsigned flags,
                  msb_stat *st) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_STAT, path, NULL, 0);
  if (!rc) rc = api_stat_path_run(sb, path, flags, st);
  return api_op_end(sb, &o, rc, NULL);
}

/* Lists a directory. */
int msb_list(msb_sandbox *sb, const char *path, char **names, size_t *len,
             size_t *count) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
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
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_CREATE_DIRECTORY, path, NULL, 0);
  if (!rc) rc = api_mkdir_run(sb, path, mode, flags);
  return api_op_end(sb, &o, rc, NULL);
}

/* Removes a path. */
int msb_remove(msb_sandbox *sb, const char *path, unsigned flags) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_REMOVE_PATH, path, NULL, 0);
  if (!rc) rc = api_remove_run(sb, path, flags);
  return api_op_end(sb, &o, rc, NULL);
}

/* Copies src to dst. */
int msb_copy(msb_sandbox *sb, const char *src, const char *dst,
             unsigned flags) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_COPY_PATH, src, dst, 0);
  if (!rc) rc = api_copy_run(sb, src, dst, flags);
  return api_op_end(sb, &o, rc, NULL);
}

/* Moves src to dst. */
int msb_move(msb_sandbox *sb, const char *src, const char *dst,
             unsigned flags) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_MOVE_PATH, src, dst, 0);
  if (!rc) rc = api_move_run(sb, src, dst, flags);
  return api_op_end(sb, &o, rc, NULL);
}

/* Creates a symbolic link (the target is not a path the link touches). */
int msb_symlink(msb_sandbox *sb, const char *target, const char *linkpath) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_CREATE_SYMLINK, linkpath, NULL, 0);
  if (!rc) rc = api_symlink_run(sb, target, linkpath);
  return api_op_end(sb, &o, rc, NULL);
}

/* Reads a link target. */
int msb_readlink(msb_sandbox *sb, const char *path, char **target) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
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
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_CHANGE_MODE, path, NULL, 0);
  if (!rc) rc = api_chmod_run(sb, path, mode);
  return api_op_end(sb, &o, rc, NULL);
}

/* SHA-256 of a path. */
int msb_hash(msb_sandbox *sb, const char *path, uint8_t out[32]) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_HASH, path, NULL, 0);
  if (!rc) rc = api_hash_run(sb, path, out);
  return api_op_end(sb, &o, rc, NULL);
}

/* Hash of /workspace. */
int msb_root_hash(msb_sandbox *sb, uint8_t out[32]) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_HASH, "/workspace", NULL, 1);
  if (!rc) rc = api_root_hash_run(sb, out);
  return api_op_end(sb, &o, rc, NULL);
}

/* ---- shell ---------------------------------------------------------- */

/* Runs a script; a denied command inside is part of the result. */
int msb_exec(msb_sandbox *sb, const char *script, size_t len,
             const msb_exec_opts *opts, msb_result *res) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_EXECUTE, NULL, NULL, 0);
  if (!rc) {
    rc = api_exec_run(sb, script, len, opts, res);
    if (!rc) {
      x.has = EVENTS_HAS_EXIT | EVENTS_HAS_OUT | EVENTS_HAS_ERR;
      x.exit_code = res->exit_code;
      x.out = res->out_total;
      x.err = res->err_total;
      x.limit = res->limit;
    }
  } else if (res) {
    memset(res, 0, sizeof *res);
  }
  return api_op_end(sb, &o, rc, &x);
}

/* ---- checkpoints, snapshots, forks ---------------------------------- */

/* Takes a checkpoint. */
int msb_checkpoint(msb_sandbox *sb, uint32_t *id) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_CHECKPOINT, NULL, NULL, 1);
  if (!rc) rc = api_checkpoint_run(sb, id);
  return api_op_end(sb, &o, rc, NULL);
}

/* Returns to a checkpoint; the policy is host state and stays. */
int msb_rollback(msb_sandbox *sb, uint32_t id) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_ROLLBACK, NULL, NULL, 1);
  if (!rc) rc = api_rollback_run(sb, id);
  return api_op_end(sb, &o, rc, NULL);
}

/* Releases a checkpoint. */
int msb_release(msb_sandbox *sb, uint32_t id) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_RELEASE, NULL, NULL, 1);
  if (!rc) rc = api_release_run(sb, id);
  return api_op_end(sb, &o, rc, NULL);
}

/* Serialises the state; emits "snapshot.created". */
int msb_snapshot(msb_sandbox *sb, int level, uint8_t **data, size_t *len) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_CREATE_SNAPSHOT, NULL, NULL, 1);
  if (!rc) {
    rc = api_snapshot_run(sb, level, data, len);
  } else {
    if (data) *data = NULL;
    if (len) *len = 0;
  }
  if (!rc) {
    events_ev ev;
    api_ev_init(&ev, "snapshot.created", &o);
    ev.has = EVENTS_HAS_REV | EVENTS_HAS_WRITTEN;
    ev.revision = vfs_revision(sb->fs);
    ev.written = *len;
    events_emit(&sb->ev, &ev);
    x.has = EVENTS_HAS_WRITTEN;
    x.written = *len;
  }
  return api_op_end(sb, &o, rc, &x);
}

/* Replaces the state from an archive; emits "snapshot.restored". */
int msb_restore(msb_sandbox *sb, const uint8_t *data, size_t len) {
  api_op o;
  events_ev x;
  int rc;
  API_HOST_CHECK(sb);
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_RESTORE_SNAPSHOT, NULL, NULL, 1);
  if (!rc) rc = api_restore_run(sb, data, len);
  if (!rc) {
    events_ev ev;
    api_ev_init(&ev, "snapshot.restored", &o);
    ev.has = EVENTS_HAS_REV | EVENTS_HAS_READ;
    ev.revision = vfs_revision(sb->fs);
    ev.read = len;
    events_emit(&sb->ev, &ev);
    x.has = EVENTS_HAS_READ;
    x.read = len;
  }
  return api_op_end(sb, &o, rc, &x);
}

/* Creates an independent sandbox with the same state. */
int msb_fork(msb_sandbox *sb, msb_sandbox **out) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_FORK, NULL, NULL, 1);
  if (!rc)
    rc = api_fork_run(sb, out);
  else if (out)
    *out = NULL;
  return api_op_end(sb, &o, rc, NULL);
}

/* Applies a unified diff or V4A patch atomically. The files it touches
 * are checked by the path rules as it writes them. */
int msb_apply_patch(msb_sandbox *sb, const char *text, size_t len,
                    const char *cwd, unsigned flags, char **changes,
                    size_t *changes_len, size_t *count) {
  api_op o;
  int rc;
  API_HOST_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_APPLY_PATCH, NULL, NULL, 0);
  if (!rc)
    rc = api_apply_patch_run(sb, text, len, cwd, flags, changes, changes_len,
                             count);
  else if (changes)
    *changes = NULL;
  return api_op_end(sb, &o, rc, NULL);
}

/* ---- policy and events ---------------------------------------------- */

/* Replaces the policy atomically: the old one stays when the text is bad
 * or memory runs out. A policy that restricts nothing is stored as none,
 * so the unrestricted paths stay a pointer check. */
int msb_set_policy(msb_sandbox *sb, const char *text, size_t len) {
  policy *p = NULL;
  char why[256];
  int rc;
  API_HOST_CHECK(sb);
  if (!text && len) {
    snprintf(sb->errmsg, sizeof sb->errmsg, "text is NULL");
    return MSB_EINVAL;
  }
  rc = policy_parse(&sb->m, text ? text : "", len, &p, why, sizeof why);
  if (rc == MSB_ENOMEM) {
    snprintf(sb->errmsg, sizeof sb->errmsg,
             "out of memory: the sandbox memory limit (%llu bytes) was "
             "reached",
             (unsigned long long)sb->lim.max_memory_bytes);
    return rc;
  }
  if (rc) {
    snprintf(sb->errmsg, sizeof sb->errmsg, "invalid policy: %s", why);
    return rc;
  }
  if (!p->nallow && !p->ndeny && !p->nrules &&
      p->ops == (1u << POLICY_OP_COUNT) - 1) {
    policy_destroy(p);
    p = NULL;
  }
  policy_destroy(sb->pol);
  sb->pol = p;
  vfs_set_policy(sb->fs, p);
  sb->errmsg[0] = 0;
  return 0;
}

/* Drains pending events. */
int msb_events_take(msb_sandbox *sb, char **json, size_t *len) {
  int rc;
  API_HOST_CHECK(sb);
  if (!json || !len) {
    snprintf(sb->errmsg, sizeof sb->errmsg, "json and len are required");
    return MSB_EINVAL;
  }
  rc = events_take(&sb->ev, json, len);
  if (rc) {
    snprintf(sb->errmsg, sizeof sb->errmsg,
             "out of memory: the sandbox memory limit (%llu bytes) was "
             "reached",
             (unsigned long long)sb->lim.max_memory_bytes);
    return rc;
  }
  sb->errmsg[0] = 0;
  return 0;
}
