/* api.c - the API layer's common parts: the sandbox's lifecycle, the one
 * admission-and-events wrapper every operation runs in, and the one way to
 * record an error (msb_errmsg).
 *
 * The operations themselves live by area: api_fs.c (files), api_exec.c
 * (the shell), api_snap.c (checkpoints, snapshots, forks), api_tools.c
 * (patches, session), api_host.c (policy, events). Each public msb_*
 * operation is api_op_begin, its body, api_op_end:
 *
 * "operation.started" (with its normalised paths), the admission check (a
 * denied operation emits "policy.denied" and fails with MSB_EPOLICY before
 * anything runs), the body, then any "policy.denied" for paths or commands
 * the body was refused, "limit.exceeded" and snapshot events, and exactly
 * one terminal event, "operation.completed" or "operation.failed".
 * Whole-state operations (snapshots, checkpoints, root hash) are governed
 * by operation rules only, so path rules are suspended while they run.
 *
 * The layer is thin on purpose: the filesystem (vfs.c) already makes each
 * operation atomic, and the shell (interp.c) runs scripts. What the bodies
 * add is what a host needs: NULL and flag validation, relative paths taken
 * against /workspace, one-line messages in the reference product's
 * wording, the mapping from API flags to filesystem flags, and composite
 * operations made atomic by holding the old root (an O(1) reference) and
 * putting it back on failure.
 *
 * Paths: an absolute path goes to the filesystem unchanged, so "." and ".."
 * resolve physically like Linux; messages show the lexically normalised
 * form ("/workspace/a.txt does not exist"). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cas.h"
#include "cmd/cmd.h"
#include "coro.h"
#include "limits.h"
#include "memsandbox.h"
#include "sandbox.h"
#include "secret.h"

/* ---- errors --------------------------------------------------------- */

/* Records a message for msb_errmsg, redacting bound secrets. */
int api_fail(msb_sandbox *sb, int rc, const char *fmt, ...) {
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

/* Clears the message: the call succeeded. */
int api_ok(msb_sandbox *sb) {
  sb->errmsg[0] = 0;
  return 0;
}

/* Out of memory, naming the limit. */
int api_oom(msb_sandbox *sb) {
  return api_fail(sb, MSB_ENOMEM,
                  "out of memory: the sandbox memory limit (%llu bytes) "
                  "was reached",
                  (unsigned long long)sb->lim.max_memory_bytes);
}

/* A uint64_t for %llu. */
unsigned long long api_ull(uint64_t x) { return (unsigned long long)x; }

/* The parent directory of a normalised absolute path, in place in b
 * (which holds a copy). */
static void api_dirname(buf *b) {
  size_t k = b->len;
  while (k > 0 && b->p[k - 1] != '/') k--;
  buf_truncate(b, k > 1 ? k - 1 : 1);
}

/* Message for a filesystem error on disp (a normalised absolute path).
 * creating: the operation creates disp, so a missing parent is named. */
int api_vfs_err(msb_sandbox *sb, int rc, const char *disp, int creating) {
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
const char *api_quota_name(msb_sandbox *sb, int rc) {
  limit_id id = limit_of_code(rc);
  if (!id) return "";
  snprintf(sb->errname, sizeof sb->errname, " (%s=%llu)", limit_name(id),
           api_ull(limit_value(&sb->lim, id)));
  return sb->errname;
}

/* Quota messages; add_* is the growth the operation asked for. */
int api_quota_err(msb_sandbox *sb, int rc, uint64_t file_size,
                  uint64_t add_bytes, uint64_t add_nodes, const char *disp,
                  int creating) {
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
                    api_ull(vfs_counted_nodes(sb->fs) + add_nodes),
                    api_ull(sb->lim.max_nodes));
  }
  return api_vfs_err(sb, rc, disp, creating);
}

/* ---- paths ---------------------------------------------------------- */

/* Frees a path argument. */
void api_path_finish(api_path *p) {
  buf_finish(&p->abs);
  buf_finish(&p->disp);
}

