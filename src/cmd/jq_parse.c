/* jq_parse.c - lexer and recursive-descent parser for the jq language,
 * with name resolution.
 *
 * Precedence follows jq 1.7.1's grammar, lowest first: '|' (right), ','
 * (left), '//' (right), assignment operators (non-associative), 'or',
 * 'and', comparisons (non-associative), '+ -', '* / %'; `def`, `as`,
 * `label`, `reduce`, `foreach`, `if`, `try` as jq places them. String
 * interpolation parses nested programs in place. Calls and $variables are
 * resolved while parsing against a scope stack, so the evaluator follows
 * pointers instead of looking names up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

enum {
  T_EOF,
  T_IDENT,
  T_FIELD,
  T_VAR,
  T_NUM,
  T_STR,
  T_FORMAT,
  T_LOC,
  T_DOT,
  T_DOTDOT,
  T_LB,
  T_RB,
  T_LC,
  T_RC,
  T_LP,
  T_RP,
  T_PIPE,
  T_COMMA,
  T_COLON,
  T_SEMI,
  T_Q,
  T_ALTQ,
  T_OP,
  T_BAD,
  T_KW
};

typedef struct jq_scope {
  struct jq_scope *up;
  const char *name;
  int arity; /* -1 for a variable */
  jq_node *binder;
} jq_scope;

typedef struct jq_ps {
  arena *a;
  jq_rt *R;
  const char *src, *p;
  int tok, op;          /* op for T_OP */
  const char *ts, *te;  /* token text */
  const char *pts;      /* previous token's start */
  int line, tline;
  buf *err;
  int nerr, fatal;
  int err_tok;          /* the token of the syntax error */
  const char *err_ts;   /* and its text */
  char opens[64];       /* brackets open, for the lexer's closer check */
  int nopen;
  int unmatched;        /* the token closes no open bracket */
  const char *dot_at;   /* the last bare '.' term */
  int dot_ident;        /* an IDENT followed it */
  jq_scope *sc;
  int fdepth;           /* function nesting */
  int toplevel_prog;    /* parsing the user's program (not the prelude) */
  const char *first_ts; /* the program's first token */
  int leftover;         /* a token after the whole program */
  jq_node *pending;     /* prelude calls to later definitions (via ->c) */
  jq_node spare;
} jq_ps;

static const char *const jq_kw[] = {
    "def",    "if",      "then",    "elif", "else",    "end",
    "as",     "reduce",  "foreach", "try",  "catch",   "label",
    "import", "include", "and",     "or",   "__loc__", NULL};

static jq_node *jq_nn(jq_ps *P, int t) {
  jq_node *n = arena_zalloc(P->a, sizeof *n);
  if (!n) {
    /* Out of memory: parsing stops; the spare node keeps callers simple
     * and the program is never run. */
    P->R->oom = 1;
    P->fatal = 1;
    memset(&P->spare, 0, sizeof P->spare);
    n = &P->spare;
  }
  n->t = t;
  n->line = P->tline;
  return n;
}

static jq_node *jq_n2(jq_ps *P, int t, jq_node *a, jq_node *b) {
  jq_node *n = jq_nn(P, t);
  n->a = a;
  n->b = b;
  return n;
}

/* ---- lexer ----------------------------------------------------------- */

static int jq_isid(int c, int first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (!first && c >= '0' && c <= '9');
}

