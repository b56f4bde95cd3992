/* awk_parse.c - recursive-descent parser for the awk grammar.
 *
 * Precedence, lowest first, as in gawk's grammar: assignment (right),
 * ?: (right), ||, &&, in, ~ !~, comparisons (non-associative), the
 * `cmd | getline` pipe, concatenation, + -, * / %, unary ! + -, ^
 * (right), ++ --, $. Inside print's argument list an unparenthesised `>`
 * is a redirection. Names are resolved while parsing: function
 * parameters become frame slots, everything else a global slot; user
 * functions are looked up by name when the whole program is read. */
#include <stdio.h> /* snprintf only */
#include <string.h>

#include "awk.h"

#define AWK_MAX_NEST 200

typedef struct awk_parser {
  cmd_ctx *c;
  awk_lex l;
  awk_prog *p;
  char **params; /* parameters of the function being parsed */
  int nparams;
  int in_func, in_loop, in_end, in_switch;
  awk_node **calls; /* user function calls, checked at the end */
  int ncalls, calls_cap;
  int depth;
  int no_gt; /* print list: '>' is a redirection */
  int no_in; /* for (x in ...) header: 'in' ends the expression */
  int err;   /* 1 after a syntax error, or a negative MSB_E* code */
  int rules_cap, funcs_cap;
} awk_parser;

static awk_node *ap_expr(awk_parser *P);
static awk_node *ap_ternary(awk_parser *P);
static awk_node *ap_stmt(awk_parser *P);
static awk_node *ap_unary(awk_parser *P);

/* An error gawk reports without the source line. */
static void ap_plain(awk_parser *P, const char *msg, int times) {
  while (times-- > 0)
    buf_printf(P->c->err, "%s: %s:%d: error: %s\n", cmd_name(P->c),
               P->l.srcs[P->l.cur].name, P->l.line, msg);
  P->err = 1;
  P->l.failed = 1;
}

static void ap_fail(awk_parser *P, const char *msg) {
  if (P->err) return;
  if (!msg)
    msg = (P->l.tok == T_NL || P->l.tok == T_EOF)
              ? "unexpected newline or end of string"
              : "syntax error";
  /* gawk puts the caret under a misplaced case or default */
  if (P->l.tok == T_CASE || P->l.tok == T_DEFAULT) P->l.at_start = 1;
  if (P->l.tok != T_BAD) awk_lex_error(&P->l, msg);
  P->err = 1;
}

static int ap_next(awk_parser *P) {
  int t = awk_lex_next(&P->l);
  if (t == T_BAD) P->err = P->err ? P->err : 1;
  return t;
}

static awk_node *ap_node(awk_parser *P, int op) {
  awk_node *n = arena_zalloc(P->c->a, sizeof *n);
  if (!n) {
    P->err = MSB_ENOMEM;
    return NULL;
  }
  n->op = op;
  n->line = P->l.line;
  return n;
}

static int ap_expect(awk_parser *P, int t) {
  if (P->err) return 0;
  if (P->l.tok != t) {
    ap_fail(P, NULL);
    return 0;
  }
  ap_next(P);
  return 1;
}

static void ap_newlines(awk_parser *P) {
  while (P->l.tok == T_NL && !P->err) ap_next(P);
}

/* Statement terminators: newlines and semicolons. */
static void ap_terms(awk_parser *P) {
  while ((P->l.tok == T_NL || P->l.tok == ';') && !P->err) ap_next(P);
}

int awk_global(cmd_ctx *c, awk_prog *p, const char *name) {
  int i;
  char **g;
  for (i = 0; i < p->nglobals; i++)
    if (!strcmp(p->gnames[i], name)) return i;
  if ((p->nglobals & 63) == 0) {
    g = arena_alloc(c->a, sizeof *g * (size_t)(p->nglobals + 64));
    if (!g) return -1;
    if (p->nglobals) memcpy(g, p->gnames, sizeof *g * (size_t)p->nglobals);
    p->gnames = g;
  }
  p->gnames[p->nglobals] = arena_strdup(c->a, name);
  return p->gnames[p->nglobals] ? p->nglobals++ : -1;
}

static int ap_func_index(awk_parser *P, const char *name) {
  int i;
  awk_prog *p = P->p;
  for (i = 0; i < p->nfuncs; i++)
    if (!strcmp(p->funcs[i].name, name)) return i;
  if (p->nfuncs == P->funcs_cap) {
    int cap = P->funcs_cap ? P->funcs_cap * 2 : 16;
    awk_func *f = arena_zalloc(P->c->a, sizeof *f * (size_t)cap);
    if (!f) return P->err = MSB_ENOMEM, 0;
    if (p->nfuncs) memcpy(f, p->funcs, sizeof *f * (size_t)p->nfuncs);
    p->funcs = f;
    P->funcs_cap = cap;
  }
  p->funcs[p->nfuncs].name = arena_strdup(P->c->a, name);
  p->funcs[p->nfuncs].line = P->l.line;
  return p->nfuncs++;
}

/* A name as a variable: a parameter slot or a global. */
static awk_node *ap_var(awk_parser *P, const char *name) {
  awk_node *n;
  int i;
  for (i = 0; i < P->nparams; i++)
    if (!strcmp(P->params[i], name)) {
      n = ap_node(P, N_LOCAL);
      if (n) n->idx = i;
      return n;
    }
  for (i = 0; i < P->p->nfuncs; i++)
    if (P->p->funcs[i].defined && !strcmp(P->p->funcs[i].name, name)) {
      char msg[300];
      snprintf(msg, sizeof msg,
               "function `%s' called with space between name and `(',\n"
               "or used as a variable or an array",
               name);
      ap_plain(P, msg, 1);
      return NULL;
    }
  n = ap_node(P, N_VAR);
  if (n && (n->idx = awk_global(P->c, P->p, name)) < 0) P->err = MSB_ENOMEM;
  return n;
}

