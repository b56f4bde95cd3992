/* api_exec.c - the shell of the public API: msb_exec, msb_result_finish
 * and msb_parse_check.
 *
 * An exec holds the current tree (an O(1) reference) so a failed run
 * changes nothing, and with opts->atomic a copy of the session too, so a
 * failing script is rolled back whole. Secrets are checked here (for the
 * message) and bound by the shell for the run. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "coro.h"
#include "limits.h"
#include "sandbox.h"
#include "secret.h"

/* Opens a sandbox. */
/* The devices every sandbox has (vfs_mkdev), as Linux numbers them. */
static const struct {
  const char *path;
  uint32_t rdev;
} api_devs[] = {{"/dev/full", VFS_DEV_FULL},
                {"/dev/null", VFS_DEV_NULL},
                {"/dev/random", VFS_DEV_RANDOM},
                {"/dev/urandom", VFS_DEV_URANDOM},
                {"/dev/zero", VFS_DEV_ZERO}};
#define API_NDEVS (sizeof api_devs / sizeof api_devs[0])

/* Whether every device is there. */
static int api_have_devs(msb_sandbox *sb) {
  struct vfs_stat st;
  size_t i;
  for (i = 0; i < API_NDEVS; i++)
    if (vfs_stat(sb->fs, api_devs[i].path, 0, &st) || !(st.mode & VFS_CHR))
      return 0;
  return 1;
}

/* Makes the devices (/dev/null, /dev/zero ..., see api_devs) and lists every
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
  int have_null = api_have_devs(sb);
  int ro;
  /* /usr, /usr/bin, its files, bash and sh, /bin, /dev, the devices */
  vfs_set_builtin_nodes(sb->fs, n + 6 + API_NDEVS);
  if (have_bin && have_null) return 0;
  pol = vfs_set_policy(sb->fs, NULL); /* the listing is ours, not a script's */
  ro = vfs_set_system_ro(sb->fs, 0);
  saved = vfs_root_get(sb->fs); /* all or nothing */
  rc = 0;
  for (i = 0; i < API_NDEVS && !have_null && rc != MSB_ENOMEM; i++) {
    /* best effort: a script may have put a file at /dev or a device */
    const char *dev = api_devs[i].path;
    rc = vfs_mkdir(sb->fs, "/dev", 0755, VFS_MK_EXIST_OK);
    if (!rc) rc = vfs_remove(sb->fs, dev, 0);
    if (!rc || rc == MSB_ENOENT) rc = vfs_mkdev(sb->fs, dev, api_devs[i].rdev);
  }
  if (rc != MSB_ENOMEM) rc = 0;
  if (!rc && !have_bin) {
    rc = vfs_mkdir(sb->fs, "/usr/bin", 0755, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
    if (!rc) rc = vfs_symlink(sb->fs, "usr/bin", "/bin");
    if (rc == MSB_EEXIST) rc = 0;
  }
  buf_init(&path, &sb->m);
  for (i = 0; i < n + 2 && !rc && !have_bin; i++) {
    /* the shell itself runs in-process but is a file there too */
    const char *name = i < n ? t[i].name : i == n ? "bash" : "sh";
    buf_clear(&path);
    buf_puts(&path, "/usr/bin/");
    buf_puts(&path, name);
    rc = path.err ? path.err
                  : vfs_write(sb->fs, buf_str(&path), "", 0, 0, 0755, NULL);
    /* the file is that command, wherever it is copied or linked */
    if (!rc) rc = vfs_set_prog(sb->fs, buf_str(&path), cmd_prog_id(name));
  }
  buf_finish(&path);
  if (rc) vfs_root_set(sb->fs, saved);
  vnode_unref(sb->fs, saved);
  vfs_set_revision(sb->fs, rev);
  vfs_set_policy(sb->fs, pol);
  vfs_set_system_ro(sb->fs, ro);
  return rc;
}

static int api_exec_body(msb_sandbox *sb, const char *script, size_t len,
                         const msb_exec_opts *opts, msb_result *res);

/* Runs a script in the session (msb_exec's body): checks the arguments and
 * binds the secrets for the run. */
