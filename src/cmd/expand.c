/* expand.c - convert tabs to spaces (GNU coreutils expand).
 *
 * Tab stops are every N columns (-t N) or an explicit ascending list,
 * after whose last stop a tab becomes one space, as in GNU. Backspace moves
 * back a column. -i converts only tabs in a line's leading blanks.
 *
 * Usage: expand [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char expand_usage[] MSB_COLD =
    "Usage: expand [OPTION]... [FILE]...\n"
    "Convert tabs in each FILE to spaces, writing to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -i, --initial    do not convert tabs after non blanks\n"
    "  -t, --tabs=N     have tabs N characters apart, not 8\n"
    "  -t, --tabs=LIST  use comma separated list of tab positions.\n";

static const cmd_opt expand_opts[] = {{'i', "initial", CMD_ARG_NONE, 'i'},
                                      {'t', "tabs", CMD_ARG_REQ, 't'},
                                      {0, 0, 0, 0}};

/* Column of the next tab stop after col; past an explicit list's last
 * stop, a tab is one space. */
static uint64_t expand_next(const uint64_t *stops, int n, uint64_t col) {
  uint64_t nx = cmd_next_tab(stops, n, col);
  return nx ? nx : col + 1;
}

/* Entry point: see the usage above. */
int cmd_expand(cmd_ctx *c) {
  cmd_getopt g;
  int opt, initial = 0, n = 0;
  cmd_inputs in;
  const uint8_t *d;
  size_t len;
  uint64_t *stops;
  stops = arena_alloc(c->a, 1024 * sizeof *stops);
  if (!stops) return MSB_ENOMEM;
  cmd_opt_init(&g, c, expand_opts, expand_usage, CMD_OPTF_NUMERIC);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'i': initial = 1; break;
    case CMD_OPT_NUM:
    case 't':
      if (cmd_parse_tabs(c, g.arg, stops, &n)) return 1;
      break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  cmd_inputs_init(&in, c, &g);
  while (cmd_inputs_next(&in, &d, &len)) {
    size_t k;
    uint64_t col = 0;
    int lead = 1;
    for (k = 0; k < len; k++) {
      int ch = d[k];
      if (ch == '\t' && (lead || !initial)) {
        uint64_t nx = expand_next(stops, n, col);
        for (; col < nx; col++) buf_putc(c->out, ' ');
        continue;
      }
      if (ch == '\n') {
        col = 0;
        lead = 1;
      } else if (ch == '\b') {
        if (col) col--;
        lead = 0;
      } else {
        col++;
        if (ch != ' ' && ch != '\t') lead = 0;
      }
      buf_putc(c->out, ch);
    }
    if (c->out->err) return c->out->err;
  }
  return in.status;
}