static int ap_is_lvalue(const awk_node *n) {
  return n && (n->op == N_VAR || n->op == N_LOCAL || n->op == N_FIELD ||
               n->op == N_INDEX);
}

/* A constant string: arena memory, never freed through its count. */
static awk_str *ap_const(awk_parser *P, const char *s, size_t n) {
  awk_str *r = arena_alloc(P->c->a, sizeof *r + n + 1);
  if (!r) {
    P->err = MSB_ENOMEM;
    return NULL;
  }
  r->ref = 1u << 30;
  r->len = n;
  if (n) memcpy(r->p, s, n);
  r->p[n] = 0;
  return r;
}

/* A regex literal that does not compile is gawk's parse-time error. */
static int ap_regex_check(awk_parser *P, const awk_str *re) {
  buf msg;
  rx *r = NULL;
  int rc;
  buf_init(&msg, P->c->m);
  rc = awk_rx_compile(P->c->m, re->p, re->len, 0, &r, &msg);
  if (r) rx_free(r);
  if (rc == MSB_EINVAL) {
    char text[400];
    snprintf(text, sizeof text, "%s: /%.*s/", buf_str(&msg),
             (int)(re->len < 300 ? re->len : 300), re->p);
    ap_plain(P, text, 1);
  } else if (rc)
    P->err = rc;
  buf_finish(&msg);
  return !rc;
}

static awk_node *ap_regex(awk_parser *P) {
  awk_node *n;
  buf b;
  if (P->l.tok == T_DIV_ASSIGN) P->l.pos--;
  if (awk_lex_regex(&P->l) != T_ERE) {
    P->err = P->err ? P->err : 1;
    return NULL;
  }
  n = ap_node(P, N_ERE);
  if (!n) return NULL;
  buf_init(&b, P->c->m);
  awk_unescape(&b, P->l.text, P->l.text_len, 1);
  n->str = b.err ? NULL : ap_const(P, b.p ? b.p : "", b.len);
  buf_finish(&b);
  if (!n->str) P->err = MSB_ENOMEM;
  if (!P->err && !ap_regex_check(P, n->str)) return NULL;
  ap_next(P);
  return n;
}

/* Comma-separated expressions up to `close`; *count gets their number. */
static awk_node *ap_list(awk_parser *P, int close, int *count) {
  awk_node *head = NULL, **tail = &head, *e;
  int n = 0, save_gt = P->no_gt, save_in = P->no_in;
  P->no_gt = 0;
  P->no_in = 0;
  ap_newlines(P);
  if (P->l.tok != close) {
    for (;;) {
      e = ap_expr(P);
      if (!e || P->err) break;
      *tail = e;
      tail = &e->next;
      n++;
      if (P->l.tok != ',') break;
      ap_next(P);
      ap_newlines(P);
    }
  }
  P->no_gt = save_gt;
  P->no_in = save_in;
  if (count) *count = n;
  return head;
}

static const struct {
  signed char min, max;
  const char *name;
} ap_arities[B_COUNT] = {
    [B_LENGTH] = {0, 1, "length"},
    [B_SUBSTR] = {2, 3, "substr"},
    [B_INDEX] = {2, 2, "index"},
    [B_SPLIT] = {2, 4, "split"},
    [B_SUB] = {2, 3, "sub"},
    [B_GSUB] = {2, 3, "gsub"},
    [B_MATCH] = {2, 3, "match"},
    [B_SPRINTF] = {1, 64, "sprintf"},
    [B_SIN] = {1, 1, "sin"},
    [B_COS] = {1, 1, "cos"},
    [B_ATAN2] = {2, 2, "atan2"},
    [B_EXP] = {1, 1, "exp"},
    [B_LOG] = {1, 1, "log"},
    [B_SQRT] = {1, 1, "sqrt"},
    [B_INT] = {1, 1, "int"},
    [B_RAND] = {0, 0, "rand"},
    [B_SRAND] = {0, 1, "srand"},
    [B_TOLOWER] = {1, 1, "tolower"},
    [B_TOUPPER] = {1, 1, "toupper"},
    [B_SYSTEM] = {1, 1, "system"},
    [B_CLOSE] = {1, 2, "close"},
    [B_FFLUSH] = {0, 1, "fflush"},
    [B_GENSUB] = {3, 4, "gensub"},
    [B_PATSPLIT] = {2, 4, "patsplit"},
    [B_ASORT] = {1, 3, "asort"},
    [B_ASORTI] = {1, 3, "asorti"},
    [B_STRFTIME] = {0, 3, "strftime"},
    [B_SYSTIME] = {0, 0, "systime"},
    [B_MKTIME] = {1, 2, "mktime"},
    [B_AND] = {0, 64, "and"},
    [B_OR] = {0, 64, "or"},
    [B_XOR] = {0, 64, "xor"},
    [B_LSHIFT] = {2, 2, "lshift"},
    [B_RSHIFT] = {2, 2, "rshift"},
    [B_COMPL] = {1, 1, "compl"},
    [B_STRTONUM] = {1, 1, "strtonum"},
    [B_ISARRAY] = {1, 1, "isarray"},
    [B_TYPEOF] = {1, 1, "typeof"},
};

/* gawk checks the argument count while parsing; the caret is on ')'. */
static int ap_arity(awk_parser *P, int b, int argc) {
  char msg[80];
  if (argc >= ap_arities[b].min && argc <= ap_arities[b].max) return 1;
  snprintf(msg, sizeof msg, "%d is invalid as number of arguments for %s", argc,
           ap_arities[b].name);
  ap_fail(P, msg);
  return 0;
}

static awk_node *ap_builtin(awk_parser *P) {
  awk_node *n = ap_node(P, N_BUILTIN);
  int argc = 0;
  if (!n) return NULL;
  n->sub = P->l.bid;
  ap_next(P);
  if (P->l.tok == '(') {
    ap_next(P);
    n->a = ap_list(P, ')', &argc);
    if (P->err) return NULL;
    if (!ap_arity(P, n->sub, argc)) return NULL;
    if (!ap_expect(P, ')')) return NULL;
  } else if (n->sub != B_LENGTH) {
    ap_fail(P, NULL);
    return NULL;
  }
  n->idx = argc;
  return n;
}

