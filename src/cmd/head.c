/* head.c - output the first part of files (GNU coreutils head).
 *
 * Each operand is read whole (a borrowed view), so "all but the last N"
 * (-n -N, -c -N) is a backward scan from the end rather than GNU's ring
 * buffer. Headers "==> NAME <==" appear for several operands unless -q; -v
 * forces them. The obsolete "-NUM" form is accepted as -n NUM.
 *
 * Usage: head [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char head_usage[] MSB_COLD =
    "Usage: head [OPTION]... [FILE]...\n"
    "Print the first 10 lines of each FILE to standard output.\n"
    "With more than one FILE, precede each with a header giving the file "
    "name.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -c, --bytes=[-]NUM       print the first NUM bytes of each file;\n"
    "                             with the leading '-', print all but the "
    "last\n"
    "                             NUM bytes of each file\n"
    "  -n, --lines=[-]NUM       print the first NUM lines instead of the "
    "first 10;\n"
    "                             with the leading '-', print all but the "
    "last\n"
    "                             NUM lines of each file\n"
    "  -q, --quiet, --silent    never print headers giving file names\n"
    "  -v, --verbose            always print headers giving file names\n"
    "  -z, --zero-terminated    line delimiter is NUL, not newline\n";

static const cmd_opt head_opts[] = {{'c', "bytes", CMD_ARG_REQ, 'c'},
                                    {'n', "lines", CMD_ARG_REQ, 'n'},
                                    {'q', "quiet", CMD_ARG_NONE, 'q'},
                                    {0, "silent", CMD_ARG_NONE, 'q'},
                                    {'v', "verbose", CMD_ARG_NONE, 'v'},
                                    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
                                    {0, 0, 0, 0}};

/* Bytes of an endless device head -n reads for its lines: /dev/urandom
 * holds a newline every 256 bytes on average; /dev/zero none, so its
 * lines end there (Linux would read until memory runs out). */
#define HEAD_DEV_LINES ((uint64_t)1 << 20)

/* Parses [-]NUM with GNU size suffixes; 0 or prints and returns 1. */
static int head_num(cmd_ctx *c, const char *s, int bytes, uint64_t *n,
                    int *allbut) {
  int rc;
  *allbut = *s == '-';
  rc = cmd_parse_size(s + *allbut, CMD_SZ_B, n);
  if (rc == 0) return 0;
  cmd_err(c, "invalid number of %s: %s%s", bytes ? "bytes" : "lines",
          cmd_quote(c, s),
          rc == CMD_NUM_RANGE ? ": Value too large for defined data type" : "");
  return 1;
}

/* Entry point: see the usage above. */
int cmd_head(cmd_ctx *c) {
  cmd_getopt g;
  uint64_t n = 10;
  int opt, bytes = 0, allbut = 0, verbose = -1, delim = '\n', status = 0;
  int first = 1, i, nops;
  char *const *ops;
  cmd_opt_init(&g, c, head_opts, head_usage, CMD_OPTF_NUMERIC);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case CMD_OPT_NUM:
      bytes = 0;
      if (head_num(c, g.arg, 0, &n, &allbut)) return 1;
      break;
    case 'c':
    case 'n':
      bytes = opt == 'c';
      if (head_num(c, g.arg, bytes, &n, &allbut)) return 1;
      break;
    case 'q': verbose = 0; break;
    case 'v': verbose = 1; break;
    case 'z': delim = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  ops = cmd_operands(&g, &nops);
  if (verbose < 0) verbose = nops > 1;
  for (i = 0; i < nops; i++) {
    const uint8_t *d;
    size_t len, end;
    int rc, enough = 0;
    /* of an endless device, what head prints at most (lines: a bound) */
    c->dev_want = allbut ? 0 : bytes ? n : n ? HEAD_DEV_LINES : 0;
    if (!cmd_headtail_open(c, ops[i], verbose, &first, &d, &len)) {
      status = 1;
      continue;
    }
    if (bytes) {
      if (allbut)
        end = n >= len ? 0 : len - (size_t)n;
      else
        end = n >= len ? len : (size_t)n;
      enough = !allbut && n <= len;
    } else if (allbut) {
      end = cmd_last_records(d, len, n, delim);
    } else {
      uint64_t k = n;
      const uint8_t *p = d, *q;
      end = len;
      while (k && p < d + len &&
             (q = memchr(p, delim, (size_t)(d + len - p))) != NULL) {
        p = q + 1;
        if (--k == 0) end = (size_t)(p - d);
      }
      if (!n) end = 0;
      enough = !k;
    }
    /* with its count printed, head reads no further (see cmd_ctx) */
    if (enough && !strcmp(ops[i], "-")) {
      c->in_eof = 0;
      c->in_stop = end;
    }
    /* on a regular file GNU head leaves the offset after what it printed */
    if (c->in_regular && !strcmp(ops[i], "-")) c->in_used = end;
    if ((rc = cmd_write(c, d, end)) < 0) return rc;
  }
  return status;
}
