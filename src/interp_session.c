/* interp_session.c - a shell session's life: functions, the variables it
 * starts with, create/destroy, copies for subshells and forks, and
 * background jobs (`wait`, `disown`). */
#include "interp_int.h"

#include <stdlib.h>
#include <string.h>

#include "trap.h"

/* ---- functions ------------------------------------------------------ */

static uint32_t interp_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

sh_func *interp_func_slot(sh_func *t, size_t n, const char *name) {
  size_t i = interp_hash(name) & (n - 1);
  while (t[i].name && strcmp(t[i].name, name)) i = (i + 1) & (n - 1);
  return &t[i];
}

/* Function by name, NULL when none. */
sh_func *interp_func_get(shell *sh, const char *name) {
  sh_func *f;
  if (!sh->funcn) return NULL;
  f = interp_func_slot(sh->funcs, sh->funcn, name);
  return f->name && f->body ? f : NULL;
}

/* Defines (or redefines) a function; retains tree. */
int interp_func_set(shell *sh, const char *name, ast_node *body,
                    ast_tree *tree) {
  sh_func *f;
  if ((sh->funcused + 1) * 2 > sh->funcn) {
    size_t n = sh->funcn ? sh->funcn * 2 : 16, i;
    sh_func *t = mem_zalloc(sh->m, n * sizeof *t);
    if (!t) return MSB_ENOMEM;
    for (i = 0; i < sh->funcn; i++)
      if (sh->funcs[i].name)
        *interp_func_slot(t, n, sh->funcs[i].name) = sh->funcs[i];
    mem_free(sh->m, sh->funcs);
    sh->funcs = t;
    sh->funcn = n;
  }
  f = interp_func_slot(sh->funcs, sh->funcn, name);
  if (!f->name) {
    if (!(f->name = mem_strdup(sh->m, name))) return MSB_ENOMEM;
    sh->funcused++;
  }
  if (tree) ast_tree_retain(tree);
  if (f->tree) ast_tree_release(f->tree);
  f->body = body;
  f->tree = tree;
  return 0;
}

/* Removes a function definition (the slot stays, empty). */
void interp_func_unset(shell *sh, const char *name) {
  sh_func *f = interp_func_get(sh, name);
  if (!f) return;
  if (f->tree) ast_tree_release(f->tree);
  f->tree = NULL;
  f->body = NULL;
}

void interp_funcs_free(shell *sh) {
  size_t i;
  for (i = 0; i < sh->funcn; i++) {
    if (sh->funcs[i].tree) ast_tree_release(sh->funcs[i].tree);
    mem_free(sh->m, sh->funcs[i].name);
  }
  mem_free(sh->m, sh->funcs);
  sh->funcs = NULL;
  sh->funcn = sh->funcused = 0;
}

/* ---- lifecycle ------------------------------------------------------ */

