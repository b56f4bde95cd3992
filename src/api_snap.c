/* api_snap.c - msb_snapshot and msb_restore: argument checks and errors
 * around snap.c.
 *
 * Kept apart from api.c so the two can change independently. A snapshot
 * carries the shell session as records (shstate.c); restore builds the new
 * session from them while the new tree is still revocable and swaps both
 * in together. An archive without session records (GNU tar, or no
 * MEMSANDBOX.format) gets a fresh session, as a new sandbox would. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sandbox.h"
#include "shstate.h"
#include "snap.h"

static int api_snap_fail(msb_sandbox *sb, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int api_snap_fail(msb_sandbox *sb, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sb->errmsg, sizeof sb->errmsg, fmt, ap);
  va_end(ap);
  return rc;
}

/* Serialises the state as a deterministic tar.gz (caller frees *data). */
int api_snapshot_run(msb_sandbox *sb, int level, uint8_t **data, size_t *len) {
  buf out, rec;
  char why[256];
  int rc;
  if (!sb) return MSB_EMISUSE;
  if (!data || !len)
    return api_snap_fail(sb, MSB_EINVAL, "data and len are required");
  *data = NULL;
  *len = 0;
  if (level < -1 || level > 9)
    return api_snap_fail(sb, MSB_EINVAL,
                         "invalid compression level %d (expected 0-9 or -1)",
                         level);
  buf_init(&out, &sb->m);
  buf_init(&rec, &sb->m);
  rc = shstate_save(sb->sh, &rec, why, sizeof why);
  if (rc) {
    buf_finish(&rec);
    if (rc == MSB_ENOTSUP)
      return api_snap_fail(sb, rc, "snapshot failed: %s", why);
    return api_snap_fail(sb, rc, "snapshot failed: %s", msb_strerror(rc));
  }
  rc = snap_export(sb->fs, shell_cwd(sb->sh), rec.p, rec.len, level, &out);
  buf_finish(&rec);
  if (rc) {
    buf_finish(&out);
    return api_snap_fail(sb, rc, "snapshot failed: %s", msb_strerror(rc));
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
int api_restore_run(msb_sandbox *sb, const uint8_t *data, size_t len) {
  arc_limits lim;
  vfs_limits vl;
  buf cwd;
  char why[512];
  int rc;
  if (!sb) return MSB_EMISUSE;
  if (!data && len) return api_snap_fail(sb, MSB_EINVAL, "data is required");
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
      return api_snap_fail(sb, rc, "archive rejected: %s", why);
    return api_snap_fail(sb, rc, "restore failed: %s", why);
  }
  sb->errmsg[0] = 0;
  return 0;
}

/* Forks through an in-memory snapshot (see sandbox.h). Only /tmp and
 * /workspace travel, as in a snapshot; /usr/bin is rebuilt by the child
 * on its first exec. */
int api_snap_fork(msb_sandbox *sb, msb_sandbox **out) {
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
  if (rc) return api_snap_fail(sb, rc, "fork failed: %s", msb_strerror(rc));
  buf_init(&rec, &sb->m);
  rc = shstate_save(sb->sh, &rec, why, sizeof why);
  if (rc) {
    buf_finish(&rec);
    msb_close(c);
    if (rc == MSB_ENOTSUP) return api_snap_fail(sb, rc, "fork failed: %s", why);
    return api_snap_fail(sb, rc, "fork failed: %s", msb_strerror(rc));
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
    return api_snap_fail(sb, rc, "fork failed: %s", why);
  }
  *out = c;
  sb->errmsg[0] = 0;
  return 0;
}
