/* interp.c - the shell interpreter: session lifecycle (shell.h), command
 * execution, redirections, pipelines and the command lookup.
 *
 * Execution walks the AST directly (never re-parses). Each function returns
 * an exit status 0-255, or a negative MSB_E* code that unwinds the whole run
 * (a limit or out of memory). break/continue/return/exit travel as
 * sh->flow. Subshells, pipeline stages and command substitutions run in a
 * copy of the shell (interp_clone) that shares the run's counters and output
 * streams, so state changes inside them vanish as they do with fork(2).
 * Pipelines run stage by stage: each stage's stdout buffer becomes the next
 * stage's stdin. See interp.h for the stream model. */
#include "interp.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "coro.h"
#include "glob.h"
#include "policy.h"
#include "regex.h"
#include "trap.h"

#define SH_LIMIT_STATUS 124
#define SH_CANCEL_STATUS 130 /* a cancelled run ends as if by SIGINT */

/* ---- small helpers -------------------------------------------------- */

/* New stream with one reference. */
sh_stream *interp_stream_new(shell *sh, int kind) {
  sh_stream *s = mem_zalloc(sh->m, sizeof *s);
  if (!s) return NULL;
  s->refs = 1;
  s->kind = kind;
  return s;
}

/* Frees a stream. Out of line: unref is inlined into frames on the
 * interpreter's recursions, whose native stack SH_STACK_* was measured
 * with; growing them would let a deep script pass the meter. */
static void interp_stream_free(shell *sh, sh_stream *s)
#if defined(__GNUC__)
    __attribute__((noinline))
#endif
    ;
static void interp_stream_free(shell *sh, sh_stream *s) {
  if (s->undo) vfs_undo_finish(sh->fs, s->undo);
  mem_free(sh->m, s->undo);
  mem_free(sh->m, s->path);
  mem_free(sh->m, s->data);
  mem_free(sh->m, s);
}

/* Drops a reference. */
void interp_stream_unref(shell *sh, sh_stream *s) {
  if (!s || --s->refs > 0) return;
  interp_stream_free(sh, s);
}

static sh_stream *interp_stream_ref(sh_stream *s) {
  if (s) s->refs++;
  return s;
}

static void interp_fd_set(shell *sh, int fd, sh_stream *s) {
  interp_stream_unref(sh, sh->fd[fd]);
  sh->fd[fd] = s;
}

/* Charges steps against max_steps. */
int interp_tick(shell *sh, uint64_t n) {
  sh_run *r = sh->run;
  if (r->limit) return MSB_ELIMIT;
  if (r->pace && r->pace->stop) { /* cancelled inside a command */
    r->limit = (limit_id)r->pace->stop;
    return MSB_ELIMIT;
  }
  r->steps += n;
  if (sh->lim->max_steps && r->steps > sh->lim->max_steps) {
    r->limit = LIMIT_MAX_STEPS;
    return MSB_ELIMIT;
  }
  if (r->step_cap && r->steps > r->step_cap) {
    r->limit = LIMIT_TIMEOUT;
    return MSB_ELIMIT;
  }
  return 0;
}

/* Suspends the run at its pace's slice end (issue 17): the host gets
 * control back and resumes it for the next slice or ends it with a limit.
 * Yields only where the wasm build can unwind the stack: not inside a
 * builtin or command (reached through a function pointer, which Asyncify
 * is told not to instrument), so a loop in `eval` runs its slice to the
 * end of the builtin. */
static int interp_pace(shell *sh) {
  sh_run *r = sh->run;
  shell_pace *p = r->pace;
  if (r->no_yield) return 0;
  if (!p->stop) {
    p->steps = r->steps;
    coro_yield(p->co);
  }
  if (p->stop) {
    r->limit = (limit_id)p->stop;
    return MSB_ELIMIT;
  }
  return 0;
}

void shell_pace_output(const shell_pace *p, int fd, const uint8_t **data,
                       size_t *len) {
  const sh_run *r = p->run;
  const buf *b;
  *data = NULL;
  *len = 0;
  if (!r) return;
  b = fd == 2 ? (r->sec ? &r->red_err : &r->err)
              : (r->sec ? &r->red_out : &r->out);
  *data = (const uint8_t *)b->p;
  *len = b->len;
}

int interp_tick_pace(shell *sh) {
  sh_run *r = sh->run;
  int rc = interp_tick(sh, 1);
  if (rc || !r->pace || !r->pace->until || r->steps < r->pace->until) return rc;
  return interp_pace(sh);
}

int interp_charge_bytes(shell *sh, uint64_t n) {
  sh_run *r = sh->run;
  r->byte_carry += n;
  if (r->byte_carry < CMD_BYTES_PER_STEP) return r->limit ? MSB_ELIMIT : 0;
  n = r->byte_carry / CMD_BYTES_PER_STEP;
  r->byte_carry %= CMD_BYTES_PER_STEP;
  return interp_tick(sh, n);
}

int interp_stack_fail(shell *sh) {
  sh_run *r = sh->run;
  if (!r->limit) {
    interp_errf(sh, "memsandbox: nesting too deep for the native stack");
    r->limit = LIMIT_MAX_CALL_DEPTH;
  }
  return MSB_ELIMIT;
}

/* Whether the C stack in linear memory is nearly used up. In wasm that
 * (shadow) stack has no guard page: passing its floor traps (the main
 * stack, first in memory) or writes over the memory below (a coroutine's),
 * so the interpreter stops SH_SHADOW_RESERVE above it, leaving that much
 * for the innermost command. Natively a guard page ends the stack, and
 * SH_STACK_MAX bounds the frames long before it. */
static int interp_shadow_low(const shell *sh) {
#if defined(__wasm__)
  const shell_pace *p = sh->run->pace;
  uintptr_t floor = p && p->co ? coro_stack_floor(p->co) : 0;
  char here;
  return (uintptr_t)&here < floor + SH_SHADOW_RESERVE;
#else
  (void)sh;
  return 0;
#endif
}

int interp_stack_push(shell *sh, size_t n) {
  sh_run *r = sh->run;
  if (r->stack + n > SH_STACK_MAX || interp_shadow_low(sh))
    return interp_stack_fail(sh);
  r->stack += n;
  return 0;
}

void interp_stack_pop(shell *sh, size_t n) { sh->run->stack -= n; }

size_t interp_stack_left(const shell *sh) {
  return sh->run ? SH_STACK_MAX - sh->run->stack : SH_STACK_MAX;
}

static void interp_trim_stream(shell *sh, buf *b, uint64_t *drop) {
  uint64_t max = sh->lim->max_output_bytes;
  if (max && b->len > max) {
    *drop += b->len - max;
    buf_truncate(b, (size_t)max);
  }
}

/* Called whenever the run's stdout or stderr grew: the one point where
 * the exec's output is collected, so redaction here covers every command,
 * builtin and shell message. */
static void interp_trim_output(shell *sh) {
  sh_run *r = sh->run;
  if (r->sec) {
    /* the redactor keeps max_output_bytes of the redacted stream */
    secret_stream_put(&r->rout, r->out.p, r->out.len);
    secret_stream_put(&r->rerr, r->err.p, r->err.len);
    buf_truncate(&r->out, 0);
    buf_truncate(&r->err, 0);
    return;
  }
  interp_trim_stream(sh, &r->out, &r->out_drop);
  interp_trim_stream(sh, &r->err, &r->err_drop);
}

/* A write to pipe s found it full (see sh_stream): s is cut, and a
 * subshell stage writing with a builtin is gone, as after SIGPIPE. */
static void interp_sigpipe(shell *sh, sh_stream *s) {
  s->cut = 1;
  if (s->owner != sh && sh->flow != SH_FLOW_EXIT) {
    sh->flow = SH_FLOW_EXIT;
    sh->status = 141;
  }
}

/* Writes bytes to fd's stream. */
int interp_write(shell *sh, int fd, const void *p, size_t n) {
  sh_stream *s;
  int rc = 0;
  if (fd < 0 || fd >= SH_NFD || !(s = sh->fd[fd])) return MSB_EINVAL;
  if (!n) return 0;
  /* paid here; past the limit the run stops at its next step (the limit
   * is sticky), without a write error for the writer to report */
  interp_charge_bytes(sh, n);
  switch (s->kind) {
  case SH_S_NULL: return 0;
  case SH_S_BUF:
    if (s->pipe) {
      uint64_t cap = sh->lim->max_string_bytes;
      if (s->cut || s->ob->len + (uint64_t)n > cap) {
        if (!s->cut && s->ob->len < cap)
          rc = buf_put(s->ob, p, (size_t)(cap - s->ob->len));
        interp_sigpipe(sh, s);
        return rc;
      }
    }
    rc = buf_put(s->ob, p, n);
    if (s->ob == &sh->run->out || s->ob == &sh->run->err)
      interp_trim_output(sh);
    return rc;
  case SH_S_FILE:
    rc = s->refused
             ? MSB_ESECRET
             : vfs_write(sh->fs, s->path, p, n, VFS_APPEND | VFS_KEEP_MODE,
                         0666 & ~sh->umask, NULL);
    if (!rc && s->undo) vfs_undo_mine(sh->fs, s->undo);
    if (rc == MSB_ESECRET && s->undo && !s->refused) {
      /* nothing written through the open stays: it writes nothing */
      s->refused = 1;
      if (vfs_undo_apply(sh->fs, s->path, s->undo)) return MSB_ENOMEM;
    }
    if (rc && rc != MSB_ENOMEM && fd == 1) sh->run->write_err = rc;
    return rc;
  default: return MSB_EINVAL;
  }
}

static const char *interp_name(shell *sh) {
  /* bash names ${BASH_SOURCE[0]} in its diagnostics: the file being
   * sourced, the file that defined the running function ("environment"
   * for one defined by -c text), else $0 */
  if (sh->nfstack && sh->fstack[sh->nfstack - 1].src &&
      sh->fstack[sh->nfstack - 1].src[0])
    return sh->fstack[sh->nfstack - 1].src;
  return sh->arg0 ? sh->arg0 : "bash";
}

/* The prefixes a diagnostic line can carry. */
enum { INTERP_MSG_BARE, INTERP_MSG_NAME, INTERP_MSG_LINE };

/* Writes one diagnostic line on fd 2: the prefix, the message, '\n'. */
static int interp_msgv(shell *sh, int prefix, const char *fmt, va_list ap) {
  buf b;
  int rc;
  buf_init(&b, sh->m);
  if (prefix == INTERP_MSG_LINE)
    buf_printf(&b, "%s: line %d: ", interp_name(sh), sh->line);
  else if (prefix == INTERP_MSG_NAME)
    buf_printf(&b, "%s: ", interp_name(sh));
  buf_vprintf(&b, fmt, ap);
  buf_putc(&b, '\n');
  rc = b.err ? b.err : interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
  return rc;
}

/* "bash: line N: " + message + newline on fd 2. */
int interp_errf(shell *sh, const char *fmt, ...) {
  va_list ap;
  int rc;
  if (!sh->fail) sh->fail = CMD_FAIL_WORKSPACE;
  va_start(ap, fmt);
  rc = interp_msgv(sh, INTERP_MSG_LINE, fmt, ap);
  va_end(ap);
  return rc;
}

/* Message + newline on fd 2 with no prefix: a builtin's "NAME: usage: ..."
 * line. */
int interp_usagef(shell *sh, const char *fmt, ...) {
  va_list ap;
  int rc;
  sh->fail = CMD_FAIL_USAGE;
  va_start(ap, fmt);
  rc = interp_msgv(sh, INTERP_MSG_BARE, fmt, ap);
  va_end(ap);
  return rc;
}

/* "bash: " + message + newline on fd 2 (getopts-style diagnostics). */
int interp_errf_noline(shell *sh, const char *fmt, ...) {
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = interp_msgv(sh, INTERP_MSG_NAME, fmt, ap);
  va_end(ap);
  return rc;
}

/* PS4 prefix: its first byte repeated once per nesting level. */
int interp_ps4(shell *sh, buf *b) {
  const char *ps4 = var_value(sh->vars, "PS4");
  int i;
  if (!ps4 || !*ps4) return b->err;
  for (i = 0; i <= sh->xlevel; i++) buf_putc(b, ps4[0]);
  return buf_puts(b, ps4 + 1);
}

/* Remaining input of fd. */
int interp_input(shell *sh, int fd, const uint8_t **p, size_t *n) {
  sh_stream *s = fd >= 0 && fd < SH_NFD ? sh->fd[fd] : NULL;
  *p = (const uint8_t *)"";
  *n = 0;
  if (!s) return MSB_EINVAL;
  if (s->kind != SH_S_IN) return 0;
  *p = s->data ? s->data + s->pos : (const uint8_t *)"";
  *n = s->len - s->pos;
  return 0;
}

/* Consumes input. */
void interp_consume(shell *sh, int fd, size_t n) {
  sh_stream *s = fd >= 0 && fd < SH_NFD ? sh->fd[fd] : NULL;
  if (!s || s->kind != SH_S_IN) return;
  if (n > s->len - s->pos) n = s->len - s->pos;
  /* a reader's scan is paid here; past the limit the run stops at its
   * next step (the limit is sticky) */
  interp_charge_bytes(sh, n);
  s->pos += n;
  s->reach = s->pos;
}

/* The run stops: something read to the end of a cut pipe. */
static int interp_pipe_overrun(shell *sh) {
  if (!sh->run->limit) {
    sh->run->limit = LIMIT_MAX_STRING_BYTES;
    sh->run->pipe_stop = 1;
  }
  return MSB_ELIMIT;
}

int interp_input_end(shell *sh, int fd) {
  sh_stream *s = fd >= 0 && fd < SH_NFD ? sh->fd[fd] : NULL;
  return s && s->kind == SH_S_IN && s->cut ? interp_pipe_overrun(sh) : 0;
}

/* Absolute path against cwd. */
int interp_abspath(shell *sh, const char *p, buf *out) {
  return vfs_abspath(sh->cwd, p, out);
}

/* Plain assignment, reporting readonly errors. */
int interp_set_var(shell *sh, const char *name, const char *val) {
  int rc = var_set(sh->vars, name, val, 0);
  if (rc == VAR_ERO) {
    interp_errf(sh, "%s: readonly variable", name);
    return 1;
  }
  return rc < 0 ? rc : 0;
}

static void interp_free_pos(shell *sh) {
  int i;
  for (i = 0; i < sh->npos; i++) mem_free(sh->m, sh->pos[i]);
  mem_free(sh->m, sh->pos);
  sh->pos = NULL;
  sh->npos = 0;
}

/* Replaces the positional parameters with copies of argv. */
int interp_set_pos(shell *sh, char **argv, int argc) {
  char **np = NULL;
  int i;
  if (argc > 0) {
    np = mem_zalloc(sh->m, (size_t)argc * sizeof *np);
    if (!np) return MSB_ENOMEM;
    for (i = 0; i < argc; i++)
      if (!(np[i] = mem_strdup(sh->m, argv[i]))) {
        while (i-- > 0) mem_free(sh->m, np[i]);
        mem_free(sh->m, np);
        return MSB_ENOMEM;
      }
  }
  interp_free_pos(sh);
  sh->pos = np;
  sh->npos = argc;
  return 0;
}

/* Records $PIPESTATUS (kept natively: it changes after every command). */
int interp_set_pipestatus(shell *sh, const int *codes, int n) {
  if (n > sh->pstatcap) {
    int *np = mem_realloc(sh->m, sh->pstat, (size_t)n * sizeof *np);
    if (!np) return MSB_ENOMEM;
    sh->pstat = np;
    sh->pstatcap = n;
  }
  if (n > 0) memcpy(sh->pstat, codes, (size_t)n * sizeof *codes);
  sh->npstat = n;
  return 0;
}

/* 15-bit pseudo-random numbers from the host seed (xorshift64*). */
int interp_random(shell *sh) {
  uint64_t x = sh->rng ? sh->rng : 0x9e3779b97f4a7c15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  sh->rng = x;
  return (int)((x * 0x2545f4914f6cdd1dull) >> 49);
}

static int interp_atoi(const char *s) {
  int v = 0;
  while (*s >= '0' && *s <= '9' && v < 100000000) v = v * 10 + (*s++ - '0');
  return v;
}

/* ---- functions ------------------------------------------------------ */