static awk_node *ap_call(awk_parser *P) {
  awk_node *n = ap_node(P, N_CALL);
  int argc = 0;
  if (!n) return NULL;
  n->idx = ap_func_index(P, P->l.text);
  ap_next(P); /* name */
  ap_next(P); /* ( */
  n->a = ap_list(P, ')', &argc);
  n->sub = argc;
  if (!ap_expect(P, ')')) return NULL;
  if (P->ncalls == P->calls_cap) {
    int cap = P->calls_cap ? P->calls_cap * 2 : 32;
    awk_node **c = arena_alloc(P->c->a, sizeof *c * (size_t)cap);
    if (!c) return P->err = MSB_ENOMEM, NULL;
    if (P->ncalls) memcpy(c, P->calls, sizeof *c * (size_t)P->ncalls);
    P->calls = c;
    P->calls_cap = cap;
  }
  P->calls[P->ncalls++] = n;
  return n;
}

/* `getline [lvalue] [< file]`, the part after an optional `cmd |`. */
static awk_node *ap_getline(awk_parser *P, awk_node *cmd) {
  awk_node *n = ap_node(P, N_GETLINE);
  if (!n) return NULL;
  ap_next(P);
  n->sub = cmd ? RD_CMD : RD_NONE;
  n->b = cmd;
  if (P->l.tok == '$' || P->l.tok == T_NAME) {
    awk_node *v = ap_unary(P);
    if (!ap_is_lvalue(v)) {
      ap_fail(P, NULL);
      return NULL;
    }
    n->a = v;
  }
  if (!cmd && P->l.tok == '<') {
    ap_next(P);
    n->sub = RD_FILE;
    n->b = ap_unary(P);
  }
  return n;
}

static awk_node *ap_primary(awk_parser *P) {
  awk_node *n;
  int t = P->l.tok;
  if (P->err) return NULL;
  switch (t) {
  case T_NUMBER:
    if ((n = ap_node(P, N_NUM))) n->num = P->l.num;
    ap_next(P);
    return n;
  case T_STRING:
    if ((n = ap_node(P, N_STR))) n->str = ap_const(P, P->l.text, P->l.text_len);
    ap_next(P);
    return n;
  case '/':
  case T_DIV_ASSIGN: return ap_regex(P);
  case T_FUNC_NAME: return ap_call(P);
  case T_BUILTIN: return ap_builtin(P);
  case T_GETLINE: return ap_getline(P, NULL);
  case T_NAME: {
    const char *name = P->l.text;
    ap_next(P);
    n = ap_var(P, name);
    if (n && P->l.tok == '[') {
      awk_node *ix = ap_node(P, N_INDEX);
      int cnt;
      if (!ix) return NULL;
      ap_next(P);
      ix->a = n;
      ix->b = ap_list(P, ']', &cnt);
      if (!cnt) {
        ap_fail(P, NULL);
        return NULL;
      }
      ix->sub = cnt;
      if (!ap_expect(P, ']')) return NULL;
      if (P->l.tok == '[') {
        ap_fail(P, "arrays of arrays are not supported in this awk");
        return NULL;
      }
      return ix;
    }
    return n;
  }
  case T_INCLUDE:
    if (strcmp(P->l.text, "@include") && strcmp(P->l.text, "@load") &&
        strcmp(P->l.text, "@namespace"))
      ap_fail(P, "indirect function calls are not supported in this awk");
    else
      ap_fail(P, NULL);
    return NULL;
  case '(': {
    int cnt;
    ap_next(P);
    n = ap_node(P, N_GROUP);
    if (!n) return NULL;
    n->a = ap_list(P, ')', &cnt);
    n->sub = cnt;
    if (!cnt) {
      ap_fail(P, NULL);
      return NULL;
    }
    if (!ap_expect(P, ')')) return NULL;
    if (cnt > 1 && P->l.tok != T_IN && !P->no_gt) {
      ap_fail(P, NULL);
      return NULL;
    }
    return cnt == 1 ? (n->a->op == N_GROUP ? n->a : n) : n;
  }
  default: ap_fail(P, NULL); return NULL;
  }
}

static awk_node *ap_postfix_field(awk_parser *P);

static awk_node *ap_postfix(awk_parser *P) {
  awk_node *n, *e;
  if (P->l.tok == '$') {
    n = ap_postfix_field(P);
  } else
    n = ap_primary(P);
  if (n && (P->l.tok == T_INCR || P->l.tok == T_DECR) && ap_is_lvalue(n)) {
    e = ap_node(P, N_INCDEC);
    if (!e) return NULL;
    e->sub = P->l.tok == T_INCR ? 2 : 3; /* post */
    e->a = n;
    ap_next(P);
    return e;
  }
  return n;
}

/* `$` and its operand: a primary, so $i++ increments the field. */
static awk_node *ap_postfix_field(awk_parser *P) {
  awk_node *n, *e;
  if (++P->depth > AWK_MAX_NEST) {
    ap_fail(P, "expression nested too deeply");
    return NULL;
  }
  {
    ap_next(P);
    n = ap_node(P, N_FIELD);
    if (!n) return NULL;
    if (P->l.tok == T_INCR || P->l.tok == T_DECR) {
      /* $++i: the increment applies to the operand */
      int inc = P->l.tok == T_INCR;
      ap_next(P);
      e = ap_node(P, N_INCDEC);
      if (!e) return NULL;
      e->sub = inc ? 0 : 1;
      e->a = ap_postfix(P);
      if (!ap_is_lvalue(e->a)) return ap_fail(P, NULL), NULL;
      n->a = e;
    } else if (P->l.tok == '-' || P->l.tok == '+' || P->l.tok == '!') {
      n->a = ap_unary(P);
    } else if (P->l.tok == '$') {
      /* $$i: the inner field takes no postfix operator either */
      n->a = ap_postfix_field(P);
    } else
      n->a = ap_primary(P);
    if (!n->a) return NULL;
  }
  P->depth--;
  return n;
}

