/* stty - change and print terminal line settings (GNU coreutils 9).
 *
 * A sandbox's standard input is never a terminal, so every use fails as
 * GNU stty fails on a pipe or a file: "stty: 'standard input':
 * Inappropriate ioctl for device", status 1.
 *
 * Usage: stty [-F DEVICE | --file=DEVICE] [SETTING]...
 *        stty [-F DEVICE | --file=DEVICE] [-a|--all]
 *        stty [-F DEVICE | --file=DEVICE] [-g|--save] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char stty_usage[] MSB_COLD =
    "Usage: stty [-F DEVICE | --file=DEVICE] [SETTING]...\n"
    "  or:  stty [-F DEVICE | --file=DEVICE] [-a|--all]\n"
    "  or:  stty [-F DEVICE | --file=DEVICE] [-g|--save]\n"
    "Print or change terminal characteristics.\n";

/* Entry point: see the usage above. */
int cmd_stty(cmd_ctx *c) {
  int i;
  for (i = 1; i < c->argc; i++) {
    if (!strcmp(c->argv[i], "--help")) {
      buf_puts(c->out, cold_get(stty_usage));
      return 0;
    }
    if (!strcmp(c->argv[i], "--version")) {
      buf_printf(c->out, "stty (memsandbox) %s\n", MSB_VERSION);
      return 0;
    }
  }
  cmd_err(c, "'standard input': Inappropriate ioctl for device");
  return 1;
}
