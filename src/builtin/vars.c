/* vars.c - the builtins that set and show variables: declare (typeset),
 * local, export, readonly, unset, let and shift; builtin_assign (an
 * assignment that honours the variable's attributes) and builtin_describe
 * (a `declare -p` line) serve the interpreter too. */
#include <string.h>

#include "builtin.h"

/* Setting GLOBIGNORE to a non-empty value turns dotglob on, unsetting it
 * turns dotglob off (bash's sv_globignore); an empty value changes
 * nothing. Called whenever GLOBIGNORE may have changed. */
void builtin_globignore_changed(shell *sh) {
  const char *v;
  if (!var_lookup(sh->vars, "GLOBIGNORE")) {
    sh->shopts &= ~SH_SO_DOTGLOB;
    return;
  }
  v = var_value(sh->vars, "GLOBIGNORE");
  if (v && *v) sh->shopts |= SH_SO_DOTGLOB;
}

/* Assignment honoring -i (arithmetic) and readonly. */
int builtin_assign(shell *sh, const char *name, const char *val,
                   unsigned flags) {
  var *v;
  int rc;
  char nb[24];
  const char *target;
  if (var_resolve(sh->vars, name, &target)) {
    /* bash warns, then assigns the global a local `-n v=v` hides */
    interp_errf(sh, "warning: %s: circular name reference", name);
    v = var_lookup(sh->vars, name);
    if (!v || v->level == 0) return 1;
    rc = var_set(sh->vars, name, val, flags | VS_GLOBAL);
    return rc == VAR_ERO ? 1 : rc;
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
  if (!strcmp(name, "GLOBIGNORE")) builtin_globignore_changed(sh);
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

void builtin_dquote(buf *b, const char *s) {
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
            builtin_dquote(b, k);
        }
        buf_puts(b, "]=");
      } else
        buf_printf(b, "[%lld]=", (long long)el[i]->idx);
      builtin_dquote(b, el[i]->val);
    }
    if ((v->attr & VAR_ASSOC) && n) buf_putc(b, ' ');
    buf_puts(b, ")\n");
    mem_free(sh->m, el);
    return b->err;
  }
  buf_putc(b, '=');
  builtin_dquote(b, v->val ? v->val : "");
  buf_putc(b, '\n');
  return b->err;
}

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