static awk_node *ap_power(awk_parser *P) {
  awk_node *n = ap_postfix(P), *e;
  if (n && P->l.tok == T_POW) {
    ap_next(P);
    e = ap_node(P, N_ARITH);
    if (!e) return NULL;
    e->sub = AR_POW;
    e->a = n;
    /* right-associative, and binds tighter than a unary minus on its
     * right operand: 2^-1 */
    if (P->l.tok == '-' || P->l.tok == '+' || P->l.tok == '!')
      e->b = ap_unary(P);
    else
      e->b = ap_power(P);
    return e->b ? e : NULL;
  }
  return n;
}

static awk_node *ap_unary(awk_parser *P) {
  awk_node *n;
  int t = P->l.tok;
  if (++P->depth > AWK_MAX_NEST) {
    ap_fail(P, "expression nested too deeply");
    return NULL;
  }
  if (t == '!' || t == '-' || t == '+') {
    ap_next(P);
    n = ap_node(P, t == '!' ? N_NOT : t == '-' ? N_NEG : N_PLUS);
    if (n && !(n->a = ap_unary(P))) n = NULL;
  } else if (t == T_INCR || t == T_DECR) {
    ap_next(P);
    n = ap_node(P, N_INCDEC);
    if (n) {
      n->sub = t == T_INCR ? 0 : 1;
      n->a = ap_postfix(P);
      if (!ap_is_lvalue(n->a)) {
        ap_fail(P, NULL);
        n = NULL;
      }
    }
  } else
    n = ap_power(P);
  P->depth--;
  return n;
}

static awk_node *ap_binary(awk_parser *P, awk_node *a, int op, int sub,
                           awk_node *(*next)(awk_parser *)) {
  awk_node *n = ap_node(P, op);
  if (!n) return NULL;
  n->sub = sub;
  n->a = a;
  ap_next(P);
  if (op == N_AND || op == N_OR) ap_newlines(P);
  n->b = next(P);
  return n->b ? n : NULL;
}

/* A numeric literal, signed or not (gawk folds these at parse time). */
static int ap_const_num(const awk_node *n) {
  if (n->op == N_NEG || n->op == N_PLUS) n = n->a;
  return n->op == N_NUM;
}

static awk_node *ap_mul(awk_parser *P) {
  awk_node *n = ap_unary(P);
  while (n && (P->l.tok == '*' || P->l.tok == '/' || P->l.tok == '%')) {
    int s = P->l.tok == '*' ? AR_MUL : P->l.tok == '/' ? AR_DIV : AR_MOD;
    n = ap_binary(P, n, N_ARITH, s, ap_unary);
    /* constant / 0 is gawk's parse-time error */
    if (n && s != AR_MUL && ap_const_num(n->a) && ap_const_num(n->b) &&
        (n->b->op == N_NUM ? n->b->num : n->b->a->num) == 0) {
      ap_plain(P,
               s == AR_DIV ? "division by zero attempted"
                           : "division by zero attempted in `%'",
               1);
      return NULL;
    }
  }
  return n;
}

static awk_node *ap_add(awk_parser *P) {
  awk_node *n = ap_mul(P);
  while (n && (P->l.tok == '+' || P->l.tok == '-'))
    n = ap_binary(P, n, N_ARITH, P->l.tok == '+' ? AR_ADD : AR_SUB, ap_mul);
  return n;
}

/* Tokens that may start the right operand of a concatenation. */
static int ap_cat_start(awk_parser *P) {
  int t = P->l.tok;
  if (t == T_IN && P->no_in) return 0;
  return t == T_NUMBER || t == T_STRING || t == T_NAME || t == T_FUNC_NAME ||
         t == T_BUILTIN || t == '$' || t == '(' || t == '!' || t == '-' ||
         t == T_INCR || t == T_DECR || t == '+';
}

static awk_node *ap_cat(awk_parser *P) {
  awk_node *n = ap_add(P), *e;
  while (n && !P->err) {
    int t = P->l.tok;
    if (t == '|' && !P->no_gt) {
      awk_lex save = P->l;
      if (ap_next(P) == T_GETLINE) {
        n = ap_getline(P, n);
        continue;
      }
      P->l = save;
      break;
    }
    if (!ap_cat_start(P) || t == '-' || t == '+' || t == '!') break;
    e = ap_node(P, N_CAT);
    if (!e) return NULL;
    e->a = n;
    e->b = ap_add(P);
    n = e->b ? e : NULL;
  }
  return n;
}

static awk_node *ap_cmp(awk_parser *P) {
  awk_node *n = ap_cat(P);
  int t = P->l.tok, s = -1;
  if (!n) return NULL;
  switch (t) {
  case '<': s = CMP_LT; break;
  case T_LE: s = CMP_LE; break;
  case T_NE: s = CMP_NE; break;
  case T_EQ: s = CMP_EQ; break;
  case '>':
    if (!P->no_gt) s = CMP_GT;
    break;
  case T_GE: s = CMP_GE; break;
  }
  if (s < 0) return n;
  return ap_binary(P, n, N_CMP, s, ap_cat);
}

static awk_node *ap_match(awk_parser *P) {
  awk_node *n = ap_cmp(P);
  while (n && (P->l.tok == T_MATCH || P->l.tok == T_NOMATCH))
    n = ap_binary(P, n, N_MATCH, P->l.tok == T_NOMATCH, ap_cmp);
  return n;
}

static awk_node *ap_in(awk_parser *P) {
  awk_node *n = ap_match(P), *e;
  while (n && P->l.tok == T_IN && !P->no_in) {
    ap_next(P);
    if (P->l.tok != T_NAME) return ap_fail(P, NULL), NULL;
    e = ap_node(P, N_IN);
    if (!e) return NULL;
    e->a = n->op == N_GROUP ? n->a : n;
    e->sub = n->op == N_GROUP ? n->sub : 1;
    e->b = ap_var(P, P->l.text);
    ap_next(P);
    n = e;
  }
  return n;
}