/* Checks and resolves a path argument. */
int api_path_init(msb_sandbox *sb, api_path *p, const char *path) {
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

/* ---- operations: admission and events ------------------------------ */

/* An event of kind with o's fields (o may be NULL). */
void api_ev_init(events_ev *ev, const char *kind, const api_op *o) {
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
int api_op_begin(msb_sandbox *sb, api_op *o, int op, const char *p1,
                 const char *p2, int whole) {
  events_ev ev;
  const char *in[2];
  size_t i;
  if (!sb) return MSB_EMISUSE;
  memset(o, 0, sizeof *o);
  o->op = op;
  o->step = sb->admitted > 0;
  o->id = o->step ? sb->outer.id : ++sb->ev.next_op;
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
  if (!o->step) {
    api_ev_init(&ev, "operation.started", o);
    events_emit(&sb->ev, &ev);
  }
  if (sb->run && sb->run->paused) /* its state is mid-change */
    return api_fail(sb, MSB_EMISUSE,
                    "a run is in progress: step it to its end first");
  if (sb->pol) {
    o->dpaths = sb->pol->denied_paths;
    o->dcmds = sb->pol->denied_cmds;
    if (!sb->admitted && !policy_op_allowed(sb->pol, op)) {
      api_ev_init(&ev, "policy.denied", o);
      ev.reason = "operation";
      events_emit(&sb->ev, &ev);
      return api_fail(sb, MSB_EPOLICY, "operation %s is denied by policy",
                      policy_op_name(op));
    }
    if (whole) o->suspended = vfs_set_policy(sb->fs, NULL);
  }
  return 0;
}

/* "policy.denied" for count refusals of kind reason during o, if any. */
static void api_denied(msb_sandbox *sb, const api_op *o, const char *reason,
                       uint64_t count) {
  events_ev ev;
  if (!count) return;
  api_ev_init(&ev, "policy.denied", o);
  ev.reason = reason;
  ev.has = EVENTS_HAS_COUNT;
  ev.count = count;
  events_emit(&sb->ev, &ev);
}

/* Ends an operation: denials seen, limits, the terminal event. x holds
 * the terminal event's extra fields (exit code, bytes, limit). */
int api_op_end(msb_sandbox *sb, api_op *o, int rc, const events_ev *x) {
  events_ev ev;
  size_t i;
  const char *limit = rc < 0 ? limit_name(limit_of_code(rc))
                      : x    ? x->limit
                             : NULL;
  if (!sb) return rc; /* api_op_begin refused the handle */
  if (o->suspended) vfs_set_policy(sb->fs, o->suspended);
  if (sb->pol) {
    api_denied(sb, o, "command", sb->pol->denied_cmds - o->dcmds);
    api_denied(sb, o, "path", sb->pol->denied_paths - o->dpaths);
  }
  if (limit) {
    api_ev_init(&ev, "limit.exceeded", o);
    ev.limit = limit;
    events_emit(&sb->ev, &ev);
  }
  if (o->step) {
    /* the host decides whether a step's failure is the operation's */
    if (rc >= 0 && x) {
      sb->outer_x = *x;
      sb->outer_x.limit = NULL; /* reported once, just above */
    }
    for (i = 0; i < 2; i++) buf_finish(&o->path[i]);
    return rc;
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

/* An empty set of terminal event fields. */
void api_x(events_ev *x) { memset(x, 0, sizeof *x); }

/* ---- lifecycle ------------------------------------------------------ */

/* Opens a sandbox. */
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
    vfs_set_system_ro(sb->fs, 1);
    vfs_set_prog_names(sb->fs, cmd_prog_name, cmd_prog_id);
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
  api_run_abandon(sb);
  coro_destroy(sb->co);
  for (i = 0; i < sb->ncps; i++) {
    vnode_unref(sb->fs, sb->cps[i].root);
    shell_destroy(sb->cps[i].sh);
  }
  mem_free(&sb->m, sb->cps);
  cas_cache_destroy(sb->fs, &sb->m, sb->cas);
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

/* The workspace revision. */
uint64_t msb_revision(const msb_sandbox *sb) {
  return sb ? vfs_revision(sb->fs) : 0;
}
