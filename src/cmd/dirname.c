/* dirname.c - strip the last component from file names (GNU coreutils).
 *
 * Usage: dirname [OPTION] NAME...
 *   -z, --zero  end each output line with NUL, not newline */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char dirname_usage[] MSB_COLD =
    "Usage: dirname [OPTION] NAME...\n"
    "Output each NAME with its last non-slash component and trailing "
    "slashes\n"
    "removed; if NAME contains no /'s, output '.' (meaning the current "
    "directory).\n"
    "\n"
    "  -z, --zero     end each output line with NUL, not newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt dirname_opts[] = {{'z', "zero", CMD_ARG_NONE, 'z'},
                                       {0, 0, 0, 0}};

/* dirname: print each NAME without its last component. */
int cmd_dirname(cmd_ctx *c) {
  cmd_getopt g;
  int k, z = 0, i;
  cmd_opt_init(&g, c, dirname_opts, dirname_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0)
    if (k == 'z') z = 1;
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  for (i = 0; i < g.nops; i++) {
    const char *d = cmd_dir_name(c, g.ops[i]);
    if (!d) return MSB_ENOMEM;
    if (cmd_puts(c, d) < 0 || cmd_write(c, z ? "" : "\n", 1) < 0)
      return MSB_ELIMIT;
  }
  return 0;
}
