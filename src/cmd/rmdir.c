/* rmdir.c - remove empty directories (GNU coreutils).
 *
 * Usage: rmdir [OPTION]... DIRECTORY...
 *   --ignore-fail-on-non-empty  ignore failures due only to non-empty dirs
 *   -p, --parents               remove DIRECTORY and its ancestors
 *   -v, --verbose               output a diagnostic for every directory */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char rmdir_usage[] MSB_COLD =
    "Usage: rmdir [OPTION]... DIRECTORY...\n"
    "Remove the DIRECTORY(ies), if they are empty.\n"
    "\n"
    "      --ignore-fail-on-non-empty\n"
    "                    ignore each failure that is solely because a "
    "directory\n"
    "                    is non-empty\n"
    "  -p, --parents     remove DIRECTORY and its ancestors; e.g., "
    "'rmdir -p a/b/c' is\n"
    "                    similar to 'rmdir a/b/c a/b a'\n"
    "  -v, --verbose     output a diagnostic for every directory processed\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

#define RMDIR_IGNORE 256
static const cmd_opt rmdir_opts[] = {
    {0, "ignore-fail-on-non-empty", CMD_ARG_NONE, RMDIR_IGNORE},
    {'p', "parents", CMD_ARG_NONE, 'p'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

/* Removes one empty directory named name (as written). */
static int rmdir_one(cmd_ctx *c, const char *name) {
  const char *abs, *base = cmd_base_name(c, name);
  struct vfs_stat st;
  int rc;
  if (!base) return MSB_ENOMEM;
  if (!strcmp(base, ".") || !strcmp(base, "..")) return MSB_EINVAL;
  abs = cmd_path(c, name);
  if (!abs) return MSB_ENOMEM;
  rc = vfs_stat(c->fs, abs, 0, &st);
  if (rc < 0) return rc;
  if (st.kind != VFS_DIR) return MSB_ENOTDIR;
  return vfs_remove(c->fs, abs, VFS_RM_DIR);
}

/* rmdir: remove each empty DIRECTORY (and ancestors with -p). */
int cmd_rmdir(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, parents = 0, verbose = 0, ignore = 0, status = 0, rc;
  cmd_opt_init(&g, c, rmdir_opts, rmdir_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'p') parents = 1;
    if (k == 'v') verbose = 1;
    if (k == RMDIR_IGNORE) ignore = 1;
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  for (i = 0; i < g.nops; i++) {
    char *name = arena_strdup(c->a, g.ops[i]);
    int first = 1;
    if (!name) return MSB_ENOMEM;
    for (;;) {
      size_t n;
      if (verbose && cmd_outf(c, "%s: removing directory, %s\n", cmd_name(c),
                              cmd_quote(c, name)) < 0)
        return MSB_ELIMIT;
      rc = rmdir_one(c, name);
      if (rc == MSB_ENOMEM) return rc;
      if (rc < 0) {
        if (!(ignore && rc == MSB_ENOTEMPTY)) {
          if (first)
            cmd_err(c, "failed to remove %s: %s", cmd_quote(c, name),
                    cmd_strerror(rc));
          else
            cmd_err(c, "failed to remove directory %s: %s", cmd_quote(c, name),
                    cmd_strerror(rc));
          status = 1;
        }
        break;
      }
      first = 0;
      if (!parents) break;
      /* Strip the last component and any slashes before it. */
      n = strlen(name);
      while (n > 0 && name[n - 1] == '/') n--;
      while (n > 0 && name[n - 1] != '/') n--;
      while (n > 0 && name[n - 1] == '/') n--;
      if (n == 0) break;
      name[n] = 0;
    }
  }
  return status;
}
