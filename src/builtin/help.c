/* help.c - the help builtin: with patterns, the matching topics
 * (help_print); without, every builtin and command. */
#include <string.h>

#include "../help.h"
#include "builtin.h"

int bi_help(shell *sh, int argc, char **argv) {
  buf b;
  size_t n, k;
  const sh_builtin *t = builtin_table(&n);
  const cmd_desc *c;
  size_t cn;
  int i = 1, mode = 0, d = 0, mm = 0, s = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--help")) {
      char hn[] = "help", *hp[] = {hn};
      buf_init(&b, sh->m);
      help_print(sh->m, &b, 0, hp, 1);
      bi_out(sh, &b);
      return 2;
    }
    for (; *o; o++) {
      if (*o == 'd')
        d = 1;
      else if (*o == 'm')
        mm = 1;
      else if (*o == 's')
        s = 1;
      else {
        interp_errf(sh, "help: -%c: invalid option", *o);
        interp_usagef(sh, "help: usage: help [-dms] [pattern ...]");
        return 2;
      }
    }
  }
  mode = d ? 'd' : mm ? 'm' : s ? 's' : 0;
  if (i < argc) {
    int r;
    buf_init(&b, sh->m);
    r = help_print(sh->m, &b, mode, argv + i, argc - i);
    if (r < 0) {
      buf_finish(&b);
      return r;
    }
    r = r ? 0 : 1;
    if (r) {
      const char *p = argv[argc - 1];
      interp_errf(sh,
                  "help: no help topics match `%s'.  Try `help "
                  "help' or `man -k %s' or `info %s'.",
                  p, p, p);
    }
    bi_out(sh, &b);
    return r;
  }
  buf_init(&b, sh->m);
  buf_puts(&b, "MemSandbox bash-compatible shell. Shell builtins:\n");
  for (k = 0; k < n; k++) buf_printf(&b, " %s", t[k].name);
  buf_puts(&b, "\nCommands:\n");
  c = cmd_table(&cn);
  for (k = 0; k < cn; k++)
    buf_printf(&b, "  %-12s %s\n", c[k].name, c[k].purpose);
  return bi_out(sh, &b);
}