static awk_node *ap_and(awk_parser *P) {
  awk_node *n = ap_in(P);
  while (n && P->l.tok == T_AND) n = ap_binary(P, n, N_AND, 0, ap_in);
  return n;
}

static awk_node *ap_or(awk_parser *P) {
  awk_node *n = ap_and(P);
  while (n && P->l.tok == T_OR) n = ap_binary(P, n, N_OR, 0, ap_and);
  return n;
}

static awk_node *ap_ternary(awk_parser *P) {
  awk_node *n = ap_or(P), *e;
  if (!n || P->l.tok != '?') return n;
  e = ap_node(P, N_COND);
  if (!e) return NULL;
  ap_next(P);
  ap_newlines(P);
  e->a = n;
  e->b = ap_expr(P);
  ap_newlines(P);
  if (!ap_expect(P, ':')) return NULL;
  ap_newlines(P);
  e->c = ap_expr(P);
  return e->b && e->c ? e : NULL;
}

static int ap_assign_op(int t) {
  switch (t) {
  case '=': return AR_SET;
  case T_ADD_ASSIGN: return AR_ADD;
  case T_SUB_ASSIGN: return AR_SUB;
  case T_MUL_ASSIGN: return AR_MUL;
  case T_DIV_ASSIGN: return AR_DIV;
  case T_MOD_ASSIGN: return AR_MOD;
  case T_POW_ASSIGN: return AR_POW;
  default: return -1;
  }
}

static awk_node *ap_expr(awk_parser *P) {
  awk_node *n, *e;
  int op;
  if (++P->depth > AWK_MAX_NEST) {
    ap_fail(P, "expression nested too deeply");
    return NULL;
  }
  n = ap_ternary(P);
  if (n && ap_is_lvalue(n) && (op = ap_assign_op(P->l.tok)) >= 0) {
    e = ap_node(P, N_ASSIGN);
    if (e) {
      e->sub = op;
      e->a = n;
      ap_next(P);
      ap_newlines(P);
      e->b = ap_expr(P);
    }
    n = e && e->b ? e : NULL;
  }
  P->depth--;
  return n;
}

/* ---- statements ---------------------------------------------------- */

static awk_node *ap_simple_end(awk_parser *P, awk_node *n) {
  if (P->err) return NULL;
  if (P->l.tok == ';' || P->l.tok == T_NL) {
    ap_next(P);
    return n;
  }
  if (P->l.tok == '}' || P->l.tok == T_EOF) return n;
  ap_fail(P, NULL);
  return NULL;
}

static awk_node *ap_print(awk_parser *P) {
  awk_node *n = ap_node(P, P->l.tok == T_PRINT ? S_PRINT : S_PRINTF);
  int cnt = 0;
  if (!n) return NULL;
  ap_next(P);
  P->no_gt = 1;
  if (P->l.tok != ';' && P->l.tok != T_NL && P->l.tok != '}' &&
      P->l.tok != '>' && P->l.tok != T_APPEND && P->l.tok != '|' &&
      P->l.tok != T_EOF) {
    awk_node *head = NULL, **tail = &head, *e;
    for (;;) {
      e = ap_expr(P);
      if (!e) break;
      *tail = e;
      tail = &e->next;
      cnt++;
      if (P->l.tok != ',') break;
      ap_next(P);
      ap_newlines(P);
    }
    /* print (a, b) > "f": the group is the argument list */
    if (cnt == 1 && head->op == N_GROUP) {
      cnt = head->sub;
      head = head->a;
    }
    n->a = head;
  }
  P->no_gt = 0;
  n->idx = cnt;
  if (P->err) return NULL;
  if (n->op == S_PRINTF && !cnt) return ap_fail(P, NULL), NULL;
  if (P->l.tok == '>' || P->l.tok == T_APPEND || P->l.tok == '|') {
    n->sub = P->l.tok == '>' ? RD_FILE : P->l.tok == '|' ? RD_PIPE : RD_APPEND;
    ap_next(P);
    P->no_gt = 1;
    n->b = ap_cat(P);
    P->no_gt = 0;
    if (!n->b) return NULL;
  }
  return ap_simple_end(P, n);
}

static awk_node *ap_block(awk_parser *P) {
  awk_node *n = ap_node(P, S_BLOCK), **tail, *s;
  if (!n || !ap_expect(P, '{')) return NULL;
  tail = &n->a;
  ap_terms(P);
  while (P->l.tok != '}' && !P->err) {
    if (P->l.tok == T_EOF) return ap_fail(P, NULL), NULL;
    s = ap_stmt(P);
    if (!s) return NULL;
    *tail = s;
    while (s->next) s = s->next;
    tail = &s->next;
    ap_terms(P);
  }
  ap_next(P);
  return n;
}

/* The body of if/while/for: a statement after optional newlines. */
static awk_node *ap_body(awk_parser *P) {
  ap_newlines(P);
  if (P->l.tok == ';') {
    ap_next(P);
    return ap_node(P, S_BLOCK);
  }
  return ap_stmt(P);
}

static awk_node *ap_cond_paren(awk_parser *P) {
  awk_node *e;
  if (!ap_expect(P, '(')) return NULL;
  e = ap_expr(P);
  if (!e || !ap_expect(P, ')')) return NULL;
  return e;
}

static awk_node *ap_if(awk_parser *P) {
  awk_node *n = ap_node(P, S_IF);
  if (!n) return NULL;
  ap_next(P);
  if (!(n->a = ap_cond_paren(P)) || !(n->b = ap_body(P))) return NULL;
  {
    awk_lex save = P->l;
    while (P->l.tok == T_NL || P->l.tok == ';') ap_next(P);
    if (P->l.tok == T_ELSE) {
      ap_next(P);
      if (!(n->c = ap_body(P))) return NULL;
    } else
      P->l = save;
  }
  return n;
}

