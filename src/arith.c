/* arith.c - bash arithmetic, evaluated while parsing (see arith.h).
 *
 * The structure mirrors bash's expr.c on purpose, because bash's error
 * messages and corner cases (which token an error names, when `x=` skips
 * evaluating x, why `1+x=2` is not an assignment) fall out of that
 * structure: a tokenizer with one token of lookahead that remembers where
 * the last non-EOF token started ("lasttp", the error token) and what the
 * previous token was ("lasttok"), and one recursive-descent function per
 * precedence level that evaluates as it parses. A "noeval" counter marks
 * the side of && || ?: that is parsed but not evaluated: no assignments,
 * variable reads or division errors happen there.
 *
 * All arithmetic is done on uint64_t and converted back, so overflow wraps
 * like bash on two's-complement machines without undefined behaviour;
 * shift counts are masked to 0..63 as x86 does (bash inherits that). */
#include "arith.h"

#include <string.h>

#include "memsandbox.h"

/* Deepest parenthesis nesting; bash has none, but our C stack needs one. */
#define ARITH_MAX_PARENS 256

enum {
  AT_EOF = 0,
  AT_NUM,
  AT_STR,
  AT_EQ,
  AT_OPASSIGN,
  AT_EQEQ,
  AT_NEQ,
  AT_LT,
  AT_GT,
  AT_LEQ,
  AT_GEQ,
  AT_LSH,
  AT_RSH,
  AT_LAND,
  AT_LOR,
  AT_BAND,
  AT_BOR,
  AT_BXOR,
  AT_NOT,
  AT_BNOT,
  AT_PLUS,
  AT_MINUS,
  AT_MUL,
  AT_DIV,
  AT_MOD,
  AT_POWER,
  AT_QUES,
  AT_COL,
  AT_COMMA,
  AT_LPAR,
  AT_RPAR,
  AT_PREINC,
  AT_PREDEC,
  AT_POSTINC,
  AT_POSTDEC,
  AT_COND
};

typedef struct arith_st {
  const arith_env *env;
  buf *errmsg;
  uint64_t *work;
  const char *e;   /* expression text (leading blanks skipped) */
  size_t len;
  size_t shown;    /* how much of e an error message shows */
  size_t tp;       /* next read position */
  size_t lasttp;   /* start of the last non-EOF token */
  int curtok, lasttok;
  int assigntok;   /* operator of an AT_OPASSIGN */
  int64_t tokval;
  /* the identifier most recently read (the lvalue of an assignment) */
  size_t id, idlen;      /* name */
  size_t sub, sublen;    /* subscript text inside [ ] */
  int has_sub;
  int noeval;
  int depth;       /* value-evaluation nesting (1 = top level) */
  int parens;
} arith_st;

static int arith_expcomma(arith_st *s, int64_t *v);
static int arith_expassign(arith_st *s, int64_t *v);
static int arith_expcond(arith_st *s, int64_t *v);
static int arith_sub(const arith_env *env, const char *expr, size_t len,
                     int64_t *out, buf *errmsg, uint64_t *work, int depth,
                     int *parens);

static int arith_blank(int c) { return c == ' ' || c == '\t' || c == '\n'; }

static int arith_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int arith_digit(int c) { return c >= '0' && c <= '9'; }

static int arith_alnum(int c) { return arith_alpha(c) || arith_digit(c); }

/* Formats bash's evalerror text: "EXPR: MSG (error token is "TOK")". */
static int arith_error(arith_st *s, const char *msg) {
  size_t tl = s->lasttp < s->shown ? s->shown - s->lasttp : 0;
  buf_clear(s->errmsg);
  buf_put(s->errmsg, s->e, s->shown);
  buf_printf(s->errmsg, ": %s (error token is \"", msg);
  buf_put(s->errmsg, s->e + s->lasttp, tl);
  buf_puts(s->errmsg, "\")");
  return s->errmsg->err ? s->errmsg->err : MSB_EINVAL;
}

