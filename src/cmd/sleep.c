/* sleep.c - delay for a specified amount of time (GNU coreutils 9).
 *
 * Usage: sleep NUMBER[SUFFIX]...
 * SUFFIX is s (seconds, the default), m, h or d; NUMBER may be a decimal.
 * The sandbox never waits: sleep advances the sandbox clock by the sum of
 * its operands, so `date` and file times move as if time had passed.
 * "inf"/"infinity" would never return and is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char sleep_usage[] MSB_COLD =
    "Usage: sleep NUMBER[SUFFIX]...\n"
    "  or:  sleep OPTION\n"
    "Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the "
    "default),\n"
    "'m' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an\n"
    "integer.  Given two or more arguments, pause for the amount of time\n"
    "specified by the sum of their values.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt sleep_opts[] = {{0, 0, 0, 0}};

/* Parses one interval into seconds; 0 on success. */
static int sleep_parse(const char *s, double *out) {
  char *end;
  double v, mult = 1;
  if (!*s || strchr(" \t\n", *s)) return -1;
  v = strtod(s, &end);
  if (end == s || v < 0 || isnan(v)) return -1;
  if (*end) {
    if (end[1]) return -1;
    switch (*end) {
    case 's': break;
    case 'm': mult = 60; break;
    case 'h': mult = 3600; break;
    case 'd': mult = 86400; break;
    default: return -1;
    }
  }
  *out = v * mult;
  return 0;
}

/* sleep: advance the sandbox clock. */
int cmd_sleep(cmd_ctx *c) {
  cmd_getopt g;
  double total = 0, v;
  int k, i, bad = 0;
  cmd_opt_init(&g, c, sleep_opts, sleep_usage, CMD_OPTF_NOPERMUTE);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (!g.nops) return cmd_usage_err(&g, "missing operand");
  for (i = 0; i < g.nops; i++) {
    if (sleep_parse(g.ops[i], &v)) {
      cmd_err(c, "invalid time interval %s", cmd_quote(c, g.ops[i]));
      bad = 1;
      continue;
    }
    total += v;
  }
  if (bad) {
    buf_puts(c->err, "Try 'sleep --help' for more information.\n");
    return 1;
  }
  if (isinf(total) || total > 1e11) {
    cmd_err(c, "an unbounded sleep never returns; refused in memsandbox");
    return 1;
  }
  *c->clock_ns += (int64_t)(total * 1e9 + 0.5);
  return 0;
}