static void jq_lex1(jq_ps *P) {
  const char *p = P->p;
  P->pts = P->ts;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
      if (*p == '\n') P->line++;
      p++;
    }
    if (*p != '#') break;
    while (*p && *p != '\n') p++;
  }
  P->ts = p;
  P->tline = P->line;
  P->op = 0;
  if (!*p) {
    P->tok = T_EOF;
    P->te = p;
    P->p = p;
    return;
  }
  if (*p == '"') {
    P->tok = T_STR;
    P->te = p + 1;
    P->p = p + 1;
    return;
  }
  if (*p == '.' && jq_isid(p[1], 1)) {
    p++;
    while (jq_isid(*p, 0)) p++;
    P->tok = T_FIELD;
  } else if ((*p >= '0' && *p <= '9') ||
             (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') p++;
    while (*p >= '0' && *p <= '9') p++;
    if ((*p == 'e' || *p == 'E') &&
        ((p[1] >= '0' && p[1] <= '9') ||
         ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
      p += 2;
      while (*p >= '0' && *p <= '9') p++;
    }
    P->tok = T_NUM;
  } else if (jq_isid(*p, 1)) {
    int i;
    while (jq_isid(*p, 0) || (*p == ':' && p[1] == ':' && jq_isid(p[2], 1)))
      p += *p == ':' ? 2 : 1;
    P->tok = T_IDENT;
    for (i = 0; jq_kw[i]; i++)
      if ((size_t)(p - P->ts) == strlen(jq_kw[i]) &&
          !memcmp(P->ts, jq_kw[i], (size_t)(p - P->ts)))
        P->tok = T_KW;
  } else if (*p == '$' && p[1] == '_' && !strncmp(p, "$__loc__", 8) &&
             !jq_isid(p[8], 0)) {
    p += 8;
    P->tok = T_LOC;
  } else if (*p == '$' && jq_isid(p[1], 1)) {
    p++;
    while (jq_isid(*p, 0) || (*p == ':' && p[1] == ':' && jq_isid(p[2], 1)))
      p += *p == ':' ? 2 : 1;
    P->tok = T_VAR;
  } else if (*p == '@' && jq_isid(p[1], 0)) {
    p++;
    while (jq_isid(*p, 0)) p++;
    P->tok = T_FORMAT;
  } else {
    static const struct {
      const char *s;
      int tok, op;
    } ops[] = {
        {"?//=", T_BAD, 0},    {"?//", T_ALTQ, 0},    {"//=", T_OP, -JO_ALT},
        {"|=", T_OP, -JO_UPD}, {"+=", T_OP, -JO_ADD}, {"-=", T_OP, -JO_SUB},
        {"*=", T_OP, -JO_MUL}, {"/=", T_OP, -JO_DIV}, {"%=", T_OP, -JO_MOD},
        {"==", T_OP, JO_EQ},   {"!=", T_OP, JO_NE},   {"<=", T_OP, JO_LE},
        {">=", T_OP, JO_GE},   {"//", T_OP, JO_ALT},  {"..", T_DOTDOT, 0},
        {"<", T_OP, JO_LT},    {">", T_OP, JO_GT},    {"+", T_OP, JO_ADD},
        {"-", T_OP, JO_SUB},   {"*", T_OP, JO_MUL},   {"/", T_OP, JO_DIV},
        {"%", T_OP, JO_MOD},   {"=", T_OP, -JO_SET},  {".", T_DOT, 0},
        {"[", T_LB, 0},        {"]", T_RB, 0},        {"{", T_LC, 0},
        {"}", T_RC, 0},        {"(", T_LP, 0},        {")", T_RP, 0},
        {"|", T_PIPE, 0},      {",", T_COMMA, 0},     {":", T_COLON, 0},
        {";", T_SEMI, 0},      {"?", T_Q, 0},         {NULL, 0, 0}};
    int i;
    P->tok = T_BAD;
    for (i = 0; ops[i].s; i++) {
      size_t l = strlen(ops[i].s);
      if (!strncmp(p, ops[i].s, l)) {
        P->tok = ops[i].tok;
        P->op = ops[i].op;
        p += l;
        break;
      }
    }
    if (!ops[i].s) p++;
  }
  P->te = p;
  P->p = p;
}

/* jq's lexer pairs brackets itself and calls a closer that does not
 * match the innermost opener an invalid character. */
static void jq_bracket(jq_ps *P) {
  static const char pairs[] = "()[]{}";
  const char *q;
  P->unmatched = 0;
  if (P->te - P->ts != 1 || !(q = strchr(pairs, *P->ts)) || P->tok == T_STR)
    return;
  if ((q - pairs) % 2 == 0) {
    if (P->nopen < (int)sizeof P->opens) P->opens[P->nopen] = *P->ts;
    P->nopen++;
  } else if (P->nopen && (P->nopen > (int)sizeof P->opens ||
                          P->opens[P->nopen - 1] == q[-1]))
    P->nopen--;
  else
    P->unmatched = 1;
}

static void jq_lex(jq_ps *P) {
  jq_lex1(P);
  if (P->tok >= T_LB && P->tok <= T_RP)
    jq_bracket(P);
  else
    P->unmatched = 0;
}

static int jq_kwis(jq_ps *P, const char *kw) {
  return P->tok == T_KW && (size_t)(P->te - P->ts) == strlen(kw) &&
         !memcmp(P->ts, kw, strlen(kw));
}

/* bison's name for the current token in "unexpected X". */
static void jq_tokname(jq_ps *P, buf *b) {
  switch (P->tok) {
  case T_EOF: buf_puts(b, "end of file"); return;
  case T_IDENT: buf_puts(b, "IDENT"); return;
  case T_FIELD: buf_puts(b, "FIELD"); return;
  case T_VAR: buf_puts(b, "BINDING"); return;
  case T_NUM:
  case T_STR:
    buf_puts(b, T_NUM == P->tok ? "LITERAL" : "QQSTRING_START");
    return;
  case T_FORMAT: buf_puts(b, "FORMAT"); return;
  case T_LOC: buf_puts(b, "\"$__loc__\""); return;
  case T_BAD:
    /* jq's lexer knows '$' as a character of its own */
    buf_puts(b, *P->ts == '$' ? "'$'" : "INVALID_CHARACTER");
    return;
  case T_KW: buf_put(b, P->ts, (size_t)(P->te - P->ts)); return;
  case T_DOTDOT: buf_puts(b, ".."); return;
  case T_ALTQ: buf_puts(b, "\"?//\""); return;
  default:
    if (P->te - P->ts == 1)
      buf_printf(b, "'%c'", *P->ts);
    else {
      buf_putc(b, '"');
      buf_put(b, P->ts, (size_t)(P->te - P->ts));
      buf_putc(b, '"');
    }
  }
}

/* jq prints the program's line and pads to the error's column. */
static void jq_where(jq_ps *P, int line, const char *at) {
  const char *ls = at, *le = at;
  if (!at || at < P->src || at > P->src + strlen(P->src)) at = ls = le = P->src;
  while (ls > P->src && ls[-1] != '\n') ls--;
  while (*le && *le != '\n') le++;
  buf_printf(P->err, " at <top-level>, line %d:\n", line + 1);
  buf_put(P->err, ls, (size_t)(le - ls));
  buf_printf(P->err, "%*s\n", (int)(at - ls), "");
}

/* Where jq places an error at the end: where trailing whitespace starts
 * (flex's last match), else at the last token. */
static const char *jq_eof_at(jq_ps *P) {
  size_t n;
  if (P->tok != T_EOF) return P->ts;
  n = strlen(P->src);
  if (!n || !strchr(" \t\n\r", P->src[n - 1])) return P->pts ? P->pts : P->ts;
  while (n && strchr(" \t\n\r", P->src[n - 1])) n--;
  return P->src + n;
}

/* Whether the token may follow a term somewhere in jq's grammar: then
 * bison reduces the term before it finds the error. */
static int jq_follows_term(jq_ps *P) {
  switch (P->tok) {
  case T_NUM:
  case T_VAR:
  case T_FORMAT:
  case T_LOC:
  case T_DOTDOT:
  case T_LP:
  case T_LC:
  case T_BAD:
  case T_IDENT: return 0;
  case T_KW:
    return jq_kwis(P, "as") || jq_kwis(P, "then") || jq_kwis(P, "elif") ||
           jq_kwis(P, "else") || jq_kwis(P, "end") || jq_kwis(P, "catch") ||
           jq_kwis(P, "and") || jq_kwis(P, "or");
  default: return 1;
  }
}

static void jq_syntax_exp(jq_ps *P, const char *expecting) {
  int dot;
  if (P->fatal) return;
  P->fatal = 1;
  P->nerr++;
  P->err_tok = P->tok;
  /* right after a bare '.', bison recovers by jq's `'.' error` rule */
  dot = P->dot_at &&
        (P->dot_ident || (P->pts == P->dot_at && !jq_follows_term(P)));
  P->err_ts = P->ts;
  buf_puts(P->err, "jq: error: syntax error, unexpected ");
  if (dot) expecting = "";
  /* where only the end may follow (bison has reduced to the top), jq
     says so, and its lexer calls a closer without an opener invalid */
  if (!expecting && P->toplevel_prog &&
      (P->leftover || (P->ts == P->first_ts && P->tok != T_EOF)))
    expecting = "end of file";
  if (P->unmatched)
    buf_puts(P->err, "INVALID_CHARACTER");
  else
    jq_tokname(P, P->err);
  if (expecting && *expecting) buf_printf(P->err, ", expecting %s", expecting);
  buf_puts(P->err, " (Unix shell quoting issues?)");
  {
    const char *at = jq_eof_at(P), *q;
    int line = P->tline;
    if (P->tok == T_EOF)
      for (line = 0, q = P->src; q < at; q++) line += *q == '\n';
    jq_where(P, line, at);
    if (dot) {
      for (line = 0, q = P->src; q < P->dot_at; q++) line += *q == '\n';
      P->nerr++;
      buf_puts(P->err,
               "jq: error: try .[\"field\"] instead of .field for "
               "unusually named fields");
      jq_where(P, line, P->dot_at);
    }
  }
}

static void jq_syntax(jq_ps *P) { jq_syntax_exp(P, NULL); }

static void jq_perr(jq_ps *P, int line, const char *fmt, const char *arg) {
  P->nerr++;
  buf_puts(P->err, "jq: error: ");
  buf_printf(P->err, fmt, arg);
  jq_where(P, line, P->pts);
}

static void jq_perr_at(jq_ps *P, int line, const char *at, const char *fmt,
                       const char *arg) {
  P->nerr++;
  buf_puts(P->err, "jq: error: ");
  buf_printf(P->err, fmt, arg);
  jq_where(P, line, at);
}

/* Like jq_expect where bison names the one token it can take there. */
static int jq_expect_exp(jq_ps *P, int tok, const char *expecting) {
  if (P->fatal) return -1;
  if (P->tok != tok) {
    jq_syntax_exp(P, expecting);
    return -1;
  }
  jq_lex(P);
  return 0;
}

static int jq_expect(jq_ps *P, int tok) { return jq_expect_exp(P, tok, NULL); }

static char *jq_tokdup(jq_ps *P, int skip) {
  char *s = arena_strndup(P->a, P->ts + skip, (size_t)(P->te - P->ts - skip));
  if (!s) P->R->oom = P->fatal = 1;
  return s ? s : (char *)"";
}

/* ---- scopes ---------------------------------------------------------- */

static jq_node *jq_lookup(jq_ps *P, const char *name, int arity) {
  jq_scope *s;
  for (s = P->sc; s; s = s->up)
    if (s->arity == arity && !strcmp(s->name, name)) return s->binder;
  return NULL;
}

static void jq_push(jq_ps *P, jq_scope *s, const char *name, int arity,
                    jq_node *binder) {
  s->up = P->sc;
  s->name = name;
  s->arity = arity;
  s->binder = binder;
  P->sc = s;
}

/* ---- grammar --------------------------------------------------------- */

static jq_node *jq_pipe(jq_ps *P);
static jq_node *jq_postfix(jq_ps *P);
static jq_node *jq_bin(jq_ps *P, int minprec);

static jq_node *jq_lit(jq_ps *P, jv v) {
  jq_node *n = jq_nn(P, JN_LIT);
  if (n == &P->spare) {
    jv_unref(P->R, v);
    return n;
  }
  n->v = v;
  n->next_lit = P->R->lits;
  P->R->lits = n;
  return n;
}

void jq_free_lits(jq_rt *R) {
  jq_node *n;
  for (n = R->lits; n; n = n->next_lit) jv_unref(R, n->v);
  R->lits = NULL;
}

/* $__loc__: {"file":"<top-level>","line":N}. */
static jq_node *jq_loc(jq_ps *P, int line) {
  jv o = jv_obj(P->R);
  jv_oset(P->R, &o, jv_cstr(P->R, "file"), jv_cstr(P->R, "<top-level>"));
  jv_oset(P->R, &o, jv_cstr(P->R, "line"), jv_num(line + 1));
  return jq_lit(P, o);
}

static void jq_addarg(jq_ps *P, jq_node *n, jq_node *x) {
  jq_node **na = arena_alloc(P->a, (size_t)(n->nargs + 1) * sizeof *na);
  if (!na) {
    P->R->oom = P->fatal = 1;
    return;
  }
  if (n->nargs) memcpy(na, n->args, (size_t)n->nargs * sizeof *na);
  na[n->nargs++] = x;
  n->args = na;
}

static int jq_hex(int c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* A string literal whose opening quote is the current token; fmt names
 * the format applied to interpolations (NULL for none). */
static jq_node *jq_string(jq_ps *P, const char *fmt) {
  jq_node *n = jq_nn(P, JN_STR);
  const char *p = P->te;
  buf b;
  n->name = fmt;
  buf_init(&b, P->R->m);
  for (;;) {
    if (!*p) {
      P->tok = T_EOF;
      P->pts = P->te;
      P->ts = P->te = p;
      jq_syntax_exp(P,
                    "QQSTRING_TEXT or QQSTRING_INTERP_START or "
                    "QQSTRING_END");
      break;
    }
    if (*p == '"') {
      p++;
      break;
    }
    if (*p != '\\') {
      if (*p == '\n') P->line++;
      buf_putc(&b, *p++);
      continue;
    }
    p++;
    switch (*p) {
    case '"':
    case '\\':
    case '/': buf_putc(&b, *p++); break;
    case 'b': buf_putc(&b, '\b'), p++; break;
    case 'f': buf_putc(&b, '\f'), p++; break;
    case 'n': buf_putc(&b, '\n'), p++; break;
    case 'r': buf_putc(&b, '\r'), p++; break;
    case 't': buf_putc(&b, '\t'), p++; break;
    case 'u': {
      unsigned cp = 0;
      int i;
      for (i = 1; i <= 4 && jq_hex(p[i]) >= 0; i++)
        cp = cp * 16 + (unsigned)jq_hex(p[i]);
      if (i <= 4) goto bad;
      p += 5;
      if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u') {
        unsigned lo = 0;
        for (i = 2; i <= 5 && jq_hex(p[i]) >= 0; i++)
          lo = lo * 16 + (unsigned)jq_hex(p[i]);
        if (i == 6 && lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          p += 6;
        }
      }
      if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
      jq_utf8_put(&b, cp);
      break;
    }
    case '(': {
      jq_node *e;
      if (b.len || !n->nargs) {
        jq_addarg(P, n, jq_lit(P, jv_str(P->R, buf_str(&b), b.len)));
        n->args[n->nargs - 1]->opt = 2;
      }
      buf_clear(&b);
      P->p = p + 1;
      P->ts = p, P->te = p + 1, P->tok = T_LP;
      jq_bracket(P); /* the interpolation's closer is a ')' */
      jq_lex(P);
      e = jq_pipe(P);
      if (P->fatal) goto out;
      if (P->tok != T_RP) {
        jq_syntax(P);
        goto out;
      }
      jq_addarg(P, n, e);
      p = P->te;
      break;
    }
    default:
      if (*p > ' ' && *p < 0x7f) {
        /* jq's lexer hands the escape alone to its JSON parser */
        char m[80];
        snprintf(m, sizeof m,
                 "Invalid escape at line 1, column 4 (while parsing "
                 "'\"\\%c\"')",
                 *p);
        jq_perr_at(P, P->line, p - 1, "%s", m);
        P->fatal = 1;
        goto out;
      }
    bad:
      P->tok = T_BAD;
      P->ts = p - 1;
      P->te = p + 1;
      jq_perr(P, P->line, "%s", "Invalid escape in string literal");
      P->fatal = 1;
      goto out;
    }
  }
  if (b.len || !n->nargs) {
    jq_addarg(P, n, jq_lit(P, jv_str(P->R, buf_str(&b), b.len)));
    n->args[n->nargs - 1]->opt = 2;
  }
  P->p = p;
  jq_lex(P);
out:
  if (b.err) P->R->oom = P->fatal = 1;
  buf_finish(&b);
  /* A plain literal string is a constant. */
  if (!fmt && n->nargs == 1 && n->args[0]->opt == 2) {
    n->args[0]->opt = 0;
    return n->args[0];
  }
  return n;
}

static jq_node *jq_call(jq_ps *P, const char *name, int line, const char *at) {
  jq_node *n = jq_nn(P, JN_CALL);
  n->name = name;
  n->pos = at;
  n->line = line;
  if (P->tok == T_LP) {
    jq_lex(P);
    for (;;) {
      jq_addarg(P, n, jq_pipe(P));
      if (P->fatal) return n;
      if (P->tok == T_SEMI) {
        jq_lex(P);
        continue;
      }
      if (jq_expect(P, T_RP)) return n;
      break;
    }
  }
  n->ref = jq_lookup(P, name, n->nargs);
  if (!n->ref && !P->toplevel_prog) {
    /* The prelude's definitions may refer to later ones. */
    n->c = P->pending;
    P->pending = n;
    return n;
  }
  if (!n->ref) {
    n->bi = jq_native_find(name, n->nargs) + 1;
    if (!n->bi) {
      char t[300];
      snprintf(t, sizeof t, "%s/%d", name, n->nargs);
      jq_perr_at(P, line, at, "%s is not defined", t);
    }
  }
  return n;
}

static jq_node *jq_var(jq_ps *P, const char *name, int line, const char *at) {
  jq_node *n = jq_nn(P, JN_VAR);
  n->name = name;
  n->line = line;
  n->ref = jq_lookup(P, name, -1);
  if (!n->ref) {
    if (!strcmp(name, "ENV")) {
      n->ref = jq_lookup(P, "ENV", -2);
    }
    if (!n->ref) {
      char t[300];
      snprintf(t, sizeof t, "$%s", name);
      jq_perr_at(P, line, at, "%s is not defined", t);
    }
  }
  return n;
}

/* jq folds a constant key at compile time and refuses one that is not a
 * string there. */
static void jq_badkey(jq_ps *P, int line, const char *at, jv key) {
  buf m;
  buf_init(&m, P->R->m);
  buf_printf(&m, "Cannot use %s (", jv_kind_name(key.k));
  jv_dump_trunc(P->R, &m, key, 15);
  buf_puts(&m, ") as object key");
  jq_perr_at(P, line, at, "%s", buf_str(&m));
  buf_finish(&m);
}

/* Object construction after '{'. */
static jq_node *jq_object(jq_ps *P) {
  jq_node *n = jq_nn(P, JN_OBJECT);
  while (!P->fatal && P->tok != T_RC) {
    jq_node *e = jq_nn(P, JN_OENT), *k = NULL, *v = NULL;
    int line = P->tline;
    if (P->tok == T_VAR) {
      char *name = jq_tokdup(P, 1);
      const char *at = P->ts;
      jq_lex(P);
      k = jq_lit(P, jv_cstr(P->R, name));
      if (P->tok != T_COLON) v = jq_var(P, name, line, at);
    } else if (P->tok == T_LOC) {
      jq_lex(P);
      k = jq_lit(P, jv_cstr(P->R, "__loc__"));
      v = jq_loc(P, line);
    } else if (P->tok == T_IDENT || P->tok == T_KW) {
      char *name = jq_tokdup(P, 0);
      jq_lex(P);
      k = jq_lit(P, jv_cstr(P->R, name));
      if (P->tok != T_COLON) {
        v = jq_n2(P, JN_INDEX, jq_nn(P, JN_ID), jq_lit(P, jv_cstr(P->R, name)));
      }
    } else if (P->tok == T_NUM) {
      k = jq_lit(P, jv_null());
      jq_lex(P);
    } else if (P->tok == T_STR || P->tok == T_FORMAT) {
      const char *fmt = NULL;
      if (P->tok == T_FORMAT) {
        fmt = jq_tokdup(P, 1);
        jq_lex(P);
        if (P->tok != T_STR) {
          jq_syntax(P);
          break;
        }
      }
      k = jq_string(P, fmt);
      if (P->tok != T_COLON) v = jq_n2(P, JN_INDEX, jq_nn(P, JN_ID), k);
    } else if (P->tok == T_LP) {
      const char *lp = P->ts;
      jq_lex(P);
      k = jq_pipe(P);
      if (jq_expect(P, T_RP)) break;
      if (k->t == JN_LIT && k->v.k != JV_STRING) jq_badkey(P, line, lp, k->v);
      if (P->tok != T_COLON) {
        jq_syntax(P);
        break;
      }
    } else {
      jq_syntax(P);
      break;
    }
    if (!v) {
      if (jq_expect(P, T_COLON)) break;
      v = jq_postfix(P);
      while (!P->fatal && P->tok == T_PIPE) {
        jq_lex(P);
        v = jq_n2(P, JN_PIPE, v, jq_postfix(P));
      }
    }
    e->a = k;
    e->b = v;
    jq_addarg(P, n, e);
    if (P->tok == T_COMMA) {
      jq_lex(P);
      continue;
    }
    if (P->tok != T_RC) jq_syntax_exp(P, "'}'");
  }
  jq_expect(P, T_RC);
  return n;
}

/* Patterns after "as"; binds their variables into scopes (arena). */
static jq_node *jq_pattern(jq_ps *P) {
  jq_node *n;
  if (P->tok == T_VAR) {
    n = jq_nn(P, JN_PVAR);
    n->name = jq_tokdup(P, 1);
    jq_lex(P);
    return n;
  }
  if (P->tok == T_LB) {
    n = jq_nn(P, JN_PARR);
    jq_lex(P);
    while (!P->fatal) {
      jq_addarg(P, n, jq_pattern(P));
      if (P->tok == T_COMMA) {
        jq_lex(P);
        continue;
      }
      jq_expect(P, T_RB);
      break;
    }
    return n;
  }
  if (P->tok == T_LC) {
    n = jq_nn(P, JN_POBJ);
    jq_lex(P);
    while (!P->fatal) {
      jq_node *e = jq_nn(P, JN_PENT);
      if (P->tok == T_VAR) {
        e->c = jq_nn(P, JN_PVAR);
        e->c->name = jq_tokdup(P, 1);
        e->a = jq_lit(P, jv_cstr(P->R, e->c->name));
        jq_lex(P);
      } else if (P->tok == T_IDENT || P->tok == T_KW) {
        e->a = jq_lit(P, jv_cstr(P->R, jq_tokdup(P, 0)));
        jq_lex(P);
      } else if (P->tok == T_STR) {
        e->a = jq_string(P, NULL);
      } else if (P->tok == T_LP) {
        jq_lex(P);
        e->a = jq_pipe(P);
        jq_expect(P, T_RP);
      } else {
        jq_syntax(P);
        break;
      }
      if (P->tok == T_COLON) {
        jq_lex(P);
        e->b = jq_pattern(P);
      } else if (!e->c) {
        jq_syntax(P);
        break;
      }
      jq_addarg(P, n, e);
      if (P->tok == T_COMMA) {
        jq_lex(P);
        continue;
      }
      jq_expect(P, T_RC);
      break;
    }
    return n;
  }
  jq_syntax_exp(P, "BINDING or '[' or '{'");
  return jq_nn(P, JN_PVAR);
}

/* Declares a pattern's variables (each name once, first binder wins for
 * ?// alternatives sharing names). */
static void jq_bindpat(jq_ps *P, jq_node *pat, jq_scope *mark) {
  int i;
  if (!pat) return;
  if (pat->t == JN_PVAR) {
    jq_scope *s;
    for (s = P->sc; s && s != mark; s = s->up)
      if (s->arity == -1 && !strcmp(s->name, pat->name)) {
        pat->ref = s->binder;
        return;
      }
    s = arena_alloc(P->a, sizeof *s);
    if (!s) {
      P->R->oom = P->fatal = 1;
      return;
    }
    jq_push(P, s, pat->name, -1, pat);
    return;
  }
  for (i = 0; i < pat->nargs; i++) {
    jq_node *e = pat->args[i];
    if (pat->t == JN_PARR)
      jq_bindpat(P, e, mark);
    else {
      jq_bindpat(P, e->c, mark);
      jq_bindpat(P, e->b, mark);
    }
  }
}

static jq_node *jq_patterns(jq_ps *P, jq_node *n) {
  jq_addarg(P, n, jq_pattern(P));
  while (!P->fatal && P->tok == T_ALTQ) {
    jq_lex(P);
    jq_addarg(P, n, jq_pattern(P));
  }
  return n;
}

static void jq_bindpats(jq_ps *P, jq_node *n) {
  int i;
  jq_scope *mark = P->sc;
  if (P->fatal) return; /* a broken pattern has nodes without names */
  for (i = 0; i < n->nargs; i++) jq_bindpat(P, n->args[i], mark);
}

static jq_node *jq_def(jq_ps *P) {
  jq_node *n = jq_nn(P, JN_DEF);
  jq_scope *self = arena_alloc(P->a, sizeof *self), *saved;
  int i;
  jq_lex(P);
  if (P->tok != T_IDENT && P->tok != T_KW) {
    jq_syntax_exp(P, "IDENT");
    return n;
  }
  n->name = jq_tokdup(P, 0);
  n->toplevel = P->fdepth == 0;
  {
    jq_scope *s;
    for (s = P->sc; s && n->toplevel; s = s->up)
      if ((s->arity == -1 || s->arity == -3) && s->binder->t != JN_GLOBAL)
        n->toplevel = 0;
  }
  jq_lex(P);
  if (P->tok == T_LP) {
    jq_lex(P);
    for (;;) {
      jq_node *pn = jq_nn(P, JN_PARAM);
      if (P->tok == T_VAR)
        pn->dollar = 1, pn->name = jq_tokdup(P, 1);
      else if (P->tok == T_IDENT || P->tok == T_KW)
        pn->name = jq_tokdup(P, 0);
      else {
        jq_syntax(P);
        return n;
      }
      jq_lex(P);
      jq_addarg(P, n, pn);
      if (P->tok == T_SEMI) {
        jq_lex(P);
        continue;
      }
      if (jq_expect(P, T_RP)) return n;
      break;
    }
  }
  if (jq_expect_exp(P, T_COLON, n->nargs ? "':'" : "'(' or ':'") || !self)
    return n;
  saved = P->sc;
  jq_push(P, self, n->name, n->nargs, n);
  for (i = 0; i < n->nargs; i++) {
    jq_scope *s = arena_alloc(P->a, 2 * sizeof *s);
    if (!s) {
      P->R->oom = P->fatal = 1;
      return n;
    }
    jq_push(P, s, n->args[i]->name, 0, n->args[i]);
    if (n->args[i]->dollar) jq_push(P, s + 1, n->args[i]->name, -1, n->args[i]);
  }
  P->fdepth++;
  n->a = jq_pipe(P);
  P->fdepth--;
  P->sc = self;
  jq_expect(P, T_SEMI);
  n->b = NULL;
  (void)saved;
  return n;
}

/* Primary terms and their suffixes. */
static jq_node *jq_suffixes(jq_ps *P, jq_node *t) {
  while (!P->fatal) {
    if (P->tok == T_FIELD) {
      t = jq_n2(P, JN_INDEX, t, jq_lit(P, jv_cstr(P->R, jq_tokdup(P, 1))));
      jq_lex(P);
    } else if (P->tok == T_DOT) {
      jq_lex(P);
      if (P->tok == T_STR)
        t = jq_n2(P, JN_INDEX, t, jq_string(P, NULL));
      else if (P->tok != T_LB) {
        jq_syntax_exp(P, "FORMAT or QQSTRING_START or '['");
        break;
      }
    } else if (P->tok == T_LB) {
      jq_lex(P);
      if (P->tok == T_RB) {
        jq_lex(P);
        t = jq_n2(P, JN_ITER, t, NULL);
      } else if (P->tok == T_COLON) {
        jq_lex(P);
        t = jq_n2(P, JN_SLICE, t, NULL);
        t->c = jq_pipe(P);
        jq_expect(P, T_RB);
      } else {
        jq_node *i = jq_pipe(P);
        if (P->tok == T_COLON) {
          jq_lex(P);
          t = jq_n2(P, JN_SLICE, t, i);
          if (P->tok != T_RB) t->c = jq_pipe(P);
        } else
          t = jq_n2(P, JN_INDEX, t, i);
        jq_expect(P, T_RB);
      }
    } else if (P->tok == T_Q) {
      jq_lex(P);
      t = jq_n2(P, JN_TRY, t, NULL);
    } else
      break;
  }
  return t;
}

static jq_node *jq_term(jq_ps *P) {
  jq_node *n = NULL;
  int line = P->tline;
  switch (P->tok) {
  case T_DOT:
    P->dot_at = P->ts;
    jq_lex(P);
    n = jq_nn(P, JN_ID);
    if (P->tok == T_IDENT) {
      /* jq's grammar has `'.' IDENT error` for a spaced .field */
      P->dot_ident = 1;
      jq_lex(P);
      jq_syntax(P);
      return n;
    }
    if (P->tok == T_STR) n = jq_n2(P, JN_INDEX, n, jq_string(P, NULL));
    break;
  case T_DOTDOT:
    jq_lex(P);
    n = jq_nn(P, JN_RECURSE);
    break;
  case T_FIELD:
    n = jq_n2(P, JN_INDEX, jq_nn(P, JN_ID),
              jq_lit(P, jv_cstr(P->R, jq_tokdup(P, 1))));
    jq_lex(P);
    break;
  case T_NUM: {
    jv v;
    jq_rt *R = P->R;
    char *s = jq_tokdup(P, 0);
    if (jq_parse_one(R, s, strlen(s), &v, NULL) < 0 || v.k != JV_NUMBER)
      v = jv_num(strtod(s, NULL));
    n = jq_lit(P, v);
    jq_lex(P);
    break;
  }
  case T_STR: n = jq_string(P, NULL); break;
  case T_FORMAT: {
    char *f = jq_tokdup(P, 1);
    jq_lex(P);
    if (P->tok == T_STR)
      n = jq_string(P, f);
    else {
      n = jq_nn(P, JN_FORMAT);
      n->name = f;
    }
    break;
  }
  case T_LOC:
    jq_lex(P);
    n = jq_loc(P, line);
    break;
  case T_VAR: {
    char *name = jq_tokdup(P, 1);
    const char *at = P->ts;
    jq_lex(P);
    n = jq_var(P, name, line, at);
    break;
  }
  case T_LP:
    jq_lex(P);
    n = jq_pipe(P);
    jq_expect(P, T_RP);
    break;
  case T_LB:
    jq_lex(P);
    n = jq_nn(P, JN_ARRAY);
    if (P->tok != T_RB) n->a = jq_pipe(P);
    jq_expect(P, T_RB);
    break;
  case T_LC:
    jq_lex(P);
    n = jq_object(P);
    break;
  case T_IDENT: {
    char *name = jq_tokdup(P, 0);
    const char *at = P->ts;
    jq_lex(P);
    if (!strcmp(name, "null") || !strcmp(name, "true") ||
        !strcmp(name, "false"))
      n = jq_lit(P,
                 !strcmp(name, "null") ? jv_null() : jv_bool(name[0] == 't'));
    else
      n = jq_call(P, name, line, at);
    break;
  }
  case T_KW:
    if (jq_kwis(P, "if")) {
      jq_node *top, **slot = &top;
      const char *ifat = P->ts;
      jq_lex(P);
      for (;;) {
        jq_node *i = jq_nn(P, JN_IF);
        i->a = jq_pipe(P);
        if (!jq_kwis(P, "then")) {
          /* bison's rule `"if" Exp "then" error` covers an elif too */
          int here = slot != &top && !P->fatal;
          jq_syntax(P);
          if (here || (slot != &top && P->err_tok == T_EOF))
            jq_perr_at(P, line, ifat, "%s",
                       "Possibly unterminated 'if' statement");
          return i;
        }
        jq_lex(P);
        i->b = jq_pipe(P);
        *slot = i;
        if (jq_kwis(P, "elif")) {
          jq_lex(P);
          slot = &i->c;
          continue;
        }
        if (jq_kwis(P, "else")) {
          jq_lex(P);
          i->c = jq_pipe(P);
        }
        if (!jq_kwis(P, "end")) {
          int here = !P->fatal;
          jq_syntax(P);
          if (here || P->err_tok == T_EOF)
            jq_perr_at(P, line, ifat, "%s",
                       "Possibly unterminated 'if' statement");
          return top;
        }
        jq_lex(P);
        break;
      }
      n = top;
      break;
    }
    if (jq_kwis(P, "reduce") || jq_kwis(P, "foreach")) {
      int fe = jq_kwis(P, "foreach");
      jq_scope *saved = P->sc;
      n = jq_nn(P, fe ? JN_FOREACH : JN_REDUCE);
      jq_lex(P);
      n->a = jq_postfix(P);
      if (!jq_kwis(P, "as")) {
        jq_syntax(P);
        return n;
      }
      jq_lex(P);
      n->d = jq_patterns(P, jq_nn(P, JN_AS));
      jq_bindpats(P, n->d);
      if (jq_expect_exp(P, T_LP, "'('")) return n;
      {
        jq_scope *inner = P->sc;
        P->sc = saved;
        n->b = jq_pipe(P);
        P->sc = inner;
      }
      if (jq_expect(P, T_SEMI)) return n;
      n->c = jq_pipe(P);
      if (fe && P->tok == T_SEMI) {
        jq_lex(P);
        jq_addarg(P, n, jq_pipe(P));
      }
      jq_expect(P, T_RP);
      P->sc = saved;
      break;
    }
    if (jq_kwis(P, "try")) {
      const char *tryat = P->ts, *body;
      jq_lex(P);
      n = jq_nn(P, JN_TRY);
      n->a = jq_postfix(P);
      n->op = 1;
      if (jq_kwis(P, "catch")) {
        jq_lex(P);
        body = P->ts;
        n->b = jq_postfix(P);
        /* bison's rule `"try" Exp "catch" error`: no handler at all */
        if (P->fatal && P->err_ts == body)
          jq_perr_at(P, line, tryat, "%s",
                     "Possibly unterminated 'try' statement");
      }
      return n;
    }
    if (jq_kwis(P, "def")) {
      jq_scope *saved = P->sc;
      jq_node *d = jq_def(P);
      d->b = jq_pipe(P);
      P->sc = saved;
      return d;
    }
    if (jq_kwis(P, "label")) {
      jq_scope *saved = P->sc, *s = arena_alloc(P->a, sizeof *s);
      jq_lex(P);
      n = jq_nn(P, JN_LABEL);
      if (P->tok != T_VAR || !s) {
        jq_syntax_exp(P, "BINDING");
        return n;
      }
      n->name = jq_tokdup(P, 1);
      jq_lex(P);
      if (jq_expect_exp(P, T_PIPE, "'|'")) return n;
      jq_push(P, s, n->name, -3, n);
      n->a = jq_pipe(P);
      P->sc = saved;
      return n;
    }
    if (jq_kwis(P, "import") || jq_kwis(P, "include")) {
      jq_perr(P, line, "%s",
              "memsandbox: jq modules (import/include) are not supported");
      P->fatal = 1;
      return jq_nn(P, JN_ID);
    }
    if ((size_t)(P->te - P->ts) == 7 && !memcmp(P->ts, "__loc__", 7)) {
      jq_syntax(P);
      return jq_nn(P, JN_ID);
    }
    jq_syntax(P);
    return jq_nn(P, JN_ID);
  default:
    if (P->tok == T_IDENT) break;
    if (P->tok == T_BAD && *P->ts == '$') {
      /* a '$' no name follows: bison wants a '$' after it */
      jq_lex(P);
      jq_syntax_exp(P, "'$'");
      return jq_nn(P, JN_ID);
    }
    jq_syntax(P);
    return jq_nn(P, JN_ID);
  }
  return n;
}

static jq_node *jq_postfix(jq_ps *P) {
  int line = P->tline;
  if (P->tok == T_KW &&
      (jq_kwis(P, "def") || jq_kwis(P, "label") || jq_kwis(P, "try")))
    return jq_term(P);
  if (P->tok == T_IDENT && (size_t)(P->te - P->ts) == 5 &&
      !memcmp(P->ts, "break", 5)) {
    jq_node *n = jq_nn(P, JN_BREAK);
    const char *bat = P->ts;
    jq_lex(P);
    if (P->tok != T_VAR) {
      jq_syntax(P);
      return n;
    }
    n->name = jq_tokdup(P, 1);
    n->ref = jq_lookup(P, n->name, -3);
    if (!n->ref) {
      char t[300];
      snprintf(t, sizeof t, "$*label-%s", n->name);
      jq_perr_at(P, line, bat, "%s is not defined", t);
    }
    jq_lex(P);
    return n;
  }
  return jq_suffixes(P, jq_term(P));
}

/* A unary operand: postfix term, negation, or `Term as $x | body`. */
static jq_node *jq_unary(jq_ps *P) {
  jq_node *t;
  if (P->tok == T_OP && P->op == JO_SUB) {
    jq_lex(P);
    return jq_n2(P, JN_NEG, jq_bin(P, 8), NULL);
  }
  if (jq_kwis(P, "def")) return jq_term(P);
  t = jq_postfix(P);
  if (!P->fatal && jq_kwis(P, "as")) {
    jq_node *n = jq_nn(P, JN_AS);
    jq_scope *saved = P->sc;
    jq_lex(P);
    n->a = t;
    jq_patterns(P, n);
    jq_bindpats(P, n);
    if (jq_expect_exp(P, T_PIPE, "'|'")) return n;
    n->b = jq_pipe(P);
    P->sc = saved;
    return n;
  }
  return t;
}

static int jq_prec(jq_ps *P, int *right, int *nonassoc) {
  *right = *nonassoc = 0;
  if (P->tok == T_PIPE) return *right = 1, 0;
  if (P->tok == T_COMMA) return 1;
  if (P->tok == T_KW) {
    if (jq_kwis(P, "or")) return 4;
    if (jq_kwis(P, "and")) return 5;
    return -1;
  }
  if (P->tok != T_OP) return -1;
  switch (P->op) {
  case JO_ALT: return *right = 1, 2;
  case JO_EQ:
  case JO_NE:
  case JO_LT:
  case JO_LE:
  case JO_GT:
  case JO_GE: return *nonassoc = 1, 6;
  case JO_ADD:
  case JO_SUB: return 7;
  case JO_MUL:
  case JO_DIV:
  case JO_MOD: return 8;
  default: return *nonassoc = 1, 3; /* assignments */
  }
}

static jq_node *jq_bin(jq_ps *P, int minprec) {
  jq_node *l = jq_unary(P);
  int last = -1;
  while (!P->fatal) {
    int right, nonassoc, prec = jq_prec(P, &right, &nonassoc), op = P->op,
                         tok = P->tok, isor = jq_kwis(P, "or");
    jq_node *r, *n;
    if (prec < minprec || prec < 0) break;
    if (nonassoc && last == prec) {
      jq_syntax(P);
      break;
    }
    jq_lex(P);
    r = jq_bin(P, right ? prec : prec + 1);
    if (tok == T_PIPE)
      n = jq_n2(P, JN_PIPE, l, r);
    else if (tok == T_COMMA)
      n = jq_n2(P, JN_COMMA, l, r);
    else if (tok == T_KW)
      n = jq_n2(P, isor ? JN_OR : JN_AND, l, r);
    else if (op == JO_ALT)
      n = jq_n2(P, JN_ALT, l, r);
    else if (op < 0) {
      n = jq_n2(P, JN_ASSIGN, l, r);
      n->op = -op;
    } else {
      n = jq_n2(P, JN_BIN, l, r);
      n->op = op;
    }
    l = n;
    last = nonassoc ? prec : -1;
  }
  return l;
}

static jq_node *jq_pipe(jq_ps *P) { return jq_bin(P, 0); }

/* Parses a sequence of top-level definitions (the prelude). */
static void jq_defs(jq_ps *P) {
  while (!P->fatal && jq_kwis(P, "def")) jq_def(P);
}

int jq_compile(arena *a, jq_rt *R, const char *prelude, const char *src,
               const char **globals, int nglobals, jq_node ***gnodes,
               jq_node **out, buf *err) {
  jq_ps P;
  jq_scope *gs;
  jq_node **gn, *env;
  int i;
  memset(&P, 0, sizeof P);
  P.a = a;
  P.R = R;
  P.err = err;
  gs = arena_alloc(a, (size_t)(nglobals + 1) * sizeof *gs);
  gn = arena_alloc(a, (size_t)(nglobals + 1) * sizeof *gn);
  if (!gs || !gn) {
    R->oom = 1;
    return 1;
  }
  env = jq_nn(&P, JN_GLOBAL);
  env->name = "ENV";
  jq_push(&P, &gs[nglobals], "ENV", -2, env);
  gn[nglobals] = env;
  for (i = 0; i < nglobals; i++) {
    gn[i] = jq_nn(&P, JN_GLOBAL);
    gn[i]->name = globals[i];
    jq_push(&P, &gs[i], globals[i], -1, gn[i]);
  }
  *gnodes = gn;
  P.src = prelude;
  P.p = prelude;
  jq_lex(&P);
  jq_defs(&P);
  while (P.pending) {
    jq_node *n = P.pending;
    P.pending = n->c;
    n->c = NULL;
    n->ref = jq_lookup(&P, n->name, n->nargs);
    if (!n->ref) n->bi = jq_native_find(n->name, n->nargs) + 1;
    if (!n->ref && !n->bi) P.nerr++;
  }
  if (P.nerr || P.tok != T_EOF) {
    buf_puts(err, "jq: error: the built-in definitions do not parse\n");
    return P.nerr ? P.nerr : 1;
  }
  P.src = src;
  P.p = src;
  P.line = 0;
  P.toplevel_prog = 1;
  jq_lex(&P);
  P.first_ts = P.ts;
  if (P.tok == T_EOF)
    *out = jq_nn(&P, JN_ID);
  else {
    *out = jq_pipe(&P);
    P.leftover = 1;
    if (!P.fatal && P.tok != T_EOF) jq_syntax(&P);
  }
  if (R->oom && !P.nerr) P.nerr = 1;
  return P.nerr;
}