/* Enters one level of recursion (parentheses, unary chains, right-
 * associative operators); bounded so hostile input cannot exhaust the C
 * stack. Callers leave with s->parens--. */
static int arith_enter(arith_st *s) {
  if (++s->parens > ARITH_MAX_PARENS ||
      (s->env->max_nest && s->parens + s->depth > s->env->max_nest))
    return arith_error(s, "expression recursion level exceeded");
  return 0;
}

static int arith_charge(arith_st *s) {
  if (!s->work) return 0;
  if (*s->work == 0) return MSB_ELIMIT;
  (*s->work)--;
  return 0;
}

/* Digit value of c in base, or -1 (bash's strlong digit rules). */
static int arith_digitval(int c, int base) {
  int d;
  if (arith_digit(c))
    d = c - '0';
  else if (c >= 'a' && c <= 'z')
    d = c - 'a' + 10;
  else if (c >= 'A' && c <= 'Z')
    d = c - 'A' + (base <= 36 ? 10 : 36);
  else if (c == '@')
    d = 62;
  else if (c == '_')
    d = 63;
  else
    return -1;
  return d;
}

/* bash's strlong over s[0..n): 0, or a message for the caller to report. */
static const char *arith_strlong(const char *s, size_t n, int64_t *out) {
  uint64_t val = 0, base = 10;
  size_t i = 0;
  int foundbase = 0, d;
  if (n > 0 && s[0] == '0') {
    if (n > 1 && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      i = 2;
    } else {
      base = 8;
      i = 1;
    }
  }
  for (; i < n; i++) {
    int c = s[i];
    if (c == '#') {
      if (foundbase) return "invalid number";
      if (val < 2 || val > 64) return "invalid arithmetic base";
      base = val;
      val = 0;
      foundbase = 1;
      if (i + 1 >= n || arith_digitval(s[i + 1], (int)base) < 0)
        return "invalid integer constant";
      continue;
    }
    d = arith_digitval(c, (int)base);
    if (d < 0) break;
    if ((uint64_t)d >= base) return "value too great for base";
    val = val * base + (uint64_t)d;
  }
  *out = (int64_t)val;
  return 0;
}

/* Reads the next token (bash's readtok). Identifiers are evaluated here,
 * unless the next token is a plain `=`, as bash does. */
static int arith_readtok(arith_st *s);

/* Evaluates the subscript of the current identifier for an indexed array
 * and fills r. */
static int arith_ref_of(arith_st *s, arith_ref *r) {
  int rc;
  memset(r, 0, sizeof *r);
  r->name = s->e + s->id;
  r->nlen = s->idlen;
  r->kind = ARITH_PLAIN;
  if (!s->has_sub) return 0;
  if (s->sublen == 0) {
    buf_clear(s->errmsg);
    buf_put(s->errmsg, s->e + s->id, s->idlen);
    buf_puts(s->errmsg, "[]: bad array subscript");
    return s->errmsg->err ? s->errmsg->err : MSB_EINVAL;
  }
  if (s->env->is_assoc && s->env->is_assoc(s->env->ctx, r->name, r->nlen)) {
    r->kind = ARITH_KEY;
    r->key = s->e + s->sub;
    r->klen = s->sublen;
    return 0;
  }
  r->kind = ARITH_INDEX;
  rc = arith_sub(s->env, s->e + s->sub, s->sublen, &r->index, s->errmsg,
                 s->work, s->depth, &s->parens);
  return rc;
}

/* Value of the current identifier: its text evaluated as an expression. */
static int arith_streval(arith_st *s, int64_t *v) {
  arith_ref r;
  const char *val = 0;
  size_t vlen = 0;
  int rc;
  *v = 0;
  if (s->noeval) return 0;
  rc = arith_ref_of(s, &r);
  if (rc) return rc;
  if (!s->env->get) return 0;
  rc = s->env->get(s->env->ctx, &r, &val, &vlen, s->errmsg);
  if (rc) return rc;
  if (!val || vlen == 0) return 0;
  if (s->depth + 1 > ARITH_MAX_DEPTH ||
      (s->env->max_nest && s->parens + s->depth + 1 > s->env->max_nest))
    return arith_error(s, "expression recursion level exceeded");
  return arith_sub(s->env, val, vlen, v, s->errmsg, s->work, s->depth + 1,
                   &s->parens);
}

