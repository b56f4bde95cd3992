/* cmp.c - compare two files byte by byte (GNU diffutils 3.8).
 *
 * Usage: cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]
 *   -b, --print-bytes          print differing bytes
 *   -i, --ignore-initial=SKIP  skip the first SKIP bytes (SKIP1:SKIP2)
 *   -l, --verbose              output byte numbers and differing values
 *   -n, --bytes=LIMIT          compare at most LIMIT bytes
 *   -s, --quiet, --silent      suppress all normal output
 * Exit status 0 if the inputs are the same, 1 if different, 2 on trouble. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char cmp_usage[] MSB_COLD =
    "Usage: cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]\n"
    "Compare two files byte by byte.\n"
    "\n"
    "  -b, --print-bytes          print differing bytes\n"
    "  -i, --ignore-initial=SKIP         skip first SKIP bytes of both "
    "inputs\n"
    "  -i, --ignore-initial=SKIP1:SKIP2  skip first SKIP1 bytes of FILE1 and\n"
    "                                      first SKIP2 bytes of FILE2\n"
    "  -l, --verbose              output byte numbers and differing byte "
    "values\n"
    "  -n, --bytes=LIMIT          compare at most LIMIT bytes\n"
    "  -s, --quiet, --silent      suppress all normal output\n"
    "      --help                 display this help and exit\n"
    "  -v, --version              output version information and exit\n";

static const cmd_opt cmp_opts[] = {{'b', "print-bytes", CMD_ARG_NONE, 'b'},
                                   {'i', "ignore-initial", CMD_ARG_REQ, 'i'},
                                   {'l', "verbose", CMD_ARG_NONE, 'l'},
                                   {'n', "bytes", CMD_ARG_REQ, 'n'},
                                   {'s', "quiet", CMD_ARG_NONE, 's'},
                                   {0, "silent", CMD_ARG_NONE, 's'},
                                   {0, 0, 0, 0}};

/* Writes a byte as cat -v would show it (for -b). */
static void cmp_show(buf *b, int ch) {
  if (ch >= 128) {
    buf_puts(b, "M-");
    ch -= 128;
  }
  if (ch < 32) {
    buf_putc(b, '^');
    buf_putc(b, ch + 64);
  } else if (ch == 127) {
    buf_puts(b, "^?");
  } else {
    buf_putc(b, ch);
  }
}

static int cmp_skip(const char *s, uint64_t *out) {
  return cmd_parse_size(s, 0, out);
}

/* cmp: report the first difference between two inputs. */
int cmd_cmp(cmd_ctx *c) {
  cmd_getopt g;
  int k, bytes = 0, verbose = 0, quiet = 0, diff = 0, rc, i;
  uint64_t skip[2] = {0, 0}, limit = UINT64_MAX, pos, line = 1, n;
  const char *name[2];
  const uint8_t *d[2];
  size_t len[2];
  cmd_opt_init(&g, c, cmp_opts, cmp_usage, CMD_OPTF_TRYNAME);
  g.status = 2;
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'b': bytes = 1; break;
    case 'l': verbose = 1; break;
    case 's': quiet = 1; break;
    case 'n':
      if (cmd_parse_size(g.arg, 0, &limit)) {
        cmd_err(c, "invalid --bytes value %s", cmd_quote(c, g.arg));
        return 2;
      }
      break;
    case 'i': {
      const char *colon = strchr(g.arg, ':');
      char *first = arena_strndup(
          c->a, g.arg, colon ? (size_t)(colon - g.arg) : strlen(g.arg));
      if (!first || cmp_skip(first, &skip[0]) ||
          cmp_skip(colon ? colon + 1 : first, &skip[1])) {
        cmd_err(c, "invalid --ignore-initial value %s", cmd_quote(c, g.arg));
        return 2;
      }
      break;
    }
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 2 : k;
  if (verbose && quiet) {
    cmd_err(c, "options -l and -s are incompatible");
    cmd_err(c, "Try 'cmp --help' for more information.");
    return 2;
  }
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand after 'cmp'");
  if (g.nops > 4)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[4]));
  for (i = 2; i < g.nops; i++)
    if (cmp_skip(g.ops[i], &skip[i - 2])) {
      cmd_err(c, "invalid --ignore-initial value %s", cmd_quote(c, g.ops[i]));
      return 2;
    }
  name[0] = g.ops[0];
  name[1] = g.nops > 1 ? g.ops[1] : "-";
  for (i = 0; i < 2; i++) {
    if ((rc = cmd_input(c, name[i], &d[i], &len[i]))) {
      cmd_err(c, "%s: %s", name[i], cmd_strerror(rc));
      return 2;
    }
    if (skip[i] > len[i]) skip[i] = len[i];
    d[i] += skip[i];
    len[i] -= (size_t)skip[i];
  }
  n = len[0] < len[1] ? len[0] : len[1];
  if (limit < n) n = limit;
  /* stdin is read no further than the comparison went (see cmd_ctx) */
  for (i = 0; i < 2; i++)
    if (!strcmp(name[i], "-") && n < len[i]) c->in_eof = 0;
  for (pos = 0; pos < n; pos++) {
    int a = d[0][pos], b = d[1][pos];
    if (a == b) {
      if (a == '\n') line++;
      continue;
    }
    diff = 1;
    if (!verbose || quiet) c->in_eof = 0; /* the first difference ends it */
    if (quiet) return 1;
    if (!verbose) {
      if (bytes) {
        buf_printf(c->out, "%s %s differ: byte %llu, line %llu is %3o ",
                   name[0], name[1], (unsigned long long)pos + 1,
                   (unsigned long long)line, a);
        cmp_show(c->out, a);
        buf_printf(c->out, " %3o ", b);
        cmp_show(c->out, b);
        buf_putc(c->out, '\n');
      } else {
        buf_printf(c->out, "%s %s differ: char %llu, line %llu\n", name[0],
                   name[1], (unsigned long long)pos + 1,
                   (unsigned long long)line);
      }
      return c->out->err ? c->out->err : 1;
    }
    if (bytes) {
      buf_printf(c->out, "%llu %3o ", (unsigned long long)pos + 1, a);
      cmp_show(c->out, a);
      buf_printf(c->out, "%*s%3o ",
                 a >= 128             ? 1
                 : a < 32 || a == 127 ? 3
                                      : 4,
                 "", b);
      cmp_show(c->out, b);
      buf_putc(c->out, '\n');
    } else {
      buf_printf(c->out, "%llu %3o %3o\n", (unsigned long long)pos + 1, a, b);
    }
    if ((rc = cmd_tick(c, 0)) < 0) return rc;
  }
  if (c->out->err) return c->out->err;
  if (n < limit && len[0] != len[1]) {
    int shorter = len[0] < len[1] ? 0 : 1;
    if (!quiet) {
      if (len[shorter] == 0)
        cmd_err(c, "EOF on %s which is empty", name[shorter]);
      else if (verbose)
        cmd_err(c, "EOF on %s after byte %llu", name[shorter],
                (unsigned long long)n);
      else
        cmd_err(c, "EOF on %s after byte %llu, in line %llu", name[shorter],
                (unsigned long long)n, (unsigned long long)line);
    }
    return 1;
  }
  return diff;
}
