/* rev.c - reverse lines characterwise (util-linux rev 2.38, C locale).
 *
 * Each line's bytes are reversed (the C locale has single-byte
 * characters); the newline stays at the end, and a last line without one
 * stays without one. Deviations: util-linux reads wide characters, so in
 * the C locale it stops at a NUL byte and fails on bytes >= 0x80; we
 * reverse every byte.
 *
 * Usage: rev [options] [file ...] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char rev_usage[] MSB_COLD =
    "\n"
    "Usage:\n"
    " rev [options] [file ...]\n"
    "\n"
    "Reverse lines characterwise.\n"
    "\n"
    "Options:\n"
    " -h, --help     display this help\n"
    " -V, --version  display version\n";

static const cmd_opt rev_opts[] = {
    {'h', 0, CMD_ARG_NONE, 'h'}, {'V', 0, CMD_ARG_NONE, 'V'}, {0, 0, 0, 0}};

/* Entry point: see the usage above. */
int cmd_rev(cmd_ctx *c) {
  cmd_getopt g;
  int opt, i, nops, status = 0, delim = '\n', rc;
  char *const *ops;
  cmd_opt_init(&g, c, rev_opts, rev_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'h': buf_puts(c->out, cold_get(rev_usage)); return 0;
    case 'V': buf_puts(c->out, "rev (memsandbox)\n"); return 0;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  ops = cmd_operands(&g, &nops);
  for (i = 0; i < nops; i++) {
    /* util-linux rev reads only named files; "-" is a file name. */
    if (g.nops && !strcmp(ops[i], "-")) {
      cmd_err(c, "cannot open -: %s", cmd_strerror(MSB_ENOENT));
      status = 1;
      continue;
    }
    const uint8_t *d, *rec;
    size_t len, rl, k;
    int term;
    cmd_lines it;
    rc = cmd_input(c, ops[i], &d, &len);
    if (rc == MSB_EISDIR || rc == CMD_EBADF) {
      /* util-linux opens it and fails on the first read (line 0). */
      cmd_err(c, "%s: 0: %s", strcmp(ops[i], "-") ? ops[i] : "stdin",
              cmd_strerror(rc));
      status = 1;
      continue;
    }
    if (rc < 0) {
      cmd_err(c, "cannot open %s: %s", ops[i], cmd_strerror(rc));
      status = 1;
      continue;
    }
    cmd_lines_init(&it, d, len, delim);
    while (cmd_lines_next(&it, &rec, &rl, &term)) {
      if (buf_reserve(c->out, rl + 1) < 0) return c->out->err;
      for (k = rl; k > 0; k--) c->out->p[c->out->len++] = (char)rec[k - 1];
      c->out->p[c->out->len] = 0;
      if (term) buf_putc(c->out, delim);
    }
  }
  return c->out->err ? c->out->err : status;
}
