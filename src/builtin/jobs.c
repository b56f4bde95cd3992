/* jobs.c - processes, jobs and signals, which a sandbox has not (every
 * command runs in place): trap, wait, bg, fg, times, ulimit, umask; and the
 * help texts of kill (trap_kill, src/trap.c) and of jobs, disown and
 * suspend (interp_interactive_builtin, src/interp.c). */
#include <string.h>

#include "../cmd/cmd.h"
#include "../trap.h"
#include "builtin.h"

/* help trap */
const help_text bi_help_trap = {
    "trap [-lp] [[arg] signal_spec ...]",
    "\n"
    "Sets ARG as the command to run when one of the SIGNAL_SPECs occurs.\n"
    "SIGNAL_SPEC is a signal name (with or without SIG) or number, or EXIT\n"
    "(the shell ends), ERR (a command fails) or RETURN (a function or\n"
    "sourced file ends); DEBUG is not supported in the sandbox.  An empty ARG "
    "ignores the\n"
    "signal; ARG `-' (or a lone number as first operand) restores the\n"
    "default.  Without operands, or with -p, prints the traps as commands.\n"
    "\n"
    "Options:\n"
    "  -l   list signal names with their numbers\n"
    "  -p   print the traps for the SIGNAL_SPECs, or all of them\n"
    "\n"
    "Exit status:\n"
    "0, unless a SIGNAL_SPEC or an option is invalid.\n"};

int bi_trap(shell *sh, int argc, char **argv) {
  if (bi_opts_only(sh, argc, argv, "lp", "trap [-lp] [[arg] signal_spec ...]") <
      0)
    return 2;
  return trap_builtin(sh, argc, argv);
}

/* help disown */
const help_text bi_help_disown = {
    "disown [-h] [-ar] [jobspec ... | pid ...]",
    "\n"
    "Background jobs in the sandbox finish before the next command, so the\n"
    "job table is always empty: disown with no operand does nothing and any\n"
    "named job is reported as not found.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when a job was named.\n"};

/* help wait */
const help_text bi_help_wait = {
    "wait [-fn] [-p var] [id ...]",
    "\n"
    "Waits for each ID, a process ID or job, or for all background jobs when\n"
    "none is given.  Background jobs in the sandbox finish before the next\n"
    "command starts, so wait returns their status at once.\n"
    "\n"
    "Options:\n"
    "  -n       wait for one job and return its status\n"
    "  -p VAR   store the ID of the job whose status is returned in VAR\n"
    "  -f       accepted (there is no job control to wait around)\n"
    "\n"
    "Exit status:\n"
    "The status of the last ID, 127 when an ID is not a child of this\n"
    "shell.\n"};

int bi_wait(shell *sh, int argc, char **argv) {
  int i = bi_opts_only(sh, argc, argv, "fnp", "wait [-fn] [-p var] [id ...]");
  return i < 0 ? 2 : interp_wait(sh, argc, argv);
}

/* help bg */
const help_text bi_help_bg = {
    "bg [job_spec ...]",
    "\n"
    "The sandbox runs every command to completion and has no stopped jobs,\n"
    "so there is nothing to resume: bg reports that job control is off.\n"
    "\n"
    "Exit status:\n"
    "Always 1.\n"};

/* help fg */
const help_text bi_help_fg = {
    "fg [job_spec]",
    "\n"
    "The sandbox has no stopped or running jobs to bring back: every job\n"
    "has finished by the time fg runs, so it reports that job control is off.\n"
    "\n"
    "Exit status:\n"
    "Always 1.\n"};

/* help suspend */
const help_text bi_help_suspend = {
    "suspend [-f]",
    "\n"
    "There is no parent to hand control back to in the sandbox, so suspend\n"
    "reports that it cannot suspend.\n"
    "\n"
    "Exit status:\n"
    "Always 1.\n"};

int bi_nojobs(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: no job control", argv[0]);
  return 1;
}

/* help jobs */
const help_text bi_help_jobs = {
    "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
    "\n"
    "Background jobs in the sandbox finish before the next command is read,\n"
    "so there is never a job to list; a named job is reported as not found.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when a job was named.\n"};

/* help kill */
const help_text bi_help_kill = {
    "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l "
    "[sigspec]",
    "\n"
    "Would send a signal (TERM unless chosen with -s, -n or -SIGNAL) to\n"
    "each process or job named; the sandbox has no other processes to\n"
    "signal, so a target is refused.  With -l, prints the signal names, or\n"
    "converts each SIGSPEC between name and number.\n"
    "\n"
    "Exit status:\n"
    "0, unless a signal or target is invalid.\n"};

