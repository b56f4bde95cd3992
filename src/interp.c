/* interp.c - the shell interpreter's walk of the AST: simple commands,
 * command substitution, subshells, pipelines and compound commands. The
 * other parts: interp_io.c (streams, counters, messages), interp_session.c
 * (the session's life, jobs), interp_redir.c, interp_cmd.c (running one
 * command), interp_assign.c, interp_cond.c ([[ ]]) and interp_exec.c
 * (entry points, the end of a call).
 *
 * Execution walks the AST directly (never re-parses). Each function returns
 * an exit status 0-255, or a negative MSB_E* code that unwinds the whole run
 * (a limit or out of memory). break/continue/return/exit travel as
 * sh->flow. Subshells, pipeline stages and command substitutions run in a
 * copy of the shell (interp_clone) that shares the run's counters and output
 * streams, so state changes inside them vanish as they do with fork(2).
 * Pipelines run stage by stage: each stage's stdout buffer becomes the next
 * stage's stdin. See interp.h for the stream model. */
#include "interp_int.h"

#include <string.h>

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

int interp_debug_trap(shell *sh) {
  int rc;
  if (!sh->trap_debug || sh->in_trap) return 0;
  /* functions run it only under set -T or declare -t */
  if (sh->funcs_active && !(sh->opts & SH_O_FUNCTRACE) && !sh->fn_traced)
    return 0;
  rc = interp_run_trap(sh, sh->trap_debug);
  return rc < 0 ? rc : 0;
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
  if (!rc) rc = interp_debug_trap(sh);
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
const char interp_comsub_prefix[] = "command substitution: ";

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
int interp_comsub_node(shell *sh, ast_node *n) {
  ast_redir *r = interp_cat_redir(n);
  return r ? interp_cat_file(sh, r) : interp_node(sh, n);
}

/* The end of a child shell (a subshell, $( ), bash FILE): its exit or
 * return status, its EXIT trap, then what it hands back to its parent
 * (the next pid, the random state) before it goes. */
int interp_child_end(shell *sh, shell *c, int rc) {
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

/* Subshell run of n with fd 1 captured into out. */
int interp_capture_run(shell *sh, ast_node *n, buf *out) {
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
  rc = interp_child_end(sh, c, rc);
  return rc;
}

/* Deferred command substitution: parse and run text (starting at source
 * line `line`) in a subshell. */
int interp_capture_text_run(shell *sh, const char *text, size_t len, int line,
                            buf *out) {
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
  rc = interp_child_end(sh, c, rc);
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
    if (!rc && sh->trap_debug) {
      sh->line = n->line;
      if (!sh->in_trap) sh->cur_cmd = n; /* $BASH_COMMAND */
      rc = interp_debug_trap(sh);
    }
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
  if (sh->trap_debug && !sh->in_trap) {
    sh->cur_cmd = n; /* $BASH_COMMAND */
    if ((rc = interp_debug_trap(sh))) return rc;
  }
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
      rc = expand_match(sh, pat, subj, 0);
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

void interp_procout_free(shell *sh) {
  size_t i;
  for (i = 0; i < sh->nprocout; i++) {
    mem_free(sh->m, sh->procout[i].path);
    mem_free(sh->m, sh->procout[i].text);
    interp_stream_unref(sh, sh->procout[i].out);
  }
  mem_free(sh->m, sh->procout);
  sh->procout = NULL;
  sh->nprocout = sh->procoutcap = 0;
}

int interp_procout_add(shell *sh, const char *path, const ast_node *cmd,
                       int line) {
  sh_procout *p;
  buf text;
  if (sh->nprocout == sh->procoutcap) {
    size_t cap = sh->procoutcap ? sh->procoutcap * 2 : 4;
    p = mem_realloc(sh->m, sh->procout, cap * sizeof *p);
    if (!p) return MSB_ENOMEM;
    sh->procout = p;
    sh->procoutcap = cap;
  }
  buf_init(&text, sh->m);
  if (cmd) ast_print_command(&text, cmd, interp_stack_left(sh));
  p = &sh->procout[sh->nprocout];
  p->path = mem_strdup(sh->m, path);
  p->text = text.err ? NULL : buf_steal(&text, NULL);
  if (!p->text) p->text = mem_strdup(sh->m, "");
  buf_finish(&text);
  if (!p->path || !p->text) {
    mem_free(sh->m, p->path);
    mem_free(sh->m, p->text);
    return MSB_ENOMEM;
  }
  p->out = interp_stream_ref(sh->fd[1]);
  p->line = line;
  sh->nprocout++;
  return 0;
}

/* Whether an open descriptor still writes the reader's file (`exec >
 * >(cmd)`): its writer is not done until the shell ends. */
static int interp_procout_open(shell *sh, const sh_procout *p) {
  int k;
  for (k = 0; k < SH_NFD; k++)
    if (sh->fd[k] && sh->fd[k]->kind == SH_S_FILE && sh->fd[k]->path &&
        !strcmp(sh->fd[k]->path, p->path))
      return 1;
  return 0;
}

/* A process substitution has run: as in bash, $! names it and `wait $!`
 * returns its status. */
int interp_procsub_done(shell *sh, int pid, int status) {
  sh->bg_pid = pid;
  return interp_job_add(sh, pid, status);
}

/* Runs one reader in a subshell: its input is what the writer wrote, its
 * output the one the substitution had; the file goes. */
static int interp_procout_one(shell *sh, sh_procout *p) {
  const uint8_t *data;
  size_t len = 0;
  shell *c;
  sh_stream *in;
  int rc;
  if (vfs_read(sh->fs, p->path, &data, &len)) len = 0;
  in = interp_stream_new(sh, SH_S_IN);
  if (!in) return MSB_ENOMEM;
  if (len && !(in->data = mem_alloc(sh->m, len))) {
    interp_stream_unref(sh, in);
    return MSB_ENOMEM;
  }
  if (len) memcpy(in->data, data, len);
  in->len = len;
  vfs_remove(sh->fs, p->path, 0);
  c = interp_clone(sh);
  if (!c) {
    interp_stream_unref(sh, in);
    return MSB_ENOMEM;
  }
  interp_fd_set(c, 0, in);
  interp_fd_set(c, 1, interp_stream_ref(p->out));
  rc = interp_string(c, p->text, strlen(p->text), p->line);
  if (rc >= 0 && SH_FLOW_ENDS(c->flow)) rc = c->status;
  sh->next_pid = c->next_pid;
  if (rc >= 0) rc = interp_procsub_done(sh, c->pid, rc);
  shell_destroy(c);
  return rc < 0 ? rc : 0;
}

/* Runs the readers registered from index mark on, in order, except those
 * whose file an open descriptor still writes (all when force: the shell
 * ends). */
int interp_procout_run(shell *sh, size_t mark, int force) {
  size_t i, keep = mark, n = sh->nprocout;
  int rc = 0;
  for (i = mark; i < n; i++) {
    sh_procout p = sh->procout[i];
    if (!force && interp_procout_open(sh, &p)) {
      sh->procout[keep++] = p;
      continue;
    }
    if (!rc) rc = interp_procout_one(sh, &p);
    mem_free(sh->m, p.path);
    mem_free(sh->m, p.text);
    interp_stream_unref(sh, p.out);
  }
  /* readers added while these ran were run by their own commands */
  sh->nprocout = keep;
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
    if (!rc) rc = interp_debug_trap(sh);
    if (!rc) rc = interp_denied(sh, "[[", "[[", 1); /* `test`'s code */
    if (!rc) rc = interp_cond(sh, n->u.cond);
    check = 1;
    break;
  case AST_ARITH: {
    int64_t v;
    sh->line = n->line;
    if (!sh->in_trap) sh->cur_cmd = n; /* $BASH_COMMAND */
    rc = interp_tick_pace(sh);
    if (!rc) rc = interp_debug_trap(sh);
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
  int rc, r2, fdnext = sh->run->procsub_next;
  size_t mark = sh->nprocout;
  if (!n) return 0;
  if ((rc = interp_stack_push(sh, SH_STACK_NODE))) return rc;
  rc = interp_node_run(sh, n);
  interp_stack_pop(sh, SH_STACK_NODE);
  /* the writers of the >(...) this command made are done */
  if (sh->nprocout > mark && (r2 = interp_procout_run(sh, mark, 0)) < 0)
    rc = r2;
  /* the substitutions' descriptors close with the command: the next
   * command's first is /dev/fd/63 again, as in bash */
  if (sh->nprocout == mark) sh->run->procsub_next = fdnext;
  return rc;
}
