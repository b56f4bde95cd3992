/* tail.c - output the last part of files (GNU coreutils tail).
 *
 * Operands are read whole, so the last N lines are found by a backward
 * scan and "+N" (from line or byte N) by a forward one. Following (-f, -F,
 * --follow) needs a file that grows while we wait, which a sandbox command
 * cannot see: it is refused with a clear message.
 *
 * Usage: tail [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char tail_usage[] MSB_COLD =
    "Usage: tail [OPTION]... [FILE]...\n"
    "Print the last 10 lines of each FILE to standard output.\n"
    "With more than one FILE, precede each with a header giving the file "
    "name.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -c, --bytes=[+]NUM       output the last NUM bytes; or use -c +NUM "
    "to\n"
    "                             output starting with byte NUM of each "
    "file\n"
    "  -n, --lines=[+]NUM       output the last NUM lines, instead of the "
    "last 10;\n"
    "                             or use -n +NUM to skip NUM-1 lines at the "
    "start\n"
    "  -q, --quiet, --silent    never output headers giving file names\n"
    "  -v, --verbose            always output headers giving file names\n"
    "  -z, --zero-terminated    line delimiter is NUL, not newline\n";

enum { TAIL_O_FOLLOW = 256 };

static const cmd_opt tail_opts[] = {{'c', "bytes", CMD_ARG_REQ, 'c'},
                                    {'f', "follow", CMD_ARG_OPT, 'f'},
                                    {'F', 0, CMD_ARG_NONE, 'f'},
                                    {'n', "lines", CMD_ARG_REQ, 'n'},
                                    {'q', "quiet", CMD_ARG_NONE, 'q'},
                                    {0, "silent", CMD_ARG_NONE, 'q'},
                                    {'v', "verbose", CMD_ARG_NONE, 'v'},
                                    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
                                    {0, 0, 0, 0}};

/* Parses [+-]NUM with GNU size suffixes; 0 or prints and returns 1. */
static int tail_num(cmd_ctx *c, const char *s, int bytes, uint64_t *n,
                    int *from) {
  int rc;
  const char *p = s;
  *from = *p == '+';
  if (*p == '+' || *p == '-') p++;
  rc = cmd_parse_size(p, CMD_SZ_B, n);
  if (rc == 0) return 0;
  cmd_err(c, "invalid number of %s: %s%s", bytes ? "bytes" : "lines",
          cmd_quote(c, s),
          rc == CMD_NUM_RANGE ? ": Value too large for defined data type" : "");
  return 1;
}

/* GNU's obsolete "tail [+-]NUM[bcl][f] [FILE]" (only with at most one
 * file). Returns 1 and sets the counts when argv has that form. */
static int tail_obsolete(cmd_ctx *c, uint64_t *n, int *from, int *bytes,
                         int *follow) {
  const char *p = c->argc > 1 ? c->argv[1] : "";
  uint64_t v = 0, mul = 1;
  int digits = 0;
  if (!(c->argc == 2 ||
        (c->argc == 3 && !(c->argv[2][0] == '-' && c->argv[2][1])) ||
        ((c->argc == 3 || c->argc == 4) && !strcmp(c->argv[2], "--"))))
    return 0;
  if (*p != '+' && *p != '-') return 0;
  if (*p == '-' && !p[1 + (p[1] == 'c')]) return 0;
  *from = *p++ == '+';
  for (; *p >= '0' && *p <= '9'; p++, digits++)
    v = v > UINT64_MAX / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*p - '0');
  *bytes = 0;
  if (*p == 'b' || *p == 'c') {
    *bytes = 1;
    if (*p == 'b') mul = 512;
    p++;
  } else if (*p == 'l') {
    p++;
  }
  *follow = *p == 'f';
  if (*follow) p++;
  if (*p) return 0;
  if (!digits) v = 10;
  *n = v > UINT64_MAX / mul ? UINT64_MAX : v * mul;
  return 1;
}

/* Offset where output starts in d[0..len). */
static size_t tail_start(const uint8_t *d, size_t len, uint64_t n, int from,
                         int bytes, int delim) {
  if (bytes) {
    if (from) return n <= 1 ? 0 : (n - 1 >= len ? len : (size_t)(n - 1));
    return n >= len ? 0 : len - (size_t)n;
  }
  if (from) {
    const uint8_t *p = d, *q;
    uint64_t k = n <= 1 ? 0 : n - 1;
    while (k && p < d + len &&
           (q = memchr(p, delim, (size_t)(d + len - p))) != NULL) {
      p = q + 1;
      k--;
    }
    return k ? len : (size_t)(p - d);
  }
  return cmd_last_records(d, len, n, delim);
}

/* Entry point: see the usage above. */
int cmd_tail(cmd_ctx *c) {
  cmd_getopt g;
  uint64_t n = 10;
  int opt, bytes = 0, from = 0, verbose = -1, delim = '\n', status = 0;
  int first = 1, i, nops;
  char *const *ops;
  cmd_opt_init(&g, c, tail_opts, tail_usage, CMD_OPTF_NUMERIC);
  if (tail_obsolete(c, &n, &from, &bytes, &opt)) {
    if (opt) {
      cmd_err(c,
              "following files (-f, -F, --follow) is not supported in "
              "memsandbox");
      return 1;
    }
    g.nops = c->argc - 2 - (c->argc > 2 && !strcmp(c->argv[2], "--"));
    g.ops = c->argv + c->argc - g.nops;
    goto operands;
  }
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case CMD_OPT_NUM:
      bytes = 0;
      if (tail_num(c, g.arg, 0, &n, &from)) return 1;
      break;
    case 'c':
    case 'n':
      bytes = opt == 'c';
      if (tail_num(c, g.arg, bytes, &n, &from)) return 1;
      break;
    case 'f':
      cmd_err(c,
              "following files (-f, -F, --follow) is not supported in "
              "memsandbox");
      return 1;
    case 'q': verbose = 0; break;
    case 'v': verbose = 1; break;
    case 'z': delim = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
operands:
  ops = cmd_operands(&g, &nops);
  if (verbose < 0) verbose = nops > 1;
  for (i = 0; i < nops; i++) {
    const uint8_t *d;
    size_t len, start;
    int rc;
    if (!cmd_headtail_open(c, ops[i], verbose, &first, &d, &len)) {
      status = 1;
      continue;
    }
    start = tail_start(d, len, n, from, bytes, delim);
    if ((rc = cmd_write(c, d + start, len - start)) < 0) return rc;
  }
  return status;
}
