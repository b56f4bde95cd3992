/* api_snap.c - the state operations of the public API: msb_checkpoint,
 * msb_rollback, msb_release (O(1) checkpoints inside the sandbox),
 * msb_snapshot and msb_restore (tar.gz archives through snap.c) and
 * msb_fork.
 *
 * A checkpoint is one reference to the filesystem's root and one to the
 * shell session (see shell_share). A snapshot
 * carries the shell session as records (shstate.c); restore builds the new
 * session from them while the new tree is still revocable and swaps both
 * in together. An archive without session records (GNU tar, or no
 * MEMSANDBOX.format) gets a fresh session, as a new sandbox would. */
#include <stdio.h>
#include <string.h>

#include "cas.h"
#include "sandbox.h"
#include "shstate.h"
#include "snap.h"

/* Serialises the state as a deterministic tar.gz (caller frees *data). */
static int api_snapshot_run(msb_sandbox *sb, int level, uint8_t **data,
                            size_t *len) {
  buf out, rec;
  char why[256];
  int rc;
  if (!sb) return MSB_EMISUSE;
  if (!data || !len)
    return api_fail(sb, MSB_EINVAL, "data and len are required");
  *data = NULL;
  *len = 0;
  if (level < -1 || level > 9)
    return api_fail(sb, MSB_EINVAL,
                    "invalid compression level %d (expected 0-9 or -1)", level);
  buf_init(&out, &sb->m);
  buf_init(&rec, &sb->m);
  rc = shstate_save(sb->sh, &rec, why, sizeof why);
  if (rc) {
    buf_finish(&rec);
    if (rc == MSB_ENOTSUP) return api_fail(sb, rc, "snapshot failed: %s", why);
    return api_fail(sb, rc, "snapshot failed: %s", msb_strerror(rc));
  }
  rc = snap_export(sb->fs, shell_cwd(sb->sh), rec.p, rec.len, level, &out);
  buf_finish(&rec);
  if (rc) {
    buf_finish(&out);
    return api_fail(sb, rc, "snapshot failed: %s", msb_strerror(rc));
  }
  *data = (uint8_t *)buf_steal(&out, len);
  sb->errmsg[0] = 0;
  return 0;
}

/* snap_state_fn: builds the new session before the tree is kept. */
static int api_snap_state(void *ctx, const char *recs, size_t len, char *why,
                          size_t whylen) {
  msb_sandbox *sb = ctx;
  shell *sh = NULL;
  int rc = shstate_load(&sb->m, sb->fs, &sb->lim, sb->seed, &sb->clock, recs,
                        len, &sh, why, whylen);
  if (rc) return rc;
  shell_destroy(sb->sh);
  sb->sh = sh;
  return 0;
}

/* Replaces the state with an archive; all or nothing. */
static int api_restore_run(msb_sandbox *sb, const uint8_t *data, size_t len) {
  arc_limits lim;
  vfs_limits vl;
  buf cwd;
  char why[512];
  int rc;
  if (!sb) return MSB_EMISUSE;
  if (!data && len) return api_fail(sb, MSB_EINVAL, "data is required");
  vl = *vfs_get_limits(sb->fs);
  snap_limits(&vl, &lim);
  buf_init(&cwd, &sb->m);
  /* the session is swapped by api_snap_state, the last step that can
   * fail, so a rejected archive leaves tree and session untouched */
  rc = snap_import_state(sb->fs, data, len, &lim, api_snap_state, sb, &cwd, why,
                         sizeof why);
  buf_finish(&cwd);
  if (rc) {
    if (rc == MSB_ECORRUPT)
      return api_fail(sb, rc, "archive rejected: %s", why);
    return api_fail(sb, rc, "restore failed: %s", why);
  }
  sb->errmsg[0] = 0;
  return 0;
}

/* Forks through an in-memory snapshot (see sandbox.h). Only /tmp and
 * /workspace travel, as in a snapshot; /usr/bin is rebuilt by the child
 * on its first exec. */
static int api_snap_fork(msb_sandbox *sb, msb_sandbox **out) {
  msb_config cfg;
  msb_sandbox *c = NULL;
  arc_limits lim;
  vfs_limits vl;
  buf rec, tar, cwd;
  char why[512];
  int rc;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &sb->lim;
  cfg.clock_ns = sb->clock;
  cfg.seed = sb->seed;
  rc = msb_open(&cfg, &c);
  if (rc) return api_fail(sb, rc, "fork failed: %s", msb_strerror(rc));
  buf_init(&rec, &sb->m);
  rc = shstate_save(sb->sh, &rec, why, sizeof why);
  if (rc) {
    buf_finish(&rec);
    msb_close(c);
    if (rc == MSB_ENOTSUP) return api_fail(sb, rc, "fork failed: %s", why);
    return api_fail(sb, rc, "fork failed: %s", msb_strerror(rc));
  }
  /* the tar lives in the child's allocator: it is the child's memory */
  buf_init(&tar, &c->m);
  rc = snap_export_tar(sb->fs, shell_cwd(sb->sh), rec.p, rec.len, &tar);
  buf_finish(&rec);
  if (!rc) {
    vl = *vfs_get_limits(c->fs);
    snap_limits(&vl, &lim);
    buf_init(&cwd, &c->m);
    rc = snap_import_state(c->fs, (const uint8_t *)tar.p, tar.len, &lim,
                           api_snap_state, c, &cwd, why, sizeof why);
    buf_finish(&cwd);
  } else {
    snprintf(why, sizeof why, "%s", msb_strerror(rc));
  }
  buf_finish(&tar);
  if (rc) {
    msb_close(c);
    return api_fail(sb, rc, "fork failed: %s", why);
  }
  *out = c;
  sb->errmsg[0] = 0;
  return 0;
}

