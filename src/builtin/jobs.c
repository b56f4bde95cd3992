/* jobs.c - processes, jobs and signals, which a sandbox has not (every
 * command runs in place): trap, wait, kill, jobs, bg, fg, suspend, disown,
 * times, ulimit, umask. */
#include <string.h>

#include "builtin.h"

int bi_trap(shell *sh, int argc, char **argv) {
  int i = 1, status = 0;
  buf b;
  if (bi_opts_only(sh, argc, argv, "lp", "trap [-lp] [[arg] signal_spec ...]") <
      0)
    return 2;
  if (argc > 1 && !strcmp(argv[1], "--")) i = 2;
  if (i >= argc || !strcmp(argv[i], "-p")) {
    buf_init(&b, sh->m);
    if (sh->trap_exit) {
      buf_puts(&b, "trap -- ");
      expand_quote(&b, sh->trap_exit, 1);
      buf_puts(&b, " EXIT\n");
    }
    if (sh->trap_err) {
      buf_puts(&b, "trap -- ");
      expand_quote(&b, sh->trap_err, 1);
      buf_puts(&b, " ERR\n");
    }
    if (sh->trap_return) {
      buf_puts(&b, "trap -- ");
      expand_quote(&b, sh->trap_return, 1);
      buf_puts(&b, " RETURN\n");
    }
    return bi_out(sh, &b);
  }
  if (!strcmp(argv[i], "-l")) {
    interp_errf(sh, "trap: -l: signals are not supported in memsandbox");
    return 1;
  }
  {
    const char *action = argv[i];
    int reset = !strcmp(action, "-");
    int j = i + 1;
    if (j >= argc) {
      /* trap NAME: reset */
      reset = 1;
      j = i;
    }
    for (; j < argc; j++) {
      const char *sig = argv[j];
      char **slot = NULL;
      if (!strcmp(sig, "EXIT") || !strcmp(sig, "0") || !strcmp(sig, "SIGEXIT"))
        slot = &sh->trap_exit;
      else if (!strcmp(sig, "ERR"))
        slot = &sh->trap_err;
      else if (!strcmp(sig, "RETURN")) {
        slot = &sh->trap_return;
        sh->trap_return_level = sh->funcs_active;
      } else if (!strcmp(sig, "DEBUG")) {
        interp_errf(sh, "trap: %s: not supported in memsandbox", sig);
        status = 1;
        continue;
      } else {
        static const char *const sigs[] = {
            "HUP",  "INT",  "QUIT", "TERM", "USR1", "USR2", "PIPE",
            "ALRM", "CHLD", "KILL", "STOP", "CONT", "TSTP", "WINCH",
            "1",    "2",    "3",    "9",    "13",   "14",   "15"};
        size_t k;
        const char *s2 = !strncmp(sig, "SIG", 3) ? sig + 3 : sig;
        for (k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
          if (!strcmp(sigs[k], s2)) break;
        if (k == sizeof sigs / sizeof sigs[0]) {
          interp_errf(sh, "trap: %s: invalid signal specification", sig);
          status = 1;
          continue;
        }
        /* signals never arrive in the sandbox: accept and ignore */
        continue;
      }
      mem_free(sh->m, *slot);
      *slot = NULL;
      if (!reset && *action) {
        *slot = mem_strdup(sh->m, action);
        if (!*slot) return MSB_ENOMEM;
      } else if (!reset) {
        *slot = mem_strdup(sh->m, "");
        if (!*slot) return MSB_ENOMEM;
      }
    }
  }
  return status;
}

int bi_noop(shell *sh, int argc, char **argv) {
  (void)sh;
  (void)argc;
  (void)argv;
  return 0;
}

int bi_wait(shell *sh, int argc, char **argv) {
  /* background jobs ran in place: nothing is left to wait for */
  int i = bi_opts_only(sh, argc, argv, "fnp", "wait [-fn] [-p var] [id ...]");
  return i < 0 ? 2 : 0;
}

int bi_nojobs(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: no job control", argv[0]);
  return 1;
}

int bi_jobs(shell *sh, int argc, char **argv) {
  (void)sh;
  (void)argc;
  (void)argv;
  return 0;
}

int bi_kill(shell *sh, int argc, char **argv) {
  if (argc < 2) {
    return bi_usage(sh, "kill",
                    "kill [-s sigspec | -n signum | -sigspec] "
                    "pid | jobspec ... or kill -l [sigspec]");
  }
  interp_errf(sh, "kill: %s: %s", argv[argc - 1],
              argv[argc - 1][0] == '%' ? "no such job"
                                       : "arguments must be process or job "
                                         "IDs");
  return 1;
}

int bi_umask(shell *sh, int argc, char **argv) {
  buf b;
  int i = 1, sym = 0, print = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "-S"))
      sym = 1;
    else if (!strcmp(argv[i], "-p"))
      print = 1;
    else
      return bi_badopt(sh, "umask", argv[i], "umask [-p] [-S] [mode]");
  }
  if (i >= argc) {
    buf_init(&b, sh->m);
    if (sym) {
      unsigned m = ~sh->umask & 0777;
      const char *w = "rwx";
      int k, s;
      const char who[3] = {'u', 'g', 'o'};
      for (s = 0; s < 3; s++) {
        unsigned bits = (m >> (6 - 3 * s)) & 7;
        if (s) buf_putc(&b, ',');
        buf_printf(&b, "%c=", who[s]);
        for (k = 0; k < 3; k++)
          if (bits & (4u >> k)) buf_putc(&b, w[k]);
      }
      buf_putc(&b, '\n');
    } else
      buf_printf(&b, "%s%04o\n", print ? "umask " : "", sh->umask);
    return bi_out(sh, &b);
  }
  {
    const char *s = argv[i];
    unsigned v = 0;
    for (; *s; s++) {
      if (*s < '0' || *s > '7') {
        interp_errf(sh, "umask: %s: octal number out of range", argv[i]);
        return 1;
      }
      v = v * 8 + (unsigned)(*s - '0');
      if (v > 0777) {
        interp_errf(sh, "umask: %s: octal number out of range", argv[i]);
        return 1;
      }
    }
    sh->umask = v;
  }
  return 0;
}

int bi_times(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
  return bi_out(sh, &b);
}

int bi_ulimit(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "unlimited\n");
  return bi_out(sh, &b);
}
