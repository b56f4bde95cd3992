/* shuf.c - generate random permutations (GNU coreutils 9).
 *
 * Usage: shuf [OPTION]... [FILE]
 *        shuf -e [OPTION]... [ARG]...
 *        shuf -i LO-HI [OPTION]...
 *   -e, --echo                treat each ARG as an input line
 *   -i, --input-range=LO-HI   treat each number LO through HI as a line
 *   -n, --head-count=COUNT    output at most COUNT lines
 *   -o, --output=FILE         write result to FILE instead of stdout
 *   -r, --repeat              output lines can be repeated (needs -n here:
 *                             an endless stream would only hit the limit)
 *   -z, --zero-terminated     line delimiter is NUL, not newline
 * Randomness comes from the sandbox's seeded state, so output is
 * reproducible per seed; --random-source is refused. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../rng.h"
#include "cmd.h"

static const char shuf_usage[] MSB_COLD =
    "Usage: shuf [OPTION]... [FILE]\n"
    "  or:  shuf -e [OPTION]... [ARG]...\n"
    "  or:  shuf -i LO-HI [OPTION]...\n"
    "Write a random permutation of the input lines to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -e, --echo                treat each ARG as an input line\n"
    "  -i, --input-range=LO-HI   treat each number LO through HI as an input "
    "line\n"
    "  -n, --head-count=COUNT    output at most COUNT lines\n"
    "  -o, --output=FILE         write result to FILE instead of standard "
    "output\n"
    "  -r, --repeat              output lines can be repeated\n"
    "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { SHUF_RANDOM_SOURCE = 256 };
static const cmd_opt shuf_opts[] = {
    {'e', "echo", CMD_ARG_NONE, 'e'},
    {'i', "input-range", CMD_ARG_REQ, 'i'},
    {'n', "head-count", CMD_ARG_REQ, 'n'},
    {'o', "output", CMD_ARG_REQ, 'o'},
    {'r', "repeat", CMD_ARG_NONE, 'r'},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, "random-source", CMD_ARG_REQ, SHUF_RANDOM_SOURCE},
    {0, 0, 0, 0}};

typedef struct shuf_line {
  const char *p;
  size_t n;
} shuf_line;

/* shuf: print a random permutation (or selection) of lines. */
int cmd_shuf(cmd_ctx *c) {
  cmd_getopt g;
  int k, echo = 0, repeat = 0, rc;
  int delim = '\n';
  uint64_t count = UINT64_MAX, lo = 0, hi = 0, i, nl = 0;
  const char *range = NULL, *outfile = NULL;
  uint64_t local = 1, *rs = c->rng ? c->rng : &local;
  shuf_line *lines = NULL;
  buf out;
  cmd_opt_init(&g, c, shuf_opts, shuf_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'e': echo = 1; break;
    case 'i': {
      const char *dash = strchr(g.arg, '-');
      char *a =
          dash ? arena_strndup(c->a, g.arg, (size_t)(dash - g.arg)) : NULL;
      int64_t x, y;
      if (!dash || !a || cmd_parse_int(a, &x) || cmd_parse_int(dash + 1, &y) ||
          x < 0 || y + 1 < x) {
        cmd_err(c, "invalid input range: %s", cmd_quote(c, g.arg));
        return 1;
      }
      range = g.arg;
      lo = (uint64_t)x;
      hi = (uint64_t)y;
      break;
    }
    case 'n':
      if (cmd_parse_size(g.arg, 0, &count)) {
        cmd_err(c, "invalid line count: %s", cmd_quote(c, g.arg));
        return 1;
      }
      break;
    case 'o': outfile = g.arg; break;
    case 'r': repeat = 1; break;
    case 'z': delim = 0; break;
    default:
      cmd_err(c,
              "--random-source is not supported in memsandbox: "
              "randomness comes from the sandbox seed");
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (echo && range) {
    cmd_err(c, "cannot combine -e and -i options");
    buf_puts(c->err, "Try 'shuf --help' for more information.\n");
    return 1;
  }
  if (range) {
    if (g.nops)
      return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[0]));
    nl = hi + 1 - lo;
  } else if (echo) {
    nl = (uint64_t)g.nops;
    lines = arena_alloc(c->a, sizeof *lines * (size_t)(nl + 1));
    if (!lines) return MSB_ENOMEM;
    for (i = 0; i < nl; i++) {
      lines[i].p = g.ops[i];
      lines[i].n = strlen(g.ops[i]);
    }
  } else {
    const uint8_t *d, *rec;
    size_t len, rl, cap = 0;
    int term;
    cmd_lines it;
    const char *op = g.nops ? g.ops[0] : "-";
    if (g.nops > 1)
      return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
    if ((rc = cmd_input(c, op, &d, &len))) {
      cmd_err(c, "%s: %s", cmd_quotef(c, op), cmd_strerror(rc));
      return 1;
    }
    cmd_lines_init(&it, d, len, delim);
    while (cmd_lines_next(&it, &rec, &rl, &term)) {
      if (nl == cap) {
        shuf_line *nlines;
        cap = cap ? 2 * cap : 256;
        nlines = arena_alloc(c->a, sizeof *nlines * cap);
        if (!nlines) return MSB_ENOMEM;
        if (nl) memcpy(nlines, lines, sizeof *lines * (size_t)nl);
        lines = nlines;
      }
      lines[nl].p = (const char *)rec;
      lines[nl++].n = rl;
    }
  }
  if (repeat && count == UINT64_MAX) {
    cmd_err(c,
            "-r without -n would repeat forever; give a count in "
            "memsandbox");
    return 1;
  }
  buf_init(&out, c->m);
  if (repeat) {
    for (i = 0; i < count && nl; i++) {
      uint64_t j = rng_below(rs, nl);
      if (range)
        buf_printf(&out, "%llu", (unsigned long long)(lo + j));
      else
        buf_put(&out, lines[j].p, lines[j].n);
      buf_putc(&out, delim);
      if ((i & 1023) == 0 && (rc = cmd_tick(c, 1)) < 0) goto done;
    }
  } else {
    /* partial Fisher-Yates: only the first `count` slots are drawn */
    uint64_t *idx = NULL;
    if (count > nl) count = nl;
    if (nl && !(idx = mem_alloc(c->m, sizeof *idx * (size_t)nl))) {
      buf_finish(&out);
      return MSB_ENOMEM;
    }
    for (i = 0; i < nl; i++) idx[i] = i;
    for (i = 0; i < count; i++) {
      uint64_t j = i + rng_below(rs, nl - i), t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
      if (range)
        buf_printf(&out, "%llu", (unsigned long long)(lo + idx[i]));
      else
        buf_put(&out, lines[idx[i]].p, lines[idx[i]].n);
      buf_putc(&out, delim);
    }
    mem_free(c->m, idx);
  }
  rc = out.err;
  if (rc) goto done;
  if (outfile) {
    const char *path = cmd_path(c, outfile);
    rc = path ? vfs_write(c->fs, path, out.p, out.len, VFS_KEEP_MODE,
                          CMD_NEWFILE(c), NULL)
              : MSB_ENOMEM;
    if (rc) {
      cmd_err(c, "%s: %s", cmd_quotef(c, outfile), cmd_strerror(rc));
      rc = 1;
    }
  } else {
    rc = cmd_write(c, out.p, out.len);
  }
done:
  buf_finish(&out);
  return rc;
}