static awk_node *ap_loop_body(awk_parser *P) {
  awk_node *b;
  P->in_loop++;
  b = ap_body(P);
  P->in_loop--;
  return b;
}

static awk_node *ap_for(awk_parser *P) {
  awk_node *n;
  ap_next(P);
  if (!ap_expect(P, '(')) return NULL;
  if (P->l.tok == T_NAME || P->l.tok == '(') {
    awk_lex save = P->l;
    int paren = P->l.tok == '(';
    if (paren) ap_next(P);
    if (P->l.tok == T_NAME) {
      const char *var = P->l.text;
      if (ap_next(P) == T_IN) {
        ap_next(P);
        if (P->l.tok == T_NAME) {
          const char *arr = P->l.text;
          if (ap_next(P) == ')' && (!paren || ap_next(P) == ')')) {
            n = ap_node(P, S_FORIN);
            if (!n) return NULL;
            n->a = ap_var(P, var);
            n->b = ap_var(P, arr);
            ap_next(P);
            return (n->d = ap_loop_body(P)) ? n : NULL;
          }
        }
      }
    }
    P->l = save;
  }
  n = ap_node(P, S_FOR);
  if (!n) return NULL;
  if (P->l.tok != ';' && !(n->a = ap_expr(P))) return NULL;
  if (!ap_expect(P, ';')) return NULL;
  ap_newlines(P);
  if (P->l.tok != ';' && !(n->b = ap_expr(P))) return NULL;
  if (!ap_expect(P, ';')) return NULL;
  ap_newlines(P);
  if (P->l.tok != ')' && !(n->c = ap_expr(P))) return NULL;
  if (!ap_expect(P, ')')) return NULL;
  return (n->d = ap_loop_body(P)) ? n : NULL;
}

static awk_node *ap_simple_kw(awk_parser *P, int op) {
  awk_node *n = ap_node(P, op);
  if (!n) return NULL;
  if ((op == S_BREAK || op == S_CONTINUE) && !P->in_loop &&
      !(op == S_BREAK && P->in_switch)) {
    /* gawk reports it twice, but a continue outside a switch once */
    ap_plain(P,
             op == S_BREAK ? "`break' is not allowed outside a loop or switch"
                           : "`continue' is not allowed outside a loop",
             op == S_BREAK || P->in_switch ? 2 : 1);
    return NULL;
  }
  ap_next(P);
  if ((op == S_EXIT || op == S_RETURN) && P->l.tok != ';' && P->l.tok != T_NL &&
      P->l.tok != '}' && P->l.tok != T_EOF) {
    if (!(n->a = ap_expr(P))) return NULL;
  }
  return ap_simple_end(P, n);
}

/* A case label: a number (optionally signed), a string or a regex, the
 * constants gawk allows. */
static awk_node *ap_case_label(awk_parser *P) {
  awk_node *n;
  int neg = P->l.tok == '-';
  if (P->l.tok == '-' || P->l.tok == '+') ap_next(P);
  if (P->l.tok == T_NUMBER) {
    if ((n = ap_node(P, N_NUM))) n->num = neg ? -P->l.num : P->l.num;
    ap_next(P);
    return n;
  }
  if (P->l.tok == T_STRING || P->l.tok == '/' || P->l.tok == T_DIV_ASSIGN)
    return ap_primary(P);
  ap_fail(P, NULL);
  return NULL;
}

/* A case constant as the string gawk compares labels by. */
static void ap_case_text(awk_node *n, char *out, size_t cap) {
  if (n->op != N_NUM)
    snprintf(out, cap, "%.*s", (int)n->str->len, n->str->p);
  else if (n->num == (double)(long long)n->num)
    snprintf(out, cap, "%lld", (long long)n->num);
  else
    snprintf(out, cap, "%.6g", n->num);
}

/* Two constant labels with the same string value (1 and "1" alike) are
 * gawk's error; regex labels are never compared. */
static int ap_case_dup(awk_parser *P, awk_node *cases, awk_node *label) {
  char msg[300], mine[200], other[200];
  if (label->op == N_ERE) return 0;
  ap_case_text(label, mine, sizeof mine);
  for (; cases; cases = cases->next) {
    if (!cases->a || cases->a->op == N_ERE) continue;
    ap_case_text(cases->a, other, sizeof other);
    if (strcmp(mine, other)) continue;
    snprintf(msg, sizeof msg, "duplicate case values in switch body: %s", mine);
    ap_plain(P, msg, 1);
    return 1;
  }
  return 0;
}

/* The statements of one case, up to the next case, default or "}". */
static awk_node *ap_case_body(awk_parser *P) {
  awk_node *head = NULL, **tail = &head, *s;
  ap_terms(P);
  while (P->l.tok != T_CASE && P->l.tok != T_DEFAULT && P->l.tok != '}') {
    if (P->l.tok == T_EOF) return ap_fail(P, NULL), NULL;
    if (!(s = ap_stmt(P))) return NULL;
    *tail = s;
    while (s->next) s = s->next;
    tail = &s->next;
    ap_terms(P);
  }
  return head ? head : ap_node(P, S_BLOCK);
}

/* gawk's switch: the first case whose constant equals (or regex matches)
 * the subject, else default, runs on through the later cases until break. */
static awk_node *ap_switch(awk_parser *P) {
  awk_node *n = ap_node(P, S_SWITCH), **tail, *c;
  int defaults = 0;
  if (!n) return NULL;
  ap_next(P);
  if (!(n->a = ap_cond_paren(P))) return NULL;
  ap_newlines(P);
  if (!ap_expect(P, '{')) return NULL;
  ap_terms(P);
  tail = &n->b;
  P->in_switch++;
  while (!P->err && (P->l.tok == T_CASE || P->l.tok == T_DEFAULT)) {
    int is_default = P->l.tok == T_DEFAULT;
    if (!(c = ap_node(P, S_CASE))) break;
    if (is_default && defaults++) {
      ap_plain(P, "duplicate `default' detected in switch body", 1);
      break;
    }
    ap_next(P);
    if (!is_default && !(c->a = ap_case_label(P))) break;
    if (c->a && ap_case_dup(P, n->b, c->a)) break;
    if (!ap_expect(P, ':') || !(c->b = ap_case_body(P))) break;
    *tail = c;
    tail = &c->next;
  }
  P->in_switch--;
  if (P->err || !ap_expect(P, '}')) return NULL;
  return n;
}

