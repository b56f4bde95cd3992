/* builtin.c - the shell's own builtins: the commands that read or change
 * shell state (cd, declare, set, read, trap, ...), in one sorted table.
 *
 * Each builtin follows bash 5's wording and exit statuses; diagnostics go
 * through interp_errf ("bash: line N: NAME: ..."). Features a sandbox cannot
 * have (job control, signals) fail with bash's own messages where bash has
 * one, or a specific "not supported in memsandbox" message. */
#include <string.h>

#include "help.h"
#include "interp.h"
#include "trap.h"

/* declare -f / type: one printer for function bodies, the parser's. */
int interp_print_func(shell *sh, const char *name, const ast_node *body,
                      buf *b) {
  int rc = ast_print_function(b, name, body, interp_stack_left(sh));
  if (rc == MSB_ENOTSUP) {
    interp_errf(sh, "%s: cannot print this function's body exactly", name);
    return rc;
  }
  if (rc == MSB_ELIMIT) return interp_stack_fail(sh);
  return rc ? rc : buf_putc(b, '\n');
}

static int bi_usage(shell *sh, const char *name, const char *usage) {
  interp_usagef(sh, "%s: usage: %s", name, usage);
  return 2;
}

static int bi_badopt(shell *sh, const char *name, const char *arg,
                     const char *usage) {
  interp_errf(sh, "%s: %.2s: invalid option", name, arg);
  return bi_usage(sh, name, usage);
}

/* For builtins whose options are the letters in ok: a first argument that
 * is another option is bash's "invalid option" usage error (2); returns
 * the index of the first operand (after any options and "--") or -1 after
 * such an error. */
static int bi_opts_only(shell *sh, int argc, char **argv, const char *ok,
                        const char *usage) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) return i + 1;
    for (o = argv[i] + 1; *o; o++)
      if (!strchr(ok, *o)) {
        char bad[3] = {'-', *o, 0};
        bi_badopt(sh, argv[0], bad, usage);
        return -1;
      }
  }
  return i;
}

static int bi_out(shell *sh, buf *b) {
  int rc = b->err ? b->err : interp_write(sh, 1, b->p, b->len);
  buf_finish(b);
  return rc == MSB_ENOMEM ? rc : 0;
}

static int bi_parse_int(const char *s, int64_t *v) {
  int neg = 0;
  uint64_t u = 0;
  const char *p = s;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (!*p) return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    u = u * 10 + (uint64_t)(*p - '0');
    if (u > ((uint64_t)1 << 63)) return 0;
  }
  while (*p == ' ' || *p == '\t') p++;
  if (*p) return 0;
  *v = neg ? (int64_t)(0 - u) : (int64_t)u;
  return 1;
}

/* Assignment honoring -i (arithmetic) and readonly. */
int builtin_assign(shell *sh, const char *name, const char *val,
                   unsigned flags) {
  var *v;
  int rc;
  char nb[24];
  const char *target;
  if (var_resolve(sh->vars, name, &target)) {
    interp_errf(sh, "warning: %s: circular name reference", name);
    return 1;
  }
  if (strchr(target, '[')) return interp_assign_element(sh, target, val, flags);
  name = target;
  v = var_get(sh->vars, name, NULL);
  if (v && (v->attr & VAR_READONLY)) {
    interp_errf(sh, "%s: readonly variable", name);
    return 1;
  }
  if (v && (v->attr & VAR_INTEGER)) {
    int64_t iv;
    rc = expand_arith_text(sh, val, strlen(val), &iv, NULL);
    if (rc) return rc;
    if (flags & VS_APPEND) {
      const char *o = var_value(sh->vars, name);
      int64_t ov = 0;
      if (o) expand_arith_text(sh, o, strlen(o), &ov, NULL);
      iv = (int64_t)((uint64_t)iv + (uint64_t)ov);
    }
    expand_fmt_i64(nb, iv);
    val = nb;
    flags &= ~VS_APPEND;
  }
  rc = var_set(sh->vars, name, val, flags);
  if (rc == VAR_ERO) {
    interp_errf(sh, "%s: readonly variable", name);
    return 1;
  }
  if (rc) return rc;
  if (!strcmp(name, "SECONDS")) expand_seconds_assigned(sh, val);
  if (sh->opts & SH_O_ALLEXPORT) {
    v = var_get(sh->vars, name, NULL);
    if (v && !(v->attr & VAR_EXPORT)) {
      v->attr |= VAR_EXPORT;
      var_log_var(sh->vars, v, 0);
      var_changed(sh->vars);
    }
  }
  return 0;
}

static void bi_dq(buf *b, const char *s) {
  const char *p;
  /* bash shows values with control or non-ASCII bytes as $'...' */
  for (p = s; *p; p++)
    if ((uint8_t)*p < 32 || (uint8_t)*p >= 127) break;
  if (*p) {
    static const char esc[] = "\aa\bb\033E\ff\nn\rr\tt\vv\\\\''";
    buf_puts(b, "$'");
    for (p = s; *p; p++) {
      const char *e;
      uint8_t c = (uint8_t)*p;
      for (e = esc; *e && *e != *p; e += 2);
      if (*e) {
        buf_putc(b, '\\');
        buf_putc(b, e[1]);
      } else if (c < 32 || c >= 127)
        buf_printf(b, "\\%03o", c);
      else
        buf_putc(b, *p);
    }
    buf_putc(b, '\'');
    return;
  }
  buf_putc(b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\' || *s == '$' || *s == '`') buf_putc(b, '\\');
    buf_putc(b, *s);
  }
  buf_putc(b, '"');
}

static void bi_attrs(const var *v, char *o) {
  if (!var_attr_letters(v->attr, o)) strcpy(o, "-");
}

/* declare -p line for v (with newline). */
int builtin_describe(shell *sh, var *v, buf *b) {
  char at[16];
  bi_attrs(v, at);
  buf_printf(b, "declare -%s %s", at, v->name);
  if (v->attr & VAR_NOVALUE) {
    buf_putc(b, '\n');
    return b->err;
  }
  if (v->attr & (VAR_ARRAY | VAR_ASSOC)) {
    var_elem **el;
    size_t n, i;
    if (var_elems(sh->m, v, &el, &n)) return MSB_ENOMEM;
    buf_puts(b, "=(");
    for (i = 0; i < n; i++) {
      if (i) buf_putc(b, ' ');
      if (el[i]->key) {
        buf_putc(b, '[');
        {
          const char *k = el[i]->key;
          int plain = *k != 0;
          const char *q;
          for (q = k; *q; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                  (*q >= '0' && *q <= '9') || *q == '_' || *q == '.' ||
                  *q == '-' || *q == '/' || *q == ':'))
              plain = 0;
          if (plain)
            buf_puts(b, k);
          else
            bi_dq(b, k);
        }
        buf_puts(b, "]=");
      } else
        buf_printf(b, "[%lld]=", (long long)el[i]->idx);
      bi_dq(b, el[i]->val);
    }
    if ((v->attr & VAR_ASSOC) && n) buf_putc(b, ' ');
    buf_puts(b, ")\n");
    mem_free(sh->m, el);
    return b->err;
  }
  buf_putc(b, '=');
  bi_dq(b, v->val ? v->val : "");
  buf_putc(b, '\n');
  return b->err;
}

/* ---- : true eval source ----------------------------------------------- */

static int bi_colon(shell *sh, int argc, char **argv) {
  (void)sh;
  (void)argc;
  (void)argv;
  return 0;
}

static int bi_join(shell *sh, int argc, char **argv, int from, char **out) {
  buf b;
  int i;
  buf_init(&b, sh->m);
  for (i = from; i < argc; i++) {
    if (i > from) buf_putc(&b, ' ');
    buf_puts(&b, argv[i]);
  }
  if (b.err) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  *out = buf_steal(&b, NULL);
  if (!*out) *out = mem_strdup(sh->m, "");
  buf_finish(&b);
  return *out ? 0 : MSB_ENOMEM;
}

static int bi_eval(shell *sh, int argc, char **argv) {
  char *s;
  int rc, i = bi_opts_only(sh, argc, argv, "", "eval [arg ...]");
  if (i < 0) return 2;
  if (i >= argc) return 0;
  if ((rc = bi_join(sh, argc, argv, i, &s))) return rc;
  {
    const char *opp = sh->parse_prefix;
    sh->xlevel++;
    sh->parse_prefix = "eval: ";
    rc = interp_string(sh, s, strlen(s), sh->line);
    sh->parse_prefix = opp;
    sh->xlevel--;
  }
  mem_free(sh->m, s);
  return rc;
}

static int bi_source(shell *sh, int argc, char **argv) {
  buf p;
  const uint8_t *data;
  size_t len;
  int rc, i = 1;
  char *copy, **opos = NULL;
  int onpos = 0, swapped = 0;
  if (argc > 1 && !strcmp(argv[1], "--")) i = 2;
  if (i >= argc) {
    interp_errf(sh, "%s: filename argument required", argv[0]);
    interp_usagef(sh, "%s: usage: %s filename [arguments]", argv[0], argv[0]);
    return 2;
  }
  buf_init(&p, sh->m);
  interp_abspath(sh, argv[i], &p);
  rc = p.err ? p.err : vfs_read(sh->fs, buf_str(&p), &data, &len);
  buf_finish(&p);
  if (rc == MSB_ENOMEM) return rc;
  if (rc) {
    interp_errf(sh, "%s: %s", argv[i], msb_strerror(rc));
    return 1;
  }
  copy = mem_strndup(sh->m, (const char *)data, len);
  if (!copy) return MSB_ENOMEM;
  if (argc > i + 1) {
    opos = sh->pos;
    onpos = sh->npos;
    sh->pos = NULL;
    sh->npos = 0;
    swapped = 1;
    if ((rc = interp_set_pos(sh, argv + i + 1, argc - i - 1))) {
      sh->pos = opos;
      sh->npos = onpos;
      mem_free(sh->m, copy);
      return rc;
    }
  }
  {
    const char *osrc = sh->cur_src;
    if (interp_push_frame(sh, "source", argv[i])) {
      rc = MSB_ENOMEM;
    } else {
      sh->cur_src = argv[i];
      sh->sourcing++;
      sh->xlevel++;
      rc = interp_string(sh, copy, len, 1);
      sh->xlevel--;
      sh->sourcing--;
      sh->cur_src = osrc;
      sh->nfstack--;
    }
  }
  if (sh->flow == SH_FLOW_RETURN) {
    sh->flow = SH_FLOW_NONE;
    if (rc >= 0) rc = sh->status;
  }
  mem_free(sh->m, copy);
  if (swapped) {
    interp_set_pos(sh, NULL, 0);
    sh->pos = opos;
    sh->npos = onpos;
  }
  return rc;
}

/* ---- flow ------------------------------------------------------------- */

static int bi_exit(shell *sh, int argc, char **argv) {
  int64_t v = sh->status;
  if (argc > 1) {
    if (!bi_parse_int(argv[1], &v)) {
      interp_errf(sh, "exit: %s: numeric argument required", argv[1]);
      v = 2;
    } else if (argc > 2) {
      interp_errf(sh, "exit: too many arguments");
      return 1;
    }
  }
  sh->status = (int)(v & 255);
  sh->flow = SH_FLOW_EXIT;
  return sh->status;
}

static int bi_return(shell *sh, int argc, char **argv) {
  int64_t v = sh->status;
  if (!sh->funcs_active && !sh->sourcing) {
    interp_errf(sh,
                "return: can only `return' from a function or sourced "
                "script");
    return 2;
  }
  if (argc > 1) {
    if (!bi_parse_int(argv[1], &v)) {
      interp_errf(sh, "return: %s: numeric argument required", argv[1]);
      v = 2;
    } else if (argc > 2) {
      interp_errf(sh, "return: too many arguments");
      return 1;
    }
  }
  sh->status = (int)(v & 255);
  sh->flow = SH_FLOW_RETURN;
  return sh->status;
}

