/* expand_param.c - parameter values: special parameters ($?, $@,
 * $RANDOM ...), variables, array elements, and how a value enters the
 * field builder. */
#include "expand_int.h"

#include <string.h>

void xval_free(shell *sh, xval *v) {
  size_t i;
  for (i = 0; i < v->n; i++) mem_free(sh->m, v->v[i]);
  mem_free(sh->m, v->v);
  memset(v, 0, sizeof *v);
}

int xval_push(shell *sh, xval *v, const char *s, size_t len) {
  char **nv;
  if (!(v->n & (v->n + 1)) || v->n == 0) {
    size_t nc = v->n ? (v->n + 1) * 2 : 2;
    nv = mem_realloc(sh->m, v->v, nc * sizeof *nv);
    if (!nv) return MSB_ENOMEM;
    v->v = nv;
  }
  v->v[v->n] = mem_strndup(sh->m, s, len);
  if (!v->v[v->n]) return MSB_ENOMEM;
  v->n++;
  v->set = 1;
  return 0;
}

int xval_str(shell *sh, xval *v, const char *s) {
  return xval_push(sh, v, s, strlen(s));
}

static const char *expand_opt_flags(shell *sh, char *b) {
  int k = 0;
  /* bash's order */
  if (sh->opts & SH_O_ALLEXPORT) b[k++] = 'a';
  if (sh->opts & SH_O_ERREXIT) b[k++] = 'e';
  if (sh->opts & SH_O_NOGLOB) b[k++] = 'f';
  b[k++] = 'h';
  if (sh->opts & SH_O_MONITOR) b[k++] = 'm';
  if (sh->opts & SH_O_NOUNSET) b[k++] = 'u';
  if (sh->opts & SH_O_VERBOSE) b[k++] = 'v';
  if (sh->opts & SH_O_XTRACE) b[k++] = 'x';
  if (sh->opts & SH_O_BRACE) b[k++] = 'B';
  if (sh->opts & SH_O_NOCLOBBER) b[k++] = 'C';
  if (sh->opts & SH_O_ERRTRACE) b[k++] = 'E';
  if (sh->opts & SH_O_FUNCTRACE) b[k++] = 'T';
  b[k++] = 'c';
  b[k] = 0;
  return b;
}

/* Special and dynamic parameters; 1 when name was one (value in *v). */
/* $BASH_COMMAND: the command running, or for `for` and `case` (the DEBUG
 * trap runs before each turn) only their head, as bash shows them. */
static void expand_bash_command(buf *b, shell *sh) {
  const ast_node *n = sh->cur_cmd;
  const ast_word *w;
  if (n->kind == AST_FOR && n->u.forin.has_in) {
    buf_printf(b, "for %s in", n->u.forin.var);
    for (w = n->u.forin.words; w; w = w->next) {
      buf_putc(b, ' ');
      ast_print_word(b, w);
    }
  } else if (n->kind == AST_CASE) {
    buf_puts(b, "case ");
    ast_print_word(b, n->u.casec.subject);
    buf_puts(b, " in ");
  } else
    ast_print_command(b, n, interp_stack_left(sh));
}

/* The call-stack arrays: 0 FUNCNAME, 1 BASH_SOURCE, 2 BASH_LINENO, -1
 * for other names. They list the frames innermost first, then a script's
 * "main" frame; FUNCNAME is empty while no function runs. */
static int expand_frame_var(const char *name) {
  if (!strcmp(name, "FUNCNAME")) return 0;
  if (!strcmp(name, "BASH_SOURCE")) return 1;
  if (!strcmp(name, "BASH_LINENO")) return 2;
  return -1;
}

static int64_t expand_frame_count(shell *sh, int which) {
  if (which == 0 && !sh->funcs_active) return 0;
  return sh->nfstack + (sh->main_src ? 1 : 0);
}

/* Element i (0 = innermost); nb holds a number's text (24 bytes). */
static const char *expand_frame_item(shell *sh, int which, int64_t i,
                                     char *nb) {
  const sh_frame *f = i < sh->nfstack ? &sh->fstack[sh->nfstack - 1 - i] : NULL;
  if (which == 0) return f ? f->name : "main";
  if (which == 1) return f ? f->src : sh->main_src;
  expand_fmt_i64(nb, f ? f->line : 0);
  return nb;
}