int interp_init_vars(shell *sh) {
  static const char *const init[][2] = {
      {"BASH", "/bin/bash"},
      {"BASH_VERSION", "5.2.15(1)-release"},
      {"HOME", "/workspace"},
      {"HOSTNAME", "memsandbox"},
      {"HOSTTYPE", "x86_64"},
      {"IFS", " \t\n"},
      {"MACHTYPE", "x86_64-pc-linux-gnu"},
      {"OPTERR", "1"},
      {"OPTIND", "1"},
      {"OSTYPE", "linux-gnu"},
      {"PATH", "/usr/local/bin:/usr/bin:/bin"},
      {"PS4", "+ "},
      {"PWD", "/workspace"},
      {"SHELL", "/bin/bash"},
      {"SHLVL", "1"},
      {"UID", "1000"},
      {"EUID", "1000"},
      {"PPID", "999"},
      {"USER", "user"},
      {"LOGNAME", "user"},
      {"TERM", "dumb"},
      {"LANG", "C"},
  };
  static const char *const exported[] = {"HOME",     "PATH",    "PWD",  "SHLVL",
                                         "USER",     "LOGNAME", "TERM", "LANG",
                                         "HOSTNAME", "SHELL"};
  size_t i;
  for (i = 0; i < sizeof init / sizeof init[0]; i++)
    if (var_set(sh->vars, init[i][0], init[i][1], 0)) return MSB_ENOMEM;
  for (i = 0; i < sizeof exported / sizeof exported[0]; i++) {
    var *v = var_lookup(sh->vars, exported[i]);
    if (v) v->attr |= VAR_EXPORT;
  }
  {
    /* BASH_VERSINFO, readonly like bash's */
    static const char *const vi[] = {"5", "2",       "15",
                                     "1", "release", "x86_64-pc-linux-gnu"};
    var *v = var_bind(sh->vars, "BASH_VERSINFO", 0);
    if (!v || var_make_array(sh->vars, v, 0)) return MSB_ENOMEM;
    for (i = 0; i < sizeof vi / sizeof vi[0]; i++)
      if (var_set_index(sh->vars, "BASH_VERSINFO", (int64_t)i, vi[i], 0))
        return MSB_ENOMEM;
    v = var_lookup(sh->vars, "BASH_VERSINFO");
    if (v) v->attr |= VAR_READONLY;
  }
  var_lookup(sh->vars, "UID")->attr |= VAR_READONLY | VAR_INTEGER;
  var_lookup(sh->vars, "EUID")->attr |= VAR_READONLY | VAR_INTEGER;
  var_lookup(sh->vars, "PPID")->attr |= VAR_READONLY | VAR_INTEGER;
  var_changed(sh->vars);
  return 0;
}

/* Creates a session. */
shell *shell_create(mem *m, vfs *fs, const msb_limits *lim, uint64_t seed,
                    int64_t *clock_ns) {
  shell *sh = mem_zalloc(m, sizeof *sh);
  if (!sh) return NULL;
  sh->refs = 1;
  sh->m = m;
  sh->fs = fs;
  sh->lim = lim;
  sh->clock_ns = clock_ns;
  sh->rng = seed ^ 0x5851f42d4c957f2dull;
  sh->opts = SH_O_BRACE | SH_O_HASHALL;
  sh->pid = 1000;
  sh->next_pid = 1001;
  sh->umask = 022;
  sh->seconds_base = clock_ns ? *clock_ns : 0;
  sh->vars = var_create(m);
  sh->cwd = mem_strdup(m, "/workspace");
  if (!sh->vars || !sh->cwd || interp_init_vars(sh)) {
    shell_destroy(sh);
    return NULL;
  }
  return sh;
}

static void interp_free_state(shell *sh) {
  size_t i;
  int k;
  var_destroy(sh->vars);
  sh->vars = NULL;
  interp_funcs_free(sh);
  for (i = 0; i < sh->naliases; i++) {
    mem_free(sh->m, sh->aliases[i].name);
    mem_free(sh->m, sh->aliases[i].value);
  }
  mem_free(sh->m, sh->aliases);
  bi_complete_free(sh);
  interp_procout_free(sh);
  interp_free_pos(sh);
  mem_free(sh->m, sh->arg0);
  mem_free(sh->m, sh->trap_exit);
  mem_free(sh->m, sh->trap_err);
  mem_free(sh->m, sh->trap_return);
  mem_free(sh->m, sh->trap_debug);
  trap_free_signals(sh);
  mem_free(sh->m, sh->jobs);
  mem_free(sh->m, sh->last_arg);
  mem_free(sh->m, sh->cwd);
  for (k = 0; k < sh->ndirs; k++) mem_free(sh->m, sh->dirstack[k]);
  mem_free(sh->m, sh->dirstack);
  for (k = 0; k < SH_NFD; k++) interp_stream_unref(sh, sh->fd[k]);
  mem_free(sh->m, sh->pstat);
  mem_free(sh->m, sh->decl_argv);
  mem_free(sh->m, sh->decl_asg);
  mem_free(sh->m, sh->fstack);
}

/* Drops a reference to a session, freeing it with the last. NULL
 * accepted. */
void shell_destroy(shell *sh) {
  if (!sh || --sh->refs > 0) return;
  interp_free_state(sh);
  mem_free(sh->m, sh);
}