static int api_exec_run(msb_sandbox *sb, const char *script, size_t len,
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
  vfs_unit_begin(sb->fs); /* changes outside any command count once */
  rc = shell_exec_paced(sb->sh, script, len, opts, &sb->run->pace, res);
  vfs_unit_end(sb->fs);
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

/* The body of a run, on the sandbox's coroutine: msb_exec as it was
 * before runs could pause. */
static void api_run_main(void *arg) {
  msb_run *run = arg;
  msb_sandbox *sb = run->sb;
  const msb_exec_opts *opts = run->has_opts ? &run->opts : NULL;
  msb_result *res = &run->res;
  api_op o;
  events_ev x;
  int rc;
  api_x(&x);
  rc = api_op_begin(sb, &o, POLICY_OP_EXECUTE, NULL, NULL, 0);
  if (!rc) {
    rc = api_exec_run(sb, run->script, run->len, opts, res);
    if (!rc) {
      x.has = EVENTS_HAS_EXIT | EVENTS_HAS_OUT | EVENTS_HAS_ERR;
      x.exit_code = res->exit_code;
      x.out = res->out_total;
      x.err = res->err_total;
      x.limit = res->limit;
    }
  } else {
    memset(res, 0, sizeof *res);
  }
  run->rc = api_op_end(sb, &o, rc, &x);
}

/* Begins a run (see the header). */
int msb_exec_start(msb_sandbox *sb, const char *script, size_t len,
                   const msb_exec_opts *opts, msb_run **run) {
  msb_run *r;
  API_CHECK(sb);
  if (!run) return api_fail(sb, MSB_EINVAL, "run is required");
  *run = NULL;
  if (sb->run) return api_fail(sb, MSB_EMISUSE, "a run is in progress");
  if (!(r = mem_zalloc(&sb->m, sizeof *r))) return api_oom(sb);
  r->sb = sb;
  r->script = script;
  r->len = len;
  if (opts) {
    r->opts = *opts;
    r->has_opts = 1;
  }
  sb->run = r;
  *run = r;
  return 0;
}

/* A run's end: its result and return, and the run freed. */
static int api_run_end(msb_run *run, msb_result *res) {
  msb_sandbox *sb = run->sb;
  int rc = run->rc;
  int wipe = run->has_opts && run->opts.secret_count && run->pace.co;
  *res = run->res;
  sb->run = NULL;
  mem_free(&sb->m, run);
  if (wipe) coro_wipe(sb->co); /* its frames held the secret values */
  return rc;
}

/* A run's first step. One that goes to its end (or is cancelled already)
 * never pauses, so it runs on the caller's stack: the sandbox makes its
 * coroutine, whose stack is memory every fork copies, only for a host that
 * slices. Returns 0, or MSB_ENOMEM after ending the run. */
static int api_run_begin(msb_run *run, uint64_t steps, msb_result *res) {
  msb_sandbox *sb = run->sb;
  run->started = 1;
  if (!steps || run->pace.stop) {
    api_run_main(run);
    return 0;
  }
  if (!sb->co && !(sb->co = coro_create(0))) {
    memset(res, 0, sizeof *res);
    sb->run = NULL;
    mem_free(&sb->m, run);
    return api_fail(sb, MSB_ENOMEM, "no memory for the run's stack");
  }
  run->pace.co = sb->co;
  coro_start(sb->co, api_run_main, run);
  return 0;
}

/* Runs a run's next slice (see the header). */
int msb_exec_step(msb_run *run, uint64_t steps, msb_result *res) {
  msb_sandbox *sb;
  int rc;
  if (!run || !res) return MSB_EMISUSE;
  sb = run->sb;
  if (!run->pace.stop) run->pace.until = steps ? run->pace.steps + steps : 0;
  run->paused = 0;
  if (!run->started) {
    if ((rc = api_run_begin(run, steps, res))) return rc;
    if (!run->pace.co) return api_run_end(run, res);
  }
  if (!coro_resume(sb->co)) {
    run->paused = 1;
    return MSB_PAUSED;
  }
  return api_run_end(run, res);
}

/* Ends a run at its next resumption (see the header). */
void msb_exec_cancel(msb_run *run, int why) {
  if (!run) return;
  run->pace.stop = why == MSB_CANCEL_TIMEOUT ? LIMIT_DEADLINE : LIMIT_CANCELLED;
  run->pace.until = 1; /* a run not yet at its first pause stops there */
}

/* The output of a paused run so far (see the header). */
void msb_exec_output(const msb_run *run, int fd, const uint8_t **data,
                     size_t *len) {
  *data = NULL;
  *len = 0;
  if (run && run->paused) shell_pace_output(&run->pace, fd, data, len);
}

void api_run_abandon(msb_sandbox *sb) {
  msb_result res;
  if (!sb->run) return;
  msb_exec_cancel(sb->run, MSB_CANCEL_ABORT);
  if (msb_exec_step(sb->run, 0, &res) == MSB_OK) msb_result_finish(sb, &res);
}

/* Runs a script; a denied command inside is part of the result. */
int msb_exec(msb_sandbox *sb, const char *script, size_t len,
             const msb_exec_opts *opts, msb_result *res) {
  msb_run *run;
  int rc;
  API_CHECK(sb);
  if (!res) return api_fail(sb, MSB_EINVAL, "res is required");
  if ((rc = msb_exec_start(sb, script, len, opts, &run))) {
    if (res) memset(res, 0, sizeof *res);
    return rc;
  }
  return msb_exec_step(run, 0, res);
}