static awk_node *ap_delete(awk_parser *P) {
  awk_node *n = ap_node(P, S_DELETE);
  int paren = 0;
  if (!n) return NULL;
  if (ap_next(P) == '(') paren = 1, ap_next(P);
  if (P->l.tok != T_NAME) return ap_fail(P, NULL), NULL;
  n->a = ap_var(P, P->l.text);
  if (ap_next(P) == '[') {
    int cnt;
    ap_next(P);
    n->b = ap_list(P, ']', &cnt);
    n->sub = cnt;
    if (!cnt || !ap_expect(P, ']')) return ap_fail(P, NULL), NULL;
  }
  if (paren && !ap_expect(P, ')')) return NULL;
  return ap_simple_end(P, n);
}

static awk_node *ap_stmt(awk_parser *P) {
  awk_node *n;
  if (P->err) return NULL;
  if (++P->depth > AWK_MAX_NEST) {
    ap_fail(P, "statements nested too deeply");
    return NULL;
  }
  switch (P->l.tok) {
  case '{': n = ap_block(P); break;
  case T_IF: n = ap_if(P); break;
  case T_WHILE:
    ap_next(P);
    n = ap_node(P, S_WHILE);
    if (n && (!(n->a = ap_cond_paren(P)))) n = NULL;
    if (n && P->l.tok == ';') {
      ap_next(P);
      n->b = ap_node(P, S_BLOCK);
    } else if (n && !(n->b = ap_loop_body(P)))
      n = NULL;
    break;
  case T_DO:
    ap_next(P);
    n = ap_node(P, S_DO);
    if (n && !(n->b = ap_loop_body(P))) n = NULL;
    if (n) {
      ap_terms(P);
      if (!ap_expect(P, T_WHILE) || !(n->a = ap_cond_paren(P)))
        n = NULL;
      else
        n = ap_simple_end(P, n);
    }
    break;
  case T_FOR: n = ap_for(P); break;
  case T_SWITCH: n = ap_switch(P); break;
  case T_PRINT:
  case T_PRINTF: n = ap_print(P); break;
  case T_NEXT:
  case T_NEXTFILE:
    if (P->in_func < 0) {
      char msg[64];
      snprintf(msg, sizeof msg, "`%s' used in %s action",
               P->l.tok == T_NEXT ? "next" : "nextfile",
               P->in_end ? "END" : "BEGIN");
      ap_plain(P, msg, 1);
      n = NULL;
      break;
    }
    n = ap_simple_kw(P, P->l.tok == T_NEXT ? S_NEXT : S_NEXTFILE);
    break;
  case T_EXIT: n = ap_simple_kw(P, S_EXIT); break;
  case T_RETURN:
    if (P->in_func <= 0) {
      P->l.at_start = 1;
      ap_fail(P, "`return' used outside function context");
      n = NULL;
      break;
    }
    n = ap_simple_kw(P, S_RETURN);
    break;
  case T_BREAK: n = ap_simple_kw(P, S_BREAK); break;
  case T_CONTINUE: n = ap_simple_kw(P, S_CONTINUE); break;
  case T_DELETE: n = ap_delete(P); break;
  case ';':
    ap_next(P);
    n = ap_node(P, S_BLOCK);
    break;
  default:
    n = ap_node(P, S_EXPR);
    if (n && !(n->a = ap_expr(P))) n = NULL;
    if (n) n = ap_simple_end(P, n);
  }
  P->depth--;
  return n;
}

/* ---- program ------------------------------------------------------- */

static awk_rule *ap_rule(awk_parser *P, int kind) {
  awk_prog *p = P->p;
  if (p->nrules == P->rules_cap) {
    int cap = P->rules_cap ? P->rules_cap * 2 : 16;
    awk_rule *r = arena_zalloc(P->c->a, sizeof *r * (size_t)cap);
    if (!r) return P->err = MSB_ENOMEM, NULL;
    if (p->nrules) memcpy(r, p->rules, sizeof *r * (size_t)p->nrules);
    p->rules = r;
    P->rules_cap = cap;
  }
  p->rules[p->nrules].kind = kind;
  return &p->rules[p->nrules++];
}

/* A global variable's slot, or -1 (no new slot is made). */
static int ap_global_slot(awk_parser *P, const char *name) {
  int i;
  for (i = 0; i < P->p->nglobals; i++)
    if (!strcmp(P->p->gnames[i], name)) return i;
  return -1;
}

/* gawk's checks of a parameter list: not the function's own name, not a
 * special variable, not a repeat. */
static int ap_param_ok(awk_parser *P, const char *fn, char **params, int np) {
  char msg[400];
  const char *p = params[np - 1];
  int i, slot = ap_global_slot(P, p);
  msg[0] = 0;
  if (!strcmp(p, fn))
    snprintf(msg, sizeof msg,
             "function `%s': cannot use function name as parameter name", fn);
  else if (slot >= 0 && slot < V_NSPECIAL)
    snprintf(msg, sizeof msg,
             "function `%s': cannot use special variable `%s' as a function "
             "parameter",
             fn, p);
  for (i = 0; !msg[0] && i < np - 1; i++)
    if (!strcmp(params[i], p))
      snprintf(msg, sizeof msg,
               "function `%s': parameter #%d, `%s', duplicates parameter #%d",
               fn, np, p, i + 1);
  if (msg[0]) ap_plain(P, msg, 1);
  return !msg[0];
}