static char *interp_dupn(shell *sh, const char *s) {
  return s ? mem_strdup(sh->m, s) : NULL;
}

/* Copies everything a fork would copy. share_run: subshell of a running
 * exec (fds shared by reference); otherwise a detached session copy. */
static shell *interp_copy(const shell *sh, vfs *fs, int share_run) {
  shell *c = mem_zalloc(sh->m, sizeof *c);
  size_t i;
  int k;
  if (!c) return NULL;
  *c = *sh;
  c->refs = 1;
  c->fs = fs;
  c->vars = NULL;
  c->trap_sig = NULL;
  c->last_arg = NULL;
  c->jobs = NULL; /* a subshell has no children yet */
  c->njobs = c->jobcap = 0;
  c->funcs = NULL;
  c->funcn = c->funcused = 0;
  c->aliases = NULL;
  c->naliases = 0;
  c->compspecs = NULL;
  c->ncompspecs = 0;
  c->procout = NULL;
  c->nprocout = c->procoutcap = 0;
  c->pos = NULL;
  c->npos = 0;
  c->dirstack = NULL;
  c->ndirs = 0;
  c->pstat = NULL;
  c->npstat = c->pstatcap = 0;
  c->decl_argv = NULL;
  c->decl_asg = NULL;
  c->ndecl = 0;
  c->fstack = NULL;
  c->nfstack = c->fstackcap = 0;
  if (sh->nfstack) {
    c->fstack = mem_alloc(sh->m, (size_t)sh->nfstack * sizeof *c->fstack);
    if (!c->fstack) goto fail;
    memcpy(c->fstack, sh->fstack, (size_t)sh->nfstack * sizeof *c->fstack);
    c->nfstack = c->fstackcap = sh->nfstack;
  }
  c->arg0 = c->trap_exit = c->trap_err = c->cwd = c->trap_return = NULL;
  c->trap_debug = NULL;
  for (k = 0; k < SH_NFD; k++) c->fd[k] = NULL;
  if (share_run)
    for (k = 0; k < SH_NFD; k++) c->fd[k] = interp_stream_ref(sh->fd[k]);
  else
    c->run = NULL;
  c->vars = var_clone(sh->vars, sh->m);
  c->cwd = interp_dupn(c, sh->cwd);
  c->arg0 = interp_dupn(c, sh->arg0);
  if (!c->vars || !c->cwd || (sh->arg0 && !c->arg0)) goto fail;
  if (sh->trap_exit && !(c->trap_exit = interp_dupn(c, sh->trap_exit)))
    goto fail;
  if (sh->trap_err && !(c->trap_err = interp_dupn(c, sh->trap_err))) goto fail;
  if (sh->trap_return && !(c->trap_return = interp_dupn(c, sh->trap_return)))
    goto fail;
  if (sh->trap_debug && !(c->trap_debug = interp_dupn(c, sh->trap_debug)))
    goto fail;
  /* a subshell resets caught signals, but `trap -p` there still lists
   * them as bash does; signals never arrive, so a copy is both */
  if (trap_copy_signals(c, sh)) goto fail;
  if (bi_complete_copy(c, sh)) goto fail;
  if (sh->last_arg && !(c->last_arg = interp_dupn(c, sh->last_arg))) goto fail;
  if (interp_set_pos(c, sh->pos, sh->npos)) goto fail;
  for (i = 0; i < sh->funcn; i++) {
    if (!sh->funcs[i].name || !sh->funcs[i].body) continue;
    if (interp_func_set(c, sh->funcs[i].name, sh->funcs[i].body,
                        sh->funcs[i].tree))
      goto fail;
    interp_func_get(c, sh->funcs[i].name)->trace = sh->funcs[i].trace;
  }
  if (sh->naliases) {
    c->aliases = mem_zalloc(sh->m, sh->naliases * sizeof *c->aliases);
    if (!c->aliases) goto fail;
    for (i = 0; i < sh->naliases; i++) {
      c->aliases[i].name = interp_dupn(c, sh->aliases[i].name);
      c->aliases[i].value = interp_dupn(c, sh->aliases[i].value);
      c->naliases = i + 1;
      if (!c->aliases[i].name || !c->aliases[i].value) goto fail;
    }
  }
  if (sh->ndirs) {
    c->dirstack = mem_zalloc(sh->m, (size_t)sh->ndirs * sizeof(char *));
    if (!c->dirstack) goto fail;
    for (k = 0; k < sh->ndirs; k++) {
      c->dirstack[k] = interp_dupn(c, sh->dirstack[k]);
      c->ndirs = k + 1;
      if (!c->dirstack[k]) goto fail;
    }
  }
  return c;
fail:
  shell_destroy(c);
  return NULL;
}