static int bi_loopctl(shell *sh, int argc, char **argv) {
  int64_t n = 1;
  int brk = argv[0][0] == 'b';
  if (argc > 1) {
    if (!bi_parse_int(argv[1], &n)) {
      interp_errf(sh, "%s: %s: numeric argument required", argv[0], argv[1]);
      sh->status = 128;
      sh->flow = SH_FLOW_EXIT;
      return 128;
    }
    if (n < 1) {
      interp_errf(sh, "%s: %s: loop count out of range", argv[0], argv[1]);
      return 1;
    }
  }
  if (!sh->loops) {
    interp_errf(sh,
                "%s: only meaningful in a `for', `while', or `until' "
                "loop",
                argv[0]);
    return 0;
  }
  if (argc > 2) {
    /* bash abandons the whole script here */
    interp_errf(sh, "%s: too many arguments", argv[0]);
    sh->status = 1;
    sh->flow = SH_FLOW_EXIT;
    return 1;
  }
  if (n > sh->loops) n = sh->loops;
  sh->flow = brk ? SH_FLOW_BREAK : SH_FLOW_CONT;
  sh->flow_n = (int)n;
  return 0;
}

/* ---- cd pwd pushd popd dirs ------------------------------------------ */

static int bi_chdir(shell *sh, const char *arg, const char *shown,
                    int physical) {
  buf p;
  struct vfs_stat st;
  int rc;
  char *np;
  buf_init(&p, sh->m);
  if (physical) {
    buf t;
    buf_init(&t, sh->m);
    interp_abspath(sh, arg, &t);
    rc = t.err ? t.err : vfs_realpath(sh->fs, buf_str(&t), 0, &p);
    buf_finish(&t);
  } else {
    interp_abspath(sh, arg, &p);
    rc = p.err;
  }
  if (!rc) rc = vfs_stat(sh->fs, buf_str(&p), 1, &st);
  if (!rc && st.kind != VFS_DIR) rc = MSB_ENOTDIR;
  /* a directory the policy hides cannot become the cwd */
  if (!rc) rc = vfs_access(sh->fs, buf_str(&p), VFS_ACC_READ);
  if (rc) {
    buf_finish(&p);
    if (rc == MSB_ENOMEM) return rc;
    interp_errf(sh, "cd: %s: %s", shown, msb_strerror(rc));
    return 1;
  }
  np = buf_steal(&p, NULL);
  buf_finish(&p);
  if (!np) return MSB_ENOMEM;
  var_set(sh->vars, "OLDPWD", sh->cwd, 0);
  mem_free(sh->m, sh->cwd);
  sh->cwd = np;
  var_set(sh->vars, "PWD", np, 0);
  return 0;
}

static int bi_cd(shell *sh, int argc, char **argv) {
  int i = 1, phys = 0, rc;
  const char *dir;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'P')
        phys = 1;
      else if (*o == 'L')
        phys = 0;
      else if (*o == 'e' || *o == '@')
        ;
      else
        return bi_badopt(sh, "cd", argv[i] + (o - argv[i] - 1),
                         "cd [-L|[-P [-e]] [-@]] [dir]");
    }
  }
  if (argc - i > 1) {
    interp_errf(sh, "cd: too many arguments");
    return 1;
  }
  if (i >= argc) {
    dir = var_value(sh->vars, "HOME");
    if (!dir) {
      interp_errf(sh, "cd: HOME not set");
      return 1;
    }
    if (!*dir) return 0;
    return bi_chdir(sh, dir, dir, phys);
  }
  dir = argv[i];
  if (!strcmp(dir, "-")) {
    const char *old = var_value(sh->vars, "OLDPWD");
    char *copy;
    if (!old) {
      interp_errf(sh, "cd: OLDPWD not set");
      return 1;
    }
    copy = mem_strdup(sh->m, old);
    if (!copy) return MSB_ENOMEM;
    rc = bi_chdir(sh, copy, copy, phys);
    mem_free(sh->m, copy);
    if (!rc) {
      buf b;
      buf_init(&b, sh->m);
      buf_printf(&b, "%s\n", sh->cwd);
      return bi_out(sh, &b);
    }
    return rc;
  }
  if (!*dir) return 0;
  return bi_chdir(sh, dir, dir, phys);
}

static int bi_pwd(shell *sh, int argc, char **argv) {
  buf b;
  int i, phys = 0;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-P"))
      phys = 1;
    else if (!strcmp(argv[i], "-L"))
      phys = 0;
    else if (argv[i][0] == '-' && argv[i][1])
      return bi_badopt(sh, "pwd", argv[i], "pwd [-LP]");
  }
  buf_init(&b, sh->m);
  if (phys) {
    if (vfs_realpath(sh->fs, sh->cwd, 0, &b)) {
      buf_clear(&b);
      buf_puts(&b, sh->cwd);
    }
  } else
    buf_puts(&b, sh->cwd);
  buf_putc(&b, '\n');
  return bi_out(sh, &b);
}

static int bi_dirs_print(shell *sh) {
  buf b;
  int i;
  const char *home = var_value(sh->vars, "HOME");
  size_t hl = home ? strlen(home) : 0;
  buf_init(&b, sh->m);
  for (i = -1; i < sh->ndirs; i++) {
    const char *d = i < 0 ? sh->cwd : sh->dirstack[sh->ndirs - 1 - i];
    if (i >= 0) buf_putc(&b, ' ');
    if (hl && !strncmp(d, home, hl) && (d[hl] == '/' || !d[hl])) {
      buf_putc(&b, '~');
      buf_puts(&b, d + hl);
    } else
      buf_puts(&b, d);
  }
  buf_putc(&b, '\n');
  return bi_out(sh, &b);
}

static int bi_dirs(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  return bi_dirs_print(sh);
}

static int bi_pushd(shell *sh, int argc, char **argv) {
  char *old, **ns;
  int rc;
  if (argc < 2) {
    interp_errf(sh, "pushd: no other directory");
    return 1;
  }
  old = mem_strdup(sh->m, sh->cwd);
  if (!old) return MSB_ENOMEM;
  rc = bi_chdir(sh, argv[1], argv[1], 0);
  if (rc) {
    mem_free(sh->m, old);
    return rc;
  }
  ns = mem_realloc(sh->m, sh->dirstack, ((size_t)sh->ndirs + 1) * sizeof *ns);
  if (!ns) {
    mem_free(sh->m, old);
    return MSB_ENOMEM;
  }
  sh->dirstack = ns;
  ns[sh->ndirs++] = old;
  return bi_dirs_print(sh);
}

static int bi_popd(shell *sh, int argc, char **argv) {
  char *d;
  int rc;
  (void)argc;
  (void)argv;
  if (!sh->ndirs) {
    interp_errf(sh, "popd: directory stack empty");
    return 1;
  }
  d = sh->dirstack[--sh->ndirs];
  rc = bi_chdir(sh, d, d, 0);
  mem_free(sh->m, d);
  if (rc) return rc;
  return bi_dirs_print(sh);
}

/* ---- variables -------------------------------------------------------- */

static int bi_print_var(shell *sh, var *v, buf *b) {
  return builtin_describe(sh, v, b);
}

/* Handles NAME[=value] / NAME+=value / name=(...) argument of declare. */
static ast_assign *bi_decl_pending(shell *sh, const char *arg) {
  int k;
  for (k = 0; k < sh->ndecl; k++)
    if (sh->decl_argv[k] == arg) return sh->decl_asg[k];
  return NULL;
}

