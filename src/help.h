/* help.h - bash's help topics, for the `help` builtin. */
#ifndef MSB_HELP_H
#define MSB_HELP_H

#include "buf.h"
#include "mem.h"

/* Appends bash's help for the topics matching pats (exact name or glob
 * first, else prefix) to out. mode: 0 long help, 's' synopsis, 'd' short
 * description, 'm' manual page. Returns the number of topics shown (0: no
 * match) or a negative MSB_E* code. */
int help_print(mem *m, buf *out, int mode, char **pats, int npats);

#endif
