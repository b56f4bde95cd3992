/* comm.c - compare two sorted files line by line (GNU coreutils comm).
 *
 * A merge over the two borrowed inputs with byte comparison (C locale).
 * Order checking follows GNU: by default a file's first disorder is
 * reported (once unpairable lines were seen) and the exit status becomes 1
 * with "input is not in sorted order"; --check-order stops at the first
 * disorder; --nocheck-order never checks.
 *
 * Usage: comm [OPTION]... FILE1 FILE2 */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char comm_usage[] MSB_COLD =
    "Usage: comm [OPTION]... FILE1 FILE2\n"
    "Compare sorted files FILE1 and FILE2 line by line.\n"
    "\n"
    "When FILE1 or FILE2 (not both) is -, read standard input.\n"
    "\n"
    "With no options, produce three-column output.  Column one contains\n"
    "lines unique to FILE1, column two contains lines unique to FILE2,\n"
    "and column three contains lines common to both files.\n"
    "\n"
    "  -1                      suppress column 1 (lines unique to FILE1)\n"
    "  -2                      suppress column 2 (lines unique to FILE2)\n"
    "  -3                      suppress column 3 (lines that appear in both "
    "files)\n"
    "\n"
    "      --check-order       check that the input is correctly sorted, "
    "even\n"
    "                            if all input lines are pairable\n"
    "      --nocheck-order     do not check that the input is correctly "
    "sorted\n"
    "      --output-delimiter=STR  separate columns with STR\n"
    "      --total             output a summary\n"
    "  -z, --zero-terminated   line delimiter is NUL, not newline\n";

enum { COMM_O_CHECK = 256, COMM_O_NOCHECK, COMM_O_DELIM, COMM_O_TOTAL };

static const cmd_opt comm_opts[] = {
    {'1', 0, CMD_ARG_NONE, '1'},
    {'2', 0, CMD_ARG_NONE, '2'},
    {'3', 0, CMD_ARG_NONE, '3'},
    {0, "check-order", CMD_ARG_NONE, COMM_O_CHECK},
    {0, "nocheck-order", CMD_ARG_NONE, COMM_O_NOCHECK},
    {0, "output-delimiter", CMD_ARG_REQ, COMM_O_DELIM},
    {0, "total", CMD_ARG_NONE, COMM_O_TOTAL},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

typedef struct comm_file {
  cmd_lines it;
  const uint8_t *l, *pl; /* current and previous line */
  size_t ll, pll;
  int have, pending, warned; /* pending: a new line not yet checked */
} comm_file;

static int comm_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t m = al < bl ? al : bl;
  int d = m ? memcmp(a, b, m) : 0;
  if (d) return d < 0 ? -1 : 1;
  return al == bl ? 0 : al < bl ? -1 : 1;
}

/* Advances a file, keeping the previous line for the order check. */
static void comm_next(comm_file *f) {
  f->pl = f->l;
  f->pll = f->ll;
  f->have = cmd_lines_next(&f->it, &f->l, &f->ll, NULL);
  f->pending = f->have;
}

/* GNU checks a file's new line when it is next compared, once unpairable
 * lines were seen (or always with --check-order). 1: stop (fatal). */
static int comm_check(cmd_ctx *c, comm_file *f, int which, int check,
                      int unpairable) {
  if (!f->pending) return 0;
  f->pending = 0;
  if (check == 0 || (check < 0 && !unpairable) || f->warned) return 0;
  if (comm_cmp(f->pl, f->pll, f->l, f->ll) <= 0) return 0;
  cmd_err(c, "file %d is not in sorted order", which);
  f->warned = 1;
  return check > 0;
}

/* Entry point: see the usage above. */
int cmd_comm(cmd_ctx *c) {
  cmd_getopt g;
  int opt, i, check = -1, total = 0, eol = '\n', unpairable = 0, rc;
  int show[3] = {1, 1, 1};
  const char *od = "\t";
  size_t odl = 1;
  uint64_t cnt[3] = {0, 0, 0};
  comm_file f[2];
  cmd_opt_init(&g, c, comm_opts, comm_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case '1':
    case '2':
    case '3': show[opt - '1'] = 0; break;
    case COMM_O_CHECK: check = 1; break;
    case COMM_O_NOCHECK: check = 0; break;
    case COMM_O_DELIM:
      od = g.arg;
      odl = strlen(g.arg);
      if (!odl) odl = 1; /* GNU: an empty delimiter is a NUL byte */
      break;
    case COMM_O_TOTAL: total = 1; break;
    case 'z': eol = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (g.nops != 2) return cmd_two_operands(&g);
  memset(f, 0, sizeof f);
  for (i = 0; i < 2; i++) {
    const uint8_t *d;
    size_t len;
    rc = cmd_input(c, g.ops[i], &d, &len);
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      return 1;
    }
    cmd_lines_init(&f[i].it, d, len, eol);
    f[i].have = cmd_lines_next(&f[i].it, &f[i].l, &f[i].ll, NULL);
  }
  while (f[0].have || f[1].have) {
    int order, col;
    if (!f[0].have)
      order = 1;
    else if (!f[1].have)
      order = -1;
    else
      order = comm_cmp(f[0].l, f[0].ll, f[1].l, f[1].ll);
    col = order == 0 ? 2 : order < 0 ? 0 : 1;
    if (order) unpairable = 1;
    if (comm_check(c, &f[0], 1, check, unpairable) ||
        comm_check(c, &f[1], 2, check, unpairable))
      return 1;
    cnt[col]++;
    if (show[col]) {
      int k;
      for (k = 0; k < col; k++)
        if (show[k]) buf_put(c->out, od, odl);
      if (col == 1)
        buf_put(c->out, f[1].l, f[1].ll);
      else
        buf_put(c->out, f[0].l, f[0].ll);
      buf_putc(c->out, eol);
    }
    if (order >= 0) comm_next(&f[1]);
    if (order <= 0) comm_next(&f[0]);
    if (c->out->err) return c->out->err;
  }
  if (total) {
    buf_printf(c->out, "%llu", (unsigned long long)cnt[0]);
    buf_put(c->out, od, odl);
    buf_printf(c->out, "%llu", (unsigned long long)cnt[1]);
    buf_put(c->out, od, odl);
    buf_printf(c->out, "%llu", (unsigned long long)cnt[2]);
    buf_put(c->out, od, odl);
    buf_puts(c->out, "total");
    buf_putc(c->out, eol);
  }
  if (f[0].warned || f[1].warned) {
    cmd_err(c, "input is not in sorted order");
    return 1;
  }
  return 0;
}