static int ap_function(awk_parser *P) {
  awk_func *f;
  int fi;
  char **params = NULL;
  int np = 0, t = ap_next(P);
  if (t == T_BUILTIN) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "`%s' is a built-in function, it cannot be redefined",
             P->l.text ? P->l.text : "");
    P->l.at_start = 1;
    ap_fail(P, msg);
    return 0;
  }
  if (t != T_NAME && t != T_FUNC_NAME) return ap_fail(P, NULL), 0;
  if (ap_global_slot(P, P->l.text) >= 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "function name `%s' previously defined",
             P->l.text);
    ap_plain(P, msg, 1);
    return 0;
  }
  fi = ap_func_index(P, P->l.text);
  if (P->err) return 0;
  f = &P->p->funcs[fi];
  if (f->defined) {
    char msg[300];
    snprintf(msg, sizeof msg, "function `%s': can't redefine function",
             f->name);
    ap_fail(P, msg);
    return 0;
  }
  ap_next(P);
  if (!ap_expect(P, '(')) return 0;
  params = arena_alloc(P->c->a, sizeof *params * 256);
  if (!params) return P->err = MSB_ENOMEM, 0;
  while (P->l.tok == T_NAME && np < 256) {
    params[np++] = P->l.text;
    if (!ap_param_ok(P, P->p->funcs[fi].name, params, np)) return 0;
    ap_next(P);
    if (P->l.tok != ',') break;
    ap_next(P);
    ap_newlines(P);
  }
  if (!ap_expect(P, ')')) return 0;
  ap_newlines(P);
  P->params = params;
  P->nparams = np;
  P->in_func = 1;
  f = &P->p->funcs[fi];
  f->nparams = np;
  f->params = params;
  f->body = ap_block(P);
  f = &P->p->funcs[fi];
  f->defined = 1;
  P->params = NULL;
  P->nparams = 0;
  P->in_func = 0;
  return f->body != NULL;
}

static int ap_item(awk_parser *P) {
  awk_rule *r;
  int t = P->l.tok, kind;
  if (t == T_FUNCTION) return ap_function(P);
  if (t == T_INCLUDE) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s is not supported in this awk",
             P->l.text ? P->l.text : "@");
    ap_fail(P, msg);
    return 0;
  }
  kind = t == T_BEGIN       ? R_BEGIN
         : t == T_END       ? R_END
         : t == T_BEGINFILE ? R_BEGINFILE
         : t == T_ENDFILE   ? R_ENDFILE
                            : R_MAIN;
  if (!(r = ap_rule(P, kind))) return 0;
  if (kind != R_MAIN) {
    ap_next(P);
    if (P->l.tok != '{') return ap_fail(P, NULL), 0;
    P->in_func = (kind == R_BEGIN || kind == R_END) ? -1 : 0;
    P->in_end = kind == R_END;
    r->body = ap_block(P);
    P->in_func = 0;
    return r->body != NULL;
  }
  if (t != '{') {
    awk_node *pat = ap_expr(P), *pat2 = NULL;
    if (!pat) return 0;
    if (P->l.tok == ',') {
      ap_next(P);
      ap_newlines(P);
      if (!(pat2 = ap_expr(P))) return 0;
    }
    r = &P->p->rules[P->p->nrules - 1];
    r->pat = pat;
    r->pat2 = pat2;
  }
  if (P->l.tok == '{') {
    awk_node *b = ap_block(P);
    r = &P->p->rules[P->p->nrules - 1];
    r->body = b;
    return b != NULL;
  }
  if (P->l.tok == T_NL || P->l.tok == ';' || P->l.tok == T_EOF) return 1;
  ap_fail(P, NULL);
  return 0;
}

static int ap_finish(awk_parser *P) {
  awk_prog *p = P->p;
  int i;
  for (i = 0; i < p->nrules; i++) {
    if (p->rules[i].kind == R_MAIN) p->has_main = 1;
    if (p->rules[i].kind == R_END) p->has_end = 1;
  }
  for (i = 0; i < P->ncalls; i++) {
    awk_func *f = &p->funcs[P->calls[i]->idx];
    if (f->defined && P->calls[i]->sub > f->nparams)
      buf_printf(P->c->err,
                 "%s: cmd. line:%d: warning: function `%s' called with more "
                 "arguments than declared\n",
                 cmd_name(P->c), P->calls[i]->line, f->name);
  }
  for (i = 0; i < p->nfuncs; i++)
    if (!p->funcs[i].defined) {
      buf_printf(P->c->err,
                 "%s: cmd. line:%d: fatal: function `%s' not defined\n",
                 cmd_name(P->c), p->funcs[i].line, p->funcs[i].name);
      return 2;
    }
  return 0;
}

int awk_parse(cmd_ctx *c, const awk_src *srcs, int nsrc, awk_prog *prog) {
  awk_parser P;
  int i;
  static const char *const specials[V_NSPECIAL] = {
      "NR",       "FNR",        "NF",       "FS",          "OFS",
      "ORS",      "RS",         "FILENAME", "SUBSEP",      "CONVFMT",
      "OFMT",     "RSTART",     "RLENGTH",  "ENVIRON",     "ARGC",
      "ARGV",     "IGNORECASE", "FPAT",     "FIELDWIDTHS", "RT",
      "PROCINFO", "ERRNO",      "BINMODE",  "LINT",        "TEXTDOMAIN"};
  memset(&P, 0, sizeof P);
  memset(prog, 0, sizeof *prog);
  P.c = c;
  P.p = prog;
  for (i = 0; i < V_NSPECIAL; i++)
    if (awk_global(c, prog, specials[i]) < 0) return MSB_ENOMEM;
  awk_lex_init(&P.l, c, srcs, nsrc);
  ap_next(&P);
  ap_terms(&P);
  while (!P.err && P.l.tok != T_EOF) {
    if (!ap_item(&P)) break;
    ap_terms(&P);
  }
  if (P.err) return P.err < 0 ? P.err : 1;
  return ap_finish(&P);
}
