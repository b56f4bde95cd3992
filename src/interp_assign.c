/* interp_assign.c - xtrace lines and assignments: scalars, arrays and
 * their elements, namerefs, and the words of declaration builtins. */
#include "interp_int.h"

#include <string.h>

/* ---- xtrace --------------------------------------------------------- */

int interp_xtrace(shell *sh, char **av, int ac, char **as, int nas) {
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
      /* bash warns again as it resolves the new reference */
      interp_errf(sh, "warning: %s: circular name reference", v->name);
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
  /* the value is copied once more, into the variable */
  if (!rc && (rc = interp_charge_bytes(sh, strlen(val)))) mem_free(sh->m, val);
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