static int bi_decl_one(shell *sh, const char *arg, unsigned set, unsigned clr,
                       int local, int global, const char *cmd, int *status) {
  ast_assign *pend = bi_decl_pending(sh, arg);
  const char *eq = strchr(arg, '=');
  size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
  int append = 0, rc;
  char name[256];
  char *idx = NULL;
  var *v;
  if (eq && eq > arg && eq[-1] == '+') {
    append = 1;
    nl--;
  }
  if (nl >= sizeof name) nl = sizeof name - 1;
  memcpy(name, arg, nl);
  name[nl] = 0;
  {
    char *br = strchr(name, '[');
    if (br && name[nl - 1] == ']') {
      *br = 0;
      name[nl - 1] = 0;
      idx = br + 1;
    }
  }
  if (!var_valid_name(name, strlen(name))) {
    interp_errf(sh, "%s: `%s': not a valid identifier", cmd, arg);
    sh->fail = CMD_FAIL_USAGE;
    *status = 1;
    return 0;
  }
  if (local && !global)
    v = var_local(sh->vars, name);
  else if ((set | clr) & VAR_NAMEREF)
    v = var_bind_self(sh->vars, name, global ? VS_GLOBAL : 0);
  else
    v = var_bind(sh->vars, name, global ? VS_GLOBAL : 0);
  if (!v) return MSB_ENOMEM;
  if ((set & VAR_NAMEREF) && (set & (VAR_ARRAY | VAR_ASSOC))) {
    interp_errf(sh, "%s: %s: reference variable cannot be an array", cmd, name);
    *status = 1;
    return 0;
  }
  if ((v->attr & VAR_READONLY) && (eq || (clr & VAR_READONLY))) {
    interp_errf(sh, "%s: readonly variable", name);
    *status = 1;
    return 0;
  }
  if ((set & VAR_ASSOC) && (v->attr & VAR_ARRAY) && !(v->attr & VAR_NOVALUE)) {
    interp_errf(sh, "%s: cannot convert indexed to associative array", name);
    *status = 1;
    return 0;
  }
  if ((set & (VAR_ARRAY | VAR_ASSOC)) && !(v->attr & (VAR_ARRAY | VAR_ASSOC))) {
    char *old = v->val;
    v->val = NULL;
    var_make_array(sh->vars, v, (set & VAR_ASSOC) != 0);
    if (old) {
      if (set & VAR_ASSOC)
        var_set_key(sh->vars, v->name, "0", old, 0);
      else
        var_set_index(sh->vars, v->name, 0, old, 0);
      mem_free(sh->m, old);
    } else
      v->attr |= VAR_NOVALUE; /* `declare -a q': no value until assigned */
  }
  v->attr |= set & ~(VAR_ARRAY | VAR_ASSOC | VAR_READONLY);
  v->attr &= ~clr;
  if (set & VAR_UPPER) v->attr &= ~VAR_LOWER;
  if (set & VAR_LOWER) v->attr &= ~VAR_UPPER;
  var_changed(sh->vars);
  if (eq) {
    const char *val = eq + 1;
    size_t vl = strlen(val);
    if (val[0] == '(' && vl && val[vl - 1] == ')' && !idx) {
      /* a=(...) passed as a string: re-parse as an assignment */
      buf src;
      buf_init(&src, sh->m);
      buf_printf(&src, "%s%s=%s", v->name, append ? "+" : "", val);
      if (src.err) {
        buf_finish(&src);
        return MSB_ENOMEM;
      }
      if (!(v->attr & (VAR_ARRAY | VAR_ASSOC))) {
        var_make_array(sh->vars, v, 0);
      }
      {
        int ol = sh->funcs_active;
        rc = interp_string(sh, src.p, src.len, sh->line);
        sh->funcs_active = ol;
      }
      buf_finish(&src);
      if (rc < 0) return rc;
      if (rc) *status = 1;
    } else if (idx) {
      if (v->attr & VAR_ASSOC)
        rc = var_set_key(sh->vars, v->name, idx, val, append ? VS_APPEND : 0);
      else {
        int64_t ix;
        rc = expand_arith_text(sh, idx, strlen(idx), &ix, NULL);
        if (!rc)
          rc =
              var_set_index(sh->vars, v->name, ix, val, append ? VS_APPEND : 0);
      }
      if (rc < 0) return rc;
    } else {
      if ((v->attr & VAR_INTEGER)) {
        int64_t iv;
        char nb[24];
        rc = expand_arith_text(sh, val, strlen(val), &iv, NULL);
        if (rc) {
          if (rc < 0) return rc;
          *status = 1;
          return 0;
        }
        if (append) {
          const char *o = v->val;
          int64_t ov = 0;
          if (o) expand_arith_text(sh, o, strlen(o), &ov, NULL);
          iv = (int64_t)((uint64_t)iv + (uint64_t)ov);
        }
        expand_fmt_i64(nb, iv);
        rc = var_set(sh->vars, v->name, nb, global ? VS_GLOBAL : 0);
      } else {
        if (v->attr & VAR_NAMEREF) {
          rc = interp_set_nameref(sh, v, val, cmd);
          if (rc > 0) {
            *status = 1;
            return 0;
          }
        } else if (local && !global && v->level == var_level(sh->vars)) {
          mem_free(sh->m, v->val);
          v->val = NULL;
          v->attr &= ~VAR_NOVALUE;
          if (append) {
            rc = var_set(sh->vars, v->name, val, VS_APPEND);
          } else
            rc = var_set(sh->vars, v->name, val, 0);
        } else
          rc = var_set(sh->vars, v->name, val,
                       (append ? VS_APPEND : 0) | (global ? VS_GLOBAL : 0));
      }
      if (rc < 0) return rc;
    }
  }
  if (pend) {
    rc = interp_assign(sh, pend, global ? VS_GLOBAL : 0);
    if (rc < 0) return rc;
    if (rc) *status = 1;
  }
  if (set & VAR_READONLY) v->attr |= VAR_READONLY;
  return 0;
}

static int bi_declare_impl(shell *sh, int argc, char **argv, int local,
                           unsigned force_set) {
  unsigned set = force_set, clr = 0;
  int i, print = 0, funcs = 0, fnames = 0, global = 0, status = 0, rc;
  const char *cmd = argv[0];
  buf b;
  if (local && !sh->funcs_active) {
    interp_errf(sh, "local: can only be used in a function");
    return 1;
  }
  for (i = 1; i < argc; i++) {
    const char *o = argv[i];
    int plus;
    if (!strcmp(o, "--")) {
      i++;
      break;
    }
    if ((o[0] != '-' && o[0] != '+') || !o[1]) break;
    plus = o[0] == '+';
    for (o++; *o; o++) {
      unsigned f = 0;
      switch (*o) {
      case 'a': f = VAR_ARRAY; break;
      case 'A': f = VAR_ASSOC; break;
      case 'i': f = VAR_INTEGER; break;
      case 'l': f = VAR_LOWER; break;
      case 'u': f = VAR_UPPER; break;
      case 'n': f = VAR_NAMEREF; break;
      case 'r': f = VAR_READONLY; break;
      case 'x': f = VAR_EXPORT; break;
      case 't': break;
      case 'p': print = 1; break;
      case 'f': funcs = 1; break;
      case 'F': fnames = 1; break;
      case 'g': global = 1; break;
      default: {
        char bad[3] = {'-', *o, 0};
        bad[0] = plus ? '+' : '-';
        return bi_badopt(sh, cmd, bad,
                         local ? "local [option] name[=value] ..."
                               : "declare [-aAfFgiIlnrtux] [name[=value] "
                                 "...] or declare -p [-aAfFilnrtux] "
                                 "[name ...]");
      }
      }
      if (plus)
        clr |= f;
      else
        set |= f;
    }
  }
  if (funcs || fnames) {
    buf_init(&b, sh->m);
    if (i >= argc) {
      size_t k;
      /* sorted names */
      char **names = mem_zalloc(sh->m, (sh->funcn + 1) * sizeof *names);
      size_t n = 0, a2, c2;
      if (!names) return MSB_ENOMEM;
      for (k = 0; k < sh->funcn; k++)
        if (sh->funcs[k].name && sh->funcs[k].body)
          names[n++] = sh->funcs[k].name;
      for (a2 = 1; a2 < n; a2++)
        for (c2 = a2; c2 > 0 && strcmp(names[c2 - 1], names[c2]) > 0; c2--) {
          char *t = names[c2];
          names[c2] = names[c2 - 1];
          names[c2 - 1] = t;
        }
      for (k = 0; k < n; k++) {
        if (fnames)
          buf_printf(&b, "declare -f %s\n", names[k]);
        else
          interp_print_func(sh, names[k], interp_func_get(sh, names[k])->body,
                            &b);
      }
      mem_free(sh->m, names);
      return bi_out(sh, &b);
    }
    for (; i < argc; i++) {
      if (interp_func_get(sh, argv[i])) {
        if (fnames)
          buf_printf(&b, "%s\n", argv[i]);
        else
          interp_print_func(sh, argv[i], interp_func_get(sh, argv[i])->body,
                            &b);
      } else
        status = 1;
    }
    rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
  if (print || (i >= argc && !(set | clr))) {
    buf_init(&b, sh->m);
    if (i >= argc) {
      var **list;
      size_t n, k;
      if (var_list(sh->vars, sh->m, &list, &n)) {
        buf_finish(&b);
        return MSB_ENOMEM;
      }
      for (k = 0; k < n; k++) {
        if (set && !(list[k]->attr & set)) continue;
        if (print || 1) bi_print_var(sh, list[k], &b);
      }
      mem_free(sh->m, list);
      return bi_out(sh, &b);
    }
    for (; i < argc; i++) {
      var *v = var_lookup(sh->vars, argv[i]);
      if (!v) {
        interp_errf(sh, "%s: %s: not found", cmd, argv[i]);
        status = 1;
        continue;
      }
      bi_print_var(sh, v, &b);
    }
    rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
  if (i >= argc) {
    var **list;
    size_t n, k;
    buf_init(&b, sh->m);
    if (var_list(sh->vars, sh->m, &list, &n)) {
      buf_finish(&b);
      return MSB_ENOMEM;
    }
    for (k = 0; k < n; k++)
      if (list[k]->attr & set) bi_print_var(sh, list[k], &b);
    mem_free(sh->m, list);
    return bi_out(sh, &b);
  }
  if (!local && sh->funcs_active && !global && !force_set) local = 1;
  for (; i < argc; i++) {
    rc = bi_decl_one(sh, argv[i], set, clr, local, global, cmd, &status);
    if (rc) return rc;
  }
  return status;
}

static int bi_declare(shell *sh, int argc, char **argv) {
  return bi_declare_impl(sh, argc, argv, 0, 0);
}

static int bi_local(shell *sh, int argc, char **argv) {
  return bi_declare_impl(sh, argc, argv, 1, 0);
}

static int bi_export(shell *sh, int argc, char **argv) {
  int i = 1, unexport = 0, print = 0, status = 0, rc, funcs = 0;
  buf b;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'n')
        unexport = 1;
      else if (*o == 'p')
        print = 1;
      else if (*o == 'f')
        funcs = 1;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "export", bad,
                         "export [-fn] [name[=value] ...] or export -p");
      }
    }
  }
  (void)funcs;
  if (i >= argc || print) {
    var **list;
    size_t n, k;
    buf_init(&b, sh->m);
    if (var_list(sh->vars, sh->m, &list, &n)) {
      buf_finish(&b);
      return MSB_ENOMEM;
    }
    for (k = 0; k < n; k++)
      if (list[k]->attr & VAR_EXPORT) builtin_describe(sh, list[k], &b);
    mem_free(sh->m, list);
    return bi_out(sh, &b);
  }
  for (; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
    if (eq && nl && argv[i][nl - 1] == '+') nl--;
    if (!var_valid_name(argv[i], nl)) {
      interp_errf(sh, "export: `%s': not a valid identifier", argv[i]);
      sh->fail = CMD_FAIL_USAGE;
      status = 1;
      continue;
    }
    if (unexport) {
      char name[256];
      var *v;
      if (nl >= sizeof name) nl = sizeof name - 1;
      memcpy(name, argv[i], nl);
      name[nl] = 0;
      v = var_get(sh->vars, name, NULL);
      if (v) {
        var_log_var(sh->vars, v, 1); /* leaves the environment */
        v->attr &= ~VAR_EXPORT;
      }
      var_changed(sh->vars);
      if (eq) {
        rc = builtin_assign(sh, name, eq + 1, 0);
        if (rc < 0) return rc;
        if (rc) status = 1;
      }
      continue;
    }
    {
      int st = 0;
      char name[256];
      var *v;
      if (nl >= sizeof name) nl = sizeof name - 1;
      memcpy(name, argv[i], nl);
      name[nl] = 0;
      v = var_get(sh->vars, name, NULL);
      if (!eq) {
        if (!v) {
          v = var_bind(sh->vars, name, 0);
          if (!v) return MSB_ENOMEM;
        }
        v->attr |= VAR_EXPORT;
        var_log_var(sh->vars, v, 0);
        var_changed(sh->vars);
        continue;
      }
      rc = builtin_assign(sh, name, eq + 1,
                          (argv[i][nl] == '+') ? VS_APPEND : 0);
      if (rc < 0) return rc;
      if (rc) st = 1;
      v = var_get(sh->vars, name, NULL);
      if (v) {
        v->attr |= VAR_EXPORT;
        var_log_var(sh->vars, v, 0);
      }
      var_changed(sh->vars);
      if (st) status = 1;
    }
  }
  return status;
}