shell *shell_share(shell *sh) {
  sh->refs++;
  return sh;
}

int shell_own(shell **sh) {
  shell *c;
  if ((*sh)->refs == 1) return 0;
  if (!(c = interp_copy(*sh, (*sh)->fs, 0))) return MSB_ENOMEM;
  shell_destroy(*sh);
  *sh = c;
  return 0;
}

/* Subshell copy sharing the run. */
shell *interp_clone(shell *sh) {
  shell *c = interp_copy(sh, sh->fs, 1);
  if (!c) return NULL;
  mem_free(c->m, c->trap_exit); /* traps are reset in subshells */
  c->trap_exit = NULL;
  if (!(sh->opts & SH_O_FUNCTRACE)) { /* DEBUG only under set -T */
    mem_free(c->m, c->trap_debug);
    c->trap_debug = NULL;
  }
  c->subshell = sh->subshell + 1;
  c->pid = sh->next_pid++;
  c->next_pid = sh->next_pid;
  c->flow = SH_FLOW_NONE;
  return c;
}

/* Current directory. */
const char *shell_cwd(const shell *sh) { return sh->cwd; }

/* Parse check for REPLs. */
int shell_parse_check(shell *sh, const char *script, size_t len) {
  return parse_check(sh->m, script, len,
                     (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0);
}

/* ---- background jobs ------------------------------------------------ */

typedef struct sh_job {
  int pid, status, waited;
} sh_job;

/* bash remembers this many finished jobs' statuses (CHILD_MAX). */
#define INTERP_JOBS_MAX 1024

/* Records a background job that has run to completion. */
int interp_job_add(shell *sh, int pid, int status) {
  if (sh->njobs == INTERP_JOBS_MAX) {
    memmove(sh->jobs, sh->jobs + 1, (size_t)(sh->njobs - 1) * sizeof *sh->jobs);
    sh->njobs--;
  }
  if (sh->njobs == sh->jobcap) {
    int nc = sh->jobcap ? sh->jobcap * 2 : 8;
    sh_job *nj = mem_realloc(sh->m, sh->jobs, (size_t)nc * sizeof *nj);
    if (!nj) return MSB_ENOMEM;
    sh->jobs = nj;
    sh->jobcap = nc;
  }
  sh->jobs[sh->njobs].pid = pid;
  sh->jobs[sh->njobs].status = status;
  sh->jobs[sh->njobs++].waited = 0;
  return 0;
}

static sh_job *interp_job_find(shell *sh, int pid) {
  int k;
  for (k = sh->njobs - 1; k >= 0; k--)
    if (sh->jobs[k].pid == pid) return &sh->jobs[k];
  return NULL;
}

int interp_job_known(shell *sh, int pid) {
  return interp_job_find(sh, pid) != NULL;
}

/* wait -n: the first job no wait has reported; 127 when none. */
static int interp_wait_next(shell *sh, const char *pvar) {
  int k;
  char nb[24];
  for (k = 0; k < sh->njobs; k++)
    if (!sh->jobs[k].waited) {
      sh->jobs[k].waited = 1;
      expand_fmt_i64(nb, sh->jobs[k].pid);
      if (pvar && builtin_assign(sh, pvar, nb, 0) < 0) return MSB_ENOMEM;
      return sh->jobs[k].status;
    }
  return 127;
}

int interp_wait(shell *sh, int argc, char **argv) {
  const char *pvar = NULL;
  int i = 1, next = 0, status = 0, k;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (strchr(argv[i], 'n')) next = 1;
    if (strchr(argv[i], 'p') && i + 1 < argc) pvar = argv[++i];
  }
  if (next) return interp_wait_next(sh, pvar);
  if (i >= argc) {
    for (k = 0; k < sh->njobs; k++) sh->jobs[k].waited = 1;
    return 0;
  }
  for (; i < argc; i++) {
    const char *a = argv[i];
    sh_job *j = NULL;
    int64_t pid = 0;
    if (*a == '%') {
      interp_errf(sh, "wait: %s: no such job", a);
      status = 127;
      continue;
    }
    while (*a >= '0' && *a <= '9' && pid <= INT32_MAX)
      pid = pid * 10 + *a++ - '0';
    a = argv[i];
    if (pid > 0 && pid <= INT32_MAX && !a[strspn(a, "0123456789")])
      j = interp_job_find(sh, (int)pid);
    else {
      interp_errf(sh, "wait: `%s': not a pid or valid job spec", a);
      status = 1;
      continue;
    }
    if (!j) {
      interp_errf(sh, "wait: pid %s is not a child of this shell", a);
      status = 127;
      continue;
    }
    j->waited = 1;
    status = j->status;
  }
  return status;
}

