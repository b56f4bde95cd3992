/* basename.c - strip directory and suffix from file names (GNU coreutils).
 *
 * Usage: basename NAME [SUFFIX] | basename OPTION... NAME...
 *   -a, --multiple       support multiple arguments, each a NAME
 *   -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a
 *   -z, --zero           end each output line with NUL, not newline
 * A suffix equal to the whole name is kept, as GNU does. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char basename_usage[] MSB_COLD =
    "Usage: basename NAME [SUFFIX]\n"
    "  or:  basename OPTION... NAME...\n"
    "Print NAME with any leading directory components removed.\n"
    "If specified, also remove a trailing SUFFIX.\n"
    "\n"
    "  -a, --multiple       support multiple arguments and treat each as a "
    "NAME\n"
    "  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n"
    "  -z, --zero           end each output line with NUL, not newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt basename_opts[] = {{'a', "multiple", CMD_ARG_NONE, 'a'},
                                        {'s', "suffix", CMD_ARG_REQ, 's'},
                                        {'z', "zero", CMD_ARG_NONE, 'z'},
                                        {0, 0, 0, 0}};

static int basename_one(cmd_ctx *c, const char *name, const char *suf, int z) {
  const char *b = cmd_base_name(c, name);
  size_t n, sl;
  if (!b) return MSB_ENOMEM;
  n = strlen(b);
  sl = suf ? strlen(suf) : 0;
  if (sl && sl < n && !memcmp(b + n - sl, suf, sl)) n -= sl;
  if (cmd_write(c, b, n) < 0) return MSB_ELIMIT;
  return cmd_write(c, z ? "" : "\n", 1);
}

/* basename: print the last component of each NAME. */
int cmd_basename(cmd_ctx *c) {
  cmd_getopt g;
  int k, multi = 0, z = 0, i, rc;
  const char *suf = 0;
  cmd_opt_init(&g, c, basename_opts, basename_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'a') multi = 1;
    if (k == 's') {
      multi = 1;
      suf = g.arg;
    }
    if (k == 'z') z = 1;
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (!multi) {
    if (g.nops > 2)
      return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[2]));
    rc = basename_one(c, g.ops[0], g.nops == 2 ? g.ops[1] : 0, z);
    return rc < 0 ? rc : 0;
  }
  for (i = 0; i < g.nops; i++)
    if ((rc = basename_one(c, g.ops[i], suf, z)) < 0) return rc;
  return 0;
}