static int bi_readonly(shell *sh, int argc, char **argv) {
  int i = 1, status = 0, rc;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (strcmp(argv[i], "-p") && strcmp(argv[i], "-a") &&
        strcmp(argv[i], "-A") && strcmp(argv[i], "-f"))
      return bi_badopt(sh, "readonly", argv[i],
                       "readonly [-aAf] [name[=value] ...] or readonly -p");
  }
  if (i >= argc) {
    var **list;
    size_t n, k;
    buf b;
    buf_init(&b, sh->m);
    if (var_list(sh->vars, sh->m, &list, &n)) {
      buf_finish(&b);
      return MSB_ENOMEM;
    }
    for (k = 0; k < n; k++)
      if (list[k]->attr & VAR_READONLY) builtin_describe(sh, list[k], &b);
    mem_free(sh->m, list);
    return bi_out(sh, &b);
  }
  for (; i < argc; i++) {
    rc = bi_decl_one(sh, argv[i], VAR_READONLY, 0, 0, 0, "readonly", &status);
    if (rc) return rc;
  }
  return status;
}

static int bi_unset(shell *sh, int argc, char **argv) {
  int i = 1, funcs = 0, vars = 0, refs = 0, status = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'f')
        funcs = 1;
      else if (*o == 'v')
        vars = 1;
      else if (*o == 'n')
        refs = 1;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "unset", bad, "unset [-f] [-v] [-n] [name ...]");
      }
    }
  }
  for (; i < argc; i++) {
    char *name = argv[i], *br = strchr(name, '[');
    var *v;
    if (funcs && !vars) {
      interp_func_unset(sh, name);
      continue;
    }
    if (br && name[strlen(name) - 1] == ']') {
      char *key;
      *br = 0;
      key = br + 1;
      key[strlen(key) - 1] = 0;
      v = var_get(sh->vars, name, NULL);
      if (v) {
        int rc;
        if (!strcmp(key, "@") || !strcmp(key, "*"))
          rc = var_unset(sh->vars, name);
        else if (v->attr & VAR_ASSOC)
          rc = var_unset_elem(sh->vars, v, 0, key);
        else {
          int64_t ix;
          rc = expand_arith_text(sh, key, strlen(key), &ix, NULL);
          if (rc) {
            status = 1;
            continue;
          }
          if (ix < 0) ix += var_index_end(v);
          rc = var_unset_elem(sh->vars, v, ix, NULL);
        }
        if (rc == VAR_ERO) {
          interp_errf(sh, "unset: %s: cannot unset: readonly variable", name);
          status = 1;
        }
      }
      continue;
    }
    if (!var_valid_name(name, strlen(name))) {
      interp_errf(sh, "unset: `%s': not a valid identifier", name);
      sh->fail = CMD_FAIL_USAGE;
      status = 1;
      continue;
    }
    v = refs ? var_lookup(sh->vars, name) : var_get(sh->vars, name, NULL);
    if (v) {
      if ((refs ? var_unset_ref(sh->vars, name) : var_unset(sh->vars, name)) ==
          VAR_ERO) {
        interp_errf(sh, "unset: %s: cannot unset: readonly variable", name);
        status = 1;
      }
    } else if (!vars)
      interp_func_unset(sh, name);
  }
  return status;
}

static int bi_shift(shell *sh, int argc, char **argv) {
  int64_t n = 1;
  int i = bi_opts_only(sh, argc, argv, "", "shift [n]");
  if (i < 0) return 2;
  argv += i - 1;
  argc -= i - 1;
  if (argc > 2) {
    /* bash abandons the whole script here */
    interp_errf(sh, "shift: too many arguments");
    sh->status = 1;
    sh->flow = SH_FLOW_EXIT;
    return 1;
  }
  if (argc > 1 && !bi_parse_int(argv[1], &n)) {
    interp_errf(sh, "shift: %s: numeric argument required", argv[1]);
    return 1;
  }
  if (n < 0) {
    interp_errf(sh, "shift: %s: shift count out of range", argv[1]);
    return 1;
  }
  if (n > sh->npos) return 1;
  for (i = 0; i < n; i++) mem_free(sh->m, sh->pos[i]);
  memmove(sh->pos, sh->pos + n, (size_t)(sh->npos - n) * sizeof *sh->pos);
  sh->npos -= (int)n;
  return 0;
}

/* ---- set / shopt ------------------------------------------------------ */

static const struct {
  const char *name;
  unsigned flag;
  char letter;
} bi_setopts[] = {
    {"allexport", SH_O_ALLEXPORT, 'a'},
    {"braceexpand", SH_O_BRACE, 'B'},
    {"emacs", 0, 0},
    {"errexit", SH_O_ERREXIT, 'e'},
    {"errtrace", SH_O_ERRTRACE, 'E'},
    {"functrace", SH_O_FUNCTRACE, 'T'},
    {"hashall", SH_O_HASHALL, 'h'},
    {"histexpand", 0, 'H'},
    {"history", 0, 0},
    {"ignoreeof", 0, 0},
    {"interactive-comments", 0, 0},
    {"keyword", 0, 'k'},
    {"monitor", SH_O_MONITOR, 'm'},
    {"noclobber", SH_O_NOCLOBBER, 'C'},
    {"noexec", SH_O_NOEXEC, 'n'},
    {"noglob", SH_O_NOGLOB, 'f'},
    {"nolog", 0, 0},
    {"notify", 0, 'b'},
    {"nounset", SH_O_NOUNSET, 'u'},
    {"onecmd", 0, 't'},
    {"physical", 0, 'P'},
    {"pipefail", SH_O_PIPEFAIL, 0},
    {"posix", 0, 0},
    {"privileged", 0, 'p'},
    {"verbose", SH_O_VERBOSE, 'v'},
    {"vi", 0, 0},
    {"xtrace", SH_O_XTRACE, 'x'},
};
#define BI_NSETOPTS (sizeof bi_setopts / sizeof bi_setopts[0])

static int bi_setopt_name(shell *sh, const char *name, int on) {
  size_t k;
  for (k = 0; k < BI_NSETOPTS; k++)
    if (!strcmp(bi_setopts[k].name, name)) {
      if (bi_setopts[k].flag) {
        if (on)
          sh->opts |= bi_setopts[k].flag;
        else
          sh->opts &= ~bi_setopts[k].flag;
      } else if (on && strcmp(name, "interactive-comments") &&
                 strcmp(name, "emacs") && strcmp(name, "vi") &&
                 strcmp(name, "history") && strcmp(name, "posix") &&
                 strcmp(name, "errtrace") && strcmp(name, "functrace") &&
                 strcmp(name, "physical") && strcmp(name, "ignoreeof") &&
                 strcmp(name, "notify") && strcmp(name, "monitor")) {
        interp_errf(sh, "set: %s: not supported in memsandbox", name);
        return 1;
      }
      return 0;
    }
  interp_errf(sh, "set: %s: invalid option name", name);
  return 2;
}

static int bi_set_list(shell *sh) {
  var **list;
  size_t n, k;
  buf b;
  buf_init(&b, sh->m);
  if (var_list(sh->vars, sh->m, &list, &n)) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  for (k = 0; k < n; k++) {
    var *v = list[k];
    if (v->attr & VAR_NOVALUE) continue;
    if (v->attr & (VAR_ARRAY | VAR_ASSOC)) {
      char *line;
      buf t;
      buf_init(&t, sh->m);
      builtin_describe(sh, v, &t);
      line = t.p ? strchr(t.p, ' ') : NULL;
      if (line) line = strchr(line + 1, ' ');
      if (line) buf_puts(&b, line + 1);
      buf_finish(&t);
      continue;
    }
    buf_printf(&b, "%s=", v->name);
    expand_quote(&b, v->val ? v->val : "", 0);
    buf_putc(&b, '\n');
  }
  mem_free(sh->m, list);
  return bi_out(sh, &b);
}

static int bi_set(shell *sh, int argc, char **argv) {
  int i = 1, rc;
  if (argc == 1) return bi_set_list(sh);
  for (; i < argc; i++) {
    const char *a = argv[i];
    int on = a[0] == '-';
    const char *o;
    if (a[0] != '-' && a[0] != '+') break;
    if (!strcmp(a, "--")) {
      i++;
      return interp_set_pos(sh, argv + i, argc - i);
    }
    if (!strcmp(a, "-")) {
      sh->opts &= ~(SH_O_XTRACE | SH_O_VERBOSE);
      i++;
      break;
    }
    for (o = a + 1; *o; o++) {
      size_t k;
      if (*o == 'o') {
        if (i + 1 >= argc) {
          buf b;
          buf_init(&b, sh->m);
          for (k = 0; k < BI_NSETOPTS; k++) {
            int st = bi_setopts[k].flag
                         ? (sh->opts & bi_setopts[k].flag) != 0
                         : !strcmp(bi_setopts[k].name, "interactive-comments");
            if (on)
              buf_printf(&b, "%-15s\t%s\n", bi_setopts[k].name,
                         st ? "on" : "off");
            else
              buf_printf(&b, "set %co %s\n", st ? '-' : '+',
                         bi_setopts[k].name);
          }
          return bi_out(sh, &b);
        }
        rc = bi_setopt_name(sh, argv[++i], on);
        if (rc) return rc;
        continue;
      }
      for (k = 0; k < BI_NSETOPTS; k++)
        if (bi_setopts[k].letter == *o) break;
      if (k == BI_NSETOPTS ||
          (!bi_setopts[k].flag && *o != 'h' && *o != 'H' && *o != 'm' &&
           *o != 'B' && *o != 'E' && *o != 'T' && *o != 'P' && *o != 'b')) {
        char bad[3] = {a[0], *o, 0};
        if (k != BI_NSETOPTS) {
          interp_errf(sh, "set: %s: not supported in memsandbox", bad);
          return 1;
        }
        interp_errf(sh, "set: %s: invalid option", bad);
        interp_usagef(sh,
                      "set: usage: set [-abefhkmnptuvxBCEHPT] [-o "
                      "option-name] [--] [-] [arg ...]");
        return 2;
      }
      if (bi_setopts[k].flag) {
        if (on)
          sh->opts |= bi_setopts[k].flag;
        else
          sh->opts &= ~bi_setopts[k].flag;
      }
    }
  }
  if (i < argc) return interp_set_pos(sh, argv + i, argc - i);
  return 0;
}

