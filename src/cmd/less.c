/* less.c - less and more as non-interactive pagers (less 590, util-linux
 * more 2.38), which is what both do when their output is not a terminal,
 * as a sandbox's never is.
 *
 * less copies its files (or stdin) to stdout unchanged; a file it cannot
 * open is reported on stdout ("NAME: No such file or directory", "NAME is
 * a directory") and the status stays 0. more puts a header before each
 * named file ("::::::::::::::" / NAME / "::::::::::::::"), reports a
 * missing file on stderr ("more: cannot open NAME: ...") and a directory
 * as "*** NAME: directory ***"; stdin gets no header. Options that only
 * shape the interactive display are accepted and ignored.
 *
 * Usage: less [OPTION]... [FILE]...
 *        more [OPTION]... [FILE]... */
#include <string.h>

#include "cmd.h"

/* One operand: 0, or a negative code (output limit, memory). */
static int less_one(cmd_ctx *c, const char *op, int more) {
  const uint8_t *d;
  size_t n;
  int rc = cmd_input(c, op, &d, &n);
  if (rc == MSB_EISDIR) {
    if (more) return buf_printf(c->out, "\n*** %s: directory ***\n\n", op);
    return buf_printf(c->out, "%s is a directory\n", op);
  }
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    if (more)
      buf_printf(c->err, "more: cannot open %s: %s\n", op, cmd_strerror(rc));
    else
      buf_printf(c->out, "%s: %s\n", op, cmd_strerror(rc));
    return 0;
  }
  if (more && strcmp(op, "-"))
    buf_printf(c->out, "::::::::::::::\n%s\n::::::::::::::\n", op);
  return cmd_write(c, d, n);
}

/* Entry point for less and more: see the usage above. */
int cmd_less(cmd_ctx *c) {
  int more = !strcmp(cmd_name(c), "more"), i, rc = 0, n = 0;
  for (i = 1; i < c->argc && rc >= 0; i++) {
    const char *a = c->argv[i];
    /* every option only shapes the screen: skip it (and +COMMAND) */
    if (!strcmp(a, "--help"))
      return buf_printf(c->out, "Usage: %s [OPTION]... [FILE]...\n%s",
                        more ? "more" : "less",
                        "Print FILEs (not on a terminal: no paging).\n") < 0
                 ? MSB_ENOMEM
                 : 0;
    if ((a[0] == '-' || a[0] == '+') && a[1]) continue;
    n++;
    rc = less_one(c, a, more);
  }
  if (!n && rc >= 0) rc = less_one(c, "-", more);
  return rc < 0 ? rc : 0;
}
