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
    "Defines and activates handlers to be run when the shell receives "
    "signals\n"
    "or other conditions.\n"
    "\n"
    "ARG is a command to be read and executed when the shell receives the\n"
    "signal(s) SIGNAL_SPEC.  If ARG is absent (and a single SIGNAL_SPEC\n"
    "is supplied) or `-', each specified signal is reset to its original\n"
    "value.  If ARG is the null string each SIGNAL_SPEC is ignored by the\n"
    "shell and by the commands it invokes.\n"
    "\n"
    "If a SIGNAL_SPEC is EXIT (0) ARG is executed on exit from the shell.  "
    "If\n"
    "a SIGNAL_SPEC is DEBUG, ARG is executed before every simple command.  "
    "If\n"
    "a SIGNAL_SPEC is RETURN, ARG is executed each time a shell function or "
    "a\n"
    "script run by the . or source builtins finishes executing.  A "
    "SIGNAL_SPEC\n"
    "of ERR means to execute ARG each time a command's failure would cause "
    "the\n"
    "shell to exit when the -e option is enabled.\n"
    "\n"
    "If no arguments are supplied, trap prints the list of commands "
    "associated\n"
    "with each signal.\n"
    "\n"
    "Options:\n"
    "  -l\tprint a list of signal names and their corresponding numbers\n"
    "  -p\tdisplay the trap commands associated with each SIGNAL_SPEC\n"
    "\n"
    "Each SIGNAL_SPEC is either a signal name in <signal.h> or a signal "
    "number.\n"
    "Signal names are case insensitive and the SIG prefix is optional.  A\n"
    "signal may be sent to the shell with \"kill -signal $$\".\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless a SIGSPEC is invalid or an invalid option is "
    "given.\n"};

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
    "Removes each JOBSPEC argument from the table of active jobs.  Without\n"
    "any JOBSPECs, the shell uses its notion of the current job.\n"
    "\n"
    "Options:\n"
    "  -a\tremove all jobs if JOBSPEC is not supplied\n"
    "  -h\tmark each JOBSPEC so that SIGHUP is not sent to the job if the\n"
    "\t\tshell receives a SIGHUP\n"
    "  -r\tremove only running jobs\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option or JOBSPEC is given.\n"};

/* help wait */
const help_text bi_help_wait = {
    "wait [-fn] [-p var] [id ...]",
    "\n"
    "Waits for each process identified by an ID, which may be a process ID "
    "or a\n"
    "job specification, and reports its termination status.  If ID is not\n"
    "given, waits for all currently active child processes, and the return\n"
    "status is zero.  If ID is a job specification, waits for all processes\n"
    "in that job's pipeline.\n"
    "\n"
    "If the -n option is supplied, waits for a single job from the list of "
    "IDs,\n"
    "or, if no IDs are supplied, for the next job to complete and returns "
    "its\n"
    "exit status.\n"
    "\n"
    "If the -p option is supplied, the process or job identifier of the job\n"
    "for which the exit status is returned is assigned to the variable VAR\n"
    "named by the option argument. The variable will be unset initially, "
    "before\n"
    "any assignment. This is useful only when the -n option is supplied.\n"
    "\n"
    "If the -f option is supplied, and job control is enabled, waits for "
    "the\n"
    "specified ID to terminate, instead of waiting for it to change status.\n"
    "\n"
    "Exit Status:\n"
    "Returns the status of the last ID; fails if ID is invalid or an "
    "invalid\n"
    "option is given, or if -n is supplied and the shell has no "
    "unwaited-for\n"
    "children.\n"};

int bi_wait(shell *sh, int argc, char **argv) {
  int i = bi_opts_only(sh, argc, argv, "fnp", "wait [-fn] [-p var] [id ...]");
  return i < 0 ? 2 : interp_wait(sh, argc, argv);
}

/* help bg */
const help_text bi_help_bg = {
    "bg [job_spec ...]",
    "\n"
    "Place the jobs identified by each JOB_SPEC in the background, as if "
    "they\n"
    "had been started with `&'.  If JOB_SPEC is not present, the shell's "
    "notion\n"
    "of the current job is used.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless job control is not enabled or an error occurs.\n"};

/* help fg */
const help_text bi_help_fg = {
    "fg [job_spec]",
    "\n"
    "Place the job identified by JOB_SPEC in the foreground, making it the\n"
    "current job.  If JOB_SPEC is not present, the shell's notion of the\n"
    "current job is used.\n"
    "\n"
    "Exit Status:\n"
    "Status of command placed in foreground, or failure if an error occurs.\n"};

/* help suspend */
const help_text bi_help_suspend = {
    "suspend [-f]",
    "\n"
    "Suspend the execution of this shell until it receives a SIGCONT "
    "signal.\n"
    "Unless forced, login shells and shells without job control cannot be\n"
    "suspended.\n"
    "\n"
    "Options:\n"
    "  -f\tforce the suspend, even if the shell is a login shell or job\n"
    "\t\tcontrol is not enabled.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless job control is not enabled or an error occurs.\n"};