/* Assigns to the most recent identifier unless not evaluating. */
static int arith_bind(arith_st *s, int64_t v) {
  arith_ref r;
  int rc;
  if (s->noeval || !s->env->set) return 0;
  rc = arith_ref_of(s, &r);
  if (rc) return rc;
  return s->env->set(s->env->ctx, &r, v, s->errmsg);
}

static int arith_is_opchar(int c) {
  return c && strchr("=<>+-*/%&|^!~?:,()", c) != 0;
}

static int arith_readtok(arith_st *s) {
  size_t cp = s->tp, start;
  int c, c1, tok, rc;
  while (cp < s->len && arith_blank(s->e[cp])) cp++;
  if (cp >= s->len) {
    s->lasttok = s->curtok;
    s->curtok = AT_EOF;
    s->tp = cp;
    return 0;
  }
  rc = arith_charge(s);
  if (rc) return rc;
  start = cp;
  s->lasttp = start;
  c = s->e[cp++];
  if (arith_alpha(c)) {
    int save_tok = s->curtok;
    size_t q;
    while (cp < s->len && arith_alnum(s->e[cp])) cp++;
    s->id = start;
    s->idlen = cp - start;
    s->has_sub = 0;
    if (cp < s->len && s->e[cp] == '[') {
      /* find the matching ']' (brackets nest) */
      int lev = 1;
      q = cp + 1;
      while (q < s->len && lev > 0) {
        if (s->e[q] == '[') lev++;
        if (s->e[q] == ']') lev--;
        if (lev > 0) q++;
      }
      if (q >= s->len) {
        s->tp = s->len;
        return arith_error(s, "bad array subscript");
      }
      s->has_sub = 1;
      s->sub = cp + 1;
      s->sublen = q - cp - 1;
      cp = q + 1;
    }
    s->tp = cp;
    /* peek: a plain `=` next means the value is not needed */
    q = cp;
    while (q < s->len && arith_blank(s->e[q])) q++;
    if (save_tok == AT_PREINC || save_tok == AT_PREDEC || q >= s->len ||
        s->e[q] != '=' || (q + 1 < s->len && s->e[q + 1] == '=')) {
      rc = arith_streval(s, &s->tokval);
      if (rc) return rc;
    } else {
      s->tokval = 0;
    }
    s->lasttok = s->curtok;
    s->curtok = AT_STR;
    return 0;
  }
  if (arith_digit(c)) {
    const char *msg;
    size_t save = s->shown;
    while (cp < s->len &&
           (arith_alnum(s->e[cp]) || s->e[cp] == '#' || s->e[cp] == '@'))
      cp++;
    s->tp = cp;
    msg = arith_strlong(s->e + start, cp - start, &s->tokval);
    if (msg) {
      s->shown = cp; /* bash cuts the expression after the number */
      rc = arith_error(s, msg);
      s->shown = save;
      return rc;
    }
    s->lasttok = s->curtok;
    s->curtok = AT_NUM;
    return 0;
  }
  c1 = cp < s->len ? s->e[cp] : 0;
  tok = -1;
  switch (c) {
  case '=': tok = AT_EQ; break;
  case '<': tok = AT_LT; break;
  case '>': tok = AT_GT; break;
  case '&': tok = AT_BAND; break;
  case '|': tok = AT_BOR; break;
  case '^': tok = AT_BXOR; break;
  case '!': tok = AT_NOT; break;
  case '~': tok = AT_BNOT; break;
  case '+': tok = AT_PLUS; break;
  case '-': tok = AT_MINUS; break;
  case '*': tok = AT_MUL; break;
  case '/': tok = AT_DIV; break;
  case '%': tok = AT_MOD; break;
  case '?': tok = AT_QUES; break;
  case ':': tok = AT_COL; break;
  case ',': tok = AT_COMMA; break;
  case '(': tok = AT_LPAR; break;
  case ')': tok = AT_RPAR; break;
  default: break;
  }
  if (tok < 0 || !arith_is_opchar(c)) {
    s->tp = start;
    if (s->curtok == AT_NUM || s->curtok == AT_STR)
      return arith_error(s, "syntax error: invalid arithmetic operator");
    return arith_error(s, "syntax error: operand expected");
  }
  if (c == '=' && c1 == '=') {
    tok = AT_EQEQ;
    cp++;
  } else if (c == '!' && c1 == '=') {
    tok = AT_NEQ;
    cp++;
  } else if (c == '>' && c1 == '=') {
    tok = AT_GEQ;
    cp++;
  } else if (c == '<' && c1 == '=') {
    tok = AT_LEQ;
    cp++;
  } else if ((c == '<' || c == '>') && c1 == c) {
    cp++;
    if (cp < s->len && s->e[cp] == '=') {
      s->assigntok = c == '<' ? AT_LSH : AT_RSH;
      tok = AT_OPASSIGN;
      cp++;
    } else {
      tok = c == '<' ? AT_LSH : AT_RSH;
    }
  } else if (c == '&' && c1 == '&') {
    tok = AT_LAND;
    cp++;
  } else if (c == '|' && c1 == '|') {
    tok = AT_LOR;
    cp++;
  } else if (c == '*' && c1 == '*') {
    tok = AT_POWER;
    cp++;
  } else if ((c == '-' || c == '+') && c1 == c && s->curtok == AT_STR) {
    tok = c == '-' ? AT_POSTDEC : AT_POSTINC;
    cp++;
  } else if ((c == '-' || c == '+') && c1 == c && s->curtok == AT_NUM &&
             (s->lasttok == AT_PREINC || s->lasttok == AT_PREDEC)) {
    s->tp = cp + 1;
    return arith_error(s, c == '-' ? "--: assignment requires lvalue"
                                   : "++: assignment requires lvalue");
  } else if ((c == '-' || c == '+') && c1 == c) {
    size_t q = cp + 1;
    while (q < s->len && arith_blank(s->e[q])) q++;
    if (q < s->len && arith_alpha(s->e[q])) {
      tok = c == '-' ? AT_PREDEC : AT_PREINC;
      cp++;
    }
  } else if (c1 == '=' && strchr("*/%+-&^|", c)) {
    s->assigntok = tok;
    tok = AT_OPASSIGN;
    cp++;
  }
  s->tp = cp;
  s->lasttok = s->curtok;
  s->curtok = tok;
  return 0;
}

