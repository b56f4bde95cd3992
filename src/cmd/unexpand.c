/* unexpand.c - convert spaces to tabs (GNU coreutils unexpand).
 *
 * A run of blanks that reaches a tab stop becomes a tab when it spans two
 * or more columns, holds a tab or continues past the stop; a lone space
 * just before a stop stays a space, as in GNU. By default only leading
 * blanks convert; -a (implied by -t) converts every run, --first-only
 * restores the default. After the last stop of an explicit list nothing
 * converts.
 *
 * Usage: unexpand [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char unexpand_usage[] MSB_COLD =
    "Usage: unexpand [OPTION]... [FILE]...\n"
    "Convert blanks in each FILE to tabs, writing to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -a, --all        convert all blanks, instead of just initial "
    "blanks\n"
    "      --first-only  convert only leading sequences of blanks "
    "(overrides -a)\n"
    "  -t, --tabs=N     have tabs N characters apart instead of 8 "
    "(enables -a)\n"
    "  -t, --tabs=LIST  use comma separated list of tab positions.\n";

enum { UNEXPAND_O_FIRST = 256 };

static const cmd_opt unexpand_opts[] = {
    {'a', "all", CMD_ARG_NONE, 'a'},
    {0, "first-only", CMD_ARG_NONE, UNEXPAND_O_FIRST},
    {'t', "tabs", CMD_ARG_REQ, 't'},
    {0, 0, 0, 0}};

/* Entry point: see the usage above. */
int cmd_unexpand(cmd_ctx *c) {
  cmd_getopt g;
  int opt, all = 0, first = 0, n = 0;
  cmd_inputs in;
  const uint8_t *d;
  size_t len;
  uint64_t *stops;
  stops = arena_alloc(c->a, 1024 * sizeof *stops);
  if (!stops) return MSB_ENOMEM;
  cmd_opt_init(&g, c, unexpand_opts, unexpand_usage, CMD_OPTF_NUMERIC);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'a': all = 1; break;
    case UNEXPAND_O_FIRST: first = 1; break;
    case CMD_OPT_NUM:
    case 't':
      all = 1;
      if (cmd_parse_tabs(c, g.arg, stops, &n)) return 1;
      break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (first) all = 0;
  cmd_inputs_init(&in, c, &g);
  while (cmd_inputs_next(&in, &d, &len)) {
    size_t k;
    uint64_t col = 0, pend = 0;
    int convert = 1;
    for (k = 0; k < len; k++) {
      int ch = d[k];
      if (convert && (ch == ' ' || ch == '\t')) {
        uint64_t nx = cmd_next_tab(stops, n, col);
        if (nx == 0) {
          /* Past the last stop: blanks stay as they are. */
          for (; pend; pend--) buf_putc(c->out, ' ');
          convert = all ? convert : 0;
          buf_putc(c->out, ch);
          col++;
          continue;
        }
        if (ch == '\t') {
          col = nx;
          pend = 0;
          buf_putc(c->out, '\t');
          continue;
        }
        col++;
        pend++;
        if (col == nx) {
          /* One space at a stop stays a space unless blanks follow. */
          int more = k + 1 < len && (d[k + 1] == ' ' || d[k + 1] == '\t');
          buf_putc(c->out, pend > 1 || more ? '\t' : ' ');
          pend = 0;
        }
        continue;
      }
      for (; pend; pend--) buf_putc(c->out, ' ');
      if (ch == '\n') {
        col = 0;
        convert = 1;
      } else if (ch == '\b') {
        if (col) col--;
      } else {
        col++;
        if (!all) convert = 0;
      }
      buf_putc(c->out, ch);
    }
    for (; pend; pend--) buf_putc(c->out, ' ');
    if (c->out->err) return c->out->err;
  }
  return in.status;
}