/* disown: forgets finished jobs; %N names no job (there is no job
 * control), and with no operand the current job must exist. */
static int interp_disown(shell *sh, int argc, char **argv) {
  int i = 1, all = 0, status = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    all |= strpbrk(argv[i], "ar") != NULL;
  }
  if (all) {
    sh->njobs = 0;
    return 0;
  }
  if (i >= argc) {
    if (sh->njobs) {
      sh->njobs--;
      return 0;
    }
    interp_errf(sh, "disown: current: no such job");
    return 1;
  }
  for (; i < argc; i++) {
    const char *a = argv[i];
    sh_job *j = NULL;
    if (*a >= '0' && *a <= '9' && !a[strspn(a, "0123456789")] && strlen(a) < 10)
      j = interp_job_find(sh, atoi(a));
    if (!j) {
      interp_errf(sh, "disown: %s: no such job", a);
      status = 1;
      continue;
    }
    memmove(j, j + 1, (size_t)(sh->jobs + sh->njobs - j - 1) * sizeof *j);
    sh->njobs--;
  }
  return status;
}

static int interp_has_opt(int argc, char **argv, char opt) {
  int i;
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++)
    if (strchr(argv[i] + 1, opt)) return 1;
  return 0;
}

int interp_interactive_builtin(shell *sh, int argc, char **argv) {
  const char *name = argv[0];
  if (!strcmp(name, "disown")) return interp_disown(sh, argc, argv);
  if (!strcmp(name, "jobs")) {
    /* finished jobs are reported as they end: none is left to name */
    int i, status = 0;
    for (i = 1; i < argc; i++)
      if (argv[i][0] != '-') {
        interp_errf(sh, "jobs: %s: no such job", argv[i]);
        status = 1;
      }
    return status;
  }
  if (!strcmp(name, "suspend")) {
    interp_errf(sh, "suspend: cannot suspend: no job control");
    return 1;
  }
  if (!strcmp(name, "bind")) {
    interp_errf(sh, "bind: warning: line editing not enabled");
    if (argc > 1 && argv[1][0] == '-') {
      /* the readline tables bash would list */
      interp_errf(sh, "bind: %s: not supported in memsandbox", argv[1]);
      return 1;
    }
    return 0;
  }
  if (!strcmp(name, "fc") && interp_has_opt(argc, argv, 's')) {
    interp_errf(sh, "fc: no command found");
    return 1;
  }
  if (!strcmp(name, "history") && interp_has_opt(argc, argv, 'p')) {
    buf b;
    int i, rc;
    buf_init(&b, sh->m);
    for (i = 2; i < argc; i++) buf_printf(&b, "%s\n", argv[i]);
    rc = b.err ? b.err : interp_write(sh, 1, b.p, b.len);
    buf_finish(&b);
    return rc == MSB_ENOMEM ? rc : 0;
  }
  /* fc and history: a script's bash keeps no history list */
  return 0;
}