static int64_t expand_now(const shell *sh) {
  return sh->clock_ns ? *sh->clock_ns : 0;
}

void expand_seconds_assigned(shell *sh, const char *val) {
  int64_t s = 0;
  if (expand_arith_text(sh, val, strlen(val), &s, NULL)) s = 0;
  sh->seconds_base = expand_now(sh) - s * 1000000000;
}

int expand_special(shell *sh, const char *name, xval *v, int *rc) {
  char nb[32];
  *rc = 0;
  if (name[0] >= '0' && name[0] <= '9') {
    int64_t k = 0;
    const char *q = name;
    while (*q >= '0' && *q <= '9' && k < 100000000) k = k * 10 + (*q++ - '0');
    if (*q) return 0;
    if (k == 0)
      *rc = xval_str(sh, v, sh->arg0 ? sh->arg0 : "bash");
    else if (k <= sh->npos)
      *rc = xval_str(sh, v, sh->pos[k - 1]);
    return 1;
  }
  if (!name[0]) return 0;
  if (!name[1]) {
    switch (name[0]) {
    case '#': expand_fmt_i64(nb, sh->npos); break;
    case '?': expand_fmt_i64(nb, sh->status); break;
    case '$': expand_fmt_i64(nb, 1000); break;
    case '!':
      if (!sh->bg_pid) return 1;
      expand_fmt_i64(nb, sh->bg_pid);
      break;
    case '-': expand_opt_flags(sh, nb); break;
    case '_':
      /* bash starts with its own name there */
      *rc = xval_str(sh, v, sh->last_arg ? sh->last_arg : "bash");
      return 1;
    default: return 0;
    }
    *rc = xval_str(sh, v, nb);
    return 1;
  }
  if (!strcmp(name, "RANDOM")) {
    var *rv = var_lookup(sh->vars, "RANDOM");
    if (rv && (rv->attr & VAR_NOVALUE) == 0 && rv->val && *rv->val == 0)
      return 0;
    expand_fmt_i64(nb, interp_random(sh));
  } else if (!strcmp(name, "SECONDS")) {
    expand_fmt_i64(nb, (expand_now(sh) - sh->seconds_base) / 1000000000);
  } else if (!strcmp(name, "EPOCHSECONDS")) {
    expand_fmt_i64(nb, (sh->clock_ns ? *sh->clock_ns : 0) / 1000000000);
  } else if (!strcmp(name, "BASH_COMMAND")) {
    buf b;
    buf_init(&b, sh->m);
    if (sh->cur_cmd) expand_bash_command(&b, sh);
    *rc = b.err ? b.err : xval_str(sh, v, buf_str(&b));
    buf_finish(&b);
    return 1;
  } else if (!strcmp(name, "LINENO")) {
    expand_fmt_i64(nb, sh->line);
  } else if (!strcmp(name, "BASHPID")) {
    expand_fmt_i64(nb, sh->subshell ? sh->pid : 1000);
  } else if (!strcmp(name, "BASH_SUBSHELL")) {
    expand_fmt_i64(nb, sh->subshell);
  } else if (expand_frame_var(name) >= 0) {
    int which = expand_frame_var(name);
    const char *s;
    if (!expand_frame_count(sh, which)) return 1;
    s = expand_frame_item(sh, which, 0, nb);
    *rc = xval_str(sh, v, s);
    return 1;
  } else if (!strcmp(name, "SHELLOPTS") || !strcmp(name, "BASHOPTS")) {
    buf b;
    buf_init(&b, sh->m);
    builtin_optlist(sh, name[0] == 'B', &b);
    *rc = b.err ? b.err : xval_str(sh, v, buf_str(&b));
    buf_finish(&b);
    return 1;
  } else
    return 0;
  *rc = xval_str(sh, v, nb);
  return 1;
}

int expand_unbound(shell *sh, const char *name) {
  interp_errf(sh, "%s: unbound variable", name);
  /* bash exits 127 from the main shell, 1 from a subshell */
  sh->status = sh->subshell ? 1 : 127;
  sh->flow = SH_FLOW_EXIT;
  return 1;
}

