/* readlink.c - print resolved symbolic links or canonical file names (GNU).
 *
 * Usage: readlink [OPTION]... FILE...
 *   -f, --canonicalize           all but the last component must exist
 *   -e, --canonicalize-existing  all components must exist
 *   -m, --canonicalize-missing   no component need exist
 *   -n, --no-newline  -q, --quiet  -s, --silent  -v, --verbose
 *   -z, --zero        end each output line with NUL */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char readlink_usage[] MSB_COLD =
    "Usage: readlink [OPTION]... FILE...\n"
    "Print value of a symbolic link or canonical file name\n"
    "\n"
    "  -f, --canonicalize            canonicalize by following every "
    "symlink in\n"
    "                                every component of the given name "
    "recursively;\n"
    "                                all but the last component must exist\n"
    "  -e, --canonicalize-existing   canonicalize by following every "
    "symlink in\n"
    "                                every component of the given name "
    "recursively,\n"
    "                                all components must exist\n"
    "  -m, --canonicalize-missing    canonicalize by following every "
    "symlink in\n"
    "                                every component of the given name "
    "recursively,\n"
    "                                without requirements on components "
    "existence\n"
    "  -n, --no-newline              do not output the trailing delimiter\n"
    "  -q, --quiet\n"
    "  -s, --silent                  suppress most error messages (on by "
    "default)\n"
    "  -v, --verbose                 report error messages\n"
    "  -z, --zero                    end each output line with NUL, not "
    "newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt readlink_opts[] = {
    {'f', "canonicalize", CMD_ARG_NONE, 'f'},
    {'e', "canonicalize-existing", CMD_ARG_NONE, 'e'},
    {'m', "canonicalize-missing", CMD_ARG_NONE, 'm'},
    {'n', "no-newline", CMD_ARG_NONE, 'n'},
    {'q', "quiet", CMD_ARG_NONE, 'q'},
    {'s', "silent", CMD_ARG_NONE, 'q'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {'z', "zero", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

/* readlink: print link targets or canonical names. */
int cmd_readlink(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, mode = -1, nonl = 0, verbose = 0, zero = 0, status = 0;
  cmd_opt_init(&g, c, readlink_opts, readlink_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'f': mode = 1; break;
    case 'e': mode = 0; break;
    case 'm': mode = 2; break;
    case 'n': nonl = 1; break;
    case 'q': verbose = 0; break;
    case 'v': verbose = 1; break;
    case 'z': zero = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  if (nonl && g.nops > 1) {
    cmd_err(c, "ignoring --no-newline with multiple arguments");
    nonl = 0;
  }
  for (i = 0; i < g.nops; i++) {
    const char *abs = cmd_path(c, g.ops[i]);
    buf b;
    int rc;
    if (!abs) return MSB_ENOMEM;
    buf_init(&b, c->m);
    if (mode >= 0 && mode < 2 && cmd_slash_check(c, g.ops[i], abs)) {
      buf_finish(&b);
      if (verbose)
        cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]),
                cmd_strerror(MSB_ENOTDIR));
      status = 1;
      continue;
    }
    if (mode >= 0)
      rc = vfs_realpath(c->fs, abs, mode, &b);
    else
      rc = vfs_readlink(c->fs, abs, &b);
    if (rc == 0 && b.err) rc = b.err;
    if (rc < 0) {
      buf_finish(&b);
      if (rc == MSB_ENOMEM) return rc;
      if (verbose)
        cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      status = 1;
      continue;
    }
    rc = cmd_write(c, buf_str(&b), b.len);
    buf_finish(&b);
    if (rc == 0 && !nonl) rc = cmd_write(c, zero ? "" : "\n", 1);
    if (rc < 0) return rc;
  }
  return status;
}
