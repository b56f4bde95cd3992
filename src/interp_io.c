/* interp_io.c - the run's streams and counters: file descriptors, step
 * and byte charging, pacing, output with its limits, error messages and
 * reading a command's input. */
#include "interp_int.h"

#include <string.h>

#include "coro.h"

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

sh_stream *interp_stream_ref(sh_stream *s) {
  if (s) s->refs++;
  return s;
}

void interp_fd_set(shell *sh, int fd, sh_stream *s) {
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
int interp_pace(shell *sh) {
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
  if (r->byte_carry < SH_BYTES_PER_STEP) return r->limit ? MSB_ELIMIT : 0;
  n = r->byte_carry / SH_BYTES_PER_STEP;
  r->byte_carry %= SH_BYTES_PER_STEP;
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
int interp_shadow_low(const shell *sh) {
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
void interp_trim_output(shell *sh) {
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
void interp_sigpipe(shell *sh, sh_stream *s) {
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

const char *interp_name(shell *sh) {
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
int interp_pipe_overrun(shell *sh) {
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

/* Absolute path against cwd, ".." after a symlink as the kernel resolves
 * it (cd's logical paths use vfs_abspath). */
int interp_abspath(shell *sh, const char *p, buf *out) {
  return vfs_abspath_phys(sh->fs, sh->cwd, p, out);
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

void interp_free_pos(shell *sh) {
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

int interp_atoi(const char *s) {
  int v = 0;
  while (*s >= '0' && *s <= '9' && v < 100000000) v = v * 10 + (*s++ - '0');
  return v;
}
