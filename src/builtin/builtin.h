/* builtin.h - the shell's own builtins: the commands that read or change
 * shell state (cd, declare, set, read, trap, ...), one family per file:
 *
 *   vars.c     declare typeset local export readonly unset let shift
 *   flow.c     : eval . source exit return break continue exec bash sh
 *   dirs.c     cd pwd dirs pushd popd
 *   options.c  set shopt getopts
 *   io.c       read mapfile readarray printf
 *   jobs.c     trap wait bg fg times ulimit umask (signals: src/trap.c)
 *   lookup.c   type command builtin hash alias unalias caller enable
 *   help.c     help
 *   complete.c compgen complete compopt logout
 *   util.c     what they share
 *
 * builtins.def is the one sorted table (table.c); adding a builtin is a
 * line there and a function with its help text in its family's file.
 *
 * Each builtin follows bash 5's wording and exit statuses; diagnostics go
 * through interp_errf ("bash: line N: NAME: ..."). Features a sandbox cannot
 * have (job control, signals) fail with bash's own messages where bash has
 * one, or a specific "not supported in memsandbox" message. */
#ifndef MSB_BUILTIN_H
#define MSB_BUILTIN_H

#include "../interp.h"

/* builtins.def's flag for the POSIX special builtins (sh_builtin.special). */
#define BI_SPECIAL 1

/* A builtin's `help` text, written for this shell, beside its function
 * (const data: nothing per sandbox). The topic's first line, the purpose,
 * is in builtins.def; help.c prints the three in bash's layout. */
typedef struct help_text {
  const char *synopsis; /* `help -s`; NULL: no topic */
  const char *body;     /* the lines after the purpose */
} help_text;

/* Every builtin's entry point (argv[0] is the name it was called by) and
 * help text. */
#define BUILTIN(name, fn, flags, help, purpose) \
  int fn(shell *sh, int argc, char **argv);     \
  extern const help_text help;
#include "builtins.def"
#undef BUILTIN

/* ---- options.c -------------------------------------------------------- */

/* The i-th name `shopt` (shopt 1) or `set -o` (0) lists; NULL past the
 * end. */
const char *bi_option_name(int shopt, size_t i);

/* ---- util.c ----------------------------------------------------------- */

/* Prints "NAME: usage: USAGE" and returns 2, bash's status for misuse. */
int bi_usage(shell *sh, const char *name, const char *usage);
/* "NAME: -X: invalid option" and the usage line; returns 2. */
int bi_badopt(shell *sh, const char *name, const char *arg, const char *usage);
/* The index of the first operand after options drawn from ok (and any
 * "--"); -1 after an "invalid option" usage error. */
int bi_opts_only(shell *sh, int argc, char **argv, const char *ok,
                 const char *usage);
/* The next option letter of a builtin whose options take no argument
 * ("-ab" is -a -b; "--" ends them), or 0 at the first operand, whose index
 * is then *i. Start with *i = 1 and *o = NULL. */
int bi_nextopt(int argc, char **argv, int *i, const char **o);
/* bi_badopt for the option letter c. */
int bi_badletter(shell *sh, const char *name, int c, const char *usage);
/* Writes b to the builtin's stdout and frees it; 0 unless out of memory
 * (a write error is the reader's, as in bash). */
int bi_out(shell *sh, buf *b);
/* A decimal integer argument, blanks around it allowed; 0 if s is not one
 * or overflows. */
int bi_parse_int(const char *s, int64_t *v);

/* ---- vars.c ----------------------------------------------------------- */

/* Declares or assigns one `name[=value]` operand of declare, local,
 * readonly and printf -v: set and clr are VAR_* attributes; errors are
 * reported as cmd's and counted in *status. */
int bi_decl_one(shell *sh, const char *arg, unsigned set, unsigned clr,
                int local, int global, const char *cmd, int *status);

#endif
