/* interp_cond.c - the `[[ ... ]]` conditional: file tests, string and
 * integer comparisons, regex matches with BASH_REMATCH. */
#include "interp_int.h"

#include <string.h>

#include "regex.h"

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
    rc = expand_match(sh, r, l, 1);
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