static const struct {
  const char *name;
  unsigned flag;
  int fixed; /* -1 settable, else the fixed value */
} bi_shopts[] = {
    {"autocd", 0, 0},
    {"assoc_expand_once", 0, 0},
    {"cdable_vars", 0, 0},
    {"cdspell", 0, 0},
    {"checkhash", 0, 0},
    {"checkjobs", 0, 0},
    {"checkwinsize", 0, 1},
    {"cmdhist", 0, 1},
    {"compat31", 0, 0},
    {"compat32", 0, 0},
    {"compat40", 0, 0},
    {"compat41", 0, 0},
    {"compat42", 0, 0},
    {"compat43", 0, 0},
    {"compat44", 0, 0},
    {"complete_fullquote", 0, 1},
    {"direxpand", 0, 0},
    {"dirspell", 0, 0},
    {"dotglob", SH_SO_DOTGLOB, -1},
    {"execfail", 0, 0},
    {"expand_aliases", SH_SO_EXPAND_ALIASES, -1},
    {"extdebug", 0, 0},
    {"extglob", SH_SO_EXTGLOB, -1},
    {"extquote", 0, 1},
    {"failglob", SH_SO_FAILGLOB, -1},
    {"force_fignore", 0, 1},
    {"globasciiranges", 0, 1},
    {"globskipdots", 0, 1},
    {"globstar", SH_SO_GLOBSTAR, -1},
    {"gnu_errfmt", 0, 0},
    {"histappend", 0, 0},
    {"histreedit", 0, 0},
    {"histverify", 0, 0},
    {"hostcomplete", 0, 1},
    {"huponexit", 0, 0},
    {"inherit_errexit", SH_SO_INHERIT_ERREXIT, -1},
    {"interactive_comments", 0, 1},
    {"lastpipe", SH_SO_LASTPIPE, -1},
    {"lithist", 0, 0},
    {"localvar_inherit", 0, 0},
    {"localvar_unset", 0, 0},
    {"login_shell", 0, 0},
    {"mailwarn", 0, 0},
    {"no_empty_cmd_completion", 0, 0},
    {"nocaseglob", SH_SO_NOCASEGLOB, -1},
    {"nocasematch", SH_SO_NOCASEMATCH, -1},
    {"noexpand_translation", 0, 0},
    {"nullglob", SH_SO_NULLGLOB, -1},
    {"patsub_replacement", 0, 1},
    {"progcomp", 0, 1},
    {"progcomp_alias", 0, 0},
    {"promptvars", 0, 1},
    {"restricted_shell", 0, 0},
    {"shift_verbose", 0, 0},
    {"sourcepath", 0, 1},
    {"varredir_close", 0, 0},
    {"xpg_echo", 0, 0},
};
#define BI_NSHOPTS (sizeof bi_shopts / sizeof bi_shopts[0])

static int bi_shopt_get(shell *sh, size_t k) {
  if (bi_shopts[k].fixed >= 0) return bi_shopts[k].fixed;
  return (sh->shopts & bi_shopts[k].flag) != 0;
}

static int bi_shopt(shell *sh, int argc, char **argv) {
  int i = 1, set = 0, unset = 0, quiet = 0, print = 0, oflag = 0;
  int status = 0;
  size_t k;
  buf b;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 's')
        set = 1;
      else if (*o == 'u')
        unset = 1;
      else if (*o == 'q')
        quiet = 1;
      else if (*o == 'p')
        print = 1;
      else if (*o == 'o')
        oflag = 1;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "shopt", bad, "shopt [-pqsu] [-o] [optname ...]");
      }
    }
  }
  if (set && unset) {
    interp_errf(sh,
                "shopt: cannot set and unset shell options "
                "simultaneously");
    return 1;
  }
  if (oflag) {
    for (; i < argc; i++) {
      int rc = bi_setopt_name(sh, argv[i], set || !unset);
      if (rc) return 1;
      if (!set && !unset) return 0;
    }
    return 0;
  }
  buf_init(&b, sh->m);
  if (i >= argc) {
    for (k = 0; k < BI_NSHOPTS; k++) {
      int v = bi_shopt_get(sh, k);
      if ((set && !v) || (unset && v)) continue;
      if (print || set || unset)
        buf_printf(&b, "shopt %s %s\n", v ? "-s" : "-u", bi_shopts[k].name);
      else
        buf_printf(&b, "%-15s\t%s\n", bi_shopts[k].name, v ? "on" : "off");
    }
    if (quiet) buf_clear(&b);
    return bi_out(sh, &b);
  }
  for (; i < argc; i++) {
    for (k = 0; k < BI_NSHOPTS; k++)
      if (!strcmp(bi_shopts[k].name, argv[i])) break;
    if (k == BI_NSHOPTS) {
      interp_errf(sh, "shopt: %s: invalid shell option name", argv[i]);
      status = 1;
      continue;
    }
    if (set || unset) {
      if (bi_shopts[k].fixed >= 0) {
        if (bi_shopts[k].fixed != set) {
          interp_errf(sh, "shopt: %s: not supported in memsandbox", argv[i]);
          status = 1;
        }
        continue;
      }
      if (set)
        sh->shopts |= bi_shopts[k].flag;
      else
        sh->shopts &= ~bi_shopts[k].flag;
      continue;
    }
    if (!bi_shopt_get(sh, k)) status = 1;
    if (!quiet) {
      if (print)
        buf_printf(&b, "shopt %s %s\n", bi_shopt_get(sh, k) ? "-s" : "-u",
                   bi_shopts[k].name);
      else
        buf_printf(&b, "%-15s\t%s\n", bi_shopts[k].name,
                   bi_shopt_get(sh, k) ? "on" : "off");
    }
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

/* ---- read / mapfile --------------------------------------------------- */

static int bi_read(shell *sh, int argc, char **argv) {
  int i, raw = 0, nchars = -1, exact = 0, fd = 0, status = 0, rc;
  const char *arr = NULL, *prompt = NULL;
  int delim = '\n';
  const uint8_t *in;
  size_t n, pos, used;
  buf line;
  int got_delim = 0;
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (; *o; o++) {
      const char *val = NULL;
      if (strchr("adnNptu", *o)) {
        if (o[1])
          val = o + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else {
          interp_errf(sh, "read: -%c: option requires an argument", *o);
          return bi_usage(sh, "read",
                          "read [-ers] [-a array] [-d delim] "
                          "[-i text] [-n nchars] [-N nchars] [-p prompt] "
                          "[-t timeout] [-u fd] [name ...]");
        }
      }
      switch (*o) {
      case 'r': raw = 1; break;
      case 's':
      case 'e': break;
      case 'a': arr = val; break;
      case 'd': delim = val[0] ? (uint8_t)val[0] : 0; break;
      case 'n':
      case 'N': {
        int64_t v;
        if (!bi_parse_int(val, &v) || v < 0) {
          interp_errf(sh, "read: %s: invalid number", val);
          return 1;
        }
        nchars = (int)v;
        exact = *o == 'N';
        break;
      }
      case 'p': prompt = val; break;
      case 't': break;
      case 'u': {
        int64_t v;
        if (!bi_parse_int(val, &v) || v < 0 || v > 2147483647) {
          interp_errf(sh, "read: %s: invalid file descriptor specification",
                      val);
          return 1;
        }
        if (v >= SH_NFD || !sh->fd[v]) {
          interp_errf(sh,
                      "read: %s: invalid file descriptor: Bad file "
                      "descriptor",
                      val);
          return 1;
        }
        fd = (int)v;
        break;
      }
      default: {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "read", bad,
                         "read [-ers] [-a array] [-d delim] "
                         "[-i text] [-n nchars] [-N nchars] [-p prompt] "
                         "[-t timeout] [-u fd] [name ...]");
      }
      }
      if (val) break;
    }
  }
  (void)prompt;
  if (!sh->fd[fd]) {
    /* stdin closed (<&-) */
    interp_errf(sh, "read: read error: %d: Bad file descriptor", fd);
    return 1;
  }
  if (sh->fd[fd]->rderr) { /* `read < dir` */
    interp_errf(sh, "read: read error: %d: %s", fd,
                msb_strerror(sh->fd[fd]->rderr));
    return 1;
  }
  interp_input(sh, fd, &in, &n);
  buf_init(&line, sh->m);
  pos = 0;
  while (pos < n) {
    int c = in[pos];
    if (nchars >= 0 && (int)line.len >= nchars) break;
    pos++;
    if (!exact && c == delim) {
      got_delim = 1;
      break;
    }
    if (!raw && c == '\\' && !exact) {
      if (pos < n) {
        int c2 = in[pos++];
        if (c2 == '\n') continue;
        buf_putc(&line, '\\');
        buf_putc(&line, c2);
        continue;
      }
      continue;
    }
    if (c == 0) continue;
    buf_putc(&line, c);
  }
  used = pos;
  interp_consume(sh, fd, used);
  if (line.err) {
    buf_finish(&line);
    return MSB_ENOMEM;
  }
  if (!got_delim && (nchars < 0 || (int)line.len < nchars)) {
    int r2 = nchars ? interp_input_end(sh, fd) : 0;
    if (r2) {
      buf_finish(&line);
      return r2;
    }
    status = 1;
  }
  if (nchars == 0) status = 0;
  {
    char **f = NULL;
    int nf = 0, k;
    int names = argc - i;
    const char *s = buf_str(&line);
    if (exact || (arr == NULL && names == 0)) {
      /* REPLY keeps everything, no splitting */
      char *val = mem_strdup(sh->m, s);
      if (!val) {
        buf_finish(&line);
        return MSB_ENOMEM;
      }
      if (!raw) {
        size_t a2, b2;
        for (a2 = b2 = 0; val[a2]; a2++) {
          if (val[a2] == '\\' && val[a2 + 1]) a2++;
          val[b2++] = val[a2];
        }
        val[b2] = 0;
      }
      if (names == 1)
        rc = builtin_assign(sh, argv[i], val, 0);
      else
        rc = builtin_assign(sh, "REPLY", val, 0);
      mem_free(sh->m, val);
      buf_finish(&line);
      if (rc < 0) return rc;
      return rc ? 1 : status;
    }
    rc = expand_split_read(sh, s, line.len, arr ? 0 : names, &f, &nf);
    buf_finish(&line);
    if (rc) return rc;
    if (!raw)
      for (k = 0; k < nf; k++) {
        size_t a2, b2;
        for (a2 = b2 = 0; f[k][a2]; a2++) {
          if (f[k][a2] == '\\' && f[k][a2 + 1]) a2++;
          f[k][b2++] = f[k][a2];
        }
        f[k][b2] = 0;
      }
    if (arr) {
      var *v = var_bind(sh->vars, arr, 0);
      if (!v)
        rc = MSB_ENOMEM;
      else if (v->attr & VAR_READONLY) {
        interp_errf(sh, "%s: readonly variable", arr);
        rc = 1;
      } else {
        var_make_array(sh->vars, v, 0);
        for (k = 0; k < nf && !rc; k++)
          rc = var_set_index(sh->vars, arr, k, f[k], 0);
      }
    } else {
      for (k = 0; k < names && !rc; k++)
        rc = builtin_assign(sh, argv[i + k], k < nf ? f[k] : "", 0);
    }
    expand_free(sh, f, nf);
    if (rc < 0) return rc;
    if (rc) return 1;
  }
  return status;
}

