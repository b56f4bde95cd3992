/* tee.c - read from standard input and write to standard output and files
 * (GNU coreutils).
 *
 * Usage: tee [OPTION]... [FILE]...
 *   -a, --append  append to the given FILEs, do not overwrite
 *   -i, --ignore-interrupts  (no signals in the sandbox: accepted)
 *   -p  (accepted; writes never fail with EPIPE here)
 * Stdin is complete before tee runs (pipelines run stage by stage), so
 * each file gets one atomic write. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char tee_usage[] MSB_COLD =
    "Usage: tee [OPTION]... [FILE]...\n"
    "Copy standard input to each FILE, and also to standard output.\n"
    "\n"
    "  -a, --append              append to the given FILEs, do not "
    "overwrite\n"
    "  -i, --ignore-interrupts   ignore interrupt signals\n"
    "  -p                        diagnose errors writing to non pipes\n"
    "      --output-error[=MODE]   set behavior on write error.\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt tee_opts[] = {
    {'a', "append", CMD_ARG_NONE, 'a'},
    {'i', "ignore-interrupts", CMD_ARG_NONE, 'i'},
    {'p', 0, CMD_ARG_NONE, 'p'},
    {0, "output-error", CMD_ARG_OPT, 'p'},
    {0, 0, 0, 0}};

/* tee: copy stdin to stdout and to each FILE. */
int cmd_tee(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, append = 0, status = 0, rc;
  cmd_opt_init(&g, c, tee_opts, tee_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0)
    if (k == 'a') append = 1;
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  c->in_used = c->in_len;
  c->in_eof = 1;
  for (i = 0; i < g.nops; i++) {
    const char *abs;
    abs = cmd_path(c, g.ops[i]);
    if (!abs) return MSB_ENOMEM;
    if (!strcmp(abs, "/dev/null")) continue; /* the usual discard target */
    rc = vfs_write(c->fs, abs, c->in ? (const void *)c->in : "", c->in_len,
                   append ? VFS_APPEND | VFS_KEEP_MODE : VFS_KEEP_MODE,
                   CMD_NEWFILE(c), 0);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      status = 1;
    }
  }
  rc = cmd_write(c, c->in ? (const void *)c->in : "", c->in_len);
  if (rc < 0) return rc;
  if (c->in_err) { /* `tee f < dir`: f is made, then the read fails */
    c->in_failed = 1;
    cmd_err(c, "read error: %s", cmd_strerror(c->in_err));
    status = 1;
  }
  return status;
}