/* Applies a binary operator on wrapped 64-bit values (no division). */
static int64_t arith_binop(int op, int64_t a, int64_t b) {
  uint64_t x = (uint64_t)a, y = (uint64_t)b;
  unsigned n = (unsigned)(y & 63);
  switch (op) {
  case AT_PLUS: return (int64_t)(x + y);
  case AT_MINUS: return (int64_t)(x - y);
  case AT_MUL: return (int64_t)(x * y);
  case AT_LSH: return (int64_t)(x << n);
  case AT_RSH:
    /* arithmetic shift without relying on implementation-defined >> */
    return a < 0 ? (int64_t)~(~x >> n) : (int64_t)(x >> n);
  case AT_BAND: return (int64_t)(x & y);
  case AT_BOR: return (int64_t)(x | y);
  case AT_BXOR: return (int64_t)(x ^ y);
  default: return 0;
  }
}

/* Division and remainder with bash's INT64_MIN / -1 rule; b != 0. */
static int64_t arith_divmod(int op, int64_t a, int64_t b) {
  if (a == INT64_MIN && b == -1) return op == AT_DIV ? INT64_MIN : 0;
  return op == AT_DIV ? a / b : a % b;
}

static int64_t arith_ipow(int64_t base, int64_t exp) {
  uint64_t r = 1, b = (uint64_t)base;
  uint64_t e = (uint64_t)exp;
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return (int64_t)r;
}

