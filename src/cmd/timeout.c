/* timeout.c - run a command with a time limit (GNU coreutils 9).
 *
 * Usage: timeout [OPTION] DURATION COMMAND [ARG]...
 *   --preserve-status, --foreground, -k DURATION, -s SIGNAL, -v
 * Nothing in the sandbox blocks (sleep advances the clock, reads never
 * wait), so a command either finishes or runs until the execution step
 * limit stops the whole script with a named limit. timeout therefore runs
 * COMMAND through the shell's lookup and returns its status; DURATION is
 * validated like GNU's, and an exceeded duration on the sandbox clock
 * (a command that slept past it) gives status 124 as GNU would.
 * A command that computes instead of sleeping is stopped by a step budget:
 * TIMEOUT_STEPS_PER_SEC execution steps per second of DURATION (about a
 * second of real work natively), after which it is interrupted with 124
 * and the script goes on; the whole run's max_steps still applies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

#define TIMEOUT_STEPS_PER_SEC 1000000.0

static const char timeout_usage[] MSB_COLD =
    "Usage: timeout [OPTION] DURATION COMMAND [ARG]...\n"
    "  or:  timeout [OPTION]\n"
    "Start COMMAND, and kill it if still running after DURATION.\n"
    "\n"
    "      --preserve-status  exit with the same status as COMMAND, even "
    "when the\n"
    "                         command times out\n"
    "      --foreground       accepted\n"
    "  -k, --kill-after=DURATION  accepted\n"
    "  -s, --signal=SIGNAL    accepted\n"
    "  -v, --verbose          diagnose to stderr any signal sent upon "
    "timeout\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { TIMEOUT_PRESERVE = 256, TIMEOUT_FOREGROUND };
static const cmd_opt timeout_opts[] = {
    {0, "preserve-status", CMD_ARG_NONE, TIMEOUT_PRESERVE},
    {0, "foreground", CMD_ARG_NONE, TIMEOUT_FOREGROUND},
    {'k', "kill-after", CMD_ARG_REQ, 'k'},
    {'s', "signal", CMD_ARG_REQ, 's'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

/* Parses DURATION (seconds with an optional s/m/h/d suffix). */
static int timeout_parse(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end), mult = 1;
  if (end == s || v < 0 || isnan(v)) return -1;
  if (*end) {
    if (end[1]) return -1;
    if (*end == 'm')
      mult = 60;
    else if (*end == 'h')
      mult = 3600;
    else if (*end == 'd')
      mult = 86400;
    else if (*end != 's')
      return -1;
  }
  *out = v * mult;
  return 0;
}

/* timeout: run a command; 124 if it outlived DURATION on the clock. */
int cmd_timeout(cmd_ctx *c) {
  cmd_getopt g;
  int k, preserve = 0, verbose = 0, rc;
  double secs, kill_secs;
  int64_t start = *c->clock_ns;
  cmd_opt_init(&g, c, timeout_opts, timeout_usage, CMD_OPTF_NOPERMUTE);
  g.status = 125;
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == TIMEOUT_PRESERVE) preserve = 1;
    if (k == 'v') verbose = 1;
    if (k == 'k' && timeout_parse(g.arg, &kill_secs)) {
      cmd_err(c, "invalid time interval %s", cmd_quote(c, g.arg));
      buf_puts(c->err, "Try 'timeout --help' for more information.\n");
      return 125;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 125 : k;
  if (g.nops < 2) {
    buf_puts(c->err, "Try 'timeout --help' for more information.\n");
    return 125;
  }
  if (timeout_parse(g.ops[0], &secs)) {
    cmd_err(c, "invalid time interval %s", cmd_quote(c, g.ops[0]));
    buf_puts(c->err, "Try 'timeout --help' for more information.\n");
    return 125;
  }
  if (!c->run || !cmd_is_program(g.ops[1])) {
    cmd_err(c, "failed to run command %s: No such file or directory",
            cmd_quote(c, g.ops[1]));
    return 127;
  }
  if (secs > 0) {
    double st = secs * TIMEOUT_STEPS_PER_SEC;
    c->run_steps = st >= 1e18 ? (uint64_t)1e18 : st < 1 ? 1 : (uint64_t)st;
  }
  rc = c->run(c, g.nops - 1, g.ops + 1, c->in, c->in_len, c->out, c->err);
  c->run_steps = 0;
  if (rc < 0) return rc;
  if (c->run_timedout ||
      (secs > 0 && (double)(*c->clock_ns - start) > secs * 1e9)) {
    *c->clock_ns = start + (int64_t)(secs * 1e9);
    if (verbose)
      cmd_err(c, "sending signal TERM to command %s", cmd_quote(c, g.ops[1]));
    return preserve ? 128 + 15 : 124;
  }
  return rc;
}