/* help umask */
const help_text bi_help_umask = {
    "umask [-p] [-S] [mode]",
    "\n"
    "The bits set in the mask are removed from the permissions of new\n"
    "files and directories.  With MODE, an octal number, sets the mask;\n"
    "without, prints it in octal.\n"
    "\n"
    "Options:\n"
    "  -S   print the mask symbolically, as the permissions it allows\n"
    "  -p   print as a umask command\n"
    "\n"
    "Exit status:\n"
    "0, unless MODE or an option is invalid.\n"};

/* `u=rwx,g=rx,o=rx` for the permissions a umask leaves. */
static void bi_umask_sym(buf *b, unsigned umask) {
  static const char who[3] = {'u', 'g', 'o'};
  unsigned m = ~umask & 0777;
  int k, s;
  for (s = 0; s < 3; s++) {
    unsigned bits = (m >> (6 - 3 * s)) & 7;
    if (s) buf_putc(b, ',');
    buf_printf(b, "%c=", who[s]);
    for (k = 0; k < 3; k++)
      if (bits & (4u >> k)) buf_putc(b, "rwx"[k]);
  }
  buf_putc(b, '\n');
}

/* bash's complaint about a symbolic mode cmd_parse_mode refused. */
static int bi_umask_badsym(shell *sh, const char *s) {
  for (;;) {
    while (*s && strchr("ugoa", *s)) s++;
    if (!*s || !strchr("+-=", *s)) {
      /* At the end bash prints the string's NUL byte. */
      interp_errf(sh, "umask: `%c': invalid symbolic mode operator", *s);
      return 1;
    }
    while (*s && strchr("+-=", *s)) s++;
    while (*s && strchr("rwxXstugo", *s)) s++;
    if (*s != ',') break;
    s++;
  }
  interp_errf(sh, "umask: `%c': invalid symbolic mode character", *s);
  return 1;
}

/* Sets the umask from an octal or symbolic (chmod-style) mode. */
static int bi_umask_set(shell *sh, const char *arg) {
  const char *s = arg;
  unsigned v = 0;
  uint32_t perm;
  if (*s < '0' || *s > '9') {
    if (cmd_parse_mode(arg, ~sh->umask & 0777, 0, 0, &perm))
      return bi_umask_badsym(sh, arg);
    sh->umask = ~perm & 0777;
    return 0;
  }
  for (; *s; s++) {
    if (*s < '0' || *s > '7') {
      interp_errf(sh, "umask: %s: octal number out of range", arg);
      return 1;
    }
    v = v * 8 + (unsigned)(*s - '0');
    if (v > 0777) {
      interp_errf(sh, "umask: %s: octal number out of range", arg);
      return 1;
    }
  }
  sh->umask = v;
  return 0;
}

int bi_umask(shell *sh, int argc, char **argv) {
  buf b;
  int i = 1, sym = 0, print = 0, o;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = 1; argv[i][o]; o++) {
      if (argv[i][o] == 'S')
        sym = 1;
      else if (argv[i][o] == 'p')
        print = 1;
      else
        return bi_badletter(sh, "umask", argv[i][o], "umask [-p] [-S] [mode]");
    }
  }
  if (i < argc) {
    if (bi_umask_set(sh, argv[i])) return 1;
    /* With a mode, only -S prints (the new mask, symbolically). */
    print = 0;
    if (!sym) return 0;
  }
  buf_init(&b, sh->m);
  if (print) buf_puts(&b, sym ? "umask -S " : "umask ");
  if (sym)
    bi_umask_sym(&b, sh->umask);
  else
    buf_printf(&b, "%04o\n", sh->umask);
  return bi_out(sh, &b);
}

/* help times */
const help_text bi_help_times = {
    "times",
    "\n"
    "Prints two lines of user and system time: the shell's, then its\n"
    "children's.  The sandbox does not measure CPU time, so both are zero.\n"
    "\n"
    "Exit status:\n"
    "Always 0.\n"};

int bi_times(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
  return bi_out(sh, &b);
}

/* help ulimit */
const help_text bi_help_ulimit = {
    "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]",
    "\n"
    "The sandbox's real limits (memory, output, steps, time) are set by its\n"
    "host, not by the shell, so ulimit reports every resource as\n"
    "`unlimited' and does not change anything.\n"
    "\n"
    "Exit status:\n"
    "Always 0.\n"};

int bi_ulimit(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "unlimited\n");
  return bi_out(sh, &b);
}