/* Evaluates a subscript word arithmetically. */
int expand_index(shell *sh, ast_word *w, int64_t *ix) {
  return expand_arith(sh, w, ix, NULL);
}

/* The value of ref, "name[subscript]": the target of a nameref to an array
 * element. */
static int expand_get_element(shell *sh, const char *ref, xval *out) {
  size_t bl = strcspn(ref, "[");
  char *base = mem_strndup(sh->m, ref, bl);
  char *idx = mem_strndup(sh->m, ref + bl + 1, strlen(ref) - bl - 2);
  int rc = MSB_ENOMEM, sub = 'i';
  if (base && idx) {
    if (!strcmp(idx, "@") || !strcmp(idx, "*")) sub = idx[0];
    rc = expand_get(sh, base, sub, NULL, sub == 'i' ? idx : NULL, out);
  }
  mem_free(sh->m, base);
  mem_free(sh->m, idx);
  return rc;
}

/* Gets a parameter's value as an xval. sub: 0 / '@' / '*' / 'i' with
 * index word (or literal index text when idx_text non-NULL). */
int expand_get(shell *sh, const char *name, int sub, ast_word *index,
               const char *idx_text, xval *out) {
  int rc, i;
  var *v;
  memset(out, 0, sizeof *out);
  if (!strcmp(name, "@") || !strcmp(name, "*")) {
    out->list = 1;
    out->star = name[0] == '*';
    out->set = 1;
    for (i = 0; i < sh->npos; i++)
      if ((rc = xval_str(sh, out, sh->pos[i]))) return rc;
    out->set = 1;
    return 0;
  }
  if (!sub && expand_special(sh, name, out, &rc)) return rc;
  if (!strcmp(name, "PIPESTATUS") && !var_lookup(sh->vars, name)) {
    char nb[24];
    int64_t ix = 0;
    if (sub == '@' || sub == '*') {
      out->list = 1;
      out->star = sub == '*';
      out->set = 1;
      for (i = 0; i < sh->npstat; i++) {
        expand_fmt_i64(nb, sh->pstat[i]);
        if ((rc = xval_str(sh, out, nb))) return rc;
      }
      return 0;
    }
    if (sub == 'i') {
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) ix += sh->npstat;
    }
    if (ix < 0 || ix >= sh->npstat) return 0;
    expand_fmt_i64(nb, sh->pstat[ix]);
    return xval_str(sh, out, nb);
  }
  if (sub && expand_frame_var(name) >= 0 &&
      expand_frame_count(sh, expand_frame_var(name)) &&
      !var_lookup(sh->vars, name)) {
    int64_t ix = 0, cnt;
    int which = expand_frame_var(name);
    char fb[24];
    cnt = expand_frame_count(sh, which);
    if (sub != 'i') {
      out->list = 1;
      out->star = sub == '*';
      out->set = 1;
      for (ix = 0; ix < cnt; ix++)
        if ((rc = xval_str(sh, out, expand_frame_item(sh, which, ix, fb))))
          return rc;
      return 0;
    }
    if (idx_text)
      rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
    else
      rc = expand_index(sh, index, &ix);
    if (rc) return rc;
    if (ix < 0) ix += cnt;
    if (ix < 0 || ix >= cnt) return 0;
    return xval_str(sh, out, expand_frame_item(sh, which, ix, fb));
  }
  {
    const char *target;
    if (var_resolve(sh->vars, name, &target)) {
      /* bash warns, then reads the variable a local `-n v=v` hides */
      const var *hid = var_lookup(sh->vars, name);
      interp_errf(sh, "warning: %s: circular name reference", name);
      hid = hid ? hid->shadow : NULL;
      return hid && hid->val && !(hid->attr & VAR_NAMEREF)
                 ? xval_str(sh, out, hid->val)
                 : 0;
    }
    if (!sub && strchr(target, '[')) return expand_get_element(sh, target, out);
  }
  v = var_get(sh->vars, name, NULL);
  if (!v || (v->attr & VAR_NOVALUE)) {
    if (sub == '@' || sub == '*') {
      out->list = 1;
      out->star = sub == '*';
    }
    if (sub == 'i' && (index || idx_text) && !(v && (v->attr & VAR_ASSOC))) {
      int64_t ix;
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) interp_errf(sh, "%s: bad array subscript", name);
    }
    return 0;
  }
  if (sub == '@' || sub == '*') {
    var_elem **el;
    size_t n, k;
    out->list = 1;
    out->star = sub == '*';
    out->set = 1;
    if (!(v->attr & (VAR_ARRAY | VAR_ASSOC)))
      return v->val ? xval_str(sh, out, v->val) : 0;
    if ((rc = var_elems(sh->m, v, &el, &n))) return rc;
    for (k = 0; k < n && !rc; k++) rc = xval_str(sh, out, el[k]->val);
    mem_free(sh->m, el);
    return rc;
  }
  if (sub == 'i') {
    const char *val;
    if (v->attr & VAR_ASSOC) {
      char *key = NULL;
      if (idx_text)
        val = var_key_get(v, idx_text);
      else {
        rc = expand_string(sh, index, &key);
        if (rc) return rc;
        val = var_key_get(v, key);
        mem_free(sh->m, key);
      }
    } else {
      int64_t ix;
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) {
        int64_t end = var_index_end(v);
        if (ix + end < 0) {
          interp_errf(sh, "%s: bad array subscript", name);
          return 0;
        }
        ix += end;
      }
      val = var_index_get(v, ix);
    }
    return val ? xval_str(sh, out, val) : 0;
  }
  if (v->attr & VAR_ARRAY) {
    const char *val = var_index_get(v, 0);
    return val ? xval_str(sh, out, val) : 0;
  }
  if (v->attr & VAR_ASSOC) {
    const char *val = var_key_get(v, "0");
    return val ? xval_str(sh, out, val) : 0;
  }
  return v->val ? xval_str(sh, out, v->val) : 0;
}

