/* link.c - call the link function to create a link named FILE2 to an
 * existing FILE1 (GNU coreutils 9): exactly two operands.
 *
 * Usage: link FILE1 FILE2 */
#include "../cold.h"
#include "cmd.h"

static const char link_usage[] MSB_COLD =
    "Usage: link FILE1 FILE2\n"
    "  or:  link OPTION\n"
    "Call the link function to create a link named FILE2 to an existing "
    "FILE1.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt link_opts[] = {{0, 0, 0, 0}};

/* Why link(2) would refuse: 0 when it would succeed. */
static int link_check(cmd_ctx *c, const char *from, const char *to) {
  struct vfs_stat st;
  int rc = vfs_stat(c->fs, from, 0, &st);
  if (rc) return rc;
  if (st.kind == VFS_DIR) return MSB_EPERM;
  rc = vfs_stat(c->fs, to, 0, &st);
  if (rc == 0) return MSB_EEXIST;
  return rc == MSB_ENOENT ? 0 : rc;
}

/* Entry point: see the usage above. */
int cmd_link(cmd_ctx *c) {
  cmd_getopt g;
  const char *from, *to;
  int k, rc;
  cmd_opt_init(&g, c, link_opts, link_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (g.nops < 2)
    return cmd_usage_err(&g, "missing operand after %s",
                         cmd_quote(c, g.ops[0]));
  if (g.nops > 2)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[2]));
  from = cmd_path(c, g.ops[0]);
  to = cmd_path(c, g.ops[1]);
  if (!from || !to) return MSB_ENOMEM;
  rc = link_check(c, from, to);
  if (rc == 0) rc = vfs_link(c->fs, from, to);
  if (rc == 0) return 0;
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  cmd_err(c, "cannot create link %s to %s: %s", cmd_quote(c, g.ops[1]),
          cmd_quote(c, g.ops[0]), cmd_strerror(rc));
  return 1;
}