/* Exports the content-addressed state records (see cas.h). */
static int api_state_export_run(msb_sandbox *sb, int cached, uint8_t **data,
                                size_t *len) {
  buf out, rec;
  char why[256];
  int rc;
  if (!data || !len)
    return api_fail(sb, MSB_EINVAL, "data and len are required");
  *data = NULL;
  *len = 0;
  buf_init(&out, &sb->m);
  buf_init(&rec, &sb->m);
  rc = shstate_save(sb->sh, &rec, why, sizeof why);
  if (!rc)
    rc = cas_export(sb->fs, shell_cwd(sb->sh), rec.p, rec.len, &sb->cas, cached,
                    &out);
  else if (rc != MSB_ENOTSUP)
    snprintf(why, sizeof why, "%s", msb_strerror(rc));
  buf_finish(&rec);
  if (rc) {
    buf_finish(&out);
    if (!why[0] || rc != MSB_ENOTSUP)
      snprintf(why, sizeof why, "%s", msb_strerror(rc));
    return api_fail(sb, rc, "state export failed: %s", why);
  }
  *data = (uint8_t *)buf_steal(&out, len);
  return api_ok(sb);
}

/* Replaces the state from import records through the snapshot tar they
 * describe, so restore's checks apply. */
static int api_state_import_run(msb_sandbox *sb, const uint8_t *data,
                                size_t len) {
  arc_limits lim;
  vfs_limits vl;
  buf tar;
  char why[512];
  int rc;
  if (!data && len) return api_fail(sb, MSB_EINVAL, "data is required");
  vl = *vfs_get_limits(sb->fs);
  snap_limits(&vl, &lim);
  buf_init(&tar, &sb->m);
  rc = cas_import_tar(&sb->m, data ? data : (const uint8_t *)"", len, &lim,
                      &tar, why, sizeof why);
  if (rc) {
    buf_finish(&tar);
    if (rc == MSB_ECORRUPT) return api_fail(sb, rc, "state rejected: %s", why);
    return api_fail(sb, rc, "state import failed: %s", msb_strerror(rc));
  }
  rc = api_restore_run(sb, (const uint8_t *)tar.p, tar.len);
  buf_finish(&tar);
  return rc;
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
static int api_checkpoint_run(msb_sandbox *sb, uint32_t *id) {
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
static int api_rollback_run(msb_sandbox *sb, uint32_t id) {
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
static int api_release_run(msb_sandbox *sb, uint32_t id) {
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
static int api_fork_run(msb_sandbox *sb, msb_sandbox **out) {
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

/* ---- entry points ---------------------------------------------------- */

/* Takes a checkpoint. */
int msb_checkpoint(msb_sandbox *sb, uint32_t *id) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_CHECKPOINT, NULL, NULL, 1);
  return api_op_end(sb, &o, rc ? rc : api_checkpoint_run(sb, id), NULL);
}

/* Returns to a checkpoint; the policy is host state and stays. */
int msb_rollback(msb_sandbox *sb, uint32_t id) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_ROLLBACK, NULL, NULL, 1);
  return api_op_end(sb, &o, rc ? rc : api_rollback_run(sb, id), NULL);
}

/* Releases a checkpoint. */
int msb_release(msb_sandbox *sb, uint32_t id) {
  api_op o;
  int rc = api_op_begin(sb, &o, POLICY_OP_RELEASE, NULL, NULL, 1);
  return api_op_end(sb, &o, rc ? rc : api_release_run(sb, id), NULL);
}

/* Serialises the state; emits "snapshot.created". */
int msb_snapshot(msb_sandbox *sb, int level, uint8_t **data, size_t *len) {
  api_op o;
  events_ev x;
  int rc;
  API_CHECK(sb);
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
  API_CHECK(sb);
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
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_FORK, NULL, NULL, 1);
  if (!rc)
    rc = api_fork_run(sb, out);
  else if (out)
    *out = NULL;
  return api_op_end(sb, &o, rc, NULL);
}

/* Exports the content-addressed state (a create_snapshot operation). */
int msb_state_export(msb_sandbox *sb, unsigned flags, uint8_t **data,
                     size_t *len) {
  api_op o;
  int rc;
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_CREATE_SNAPSHOT, NULL, NULL, 1);
  if (!rc)
    rc = api_state_export_run(sb, (flags & MSB_STATE_SINCE_LAST) != 0, data,
                              len);
  return api_op_end(sb, &o, rc, NULL);
}

/* Imports content-addressed state (a restore_snapshot operation). */
int msb_state_import(msb_sandbox *sb, const uint8_t *data, size_t len) {
  api_op o;
  int rc;
  API_CHECK(sb);
  rc = api_op_begin(sb, &o, POLICY_OP_RESTORE_SNAPSHOT, NULL, NULL, 1);
  if (!rc) rc = api_state_import_run(sb, data, len);
  return api_op_end(sb, &o, rc, NULL);
}
