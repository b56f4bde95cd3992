/* api_snap.c - msb_snapshot and msb_restore: argument checks and errors
 * around snap.c.
 *
 * Kept apart from api.c (owned by the filesystem engineer) so the two can
 * change independently. The shell session has no state save/load yet, so a
 * snapshot carries the working directory only, and restore applies it by
 * running the `cd` builtin in the session. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sandbox.h"
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
  buf out;
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
  rc = snap_export(sb->fs, shell_cwd(sb->sh), level, &out);
  if (rc) {
    buf_finish(&out);
    return api_snap_fail(sb, rc, "snapshot failed: %s", msb_strerror(rc));
  }
  *data = (uint8_t *)buf_steal(&out, len);
  sb->errmsg[0] = 0;
  return 0;
}

/* Moves the shell to dir with the cd builtin (quoted for the shell). */
static void api_snap_cd(msb_sandbox *sb, const char *dir) {
  buf s;
  msb_result res;
  const char *p;
  buf_init(&s, &sb->m);
  buf_puts(&s, "builtin cd -- '");
  for (p = dir; *p; p++) {
    if (*p == '\'')
      buf_puts(&s, "'\\''");
    else
      buf_putc(&s, *p);
  }
  buf_puts(&s, "'");
  memset(&res, 0, sizeof res);
  if (!s.err && !shell_exec(sb->sh, s.p, s.len, NULL, &res)) {
    mem_free(&sb->m, res.out);
    mem_free(&sb->m, res.err);
    mem_free(&sb->m, res.cwd);
  }
  buf_finish(&s);
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
  rc = snap_import(sb->fs, data, len, &lim, &cwd, why, sizeof why);
  if (rc) {
    buf_finish(&cwd);
    if (rc == MSB_ECORRUPT)
      return api_snap_fail(sb, rc, "archive rejected: %s", why);
    return api_snap_fail(sb, rc, "restore failed: %s", why);
  }
  if (cwd.len) {
    uint64_t rev = vfs_revision(sb->fs);
    api_snap_cd(sb, buf_str(&cwd));
    vfs_set_revision(sb->fs, rev);
  }
  buf_finish(&cwd);
  sb->errmsg[0] = 0;
  return 0;
}
