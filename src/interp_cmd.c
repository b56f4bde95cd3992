/* interp_cmd.c - running one command once its words are expanded: table
 * commands with their context and arena, functions, scripts found on
 * PATH, builtins, and the policy check before each. */
#include "interp_int.h"

#include <string.h>

#include "coro.h"
#include "policy.h"

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
int interp_denied(shell *sh, const char *shown, const char *name, int builtin) {
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
static int interp_write_error(shell *sh, buf *b, const cmd_desc *d,
                              const char *name, const char *text) {
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
    /* a builtin's error, with bash's name and line prefix */
    buf_printf(b, "%s: line %d: %s: write error: %s\n", interp_name(sh),
               sh->line, name, text);
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
int interp_table_cmd(shell *sh, const cmd_desc *d, int argc, char **argv,
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
    st = interp_write_error(sh, &b, d, argv[0], msb_strerror(werr));
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
int interp_call(shell *sh, sh_func *f, int argc, char **argv) {
  char **opos = sh->pos;
  int onpos = sh->npos, rc, ocall, otraced;
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
  otraced = sh->fn_traced;
  sh->fn_traced = f->trace;
  rc = interp_stack_push(sh, SH_STACK_CALL);
  /* a traced function runs DEBUG once more on entry, as bash does */
  if (!rc) rc = interp_debug_trap(sh);
  if (!rc) {
    rc = interp_node(sh, body);
    interp_stack_pop(sh, SH_STACK_CALL);
  }
  sh->fn_traced = otraced;
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
  {
    /* a local GLOBIGNORE going away changes dotglob as its unset would */
    const var *gi = var_lookup(sh->vars, "GLOBIGNORE");
    int local_gi = gi && gi->level > 0;
    var_pop_scope(sh->vars);
    if (local_gi) builtin_globignore_changed(sh);
  }
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
    interp_errf(sh, "%s: %s", name, msb_strerror(rc));
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
    interp_errf(sh, "%s: %s", name, msb_strerror(rc));
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
 * bash does, "bash: line N: NAME: write error: ...", status 1. */
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
    buf_printf(&m, "%s: line %d: %s: write error: %s\n", interp_name(sh),
               sh->line, argv[0], msb_strerror(werr));
    r2 = m.err ? m.err : interp_write(sh, 2, m.p, m.len);
    buf_finish(&m);
    if (r2 == MSB_ENOMEM) return r2;
    if (!rc) rc = 1;
  }
  return rc;
}

int interp_path_script(shell *sh, const char *name, buf *full) {
  const char *path = var_value(sh->vars, "PATH");
  while (path && *path) {
    const char *e = strchr(path, ':');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    if (n && path[0] == '/') {
      struct vfs_stat st;
      full->len = 0;
      buf_put(full, path, n);
      buf_putc(full, '/');
      buf_puts(full, name);
      if (!full->err && !vfs_stat(sh->fs, buf_str(full), 1, &st) &&
          st.kind == VFS_FILE && (st.mode & 0111))
        return 1;
    }
    path = e ? e + 1 : NULL;
  }
  return 0;
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
    buf full;
    buf_init(&full, sh->m);
    if (interp_path_script(sh, argv[0], &full)) {
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
  {
    /* a name the policy denies says so even when nothing provides it */
    int rc = interp_denied(sh, argv[0], argv[0], 1);
    if (rc) return rc;
  }
  interp_errf(sh, "%s: command not found", argv[0]);
  sh->fail = CMD_FAIL_NOT_FOUND;
  return 127;
}
