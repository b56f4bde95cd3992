/* expand_subst.c - command substitution and arithmetic expansion, with
 * arithmetic variables read and written through the shell. */
#include "expand_int.h"

#include <string.h>

#include "arith.h"

/* Runs a command substitution from its text (for aliases); a backquote body
 * is unescaped first as the lexer does (\\ \` \$, and \" when quoted). */
static int expand_cmdsub_text(shell *sh, const ast_part *p, int quoted,
                              buf *out) {
  buf body;
  size_t i;
  int rc;
  if (!(p->flags & AST_PF_BACKTICK))
    return interp_capture_text(sh, p->text, p->len, p->line ? p->line : 1, out);
  buf_init(&body, sh->m);
  for (i = 0; i < p->len; i++) {
    char d = i + 1 < p->len ? p->text[i + 1] : 0;
    if (p->text[i] == '\\' &&
        (d == '\\' || d == '`' || d == '$' || (quoted && d == '"')))
      i++;
    buf_putc(&body, p->text[i]);
  }
  rc = body.err ? body.err
                : interp_capture_text(sh, body.p ? body.p : "", body.len,
                                      p->line ? p->line : 1, out);
  buf_finish(&body);
  return rc;
}

int expand_cmdsub(xw *x, const ast_part *p, int quoted) {
  shell *sh = x->sh;
  buf out;
  int rc;
  size_t n, i, k;
  buf_init(&out, sh->m);
  if (p->flags & AST_PF_EOF) {
    int line = p->line;
    for (i = 0; i < p->len; i++)
      if (p->text[i] == '\n') line++;
    interp_errf_noline(sh,
                       "command substitution: line %d: unexpected EOF "
                       "while looking for matching `)'",
                       line);
    rc = 256;
  } else if (p->flags & AST_PF_DEFERRED) {
    rc = interp_capture_text(sh, p->text ? p->text : "", p->len,
                             p->line ? p->line : 1, &out);
  } else if ((sh->shopts & SH_SO_EXPAND_ALIASES) && sh->naliases && p->text) {
    /* bash parses the body again when it runs, with the aliases of then */
    rc = expand_cmdsub_text(sh, p, quoted, &out);
  } else {
    rc = interp_capture(sh, p->cmd, &out);
  }
  if (rc < 0) {
    buf_finish(&out);
    return rc;
  }
  if (out.err) {
    buf_finish(&out);
    return MSB_ENOMEM;
  }
  if (rc == 256 && !(p->flags & AST_PF_BACKTICK)) {
    /* the substitution did not parse: the command does not run */
    buf_finish(&out);
    sh->status = 1;
    return 1;
  }
  if (rc == 256) rc = 2; /* `...` that did not parse: empty, status 2 */
  sh->cmdsub_ran = 1;
  sh->last_cmdsub_status = rc;
  sh->status = rc;
  n = out.len;
  /* drop NUL bytes like bash (with its warning) */
  for (i = k = 0; i < n; i++)
    if (out.p[i]) out.p[k++] = out.p[i];
  if (k != n)
    interp_errf(sh,
                "warning: command substitution: ignored null "
                "byte in input");
  n = k;
  while (n && out.p && out.p[n - 1] == '\n') n--;
  if (n) xw_exp(x, out.p, n, quoted);
  buf_finish(&out);
  return 0;
}

typedef struct xarith {
  shell *sh;
  buf scratch;
} xarith;

static int expand_ar_is_assoc(void *ctx, const char *name, size_t nlen) {
  xarith *a = ctx;
  char nm[256];
  var *v;
  if (nlen >= sizeof nm) return 0;
  memcpy(nm, name, nlen);
  nm[nlen] = 0;
  v = var_get(a->sh->vars, nm, NULL);
  return v && (v->attr & VAR_ASSOC);
}

