/* true.c - do nothing, successfully or not (bash builtins true, false).
 *
 * Usage: true [ignored...] | false [ignored...]
 * Like bash's builtins, both ignore every argument, --help included. */
#include <string.h>

#include "cmd.h"

/* true: exit status 0. */
int cmd_true(cmd_ctx *c) {
  (void)c;
  return 0;
}

/* false: exit status 1. */
int cmd_false(cmd_ctx *c) {
  (void)c;
  return 1;
}
