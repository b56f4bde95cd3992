/* trap.c - the trap builtin (see trap.h). */
#include "trap.h"

#include <string.h>
#include <strings.h>

#include "buf.h"

static const struct {
  int num;
  const char *name;
} trap_sigs[] = {
#define X(n, s) {n, s},
#include "signals.def"
#undef X
};
#define TRAP_NSIGS (sizeof trap_sigs / sizeof trap_sigs[0])

/* Conditions past the signals, in the order `trap -p` lists them. */
enum { TRAP_EXIT = 0, TRAP_DEBUG = TRAP_NSIG + 1, TRAP_ERR, TRAP_RETURN };

static const char *trap_signame(int num) {
  size_t k;
  for (k = 0; k < TRAP_NSIGS; k++)
    if (trap_sigs[k].num == num) return trap_sigs[k].name;
  return NULL;
}

static int trap_digits(const char *s, int *out) {
  int v = 0;
  if (!*s) return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > 1000) return 0;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return 1;
}

/* The condition spec names (a number, a name with or without SIG, any
 * case, as bash); -1 when none. */
static int trap_parse(const char *spec) {
  static const struct {
    const char *name;
    int cond;
  } extra[] = {{"EXIT", TRAP_EXIT},
               {"DEBUG", TRAP_DEBUG},
               {"ERR", TRAP_ERR},
               {"RETURN", TRAP_RETURN}};
  const char *s = spec;
  size_t k;
  int n;
  if (trap_digits(spec, &n)) return n == 0 || trap_signame(n) ? n : -1;
  for (k = 0; k < sizeof extra / sizeof extra[0]; k++)
    if (!strcmp(spec, extra[k].name)) return extra[k].cond;
  if (!strncasecmp(s, "SIG", 3)) s += 3;
  if (!strcmp(s, "EXIT")) return TRAP_EXIT;
  for (k = 0; k < TRAP_NSIGS; k++)
    if (!strcasecmp(s, trap_sigs[k].name)) return trap_sigs[k].num;
  return -1;
}

/* Where condition cond's action lives. */
static char **trap_slot(shell *sh, int cond, int create) {
  if (cond == TRAP_EXIT) return &sh->trap_exit;
  if (cond == TRAP_DEBUG) return &sh->trap_debug;
  if (cond == TRAP_ERR) return &sh->trap_err;
  if (cond == TRAP_RETURN) return &sh->trap_return;
  if (cond < 1 || cond > TRAP_NSIG) return NULL;
  if (!sh->trap_sig && create)
    sh->trap_sig = mem_zalloc(sh->m, (TRAP_NSIG + 1) * sizeof *sh->trap_sig);
  return sh->trap_sig ? &sh->trap_sig[cond] : NULL;
}

static void trap_name(buf *b, int cond) {
  if (cond == TRAP_EXIT)
    buf_puts(b, "EXIT");
  else if (cond == TRAP_DEBUG)
    buf_puts(b, "DEBUG");
  else if (cond == TRAP_ERR)
    buf_puts(b, "ERR");
  else if (cond == TRAP_RETURN)
    buf_puts(b, "RETURN");
  else
    buf_printf(b, "SIG%s", trap_signame(cond));
}

/* `trap -- 'action' NAME` for cond when it has an action. */
static void trap_print(shell *sh, buf *b, int cond) {
  char **slot = trap_slot(sh, cond, 0);
  if (!slot || !*slot) return;
  buf_puts(b, "trap -- ");
  expand_quote(b, *slot, 1);
  buf_putc(b, ' ');
  trap_name(b, cond);
  buf_putc(b, '\n');
}

static int trap_flush(shell *sh, buf *b) {
  int rc = b->err ? b->err : interp_write(sh, 1, b->p, b->len);
  buf_finish(b);
  return rc == MSB_ENOMEM ? rc : 0;
}

/* trap -l: five to a line, as bash. */
static int trap_list_signals(shell *sh) {
  buf b;
  size_t k;
  buf_init(&b, sh->m);
  for (k = 0; k < TRAP_NSIGS; k++)
    buf_printf(&b, "%2d) SIG%s%c", trap_sigs[k].num, trap_sigs[k].name,
               (k + 1) % 5 ? '\t' : '\n');
  if (TRAP_NSIGS % 5) buf_putc(&b, '\n');
  return trap_flush(sh, &b);
}

/* trap -p [spec ...]: every set trap, or the named ones that are set. */
static int trap_print_all(shell *sh, int argc, char **argv) {
  buf b;
  int i, cond, status = 0;
  buf_init(&b, sh->m);
  if (!argc)
    for (cond = 0; cond <= TRAP_RETURN; cond++) trap_print(sh, &b, cond);
  for (i = 0; i < argc; i++) {
    if ((cond = trap_parse(argv[i])) < 0) {
      interp_errf(sh, "trap: %s: invalid signal specification", argv[i]);
      status = 1;
      continue;
    }
    trap_print(sh, &b, cond);
  }
  i = trap_flush(sh, &b);
  return i ? i : status;
}