static int expand_ar_get(void *ctx, const arith_ref *r, const char **val,
                         size_t *vlen, buf *errmsg) {
  xarith *a = ctx;
  shell *sh = a->sh;
  char nm[256];
  var *v;
  const char *s = NULL;
  xval xv;
  int rc;
  *val = NULL;
  *vlen = 0;
  if (r->nlen >= sizeof nm) return 0;
  memcpy(nm, r->name, r->nlen);
  nm[r->nlen] = 0;
  buf_clear(&a->scratch);
  memset(&xv, 0, sizeof xv);
  if (r->kind == ARITH_PLAIN && expand_special(sh, nm, &xv, &rc)) {
    if (rc) return rc;
    if (xv.n) buf_puts(&a->scratch, xv.v[0]);
    xval_free(sh, &xv);
    if (a->scratch.err) return a->scratch.err;
    *val = buf_str(&a->scratch);
    *vlen = a->scratch.len;
    return 0;
  }
  v = var_get(sh->vars, nm, NULL);
  if (v && !(v->attr & VAR_NOVALUE)) {
    if (r->kind == ARITH_KEY) {
      char key[512];
      size_t kl = r->klen < sizeof key - 1 ? r->klen : sizeof key - 1;
      memcpy(key, r->key, kl);
      key[kl] = 0;
      s = var_key_get(v, key);
    } else if (r->kind == ARITH_INDEX) {
      int64_t ix = r->index;
      if (ix < 0) ix += var_index_end(v);
      s = ix >= 0 ? var_index_get(v, ix) : NULL;
    } else if (v->attr & VAR_ASSOC)
      s = var_key_get(v, "0");
    else
      s = var_index_get(v, 0);
  }
  if (!s && (sh->opts & SH_O_NOUNSET)) {
    buf_printf(errmsg, "%s: unbound variable", nm);
    return MSB_EINVAL;
  }
  if (s) {
    *val = s;
    *vlen = strlen(s);
  }
  return 0;
}

static int expand_ar_set(void *ctx, const arith_ref *r, int64_t val,
                         buf *errmsg) {
  xarith *a = ctx;
  shell *sh = a->sh;
  char nm[256], nb[24];
  int rc;
  if (r->nlen >= sizeof nm) return 0;
  memcpy(nm, r->name, r->nlen);
  nm[r->nlen] = 0;
  expand_fmt_i64(nb, val);
  if (r->kind == ARITH_KEY) {
    char key[512];
    size_t kl = r->klen < sizeof key - 1 ? r->klen : sizeof key - 1;
    memcpy(key, r->key, kl);
    key[kl] = 0;
    rc = var_set_key(sh->vars, nm, key, nb, 0);
  } else if (r->kind == ARITH_INDEX) {
    int64_t ix = r->index;
    if (ix < 0) {
      var *v = var_get(sh->vars, nm, NULL);
      ix += v ? var_index_end(v) : 0;
      if (ix < 0) {
        buf_printf(errmsg, "%s[%lld]: bad array subscript", nm,
                   (long long)r->index);
        return MSB_EINVAL;
      }
    }
    rc = var_set_index(sh->vars, nm, ix, nb, 0);
  } else {
    var *v = var_get(sh->vars, nm, NULL);
    if (v && (v->attr & VAR_READONLY))
      rc = VAR_ERO;
    else
      rc = var_set(sh->vars, nm, nb, 0);
    if (!rc && (sh->opts & SH_O_ALLEXPORT)) {
      v = var_get(sh->vars, nm, NULL);
      if (v) v->attr |= VAR_EXPORT;
    }
  }
  if (rc == VAR_ERO) {
    buf_printf(errmsg, "%s: readonly variable", nm);
    return MSB_EINVAL;
  }
  return rc;
}

/* Evaluates arithmetic text; prints errors (prefixed with what). */
int expand_arith_text(shell *sh, const char *s, size_t n, int64_t *val,
                      const char *what) {
  xarith a;
  arith_env env;
  buf err;
  int rc;
  uint64_t work = sh->lim->max_steps ? sh->lim->max_steps * 4 : (uint64_t)-1;
  a.sh = sh;
  buf_init(&a.scratch, sh->m);
  buf_init(&err, sh->m);
  env.ctx = &a;
  env.is_assoc = expand_ar_is_assoc;
  env.get = expand_ar_get;
  env.set = expand_ar_set;
  /* the first few levels are part of the caller's own cost */
  env.max_nest = (int)(interp_stack_left(sh) / SH_STACK_ARITH) + 4;
  rc = arith_eval(&env, s, n, val, &err, &work);
  if (rc == MSB_ELIMIT) {
    if (!sh->run->limit) sh->run->limit = LIMIT_MAX_STEPS;
  } else if (rc && rc != MSB_ENOMEM) {
    if (what)
      interp_errf(sh, "%s: %s", what, buf_str(&err));
    else
      interp_errf(sh, "%s", buf_str(&err));
    rc = 1;
  }
  buf_finish(&a.scratch);
  buf_finish(&err);
  return rc;
}

/* Expands an arithmetic word and evaluates it. */
int expand_arith(shell *sh, ast_word *w, int64_t *val, const char *what) {
  char *s = NULL;
  int rc;
  *val = 0;
  if (!w) return 0;
  rc = expand_string(sh, w, &s);
  if (rc) return rc;
  rc = expand_arith_text(sh, s, strlen(s), val, what);
  mem_free(sh->m, s);
  return rc;
}