static int bi_mapfile(shell *sh, int argc, char **argv) {
  int i, trim = 0, fd = 0, rc = 0;
  int64_t count = 0, skip = 0, origin = 0;
  int delim = '\n', have_origin = 0;
  const char *name = "MAPFILE";
  const uint8_t *in;
  size_t n, pos = 0;
  var *v;
  int64_t idx, got = 0;
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    const char *val = NULL;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (strchr("dnOsuCc", *o)) {
      if (o[1])
        val = o + 1;
      else if (i + 1 < argc)
        val = argv[++i];
      else {
        interp_errf(sh, "%s: -%c: option requires an argument", argv[0], *o);
        return 2;
      }
    }
    switch (*o) {
    case 't': trim = 1; break;
    case 'd': delim = (uint8_t)val[0]; break;
    case 'n': bi_parse_int(val, &count); break;
    case 'O':
      bi_parse_int(val, &origin);
      have_origin = 1;
      break;
    case 's': bi_parse_int(val, &skip); break;
    case 'u': {
      int64_t v2;
      if (!bi_parse_int(val, &v2) || v2 < 0 || v2 >= SH_NFD || !sh->fd[v2]) {
        interp_errf(sh, "%s: %s: invalid file descriptor specification",
                    argv[0], val);
        return 1;
      }
      fd = (int)v2;
      break;
    }
    case 'C':
    case 'c':
      interp_errf(sh, "%s: -%c: not supported in memsandbox", argv[0], *o);
      return 1;
    default: {
      char bad[3] = {'-', *o, 0};
      return bi_badopt(sh, argv[0], bad,
                       "mapfile [-d delim] [-n count] [-O origin] [-s count] "
                       "[-t] [-u fd] [-C callback] [-c quantum] [array]");
    }
    }
  }
  if (i < argc) name = argv[i];
  v = var_bind(sh->vars, name, 0);
  if (!v) return MSB_ENOMEM;
  if (v->attr & VAR_READONLY) {
    interp_errf(sh, "%s: readonly variable", name);
    return 1;
  }
  if (!have_origin)
    var_make_array(sh->vars, v, 0);
  else if (!(v->attr & VAR_ARRAY))
    var_make_array(sh->vars, v, 0);
  idx = origin;
  interp_input(sh, fd, &in, &n);
  while (pos < n && (!count || got < count)) {
    size_t st = pos, e;
    while (pos < n && in[pos] != (uint8_t)delim) pos++;
    e = pos;
    if (pos < n) pos++;
    if (skip > 0) {
      skip--;
      continue;
    }
    if (!trim && pos > e) e++;
    {
      char *s = mem_strndup(sh->m, (const char *)in + st, e - st);
      if (!s) return MSB_ENOMEM;
      rc = var_set_index(sh->vars, name, idx++, s, 0);
      mem_free(sh->m, s);
      if (rc) return rc;
    }
    got++;
    if (sh->lim->max_array_items && (uint64_t)got > sh->lim->max_array_items) {
      sh->run->limit = LIMIT_MAX_ARRAY_ITEMS;
      return MSB_ELIMIT;
    }
  }
  interp_consume(sh, fd, pos);
  if (!count || got < count) return interp_input_end(sh, fd);
  return 0;
}

/* ---- getopts ---------------------------------------------------------- */

/* getopts' own diagnostics name $0, even inside a function (where other
 * errors name the function's source). */
static void bi_getopts_err(shell *sh, const char *what, const char *opt) {
  buf b;
  buf_init(&b, sh->m);
  buf_printf(&b, "%s: %s -- %s\n", sh->arg0 ? sh->arg0 : "bash", what, opt);
  if (!b.err) interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
}

static int bi_getopts(shell *sh, int argc, char **argv) {
  const char *spec, *name, *ind;
  char **args;
  int nargs, optind, silent, rc;
  char opt[2] = {0, 0};
  const char *arg;
  char nb[24];
  if (argc < 3) {
    return bi_usage(sh, "getopts", "getopts optstring name [arg ...]");
  }
  spec = argv[1];
  name = argv[2];
  silent = spec[0] == ':';
  if (silent) spec++;
  if (argc > 3) {
    args = argv + 3;
    nargs = argc - 3;
  } else {
    args = sh->pos;
    nargs = sh->npos;
  }
  ind = var_value(sh->vars, "OPTIND");
  {
    int64_t v = 1;
    if (ind) bi_parse_int(ind, &v);
    optind = (int)v;
  }
  if (optind < 1) optind = 1;
  if (optind == 1 && sh->getopts_sub > 0 && !ind) sh->getopts_sub = 0;
  for (;;) {
    if (optind - 1 >= nargs) goto done;
    arg = args[optind - 1];
    if (sh->getopts_sub == 0) {
      if (arg[0] != '-' || !arg[1]) goto done;
      if (!strcmp(arg, "--")) {
        optind++;
        goto done;
      }
      sh->getopts_sub = 1;
    }
    break;
  }
  opt[0] = arg[sh->getopts_sub];
  sh->getopts_sub++;
  {
    const char *p = strchr(spec, opt[0]);
    int last = arg[sh->getopts_sub] == 0;
    if (!p || opt[0] == ':') {
      if (last) {
        sh->getopts_sub = 0;
        optind++;
      }
      if (silent) {
        builtin_assign(sh, name, "?", 0);
        builtin_assign(sh, "OPTARG", opt, 0);
      } else {
        bi_getopts_err(sh, "illegal option", opt);
        builtin_assign(sh, name, "?", 0);
        var_unset(sh->vars, "OPTARG");
      }
    } else if (p[1] == ':') {
      if (!last) {
        builtin_assign(sh, "OPTARG", arg + sh->getopts_sub, 0);
        sh->getopts_sub = 0;
        optind++;
        builtin_assign(sh, name, opt, 0);
      } else if (optind < nargs) {
        builtin_assign(sh, "OPTARG", args[optind], 0);
        sh->getopts_sub = 0;
        optind += 2;
        builtin_assign(sh, name, opt, 0);
      } else {
        sh->getopts_sub = 0;
        optind++;
        if (silent) {
          builtin_assign(sh, name, ":", 0);
          builtin_assign(sh, "OPTARG", opt, 0);
        } else {
          bi_getopts_err(sh, "option requires an argument", opt);
          builtin_assign(sh, name, "?", 0);
          var_unset(sh->vars, "OPTARG");
        }
      }
    } else {
      if (last) {
        sh->getopts_sub = 0;
        optind++;
      }
      builtin_assign(sh, name, opt, 0);
      var_unset(sh->vars, "OPTARG");
    }
  }
  expand_fmt_i64(nb, optind);
  rc = builtin_assign(sh, "OPTIND", nb, 0);
  return rc < 0 ? rc : 0;
done:
  sh->getopts_sub = 0;
  expand_fmt_i64(nb, optind);
  builtin_assign(sh, "OPTIND", nb, 0);
  builtin_assign(sh, name, "?", 0);
  return 1;
}

/* ---- let, trap, type, command --------------------------------------- */

static int bi_let(shell *sh, int argc, char **argv) {
  int64_t v = 0;
  int i, rc;
  if (argc < 2) {
    interp_errf(sh, "let: expression expected");
    return 1;
  }
  for (i = 1; i < argc; i++) {
    rc = expand_arith_text(sh, argv[i], strlen(argv[i]), &v, "let");
    if (rc) return rc < 0 ? rc : 1;
  }
  return v ? 0 : 1;
}

static int bi_trap(shell *sh, int argc, char **argv) {
  if (bi_opts_only(sh, argc, argv, "lp", "trap [-lp] [[arg] signal_spec ...]") <
      0)
    return 2;
  return trap_builtin(sh, argc, argv);
}

static const char *const bi_keywords[] = {
    "!",    "[[",   "]]",    "case",  "coproc",   "do", "done", "elif",
    "else", "esac", "fi",    "for",   "function", "if", "in",   "select",
    "then", "time", "until", "while", "{",        "}"};

static int bi_is_keyword(const char *s) {
  size_t k;
  for (k = 0; k < sizeof bi_keywords / sizeof bi_keywords[0]; k++)
    if (!strcmp(bi_keywords[k], s)) return 1;
  return 0;
}

static sh_alias *bi_alias_get(shell *sh, const char *name) {
  size_t k;
  for (k = 0; k < sh->naliases; k++)
    if (!strcmp(sh->aliases[k].name, name)) return &sh->aliases[k];
  return NULL;
}

/* bash and sh run in-process, but on disk they are /usr/bin/bash and
 * /usr/bin/sh, which is what type, command -v and builtin report. */
static int bi_on_disk(const char *name) {
  return !strcmp(name, "bash") || !strcmp(name, "sh");
}

/* The PATH hit(s) of command name for bi_describe_cmd: /usr/bin/name, and
 * with -a also /bin/name, the same file through the /bin link, as the
 * default PATH lists both. */
static void bi_describe_file(const char *name, int mode, int all, buf *b) {
  static const char *const dirs[] = {"/usr/bin", "/bin"};
  int k;
  for (k = 0; k < (all ? 2 : 1); k++) {
    if (mode == 't')
      buf_puts(b, "file\n");
    else if (mode == 'v' || mode == 'p' || mode == 'P')
      buf_printf(b, "%s/%s\n", dirs[k], name);
    else
      buf_printf(b, "%s is %s/%s\n", name, dirs[k], name);
  }
}

/* Describes how name would be run; mode: 0 type, 't' -t, 'p' -p, 'v'
 * command -v, 'V' command -V. Returns 1 when found. */
