/* unlink.c - call the unlink function to remove the specified file (GNU
 * coreutils 9): exactly one operand, never a directory.
 *
 * Usage: unlink FILE */
#include "../cold.h"
#include "cmd.h"

static const char unlink_usage[] MSB_COLD =
    "Usage: unlink FILE\n"
    "  or:  unlink OPTION\n"
    "Call the unlink function to remove the specified FILE.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt unlink_opts[] = {{0, 0, 0, 0}};

/* Entry point: see the usage above. */
int cmd_unlink(cmd_ctx *c) {
  cmd_getopt g;
  const char *abs;
  int k, rc;
  cmd_opt_init(&g, c, unlink_opts, unlink_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (g.nops > 1)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
  abs = cmd_path(c, g.ops[0]);
  if (!abs) return MSB_ENOMEM;
  rc = vfs_remove(c->fs, abs, VFS_RM_NODIR);
  if (rc == 0) return 0;
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  cmd_err(c, "cannot unlink %s: %s", cmd_quote(c, g.ops[0]), cmd_strerror(rc));
  return 1;
}
