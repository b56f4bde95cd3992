/* yes.c - output a string repeatedly until stopped (GNU coreutils).
 *
 * Usage: yes [STRING]...
 * Nothing here runs forever: output stops when it reaches the stream's
 * limit. In a pipeline that is the pipe's capacity, and the shell gives
 * yes status 141 as SIGPIPE gives the real one; anywhere else (`x=$(yes)`)
 * the limit stops the run, as no reader would ever have stopped yes. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char yes_usage[] MSB_COLD =
    "Usage: yes [STRING]...\n"
    "  or:  yes OPTION\n"
    "Repeatedly output a line with all specified STRING(s), or 'y'.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt yes_opts[] = {{0, 0, 0, 0}};

/* yes: repeat the operands (or "y") line after line. */
int cmd_yes(cmd_ctx *c) {
  cmd_getopt g;
  buf line;
  int k, i, rc = 0;
  cmd_opt_init(&g, c, yes_opts, yes_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  buf_init(&line, c->m);
  if (!g.nops) buf_puts(&line, "y");
  for (i = 0; i < g.nops; i++) {
    if (i) buf_putc(&line, ' ');
    buf_puts(&line, g.ops[i]);
  }
  buf_putc(&line, '\n');
  /* write in chunks of many lines so the work per tick is large */
  while (!line.err && line.len < 4096)
    if (!buf_reserve(&line, line.len)) buf_put(&line, line.p, line.len);
  if (line.err) rc = line.err;
  while (!rc) {
    rc = cmd_write(c, line.p, line.len);
    if (!rc) rc = cmd_tick_pause(c, 1);
  }
  buf_finish(&line);
  return rc;
}
