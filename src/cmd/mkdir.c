/* mkdir.c - make directories (GNU coreutils).
 *
 * Usage: mkdir [OPTION]... DIRECTORY...
 *   -m, --mode=MODE  set file mode (as in chmod), not a=rwx - umask
 *   -p, --parents    no error if existing, make parent directories
 *   -v, --verbose    print a message for each created directory
 * With -p the operand is walked prefix by prefix, so diagnostics and -v
 * messages name the exact component, as GNU's do. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char mkdir_usage[] MSB_COLD =
    "Usage: mkdir [OPTION]... DIRECTORY...\n"
    "Create the DIRECTORY(ies), if they do not already exist.\n"
    "\n"
    "  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask\n"
    "  -p, --parents     no error if existing, make parent directories as "
    "needed,\n"
    "                    with their file modes unaffected by any -m option.\n"
    "  -v, --verbose     print a message for each created directory\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt mkdir_opts[] = {{'m', "mode", CMD_ARG_REQ, 'm'},
                                     {'p', "parents", CMD_ARG_NONE, 'p'},
                                     {'v', "verbose", CMD_ARG_NONE, 'v'},
                                     {0, 0, 0, 0}};

static int mkdir_fail(cmd_ctx *c, const char *name, int rc) {
  cmd_err(c, "cannot create directory %s: %s", cmd_quote(c, name),
          cmd_strerror(rc));
  return 1;
}

static int mkdir_made(cmd_ctx *c, int verbose, const char *name) {
  if (!verbose) return 0;
  return cmd_outf(c, "%s: created directory %s\n", cmd_name(c),
                  cmd_quote(c, name));
}

/* Creates the missing ancestors of op; returns 0, 1 (reported) or <0. */
static int mkdir_parents(cmd_ctx *c, const char *op, int verbose) {
  size_t n = strlen(op), i = 0;
  while (n > 1 && op[n - 1] == '/') n--;
  while (n > 0 && op[n - 1] != '/') n--; /* the last component is not ours */
  while (i < n) {
    char *pre;
    const char *abs;
    struct vfs_stat st;
    int rc;
    while (i < n && op[i] == '/') i++;
    while (i < n && op[i] != '/') i++;
    if (i == 0) break;
    pre = arena_strndup(c->a, op, i);
    abs = pre ? cmd_path(c, pre) : 0;
    if (!abs) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, abs, 1, &st);
    if (rc == 0 && st.kind == VFS_DIR) continue;
    if (rc == 0) return mkdir_fail(c, pre, MSB_ENOTDIR);
    rc = vfs_mkdir(c->fs, abs, 0777 & ~cmd_umask(c), 0);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) return mkdir_fail(c, pre, rc);
    if ((rc = mkdir_made(c, verbose, pre)) < 0) return rc;
  }
  return 0;
}

/* mkdir: create each DIRECTORY. */
int cmd_mkdir(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, parents = 0, verbose = 0, status = 0, rc;
  const char *mode_s = 0;
  uint32_t mode = 0777 & ~cmd_umask(c);
  cmd_opt_init(&g, c, mkdir_opts, mkdir_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'm') mode_s = g.arg;
    if (k == 'p') parents = 1;
    if (k == 'v') verbose = 1;
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (mode_s && cmd_parse_mode(mode_s, 0777, 1, cmd_umask(c), &mode) < 0) {
    cmd_err(c, "invalid mode %s", cmd_quote(c, mode_s));
    return 1;
  }
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  for (i = 0; i < g.nops; i++) {
    const char *op = g.ops[i], *abs = cmd_path(c, op);
    struct vfs_stat st;
    if (!abs) return MSB_ENOMEM;
    if (parents) {
      rc = mkdir_parents(c, op, verbose);
      if (rc < 0) return rc;
      if (rc) {
        status = 1;
        continue;
      }
      if (vfs_stat(c->fs, abs, 1, &st) == 0 && st.kind == VFS_DIR) continue;
    }
    rc = vfs_mkdir(c->fs, abs, mode, 0);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      status = mkdir_fail(c, op, rc);
      continue;
    }
    if (mode_s) vfs_chmod(c->fs, abs, mode);
    if ((rc = mkdir_made(c, verbose, op)) < 0) return rc;
  }
  return status;
}