static int arith_exp0(arith_st *s, int64_t *v) {
  int rc, stok;
  if (s->curtok == AT_PREINC || s->curtok == AT_PREDEC) {
    int64_t v2;
    stok = s->lasttok = s->curtok;
    if ((rc = arith_readtok(s))) return rc;
    if (s->curtok != AT_STR)
      return arith_error(
          s, "identifier expected after pre-increment or pre-decrement");
    v2 = arith_binop(AT_PLUS, s->tokval, stok == AT_PREINC ? 1 : -1);
    if ((rc = arith_bind(s, v2))) return rc;
    *v = v2;
    s->curtok = AT_NUM; /* flags --x=7 as an error */
    return arith_readtok(s);
  }
  if (s->curtok == AT_LPAR) {
    if ((rc = arith_enter(s))) return rc;
    if ((rc = arith_readtok(s))) return rc;
    if ((rc = arith_expcomma(s, v))) return rc;
    if (s->curtok != AT_RPAR) return arith_error(s, "missing `)'");
    s->parens--;
    return arith_readtok(s);
  }
  if (s->curtok == AT_NUM || s->curtok == AT_STR) {
    *v = s->tokval;
    if (s->curtok == AT_STR) {
      /* a postfix ++/-- can only follow here; readtok tells it apart */
      size_t q = s->tp;
      while (q < s->len && arith_blank(s->e[q])) q++;
      if (q + 1 < s->len && (s->e[q] == '+' || s->e[q] == '-') &&
          s->e[q + 1] == s->e[q]) {
        int64_t v2 = arith_binop(AT_PLUS, *v, s->e[q] == '+' ? 1 : -1);
        s->tp = q + 2;
        s->lasttp = q;
        if ((rc = arith_bind(s, v2))) return rc;
        s->lasttok = AT_STR;
        s->curtok = AT_NUM; /* flags x++=7 as an error */
      }
    }
    return arith_readtok(s);
  }
  return arith_error(s, "syntax error: operand expected");
}

static int arith_expunary(arith_st *s, int64_t *v) {
  int rc, tok = s->curtok;
  if (tok == AT_NOT || tok == AT_BNOT || tok == AT_MINUS || tok == AT_PLUS) {
    if ((rc = arith_readtok(s))) return rc;
    if ((rc = arith_enter(s))) return rc;
    if ((rc = arith_expunary(s, v))) return rc;
    s->parens--;
    if (tok == AT_NOT)
      *v = !*v;
    else if (tok == AT_BNOT)
      *v = (int64_t)~(uint64_t)*v;
    else if (tok == AT_MINUS)
      *v = (int64_t)(0 - (uint64_t)*v);
    s->lasttok = AT_NUM;
    return 0;
  }
  return arith_exp0(s, v);
}

static int arith_exppower(arith_st *s, int64_t *v) {
  int rc;
  int64_t v2;
  if ((rc = arith_expunary(s, v))) return rc;
  if (s->curtok != AT_POWER) return 0;
  if ((rc = arith_readtok(s))) return rc;
  if ((rc = arith_enter(s))) return rc;
  if ((rc = arith_exppower(s, &v2))) return rc; /* right-associative */
  s->parens--;
  s->lasttok = AT_NUM;
  if (v2 == 0) {
    *v = 1;
    return 0;
  }
  if (v2 < 0) return arith_error(s, "exponent less than 0");
  *v = arith_ipow(*v, v2);
  return 0;
}

static int arith_expmuldiv(arith_st *s, int64_t *v) {
  int rc, op;
  int64_t v2;
  if ((rc = arith_exppower(s, v))) return rc;
  while (s->curtok == AT_MUL || s->curtok == AT_DIV || s->curtok == AT_MOD) {
    size_t stp = s->tp;
    op = s->curtok;
    if ((rc = arith_readtok(s))) return rc;
    if ((rc = arith_exppower(s, &v2))) return rc;
    if (op != AT_MUL && v2 == 0) {
      if (!s->noeval) {
        while (stp < s->len && arith_blank(s->e[stp])) stp++;
        s->lasttp = stp;
        return arith_error(s, "division by 0");
      }
      v2 = 1;
    }
    *v = op == AT_MUL ? arith_binop(op, *v, v2) : arith_divmod(op, *v, v2);
    s->lasttok = AT_NUM;
  }
  return 0;
}

