/* strings.c - print the printable character sequences in files (GNU
 * binutils 2.40).
 *
 * Usage: strings [-a] [-n MIN] [-t d|o|x] [-w] [FILE]...
 *   -a, --all               scan the whole file (always the case here)
 *   -n, --bytes=MIN         sequences of at least MIN characters (4)
 *   -t, --radix=d|o|x       print each string's offset in that radix
 *   -w, --include-all-whitespace  whitespace (not just space and tab)
 *                           counts as printable
 *   -f, --print-file-name   print the file name before each string
 * Printable means ASCII 32-126 and tab, as binutils does in the C locale. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const cmd_opt strings_opts[] = {
    {'a', "all", CMD_ARG_NONE, 'a'},
    {'n', "bytes", CMD_ARG_REQ, 'n'},
    {'t', "radix", CMD_ARG_REQ, 't'},
    {'w', "include-all-whitespace", CMD_ARG_NONE, 'w'},
    {'f', "print-file-name", CMD_ARG_NONE, 'f'},
    {0, 0, 0, 0}};

static const char strings_usage[] MSB_COLD =
    "Usage: strings [option(s)] [file(s)]\n"
    " Display printable strings in [file(s)] (stdin by default)\n"
    " The options are:\n"
    "  -a - --all                Scan the entire file, not just the data "
    "section [default]\n"
    "  -f --print-file-name      Print the name of the file before each "
    "string\n"
    "  -n <number>               Locate & print any sequence of at least "
    "<number>\n"
    "    --bytes=<number>         displayable characters.  (The default is "
    "4).\n"
    "  -t --radix={o,d,x}        Print the location of the string in base 8, "
    "10 or 16\n"
    "  -w --include-all-whitespace Include all whitespace as valid string "
    "characters\n";

static int strings_printable(int ch, int allws) {
  return (ch >= 32 && ch < 127) || ch == '\t' ||
         (allws && (ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'));
}

/* strings: find runs of printable bytes. */
int cmd_strings(cmd_ctx *c) {
  cmd_getopt g;
  int k, allws = 0, fname = 0, i, rc, status = 0;
  int64_t min = 4;
  const char *radix = NULL;
  cmd_opt_init(&g, c, strings_opts, strings_usage, CMD_OPTF_NUMERIC);
  while ((k = cmd_opt_next(&g)) != CMD_OPT_END) {
    if (k == CMD_OPT_EXIT) return 0;
    if (k < 0 && k != CMD_OPT_NUM) return k == CMD_OPT_ERR ? 1 : k;
    if (k == 'n' || k == CMD_OPT_NUM) {
      if (cmd_parse_int(g.arg, &min) || min < 1) {
        cmd_err(c, "invalid minimum string length %s", g.arg);
        return 1;
      }
    }
    if (k == 't') {
      if (strcmp(g.arg, "d") && strcmp(g.arg, "o") && strcmp(g.arg, "x")) {
        cmd_err(c, "invalid radix");
        return 1;
      }
      radix = g.arg;
    }
    if (k == 'w') allws = 1;
    if (k == 'f') fname = 1;
  }
  for (i = 0; i < (g.nops ? g.nops : 1); i++) {
    const char *op = g.nops ? g.ops[i] : "-";
    const uint8_t *d;
    size_t len, p, start;
    if ((rc = cmd_input(c, op, &d, &len))) {
      if (rc == MSB_EISDIR)
        cmd_err(c, "Warning: '%s' is a directory", op);
      else /* binutils' own wording */
        cmd_err(c, "'%s': %s", op,
                rc == MSB_ENOENT ? "No such file" : cmd_strerror(rc));
      status = 1;
      continue;
    }
    for (p = 0; p < len;) {
      if (!strings_printable(d[p], allws)) {
        p++;
        continue;
      }
      start = p;
      while (p < len && strings_printable(d[p], allws)) p++;
      if ((int64_t)(p - start) < min) continue;
      if (fname) buf_printf(c->out, "%s: ", g.nops ? op : "{standard input}");
      if (radix)
        buf_printf(c->out,
                   *radix == 'd'   ? "%7llu "
                   : *radix == 'o' ? "%7llo "
                                   : "%7llx ",
                   (unsigned long long)start);
      if ((rc = cmd_write(c, d + start, p - start)) < 0 ||
          (rc = cmd_write(c, "\n", 1)) < 0)
        return rc;
    }
  }
  return status;
}