/* Value of a parameter as one string (for builtins). */
int expand_param_value(shell *sh, const char *name, char **out) {
  xval v;
  int rc = expand_get(sh, name, 0, NULL, NULL, &v);
  *out = NULL;
  if (rc) return rc;
  if (v.set && v.n) {
    *out = v.v[0];
    v.v[0] = NULL;
    v.n = 0;
  }
  xval_free(sh, &v);
  return 0;
}

static const char *expand_ifs0(shell *sh, char *sep) {
  const char *ifs = var_value(sh->vars, "IFS");
  sep[0] = ifs ? ifs[0] : ' ';
  sep[1] = 0;
  return sep;
}

/* Appends a value (list or scalar) to the builder. */
void expand_put_val(xw *x, xval *v, int quoted) {
  size_t i;
  char sep[2];
  if (!v->set) return;
  if (!v->list) {
    if (v->n) xw_exp(x, v->v[0], strlen(v->v[0]), quoted);
    return;
  }
  if (x->mode != XM_FIELDS || (quoted && v->star)) {
    expand_ifs0(x->sh, sep);
    if (x->mode != XM_FIELDS && !v->star) strcpy(sep, " ");
    for (i = 0; i < v->n; i++) {
      if (i && sep[0]) xw_lit(x, sep, 1, quoted);
      xw_exp(x, v->v[i], strlen(v->v[i]), quoted);
    }
    if (quoted) x->started = 1;
    return;
  }
  for (i = 0; i < v->n && !x->err; i++) {
    if (i) {
      if (quoted) {
        x->started = 1;
        xw_end(x);
      } else if (x->started) {
        xw_end(x);
      }
    }
    if (quoted) x->started = 1;
    xw_exp(x, v->v[i], strlen(v->v[i]), quoted);
  }
}

int expand_is_null(const xval *v, int colon) {
  size_t i;
  if (!v->set) return 1;
  if (!colon) return 0;
  if (v->list && !v->star) {
    if (!v->n) return 1;
    if (v->n > 1) return 0;
  }
  if (!v->n) return 1;
  if (v->list) {
    for (i = 0; i < v->n; i++)
      if (v->v[i][0]) return 0;
    return v->n <= 1;
  }
  return v->v[0][0] == 0;
}