/* One left-associative binary level: ops lists its tokens, next the level
 * below. */
static int arith_level(arith_st *s, int64_t *v, const int *ops,
                       int (*next)(arith_st *, int64_t *)) {
  int rc, op, i, hit;
  int64_t v2;
  if ((rc = next(s, v))) return rc;
  for (;;) {
    hit = 0;
    for (i = 0; ops[i]; i++)
      if (s->curtok == ops[i]) hit = 1;
    if (!hit) return 0;
    op = s->curtok;
    if ((rc = arith_readtok(s))) return rc;
    if ((rc = next(s, &v2))) return rc;
    switch (op) {
    case AT_EQEQ: *v = *v == v2; break;
    case AT_NEQ: *v = *v != v2; break;
    case AT_LT: *v = *v < v2; break;
    case AT_GT: *v = *v > v2; break;
    case AT_LEQ: *v = *v <= v2; break;
    case AT_GEQ: *v = *v >= v2; break;
    default: *v = arith_binop(op, *v, v2); break;
    }
    s->lasttok = AT_NUM;
  }
}

static int arith_exp3(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_PLUS, AT_MINUS, 0};
  return arith_level(s, v, ops, arith_expmuldiv);
}

static int arith_expshift(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_LSH, AT_RSH, 0};
  return arith_level(s, v, ops, arith_exp3);
}

static int arith_exp4(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_LT, AT_GT, AT_LEQ, AT_GEQ, 0};
  return arith_level(s, v, ops, arith_expshift);
}

static int arith_exp5(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_EQEQ, AT_NEQ, 0};
  return arith_level(s, v, ops, arith_exp4);
}

static int arith_expband(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_BAND, 0};
  return arith_level(s, v, ops, arith_exp5);
}

static int arith_expbxor(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_BXOR, 0};
  return arith_level(s, v, ops, arith_expband);
}

static int arith_expbor(arith_st *s, int64_t *v) {
  static const int ops[] = {AT_BOR, 0};
  return arith_level(s, v, ops, arith_expbxor);
}

/* && and ||: the right side is parsed with noeval when it cannot matter. */
static int arith_logic(arith_st *s, int64_t *v, int op,
                       int (*next)(arith_st *, int64_t *)) {
  int rc, skip;
  int64_t v2;
  if ((rc = next(s, v))) return rc;
  while (s->curtok == op) {
    skip = op == AT_LAND ? *v == 0 : *v != 0;
    s->noeval += skip;
    rc = arith_readtok(s);
    if (!rc) rc = next(s, &v2);
    s->noeval -= skip;
    if (rc) return rc;
    *v = op == AT_LAND ? (*v && v2) : (*v || v2);
    s->lasttok = op;
  }
  return 0;
}

static int arith_expland(arith_st *s, int64_t *v) {
  return arith_logic(s, v, AT_LAND, arith_expbor);
}

static int arith_explor(arith_st *s, int64_t *v) {
  return arith_logic(s, v, AT_LOR, arith_expland);
}

static int arith_expcond(arith_st *s, int64_t *v) {
  int rc, skip;
  int64_t c, v1, v2;
  if ((rc = arith_explor(s, &c))) return rc;
  *v = c;
  if (s->curtok != AT_QUES) return 0;
  skip = c == 0;
  s->noeval += skip;
  rc = arith_readtok(s);
  if (!rc && (s->curtok == AT_EOF || s->curtok == AT_COL))
    rc = arith_error(s, "expression expected");
  if (!rc) rc = arith_expcomma(s, &v1);
  s->noeval -= skip;
  if (rc) return rc;
  if (s->curtok != AT_COL)
    return arith_error(s, "`:' expected for conditional expression");
  skip = c != 0;
  s->noeval += skip;
  rc = arith_readtok(s);
  if (!rc && s->curtok == AT_EOF) rc = arith_error(s, "expression expected");
  if (!rc) rc = arith_enter(s);
  if (!rc) rc = arith_expcond(s, &v2);
  if (!rc) s->parens--;
  s->noeval -= skip;
  if (rc) return rc;
  *v = c ? v1 : v2;
  s->lasttok = AT_COND;
  return 0;
}