/* Sets (action non-NULL) or resets one condition. */
static int trap_set(shell *sh, const char *spec, const char *action) {
  int cond = trap_parse(spec);
  char **slot;
  if (cond < 0) {
    interp_errf(sh, "trap: %s: invalid signal specification", spec);
    return 1;
  }
  if (!(slot = trap_slot(sh, cond, action != NULL))) return action ? 1 : 0;
  mem_free(sh->m, *slot);
  *slot = NULL;
  if (cond == TRAP_RETURN) sh->trap_return_level = sh->cur_call;
  if (action && !(*slot = mem_strdup(sh->m, action))) return MSB_ENOMEM;
  return 0;
}

int trap_builtin(shell *sh, int argc, char **argv) {
  int i = 1, list = 0, print = 0, status = 0, rc, n;
  const char *action;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    list |= strchr(argv[i], 'l') != NULL;
    print |= strchr(argv[i], 'p') != NULL;
  }
  if (list) return trap_list_signals(sh);
  if (print || i >= argc) return trap_print_all(sh, argc - i, argv + i);
  action = argv[i];
  /* `trap N ...` with a number first resets them all (POSIX); a lone
   * operand resets that condition */
  if (i + 1 >= argc || trap_digits(action, &n))
    action = "-";
  else
    i++;
  for (; i < argc; i++) {
    rc = trap_set(sh, argv[i], strcmp(action, "-") ? action : NULL);
    if (rc < 0) return rc;
    if (rc) status = 1;
  }
  return status;
}

/* kill -l [spec ...]: the table, or each number's name / name's number
 * (an exit status past 128 names its signal). */
static int trap_kill_list(shell *sh, int argc, char **argv) {
  buf b;
  int i, n, status = 0;
  if (!argc) return trap_list_signals(sh);
  buf_init(&b, sh->m);
  for (i = 0; i < argc; i++) {
    if (trap_digits(argv[i], &n)) {
      if (n > 128) n -= 128;
      if (trap_signame(n)) {
        buf_printf(&b, "%s\n", trap_signame(n));
        continue;
      }
    } else if ((n = trap_parse(argv[i])) > 0 && n <= TRAP_NSIG) {
      buf_printf(&b, "%d\n", n);
      continue;
    }
    interp_errf(sh, "kill: %s: invalid signal specification", argv[i]);
    status = 1;
  }
  n = trap_flush(sh, &b);
  return n ? n : status;
}

int trap_kill(shell *sh, int argc, char **argv) {
  static const char usage[] =
      "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec "
      "... or kill -l [sigspec]";
  int i = 1, status = 0;
  if (i < argc && (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-L")))
    return trap_kill_list(sh, argc - 2, argv + 2);
  if (i < argc && (!strcmp(argv[i], "-s") || !strcmp(argv[i], "-n"))) {
    if (++i >= argc) return interp_usagef(sh, "%s", usage), 2;
    if (trap_parse(argv[i]) < 0) {
      interp_errf(sh, "kill: %s: invalid signal specification", argv[i]);
      return 1;
    }
    i++;
  } else if (i < argc && argv[i][0] == '-' && argv[i][1]) {
    if (trap_parse(argv[i] + 1) < 0) {
      interp_errf(sh, "kill: %s: invalid signal specification", argv[i] + 1);
      return 1;
    }
    i++;
  }
  if (i >= argc) return interp_usagef(sh, "%s", usage), 2;
  for (; i < argc; i++) {
    const char *a = argv[i];
    int pid;
    if (*a == '%')
      interp_errf(sh, "kill: %s: no such job", a);
    else if (trap_digits(a, &pid) && interp_job_known(sh, pid))
      interp_errf(sh, "kill: (%d) - No such process", pid);
    else
      interp_errf(sh, "kill: %s: arguments must be process or job IDs", a);
    status = 1;
  }
  return status;
}

void trap_free_signals(shell *sh) {
  int k;
  if (!sh->trap_sig) return;
  for (k = 0; k <= TRAP_NSIG; k++) mem_free(sh->m, sh->trap_sig[k]);
  mem_free(sh->m, sh->trap_sig);
  sh->trap_sig = NULL;
}

int trap_copy_signals(shell *c, const shell *sh) {
  int k;
  if (!sh->trap_sig) return 0;
  for (k = 1; k <= TRAP_NSIG; k++) {
    const char *a = sh->trap_sig[k];
    char **slot;
    if (!a) continue;
    if (!(slot = trap_slot(c, k, 1)) || !(*slot = mem_strdup(c->m, a)))
      return MSB_ENOMEM;
  }
  return 0;
}