static uint32_t interp_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static sh_func *interp_func_slot(sh_func *t, size_t n, const char *name) {
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

static void interp_funcs_free(shell *sh) {
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

static int interp_init_vars(shell *sh) {
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
  interp_free_pos(sh);
  mem_free(sh->m, sh->arg0);
  mem_free(sh->m, sh->trap_exit);
  mem_free(sh->m, sh->trap_err);
  mem_free(sh->m, sh->trap_return);
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
  /* a subshell resets caught signals, but `trap -p` there still lists
   * them as bash does; signals never arrive, so a copy is both */
  if (trap_copy_signals(c, sh)) goto fail;
  if (sh->last_arg && !(c->last_arg = interp_dupn(c, sh->last_arg))) goto fail;
  if (interp_set_pos(c, sh->pos, sh->npos)) goto fail;
  for (i = 0; i < sh->funcn; i++)
    if (sh->funcs[i].name && sh->funcs[i].body &&
        interp_func_set(c, sh->funcs[i].name, sh->funcs[i].body,
                        sh->funcs[i].tree))
      goto fail;
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
static int interp_job_add(shell *sh, int pid, int status) {
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

/* ---- redirections --------------------------------------------------- */

typedef struct interp_saved {
  sh_stream *fd[SH_NFD];
} interp_saved;

static void interp_save_fds(shell *sh, interp_saved *s) {
  int i;
  for (i = 0; i < SH_NFD; i++) s->fd[i] = interp_stream_ref(sh->fd[i]);
}

static void interp_restore_fds(shell *sh, interp_saved *s) {
  int i;
  for (i = 0; i < SH_NFD; i++) interp_fd_set(sh, i, s->fd[i]);
}

static const char *interp_errstr(int rc) { return msb_strerror(rc); }

/* Stream reading a whole file; *status 1 with a message on failure. */
static sh_stream *interp_open_in(shell *sh, const char *word, int *status) {
  buf p;
  const uint8_t *data;
  size_t len;
  sh_stream *s;
  int rc;
  *status = 0;
  if (!strcmp(word, "/dev/null")) return interp_stream_new(sh, SH_S_IN);
  if (!strcmp(word, "/dev/stdin")) return interp_stream_ref(sh->fd[0]);
  if (!strncmp(word, "/dev/fd/", 8) && word[8] >= '0' && word[8] <= '9' &&
      !word[9]) {
    if (sh->fd[word[8] - '0']) return interp_stream_ref(sh->fd[word[8] - '0']);
  }
  buf_init(&p, sh->m);
  interp_abspath(sh, word, &p);
  if (p.err) {
    buf_finish(&p);
    *status = MSB_ENOMEM;
    return NULL;
  }
  rc = vfs_read(sh->fs, buf_str(&p), &data, &len);
  buf_finish(&p);
  if (rc == MSB_EISDIR) {
    /* bash opens a directory fine; the reader's read() fails */
    s = interp_stream_new(sh, SH_S_IN);
    if (s) s->rderr = rc;
    if (!s) *status = MSB_ENOMEM;
    return s;
  }
  if (rc) {
    if (rc == MSB_ENOMEM) {
      *status = rc;
      return NULL;
    }
    interp_errf(sh, "%s: %s", word, interp_errstr(rc));
    *status = 1;
    return NULL;
  }
  s = interp_stream_new(sh, SH_S_IN);
  if (s) s->regular = 1;
  if (s && len) {
    s->data = mem_alloc(sh->m, len);
    if (!s->data) {
      interp_stream_unref(sh, s);
      s = NULL;
    } else {
      memcpy(s->data, data, len);
      s->len = len;
    }
  }
  if (!s) *status = MSB_ENOMEM;
  return s;
}

/* Output stream for a file: truncates (or creates) unless append. */
static sh_stream *interp_open_out(shell *sh, const char *word, int append,
                                  int clobber, int *status) {
  buf p;
  sh_stream *s;
  vfs_undo *undo = NULL;
  struct vfs_stat st;
  int rc;
  *status = 0;
  if (!strcmp(word, "/dev/null")) return interp_stream_new(sh, SH_S_NULL);
  if (!strcmp(word, "/dev/stdout")) return interp_stream_ref(sh->fd[1]);
  if (!strcmp(word, "/dev/stderr")) return interp_stream_ref(sh->fd[2]);
  if (!strncmp(word, "/dev/fd/", 8) && word[8] >= '0' && word[8] <= '9' &&
      !word[9] && sh->fd[word[8] - '0'])
    return interp_stream_ref(sh->fd[word[8] - '0']);
  buf_init(&p, sh->m);
  interp_abspath(sh, word, &p);
  if (p.err) {
    buf_finish(&p);
    *status = MSB_ENOMEM;
    return NULL;
  }
  rc = vfs_stat(sh->fs, buf_str(&p), 1, &st);
  if (!rc && st.kind == VFS_DIR)
    rc = MSB_EISDIR;
  else if (!rc && !clobber && !append && (sh->opts & SH_O_NOCLOBBER)) {
    interp_errf(sh, "%s: cannot overwrite existing file", word);
    buf_finish(&p);
    *status = 1;
    return NULL;
  } else if (sh->run->sec && !(undo = mem_alloc(sh->m, sizeof *undo)))
    rc = MSB_ENOMEM;
  else {
    if (undo) vfs_undo_begin(sh->fs, buf_str(&p), undo);
    rc = vfs_write(sh->fs, buf_str(&p), "", 0,
                   (append ? VFS_APPEND : 0) | VFS_KEEP_MODE, 0666 & ~sh->umask,
                   NULL);
    if (undo) vfs_undo_mine(sh->fs, undo);
  }
  if (rc) {
    if (undo) vfs_undo_finish(sh->fs, undo);
    mem_free(sh->m, undo);
    buf_finish(&p);
    if (rc == MSB_ENOMEM) {
      *status = rc;
      return NULL;
    }
    interp_errf(sh, "%s: %s", word, interp_errstr(rc));
    *status = 1;
    return NULL;
  }
  s = interp_stream_new(sh, SH_S_FILE);
  if (s) {
    s->path = buf_steal(&p, NULL);
    s->undo = undo;
  } else if (undo) {
    vfs_undo_finish(sh->fs, undo);
    mem_free(sh->m, undo);
  }
  buf_finish(&p);
  if (!s || !s->path) {
    interp_stream_unref(sh, s);
    *status = MSB_ENOMEM;
    return NULL;
  }
  return s;
}

static sh_stream *interp_bytes_stream(shell *sh, const char *s, size_t n) {
  sh_stream *st = interp_stream_new(sh, SH_S_IN);
  if (!st) return NULL;
  if (n) {
    st->data = mem_alloc(sh->m, n);
    if (!st->data) {
      interp_stream_unref(sh, st);
      return NULL;
    }
    memcpy(st->data, s, n);
    st->len = n;
  }
  return st;
}

static void interp_word_text(const ast_word *w, buf *b) {
  const ast_part *p;
  for (p = w ? w->parts : NULL; p; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT: buf_put(b, p->text, p->len); break;
    case AST_P_SQ:
      if (p->flags & AST_PF_BACKSLASH)
        buf_putc(b, '\\');
      else
        buf_putc(b, '\'');
      buf_put(b, p->text, p->len);
      if (!(p->flags & AST_PF_BACKSLASH)) buf_putc(b, '\'');
      break;
    case AST_P_PARAM:
      if (p->param->flags & AST_PE_BRACED)
        buf_printf(b, "${%s}", p->param->name);
      else
        buf_printf(b, "$%s", p->param->name);
      break;
    case AST_P_TILDE:
      buf_putc(b, '~');
      buf_put(b, p->text, p->len);
      break;
    case AST_P_DQ: {
      ast_word tmp;
      memset(&tmp, 0, sizeof tmp);
      tmp.parts = p->parts;
      buf_putc(b, '"');
      interp_word_text(&tmp, b);
      buf_putc(b, '"');
      break;
    }
    default: buf_put(b, p->text, p->len); break;
    }
  }
}

/* Expands a redirection target to exactly one word. */
static int interp_redir_word(shell *sh, ast_word *w, char **out) {
  char **av;
  int ac, rc;
  *out = NULL;
  rc = expand_words(sh, w, &av, &ac);
  if (rc) return rc;
  if (ac != 1) {
    buf t;
    expand_free(sh, av, ac);
    buf_init(&t, sh->m);
    interp_word_text(w, &t);
    interp_errf(sh, "%s: ambiguous redirect", buf_str(&t));
    buf_finish(&t);
    return 1;
  }
  *out = av[0];
  mem_free(sh->m, av);
  return 0;
}

static int interp_parse_fd(const char *s, int *fd, int *move) {
  int v = 0, n = 0;
  *move = 0;
  while (s[n] >= '0' && s[n] <= '9' && n < 4) v = v * 10 + (s[n++] - '0');
  if (!n) return 0;
  if (s[n] == '-' && !s[n + 1])
    *move = 1;
  else if (s[n])
    return 0;
  *fd = v;
  return 1;
}

static int interp_redir(shell *sh, ast_redir *r, interp_saved *sv);

/* {var}>&- and {var}<&-: closes the fd whose number var holds. */
static int interp_redir_var_close(shell *sh, ast_redir *r, interp_saved *sv) {
  ast_redir one = *r;
  const char *val = var_value(sh->vars, r->varname);
  int fd, move;
  if (!val) {
    interp_errf(sh, "%s: ambiguous redirect", r->varname);
    return 1;
  }
  if (!interp_parse_fd(val, &fd, &move) || move)
    return 0; /* bash closes nothing and says nothing */
  one.varname = NULL;
  one.fd = fd;
  return interp_redir(sh, &one, sv);
}

/* {var}>file and the rest: bash opens the lowest free fd from 10 up,
 * stores its number in var and leaves it open after the command. */
static int interp_redir_var(shell *sh, ast_redir *r, interp_saved *sv) {
  ast_redir one = *r;
  char nb[24];
  int fd, rc;
  if (r->op == AST_R_DUPIN || r->op == AST_R_DUPOUT) {
    char *word = NULL;
    int close;
    if ((rc = interp_redir_word(sh, r->target, &word))) return rc;
    close = !strcmp(word, "-");
    mem_free(sh->m, word);
    if (close) return interp_redir_var_close(sh, r, sv);
  }
  for (fd = SH_FD_VAR_BASE; fd < SH_NFD && sh->fd[fd]; fd++) continue;
  if (fd >= SH_NFD) {
    interp_errf(sh, "%s: cannot assign fd to variable", r->varname);
    return 1;
  }
  one.varname = NULL;
  one.fd = fd;
  if ((rc = interp_redir(sh, &one, sv))) return rc;
  expand_fmt_i64(nb, fd);
  rc = builtin_assign(sh, r->varname, nb, 0);
  if (rc) {
    interp_fd_set(sh, fd, NULL);
    if (rc < 0) return rc;
    interp_errf(sh, "%s: cannot assign fd to variable", r->varname);
    return 1;
  }
  /* the command's end restores the saved fds: this one stays open */
  interp_stream_unref(sh, sv->fd[fd]);
  sv->fd[fd] = interp_stream_ref(sh->fd[fd]);
  return 0;
}

/* Applies one redirection. Returns 0, 1 (failed, message printed) or a
 * fatal code. sv holds the fds the command's end restores. */
static int interp_redir(shell *sh, ast_redir *r, interp_saved *sv) {
  int fd = r->fd, st = 0, rc, move, src;
  char *word = NULL;
  sh_stream *s = NULL;
  if (r->varname) return interp_redir_var(sh, r, sv);
  if (fd < 0)
    fd = (r->op == AST_R_IN || r->op == AST_R_RDWR || r->op == AST_R_DUPIN ||
          r->op == AST_R_HERESTR || r->op == AST_R_HEREDOC)
             ? 0
             : 1;
  if (fd >= SH_NFD) {
    interp_errf(sh, "%d: Bad file descriptor", fd);
    return 1;
  }
  switch (r->op) {
  case AST_R_HEREDOC: {
    char *body = NULL;
    if (r->heredoc_quoted) {
      const ast_part *p = r->body ? r->body->parts : NULL;
      buf b;
      buf_init(&b, sh->m);
      for (; p; p = p->next) buf_put(&b, p->text, p->len);
      s = interp_bytes_stream(sh, buf_str(&b), b.len);
      rc = b.err;
      buf_finish(&b);
      if (rc) return rc;
    } else {
      rc = expand_heredoc(sh, r->body, &body);
      if (rc) return rc;
      s = interp_bytes_stream(sh, body, strlen(body));
      mem_free(sh->m, body);
    }
    if (!s) return MSB_ENOMEM;
    interp_fd_set(sh, fd, s);
    return 0;
  }
  case AST_R_HERESTR: {
    char *v = NULL;
    size_t n;
    rc = expand_string(sh, r->target, &v);
    if (rc) return rc;
    n = strlen(v);
    s = interp_stream_new(sh, SH_S_IN);
    if (s && !(s->data = mem_alloc(sh->m, n + 1))) {
      interp_stream_unref(sh, s);
      s = NULL;
    }
    if (!s) {
      mem_free(sh->m, v);
      return MSB_ENOMEM;
    }
    memcpy(s->data, v, n);
    s->data[n] = '\n';
    s->len = n + 1;
    mem_free(sh->m, v);
    interp_fd_set(sh, fd, s);
    return 0;
  }
  default: break;
  }
  rc = interp_redir_word(sh, r->target, &word);
  if (rc) return rc;
  switch (r->op) {
  case AST_R_IN: s = interp_open_in(sh, word, &st); break;
  case AST_R_RDWR: {
    struct vfs_stat vst;
    buf p;
    buf_init(&p, sh->m);
    interp_abspath(sh, word, &p);
    if (!p.err && vfs_stat(sh->fs, buf_str(&p), 1, &vst) == MSB_ENOENT)
      vfs_write(sh->fs, buf_str(&p), "", 0, 0, 0666 & ~sh->umask, NULL);
    buf_finish(&p);
    s = interp_open_in(sh, word, &st);
    break;
  }
  case AST_R_OUT:
  case AST_R_CLOBBER:
  case AST_R_APPEND:
    s = interp_open_out(sh, word, r->op == AST_R_APPEND, r->op == AST_R_CLOBBER,
                        &st);
    break;
  case AST_R_ALL:
  case AST_R_ALL_APPEND:
    s = interp_open_out(sh, word, r->op == AST_R_ALL_APPEND, 0, &st);
    if (s) {
      interp_fd_set(sh, 1, interp_stream_ref(s));
      fd = 2;
    }
    break;
  case AST_R_DUPIN:
  case AST_R_DUPOUT:
    if (!strcmp(word, "-")) {
      interp_fd_set(sh, fd, NULL);
      mem_free(sh->m, word);
      return 0;
    }
    if (!interp_parse_fd(word, &src, &move)) {
      if (r->op == AST_R_DUPOUT && r->fd < 0) {
        s = interp_open_out(sh, word, 0, 0, &st);
        if (s) {
          interp_fd_set(sh, 1, interp_stream_ref(s));
          fd = 2;
        }
        break;
      }
      interp_errf(sh, "%s: ambiguous redirect", word);
      st = 1;
      break;
    }
    if (src >= SH_NFD || !sh->fd[src]) {
      /* bash names the word as written: `$fd: Bad file descriptor' */
      buf t;
      buf_init(&t, sh->m);
      interp_word_text(r->target, &t);
      interp_errf(sh, "%s: Bad file descriptor", buf_str(&t));
      buf_finish(&t);
      st = 1;
      break;
    }
    s = interp_stream_ref(sh->fd[src]);
    if (move && src != fd) interp_fd_set(sh, src, NULL);
    break;
  default: st = 1; break;
  }
  mem_free(sh->m, word);
  if (!s) return st ? st : MSB_ENOMEM;
  interp_fd_set(sh, fd, s);
  return 0;
}

/* Applies a redirection list; on failure the fds are as before. */
static int interp_redirs(shell *sh, ast_redir *r, interp_saved *sv) {
  int rc;
  interp_save_fds(sh, sv);
  for (; r; r = r->next) {
    sh->line = r->line ? r->line : sh->line;
    rc = interp_redir(sh, r, sv);
    if (rc) {
      sh->fail = CMD_FAIL_REDIRECT;
      interp_restore_fds(sh, sv);
      return rc;
    }
  }
  return 0;
}

/* ---- running commands ----------------------------------------------- */

static int interp_cmd_tick(cmd_ctx *c, uint64_t n) {
  return interp_tick((shell *)c->shell, n);
}

static int interp_cmd_run(cmd_ctx *c, int argc, char **argv, const uint8_t *in,
                          size_t in_len, buf *out, buf *err) {
  shell *sh = c->shell;
  interp_saved sv;
  sh_stream *si = interp_bytes_stream(sh, (const char *)in, in_len);
  sh_stream *so = interp_stream_new(sh, SH_S_BUF);
  sh_stream *se = interp_stream_new(sh, SH_S_BUF);
  sh_stream *s1 = sh->fd[1];
  char **saved_env;
  uint64_t ocap;
  int rc = si && so && se ? interp_stack_push(sh, SH_STACK_CMDRUN) : MSB_ENOMEM;
  if (rc) {
    interp_stream_unref(sh, si);
    interp_stream_unref(sh, so);
    interp_stream_unref(sh, se);
    return rc;
  }
  /* env, timeout: the command reads the caller's (maybe cut) stdin and
   * writes into the caller's (maybe pipe) stdout */
  si->cut = c->in_cut && in_len && in + in_len == c->in + c->in_len;
  if (s1 && s1->pipe && s1->ob == out) {
    so->pipe = 1;
    so->cut = s1->cut;
    so->owner = s1->owner;
  }
  so->ob = out;
  se->ob = err;
  interp_save_fds(sh, &sv);
  interp_fd_set(sh, 0, si);
  interp_fd_set(sh, 1, so);
  interp_fd_set(sh, 2, se);
  /* env -i / env NAME=V: the command sees exactly c->envp */
  saved_env = sh->env_override;
  sh->env_override = c->envp;
  ocap = sh->run->step_cap;
  if (c->run_steps) {
    uint64_t cap = sh->run->steps + c->run_steps;
    if (!ocap || cap < ocap) sh->run->step_cap = cap;
  }
  rc = interp_run_argv(sh, argc, argv, 0);
  if (rc == MSB_ELIMIT && sh->run->limit == LIMIT_TIMEOUT &&
      sh->run->step_cap != ocap) {
    /* our own budget ran out: the command is stopped, the caller goes on */
    sh->run->limit = LIMIT_NONE;
    sh->flow = SH_FLOW_NONE;
    c->run_timedout = 1;
    rc = 124;
  }
  sh->run->step_cap = ocap;
  sh->env_override = saved_env;
  if (so->cut && s1 && s1->pipe && s1->ob == out) s1->cut = 1;
  interp_restore_fds(sh, &sv);
  interp_stack_pop(sh, SH_STACK_CMDRUN);
  return rc;
}

/* Delivers a command's output buffer to fd (when not written in place). */
static int interp_deliver(shell *sh, int fd, buf *b) {
  int rc;
  if (b->err) return b->err;
  if (!b->len) return 0;
  rc = interp_write(sh, fd, b->p, b->len);
  if (rc == MSB_ENOMEM) return rc;
  return 0;
}

static char **interp_envp(shell *sh, arena *a, char **extra, int nextra) {
  char **base = sh->env_override ? sh->env_override : var_environ(sh->vars);
  char **e;
  size_t n = 0, i, k = 0;
  int j;
  if (!base) return NULL;
  if (!nextra) return base; /* cached; valid for the whole call */
  while (base[n]) n++;
  e = arena_alloc(a, (n + (size_t)nextra + 1) * sizeof *e);
  if (!e) return NULL;
  for (i = 0; i < n; i++) {
    size_t nl = strcspn(base[i], "=");
    int over = 0;
    for (j = 0; j < nextra; j++)
      if (!strncmp(extra[j], base[i], nl + 1)) over = 1;
    if (!over) e[k++] = base[i];
  }
  for (j = 0; j < nextra; j++) e[k++] = extra[j];
  e[k] = NULL;
  return e;
}

/* The code a command name runs: a builtin's function or a table
 * command's. "[[" is `test` (one conditional-expression evaluator, a
 * keyword in bash), and a script file is run by `bash`. */
static void interp_impl(const char *name, const sh_builtin **b,
                        const cmd_desc **d) {
  if (!strcmp(name, "[[")) name = "test";
  *b = builtin_find(name);
  *d = *b ? NULL : cmd_find(name);
}

/* Whether two command names are one implementation (policy_same_fn): a
 * rule for one holds for the other, so a synonym (`.` for `source`,
 * `egrep` for `grep`, `typeset` for `declare`) is no way around it. */
static int interp_same_impl(const char *a, const char *b) {
  const sh_builtin *ba, *bb;
  const cmd_desc *da, *db;
  interp_impl(a, &ba, &da);
  interp_impl(b, &bb, &db);
  if (ba && bb) return ba->fn == bb->fn;
  return da && db && da->fn == db->fn;
}

/* Whether the host's policy denies running name (shown as typed); a
 * denied command fails like a missing one, with its own message and
 * status 126. Rules hold by implementation (interp_same_impl). Returns
 * 126 when denied, 0 when allowed, or MSB_ENOMEM. */
static int interp_denied(shell *sh, const char *shown, const char *name,
                         int builtin) {
  policy *p = vfs_get_policy(sh->fs);
  int rc;
  if (!p || policy_command_allowed(p, name, builtin, interp_same_impl))
    return 0;
  p->denied_cmds++;
  rc = interp_errf(sh, "%s: command denied by policy", shown);
  return rc == MSB_ENOMEM ? rc : 126;
}

/* The message GNU tools print when writing their stdout fails (most say
 * "NAME: write error: TEXT"; a few word it their own way and exit with
 * their trouble status). Returns the exit status to use. */
static int interp_write_error(buf *b, const cmd_desc *d, const char *name,
                              const char *text) {
  static const struct {
    const char *name, *msg, *more; /* msg: "%s" is the error text */
    int status;
  } odd[] = {
      {"diff", "standard output: %s", NULL, 2},
      {"du", "write error", NULL, 1},
      {"env", "write error: %s", NULL, 125},
      {"find", "'standard output': %s", "write error", 1},
      {"md5sum", "write error", NULL, 1},
      {"sed", "couldn't flush stdout: %s", NULL, 4},
      {"sha1sum", "write error", NULL, 1},
      {"sha256sum", "write error", NULL, 1},
      {"sha512sum", "write error", NULL, 1},
      {"sort", "fflush failed: 'standard output': %s", "write error", 2},
      {"wc", "write error", NULL, 1},
      {"xxd", "%s", NULL, 3},
      {"yes", "standard output: %s", NULL, 1},
  };
  size_t i;
  if (d->flags & CMD_BUILTIN) {
    buf_printf(b, "bash: %s: write error: %s\n", name, text);
    return 1;
  }
  for (i = 0; i < sizeof odd / sizeof odd[0]; i++) {
    const char *pct;
    if (strcmp(name, odd[i].name)) continue;
    pct = strstr(odd[i].msg, "%s");
    buf_printf(b, "%s: ", name);
    if (pct) {
      buf_put(b, odd[i].msg, (size_t)(pct - odd[i].msg));
      buf_puts(b, text);
      buf_puts(b, pct + 2);
    } else
      buf_puts(b, odd[i].msg);
    buf_putc(b, '\n');
    if (odd[i].more) buf_printf(b, "%s: %s\n", name, odd[i].more);
    return odd[i].status;
  }
  buf_printf(b, "%s: write error: %s\n", name, text);
  return 1;
}

/* What a command read of stdin is gone for the next reader of the stream,
 * as with a real pipe or file offset; how far it really read is the
 * stream's reach. */
static void interp_stdin_used(shell *sh, const cmd_ctx *c) {
  sh_stream *in = sh->fd[0];
  size_t at;
  if (!in || in->kind != SH_S_IN) return;
  at = in->pos;
  interp_consume(sh, 0, c->in_used);
  if (c->in_eof)
    in->reach = in->len;
  else if (c->in_used)
    in->reach = at + c->in_stop;
}

/* Whether a command stopped by its output cap was writing more into the
 * file on stdout than a file may hold: that is the file's limit, which
 * scripts see as a failed write (delivering the output fails with "File
 * too large", and the script goes on), not the string limit stopping the
 * run. Output bound for a file is capped at one byte past the file limit
 * (not the string limit: it never becomes a string), so reaching the cap
 * means the file limit was passed. */
static int interp_file_full(shell *sh, int rc, const sh_stream *s1) {
  return rc == MSB_ELIMIT && !sh->run->limit && s1 && s1->kind == SH_S_FILE;
}

/* The pause a paced run allows a command marked CMD_PAUSES (cmd_pace):
 * only where the run itself may pause, so not inside another command. */
static const cmd_pace *interp_cmd_pace(shell *sh, const cmd_desc *d,
                                       cmd_pace *cp) {
  sh_run *r = sh->run;
  if (!(d->flags & CMD_PAUSES) || !r->pace || !r->pace->co || r->no_yield)
    return NULL;
  cp->co = r->pace->co;
  cp->steps = &r->steps;
  cp->until = &r->pace->until;
  cp->at = &r->pace->steps;
  return cp;
}

/* Runs a table command with the current fds. extra: "N=V" temp env. */
static int interp_table_cmd(shell *sh, const cmd_desc *d, int argc, char **argv,
                            char **extra, int nextra) {
  cmd_ctx c;
  cmd_pace cp;
  arena a;
  buf tout, terr, *out, *err;
  sh_stream *s1 = sh->fd[1], *s2 = sh->fd[2];
  int rc, r2, werr, full, filled;
  size_t out0;
  if ((rc = interp_denied(sh, argv[0], d->name, (d->flags & CMD_BUILTIN) != 0)))
    return rc;
  memset(&c, 0, sizeof c);
  arena_init(&a, sh->m);
  buf_init(&tout, sh->m);
  buf_init(&terr, sh->m);
  out = (s1 && s1->kind == SH_S_BUF) ? s1->ob : &tout;
  if ((d->flags & CMD_BUILTIN) && s1 == s2) out = &tout;
  if (d->flags & CMD_BUILTIN)
    err = &terr; /* prefixed below, like bash */
  else if (s2 == s1)
    err = out;
  else
    err = (s2 && s2->kind == SH_S_BUF) ? s2->ob : &terr;
  c.m = sh->m;
  c.a = &a;
  c.fs = sh->fs;
  c.lim = sh->lim;
  c.cwd = sh->cwd;
  c.argc = argc;
  c.argv = argv;
  interp_input(sh, 0, &c.in, &c.in_len);
  c.in_regular = sh->fd[0] && sh->fd[0]->regular;
  c.in_cut = sh->fd[0] && sh->fd[0]->kind == SH_S_IN && sh->fd[0]->cut;
  c.in_err = sh->fd[0] ? sh->fd[0]->rderr : CMD_EBADF; /* <&- */
  c.umask = &sh->umask;
  c.out = out;
  c.err = err;
  c.envp = interp_envp(sh, &a, extra, nextra);
  c.rng = &sh->rng;
  c.clock_ns = sh->clock_ns;
  c.out_max =
      sh->lim->max_string_bytes ? sh->lim->max_string_bytes : (uint64_t)-1;
  if (out == &tout && s1 && s1->kind == SH_S_FILE)
    c.out_max = sh->lim->max_file_bytes + 1; /* see interp_file_full */
  c.shell = sh;
  c.run = interp_cmd_run;
  c.tick = interp_cmd_tick;
  c.stack_floor = sh->run->pace && sh->run->pace->co
                      ? coro_stack_floor(sh->run->pace->co)
                      : 0;
  c.pace = interp_cmd_pace(sh, d, &cp);
  out0 = out->len;
  if (!c.envp)
    rc = MSB_ENOMEM;
  else {
    sh->run->no_yield++; /* see interp_pace */
    rc = cmd_call(d, &c);
    sh->run->no_yield--;
  }
  if (rc >= 0) cmd_stdin_close_err(&c, d->name);
  full = interp_file_full(sh, rc, out == &tout ? s1 : NULL);
  if (full) rc = 1;
  sh->fail = full ? CMD_FAIL_REDIRECT : rc > 0 ? c.fail : NULL;
  filled =
      s1 && s1->pipe && out == s1->ob && out->len >= sh->lim->max_string_bytes;
  if (c.in_cut && c.in_eof && rc != MSB_ENOMEM &&
      !(filled && (d->flags & CMD_PREFIX))) {
    /* What it made of a stream cut short is not output, even when that
     * output filled a pipe in turn (sort's would be wrong), unless its
     * output for a prefix is a prefix of the whole (cat). */
    buf_truncate(out, out0);
    rc = interp_pipe_overrun(sh);
  } else if (filled && rc != MSB_ENOMEM && !(rc < 0 && sh->run->limit) &&
             (rc == 141 || rc == MSB_ELIMIT || (c.in_cut && c.in_eof))) {
    /* stopped at the pipe's capacity (see sh_stream), having more to
     * write: from what it read of a cut pipe too, as it would block on
     * the full pipe before reaching that pipe's end */
    if (d->flags & CMD_BUILTIN)
      interp_sigpipe(sh, s1);
    else
      s1->cut = 1; /* a command dies alone, not the shell running it */
    rc = 141;
  }
  interp_stdin_used(sh, &c);
  /* output written in place is paid here (the rest in interp_write); a
   * command that read past the limit (cmd_input) stops here too */
  if (interp_charge_bytes(
          sh, out != &tout && out->len > out0 ? out->len - out0 : 0) &&
      rc >= 0)
    rc = MSB_ELIMIT;
  arena_finish(&a);
  if (out == &sh->run->out || err == &sh->run->err || out == &sh->run->err ||
      err == &sh->run->out)
    interp_trim_output(sh);
  if (!s1 && tout.len && (d->flags & CMD_BUILTIN)) {
    /* stdout closed (>&-): bash's builtins report a write error */
    buf_printf(&terr, "%s: write error: Bad file descriptor\n", argv[0]);
    buf_clear(&tout);
    if (rc == 0) rc = 1;
  }
  sh->run->write_err = 0;
  r2 =
      (s1 == s2 && (d->flags & CMD_BUILTIN)) ? 0 : interp_deliver(sh, 1, &tout);
  werr = sh->run->write_err;
  if (full && !werr) werr = MSB_EFBIG; /* what it kept was not written */
  if (!r2 && (d->flags & CMD_BUILTIN) && terr.len && !terr.err) {
    /* builtins' diagnostics carry the shell's "bash: line N: " prefix */
    buf pre;
    size_t i = 0;
    buf_init(&pre, sh->m);
    while (i < terr.len) {
      const char *nl = memchr(terr.p + i, '\n', terr.len - i);
      size_t e = nl ? (size_t)(nl - terr.p) + 1 : terr.len;
      size_t an = strlen(argv[0]);
      /* bash prints a builtin's usage line without the prefix */
      if (!(e - i > an + 8 && !memcmp(terr.p + i, argv[0], an) &&
            !memcmp(terr.p + i + an, ": usage: ", 9)))
        buf_printf(&pre, "%s: line %d: ", interp_name(sh), sh->line);
      buf_put(&pre, terr.p + i, e - i);
      i = e;
    }
    r2 = interp_deliver(sh, 2, &pre);
    buf_finish(&pre);
  } else if (!r2)
    r2 = interp_deliver(sh, 2, &terr);
  if (!r2 && s1 == s2 && (d->flags & CMD_BUILTIN)) {
    sh->run->write_err = 0;
    r2 = interp_deliver(sh, 1, &tout); /* 2>&1: diagnostics came first */
    if (!werr) werr = sh->run->write_err;
  }
  buf_finish(&tout);
  buf_finish(&terr);
  sh->run->write_err = 0; /* reported here, not again by a caller */
  if (!r2 && werr) {
    /* stdout is a file the write to which failed (a quota, or a secret
     * value): report it as bash and GNU tools report a write error */
    buf b;
    int st;
    buf_init(&b, sh->m);
    st = interp_write_error(&b, d, argv[0], msb_strerror(werr));
    r2 = b.err ? b.err : interp_write(sh, 2, b.p, b.len);
    if (r2 != MSB_ENOMEM) r2 = 0;
    buf_finish(&b);
    if (rc >= 0 && !(rc & 255)) rc = st;
  }
  if (rc < 0) {
    /* A stage whose output outgrows the pipe cap is not quietly cut short
     * (the next stage would see a wrong, truncated stream): the run stops
     * with the named limit. Endless generators (yes) stop by themselves
     * with SIGPIPE's status instead. */
    if (rc == MSB_ELIMIT || rc == MSB_ENOMEM) {
      if (rc == MSB_ELIMIT && !sh->run->limit)
        sh->run->limit = LIMIT_MAX_STRING_BYTES;
      return rc;
    } else
      rc = 1;
  }
  if (r2) return r2;
  return rc & 255;
}

/* Runs a table command directly (printf -v, builtin). */
int interp_cmd(shell *sh, const cmd_desc *d, int argc, char **argv) {
  return interp_table_cmd(sh, d, argc, argv, NULL, 0);
}

/* Pushes a call-stack frame (name, source file) at the current line. */
int interp_push_frame(shell *sh, const char *name, const char *src) {
  if (sh->nfstack == sh->fstackcap) {
    int nc = sh->fstackcap ? sh->fstackcap * 2 : 16;
    sh_frame *ns = mem_realloc(sh->m, sh->fstack, (size_t)nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    sh->fstack = ns;
    sh->fstackcap = nc;
  }
  sh->fstack[sh->nfstack].name = name;
  sh->fstack[sh->nfstack].src = src;
  sh->fstack[sh->nfstack].line = sh->line;
  sh->nfstack++;
  return 0;
}

/* Runs a function with argv as positional parameters. */
static int interp_call(shell *sh, sh_func *f, int argc, char **argv) {
  char **opos = sh->pos;
  int onpos = sh->npos, rc, ocall;
  const ast_node *ocmd = sh->cur_cmd;
  const char *ofn = sh->funcname;
  ast_tree *t = f->tree;
  ast_node *body = f->body;
  uint32_t maxd = sh->lim->max_call_depth;
  if (maxd && (uint32_t)sh->depth >= maxd) {
    interp_errf(sh, "%s: maximum function nesting level exceeded (%u)", argv[0],
                (unsigned)maxd);
    sh->flow = SH_FLOW_EXIT;
    if (!sh->run->limit) sh->run->limit = LIMIT_MAX_CALL_DEPTH;
    return MSB_ELIMIT;
  }
  sh->pos = NULL;
  sh->npos = 0;
  if (interp_set_pos(sh, argv + 1, argc - 1)) {
    sh->pos = opos;
    sh->npos = onpos;
    return MSB_ENOMEM;
  }
  if (interp_push_frame(sh, f->name,
                        t && t->src_name ? t->src_name : "environment")) {
    interp_free_pos(sh);
    sh->pos = opos;
    sh->npos = onpos;
    return MSB_ENOMEM;
  }
  if (t) ast_tree_retain(t);
  sh->funcname = f->name;
  var_push_scope(sh->vars);
  sh->funcs_active++;
  ocall = sh->cur_call;
  sh->cur_call = ++sh->call_seq;
  sh->depth++;
  rc = interp_stack_push(sh, SH_STACK_CALL);
  if (!rc) {
    rc = interp_node(sh, body);
    interp_stack_pop(sh, SH_STACK_CALL);
  }
  /* the call that set RETURN runs it; the others only under set -T */
  if (rc >= 0 && sh->trap_return &&
      (sh->trap_return_level == sh->cur_call || (sh->opts & SH_O_FUNCTRACE))) {
    int st = sh->flow == SH_FLOW_RETURN ? sh->status : rc, ofl = sh->flow;
    int r2;
    sh->flow = SH_FLOW_NONE;
    sh->status = st;
    r2 = interp_run_trap(sh, sh->trap_return);
    if (r2 < 0)
      rc = r2;
    else if (sh->flow == SH_FLOW_NONE) {
      sh->flow = ofl;
      sh->status = st;
    }
  }
  sh->depth--;
  sh->funcs_active--;
  sh->cur_call = ocall;
  {
    /* $BASH_COMMAND stays the body's last command unless the body went
     * (unset -f or a new definition released its tree) */
    sh_func *now = interp_func_get(sh, argv[0]);
    if (!now || now->body != body) sh->cur_cmd = ocmd;
  }
  var_pop_scope(sh->vars);
  if (sh->flow == SH_FLOW_RETURN) {
    sh->flow = SH_FLOW_NONE;
    if (rc >= 0) rc = sh->status;
  }
  sh->funcname = ofn;
  sh->nfstack--;
  interp_free_pos(sh);
  sh->pos = opos;
  sh->npos = onpos;
  if (t) ast_tree_release(t);
  return rc;
}

static int interp_is_script_shell(const char *s, size_t n) {
  static const char *const ok[] = {
      "/bin/bash", "/usr/bin/bash",      "/bin/sh", "/usr/bin/sh", "bash",
      "sh",        "/usr/local/bin/bash"};
  size_t i;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strlen(ok[i]) == n && !memcmp(ok[i], s, n)) return 1;
  return 0;
}

/* Runs a path like ./f.sh or /usr/bin/NAME. */
static int interp_run_path(shell *sh, int argc, char **argv) {
  buf p;
  struct vfs_stat st;
  int rc;
  const uint8_t *data;
  size_t len;
  const char *name = argv[0], *base = strrchr(argv[0], '/') + 1;
  buf_init(&p, sh->m);
  interp_abspath(sh, name, &p);
  if (p.err) {
    buf_finish(&p);
    return MSB_ENOMEM;
  }
  rc = vfs_stat(sh->fs, buf_str(&p), 1, &st);
  if (rc) {
    const char *ap = buf_str(&p);
    const cmd_desc *d;
    if ((!strncmp(ap, "/usr/bin/", 9) || !strncmp(ap, "/bin/", 5) ||
         !strncmp(ap, "/usr/local/bin/", 15) || !strncmp(ap, "/sbin/", 6) ||
         !strncmp(ap, "/usr/sbin/", 10)) &&
        (d = cmd_find(base))) {
      buf_finish(&p);
      return interp_table_cmd(sh, d, argc, argv, NULL, 0);
    }
    if ((!strncmp(ap, "/usr/bin/", 9) || !strncmp(ap, "/bin/", 5)) &&
        (builtin_find(base))) {
      buf_finish(&p);
      /* not interp_run_argv: argv[0] has a slash and would come back here */
      return interp_builtin(sh, builtin_find(base), argc, argv);
    }
    buf_finish(&p);
    interp_errf(sh, "%s: %s", name, interp_errstr(rc));
    sh->fail = rc == MSB_ENOENT ? CMD_FAIL_NOT_FOUND : CMD_FAIL_NOT_EXEC;
    return rc == MSB_ENOENT ? 127 : 126;
  }
  if (st.kind == VFS_DIR) {
    buf_finish(&p);
    interp_errf(sh, "%s: Is a directory", name);
    sh->fail = CMD_FAIL_NOT_EXEC;
    return 126;
  }
  if (st.prog && (st.mode & 0111)) {
    /* a /usr/bin file, or a copy or link of one: the command it is */
    const char *prog = cmd_prog_name(st.prog);
    const cmd_desc *d = prog ? cmd_find(prog) : NULL;
    buf_finish(&p);
    if (d) return interp_table_cmd(sh, d, argc, argv, NULL, 0);
    if (prog && builtin_find(prog))
      return interp_builtin(sh, builtin_find(prog), argc, argv);
    return MSB_EINVAL; /* cannot happen: numbers come from the table */
  }
  if (!(st.mode & 0111)) {
    buf_finish(&p);
    interp_errf(sh, "%s: Permission denied", name);
    sh->fail = CMD_FAIL_NOT_EXEC;
    return 126;
  }
  rc = vfs_read(sh->fs, buf_str(&p), &data, &len);
  buf_finish(&p);
  if (rc) {
    interp_errf(sh, "%s: %s", name, interp_errstr(rc));
    sh->fail = CMD_FAIL_NOT_EXEC;
    return 126;
  }
  if (len >= 2 && data[0] == '#' && data[1] == '!') {
    size_t e = 2, s0, s1;
    while (e < len && data[e] != '\n') e++;
    s0 = 2;
    while (s0 < e && (data[s0] == ' ' || data[s0] == '\t')) s0++;
    s1 = s0;
    while (s1 < e && data[s1] != ' ' && data[s1] != '\t' && data[s1] != '\r')
      s1++;
    if (!interp_is_script_shell((const char *)data + s0, s1 - s0)) {
      int isenv = (s1 - s0 == 12 && !memcmp(data + s0, "/usr/bin/env", 12)) ||
                  (s1 - s0 == 8 && !memcmp(data + s0, "/bin/env", 8));
      size_t a0 = s1, a1;
      while (a0 < e && (data[a0] == ' ' || data[a0] == '\t')) a0++;
      a1 = a0;
      while (a1 < e && data[a1] != ' ' && data[a1] != '\t' && data[a1] != '\r')
        a1++;
      if (!isenv || !interp_is_script_shell((const char *)data + a0, a1 - a0)) {
        interp_errf(sh,
                    "%s: %.*s: bad interpreter: No such file or "
                    "directory",
                    name, (int)(s1 - s0), (const char *)data + s0);
        sh->fail = CMD_FAIL_NOT_EXEC;
        return 126;
      }
    }
  }
  /* a script is bash running a file: denying bash denies it too */
  if ((rc = interp_denied(sh, name, "bash", 1))) return rc;
  {
    /* copy: the script may rewrite itself while running */
    char *copy = mem_strndup(sh->m, (const char *)data, len);
    if (!copy) return MSB_ENOMEM;
    rc = interp_run_script(sh, name, copy, len, argc, argv, 0);
    mem_free(sh->m, copy);
  }
  return rc;
}

/* Runs a shell builtin unless the policy denies it. Its stdout may be a
 * file the write to which failed (a quota, or a secret value): reported as
 * bash does, "bash: NAME: write error: ...", status 1. */
int interp_builtin(shell *sh, const sh_builtin *b, int argc, char **argv) {
  int rc, werr;
  if ((rc = interp_denied(sh, argv[0], b->name, 1))) return rc;
  sh->run->write_err = 0;
  rc = builtin_run(sh, b, argc, argv);
  werr = sh->run->write_err;
  sh->run->write_err = 0;
  if (werr && rc >= 0) {
    buf m;
    int r2;
    buf_init(&m, sh->m);
    buf_printf(&m, "bash: %s: write error: %s\n", argv[0], msb_strerror(werr));
    r2 = m.err ? m.err : interp_write(sh, 2, m.p, m.len);
    buf_finish(&m);
    if (r2 == MSB_ENOMEM) return r2;
    if (!rc) rc = 1;
  }
  return rc;
}

/* Runs argv through functions, builtins, the table and paths. */
int interp_run_argv(shell *sh, int argc, char **argv, int no_funcs) {
  const sh_builtin *b;
  const cmd_desc *d;
  sh_func *f;
  if (argc <= 0) return 0;
  if (strchr(argv[0], '/')) return interp_run_path(sh, argc, argv);
  if (!no_funcs && (f = interp_func_get(sh, argv[0])))
    return interp_call(sh, f, argc, argv);
  if ((b = builtin_find(argv[0]))) return interp_builtin(sh, b, argc, argv);
  if ((d = cmd_find(argv[0])))
    return interp_table_cmd(sh, d, argc, argv, NULL, 0);
  {
    /* scripts the user put in a $PATH directory */
    const char *path = var_value(sh->vars, "PATH");
    while (path && *path) {
      const char *e = strchr(path, ':');
      size_t n = e ? (size_t)(e - path) : strlen(path);
      if (n && path[0] == '/') {
        buf full;
        struct vfs_stat st;
        int ok;
        buf_init(&full, sh->m);
        buf_put(&full, path, n);
        buf_putc(&full, '/');
        buf_puts(&full, argv[0]);
        ok = !full.err && !vfs_stat(sh->fs, buf_str(&full), 1, &st) &&
             st.kind == VFS_FILE && (st.mode & 0111);
        if (ok) {
          char *a0 = argv[0];
          int rc;
          argv[0] = (char *)buf_str(&full);
          rc = interp_run_path(sh, argc, argv);
          argv[0] = a0;
          buf_finish(&full);
          return rc;
        }
        buf_finish(&full);
      }
      path = e ? e + 1 : NULL;
    }
  }
  {
    /* a name the policy denies says so even when nothing provides it */
    int rc = interp_denied(sh, argv[0], argv[0], 1);
    if (rc) return rc;
  }
  interp_errf(sh, "%s: command not found", argv[0]);
  sh->fail = CMD_FAIL_NOT_FOUND;
  return 127;
}

/* ---- xtrace --------------------------------------------------------- */

static int interp_xtrace(shell *sh, char **av, int ac, char **as, int nas) {
  buf b;
  int i, rc;
  buf_init(&b, sh->m);
  interp_ps4(sh, &b);
  for (i = 0; i < nas; i++) {
    const char *eq = strchr(as[i], '=');
    if (i) buf_putc(&b, ' ');
    buf_put(&b, as[i], (size_t)(eq - as[i]) + 1);
    expand_quote(&b, eq + 1, 0);
  }
  for (i = 0; i < ac; i++) {
    if (i || nas) buf_putc(&b, ' ');
    expand_quote(&b, av[i], 0);
  }
  buf_putc(&b, '\n');
  rc = b.err ? b.err : interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
  return rc == MSB_ENOMEM ? rc : 0;
}

/* ---- assignments ---------------------------------------------------- */

typedef struct interp_aval {
  char *key; /* assoc key, or NULL */
  int64_t idx; /* explicit index (has_idx) */
  int has_idx, append;
  char *val;
} interp_aval;

static void interp_avals_free(shell *sh, interp_aval *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    mem_free(sh->m, v[i].key);
    mem_free(sh->m, v[i].val);
  }
  mem_free(sh->m, v);
}

static int interp_aval_push(shell *sh, interp_aval **v, size_t *n, size_t *cap,
                            interp_aval x) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    interp_aval *nv = mem_realloc(sh->m, *v, nc * sizeof *nv);
    if (!nv) {
      mem_free(sh->m, x.key);
      mem_free(sh->m, x.val);
      return MSB_ENOMEM;
    }
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = x;
  return 0;
}

static int interp_int_value(shell *sh, var *v, char **val) {
  int64_t iv;
  char nb[24];
  int rc;
  if (!(v->attr & VAR_INTEGER)) return 0;
  rc = expand_arith_text(sh, *val, strlen(*val), &iv, NULL);
  if (rc) return rc;
  expand_fmt_i64(nb, iv);
  mem_free(sh->m, *val);
  *val = mem_strdup(sh->m, nb);
  return *val ? 0 : MSB_ENOMEM;
}

/* name=(...): every element is expanded before the array changes, so
 * a=("${a[@]:1}") sees the old values. */
static int interp_assign_array(shell *sh, ast_assign *a, unsigned fl) {
  var *v;
  ast_elem *e;
  int64_t next = 0;
  int rc = 0, assoc;
  interp_aval *vals = NULL;
  size_t nv = 0, cap = 0, i;
  v = var_get(sh->vars, a->name, NULL);
  if (v && (v->attr & VAR_READONLY)) {
    interp_errf(sh, "%s: readonly variable", a->name);
    return 1;
  }
  assoc = v && (v->attr & VAR_ASSOC);
  for (e = a->elems; e && !rc; e = e->next) {
    interp_aval x;
    memset(&x, 0, sizeof x);
    x.append = e->append;
    if (e->index) {
      if (assoc)
        rc = expand_string(sh, e->index, &x.key);
      else {
        rc = expand_arith(sh, e->index, &x.idx, NULL);
        x.has_idx = 1;
      }
      if (!rc) rc = expand_string(sh, e->value, &x.val);
      if (!rc)
        rc = interp_aval_push(sh, &vals, &nv, &cap, x);
      else {
        mem_free(sh->m, x.key);
        mem_free(sh->m, x.val);
      }
    } else {
      char **av;
      int ac, k;
      ast_word one = *e->value;
      one.next = NULL;
      if (assoc) {
        rc = expand_string(sh, e->value, &x.val);
        if (rc) break;
        interp_errf(sh,
                    "%s: %s: must use subscript when assigning "
                    "associative array",
                    a->name, x.val);
        mem_free(sh->m, x.val);
        continue;
      }
      rc = expand_words(sh, &one, &av, &ac);
      if (rc) break;
      for (k = 0; k < ac && !rc; k++) {
        interp_aval y;
        memset(&y, 0, sizeof y);
        y.val = av[k];
        av[k] = NULL;
        rc = interp_aval_push(sh, &vals, &nv, &cap, y);
      }
      expand_free(sh, av, ac);
    }
    if (!rc && sh->lim->max_array_items &&
        (uint64_t)nv > sh->lim->max_array_items) {
      if (!sh->run->limit) sh->run->limit = LIMIT_MAX_ARRAY_ITEMS;
      rc = MSB_ELIMIT;
    }
  }
  if (rc) {
    interp_avals_free(sh, vals, nv);
    return rc;
  }
  v = (fl & VS_GLOBAL) ? var_bind(sh->vars, a->name, VS_GLOBAL)
                       : var_bind(sh->vars, a->name, 0);
  if (!v) {
    interp_avals_free(sh, vals, nv);
    return MSB_ENOMEM;
  }
  if (!a->append)
    var_make_array(sh->vars, v, assoc);
  else if (!(v->attr & (VAR_ARRAY | VAR_ASSOC))) {
    char *old = v->val ? mem_strdup(sh->m, v->val) : NULL;
    var_make_array(sh->vars, v, 0);
    if (old) {
      var_set_index(sh->vars, a->name, 0, old, 0);
      mem_free(sh->m, old);
    }
  }
  if (!assoc) next = var_index_end(v);
  for (i = 0; i < nv && !rc; i++) {
    interp_aval *x = &vals[i];
    rc = interp_int_value(sh, v, &x->val);
    if (rc) break;
    if (assoc) {
      rc = var_set_key(sh->vars, v->name, x->key ? x->key : "", x->val,
                       x->append ? VS_APPEND : 0);
      continue;
    }
    if (x->has_idx) {
      int64_t ix = x->idx;
      if (ix < 0) ix += var_index_end(v);
      if (ix < 0) {
        interp_errf(sh, "%s[%lld]: bad array subscript", a->name,
                    (long long)x->idx);
        continue;
      }
      next = ix;
    }
    rc = var_set_index(sh->vars, v->name, next++, x->val,
                       x->append ? VS_APPEND : 0);
  }
  interp_avals_free(sh, vals, nv);
  if (rc > 0) rc = 1;
  if (!rc && (sh->opts & SH_O_ALLEXPORT)) v->attr |= VAR_EXPORT;
  return rc;
}

int interp_assign_element(shell *sh, const char *ref, const char *val,
                          unsigned fl) {
  size_t bl = strcspn(ref, "["), il = strlen(ref) - bl - 2;
  char *base = mem_strndup(sh->m, ref, bl);
  char *idx = mem_strndup(sh->m, ref + bl + 1, il);
  var *v = base ? var_get(sh->vars, base, NULL) : NULL;
  int64_t ix = 0;
  int rc = base && idx ? 0 : MSB_ENOMEM;
  if (!rc && v && (v->attr & VAR_READONLY)) rc = VAR_ERO;
  if (!rc && (!strcmp(idx, "@") || !strcmp(idx, "*"))) {
    interp_errf(sh, "%s: bad array subscript", ref);
    rc = 1;
  } else if (!rc && v && (v->attr & VAR_ASSOC))
    rc = var_set_key(sh->vars, base, idx, val, fl & VS_APPEND);
  else if (!rc && !(rc = expand_arith_text(sh, idx, il, &ix, NULL))) {
    if (ix < 0) ix += v ? var_index_end(v) : 0;
    if (ix < 0) {
      interp_errf(sh, "%s: bad array subscript", ref);
      rc = 1;
    } else
      rc = var_set_index(sh->vars, base, ix, val, fl & VS_APPEND);
  }
  if (rc == VAR_ERO) {
    interp_errf(sh, "%s: readonly variable", base);
    rc = 1;
  }
  mem_free(sh->m, base);
  mem_free(sh->m, idx);
  return rc;
}

int interp_set_nameref(shell *sh, var *v, const char *target, const char *cmd) {
  const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
  char *nv;
  switch (var_nameref_check(v->name, target)) {
  case VAR_EBADNAME:
    interp_errf(sh,
                *target ? "%s%s`%s': invalid variable name for name reference"
                        : "%s%s`%s': not a valid identifier",
                pre, sep, target);
    return 1;
  case VAR_ESELF:
    if (v->level > 0) { /* a local may name the global it hides */
      interp_errf(sh, "%s%swarning: %s: circular name reference", pre, sep,
                  v->name);
      break;
    }
    interp_errf(sh, "%s%s%s: nameref variable self references not allowed", pre,
                sep, v->name);
    return 1;
  default: break;
  }
  if (!(nv = mem_strdup(sh->m, target))) return MSB_ENOMEM;
  mem_free(sh->m, v->val);
  v->val = nv;
  v->attr &= ~VAR_NOVALUE;
  return 0;
}

/* Performs one assignment word. fl: VS_GLOBAL etc. */
int interp_assign(shell *sh, ast_assign *a, unsigned fl) {
  char *val = NULL;
  int rc;
  if (a->is_array) return interp_assign_array(sh, a, fl);
  rc = expand_string(sh, a->value, &val);
  if (rc) return rc;
  if (a->index) {
    var *v = var_get(sh->vars, a->name, NULL);
    if (v && (v->attr & VAR_READONLY)) {
      interp_errf(sh, "%s: readonly variable", a->name);
      mem_free(sh->m, val);
      return 1;
    }
    if (v && (v->attr & VAR_ASSOC)) {
      char *k = NULL;
      rc = expand_string(sh, a->index, &k);
      if (!rc && !*k) {
        buf t;
        buf_init(&t, sh->m);
        interp_word_text(a->index, &t);
        interp_errf(sh, "%s[%s]: bad array subscript", a->name, buf_str(&t));
        buf_finish(&t);
        mem_free(sh->m, k);
        mem_free(sh->m, val);
        return 1;
      }
      if (!rc) {
        if (v->attr & VAR_INTEGER) {
          int64_t iv;
          char nb[24];
          rc = expand_arith_text(sh, val, strlen(val), &iv, NULL);
          if (!rc) {
            expand_fmt_i64(nb, iv);
            rc = var_set_key(sh->vars, a->name, k, nb, 0);
          }
        } else
          rc =
              var_set_key(sh->vars, a->name, k, val, a->append ? VS_APPEND : 0);
      }
      mem_free(sh->m, k);
    } else {
      int64_t ix;
      rc = expand_arith(sh, a->index, &ix, NULL);
      if (!rc && ix < 0) {
        int64_t end = v ? var_index_end(v) : 0;
        if (ix + end < 0) {
          buf t;
          buf_init(&t, sh->m);
          interp_word_text(a->index, &t);
          interp_errf(sh, "%s[%s]: bad array subscript", a->name, buf_str(&t));
          buf_finish(&t);
          mem_free(sh->m, val);
          return 1; /* not VAR_ERO's message below */
        } else
          ix += end;
      }
      if (!rc) {
        if (v && (v->attr & VAR_INTEGER)) {
          int64_t iv;
          char nb[24];
          rc = expand_arith_text(sh, val, strlen(val), &iv, NULL);
          if (!rc && a->append) {
            const char *o = var_index_get(v, ix);
            int64_t ov = 0;
            if (o) expand_arith_text(sh, o, strlen(o), &ov, NULL);
            iv = (int64_t)((uint64_t)iv + (uint64_t)ov);
          }
          if (!rc) {
            expand_fmt_i64(nb, iv);
            rc = var_set_index(sh->vars, a->name, ix, nb, 0);
          }
        } else
          rc = var_set_index(sh->vars, a->name, ix, val,
                             a->append ? VS_APPEND : 0);
      }
    }
    mem_free(sh->m, val);
    if (rc == VAR_ERO) {
      interp_errf(sh, "%s: readonly variable", a->name);
      return 1;
    }
    if (!rc && (sh->opts & SH_O_ALLEXPORT)) {
      var *v2 = var_get(sh->vars, a->name, NULL);
      if (v2) v2->attr |= VAR_EXPORT;
    }
    return rc;
  }
  rc = builtin_assign(sh, a->name, val, (a->append ? VS_APPEND : 0) | fl);
  mem_free(sh->m, val);
  return rc;
}

/* ---- simple commands ------------------------------------------------ */

/* Expands the words of a declaration builtin (declare, local, ...): an
 * assignment-shaped argument is expanded without splitting or globbing,
 * and a=(...) is passed as "a" with the assignment recorded for the
 * builtin (sh->decl_*). */
static int interp_decl_words(shell *sh, ast_word *w, char ***argv, int *argc) {
  char **av = NULL;
  int ac = 0, rc = 0, k;
  size_t cap = 0;
  for (; w && !rc; w = w->next) {
    char **one = NULL;
    int n1 = 0;
    if (w->assign) {
      ast_assign *as = w->assign;
      buf b;
      char *val = NULL;
      buf_init(&b, sh->m);
      buf_puts(&b, as->name);
      if (as->index) {
        rc = expand_string(sh, as->index, &val);
        if (rc) {
          buf_finish(&b);
          break;
        }
        buf_printf(&b, "[%s]", val);
        mem_free(sh->m, val);
        val = NULL;
      }
      if (!as->is_array) {
        rc = expand_string(sh, as->value, &val);
        if (rc) {
          buf_finish(&b);
          break;
        }
        buf_puts(&b, as->append ? "+=" : "=");
        buf_puts(&b, val);
        mem_free(sh->m, val);
      }
      if (b.err) {
        buf_finish(&b);
        rc = MSB_ENOMEM;
        break;
      }
      one = mem_zalloc(sh->m, 2 * sizeof *one);
      if (!one) {
        buf_finish(&b);
        rc = MSB_ENOMEM;
        break;
      }
      one[0] = buf_steal(&b, NULL);
      buf_finish(&b);
      n1 = 1;
      if (as->is_array) {
        char **na = mem_realloc(sh->m, sh->decl_argv,
                                ((size_t)sh->ndecl + 1) * sizeof *na);
        ast_assign **nb;
        if (na) sh->decl_argv = na;
        nb = na ? mem_realloc(sh->m, sh->decl_asg,
                              ((size_t)sh->ndecl + 1) * sizeof *nb)
                : NULL;
        if (!nb) {
          expand_free(sh, one, 1);
          rc = MSB_ENOMEM;
          break;
        }
        sh->decl_asg = nb;
        sh->decl_argv[sh->ndecl] = one[0];
        sh->decl_asg[sh->ndecl++] = as;
      }
    } else {
      ast_word tmp = *w;
      tmp.next = NULL;
      rc = expand_words(sh, &tmp, &one, &n1);
      if (rc) break;
    }
    for (k = 0; k < n1; k++) {
      if ((size_t)ac + 2 > cap) {
        size_t nc = cap ? cap * 2 : 8;
        char **na = mem_realloc(sh->m, av, nc * sizeof *na);
        if (!na) {
          rc = MSB_ENOMEM;
          break;
        }
        av = na;
        cap = nc;
      }
      av[ac++] = one[k];
      one[k] = NULL;
      av[ac] = NULL;
    }
    expand_free(sh, one, n1);
  }
  if (rc) {
    expand_free(sh, av, ac);
    sh->ndecl = 0;
    return rc;
  }
  if (!av && !(av = mem_zalloc(sh->m, sizeof *av))) return MSB_ENOMEM;
  *argv = av;
  *argc = ac;
  return 0;
}

static int interp_has_decl(ast_word *w) {
  for (; w; w = w->next)
    if (w->assign) return 1;
  return 0;
}

/* Runs simple command n; *last receives a copy of its last word, which
 * becomes $_ once the command is done (bash: not while it runs). */
static int interp_simple_cmd(shell *sh, ast_node *n, char **last) {
  char **av = NULL, **extra = NULL;
  int ac = 0, rc, nextra = 0, i, status = 0;
  ast_assign *a;
  interp_saved sv;
  sh->line = n->line;
  if (!sh->in_trap) sh->cur_cmd = n;
  rc = interp_tick_pace(sh);
  if (rc) return rc;
  sh->cmdsub_ran = 0;
  sh->last_cmdsub_status = 0;
  if (interp_has_decl(n->u.cmd.words)) {
    int ond = sh->ndecl;
    rc = interp_decl_words(sh, n->u.cmd.words, &av, &ac);
    (void)ond;
  } else
    rc = expand_words(sh, n->u.cmd.words, &av, &ac);
  if (rc) return rc < 0 ? rc : sh->status ? sh->status : 1;
  if (!(*last = mem_strdup(sh->m, ac ? av[ac - 1] : ""))) {
    expand_free(sh, av, ac);
    return MSB_ENOMEM;
  }
  if (ac == 0) {
    /* assignments only: permanent */
    for (a = n->u.cmd.assigns; a; a = a->next) {
      sh->line = a->line ? a->line : n->line;
      rc = interp_assign(sh, a, 0);
      if (rc) {
        expand_free(sh, av, ac);
        if (rc < 0) return rc;
        if (sh->flow == SH_FLOW_NONE) {
          /* an assignment error abandons the command line */
          sh->flow = SH_FLOW_ABORT;
          sh->status = 1;
        }
        return 1;
      }
    }
    if ((sh->opts & SH_O_XTRACE) && n->u.cmd.assigns) {
      buf b;
      buf_init(&b, sh->m);
      for (a = n->u.cmd.assigns; a; a = a->next) {
        const char *v = var_value(sh->vars, a->name);
        if (a->is_array && a->raw) {
          /* bash traces an array assignment as written */
          interp_ps4(sh, &b);
          buf_put(&b, a->raw, a->raw_len);
          buf_putc(&b, '\n');
          continue;
        }
        if (a->is_array || a->index) continue;
        interp_ps4(sh, &b);
        buf_printf(&b, "%s=", a->name);
        expand_quote(&b, v ? v : "", 0);
        buf_putc(&b, '\n');
      }
      if (!b.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
    }
    status = sh->cmdsub_ran ? sh->last_cmdsub_status : 0;
    if (n->redirs) {
      rc = interp_redirs(sh, n->redirs, &sv);
      if (rc) {
        expand_free(sh, av, ac);
        return rc < 0 ? rc : 1;
      }
      interp_restore_fds(sh, &sv);
    }
    expand_free(sh, av, ac);
    return status;
  }
  /* temporary assignments */
  for (a = n->u.cmd.assigns; a; a = a->next) nextra++;
  if (nextra) {
    int k = 0;
    extra = mem_zalloc(sh->m, (size_t)nextra * sizeof *extra);
    if (!extra) {
      expand_free(sh, av, ac);
      return MSB_ENOMEM;
    }
    for (a = n->u.cmd.assigns; a; a = a->next) {
      char *val = NULL;
      buf b;
      if (a->is_array || a->index) {
        nextra--;
        continue;
      }
      rc = expand_string(sh, a->value, &val);
      if (rc) {
        expand_free(sh, extra, k);
        expand_free(sh, av, ac);
        return rc < 0 ? rc : 1;
      }
      buf_init(&b, sh->m);
      buf_printf(&b, "%s=", a->name);
      if (a->append) {
        const char *o = var_value(sh->vars, a->name);
        buf_puts(&b, o ? o : "");
      }
      buf_puts(&b, val);
      mem_free(sh->m, val);
      extra[k++] = buf_steal(&b, NULL);
      buf_finish(&b);
      if (!extra[k - 1]) {
        expand_free(sh, extra, k);
        expand_free(sh, av, ac);
        return MSB_ENOMEM;
      }
    }
    nextra = k;
  }
  if (sh->opts & SH_O_XTRACE) {
    rc = interp_xtrace(sh, av, ac, extra, nextra);
    if (rc) goto done;
  }
  if (ac == 1 && !strcmp(av[0], "exec") && !interp_func_get(sh, "exec")) {
    /* exec with only redirections: they stay */
    rc = interp_redirs(sh, n->redirs, &sv);
    if (!rc) {
      int k;
      for (k = 0; k < SH_NFD; k++) interp_stream_unref(sh, sv.fd[k]);
    } else if (rc > 0)
      rc = 1;
    goto done;
  }
  /* no redirections: nothing to save and restore (the common case) */
  rc = n->redirs ? interp_redirs(sh, n->redirs, &sv) : 0;
  if (rc) {
    if (rc > 0) rc = 1;
    goto done;
  }
  {
    const char *name = av[0];
    sh_func *f = strchr(name, '/') ? NULL : interp_func_get(sh, name);
    const sh_builtin *b = (f || strchr(name, '/')) ? NULL : builtin_find(name);
    const cmd_desc *d = (f || b || strchr(name, '/')) ? NULL : cmd_find(name);
    if (d) {
      rc = interp_table_cmd(sh, d, ac, av, extra, nextra);
    } else if (f || b) {
      if (nextra) {
        var_push_scope(sh->vars);
        for (i = 0; i < nextra; i++) {
          char *eq = strchr(extra[i], '=');
          var *v;
          *eq = 0;
          v = var_local(sh->vars, extra[i]);
          if (v) {
            var_set(sh->vars, extra[i], eq + 1, 0);
            v->attr |= VAR_EXPORT;
            var_changed(sh->vars);
          }
          *eq = '=';
        }
      }
      if (f)
        rc = interp_call(sh, f, ac, av);
      else
        rc = interp_builtin(sh, b, ac, av);
      if (nextra) var_pop_scope(sh->vars);
    } else {
      if (nextra && strchr(name, '/')) {
        /* scripts see the temporary environment too */
        var_push_scope(sh->vars);
        for (i = 0; i < nextra; i++) {
          char *eq = strchr(extra[i], '=');
          var *v;
          *eq = 0;
          v = var_local(sh->vars, extra[i]);
          if (v) {
            var_set(sh->vars, extra[i], eq + 1, 0);
            v->attr |= VAR_EXPORT;
            var_changed(sh->vars);
          }
          *eq = '=';
        }
        rc = interp_run_argv(sh, ac, av, 1);
        var_pop_scope(sh->vars);
      } else
        rc = interp_run_argv(sh, ac, av, 1);
    }
  }
  if (n->redirs) interp_restore_fds(sh, &sv);
done:
  sh->ndecl = 0;
  expand_free(sh, extra, nextra);
  expand_free(sh, av, ac);
  return rc;
}

/* Its expansions and redirections with it, a simple command is one unit
 * of the revision count (vfs_unit_begin) and records its own failure
 * class. */
static int interp_simple(shell *sh, ast_node *n) {
  char *last = NULL;
  int rc;
  sh->fail = NULL;
  vfs_unit_begin(sh->fs);
  rc = interp_simple_cmd(sh, n, &last);
  vfs_unit_end(sh->fs);
  if (last) {
    mem_free(sh->m, sh->last_arg);
    sh->last_arg = last;
  }
  return rc;
}

/* ---- compound commands ---------------------------------------------- */

/* Syntax error prefix of a substitution body parsed when it runs; also
 * how interp_string knows it runs one. */
static const char interp_comsub_prefix[] = "command substitution: ";

/* The redirection of a substitution body that is only `< file` (one
 * command, no words, no assignments, not in the background or timed), or
 * NULL. bash copies such a file to the output: $(< file). */
static ast_redir *interp_cat_redir(const ast_node *n) {
  ast_redir *r;
  if (n && n->kind == AST_LIST) {
    n = n->u.list.items;
    if (!n || n->next || (n->flags & AST_F_BG)) return NULL;
  }
  /* bash ignores a `!` here: the status is the copy's */
  if (n->kind == AST_PIPELINE && !(n->flags & AST_F_TIME) && n->u.pipe.stages &&
      !n->u.pipe.stages->next)
    n = n->u.pipe.stages;
  if (n->kind != AST_CMD || n->u.cmd.words || n->u.cmd.assigns) return NULL;
  r = n->redirs;
  if (!r || r->next || r->op != AST_R_IN || r->fd > 0 || r->varname)
    return NULL;
  return r;
}

/* $(< file): opens the file as a `<` redirection would (same expansion and
 * errors, status 1) and writes what it holds to fd 1. */
static int interp_cat_file(shell *sh, ast_redir *r) {
  interp_saved sv;
  const uint8_t *p;
  size_t n;
  int rc = interp_redirs(sh, r, &sv);
  if (rc) return rc;
  interp_input(sh, 0, &p, &n);
  rc = interp_write(sh, 1, p, n);
  interp_consume(sh, 0, n);
  if (!rc) rc = interp_input_end(sh, 0);
  interp_restore_fds(sh, &sv);
  return rc;
}

/* Runs one command of a substitution body. */
static int interp_comsub_node(shell *sh, ast_node *n) {
  ast_redir *r = interp_cat_redir(n);
  return r ? interp_cat_file(sh, r) : interp_node(sh, n);
}

/* Subshell run of n with fd 1 captured into out. */
static int interp_capture_run(shell *sh, ast_node *n, buf *out) {
  shell *c;
  sh_stream *s;
  int rc;
  uint32_t maxd = sh->lim->max_call_depth;
  if (maxd && (uint32_t)sh->depth >= maxd) {
    interp_errf(sh, "maximum nesting level exceeded (%u)", (unsigned)maxd);
    sh->run->limit = LIMIT_MAX_CALL_DEPTH;
    return MSB_ELIMIT;
  }
  if (!n) return 0;
  if ((rc = interp_stack_push(sh, SH_STACK_CAPTURE))) return rc;
  c = interp_clone(sh);
  s = c ? interp_stream_new(c, SH_S_BUF) : NULL;
  if (!s) {
    shell_destroy(c);
    interp_stack_pop(sh, SH_STACK_CAPTURE);
    return MSB_ENOMEM;
  }
  s->ob = out;
  interp_fd_set(c, 1, s);
  c->xlevel++;
  if (!(sh->shopts & SH_SO_INHERIT_ERREXIT)) c->opts &= ~SH_O_ERREXIT;
  c->depth++;
  rc = interp_comsub_node(c, n);
  interp_stack_pop(sh, SH_STACK_CAPTURE);
  if (rc >= 0 && SH_FLOW_ENDS(c->flow)) rc = c->status;
  if (rc >= 0 && c->trap_exit) {
    char *t = c->trap_exit;
    int st = rc;
    c->trap_exit = NULL;
    c->status = rc;
    rc = interp_run_trap(c, t);
    mem_free(c->m, t);
    if (rc >= 0) rc = SH_FLOW_ENDS(c->flow) ? c->status : st;
  }
  sh->next_pid = c->next_pid;
  sh->rng = c->rng;
  shell_destroy(c);
  return rc;
}

/* Deferred command substitution: parse and run text (starting at source
 * line `line`) in a subshell. */
static int interp_capture_text_run(shell *sh, const char *text, size_t len,
                                   int line, buf *out) {
  shell *c;
  sh_stream *s;
  int rc;
  if ((rc = interp_stack_push(sh, SH_STACK_CAPTURE))) return rc;
  c = interp_clone(sh);
  s = c ? interp_stream_new(c, SH_S_BUF) : NULL;
  if (!s) {
    shell_destroy(c);
    interp_stack_pop(sh, SH_STACK_CAPTURE);
    return MSB_ENOMEM;
  }
  s->ob = out;
  interp_fd_set(c, 1, s);
  c->xlevel++;
  if (!(sh->shopts & SH_SO_INHERIT_ERREXIT)) c->opts &= ~SH_O_ERREXIT;
  c->parse_prefix = interp_comsub_prefix;
  c->syntax_error = 0;
  rc = interp_string(c, text, len, line);
  interp_stack_pop(sh, SH_STACK_CAPTURE);
  if (rc >= 0 && SH_FLOW_ENDS(c->flow)) rc = c->status;
  if (rc >= 0 && c->syntax_error) rc = 256; /* caller: expansion error */
  sh->next_pid = c->next_pid;
  sh->rng = c->rng;
  shell_destroy(c);
  return rc;
}

/* A paced run may pause inside a command substitution: expansion calls it
 * directly, so Asyncify instruments expansion's frames on the way (3.7 KB
 * gzipped; tests/js/stack.test.mjs holds the nesting bounds with them). */
int interp_capture(shell *sh, ast_node *n, buf *out) {
  return interp_capture_run(sh, n, out);
}

int interp_capture_text(shell *sh, const char *text, size_t len, int line,
                        buf *out) {
  return interp_capture_text_run(sh, text, len, line, out);
}

static int interp_subshell(shell *sh, ast_node *body) {
  shell *c;
  int rc;
  uint32_t maxd = sh->lim->max_call_depth;
  if (maxd && (uint32_t)sh->depth >= maxd) {
    interp_errf(sh, "maximum nesting level exceeded (%u)", (unsigned)maxd);
    sh->run->limit = LIMIT_MAX_CALL_DEPTH;
    return MSB_ELIMIT;
  }
  if ((rc = interp_stack_push(sh, SH_STACK_SUB))) return rc;
  c = interp_clone(sh);
  if (!c) {
    interp_stack_pop(sh, SH_STACK_SUB);
    return MSB_ENOMEM;
  }
  c->depth++;
  rc = interp_node(c, body);
  if (rc >= 0 && SH_FLOW_ENDS(c->flow)) rc = c->status;
  if (rc >= 0 && c->trap_exit) {
    char *t = c->trap_exit;
    int st = rc;
    c->trap_exit = NULL;
    c->status = rc;
    rc = interp_run_trap(c, t);
    mem_free(c->m, t);
    if (rc >= 0) rc = SH_FLOW_ENDS(c->flow) ? c->status : st;
  }
  sh->next_pid = c->next_pid;
  sh->rng = c->rng;
  shell_destroy(c);
  interp_stack_pop(sh, SH_STACK_SUB);
  return rc;
}

static int interp_pipe_stage_direct(shell *sh, ast_node *n) {
  const ast_part *p;
  char name[64];
  size_t len = 0;
  if (n->kind != AST_CMD || n->u.cmd.assigns || !n->u.cmd.words) return 0;
  for (p = n->u.cmd.words->parts; p; p = p->next) {
    if (p->kind != AST_P_LIT || len + p->len >= sizeof name) return 0;
    memcpy(name + len, p->text, p->len);
    len += p->len;
  }
  name[len] = 0;
  if (!len || strchr(name, '/') || interp_func_get(sh, name) ||
      builtin_find(name))
    return 0;
  return cmd_find(name) != NULL;
}

/* A Linux pipe's buffer: a writer blocks once this much is unread. */
#define INTERP_PIPE_BUF 65536

/* Stage i-1 wrote feed, which stage i read only in part. With more than a
 * pipe's buffer left unread, the writer would still have been writing when
 * its reader was gone, and got SIGPIPE (`seq 100000 | head -1` gives
 * 141 0); a smaller rest fits in the pipe and costs nothing. A cut feed's
 * writer met its SIGPIPE at the cut already. */
static void interp_pipe_unread(const sh_stream *feed, int *code) {
  if (*code == 0 && !feed->cut && feed->len - feed->reach > INTERP_PIPE_BUF)
    *code = 141;
}

static int interp_pipeline(shell *sh, ast_node *n) {
  ast_node *st;
  int nst = 0, i, rc = 0, status = 0, *codes, neg = 0;
  interp_saved sv;
  sh_stream *feed = NULL; /* the pipe the current stage reads */
  buf pb;
  if (n->kind == AST_PIPELINE) {
    st = n->u.pipe.stages;
    neg = (n->flags & AST_F_NEGATE) != 0;
  } else
    st = n;
  for (ast_node *x = st; x; x = x->next) nst++;
  if (!nst) {
    /* `!` or `time` alone: an empty pipeline that succeeded */
    int zero = 0;
    if (interp_set_pipestatus(sh, &zero, 1)) return MSB_ENOMEM;
    return neg;
  }
  if (n->kind == AST_PIPELINE && (n->flags & AST_F_TIME)) {
    /* time: run, then report zero times (the sandbox clock does not move) */
  }
  codes = mem_zalloc(sh->m, (size_t)nst * sizeof *codes);
  if (!codes) return MSB_ENOMEM;
  if (neg) sh->errexit_ignore++;
  interp_save_fds(sh, &sv);
  buf_init(&pb, sh->m);
  for (i = 0; st; st = st->next, i++) {
    sh_stream *so = NULL;
    int last = st->next == NULL;
    if (!last) {
      buf_clear(&pb);
      so = interp_stream_new(sh, SH_S_BUF);
      if (!so) {
        rc = MSB_ENOMEM;
        break;
      }
      so->ob = &pb;
      so->pipe = 1;
      so->owner = sh;
      interp_fd_set(sh, 1, so);
      if (st->flags & AST_F_PIPE_ERR)
        interp_fd_set(sh, 2, interp_stream_ref(so));
    } else if (nst > 1) {
      interp_fd_set(sh, 1, interp_stream_ref(sv.fd[1]));
      interp_fd_set(sh, 2, interp_stream_ref(sv.fd[2]));
    }
    if (nst == 1 || (last && (sh->shopts & SH_SO_LASTPIPE)))
      rc = interp_node(sh, st);
    else if (interp_pipe_stage_direct(sh, st)) {
      /* a stage is its own process: its failure alone never trips set -e
       * or the ERR trap; the pipeline's status does */
      sh->errexit_ignore++;
      rc = interp_node(sh, st);
      sh->errexit_ignore--;
      if (sh->flow == SH_FLOW_ABORT) { /* only that process's line */
        sh->flow = SH_FLOW_NONE;
        if (rc >= 0) rc = sh->status;
      }
    } else
      rc = interp_subshell(sh, st);
    if (rc < 0) break;
    codes[i] = rc;
    if (feed) {
      interp_pipe_unread(feed, &codes[i - 1]);
      interp_stream_unref(sh, feed);
      feed = NULL;
    }
    if (!last) {
      sh_stream *si = interp_stream_new(sh, SH_S_IN);
      if (!si || pb.err) {
        interp_stream_unref(sh, si);
        rc = pb.err ? pb.err : MSB_ENOMEM;
        break;
      }
      si->data = (uint8_t *)buf_steal(&pb, &si->len);
      si->cut = so->cut;
      feed = interp_stream_ref(si);
      interp_fd_set(sh, 0, si);
    }
    if (SH_FLOW_ENDS(sh->flow) && nst == 1) break;
  }
  interp_stream_unref(sh, feed);
  buf_finish(&pb);
  interp_restore_fds(sh, &sv);
  if (neg) sh->errexit_ignore--;
  if (rc >= 0) {
    var *v;
    status = codes[nst - 1];
    if (sh->opts & SH_O_PIPEFAIL)
      for (i = 0; i < nst; i++)
        if (codes[i]) status = codes[i];
    (void)v;
    if (interp_set_pipestatus(sh, codes, nst)) rc = MSB_ENOMEM;
    if (neg) status = !status;
    if (rc >= 0) rc = status;
  }
  mem_free(sh->m, codes);
  return rc;
}

/* Runs the ERR trap / errexit after a command failed. */
static int interp_after(shell *sh, int status) {
  int rc;
  if (status <= 0 || sh->errexit_ignore || sh->flow != SH_FLOW_NONE) return 0;
  /* functions inherit ERR only under set -E (errtrace) */
  if (sh->trap_err && !sh->in_err_trap &&
      (!sh->funcs_active || (sh->opts & SH_O_ERRTRACE))) {
    sh->in_err_trap = 1;
    sh->status = status;
    rc = interp_run_trap(sh, sh->trap_err);
    sh->in_err_trap = 0;
    sh->status = status;
    if (rc < 0) return rc;
  }
  if ((sh->opts & SH_O_ERREXIT) && sh->flow == SH_FLOW_NONE) {
    sh->flow = SH_FLOW_EXIT;
    sh->status = status;
  }
  return 0;
}

static int interp_loop_flow(shell *sh, int *stop) {
  *stop = 0;
  if (sh->flow == SH_FLOW_BREAK) {
    if (--sh->flow_n <= 0) sh->flow = SH_FLOW_NONE;
    *stop = 1;
  } else if (sh->flow == SH_FLOW_CONT) {
    if (--sh->flow_n <= 0)
      sh->flow = SH_FLOW_NONE;
    else
      *stop = 1;
  } else if (sh->flow != SH_FLOW_NONE)
    *stop = 1;
  return 0;
}

static int interp_cond_run(shell *sh, ast_node *c) {
  int rc;
  sh->errexit_ignore++;
  rc = interp_node(sh, c);
  sh->errexit_ignore--;
  return rc;
}

static int interp_while(shell *sh, ast_node *n, int until) {
  int rc, status = 0, stop;
  sh->loops++;
  for (;;) {
    rc = interp_tick_pace(sh);
    if (rc) break;
    rc = interp_cond_run(sh, n->u.loop.cond);
    if (rc < 0 || sh->flow != SH_FLOW_NONE) {
      interp_loop_flow(sh, &stop);
      if (rc < 0 || stop) break;
      continue;
    }
    if ((rc == 0) == until) {
      rc = status;
      break;
    }
    rc = interp_node(sh, n->u.loop.body);
    if (rc < 0) break;
    status = rc;
    interp_loop_flow(sh, &stop);
    if (stop) break;
  }
  sh->loops--;
  return rc < 0 ? rc : status;
}

static int interp_for(shell *sh, ast_node *n) {
  char **av = NULL;
  int ac = 0, i, rc = 0, status = 0, stop;
  sh->line = n->line;
  if (n->u.forin.has_in) {
    rc = expand_words(sh, n->u.forin.words, &av, &ac);
    if (rc) return rc < 0 ? rc : 1;
  } else {
    av = mem_zalloc(sh->m, ((size_t)sh->npos + 1) * sizeof *av);
    if (!av) return MSB_ENOMEM;
    for (i = 0; i < sh->npos; i++)
      if (!(av[i] = mem_strdup(sh->m, sh->pos[i]))) {
        expand_free(sh, av, i);
        return MSB_ENOMEM;
      }
    ac = sh->npos;
  }
  if (n->kind == AST_SELECT) {
    expand_free(sh, av, ac);
    interp_errf(sh, "select: not supported in memsandbox");
    return 2;
  }
  sh->loops++;
  for (i = 0; i < ac; i++) {
    rc = interp_tick_pace(sh);
    if (rc) break;
    if (sh->opts & SH_O_XTRACE) {
      buf b;
      buf_init(&b, sh->m);
      interp_ps4(sh, &b);
      buf_printf(&b, "for %s in", n->u.forin.var);
      {
        int j;
        for (j = 0; j < ac; j++) {
          buf_putc(&b, ' ');
          expand_quote(&b, av[j], 0);
        }
      }
      buf_putc(&b, '\n');
      if (!b.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
    }
    {
      /* a nameref control variable refers to each word in turn */
      var *ref = var_lookup(sh->vars, n->u.forin.var);
      rc = ref && (ref->attr & VAR_NAMEREF)
               ? interp_set_nameref(sh, ref, av[i], NULL)
               : builtin_assign(sh, n->u.forin.var, av[i], 0);
    }
    if (rc) {
      if (rc > 0) rc = status = 1;
      break;
    }
    rc = interp_node(sh, n->u.forin.body);
    if (rc < 0) break;
    status = rc;
    interp_loop_flow(sh, &stop);
    if (stop) break;
  }
  sh->loops--;
  expand_free(sh, av, ac);
  return rc < 0 ? rc : status;
}

static int interp_arith_word(shell *sh, ast_word *w, int64_t *v) {
  if (!w) {
    *v = 1;
    return 0;
  }
  return expand_arith(sh, w, v, "((");
}

static int interp_afor(shell *sh, ast_node *n) {
  int64_t v;
  int rc, status = 0, stop;
  sh->line = n->line;
  if (n->u.afor.init) {
    rc = expand_arith(sh, n->u.afor.init, &v, "((");
    if (rc) return rc < 0 ? rc : 1;
  }
  sh->loops++;
  for (;;) {
    rc = interp_tick_pace(sh);
    if (rc) break;
    rc = interp_arith_word(sh, n->u.afor.cond, &v);
    if (rc) {
      if (rc > 0) rc = status = 1;
      break;
    }
    if (!v) break;
    rc = interp_node(sh, n->u.afor.body);
    if (rc < 0) break;
    status = rc;
    interp_loop_flow(sh, &stop);
    if (stop) break;
    if (n->u.afor.step) {
      rc = expand_arith(sh, n->u.afor.step, &v, "((");
      if (rc) {
        if (rc > 0) rc = status = 1;
        break;
      }
    }
  }
  sh->loops--;
  return rc < 0 ? rc : status;
}

static int interp_case(shell *sh, ast_node *n) {
  char *subj = NULL;
  ast_case_item *it;
  int rc, status = 0, fall = 0;
  sh->line = n->line;
  rc = expand_string(sh, n->u.casec.subject, &subj);
  if (rc) return rc < 0 ? rc : 1;
  for (it = n->u.casec.items; it; it = it->next) {
    int hit = fall;
    ast_word *p;
    for (p = it->patterns; p && !hit; p = p->next) {
      char *pat = NULL;
      rc = expand_pattern(sh, p, &pat);
      if (rc) {
        mem_free(sh->m, subj);
        return rc < 0 ? rc : 1;
      }
      rc = expand_match(sh, pat, subj, (sh->shopts & SH_SO_NOCASEMATCH) != 0);
      mem_free(sh->m, pat);
      if (rc < 0) {
        mem_free(sh->m, subj);
        return rc;
      }
      hit = rc;
    }
    if (!hit) continue;
    fall = 0;
    status = 0;
    if (it->body) {
      rc = interp_node(sh, it->body);
      if (rc < 0) {
        mem_free(sh->m, subj);
        return rc;
      }
      status = rc;
    }
    if (sh->flow != SH_FLOW_NONE) break;
    if (it->term == AST_CASE_BREAK) break;
    if (it->term == AST_CASE_FALL) fall = 1;
  }
  mem_free(sh->m, subj);
  return status;
}

int interp_cond(shell *sh, ast_cond *c);

static int interp_node_run(shell *sh, ast_node *n);

/* Runs an && / || chain up to its last operand, which *last receives when
 * it is to run (else NULL). a && b || c nests to the left, (a && b) || c,
 * and a chain of thousands must not cost native stack per operator, so it
 * is walked in a loop from its leftmost operand. */
static int interp_andor(shell *sh, ast_node *n, ast_node **last) {
  ast_node *small[8], **chain = small, *x;
  size_t k = 0, i;
  int rc;
  *last = NULL;
  for (x = n;
       (x->kind == AST_AND || x->kind == AST_OR) && (x == n || !x->redirs);
       x = x->u.bin.left)
    k++;
  if (k > sizeof small / sizeof small[0]) {
    chain = mem_alloc(sh->m, k * sizeof *chain);
    if (!chain) return MSB_ENOMEM;
  }
  for (i = k, x = n; i; x = x->u.bin.left) chain[--i] = x;
  /* all but the last operand run as conditions (no set -e, no ERR) */
  sh->errexit_ignore++;
  rc = interp_node(sh, x);
  for (i = 0; i < k && rc >= 0 && sh->flow == SH_FLOW_NONE; i++) {
    sh->status = rc;
    if ((rc == 0) != (chain[i]->kind == AST_AND)) continue;
    if (i + 1 == k) {
      *last = chain[i]->u.bin.right;
      break;
    }
    rc = interp_node(sh, chain[i]->u.bin.right);
  }
  sh->errexit_ignore--;
  if (chain != small) mem_free(sh->m, chain);
  return rc;
}

/* Evaluates a node with its redirections; errexit / ERR handled here.
 * The last command of a list, group, if branch or && / || runs in the
 * same frame (goto again) when nothing is left to do after it: nesting
 * then costs no native stack (see SH_STACK_MAX). */
/* A loop. Its handler is where a paced run yields (interp_tick_pace), and
 * in wasm Asyncify gives it a larger frame: charged as SH_STACK_LOOP. */
static int interp_loop(shell *sh, ast_node *n) {
  int rc;
  if ((rc = interp_stack_push(sh, SH_STACK_LOOP))) return rc;
  if (n->kind == AST_WHILE || n->kind == AST_UNTIL)
    rc = interp_while(sh, n, n->kind == AST_UNTIL);
  else if (n->kind == AST_ARITH_FOR)
    rc = interp_afor(sh, n);
  else
    rc = interp_for(sh, n);
  interp_stack_pop(sh, SH_STACK_LOOP);
  return rc;
}

static int interp_node_run(shell *sh, ast_node *n) {
  int rc, check, redir;
  /* on the heap: every level of a script's nesting passes through here,
   * and wasm's stack in linear memory is small (see interp_shadow_low) */
  interp_saved *sv = NULL;
again:
  rc = check = redir = 0;
  if (sh->flow != SH_FLOW_NONE) return sh->status;
  if (n->kind != AST_CMD && n->kind != AST_FUNC && n->redirs) {
    sh->line = n->line;
    if (!(sv = mem_alloc(sh->m, sizeof *sv))) return MSB_ENOMEM;
    rc = interp_redirs(sh, n->redirs, sv);
    if (rc) mem_free(sh->m, sv);
    if (rc < 0) return rc;
    if (rc) {
      sh->status = 1;
      return 1;
    }
    redir = 1;
  }
  switch (n->kind) {
  case AST_CMD:
    rc = interp_simple(sh, n);
    check = 1;
    break;
  case AST_PIPELINE:
    rc = interp_pipeline(sh, n);
    check = !(n->flags & AST_F_NEGATE);
    break;
  case AST_AND:
  case AST_OR: {
    ast_node *last;
    rc = interp_andor(sh, n, &last);
    if (rc < 0 || !last) break;
    if (!redir) {
      n = last;
      goto again;
    }
    rc = interp_node(sh, last);
    break;
  }
  case AST_LIST: {
    ast_node *it;
    for (it = n->u.list.items; it; it = it->next) {
      if (!it->next && !redir && !(it->flags & AST_F_BG)) {
        n = it;
        goto again;
      }
      if (it->flags & AST_F_BG) {
        int pid = sh->next_pid;
        rc = interp_subshell(sh, it);
        if (rc < 0) break;
        sh->bg_pid = pid;
        if ((rc = interp_job_add(sh, pid, rc))) break;
      } else {
        rc = interp_node(sh, it);
        if (rc < 0) break;
      }
      sh->status = rc;
      if (sh->flow != SH_FLOW_NONE) break;
    }
    break;
  }
  case AST_SUBSHELL:
    sh->line = n->line;
    if (!sh->in_trap) sh->cur_cmd = n; /* $BASH_COMMAND */
    rc = interp_subshell(sh, n->u.body);
    check = 1;
    break;
  case AST_GROUP:
    if (!redir && n->u.body) {
      n = n->u.body;
      goto again;
    }
    rc = interp_node(sh, n->u.body);
    break;
  case AST_IF: {
    ast_node *br;
    rc = interp_cond_run(sh, n->u.ifs.cond);
    if (rc < 0 || sh->flow != SH_FLOW_NONE) break;
    br = rc == 0 ? n->u.ifs.then : n->u.ifs.els;
    if (br && !redir) {
      n = br;
      goto again;
    }
    rc = br ? interp_node(sh, br) : 0;
    break;
  }
  case AST_WHILE:
  case AST_UNTIL:
  case AST_FOR:
  case AST_SELECT:
  case AST_ARITH_FOR: rc = interp_loop(sh, n); break;
  case AST_CASE: rc = interp_case(sh, n); break;
  case AST_FUNC:
    sh->line = n->line;
    rc = interp_func_set(sh, n->u.func.name, n->u.func.body, sh->tree);
    break;
  case AST_COND:
    sh->line = n->line;
    if (!sh->in_trap) sh->cur_cmd = n; /* $BASH_COMMAND */
    rc = interp_tick_pace(sh);
    if (!rc) rc = interp_denied(sh, "[[", "[[", 1); /* `test`'s code */
    if (!rc) rc = interp_cond(sh, n->u.cond);
    check = 1;
    break;
  case AST_ARITH: {
    int64_t v;
    sh->line = n->line;
    if (!sh->in_trap) sh->cur_cmd = n; /* $BASH_COMMAND */
    rc = interp_tick_pace(sh);
    if (rc) break;
    if (sh->opts & SH_O_XTRACE) {
      buf b;
      buf_init(&b, sh->m);
      interp_ps4(sh, &b);
      buf_printf(&b, "(( %s ))\n", n->u.arith.text ? n->u.arith.text : "");
      if (!b.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
    }
    rc = expand_arith(sh, n->u.arith.expr, &v, "((");
    if (rc > 0)
      rc = 1;
    else if (!rc)
      rc = v ? 0 : 1;
    check = 1;
    break;
  }
  default: rc = 2; break;
  }
  if (redir) {
    interp_restore_fds(sh, sv);
    mem_free(sh->m, sv);
  }
  if (rc < 0) return rc;
  if (SH_FLOW_ENDS(sh->flow)) return sh->status;
  sh->status = rc;
  if (check && n->kind != AST_PIPELINE && interp_set_pipestatus(sh, &rc, 1))
    return MSB_ENOMEM;
  if (check && rc) {
    int r2 = interp_after(sh, rc);
    if (r2 < 0) return r2;
    /* an ERR trap that ran `exit N`, as an enclosing node would report */
    if (SH_FLOW_ENDS(sh->flow)) return sh->status;
  }
  return rc;
}

int interp_node(shell *sh, ast_node *n) {
  int rc;
  if (!n) return 0;
  if ((rc = interp_stack_push(sh, SH_STACK_NODE))) return rc;
  rc = interp_node_run(sh, n);
  interp_stack_pop(sh, SH_STACK_NODE);
  return rc;
}

/* ---- [[ ]] ---------------------------------------------------------- */

static int interp_test_file(shell *sh, const char *op, const char *path) {
  buf p;
  struct vfs_stat st;
  int rc, follow = strcmp(op, "-L") && strcmp(op, "-h");
  if (!*path) return 1;
  buf_init(&p, sh->m);
  interp_abspath(sh, path, &p);
  if (p.err) {
    buf_finish(&p);
    return MSB_ENOMEM;
  }
  rc = vfs_stat(sh->fs, buf_str(&p), follow, &st);
  buf_finish(&p);
  if (rc) return 1;
  switch (op[1]) {
  case 'e':
  case 'a': return 0;
  case 'f': return st.kind == VFS_FILE && !(st.mode & VFS_CHR) ? 0 : 1;
  case 'c': return (st.mode & VFS_CHR) ? 0 : 1;
  case 'd': return st.kind == VFS_DIR ? 0 : 1;
  case 'L':
  case 'h': return st.kind == VFS_LINK ? 0 : 1;
  case 's': return st.size > 0 ? 0 : 1;
  case 'r': return (st.mode & 0444) ? 0 : 1;
  case 'w': return (st.mode & 0222) ? 0 : 1;
  case 'x': return (st.mode & 0111) ? 0 : 1;
  case 'O':
  case 'G': return 0;
  case 'u': return (st.mode & 04000) ? 0 : 1;
  case 'g': return (st.mode & 02000) ? 0 : 1;
  case 'k': return (st.mode & 01000) ? 0 : 1;
  default: return 1;
  }
}

static int interp_int_operand(shell *sh, const char *s, int64_t *v) {
  return expand_arith_text(sh, s, strlen(s), v, NULL);
}

/* set -x line for one [[ ]] test: "[[ [! ]a [op [b]] ]]" with the expanded
 * operands, as bash traces each primary it evaluates. */
static void interp_cond_trace(shell *sh, const char *a, const char *op,
                              const char *b) {
  buf t;
  if (!(sh->opts & SH_O_XTRACE)) return;
  buf_init(&t, sh->m);
  interp_ps4(sh, &t);
  buf_puts(&t, "[[ ");
  if (sh->cond_neg) buf_puts(&t, "! ");
  /* an empty operand shows as '' */
  buf_puts(&t, *a ? a : "''");
  if (op) buf_printf(&t, " %s", *op ? op : "''");
  if (b) buf_printf(&t, " %s", *b ? b : "''");
  buf_puts(&t, " ]]\n");
  if (!t.err) interp_write(sh, 2, t.p, t.len);
  buf_finish(&t);
}

/* The regex meter's payment: steps from the run's budget. */
static int interp_rx_charge(void *arg, uint64_t steps) {
  return interp_tick((shell *)arg, steps);
}

/* [[ s =~ re ]]: the search, its work charged to the step limit. */
static int interp_rx_search(shell *sh, rx *re, const char *s, rx_match *m,
                            size_t nm) {
  rx_meter mt = RX_METER(interp_rx_charge, sh);
  int rc;
  mt.left = sh->run->rx_units;
  rc = rx_search(re, (const uint8_t *)s, strlen(s), 0, 0, m, nm, &mt);
  sh->run->rx_units = mt.left;
  return rc;
}

static int interp_cond_binary(shell *sh, ast_cond *c) {
  char *l = NULL, *r = NULL;
  int rc;
  const char *op = c->op;
  rc = expand_string(sh, c->w1, &l);
  if (rc) return rc < 0 ? rc : 2;
  if (!strcmp(op, "==") || !strcmp(op, "=") || !strcmp(op, "!=")) {
    rc = expand_pattern(sh, c->w2, &r);
    if (rc) {
      mem_free(sh->m, l);
      return rc < 0 ? rc : 2;
    }
    interp_cond_trace(sh, l, op, r);
    rc = expand_match(sh, r, l, (sh->shopts & SH_SO_NOCASEMATCH) != 0);
    if (rc >= 0) rc = (rc == 1) == (op[0] != '!') ? 0 : 1;
  } else if (!strcmp(op, "=~")) {
    rx *re = NULL;
    rx_match mt[10];
    buf pat;
    const ast_part *p;
    buf_init(&pat, sh->m);
    for (p = c->w2 ? c->w2->parts : NULL; p; p = p->next) {
      ast_word one;
      char *s = NULL;
      size_t i;
      memset(&one, 0, sizeof one);
      one.parts = (ast_part *)p;
      {
        ast_part tmp = *p;
        tmp.next = NULL;
        one.parts = &tmp;
        rc = expand_string(sh, &one, &s);
      }
      if (rc) break;
      if (p->kind == AST_P_LIT || p->kind == AST_P_PARAM ||
          p->kind == AST_P_CMDSUB || p->kind == AST_P_ARITH ||
          p->kind == AST_P_TILDE)
        buf_puts(&pat, s);
      else
        for (i = 0; s[i]; i++) {
          if (strchr("\\.[]()*+?{}|^$", s[i])) buf_putc(&pat, '\\');
          buf_putc(&pat, s[i]);
        }
      mem_free(sh->m, s);
    }
    if (rc) {
      buf_finish(&pat);
      mem_free(sh->m, l);
      return rc < 0 ? rc : 2;
    }
    interp_cond_trace(sh, l, op, buf_str(&pat));
    rc = rx_compile(sh->m, buf_str(&pat), pat.len,
                    RX_ERE | ((sh->shopts & SH_SO_NOCASEMATCH) ? RX_ICASE : 0),
                    &re, NULL);
    buf_finish(&pat);
    if (rc) {
      mem_free(sh->m, l);
      return rc == MSB_ENOMEM ? rc : 2;
    }
    rc = interp_rx_search(sh, re, l, mt, 10);
    if (rc == 1) {
      size_t ns = rx_nsub(re), i;
      var *v = var_bind(sh->vars, "BASH_REMATCH", 0);
      if (v) {
        var_make_array(sh->vars, v, 0);
        for (i = 0; i <= ns && i < 10; i++) {
          char *s;
          if (mt[i].so < 0)
            s = mem_strdup(sh->m, "");
          else
            s = mem_strndup(sh->m, l + mt[i].so, (size_t)(mt[i].eo - mt[i].so));
          if (s) var_set_index(sh->vars, "BASH_REMATCH", (int64_t)i, s, 0);
          mem_free(sh->m, s);
        }
      }
      rc = 0;
    } else if (rc == 0) {
      var *v = var_bind(sh->vars, "BASH_REMATCH", 0);
      if (v) var_make_array(sh->vars, v, 0);
      rc = 1;
    }
    rx_free(re);
  } else {
    rc = expand_string(sh, c->w2, &r);
    if (rc) {
      mem_free(sh->m, l);
      return rc < 0 ? rc : 2;
    }
    interp_cond_trace(sh, l, op, r);
    if (!strcmp(op, "<"))
      rc = strcmp(l, r) < 0 ? 0 : 1;
    else if (!strcmp(op, ">"))
      rc = strcmp(l, r) > 0 ? 0 : 1;
    else if (!strcmp(op, "-nt") || !strcmp(op, "-ot") || !strcmp(op, "-ef")) {
      buf p1, p2;
      struct vfs_stat s1, s2;
      int e1, e2;
      buf_init(&p1, sh->m);
      buf_init(&p2, sh->m);
      interp_abspath(sh, l, &p1);
      interp_abspath(sh, r, &p2);
      e1 = vfs_stat(sh->fs, buf_str(&p1), 1, &s1);
      e2 = vfs_stat(sh->fs, buf_str(&p2), 1, &s2);
      buf_finish(&p1);
      buf_finish(&p2);
      if (op[1] == 'n')
        rc = (!e1 && (e2 || s1.mtime_ns > s2.mtime_ns)) ? 0 : 1;
      else if (op[1] == 'o')
        rc = (!e2 && (e1 || s1.mtime_ns < s2.mtime_ns)) ? 0 : 1;
      else
        rc = (!e1 && !e2 && s1.ino == s2.ino) ? 0 : 1;
    } else {
      int64_t a, b;
      rc = interp_int_operand(sh, l, &a);
      if (!rc) rc = interp_int_operand(sh, r, &b);
      if (rc)
        rc = rc < 0 ? rc : 2;
      else if (!strcmp(op, "-eq"))
        rc = a == b ? 0 : 1;
      else if (!strcmp(op, "-ne"))
        rc = a != b ? 0 : 1;
      else if (!strcmp(op, "-lt"))
        rc = a < b ? 0 : 1;
      else if (!strcmp(op, "-le"))
        rc = a <= b ? 0 : 1;
      else if (!strcmp(op, "-gt"))
        rc = a > b ? 0 : 1;
      else if (!strcmp(op, "-ge"))
        rc = a >= b ? 0 : 1;
      else
        rc = 2;
    }
  }
  mem_free(sh->m, l);
  mem_free(sh->m, r);
  return rc;
}

static int interp_cond_test(shell *sh, ast_cond *c);

/* An && / || chain of [[ ]]: it nests to the left, so it is walked in a
 * loop from its leftmost operand, as in interp_andor. */
static int interp_cond_chain(shell *sh, ast_cond *c) {
  ast_cond *small[8], **chain = small, *x;
  size_t k = 0, i;
  int rc;
  for (x = c; x->kind == AST_C_AND || x->kind == AST_C_OR; x = x->left) k++;
  if (k > sizeof small / sizeof small[0]) {
    chain = mem_alloc(sh->m, k * sizeof *chain);
    if (!chain) return MSB_ENOMEM;
  }
  for (i = k, x = c; i; x = x->left) chain[--i] = x;
  rc = interp_cond(sh, x);
  for (i = 0; i < k && rc >= 0; i++)
    if (rc == (chain[i]->kind == AST_C_AND ? 0 : 1))
      rc = interp_cond(sh, chain[i]->right);
  if (chain != small) mem_free(sh->m, chain);
  return rc;
}

/* Evaluates [[ ]]: 0 true, 1 false, 2 error (printed), or a fatal code.
 * Each nesting level is charged its native stack (SH_STACK_COND). */
int interp_cond(shell *sh, ast_cond *c) {
  int rc;
  if (!c) return 1;
  if ((rc = interp_stack_push(sh, SH_STACK_COND))) return rc;
  rc = c->kind == AST_C_AND || c->kind == AST_C_OR ? interp_cond_chain(sh, c)
                                                   : interp_cond_test(sh, c);
  interp_stack_pop(sh, SH_STACK_COND);
  return rc;
}

/* One [[ ]] primary, or `!` and its operand. */
static int interp_cond_test(shell *sh, ast_cond *c) {
  int rc;
  char *s = NULL;
  switch (c->kind) {
  case AST_C_NOT:
    /* bash traces `! primary` as one line */
    sh->cond_neg = c->left && (c->left->kind == AST_C_WORD ||
                               c->left->kind == AST_C_UNARY ||
                               c->left->kind == AST_C_BINARY);
    rc = interp_cond(sh, c->left);
    sh->cond_neg = 0;
    return rc < 0 || rc > 1 ? rc : !rc;
  case AST_C_WORD:
    rc = expand_string(sh, c->w1, &s);
    if (rc) return rc < 0 ? rc : 2;
    interp_cond_trace(sh, "-n", s, NULL);
    sh->cond_neg = 0;
    rc = *s ? 0 : 1;
    mem_free(sh->m, s);
    return rc;
  case AST_C_UNARY:
    rc = expand_string(sh, c->w1, &s);
    if (rc) return rc < 0 ? rc : 2;
    interp_cond_trace(sh, c->op, s, NULL);
    sh->cond_neg = 0;
    if (!strcmp(c->op, "-z"))
      rc = *s ? 1 : 0;
    else if (!strcmp(c->op, "-n"))
      rc = *s ? 0 : 1;
    else if (!strcmp(c->op, "-v")) {
      char *br = strchr(s, '[');
      var *v;
      if (br) {
        *br = 0;
        v = var_get(sh->vars, s, NULL);
        rc = 1;
        if (v) {
          char *e = strrchr(br + 1, ']');
          if (e) *e = 0;
          if (v->attr & VAR_ASSOC)
            rc = var_key_get(v, br + 1) ? 0 : 1;
          else {
            int64_t ix;
            if (!expand_arith_text(sh, br + 1, strlen(br + 1), &ix, NULL)) {
              if (ix < 0) ix += var_index_end(v);
              rc = var_index_get(v, ix) ? 0 : 1;
            }
          }
        }
      } else {
        if (!strcmp(s, "#") || !strcmp(s, "?") || !strcmp(s, "@") ||
            !strcmp(s, "*"))
          rc = 0;
        else if (s[0] >= '1' && s[0] <= '9')
          rc = interp_atoi(s) <= sh->npos ? 0 : 1;
        else {
          v = var_get(sh->vars, s, NULL);
          rc = (v && !(v->attr & VAR_NOVALUE) &&
                (!(v->attr & (VAR_ARRAY | VAR_ASSOC)) || v->n))
                   ? 0
                   : 1;
          if (v && (v->attr & VAR_ARRAY)) rc = var_index_get(v, 0) ? 0 : 1;
        }
      }
    } else if (!strcmp(c->op, "-o")) {
      static const struct {
        const char *n;
        unsigned f;
      } o[] = {{"errexit", SH_O_ERREXIT},    {"nounset", SH_O_NOUNSET},
               {"xtrace", SH_O_XTRACE},      {"noglob", SH_O_NOGLOB},
               {"pipefail", SH_O_PIPEFAIL},  {"allexport", SH_O_ALLEXPORT},
               {"noclobber", SH_O_NOCLOBBER}};
      size_t i;
      rc = 1;
      for (i = 0; i < sizeof o / sizeof o[0]; i++)
        if (!strcmp(o[i].n, s)) rc = (sh->opts & o[i].f) ? 0 : 1;
    } else if (!strcmp(c->op, "-t"))
      rc = 1;
    else
      rc = interp_test_file(sh, c->op, s);
    mem_free(sh->m, s);
    return rc;
  case AST_C_BINARY: return interp_cond_binary(sh, c);
  case AST_C_AND:
  case AST_C_OR: break; /* interp_cond_chain */
  }
  return 2;
}

/* ---- traps, strings, scripts ---------------------------------------- */

/* Prints the parser's warnings for the command just parsed (the here-doc
 * delimited by end-of-file), each line behind the shell's prefix, as bash
 * does at parse time. */
static void interp_parse_warnings(shell *sh, const parser *p,
                                  const char *prefix) {
  size_t len, i = 0;
  const char *w = parse_warnings(p, &len);
  buf b;
  if (!len) return;
  buf_init(&b, sh->m);
  while (i < len) {
    const char *nl = memchr(w + i, '\n', len - i);
    size_t e = nl ? (size_t)(nl - w) + 1 : len;
    buf_puts(&b, prefix);
    buf_put(&b, w + i, e - i);
    i = e;
  }
  if (!b.err) interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
}

/* Runs a string of shell code in sh (eval semantics). */
static const char *interp_alias_get(void *ctx, const char *name) {
  shell *sh = ctx;
  size_t i;
  for (i = 0; i < sh->naliases; i++)
    if (!strcmp(sh->aliases[i].name, name)) return sh->aliases[i].value;
  return NULL;
}

/* Aliases expand only with shopt -s expand_aliases, as in a bash script. */
static void interp_set_aliases(shell *sh, parser *p) {
  parse_set_aliases(
      p, (sh->shopts & SH_SO_EXPAND_ALIASES) ? interp_alias_get : NULL, sh);
}

int interp_string(shell *sh, const char *src, size_t len, int first_line) {
  parser *p;
  ast_node *node;
  ast_tree *ot = sh->tree;
  const ast_node *ocmd = sh->cur_cmd;
  int rc = 0, status = 0;
  uint32_t maxd = sh->lim->max_call_depth;
  if (maxd && (uint32_t)sh->depth >= maxd) {
    interp_errf(sh, "maximum nesting level exceeded (%u)", (unsigned)maxd);
    sh->run->limit = LIMIT_MAX_CALL_DEPTH;
    return MSB_ELIMIT;
  }
  if ((rc = interp_stack_push(sh, SH_STACK_EVAL))) return rc;
  p = parse_create(sh->m, src, len, first_line,
                   (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0);
  if (!p) {
    interp_stack_pop(sh, SH_STACK_EVAL);
    return MSB_ENOMEM;
  }
  interp_set_aliases(sh, p);
  parse_set_stack(p, interp_stack_left(sh));
  if (sh->cur_src && parse_tree(p))
    parse_tree(p)->src_name = arena_strdup(&parse_tree(p)->a, sh->cur_src);
  sh->depth++;
  sh->tree = parse_tree(p);
  for (;;) {
    rc = parse_next(p, &node);
    if (!rc) {
      buf pre;
      buf_init(&pre, sh->m);
      buf_printf(&pre, "%s: ", interp_name(sh));
      if (!pre.err) interp_parse_warnings(sh, p, buf_str(&pre));
      buf_finish(&pre);
    }
    if (rc) {
      const parse_error *e = parse_get_error(p);
      if (rc == MSB_ENOMEM) break;
      if (e->stack) {
        rc = interp_stack_fail(sh);
        break;
      }
      {
        buf b, pre;
        buf_init(&b, sh->m);
        buf_init(&pre, sh->m);
        buf_printf(&pre, "%s: ", interp_name(sh));
        if (sh->parse_prefix) buf_puts(&pre, sh->parse_prefix);
        parse_error_format(&b, e, buf_str(&pre));
        if (!b.err) interp_write(sh, 2, b.p, b.len);
        sh->syntax_error = 1;
        buf_finish(&b);
        buf_finish(&pre);
      }
      rc = status = 2;
      sh->status = 2;
      break;
    }
    if (!node) {
      rc = status;
      break;
    }
    {
      const char *opp = sh->parse_prefix;
      sh->parse_prefix = NULL;
      rc = opp == interp_comsub_prefix ? interp_comsub_node(sh, node)
                                       : interp_node(sh, node);
      sh->parse_prefix = opp;
    }
    if (rc < 0) break;
    status = rc;
    sh->status = rc;
    /* eval, source and traps resume with their next line, as bash */
    if (sh->flow == SH_FLOW_ABORT) sh->flow = SH_FLOW_NONE;
    if (sh->flow != SH_FLOW_NONE) break;
    parse_set_flags(p, (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0);
    interp_set_aliases(sh, p);
  }
  sh->depth--;
  sh->tree = ot;
  sh->cur_cmd = ocmd; /* this tree's nodes go now */
  parse_destroy(p);
  interp_stack_pop(sh, SH_STACK_EVAL);
  return rc < 0 ? rc : status;
}

/* Runs a trap action, keeping $?. */
int interp_run_trap(shell *sh, const char *cmd) {
  int st = sh->status, rc, ofl = sh->flow;
  char *copy = mem_strdup(sh->m, cmd);
  if (!copy) return MSB_ENOMEM;
  sh->flow = SH_FLOW_NONE;
  sh->in_trap++;
  rc = interp_string(sh, copy, strlen(copy), sh->line);
  sh->in_trap--;
  mem_free(sh->m, copy);
  if (rc < 0) return rc;
  if (sh->flow == SH_FLOW_NONE) {
    sh->flow = ofl;
    sh->status = st;
  }
  return 0;
}

/* Runs a script in a child shell (bash f.sh, ./f.sh). */
int interp_run_script(shell *sh, const char *path, const char *src, size_t len,
                      int argc, char **argv, unsigned setopts) {
  shell *c;
  var **list = NULL;
  size_t n = 0, i;
  int rc;
  uint32_t maxd = sh->lim->max_call_depth;
  if (maxd && (uint32_t)sh->depth >= maxd) {
    interp_errf(sh, "maximum nesting level exceeded (%u)", (unsigned)maxd);
    sh->run->limit = LIMIT_MAX_CALL_DEPTH;
    return MSB_ELIMIT;
  }
  c = interp_clone(sh);
  if (!c) return MSB_ENOMEM;
  /* a new process: only the environment survives; no functions */
  c->env_override = NULL;
  {
    char **env = sh->env_override ? sh->env_override : var_environ(c->vars);
    var_store *nv = var_create(c->m);
    (void)list;
    (void)n;
    (void)i;
    if (!env || !nv) {
      var_destroy(nv);
      shell_destroy(c);
      return MSB_ENOMEM;
    }
    {
      var_store *old = c->vars;
      size_t k;
      c->vars = nv;
      var_set_limit(nv, sh->lim->max_array_items, &sh->run->limit);
      if (interp_init_vars(c)) {
        c->vars = old;
        var_destroy(nv);
        shell_destroy(c);
        return MSB_ENOMEM;
      }
      {
        /* A new bash takes HOME, USER, ... only from its environment
         * (env -i bash: unset), and keeps its own defaults unexported. */
        static const char *const from_env[] = {"HOME", "USER", "LOGNAME",
                                               "LANG", "SHLVL"};
        static const char *const local[] = {"PATH", "SHELL", "HOSTNAME",
                                            "TERM"};
        for (k = 0; k < sizeof from_env / sizeof from_env[0]; k++)
          var_unset(nv, from_env[k]);
        for (k = 0; k < sizeof local / sizeof local[0]; k++) {
          var *lv = var_lookup(nv, local[k]);
          if (lv) lv->attr &= ~VAR_EXPORT;
        }
      }
      for (k = 0; env[k]; k++) {
        const char *eq = strchr(env[k], '=');
        char *name =
            eq ? mem_strndup(c->m, env[k], (size_t)(eq - env[k])) : NULL;
        var *v;
        if (!name) continue;
        v = var_lookup(nv, name);
        if (!v || !(v->attr & VAR_READONLY)) {
          var_set(nv, name, eq + 1, 0);
          v = var_lookup(nv, name);
          if (v) v->attr |= VAR_EXPORT;
        }
        mem_free(c->m, name);
      }
      var_changed(nv);
      var_destroy(old);
    }
  }
  c->nfstack = 0;
  c->funcname = NULL;
  interp_funcs_free(c);
  c->funcs_active = 0;
  c->loops = 0;
  c->opts = (SH_O_BRACE | SH_O_HASHALL) | setopts;
  c->shopts = 0;
  mem_free(c->m, c->trap_err);
  c->trap_err = NULL;
  mem_free(c->m, c->arg0);
  c->arg0 = mem_strdup(c->m, path);
  c->script_mode = 1;
  /* a script file is the "main" frame of FUNCNAME and BASH_SOURCE */
  c->main_src = c->cur_src = (setopts & SH_O_CSTRING) ? NULL : c->arg0;
  c->parse_prefix = (setopts & SH_O_CSTRING) ? "-c: " : NULL;
  setopts &= ~SH_O_CSTRING;
  c->opts &= ~SH_O_CSTRING;
  {
    char nb[16];
    const char *lv = var_value(c->vars, "SHLVL");
    var *sv;
    expand_fmt_i64(nb, (lv ? interp_atoi(lv) : 0) + 1);
    var_set(c->vars, "SHLVL", nb, 0);
    if ((sv = var_lookup(c->vars, "SHLVL"))) sv->attr |= VAR_EXPORT;
  }
  if (!c->arg0 || interp_set_pos(c, argv + 1, argc - 1)) {
    shell_destroy(c);
    return MSB_ENOMEM;
  }
  c->depth++;
  rc = interp_stack_push(sh, SH_STACK_SCRIPT);
  if (!rc) {
    rc = interp_string(c, src, len, 1);
    interp_stack_pop(sh, SH_STACK_SCRIPT);
  }
  if (rc >= 0 && SH_FLOW_ENDS(c->flow)) rc = c->status;
  if (rc >= 0 && c->trap_exit) {
    char *t = c->trap_exit;
    int st = rc;
    c->trap_exit = NULL;
    c->status = rc;
    rc = interp_run_trap(c, t);
    mem_free(c->m, t);
    if (rc >= 0) rc = SH_FLOW_ENDS(c->flow) ? c->status : st;
  }
  sh->next_pid = c->next_pid;
  sh->rng = c->rng;
  shell_destroy(c);
  return rc;
}

/* ---- shell_exec ----------------------------------------------------- */

typedef struct interp_envsave {
  char *name;
  char *val;
  unsigned attr;
  int had;
} interp_envsave;

/* Binds "NAME=value" strings as exported variables, saving what they
 * replace. fresh: drop the old binding first, so no attribute of it (-i,
 * -u, -l, a nameref) can turn the value into another form (secrets). */
static int interp_bind_env(shell *sh, const char *const *env, size_t n,
                           interp_envsave *save, int fresh) {
  size_t i;
  for (i = 0; i < n; i++) {
    const char *eq = env[i] ? strchr(env[i], '=') : NULL;
    var *v;
    if (!eq || !var_valid_name(env[i], (size_t)(eq - env[i]))) continue;
    save[i].name = mem_strndup(sh->m, env[i], (size_t)(eq - env[i]));
    if (!save[i].name) return MSB_ENOMEM;
    v = var_lookup(sh->vars, save[i].name);
    if (v && !(v->attr & VAR_NOVALUE) && v->val) {
      save[i].had = 1;
      save[i].attr = v->attr;
      save[i].val = mem_strdup(sh->m, v->val);
    }
    if (v) v->attr &= ~VAR_READONLY;
    if (v && fresh) {
      v->attr &= ~VAR_NAMEREF;
      var_unset(sh->vars, save[i].name);
    }
    if (var_set(sh->vars, save[i].name, eq + 1, 0) < 0) return MSB_ENOMEM;
    v = var_lookup(sh->vars, save[i].name);
    if (v) v->attr |= VAR_EXPORT;
    var_changed(sh->vars);
  }
  return 0;
}

static void interp_unbind_env(shell *sh, interp_envsave *save, size_t n) {
  size_t i;
  for (i = n; i-- > 0;) {
    var *v;
    if (!save[i].name) continue;
    v = var_lookup(sh->vars, save[i].name);
    if (v) v->attr &= ~VAR_READONLY;
    if (save[i].had && save[i].val) {
      var_set(sh->vars, save[i].name, save[i].val, 0);
      v = var_lookup(sh->vars, save[i].name);
      if (v) v->attr = save[i].attr;
    } else
      var_unset(sh->vars, save[i].name);
    var_changed(sh->vars);
    mem_free(sh->m, save[i].name);
    mem_free(sh->m, save[i].val);
  }
}

static void interp_procsub_cleanup(shell *sh);

/* Exit status bash -c gives a syntax error: the parser's status rule (2 for
 * most, $? kept for [[ ]] errors, $? or 2 for end of input inside quotes,
 * 127 inside $( )), and 1 for errors inside an array assignment. */
static int interp_syntax_status(shell *sh, const parse_error *e,
                                const char *src, size_t len) {
  const char *ls = src, *le;
  int line = 1;
  size_t off = 0, k;
  while (line < e->line && off < len) {
    while (off < len && src[off] != '\n') off++;
    if (off >= len) break;
    off++;
    line++;
  }
  ls = src + off;
  k = off;
  while (k < len && src[k] != '\n') k++;
  le = src + k;
  if (e->code == MSB_ENOMEM) return 2;
  if (e->status_rule == PARSE_STATUS_127) return 127;
  {
    /* name=( in command position */
    const char *p = ls;
    for (;;) {
      const char *q;
      while (p < le &&
             (*p == ' ' || *p == '\t' || *p == ';' || *p == '&' || *p == '|'))
        p++;
      q = p;
      while (q < le &&
             (*q == '_' || (*q >= 'a' && *q <= 'z') ||
              (*q >= 'A' && *q <= 'Z') || (q > p && *q >= '0' && *q <= '9')))
        q++;
      if (q > p && q + 1 < le && q[0] == '=' && q[1] == '(') return 1;
      while (q < le && *q != ';' && *q != '&' && *q != '|') q++;
      if (q >= le) break;
      p = q;
    }
  }
  if (e->status_rule == PARSE_STATUS_NZ) return sh->status ? sh->status : 2;
  if (e->status_rule == PARSE_STATUS_KEEP || !e->msg[0] ||
      strstr(e->msg, "conditional") || strstr(e->msg, "expected `)'")) {
    const char *q = le;
    while (q < src + len && (*q == '\n' || *q == ' ' || *q == '\t')) q++;
    if ((strstr(e->msg, "`newline'") || strstr(e->msg, "`EOF'")) &&
        q >= src + len)
      return 2;
    return sh->status;
  }
  return 2;
}

static int interp_exec_main(shell *sh, const char *script, size_t len) {
  int rc = 0, status = 0;
  parser *p = parse_create(sh->m, script, len, 1,
                           (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0);
  ast_node *node;
  if (!p) return MSB_ENOMEM;
  interp_set_aliases(sh, p);
  sh->tree = parse_tree(p);
  sh->parser = p;
  for (;;) {
    rc = parse_next(p, &node);
    if (!rc) {
      buf pre;
      buf_init(&pre, sh->m);
      buf_printf(&pre, "%s: ", interp_name(sh));
      if (!pre.err) interp_parse_warnings(sh, p, buf_str(&pre));
      buf_finish(&pre);
    }
    if (rc) {
      const parse_error *e = parse_get_error(p);
      buf b, pre;
      if (rc == MSB_ENOMEM) break;
      buf_init(&b, sh->m);
      buf_init(&pre, sh->m);
      buf_printf(&pre, "%s: -c: ", interp_name(sh));
      parse_error_format(&b, e, buf_str(&pre));
      if (!b.err && !pre.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
      buf_finish(&pre);
      rc = status = interp_syntax_status(sh, e, script, len);
      sh->fail = CMD_FAIL_USAGE; /* the script itself is the bad argument */
      break;
    }
    if (!node) {
      rc = status;
      break;
    }
    rc = interp_node(sh, node);
    interp_procsub_cleanup(sh);
    if (rc < 0) break;
    status = rc;
    sh->status = rc;
    if (sh->flow == SH_FLOW_EXIT) {
      rc = status = sh->status;
      break;
    }
    sh->flow = SH_FLOW_NONE;
    parse_set_flags(p, (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0);
    interp_set_aliases(sh, p);
  }
  if (rc >= 0 && sh->trap_exit) {
    char *t = sh->trap_exit;
    sh->trap_exit = NULL;
    sh->status = status;
    sh->flow = SH_FLOW_NONE;
    rc = interp_run_trap(sh, t);
    mem_free(sh->m, t);
    if (rc >= 0) rc = sh->flow == SH_FLOW_EXIT ? sh->status : status;
  }
  sh->parser = NULL;
  sh->tree = NULL;
  parse_destroy(p);
  return rc;
}

static void interp_procsub_cleanup(shell *sh) { (void)sh; }

static void interp_limit_message(shell *sh, int rc) {
  buf *e = &sh->run->err;
  limit_id lim;
  if (rc == MSB_ENOMEM) {
    buf_finish(e);
    buf_init(e, sh->m);
    if (sh->run->sec) {
      /* the message replaces what stderr held, redacted or not */
      secret_stream_reset(&sh->run->rerr);
      buf_clear(&sh->run->red_err);
    }
    sh->run->limit = LIMIT_MAX_MEMORY_BYTES;
  } else if (e->err) {
    buf_finish(e);
    buf_init(e, sh->m);
  }
  if (!sh->run->limit) sh->run->limit = LIMIT_MAX_STEPS;
  lim = sh->run->limit;
  if (lim == LIMIT_CANCELLED) return; /* bash killed by SIGINT: silent */
  if (lim == LIMIT_DEADLINE) {
    buf_puts(e, "bash: memsandbox: time limit exceeded (timeout)\n");
    return;
  }
  buf_printf(e, "bash: memsandbox: %s exceeded (%s=%llu)\n",
             sh->run->pipe_stop && rc != MSB_ENOMEM ? "pipe capacity limit"
                                                    : limit_noun(lim),
             limit_name(lim), (unsigned long long)limit_value(sh->lim, lim));
}

/* An EXIT trap runs when the call's script ends (the shell exits, as for
 * `bash -c`). A call stopped by a limit ends like a process killed with
 * SIGKILL: the trap is not run (it would need more of the budget that ran
 * out) and does not outlive the call either. */
static void interp_drop_exit_trap(shell *sh) {
  if (!sh->trap_exit) return;
  mem_free(sh->m, sh->trap_exit);
  sh->trap_exit = NULL;
  buf_puts(
      &sh->run->err,
      "bash: memsandbox: EXIT trap not run: the call stopped at a limit\n");
}

/* The failure class of a run that ends with status. */
static const char *interp_failure(const shell *sh, int status) {
  if (status == 0) return NULL;
  if (sh->run->limit) return CMD_FAIL_LIMIT;
  return sh->fail ? sh->fail : CMD_FAIL_OTHER;
}

static void interp_fill_result(shell *sh, int status, msb_result *res) {
  sh_run *r = sh->run;
  interp_trim_output(sh);
  if (r->sec) {
    secret_stream_flush(&r->rout);
    secret_stream_flush(&r->rerr);
    res->exit_code = status;
    res->out_total = r->rout.total;
    res->err_total = r->rerr.total;
    res->out = (uint8_t *)buf_steal(&r->red_out, &res->out_len);
    res->err = (uint8_t *)buf_steal(&r->red_err, &res->err_len);
    res->out_truncated = res->out_total > res->out_len;
    res->err_truncated = res->err_total > res->err_len;
    res->cwd = mem_strdup(sh->m, sh->cwd);
    res->limit = limit_name(r->limit);
    res->failure = interp_failure(sh, status);
    return;
  }
  res->exit_code = status;
  res->out_total = r->out.len + r->out_drop;
  res->err_total = r->err.len + r->err_drop;
  res->out_truncated = r->out_drop > 0;
  res->err_truncated = r->err_drop > 0;
  res->out = (uint8_t *)buf_steal(&r->out, &res->out_len);
  res->err = (uint8_t *)buf_steal(&r->err, &res->err_len);
  res->cwd = mem_strdup(sh->m, sh->cwd);
  res->limit = limit_name(r->limit);
  res->failure = interp_failure(sh, status);
}

/* Builds the exec's secret set and its two redacting streams. Returns 0,
 * MSB_EINVAL (bad bindings: msb_exec checks them first, with a message)
 * or MSB_ENOMEM. */
static int interp_secrets_begin(shell *sh, const msb_exec_opts *opts,
                                secret_set *set, sh_run *run) {
  buf why;
  int rc;
  buf_init(&why, sh->m);
  rc = secret_set_init(set, sh->m, opts->secrets, opts->secret_count, opts->env,
                       opts->env_count, &why);
  buf_finish(&why);
  if (rc) return rc;
  buf_init(&run->red_out, sh->m);
  buf_init(&run->red_err, sh->m);
  if ((rc = secret_stream_init(&run->rout, set, &run->red_out,
                               sh->lim->max_output_bytes)) ||
      (rc = secret_stream_init(&run->rerr, set, &run->red_err,
                               sh->lim->max_output_bytes)) ||
      (rc = secret_window_init(&run->written, set))) {
    secret_stream_finish(&run->rout);
    secret_stream_finish(&run->rerr);
    secret_set_finish(set);
    return rc;
  }
  run->sec = set;
  vfs_set_guard(sh->fs, set, &run->written);
  return 0;
}

static void interp_secrets_end(shell *sh, secret_set *set, sh_run *run) {
  if (!run->sec) return;
  vfs_set_guard(sh->fs, NULL, NULL);
  secret_window_finish(&run->written);
  secret_stream_finish(&run->rout);
  secret_stream_finish(&run->rerr);
  buf_finish(&run->red_out);
  buf_finish(&run->red_err);
  secret_set_finish(set);
  run->sec = NULL;
}

/* Notes on stderr that a piece of session state was dropped. */
/* why: NULL when it holds a secret value, else why that could not be
 * ruled out. */
static void interp_scrub_note(shell *sh, const char *what, const char *name,
                              const char *why) {
  buf_printf(&sh->run->err,
             "bash: memsandbox: %s%s%s not kept after this call: %s\n",
             name ? name : "", name ? ": " : "", what,
             why ? why : "it holds a secret value");
}

static int interp_has_secret(const secret_set *s, const char *v) {
  return v && secret_find(s, v, strlen(v), NULL, 0);
}

typedef struct interp_scrub {
  shell *sh;
  const secret_set *s;
} interp_scrub;

static int interp_scrub_var(void *ctx, const var *v) {
  interp_scrub *c = ctx;
  int hit = interp_has_secret(c->s, v->name) || interp_has_secret(c->s, v->val);
  const var_elem *e;
  for (e = var_elem_next(v, NULL); !hit && e; e = var_elem_next(v, e))
    hit = interp_has_secret(c->s, e->val) || interp_has_secret(c->s, e->key);
  if (hit) interp_scrub_note(c->sh, "variable", v->name, NULL);
  return hit;
}

/* Frees the names of removed functions (interp_func_unset keeps the slot
 * for the probe runs), rehashing in place as var_compact does: this must
 * not fail. */
static void interp_funcs_compact(shell *sh) {
  size_t i, k, z = 0, n = sh->funcn;
  for (i = 0; i < n; i++) {
    sh_func *f = &sh->funcs[i];
    if (f->name && !f->body) {
      mem_free(sh->m, f->name);
      f->name = NULL;
      sh->funcused--;
    }
    if (!f->name) z = i;
  }
  for (k = 1; k <= n; k++) {
    sh_func f = sh->funcs[(z + k) & (n - 1)];
    if (!f.name) continue;
    memset(&sh->funcs[(z + k) & (n - 1)], 0, sizeof f);
    *interp_func_slot(sh->funcs, n, f.name) = f;
  }
}

static int interp_tree_order(const void *a, const void *b) {
  const ast_tree *x = *(const ast_tree *const *)a;
  const ast_tree *y = *(const ast_tree *const *)b;
  return x < y ? -1 : x > y;
}

static int interp_bytes_secret(void *ctx, const void *p, size_t n) {
  return secret_find(ctx, p, n, NULL, 0);
}

/* Gives f a tree of its own parsed from its printed definition (in b).
 * Returns 0, or non-zero when that failed (f is then unchanged). */
static int interp_func_retree(shell *sh, sh_func *f, const buf *b) {
  ast_tree *tree = NULL;
  ast_node *root = NULL, *d;
  int rc = parse_string(sh->m, b->p ? b->p : "", b->len, 1, PARSE_EXTGLOB,
                        &tree, &root, NULL);
  d = !rc && root && root->kind == AST_LIST ? root->u.list.items : NULL;
  if (!d || d->next || d->kind != AST_FUNC || strcmp(d->u.func.name, f->name)) {
    ast_tree_release(tree);
    return rc ? rc : MSB_EINVAL;
  }
  ast_tree_release(f->tree);
  f->tree = tree;
  f->body = d->u.func.body;
  return 0;
}

/* A function keeps the whole tree of the text that defined it, and an
 * eval string can hold a value next to a definition free of any: such a
 * function gets a tree of its own, parsed from its printed definition
 * (only its line numbers change). Each distinct tree is searched once. */
static void interp_scrub_trees(shell *sh, const secret_set *s, buf *b) {
  ast_tree **t = mem_alloc(sh->m, (sh->funcused + 1) * sizeof *t), *key;
  size_t i, n = 0, k = 0;
  for (i = 0; t && i < sh->funcn; i++)
    if (sh->funcs[i].body && sh->funcs[i].tree) t[n++] = sh->funcs[i].tree;
  if (t) qsort(t, n, sizeof *t, interp_tree_order);
  for (i = 0; i < n; i++) /* keep the distinct trees that hold a value */
    if ((!i || t[i] != t[i - 1]) &&
        arena_each(&t[i]->a, interp_bytes_secret, (void *)s))
      t[k++] = t[i];
  for (i = 0; i < sh->funcn; i++) {
    sh_func *f = &sh->funcs[i];
    if (!f->body || !f->tree) continue;
    key = f->tree;
    if (t && !bsearch(&key, t, k, sizeof *t, interp_tree_order)) continue;
    buf_clear(b);
    if (!ast_print_function(b, f->name, f->body, AST_PRINT_STACK_MAX) &&
        !b->err && !interp_func_retree(sh, f, b))
      continue;
    interp_scrub_note(sh, "function", f->name,
                      "it could not be checked for secret values");
    interp_func_unset(sh, f->name);
  }
  mem_free(sh->m, t);
}

/* Secrets live for one call: whatever session state would carry a value
 * into later calls (or a snapshot) is dropped here, with a note on
 * stderr: variables (names, values, array elements and keys), functions,
 * aliases, traps, positional parameters and the directory stack. The
 * tables then forget the dropped names, and the environ cache is rebuilt.
 * Nothing here needs memory except the notes, the printing of function
 * bodies and new function trees, and a function that cannot be printed or
 * re-parsed goes too: out of memory never leaves a value behind. */
static void interp_scrub_secrets(shell *sh, const secret_set *s) {
  interp_scrub c;
  size_t i;
  int k, rc;
  buf b;
  c.sh = sh;
  c.s = s;
  var_drop_if(sh->vars, interp_scrub_var, &c);
  var_compact(sh->vars);
  (void)var_environ(sh->vars); /* the old cache may list a value */
  buf_init(&b, sh->m);
  for (i = 0; i < sh->funcn; i++) {
    sh_func *f = &sh->funcs[i];
    if (!f->name || !f->body) continue;
    buf_clear(&b);
    rc = ast_print_function(&b, f->name, f->body, AST_PRINT_STACK_MAX);
    if (rc == MSB_ENOMEM || rc == MSB_ELIMIT || b.err ||
        secret_find(s, b.p, b.len, NULL, 0)) {
      /* a body that could not be printed could not be checked either */
      interp_scrub_note(sh, "function", f->name,
                        rc == MSB_ENOMEM || rc == MSB_ELIMIT || b.err
                            ? "it could not be checked for secret values"
                            : NULL);
      interp_func_unset(sh, f->name);
    }
  }
  interp_scrub_trees(sh, s, &b);
  interp_funcs_compact(sh);
  buf_finish(&b);
  for (i = 0; i < sh->naliases;) {
    sh_alias *a = &sh->aliases[i];
    if (interp_has_secret(s, a->name) || interp_has_secret(s, a->value)) {
      interp_scrub_note(sh, "alias", NULL, NULL);
      mem_free(sh->m, a->name);
      mem_free(sh->m, a->value);
      memmove(a, a + 1, (sh->naliases - i - 1) * sizeof *a);
      sh->naliases--;
    } else
      i++;
  }
  for (k = 1; sh->trap_sig && k <= TRAP_NSIG; k++)
    if (interp_has_secret(s, sh->trap_sig[k])) {
      interp_scrub_note(sh, "signal trap", NULL, NULL);
      mem_free(sh->m, sh->trap_sig[k]);
      sh->trap_sig[k] = NULL;
    }
  for (k = 0; k < 3; k++) {
    /* the traps that run (DEBUG is not stored) */
    static const char *const what[] = {"EXIT trap", "ERR trap", "RETURN trap"};
    char **t = k == 0   ? &sh->trap_exit
               : k == 1 ? &sh->trap_err
                        : &sh->trap_return;
    if (interp_has_secret(s, *t)) {
      interp_scrub_note(sh, what[k], NULL, NULL);
      mem_free(sh->m, *t);
      *t = NULL;
    }
  }
  for (k = 0; k < sh->npos; k++)
    if (interp_has_secret(s, sh->pos[k])) {
      interp_scrub_note(sh, "positional parameters", NULL, NULL);
      interp_set_pos(sh, NULL, 0); /* frees only */
      break;
    }
  for (k = 0; k < sh->ndirs;) {
    if (interp_has_secret(s, sh->dirstack[k])) {
      interp_scrub_note(sh, "directory stack entry", NULL, NULL);
      mem_free(sh->m, sh->dirstack[k]);
      memmove(sh->dirstack + k, sh->dirstack + k + 1,
              (size_t)(sh->ndirs - k - 1) * sizeof *sh->dirstack);
      sh->ndirs--;
    } else
      k++;
  }
}

static int interp_exec(shell *sh, const char *script, size_t len,
                       const msb_exec_opts *opts, msb_result *res) {
  sh_run run;
  secret_set set;
  interp_envsave *save = NULL;
  size_t nsave = 0;
  int rc, k, oom = 0;
  sh_stream *s0, *s1, *s2;
  memset(&run, 0, sizeof run);
  memset(&set, 0, sizeof set);
  buf_init(&run.out, sh->m);
  buf_init(&run.err, sh->m);
  if (opts && opts->secret_count &&
      (rc = interp_secrets_begin(sh, opts, &set, &run)))
    return rc;
  run.procsub_next = 63;
  run.pace = sh->pace;
  if (run.pace) run.pace->run = &run;
  sh->run = &run;
  var_set_limit(sh->vars, sh->lim->max_array_items, &run.limit);
  sh->flow = SH_FLOW_NONE;
  sh->depth = 0;
  sh->loops = 0;
  s0 = interp_stream_new(sh, SH_S_IN);
  s1 = interp_stream_new(sh, SH_S_BUF);
  s2 = interp_stream_new(sh, SH_S_BUF);
  if (s0 && opts && opts->stdin_len &&
      (s0->data = mem_alloc(sh->m, opts->stdin_len)) != NULL) {
    memcpy(s0->data, opts->stdin_data, opts->stdin_len);
    s0->len = opts->stdin_len;
  }
  if (!s0 || !s1 || !s2 || (opts && opts->stdin_len && !s0->data)) {
    interp_stream_unref(sh, s0);
    interp_stream_unref(sh, s1);
    interp_stream_unref(sh, s2);
    interp_secrets_end(sh, &set, &run);
    var_set_limit(sh->vars, 0, NULL);
    sh->run = NULL;
    return MSB_ENOMEM;
  }
  s1->ob = &run.out;
  s2->ob = &run.err;
  for (k = 0; k < SH_NFD; k++) interp_fd_set(sh, k, NULL);
  sh->fd[0] = s0;
  sh->fd[1] = s1;
  sh->fd[2] = s2;
  if (opts && opts->cwd) {
    buf p;
    struct vfs_stat st;
    buf_init(&p, sh->m);
    interp_abspath(sh, opts->cwd, &p);
    if (!p.err && !vfs_stat(sh->fs, buf_str(&p), 1, &st) &&
        st.kind == VFS_DIR) {
      char *c = buf_steal(&p, NULL);
      if (c) {
        mem_free(sh->m, sh->cwd);
        sh->cwd = c;
        var_set(sh->vars, "PWD", c, 0);
      }
    }
    buf_finish(&p);
  }
  if (opts && (opts->env_count || opts->secret_count)) {
    nsave = opts->env_count + opts->secret_count;
    save = mem_zalloc(sh->m, nsave * sizeof *save);
    if (!save)
      rc = MSB_ENOMEM;
    else {
      rc = interp_bind_env(sh, opts->env, opts->env_count, save, 0);
      if (!rc)
        rc = interp_bind_env(sh, opts->secrets, opts->secret_count,
                             save + opts->env_count, 1);
    }
  } else
    rc = 0;
  var_log(sh->vars, 1); /* environment_changes: the script's own */
  if (!rc) {
    if (sh->lim->max_script_bytes && len > sh->lim->max_script_bytes) {
      run.limit = LIMIT_MAX_SCRIPT_BYTES;
      rc = MSB_ELIMIT;
    } else
      rc = interp_exec_main(sh, script, len);
  }
  var_log(sh->vars, 0);
  if (save) {
    interp_unbind_env(sh, save, nsave);
    mem_free(sh->m, save);
  }
  if (rc < 0) {
    interp_limit_message(sh, rc);
    interp_drop_exit_trap(sh);
    rc = run.limit == LIMIT_CANCELLED ? SH_CANCEL_STATUS : SH_LIMIT_STATUS;
  }
  sh->status = rc;
  sh->flow = SH_FLOW_NONE;
  while (var_level(sh->vars) > 0) var_pop_scope(sh->vars);
  sh->funcs_active = 0;
  /* each call is one `bash -c`: $_ starts afresh in the next, and never
   * carries a value (secret or not) out of this one */
  mem_free(sh->m, sh->last_arg);
  sh->last_arg = NULL;
  if (run.sec) {
    interp_scrub_secrets(sh, &set);
    var_log_keep_current(sh->vars);
  }
  if (run.made_devfd) {
    vfs_remove(sh->fs, "/dev/fd", VFS_RM_DIR | VFS_RM_RECURSIVE);
    vfs_remove(sh->fs, "/dev", VFS_RM_DIR);
  }
  interp_fill_result(sh, rc, res);
  if (run.sec && (run.rout.err || run.rerr.err || run.out.err || run.err.err))
    oom = 1; /* never hand back output that may have missed redaction */
  interp_secrets_end(sh, &set, &run);
  for (k = 0; k < SH_NFD; k++) interp_fd_set(sh, k, NULL);
  buf_finish(&run.out);
  buf_finish(&run.err);
  var_set_limit(sh->vars, 0, NULL);
  sh->run = NULL;
  if (run.pace) run.pace->run = NULL;
  if (oom) {
    mem_free(sh->m, res->out);
    mem_free(sh->m, res->err);
    mem_free(sh->m, res->cwd);
    memset(res, 0, sizeof *res);
    return MSB_ENOMEM;
  }
  return 0;
}

/* interp_exec with $0 set to opts->arg0 for this call only, as NAME in
 * `bash -c SCRIPT NAME`; the session's own $0 comes back after. */
static int interp_exec_named(shell *sh, const char *script, size_t len,
                             const msb_exec_opts *opts, msb_result *res) {
  char *keep = sh->arg0;
  int rc;
  if (!opts || !opts->arg0) return interp_exec(sh, script, len, opts, res);
  if (!(sh->arg0 = mem_strdup(sh->m, opts->arg0))) {
    sh->arg0 = keep;
    return MSB_ENOMEM;
  }
  rc = interp_exec(sh, script, len, opts, res);
  mem_free(sh->m, sh->arg0);
  sh->arg0 = keep;
  return rc;
}

/* Runs a script like `bash -c`. */
int shell_exec(shell *sh, const char *script, size_t len,
               const msb_exec_opts *opts, msb_result *res) {
  return shell_exec_paced(sh, script, len, opts, NULL, res);
}

int shell_exec_paced(shell *sh, const char *script, size_t len,
                     const msb_exec_opts *opts, shell_pace *pace,
                     msb_result *res) {
  memset(res, 0, sizeof *res);
  var_log_clear(sh->vars); /* a fresh-state run changes nothing here */
  if (opts && opts->fresh_state) {
    shell *f = shell_create(sh->m, sh->fs, sh->lim, sh->rng, sh->clock_ns);
    int rc;
    if (!f) return MSB_ENOMEM;
    f->pace = pace;
    rc = interp_exec_named(f, script, len, opts, res);
    shell_destroy(f);
    return rc;
  }
  sh->pace = pace;
  {
    int rc = interp_exec_named(sh, script, len, opts, res);
    sh->pace = NULL;
    return rc;
  }
}