int bi_nojobs(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: no job control", argv[0]);
  return 1;
}

/* help jobs */
const help_text bi_help_jobs = {
    "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
    "\n"
    "Lists the active jobs.  JOBSPEC restricts output to that job.\n"
    "Without options, the status of all active jobs is displayed.\n"
    "\n"
    "Options:\n"
    "  -l\tlists process IDs in addition to the normal information\n"
    "  -n\tlists only processes that have changed status since the last\n"
    "\t\tnotification\n"
    "  -p\tlists process IDs only\n"
    "  -r\trestrict output to running jobs\n"
    "  -s\trestrict output to stopped jobs\n"
    "\n"
    "If -x is supplied, COMMAND is run after all job specifications that\n"
    "appear in ARGS have been replaced with the process ID of that job's\n"
    "process group leader.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option is given or an error occurs.\n"
    "If -x is used, returns the exit status of COMMAND.\n"};

/* help kill */
const help_text bi_help_kill = {
    "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l "
    "[sigspec]",
    "\n"
    "Send the processes identified by PID or JOBSPEC the signal named by\n"
    "SIGSPEC or SIGNUM.  If neither SIGSPEC nor SIGNUM is present, then\n"
    "SIGTERM is assumed.\n"
    "\n"
    "Options:\n"
    "  -s sig\tSIG is a signal name\n"
    "  -n sig\tSIG is a signal number\n"
    "  -l\tlist the signal names; if arguments follow `-l' they are\n"
    "\t\tassumed to be signal numbers for which names should be listed\n"
    "  -L\tsynonym for -l\n"
    "\n"
    "Kill is a shell builtin for two reasons: it allows job IDs to be used\n"
    "instead of process IDs, and allows processes to be killed if the limit\n"
    "on processes that you can create is reached.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option is given or an error occurs.\n"};

/* help umask */
const help_text bi_help_umask = {
    "umask [-p] [-S] [mode]",
    "\n"
    "Sets the user file-creation mask to MODE.  If MODE is omitted, prints\n"
    "the current value of the mask.\n"
    "\n"
    "If MODE begins with a digit, it is interpreted as an octal number;\n"
    "otherwise it is a symbolic mode string like that accepted by chmod(1).\n"
    "\n"
    "Options:\n"
    "  -p\tif MODE is omitted, output in a form that may be reused as input\n"
    "  -S\tmakes the output symbolic; otherwise an octal number is output\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless MODE is invalid or an invalid option is given.\n"};

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
    "Prints the accumulated user and system times for the shell and all of "
    "its\n"
    "child processes.\n"
    "\n"
    "Exit Status:\n"
    "Always succeeds.\n"};

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
    "Provides control over the resources available to the shell and "
    "processes\n"
    "it creates, on systems that allow such control.\n"
    "\n"
    "Options:\n"
    "  -S\tuse the `soft' resource limit\n"
    "  -H\tuse the `hard' resource limit\n"
    "  -a\tall current limits are reported\n"
    "  -b\tthe socket buffer size\n"
    "  -c\tthe maximum size of core files created\n"
    "  -d\tthe maximum size of a process's data segment\n"
    "  -e\tthe maximum scheduling priority (`nice')\n"
    "  -f\tthe maximum size of files written by the shell and its children\n"
    "  -i\tthe maximum number of pending signals\n"
    "  -k\tthe maximum number of kqueues allocated for this process\n"
    "  -l\tthe maximum size a process may lock into memory\n"
    "  -m\tthe maximum resident set size\n"
    "  -n\tthe maximum number of open file descriptors\n"
    "  -p\tthe pipe buffer size\n"
    "  -q\tthe maximum number of bytes in POSIX message queues\n"
    "  -r\tthe maximum real-time scheduling priority\n"
    "  -s\tthe maximum stack size\n"
    "  -t\tthe maximum amount of cpu time in seconds\n"
    "  -u\tthe maximum number of user processes\n"
    "  -v\tthe size of virtual memory\n"
    "  -x\tthe maximum number of file locks\n"
    "  -P\tthe maximum number of pseudoterminals\n"
    "  -R\tthe maximum time a real-time process can run before blocking\n"
    "  -T\tthe maximum number of threads\n"
    "\n"
    "Not all options are available on all platforms.\n"
    "\n"
    "If LIMIT is given, it is the new value of the specified resource; the\n"
    "special LIMIT values `soft', `hard', and `unlimited' stand for the\n"
    "current soft limit, the current hard limit, and no limit, "
    "respectively.\n"
    "Otherwise, the current value of the specified resource is printed.  If\n"
    "no option is given, then -f is assumed.\n"
    "\n"
    "Values are in 1024-byte increments, except for -t, which is in "
    "seconds,\n"
    "-p, which is in increments of 512 bytes, and -u, which is an unscaled\n"
    "number of processes.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option is supplied or an error "
    "occurs.\n"};

int bi_ulimit(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "unlimited\n");
  return bi_out(sh, &b);
}
