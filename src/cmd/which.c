/* which.c - locate a command (Debian's which).
 *
 * Usage: which [-a] COMMAND...
 * Every command of the sandbox lives in /usr/bin and /bin; -a prints both.
 * A name with a slash is printed when it is an executable file. Shell
 * builtins without a /usr/bin counterpart (cd, export...) are not found,
 * as with the real which. Exit status 1 if any name is not found. */
#include <string.h>

#include "cmd.h"

static const cmd_opt which_opts[] = {{'a', 0, CMD_ARG_NONE, 'a'}, {0, 0, 0, 0}};

/* which: print where each command would be found. */
int cmd_which(cmd_ctx *c) {
  cmd_getopt g;
  int k, all = 0, i, status = 0, rc;
  cmd_opt_init(&g, c, which_opts, "Usage: /usr/bin/which [-a] args\n",
               CMD_OPTF_NOHELP);
  g.status = 2;
  while ((k = cmd_opt_next(&g)) > 0) all = 1;
  if (k < 0) return k == CMD_OPT_ERR ? 2 : k;
  if (!g.nops) return 1;
  for (i = 0; i < g.nops; i++) {
    const char *name = g.ops[i];
    if (strchr(name, '/')) {
      struct vfs_stat st;
      const char *p = cmd_path(c, name);
      if (p && !vfs_stat(c->fs, p, 1, &st) && st.kind == VFS_FILE &&
          (st.mode & 0111)) {
        if ((rc = cmd_outf(c, "%s\n", name)) < 0) return rc;
        continue;
      }
    } else if (*name && (cmd_find(name) || !strcmp(name, "bash") ||
                         !strcmp(name, "sh"))) {
      /* bash and sh are the interpreter itself, found like the others. */
      if ((rc = cmd_outf(c, "/usr/bin/%s\n", name)) < 0) return rc;
      if (all && (rc = cmd_outf(c, "/bin/%s\n", name)) < 0) return rc;
      continue;
    }
    status = 1;
  }
  return status;
}