static int bi_describe_cmd(shell *sh, const char *name, int mode, int all,
                           int nofunc, buf *b) {
  const cmd_desc *d;
  int found = 0;
  /* bash reports aliases only while they expand (shopt expand_aliases) */
  sh_alias *al =
      (sh->shopts & SH_SO_EXPAND_ALIASES) ? bi_alias_get(sh, name) : NULL;
  if (strchr(name, '/')) {
    buf p;
    struct vfs_stat st;
    int ok;
    buf_init(&p, sh->m);
    interp_abspath(sh, name, &p);
    ok = !p.err && !vfs_stat(sh->fs, buf_str(&p), 1, &st) &&
         st.kind == VFS_FILE && (st.mode & 0111);
    buf_finish(&p);
    if (!ok) return 0;
    if (mode == 't')
      buf_puts(b, "file\n");
    else if (mode == 'v' || mode == 'p')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is %s\n", name, name);
    return 1;
  }
  if (al && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "alias\n");
    else if (mode == 'v') {
      buf_printf(b, "alias %s=", name);
      expand_quote(b, al->value, 1);
      buf_putc(b, '\n');
    } else
      buf_printf(b, "%s is aliased to `%s'\n", name, al->value);
    if (!all) return 1;
  }
  if (bi_is_keyword(name) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "keyword\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is a shell keyword\n", name);
    if (!all) return 1;
  }
  if (!nofunc && interp_func_get(sh, name) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "function\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else {
      buf_printf(b, "%s is a function\n", name);
      interp_print_func(sh, name, interp_func_get(sh, name)->body, b);
    }
    if (!all) return 1;
  }
  d = cmd_find(name);
  if (bi_on_disk(name)) {
    bi_describe_file(name, mode, all, b);
    return 1;
  }
  if ((builtin_find(name) || (d && (d->flags & CMD_BUILTIN))) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "builtin\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is a shell builtin\n", name);
    if (!all) return 1;
  }
  if (d || (builtin_find(name) && all && (mode == 'p' || mode == 'P'))) {
    if (d && (d->flags & CMD_BUILTIN) && !all && mode != 'p' && mode != 'P')
      return found;
    if (!d && !builtin_find(name)) return found;
    found = 1;
    bi_describe_file(name, mode, all, b);
  }
  return found;
}

/* type -p: the file only when `type -t' would say file; a builtin or
 * function prints nothing yet counts as found, as bash. */
static int bi_type_p(shell *sh, const char *name, int nofunc, buf *b) {
  buf kind;
  int found, file;
  buf_init(&kind, sh->m);
  found = bi_describe_cmd(sh, name, 't', 0, nofunc, &kind);
  file = found && kind.len && !strcmp(buf_str(&kind), "file\n");
  buf_finish(&kind);
  return file ? bi_describe_cmd(sh, name, 'p', 0, nofunc, b) : found;
}

static int bi_type(shell *sh, int argc, char **argv) {
  int i = 1, mode = 0, all = 0, status = 0, nofunc = 0;
  buf b;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 't')
        mode = 't';
      else if (*o == 'p')
        mode = 'p';
      else if (*o == 'P')
        mode = 'P';
      else if (*o == 'a')
        all = 1;
      else if (*o == 'f')
        nofunc = 1;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "type", bad, "type [-afptP] name [name ...]");
      }
    }
  }
  buf_init(&b, sh->m);
  for (; i < argc; i++) {
    if (!(mode == 'p' && !all
              ? bi_type_p(sh, argv[i], nofunc, &b)
              : bi_describe_cmd(sh, argv[i], mode == 'P' ? 'p' : mode, all,
                                nofunc, &b))) {
      if (!mode) {
        bi_out(sh, &b);
        buf_init(&b, sh->m);
        interp_errf(sh, "type: %s: not found", argv[i]);
      }
      status = 1;
    }
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

static int bi_command(shell *sh, int argc, char **argv) {
  int i = 1, mode = 0, status = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'v')
        mode = 'v';
      else if (*o == 'V')
        mode = 'V';
      else if (*o == 'p')
        ;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "command", bad,
                         "command [-pVv] command [arg ...]");
      }
    }
  }
  if (i >= argc) return 0;
  if (mode) {
    buf b;
    buf_init(&b, sh->m);
    for (; i < argc; i++)
      if (!bi_describe_cmd(sh, argv[i], mode == 'V' ? 0 : 'v', 0, 0, &b)) {
        if (mode == 'V') {
          bi_out(sh, &b);
          buf_init(&b, sh->m);
          interp_errf(sh, "command: %s: not found", argv[i]);
        }
      } else
        status = 0; /* bash: success when any name was found */
    {
      int rc = bi_out(sh, &b);
      return rc ? rc : status;
    }
  }
  return interp_run_argv(sh, argc - i, argv + i, 1);
}

static int bi_bash(shell *sh, int argc, char **argv);

/* The builtins that run shell code (eval, source, bash) are called
 * directly, so a paced run can pause inside them: the wasm build's
 * Asyncify follows direct calls only (see interp_pace). The rest are
 * called through the table and run whole within a slice. */
int builtin_run(shell *sh, const sh_builtin *b, int argc, char **argv) {
  int rc;
  if (b->fn == bi_eval) return bi_eval(sh, argc, argv);
  if (b->fn == bi_source) return bi_source(sh, argc, argv);
  if (b->fn == bi_bash) return bi_bash(sh, argc, argv);
  sh->run->no_yield++;
  rc = b->fn(sh, argc, argv);
  sh->run->no_yield--;
  return rc;
}

static int bi_builtin(shell *sh, int argc, char **argv) {
  const sh_builtin *b;
  const cmd_desc *d;
  if (argc < 2) return 0;
  b = bi_on_disk(argv[1]) ? NULL : builtin_find(argv[1]);
  if (b) return interp_builtin(sh, b, argc - 1, argv + 1);
  d = cmd_find(argv[1]);
  if (d && (d->flags & CMD_BUILTIN))
    return interp_cmd(sh, d, argc - 1, argv + 1);
  interp_errf(sh, "builtin: %s: not a shell builtin", argv[1]);
  return 1;
}

/* ---- misc ------------------------------------------------------------- */

static int bi_wait(shell *sh, int argc, char **argv) {
  int i = bi_opts_only(sh, argc, argv, "fnp", "wait [-fn] [-p var] [id ...]");
  return i < 0 ? 2 : interp_wait(sh, argc, argv);
}

/* hash: the sandbox remembers no paths; it only checks the names. */
static int bi_hash(shell *sh, int argc, char **argv) {
  int i = bi_opts_only(sh, argc, argv, "lrpdt",
                       "hash [-lr] [-p pathname] [-dt] [name ...]");
  int status = 0;
  if (i < 0) return 2;
  if (argc == 1) {
    buf b;
    buf_init(&b, sh->m);
    buf_puts(&b, "hash: hash table empty\n");
    return bi_out(sh, &b);
  }
  for (; i < argc; i++)
    if (!strchr(argv[i], '/') && !builtin_find(argv[i]) && !cmd_find(argv[i]) &&
        !interp_func_get(sh, argv[i])) {
      interp_errf(sh, "hash: %s: not found", argv[i]);
      status = 1;
    }
  return status;
}

static int bi_nojobs(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: no job control", argv[0]);
  return 1;
}

static int bi_umask(shell *sh, int argc, char **argv) {
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

static int bi_alias(shell *sh, int argc, char **argv) {
  int i, status = 0;
  buf b;
  if (bi_opts_only(sh, argc, argv, "p", "alias [-p] [name[=value] ... ]") < 0)
    return 2;
  buf_init(&b, sh->m);
  if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-p"))) {
    size_t k;
    for (k = 0; k < sh->naliases; k++) {
      buf_printf(&b, "alias %s=", sh->aliases[k].name);
      expand_quote(&b, sh->aliases[k].value, 1);
      buf_putc(&b, '\n');
    }
    return bi_out(sh, &b);
  }
  for (i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    sh_alias *a;
    if (!eq || eq == argv[i]) {
      a = bi_alias_get(sh, argv[i]);
      if (!a) {
        interp_errf(sh, "alias: %s: not found", argv[i]);
        status = 1;
      } else {
        buf_printf(&b, "alias %s=", a->name);
        expand_quote(&b, a->value, 1);
        buf_putc(&b, '\n');
      }
      continue;
    }
    *eq = 0;
    if (strpbrk(argv[i], "/$`=\"'\\()<>;&| \t\n")) {
      interp_errf(sh, "alias: `%s': invalid alias name", argv[i]);
      *eq = '=';
      status = 1;
      continue;
    }
    a = bi_alias_get(sh, argv[i]);
    if (a) {
      char *nv = mem_strdup(sh->m, eq + 1);
      if (!nv) return MSB_ENOMEM;
      mem_free(sh->m, a->value);
      a->value = nv;
    } else {
      sh_alias *na =
          mem_realloc(sh->m, sh->aliases, (sh->naliases + 1) * sizeof *na);
      if (!na) return MSB_ENOMEM;
      sh->aliases = na;
      na[sh->naliases].name = mem_strdup(sh->m, argv[i]);
      na[sh->naliases].value = mem_strdup(sh->m, eq + 1);
      if (!na[sh->naliases].name || !na[sh->naliases].value) {
        mem_free(sh->m, na[sh->naliases].name);
        mem_free(sh->m, na[sh->naliases].value);
        return MSB_ENOMEM;
      }
      sh->naliases++;
    }
    *eq = '=';
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

static int bi_unalias(shell *sh, int argc, char **argv) {
  int i, status = 0;
  size_t k;
  if (argc > 1 && !strcmp(argv[1], "-a")) {
    for (k = 0; k < sh->naliases; k++) {
      mem_free(sh->m, sh->aliases[k].name);
      mem_free(sh->m, sh->aliases[k].value);
    }
    sh->naliases = 0;
    return 0;
  }
  for (i = 1; i < argc; i++) {
    sh_alias *a = bi_alias_get(sh, argv[i]);
    if (!a) {
      interp_errf(sh, "unalias: %s: not found", argv[i]);
      status = 1;
      continue;
    }
    k = (size_t)(a - sh->aliases);
    mem_free(sh->m, a->name);
    mem_free(sh->m, a->value);
    memmove(a, a + 1, (sh->naliases - k - 1) * sizeof *a);
    sh->naliases--;
  }
  return status;
}

static int bi_exec(shell *sh, int argc, char **argv) {
  int rc;
  if (argc < 2) return 0; /* redirections already applied permanently */
  rc = interp_run_argv(sh, argc - 1, argv + 1, 1);
  if (rc < 0) return rc;
  sh->status = rc;
  sh->flow = SH_FLOW_EXIT;
  return rc;
}

static int bi_help(shell *sh, int argc, char **argv) {
  buf b;
  size_t n, k;
  const sh_builtin *t = builtin_table(&n);
  const cmd_desc *c;
  size_t cn;
  int i = 1, mode = 0, d = 0, mm = 0, s = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--help")) {
      char hn[] = "help", *hp[] = {hn};
      buf_init(&b, sh->m);
      help_print(sh->m, &b, 0, hp, 1);
      bi_out(sh, &b);
      return 2;
    }
    for (; *o; o++) {
      if (*o == 'd')
        d = 1;
      else if (*o == 'm')
        mm = 1;
      else if (*o == 's')
        s = 1;
      else {
        interp_errf(sh, "help: -%c: invalid option", *o);
        interp_usagef(sh, "help: usage: help [-dms] [pattern ...]");
        return 2;
      }
    }
  }
  mode = d ? 'd' : mm ? 'm' : s ? 's' : 0;
  if (i < argc) {
    int r;
    buf_init(&b, sh->m);
    r = help_print(sh->m, &b, mode, argv + i, argc - i);
    if (r < 0) {
      buf_finish(&b);
      return r;
    }
    r = r ? 0 : 1;
    if (r) {
      const char *p = argv[argc - 1];
      interp_errf(sh,
                  "help: no help topics match `%s'.  Try `help "
                  "help' or `man -k %s' or `info %s'.",
                  p, p, p);
    }
    bi_out(sh, &b);
    return r;
  }
  buf_init(&b, sh->m);
  buf_puts(&b, "MemSandbox bash-compatible shell. Shell builtins:\n");
  for (k = 0; k < n; k++) buf_printf(&b, " %s", t[k].name);
  buf_puts(&b, "\nCommands:\n");
  c = cmd_table(&cn);
  for (k = 0; k < cn; k++)
    buf_printf(&b, "  %-12s %s\n", c[k].name, c[k].purpose);
  return bi_out(sh, &b);
}

