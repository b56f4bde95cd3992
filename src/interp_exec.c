/* interp_exec.c - entering the interpreter: strings, traps and scripts;
 * shell_exec with its environment, limits, result and the secret scrub at
 * the end of a call. */
#include "interp_int.h"

#include <stdlib.h>
#include <string.h>

#include "trap.h"

#define SH_LIMIT_STATUS 124
#define SH_CANCEL_STATUS 130 /* a cancelled run ends as if by SIGINT */

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
  rc = interp_child_end(sh, c, rc);
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
  if (sh->nprocout) { /* `exec > >(cmd)`: the shell's end closes it */
    int r2 = interp_procout_run(sh, 0, 1);
    if (r2 < 0 && rc >= 0) rc = r2;
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
  for (k = 0; k < 4; k++) {
    /* the traps that run */
    static const char *const what[] = {"EXIT trap", "ERR trap", "RETURN trap",
                                       "DEBUG trap"};
    char **t = k == 0   ? &sh->trap_exit
               : k == 1 ? &sh->trap_err
               : k == 2 ? &sh->trap_return
                        : &sh->trap_debug;
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