static int arith_expassign(arith_st *s, int64_t *v) {
  int rc, special, op = 0;
  int64_t lv = 0, rv;
  size_t id, idlen, sub, sublen;
  int has_sub;
  if ((rc = arith_expcond(s, v))) return rc;
  if (s->curtok != AT_EQ && s->curtok != AT_OPASSIGN) return 0;
  special = s->curtok == AT_OPASSIGN;
  if (s->lasttok != AT_STR)
    return arith_error(s, "attempted assignment to non-variable");
  if (special) {
    op = s->assigntok;
    lv = *v;
  }
  id = s->id;
  idlen = s->idlen;
  sub = s->sub;
  sublen = s->sublen;
  has_sub = s->has_sub;
  if ((rc = arith_readtok(s))) return rc;
  if ((rc = arith_enter(s))) return rc;
  if ((rc = arith_expassign(s, &rv))) return rc;
  s->parens--;
  if (special) {
    if ((op == AT_DIV || op == AT_MOD) && rv == 0) {
      if (!s->noeval) return arith_error(s, "division by 0");
      rv = 1;
    }
    if (op == AT_DIV || op == AT_MOD)
      lv = arith_divmod(op, lv, rv);
    else
      lv = arith_binop(op, lv, rv);
    rv = lv;
  }
  /* the right side may have read other identifiers */
  s->id = id;
  s->idlen = idlen;
  s->sub = sub;
  s->sublen = sublen;
  s->has_sub = has_sub;
  if ((rc = arith_bind(s, rv))) return rc;
  *v = rv;
  return 0;
}

static int arith_expcomma(arith_st *s, int64_t *v) {
  int rc;
  if ((rc = arith_expassign(s, v))) return rc;
  while (s->curtok == AT_COMMA) {
    if ((rc = arith_readtok(s))) return rc;
    if ((rc = arith_expassign(s, v))) return rc;
  }
  return 0;
}

/* bash's subexpr: one expression text at a nesting depth. */
static int arith_sub(const arith_env *env, const char *expr, size_t len,
                     int64_t *out, buf *errmsg, uint64_t *work, int depth,
                     int *parens) {
  arith_st s;
  int rc;
  memset(&s, 0, sizeof s);
  while (len > 0 && arith_blank(*expr)) {
    expr++;
    len--;
  }
  *out = 0;
  if (len == 0) return 0;
  s.env = env;
  s.errmsg = errmsg;
  s.work = work;
  s.e = expr;
  s.len = len;
  s.shown = len;
  s.depth = depth;
  s.parens = *parens;
  rc = arith_readtok(&s);
  if (!rc) rc = arith_expcomma(&s, out);
  if (!rc && s.curtok != AT_EOF)
    rc = arith_error(&s, "syntax error in expression");
  *parens = s.parens;
  return rc;
}

int arith_eval(const arith_env *env, const char *expr, size_t len, int64_t *out,
               buf *errmsg, uint64_t *work) {
  int parens = 0, rc;
  int64_t v = 0;
  rc = arith_sub(env, expr, len, &v, errmsg, work, 1, &parens);
  if (rc) return rc;
  *out = v;
  return 0;
}

int arith_parse_const(const char *s, size_t len, int64_t *out) {
  size_t i;
  if (len == 0 || !arith_digit(s[0])) return MSB_EINVAL;
  for (i = 0; i < len; i++)
    if (!arith_alnum(s[i]) && s[i] != '#' && s[i] != '@') return MSB_EINVAL;
  return arith_strlong(s, len, out) ? MSB_EINVAL : 0;
}