static int bi_bash(shell *sh, int argc, char **argv) {
  int i = 1;
  unsigned opts = 0;
  const char *cstr = NULL;
  for (; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1];
       i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--norc") || !strcmp(argv[i], "--noprofile") ||
        !strcmp(argv[i], "--posix"))
      continue;
    if (argv[i][0] == '+') continue;
    for (o = argv[i] + 1; *o; o++) {
      switch (*o) {
      case 'c': cstr = ""; break;
      case 'e': opts |= SH_O_ERREXIT; break;
      case 'u': opts |= SH_O_NOUNSET; break;
      case 'x': opts |= SH_O_XTRACE; break;
      case 'f': opts |= SH_O_NOGLOB; break;
      case 'o':
        if (i + 1 < argc && !strcmp(argv[i + 1], "pipefail"))
          opts |= SH_O_PIPEFAIL;
        i++;
        break;
      case 's':
      case 'l':
      case 'i': break;
      default:
        interp_errf(sh, "%s: -%c: invalid option", argv[0], *o);
        return 2;
      }
    }
  }
  if (cstr) {
    char **av;
    int rc;
    if (i >= argc) {
      interp_errf(sh, "%s: -c: option requires an argument", argv[0]);
      return 2;
    }
    cstr = argv[i++];
    /* bash -c 'cmd' name args: $0 is name */
    av = argv + i - 1;
    if (i < argc) {
      char **nav = mem_zalloc(sh->m, (size_t)(argc - i + 1) * sizeof *nav);
      int k;
      if (!nav) return MSB_ENOMEM;
      for (k = 0; k < argc - i; k++) nav[k] = argv[i + k];
      {
        char *copy = mem_strdup(sh->m, cstr);
        if (!copy) {
          mem_free(sh->m, nav);
          return MSB_ENOMEM;
        }
        rc = interp_run_script(sh, nav[0], copy, strlen(copy), argc - i, nav,
                               opts | SH_O_CSTRING);
        mem_free(sh->m, copy);
      }
      mem_free(sh->m, nav);
      return rc;
    }
    {
      char *copy = mem_strdup(sh->m, cstr);
      char *one[2];
      if (!copy) return MSB_ENOMEM;
      one[0] = argv[0];
      one[1] = NULL;
      (void)av;
      rc = interp_run_script(sh, argv[0], copy, strlen(copy), 1, one,
                             opts | SH_O_CSTRING);
      mem_free(sh->m, copy);
      return rc;
    }
  }
  if (i >= argc) {
    const uint8_t *in;
    size_t n;
    char *copy;
    char *one[2];
    int rc;
    interp_input(sh, 0, &in, &n);
    if ((rc = interp_input_end(sh, 0))) return rc;
    copy = mem_strndup(sh->m, (const char *)in, n);
    if (!copy) return MSB_ENOMEM;
    interp_consume(sh, 0, n);
    one[0] = argv[0];
    one[1] = NULL;
    rc = interp_run_script(sh, argv[0], copy, n, 1, one, opts);
    mem_free(sh->m, copy);
    return rc;
  }
  {
    buf p;
    const uint8_t *data;
    size_t len;
    int rc;
    char *copy;
    buf_init(&p, sh->m);
    interp_abspath(sh, argv[i], &p);
    rc = p.err ? p.err : vfs_read(sh->fs, buf_str(&p), &data, &len);
    buf_finish(&p);
    if (rc == MSB_ENOMEM) return rc;
    if (rc) {
      buf b;
      buf_init(&b, sh->m);
      buf_printf(&b, "%s: %s: %s\n", argv[0], argv[i], msb_strerror(rc));
      if (!b.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
      return rc == MSB_EISDIR ? 126 : 127;
    }
    copy = mem_strndup(sh->m, (const char *)data, len);
    if (!copy) return MSB_ENOMEM;
    rc = interp_run_script(sh, argv[i], copy, len, argc - i, argv + i, opts);
    mem_free(sh->m, copy);
    return rc;
  }
}

static int bi_printf(shell *sh, int argc, char **argv) {
  const cmd_desc *d = cmd_find("printf");
  const char *vname = NULL;
  int rc;
  if (!d) {
    interp_errf(sh, "printf: command not available");
    return 1;
  }
  if (argc >= 3 && !strcmp(argv[1], "-v"))
    vname = argv[2];
  else if (argc >= 2 && !strncmp(argv[1], "-v", 2) && argv[1][2])
    vname = argv[1] + 2;
  if (!vname) return interp_cmd(sh, d, argc, argv);
  {
    int shift = argv[1][2] ? 1 : 2;
    buf out, err;
    char **av = mem_zalloc(sh->m, (size_t)(argc - shift + 1) * sizeof *av);
    sh_stream *so, *se;
    sh_stream *o1 = sh->fd[1];
    int k;
    if (!av) return MSB_ENOMEM;
    av[0] = argv[0];
    for (k = shift + 1; k < argc; k++) av[k - shift] = argv[k];
    buf_init(&out, sh->m);
    buf_init(&err, sh->m);
    so = interp_stream_new(sh, SH_S_BUF);
    if (!so) {
      mem_free(sh->m, av);
      return MSB_ENOMEM;
    }
    so->ob = &out;
    (void)se;
    (void)err;
    sh->fd[1] = so;
    rc = interp_cmd(sh, d, argc - shift, av);
    sh->fd[1] = o1;
    interp_stream_unref(sh, so);
    mem_free(sh->m, av);
    if (rc >= 0) {
      int r2;
      char *br = strchr(vname, '[');
      if (out.err)
        r2 = MSB_ENOMEM;
      else if (br) {
        buf tmp;
        buf_init(&tmp, sh->m);
        buf_printf(&tmp, "%s=", vname);
        /* assign through the declare path for subscripts */
        buf_puts(&tmp, buf_str(&out));
        {
          int st = 0;
          r2 = bi_decl_one(sh, buf_str(&tmp), 0, 0, 0, 0, "printf", &st);
          if (!r2 && st) r2 = 1;
        }
        buf_finish(&tmp);
      } else if (!var_valid_name(vname, strlen(vname))) {
        interp_errf(sh, "printf: `%s': not a valid identifier", vname);
        r2 = 2;
      } else
        r2 = builtin_assign(sh, vname, buf_str(&out), 0);
      if (r2) rc = r2 < 0 ? r2 : 1;
    }
    buf_finish(&out);
    buf_finish(&err);
    return rc;
  }
}

static int bi_times(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
  return bi_out(sh, &b);
}

static int bi_caller(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  (void)sh;
  return 1;
}

static int bi_ulimit(shell *sh, int argc, char **argv) {
  buf b;
  (void)argc;
  (void)argv;
  buf_init(&b, sh->m);
  buf_puts(&b, "unlimited\n");
  return bi_out(sh, &b);
}

static int bi_enable(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: not supported in memsandbox", argv[0]);
  return 1;
}

/* Sorted bytewise (binary search). */
static const sh_builtin bi_table[] = {
    {".", bi_source, 1},
    {":", bi_colon, 1},
    {"alias", bi_alias, 0},
    {"bash", bi_bash, 0},
    {"bg", bi_nojobs, 0},
    {"bind", interp_interactive_builtin, 0},
    {"break", bi_loopctl, 1},
    {"builtin", bi_builtin, 0},
    {"caller", bi_caller, 0},
    {"cd", bi_cd, 0},
    {"command", bi_command, 0},
    {"continue", bi_loopctl, 1},
    {"declare", bi_declare, 0},
    {"dirs", bi_dirs, 0},
    {"disown", interp_interactive_builtin, 0},
    {"enable", bi_enable, 0},
    {"eval", bi_eval, 1},
    {"exec", bi_exec, 1},
    {"exit", bi_exit, 1},
    {"export", bi_export, 1},
    {"fc", interp_interactive_builtin, 0},
    {"fg", bi_nojobs, 0},
    {"getopts", bi_getopts, 0},
    {"hash", bi_hash, 0},
    {"help", bi_help, 0},
    {"history", interp_interactive_builtin, 0},
    {"jobs", interp_interactive_builtin, 0},
    {"kill", trap_kill, 0},
    {"let", bi_let, 0},
    {"local", bi_local, 0},
    {"mapfile", bi_mapfile, 0},
    {"popd", bi_popd, 0},
    {"printf", bi_printf, 0},
    {"pushd", bi_pushd, 0},
    {"pwd", bi_pwd, 0},
    {"read", bi_read, 0},
    {"readarray", bi_mapfile, 0},
    {"readonly", bi_readonly, 1},
    {"return", bi_return, 1},
    {"set", bi_set, 1},
    {"sh", bi_bash, 0},
    {"shift", bi_shift, 1},
    {"shopt", bi_shopt, 0},
    {"source", bi_source, 1},
    {"suspend", interp_interactive_builtin, 0},
    {"times", bi_times, 1},
    {"trap", bi_trap, 1},
    {"type", bi_type, 0},
    {"typeset", bi_declare, 0},
    {"ulimit", bi_ulimit, 0},
    {"umask", bi_umask, 0},
    {"unalias", bi_unalias, 0},
    {"unset", bi_unset, 1},
    {"wait", bi_wait, 0},
};

/* Looks up a shell builtin. */
const sh_builtin *builtin_find(const char *name) {
  size_t lo = 0, hi = sizeof bi_table / sizeof bi_table[0];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    /* first bytes decide most steps without a call */
    int c = (unsigned char)name[0] - (unsigned char)bi_table[mid].name[0];
    if (!c) c = strcmp(name, bi_table[mid].name);
    if (!c) return &bi_table[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* The whole table. */
const sh_builtin *builtin_table(size_t *count) {
  *count = sizeof bi_table / sizeof bi_table[0];
  return bi_table;
}
