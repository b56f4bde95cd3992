/* cat.c - concatenate files and print on the standard output (GNU).
 *
 * Usage: cat [OPTION]... [FILE]...   ("-" or no FILE: standard input)
 *   -A (-vET)  -b number nonempty lines  -e (-vE)  -E show ends '$'
 *   -n number all lines  -s squeeze blank lines  -t (-vT)  -T show tabs
 *   -u (ignored)  -v show nonprinting (^X, M-x)
 * Without options each input is copied whole (zero-copy view). With them,
 * a small state machine runs over the concatenated stream, so numbering
 * and squeezing continue across files exactly like GNU cat. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char cat_usage[] MSB_COLD =
    "Usage: cat [OPTION]... [FILE]...\n"
    "Concatenate FILE(s) to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -A, --show-all           equivalent to -vET\n"
    "  -b, --number-nonblank    number nonempty output lines, overrides -n\n"
    "  -e                       equivalent to -vE\n"
    "  -E, --show-ends          display $ at end of each line\n"
    "  -n, --number             number all output lines\n"
    "  -s, --squeeze-blank      suppress repeated empty output lines\n"
    "  -t                       equivalent to -vT\n"
    "  -T, --show-tabs          display TAB characters as ^I\n"
    "  -u                       (ignored)\n"
    "  -v, --show-nonprinting   use ^ and M- notation, except for LFD and "
    "TAB\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt cat_opts[] = {{'A', "show-all", CMD_ARG_NONE, 'A'},
                                   {'b', "number-nonblank", CMD_ARG_NONE, 'b'},
                                   {'e', 0, CMD_ARG_NONE, 'e'},
                                   {'E', "show-ends", CMD_ARG_NONE, 'E'},
                                   {'n', "number", CMD_ARG_NONE, 'n'},
                                   {'s', "squeeze-blank", CMD_ARG_NONE, 's'},
                                   {'t', 0, CMD_ARG_NONE, 't'},
                                   {'T', "show-tabs", CMD_ARG_NONE, 'T'},
                                   {'u', 0, CMD_ARG_NONE, 'u'},
                                   {'v', "show-nonprinting", CMD_ARG_NONE, 'v'},
                                   {0, 0, 0, 0}};

typedef struct cat_state {
  int number, nonblank, ends, squeeze, tabs, nonprint;
  int at_bol, blanks;
  uint64_t line;
  uint64_t lines_seen;
} cat_state;

/* Appends one byte in -v/-T notation. */
static void cat_byte(cat_state *s, buf *o, int ch) {
  if (ch == '\t') {
    if (s->tabs)
      buf_puts(o, "^I");
    else
      buf_putc(o, ch);
    return;
  }
  if (!s->nonprint) {
    buf_putc(o, ch);
    return;
  }
  if (ch >= 128) {
    buf_puts(o, "M-");
    ch -= 128;
  }
  if (ch < 32) {
    buf_putc(o, '^');
    buf_putc(o, ch + 64);
  } else if (ch == 127) {
    buf_puts(o, "^?");
  } else {
    buf_putc(o, ch);
  }
}

static int cat_filter(cmd_ctx *c, cat_state *s, const uint8_t *d, size_t n) {
  cmd_lines l;
  const uint8_t *rec;
  size_t len, i, before;
  int term, rc;
  buf *o = c->out;
  cmd_lines_init(&l, d, n, '\n');
  while (cmd_lines_next(&l, &rec, &len, &term)) {
    if ((++s->lines_seen % 1000) == 0 && (rc = cmd_tick_pause(c, 1)) < 0)
      return rc;
    before = o->len;
    if (s->at_bol) {
      int blank = len == 0 && term;
      if (len == 0 && !term) continue;
      if (blank) {
        if (s->squeeze && s->blanks >= 1) continue;
        s->blanks++;
      } else {
        s->blanks = 0;
      }
      if ((s->number && !s->nonblank) || (s->nonblank && !blank))
        buf_printf(o, "%6llu\t", (unsigned long long)++s->line);
    } else if (len) {
      s->blanks = 0;
    }
    if (!s->nonprint && !s->tabs) {
      buf_put(o, rec, len);
    } else {
      for (i = 0; i < len; i++) cat_byte(s, o, rec[i]);
    }
    if (term) {
      if (s->ends) buf_putc(o, '$');
      buf_putc(o, '\n');
    }
    s->at_bol = term;
    if (o->err) return o->err;
    if (c->out_max && o->len > c->out_max) {
      buf_truncate(o, before > c->out_max ? before : (size_t)c->out_max);
      return MSB_ELIMIT;
    }
  }
  return 0;
}

/* cat: copy each FILE (or stdin) to stdout, optionally transformed. */
int cmd_cat(cmd_ctx *c) {
  cmd_getopt g;
  cat_state s;
  int k, i, status = 0, rc, plain;
  char *const *ops;
  int nops;
  memset(&s, 0, sizeof s);
  s.at_bol = 1;
  cmd_opt_init(&g, c, cat_opts, cat_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'A': s.nonprint = s.ends = s.tabs = 1; break;
    case 'b': s.nonblank = s.number = 1; break;
    case 'e': s.nonprint = s.ends = 1; break;
    case 'E': s.ends = 1; break;
    case 'n': s.number = 1; break;
    case 's': s.squeeze = 1; break;
    case 't': s.nonprint = s.tabs = 1; break;
    case 'T': s.tabs = 1; break;
    case 'v': s.nonprint = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  plain = !(s.number || s.ends || s.squeeze || s.tabs || s.nonprint);
  ops = cmd_operands(&g, &nops);
  for (i = 0; i < nops; i++) {
    const uint8_t *d;
    size_t n;
    rc = cmd_input(c, ops[i], &d, &n);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, ops[i]), cmd_strerror(rc));
      status = 1;
      continue;
    }
    rc = plain ? cmd_write(c, d, n) : cat_filter(c, &s, d, n);
    if (rc < 0) return rc;
  }
  return status;
}