int bi_decl_one(shell *sh, const char *arg, unsigned set, unsigned clr,
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
      if (!strcmp(v->name, "GLOBIGNORE")) builtin_globignore_changed(sh);
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
  int trace = -1; /* -t: 1, +t: 0 */
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
      case 't': trace = plus ? 0 : 1; break;
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
      sh_func *fn = interp_func_get(sh, argv[i]);
      if (fn && trace >= 0)
        fn->trace = trace; /* `declare -ft f` sets, never prints */
      else if (fn) {
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

/* help declare */
const help_text bi_help_declare = {
    "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] "
    "[name ...]",
    "\n"
    "Gives each NAME the attributes selected by the options and, with\n"
    "`=VALUE', a value.  Inside a function the variables are local unless -g\n"
    "is given.  `+' in place of `-' removes an attribute.  Without NAMEs,\n"
    "lists the variables (or with -f, -F, the functions) that carry the\n"
    "selected attributes.\n"
    "\n"
    "Options:\n"
    "  -a   indexed array            -A   associative array\n"
    "  -i   integer: assignments are evaluated as arithmetic\n"
    "  -l   lower-case the value     -u   upper-case the value\n"
    "  -n   name reference to the variable named by the value\n"
    "  -r   read-only                -x   exported\n"
    "  -t   trace attribute (accepted; only functions use it)\n"
    "  -f   work on functions        -F   functions: names only\n"
    "  -g   create globals inside a function\n"
    "  -p   print NAMEs as declare commands\n"
    "  -I is not supported in the sandbox.\n"
    "\n"
    "Exit status:\n"
    "0, unless an option is invalid or an assignment fails.\n"};

/* help typeset */
const help_text bi_help_typeset = {
    "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] "
    "[name ...]",
    "\n"
    "Another name for declare; `help declare' has the details.\n"};

int bi_declare(shell *sh, int argc, char **argv) {
  return bi_declare_impl(sh, argc, argv, 0, 0);
}

/* help local */
const help_text bi_help_local = {
    "local [option] name[=value] ...",
    "\n"
    "Declares each NAME local to the running function and its callees; the\n"
    "outer value returns when the function ends.  The options are declare's.\n"
    "\n"
    "Exit status:\n"
    "0, unless used outside a function, an option is invalid or an\n"
    "assignment fails.\n"};

int bi_local(shell *sh, int argc, char **argv) {
  return bi_declare_impl(sh, argc, argv, 1, 0);
}

/* help export */
const help_text bi_help_export = {
    "export [-fn] [name[=value] ...] or export -p",
    "\n"
    "Marks each NAME so that commands run from this shell receive it in\n"
    "their environment, assigning VALUE first when given.\n"
    "\n"
    "Options:\n"
    "  -f   NAMEs are functions\n"
    "  -n   remove the export mark instead\n"
    "  -p   list the exported variables as export commands\n"
    "\n"
    "Exit status:\n"
    "0, unless an option or a NAME is invalid.\n"};

int bi_export(shell *sh, int argc, char **argv) {
  int i = 1, unexport = 0, print = 0, status = 0, rc, funcs = 0, c;
  const char *o = NULL;
  buf b;
  while ((c = bi_nextopt(argc, argv, &i, &o))) {
    if (c == 'n')
      unexport = 1;
    else if (c == 'p')
      print = 1;
    else if (c == 'f')
      funcs = 1;
    else
      return bi_badletter(sh, "export", c,
                          "export [-fn] [name[=value] ...] or export -p");
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

/* help readonly */
const help_text bi_help_readonly = {
    "readonly [-aAf] [name[=value] ...] or readonly -p",
    "\n"
    "Marks each NAME read-only after assigning VALUE when given; a read-only\n"
    "variable cannot be assigned or unset for the rest of the shell.\n"
    "\n"
    "Options:\n"
    "  -a   NAMEs are indexed arrays      -A   associative arrays\n"
    "  -f   NAMEs are functions\n"
    "  -p   list the read-only variables (or functions) as commands\n"
    "\n"
    "Exit status:\n"
    "0, unless an option or a NAME is invalid.\n"};

int bi_readonly(shell *sh, int argc, char **argv) {
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

/* help unset */
const help_text bi_help_unset = {
    "unset [-f] [-v] [-n] [name ...]",
    "\n"
    "Removes each NAME: a variable when one exists, otherwise a function.\n"
    "An element such as NAME[3] removes just that array element.  Read-only\n"
    "variables cannot be unset.\n"
    "\n"
    "Options:\n"
    "  -f   NAMEs are functions\n"
    "  -v   NAMEs are variables\n"
    "  -n   remove a name reference itself, not the variable it points to\n"
    "\n"
    "Exit status:\n"
    "0, unless a NAME is read-only or invalid.\n"};

int bi_unset(shell *sh, int argc, char **argv) {
  int i = 1, funcs = 0, vars = 0, refs = 0, status = 0, c;
  const char *o = NULL;
  while ((c = bi_nextopt(argc, argv, &i, &o))) {
    if (c == 'f')
      funcs = 1;
    else if (c == 'v')
      vars = 1;
    else if (c == 'n')
      refs = 1;
    else
      return bi_badletter(sh, "unset", c, "unset [-f] [-v] [-n] [name ...]");
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
      if (!strcmp(name, "GLOBIGNORE")) builtin_globignore_changed(sh);
    } else if (!vars)
      interp_func_unset(sh, name);
  }
  return status;
}

/* help shift */
const help_text bi_help_shift = {
    "shift [n]",
    "\n"
    "Drops the first N positional parameters (default 1): $N+1 becomes $1,\n"
    "and $# decreases by N.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when N is negative or larger than $#.\n"};

int bi_shift(shell *sh, int argc, char **argv) {
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

/* help let */
const help_text bi_help_let = {
    "let arg [arg ...]",
    "\n"
    "Evaluates each ARG as an arithmetic expression with the same rules\n"
    "as $(( )): 64-bit integers, C operators and precedence, variables by\n"
    "name, and assignment operators that store the result.\n"
    "\n"
    "Exit status:\n"
    "1 when the last ARG evaluates to 0, otherwise 0.\n"};

int bi_let(shell *sh, int argc, char **argv) {
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
