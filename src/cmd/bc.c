/* bc.c - an arbitrary precision calculator language (POSIX bc with GNU bc
 * 1.07's extensions and messages).
 *
 * The input is read a line at a time as GNU bc does: each top-level line
 * (statements separated by ';', or a function definition) is parsed whole
 * and then run, so a syntax error anywhere discards the line and a runtime
 * error abandons the rest of it. quit acts when it is read, halt when it
 * runs. Names may be long, strings print as written (print interprets its
 * escapes), else, print, read-less GNU statements, `last`, and -l's math
 * library (s c a l e j, our own bc source) are supported. Variables have
 * dynamic scope: a function's parameters and autos hide the caller's
 * until it returns.
 *
 * GNU reports runtime errors at an address in the byte code it compiles
 * the line to; the parser keeps a running count of the bytes GNU's code
 * for each construct takes, so the common messages ("Runtime error
 * (func=(main), adr=7): Divide by zero") agree.
 *
 * Deviations: read() and -s/-w are refused; the -i prompt is not shown.
 *
 * Usage: bc [options] [file ...] */
#include <string.h>

#include "../cold.h"
#include "bc.h"

static const char bc_usage[] MSB_COLD =
    "usage: bc [options] [file ...]\n"
    "  -h  --help         print this usage and exit\n"
    "  -i  --interactive  force interactive mode\n"
    "  -l  --mathlib      use the predefined math routines\n"
    "  -q  --quiet        don't print initial banner\n"
    "  -s  --standard     non-standard bc constructs are errors\n"
    "  -w  --warn         warn about non-standard bc constructs\n"
    "  -v  --version      print version information and exit\n";

static const cmd_opt bc_opts[] = {{'h', "help", CMD_ARG_NONE, 'h'},
                                  {'i', "interactive", CMD_ARG_NONE, 'i'},
                                  {'l', "mathlib", CMD_ARG_NONE, 'l'},
                                  {'q', "quiet", CMD_ARG_NONE, 'q'},
                                  {'s', "standard", CMD_ARG_NONE, 's'},
                                  {'w', "warn", CMD_ARG_NONE, 'w'},
                                  {'v', "version", CMD_ARG_NONE, 'v'},
                                  {0, 0, 0, 0}};

/* The -l library, written for memsandbox: each function works at a
 * higher scale and truncates its result to the caller's. */
static const char bc_mathlib[] MSB_COLD =
    "define e(x) {\n"
    "  auto a, d, f, i, m, n, s, v\n"
    "  s = scale\n"
    "  if (x < 0) { n = 1; x = -x }\n"
    "  scale = s + 12 + x * 45 / 100\n"
    "  m = 0; while (x > 1) { x = x / 2; m = m + 1 }\n"
    "  v = 1; a = 1; f = 1\n"
    "  for (i = 1; 1; i++) { a = a * x; f = f * i; d = a / f\n"
    "    if (d == 0) break; v = v + d }\n"
    "  while (m > 0) { v = v * v; m = m - 1 }\n"
    "  if (n) v = 1 / v\n"
    "  scale = s; return (v / 1)\n"
    "}\n"
    "define l(x) {\n"
    "  auto a, d, i, m, s, t, u, v\n"
    "  if (x <= 0) return ((1 - 10 ^ scale) / 1)\n"
    "  s = scale; scale = s + 10\n"
    "  m = 1; while (x >= 2) { x = sqrt(x); m = m * 2 }\n"
    "  while (x <= .5) { x = sqrt(x); m = m * 2 }\n"
    "  u = (x - 1) / (x + 1); t = u * u; a = u; v = u\n"
    "  for (i = 3; 1; i = i + 2) { a = a * t; d = a / i\n"
    "    if (d == 0) break; v = v + d }\n"
    "  v = 2 * m * v\n"
    "  scale = s; return (v / 1)\n"
    "}\n"
    "define s(x) {\n"
    "  auto a, d, f, i, n, p, s, t, v\n"
    "  s = scale; scale = s + 10 + length(x / 1)\n"
    "  p = 4 * a(1)\n"
    "  if (x < 0) { n = 1; x = -x }\n"
    "  scale = 0; f = (x / p + 1) / 2\n"
    "  scale = s + 10 + length(x / 1)\n"
    "  x = x - 2 * f * p\n"
    "  t = x * x; a = x; v = x\n"
    "  for (i = 3; 1; i = i + 2) { a = -a * t / (i * (i - 1)); d = a\n"
    "    if (d == 0) break; v = v + d }\n"
    "  if (n) v = -v\n"
    "  scale = s; return (v / 1)\n"
    "}\n"
    "define c(x) {\n"
    "  auto s, v\n"
    "  s = scale; scale = s + 10 + length(x / 1)\n"
    "  v = s(x + 2 * a(1))\n"
    "  scale = s; return (v / 1)\n"
    "}\n"
    "define a(x) {\n"
    "  auto a, d, i, m, n, s, t, v\n"
    "  s = scale; scale = s + 10\n"
    "  if (x < 0) { n = 1; x = -x }\n"
    "  m = 1; while (x > .2) { x = x / (1 + sqrt(1 + x * x)); m = m * 2 }\n"
    "  t = x * x; a = x; v = x\n"
    "  for (i = 3; 1; i = i + 2) { a = -a * t; d = a / i\n"
    "    if (d == 0) break; v = v + d }\n"
    "  v = v * m\n"
    "  if (n) v = -v\n"
    "  scale = s; return (v / 1)\n"
    "}\n"
    "define j(n, x) {\n"
    "  auto a, d, f, i, s, t, v\n"
    "  s = scale; scale = 0; n = n / 1\n"
    "  if (n < 0) { n = -n; if (n % 2) { x = -x } }\n"
    "  scale = s + 10\n"
    "  f = 1; for (i = 2; i <= n; i++) f = f * i\n"
    "  a = (x / 2) ^ n / f; v = a; t = -x * x / 4\n"
    "  for (i = 1; 1; i++) { a = a * t / (i * (n + i)); d = a\n"
    "    if (d == 0) break; v = v + d }\n"
    "  scale = s; return (v / 1)\n"
    "}\n";

/* Tokens. */
enum {
  BT_EOF = 256,
  BT_NL,
  BT_NUM,
  BT_NAME,
  BT_STR,
  BT_BAD,
  BT_INC,
  BT_DEC,
  BT_EQ,
  BT_NE,
  BT_LE,
  BT_GE,
  BT_AND,
  BT_OR,
  BT_ASSIGN,
  /* keywords, in bc_keywords' order */
  BT_AUTO,
  BT_BREAK,
  BT_CONTINUE,
  BT_DEFINE,
  BT_ELSE,
  BT_FOR,
  BT_HALT,
  BT_IBASE,
  BT_IF,
  BT_LAST,
  BT_LENGTH,
  BT_LIMITS,
  BT_OBASE,
  BT_PRINT,
  BT_QUIT,
  BT_READ,
  BT_RETURN,
  BT_SCALE,
  BT_SQRT,
  BT_VOID,
  BT_WARRANTY,
  BT_WHILE
};

static const char *const bc_keywords[] = {
    "auto",  "break", "continue", "define", "else",   "for",
    "halt",  "ibase", "if",       "last",   "length", "limits",
    "obase", "print", "quit",     "read",   "return", "scale",
    "sqrt",  "void",  "warranty", "while"};

/* Syntax tree. */
enum {
  BN_NUM,
  BN_VAR,
  BN_ARR,
  BN_SCALE,
  BN_IBASE,
  BN_OBASE,
  BN_LAST, /* named */
  BN_BIN,
  BN_REL,
  BN_NEG,
  BN_NOT,
  BN_AND,
  BN_OR,
  BN_ASSIGN,
  BN_PREINC,
  BN_POSTINC,
  BN_CALL,
  BN_LENGTH,
  BN_SQRT,
  BN_SCALEF,
  BN_ARRARG,
  /* statements */
  BS_EXPR,
  BS_STR,
  BS_PRINT,
  BS_IF,
  BS_WHILE,
  BS_FOR,
  BS_BREAK,
  BS_CONT,
  BS_RETURN,
  BS_HALT,
  BS_BLOCK,
  BS_LIMITS
};

typedef struct bc_node bc_node;
struct bc_node {
  int kind;
  int op;    /* operator character, BT_* for two-character ones */
  int adr;   /* GNU's code address after this operation */
  int idx;   /* name index (variables, arrays, functions) */
  int print; /* BS_EXPR: print the value */
  int paren; /* an expression written in parentheses */
  const char *text; /* number or string text */
  bcn cache;        /* BN_NUM: value at cache_base */
  int cache_base;
  bc_node *a, *b, *x, *y; /* operands; for: init, cond, incr, body */
  bc_node *next;          /* statement lists, argument lists */
  bc_node *numnext;       /* BN_NUM: every constant, to free the caches */
};

/* Dynamic scope: a variable or array is a stack of values. */
typedef struct bc_arr {
  bcn **blk; /* blocks of BC_ABLK values, allocated on first store */
  int nblk;
} bc_arr;
#define BC_ABLK 256
#define BC_DIM_MAX 16777215L

typedef struct bc_func {
  int defined;
  int isvoid; /* define void f(): calls print nothing */
  bc_node *body;
  int nparam, nauto;
  int *param; /* name index; negative (-idx - 1) for an array */
  int *autov;
} bc_func;

typedef struct bc_name {
  const char *name;
  bcn *vals; /* variable stack; vals[0] is the global */
  int nv, cv;
  bc_arr **arrs; /* array stack */
  int na, ca;
  bc_func fn;
} bc_name;

/* Statement results. */
enum { BC_OK = 0, BC_BREAK = 1, BC_CONT, BC_RET, BC_ERR, BC_HALT, BC_FATAL };

#define BC_MAX_DEPTH 400
#define BC_MAX_NEST 200

typedef struct bc_st {
  cmd_ctx *c;
  bcn_env e;
  bc_name *names;
  int nnames, cnames;
  int scale, ibase, obase;
  bcn last, ret;
  int col, linelen;
  const char *func; /* running function's name, NULL in main */
  int depth;
  /* lexer */
  const char *src, *p, *end, *file;
  int line, tok, tokline;
  const char *tstart;
  size_t tlen;
  /* parser */
  int perr, quit, loops, infunc, pc, nest;
  bc_node *nums; /* constants parsed so far (their caches are freed last) */
} bc_st;

/* ---- lexer ---------------------------------------------------------- */

static int bc_isdigit(int ch) {
  return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z');
}

/* Skips blanks, comments and backslash-newlines. */
static void bc_skip(bc_st *s) {
  while (s->p < s->end) {
    if (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\f' ||
        *s->p == '\v') {
      s->p++;
    } else if (*s->p == '\\' && s->p + 1 < s->end && s->p[1] == '\n') {
      s->p += 2;
      s->line++;
    } else if (*s->p == '#') {
      while (s->p < s->end && *s->p != '\n') s->p++;
    } else if (*s->p == '/' && s->p + 1 < s->end && s->p[1] == '*') {
      s->p += 2;
      while (s->p < s->end &&
             !(*s->p == '*' && s->p + 1 < s->end && s->p[1] == '/'))
        if (*s->p++ == '\n') s->line++;
      s->p = s->p < s->end ? s->p + 2 : s->end;
    } else {
      break;
    }
  }
}

static int bc_lex_word(bc_st *s) {
  const char *q = s->p;
  size_t i;
  while (q < s->end &&
         ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_'))
    q++;
  s->tlen = (size_t)(q - s->p);
  s->p = q;
  for (i = 0; i < sizeof bc_keywords / sizeof *bc_keywords; i++)
    if (strlen(bc_keywords[i]) == s->tlen &&
        !memcmp(bc_keywords[i], s->tstart, s->tlen))
      return BT_AUTO + (int)i;
  return BT_NAME;
}

/* A number's text without backslash-newlines (arena). */
static int bc_lex_num(bc_st *s) {
  const char *q = s->p;
  int dot = 0;
  while (q < s->end) {
    if (bc_isdigit(*q)) {
      q++;
    } else if (*q == '.' && !dot) {
      dot = 1;
      q++;
    } else if (*q == '\\' && q + 1 < s->end && q[1] == '\n') {
      q += 2;
      s->line++;
    } else {
      break;
    }
  }
  s->tlen = (size_t)(q - s->p);
  s->p = q;
  return BT_NUM;
}

/* Two-character operators: the second character and token for each. */
static int bc_lex_op(bc_st *s) {
  int ch = *s->p++, nx = s->p < s->end ? *s->p : 0;
  if ((ch == '+' || ch == '-') && nx == ch) {
    s->p++;
    return ch == '+' ? BT_INC : BT_DEC;
  }
  if (nx == '=' && strchr("=!<>", ch)) {
    s->p++;
    return ch == '=' ? BT_EQ : ch == '!' ? BT_NE : ch == '<' ? BT_LE : BT_GE;
  }
  if (nx == '=' && strchr("+-*/%^", ch)) {
    s->p++;
    s->tlen = (size_t)ch; /* the operator of an op-assignment */
    return BT_ASSIGN;
  }
  if (ch == '=') {
    s->tlen = '=';
    return BT_ASSIGN;
  }
  if ((ch == '&' || ch == '|') && nx == ch) {
    s->p++;
    return ch == '&' ? BT_AND : BT_OR;
  }
  if (strchr("+-*/%^<>!()[]{},;", ch)) return ch;
  return BT_BAD;
}

static void bc_next(bc_st *s) {
  bc_skip(s);
  s->tstart = s->p;
  s->tlen = 0;
  if (s->p >= s->end) {
    s->tok = BT_EOF;
  } else if (*s->p == '\n') {
    s->p++;
    s->line++;
    s->tok = BT_NL;
  } else if (*s->p >= 'a' && *s->p <= 'z') {
    s->tok = bc_lex_word(s);
  } else if (bc_isdigit(*s->p) ||
             (*s->p == '.' && s->p + 1 < s->end && bc_isdigit(s->p[1]))) {
    s->tok = bc_lex_num(s);
  } else if (*s->p == '.') {
    s->p++;
    s->tok = BT_LAST;
  } else if (*s->p == '"') {
    const char *q = ++s->p;
    while (q < s->end && *q != '"')
      if (*q++ == '\n') s->line++;
    s->tstart = s->p;
    s->tlen = (size_t)(q - s->p);
    s->p = q < s->end ? q + 1 : q;
    s->tok = q < s->end ? BT_STR : BT_EOF;
  } else {
    s->tok = bc_lex_op(s);
  }
}

/* ---- parser ------------------------------------------------------------ */

/* Reports a parse error once per line: "(standard_in) 3: syntax error". */
static void bc_perror(bc_st *s, const char *msg) {
  if (s->perr) return;
  s->perr = 1;
  if (s->tok == BT_BAD)
    buf_printf(s->c->err, "%s %d: illegal character: %c\n", s->file, s->line,
               *s->tstart);
  else if (s->tok == BT_EOF) /* GNU has moved past the input: line 1 */
    buf_printf(s->c->err, "(standard_in) 1: %s\n", msg);
  else
    buf_printf(s->c->err, "%s %d: %s\n", s->file, s->line, msg);
}

static bc_node *bc_new(bc_st *s, int kind) {
  bc_node *n = arena_zalloc(s->c->a, sizeof *n);
  if (!n) {
    s->perr = 1;
    return NULL;
  }
  n->kind = kind;
  return n;
}

/* The name table index of the current token's name. */
static int bc_name_idx(bc_st *s, const char *name, size_t len) {
  int i;
  for (i = 0; i < s->nnames; i++)
    if (strlen(s->names[i].name) == len && !memcmp(s->names[i].name, name, len))
      return i;
  if (s->nnames == s->cnames) {
    int nc = s->cnames ? 2 * s->cnames : 32;
    bc_name *nn = mem_realloc(s->c->m, s->names, sizeof *nn * (size_t)nc);
    if (!nn) return -1;
    s->names = nn;
    s->cnames = nc;
  }
  memset(&s->names[s->nnames], 0, sizeof *s->names);
  s->names[s->nnames].name = arena_strndup(s->c->a, name, len);
  if (!s->names[s->nnames].name) return -1;
  return s->nnames++;
}

static int bc_expect(bc_st *s, int tok) {
  if (s->tok != tok) {
    bc_perror(s, "syntax error");
    return 0;
  }
  bc_next(s);
  return 1;
}

static bc_node *bc_expr(bc_st *s, int minprec);

static int bc_is_named(const bc_node *n) {
  return n && n->kind <= BN_LAST && n->kind != BN_NUM;
}

/* Bytes GNU's code takes to load or store a named expression. */
#define BC_NAMED_BYTES 2

/* name, name[expr], name(args) after the name token. */
static bc_node *bc_name_primary(bc_st *s) {
  int idx = bc_name_idx(s, s->tstart, s->tlen);
  bc_node *n, **tail;
  int nargs = 0, start;
  if (idx < 0) return bc_perror(s, "out of memory"), NULL;
  bc_next(s);
  if (s->tok == '[') {
    bc_next(s);
    if (!(n = bc_new(s, BN_ARR))) return NULL;
    n->idx = idx;
    if (!(n->a = bc_expr(s, 1)) || !bc_expect(s, ']')) return NULL;
    return n;
  }
  if (s->tok != '(') {
    if ((n = bc_new(s, BN_VAR))) n->idx = idx;
    return n;
  }
  bc_next(s);
  if (!(n = bc_new(s, BN_CALL))) return NULL;
  n->idx = idx;
  tail = &n->a;
  while (s->tok != ')') {
    bc_node *arg;
    if (nargs && !bc_expect(s, ',')) return NULL;
    if (s->tok == BT_NAME && s->p < s->end && *s->p == '[' &&
        s->p + 1 < s->end && s->p[1] == ']') {
      if (!(arg = bc_new(s, BN_ARRARG))) return NULL;
      if ((arg->idx = bc_name_idx(s, s->tstart, s->tlen)) < 0) return NULL;
      s->p += 2;
      bc_next(s);
      s->pc += BC_NAMED_BYTES;
    } else if (!(arg = bc_expr(s, 1))) {
      return NULL;
    }
    *tail = arg;
    tail = &arg->next;
    nargs++;
  }
  bc_next(s);
  start = s->pc;
  n->adr = start + 2;
  s->pc += 3 + nargs;
  n->op = nargs;
  return n;
}

/* length(e), sqrt(e), scale(e). */
static bc_node *bc_builtin(bc_st *s, int kind) {
  bc_node *n = bc_new(s, kind);
  bc_next(s);
  if (!n || !bc_expect(s, '(') || !(n->a = bc_expr(s, 1)) || !bc_expect(s, ')'))
    return NULL;
  n->adr = s->pc += 2;
  return n;
}

/* Bytes of GNU's code for a constant: "0" and "1" have one-byte codes,
 * others are written out without their leading zeros. */
static int bc_num_bytes(const char *t) {
  size_t n;
  while (*t == '0' && t[1]) t++;
  n = strlen(t);
  if (n == 1 && (*t == '0' || *t == '1')) return 1;
  return (int)n + 2;
}

static bc_node *bc_primary(bc_st *s) {
  bc_node *n;
  switch (s->tok) {
  case BT_NUM:
    if (!(n = bc_new(s, BN_NUM))) return NULL;
    n->text = arena_strndup(s->c->a, s->tstart, s->tlen);
    n->cache_base = -1;
    n->numnext = s->nums;
    s->nums = n;
    s->pc += bc_num_bytes(n->text);
    bc_next(s);
    return n->text ? n : NULL;
  case '(':
    bc_next(s);
    if (!(n = bc_expr(s, 1)) || !bc_expect(s, ')')) return NULL;
    n->paren = 1;
    return n;
  case BT_NAME: return bc_name_primary(s);
  case BT_SCALE:
    if (s->p < s->end && (bc_skip(s), s->p < s->end && *s->p == '('))
      return bc_builtin(s, BN_SCALEF);
    bc_next(s);
    return bc_new(s, BN_SCALE);
  case BT_IBASE: bc_next(s); return bc_new(s, BN_IBASE);
  case BT_OBASE: bc_next(s); return bc_new(s, BN_OBASE);
  case BT_LAST: bc_next(s); return bc_new(s, BN_LAST);
  case BT_LENGTH: return bc_builtin(s, BN_LENGTH);
  case BT_SQRT: return bc_builtin(s, BN_SQRT);
  case BT_READ:
    bc_perror(s, "read() is not supported in memsandbox");
    return NULL;
  default: bc_perror(s, "syntax error"); return NULL;
  }
}

/* Code bytes of a load (named expressions load when used as values). */
static void bc_load(bc_st *s, bc_node *n) {
  if (bc_is_named(n)) n->adr = s->pc += BC_NAMED_BYTES;
}

/* Primary with ++/-- and assignment, which bind to a named expression. */
static bc_node *bc_postfix(bc_st *s) {
  bc_node *n = bc_primary(s), *a;
  if (!n) return NULL;
  if (bc_is_named(n) && !n->paren && (s->tok == BT_INC || s->tok == BT_DEC)) {
    if (!(a = bc_new(s, BN_POSTINC))) return NULL;
    a->op = s->tok == BT_INC ? '+' : '-';
    a->a = n;
    /* an element's subscript is duplicated first: one byte more; a bad
     * subscript shows at the load that follows */
    n->adr = s->pc + 1 + BC_NAMED_BYTES;
    a->adr = s->pc += 2 * BC_NAMED_BYTES + (n->kind == BN_ARR);
    bc_next(s);
    return a;
  }
  if (bc_is_named(n) && !n->paren && s->tok == BT_ASSIGN) {
    if (!(a = bc_new(s, BN_ASSIGN))) return NULL;
    a->op = (int)s->tlen;
    a->a = n;
    if (a->op != '=') /* the load, after duplicating a subscript */
      n->adr = s->pc += BC_NAMED_BYTES + (n->kind == BN_ARR);
    bc_next(s);
    if (!(a->b = bc_expr(s, 6))) return NULL;
    if (a->op != '=') a->adr = s->pc += 1;
    a->adr = s->pc += BC_NAMED_BYTES;
    return a;
  }
  bc_load(s, n);
  return n;
}

static bc_node *bc_unary(bc_st *s) {
  bc_node *n;
  if (s->tok == '-' || s->tok == '!') {
    int op = s->tok;
    if (++s->nest > BC_MAX_NEST) { /* "- - - ..." recurses too */
      bc_perror(s, "expression nesting too deep");
      return NULL;
    }
    if (!(n = bc_new(s, op == '-' ? BN_NEG : BN_NOT))) return NULL;
    bc_next(s);
    if (!(n->a = op == '-' ? bc_unary(s) : bc_expr(s, 4))) return NULL;
    n->adr = s->pc += 1;
    s->nest--;
    return n;
  }
  if (s->tok == BT_INC || s->tok == BT_DEC) {
    if (!(n = bc_new(s, BN_PREINC))) return NULL;
    n->op = s->tok == BT_INC ? '+' : '-';
    bc_next(s);
    if (s->tok != BT_NAME && s->tok != BT_IBASE && s->tok != BT_OBASE &&
        s->tok != BT_SCALE && s->tok != BT_LAST)
      return bc_perror(s, "syntax error"), NULL;
    if (!(n->a = bc_primary(s))) return NULL;
    if (!bc_is_named(n->a)) return bc_perror(s, "syntax error"), NULL;
    n->a->adr = s->pc + 1 + BC_NAMED_BYTES;
    n->adr = s->pc += 2 * BC_NAMED_BYTES + (n->a->kind == BN_ARR);
    return n;
  }
  return bc_postfix(s);
}

/* Binary operator precedence (|| 1, && 2, relational 4, + - 6, * / % 7,
 * ^ 8), 0 for none. */
static int bc_prec(int tok) {
  switch (tok) {
  case BT_OR: return 1;
  case BT_AND: return 2;
  case BT_EQ:
  case BT_NE:
  case '<':
  case BT_LE:
  case '>':
  case BT_GE: return 4;
  case '+':
  case '-': return 6;
  case '*':
  case '/':
  case '%': return 7;
  case '^': return 8;
  default: return 0;
  }
}

static bc_node *bc_expr(bc_st *s, int minprec) {
  bc_node *l, *n;
  int p;
  if (++s->nest > BC_MAX_NEST) {
    bc_perror(s, "expression nesting too deep");
    return NULL;
  }
  l = bc_unary(s);
  while (l && (p = bc_prec(s->tok)) && p >= minprec) {
    int op = s->tok;
    n = bc_new(s, op == BT_AND  ? BN_AND
                  : op == BT_OR ? BN_OR
                  : p == 4      ? BN_REL
                                : BN_BIN);
    if (!n) return NULL;
    n->op = op;
    n->a = l;
    bc_next(s);
    if (op == BT_AND || op == BT_OR) s->pc += 5;
    if (!(n->b = bc_expr(s, op == '^' ? p : p + 1))) return NULL;
    n->adr = s->pc += op == BT_AND || op == BT_OR ? 4 : 1;
    l = n;
  }
  s->nest--;
  return l;
}

static bc_node *bc_stmt(bc_st *s);

static void bc_skip_nl(bc_st *s) {
  while (s->tok == BT_NL) bc_next(s);
}

/* '(' expr ')' of if and while. */
static bc_node *bc_cond(bc_st *s) {
  bc_node *n;
  bc_next(s);
  if (!bc_expect(s, '(') || !(n = bc_expr(s, 1)) || !bc_expect(s, ')'))
    return NULL;
  s->pc += 3;
  bc_skip_nl(s);
  return n;
}

/* A body statement (may be empty). */
static int bc_body(bc_st *s, bc_node **out) {
  *out = bc_stmt(s);
  return !s->perr;
}

/* A loop's body (break is allowed in it) and the jump back that closes it
 * (3 bytes of GNU bc's code, for runtime-error addresses); n, or NULL
 * after a parse error. */
static bc_node *bc_loop_body(bc_st *s, bc_node *n, bc_node **body) {
  s->loops++;
  bc_body(s, body);
  s->loops--;
  s->pc += 3;
  return s->perr ? NULL : n;
}

static bc_node *bc_for(bc_st *s) {
  bc_node *n = bc_new(s, BS_FOR);
  if (!n) return NULL;
  bc_next(s);
  if (!bc_expect(s, '(')) return NULL;
  if (s->tok != ';' && !(n->a = bc_expr(s, 1))) return NULL;
  s->pc += 1;
  if (!bc_expect(s, ';')) return NULL;
  if (s->tok != ';' && !(n->b = bc_expr(s, 1))) return NULL;
  s->pc += 6;
  if (!bc_expect(s, ';')) return NULL;
  if (s->tok != ')' && !(n->x = bc_expr(s, 1))) return NULL;
  s->pc += 4;
  if (!bc_expect(s, ')')) return NULL;
  bc_skip_nl(s);
  return bc_loop_body(s, n, &n->y);
}

static bc_node *bc_if(bc_st *s) {
  bc_node *n = bc_new(s, BS_IF);
  if (!n || !(n->a = bc_cond(s)) || !bc_body(s, &n->b)) return NULL;
  if (s->tok == BT_ELSE) {
    bc_next(s);
    s->pc += 3;
    bc_skip_nl(s);
    if (!bc_body(s, &n->x)) return NULL;
  }
  return n;
}

static bc_node *bc_while(bc_st *s) {
  bc_node *n = bc_new(s, BS_WHILE);
  if (!n || !(n->a = bc_cond(s))) return NULL;
  return bc_loop_body(s, n, &n->b);
}

/* print item, item, ... */
static bc_node *bc_print(bc_st *s) {
  bc_node *n = bc_new(s, BS_PRINT), **tail;
  if (!n) return NULL;
  tail = &n->a;
  do {
    bc_node *it;
    bc_next(s);
    if (s->tok == BT_STR) {
      if (!(it = bc_new(s, BS_STR))) return NULL;
      it->text = arena_strndup(s->c->a, s->tstart, s->tlen);
      s->pc += (int)s->tlen + 2;
      bc_next(s);
    } else if (!(it = bc_expr(s, 1))) {
      return NULL;
    } else {
      s->pc += 1;
    }
    *tail = it;
    tail = &it->next;
  } while (s->tok == ',');
  return n;
}

static bc_node *bc_return(bc_st *s) {
  bc_node *n = bc_new(s, BS_RETURN);
  if (!n) return NULL;
  bc_next(s);
  if (s->tok != ';' && s->tok != BT_NL && s->tok != '}' && s->tok != BT_EOF &&
      !(n->a = bc_expr(s, 1)))
    return NULL;
  s->pc += 1;
  /* reported once the statement is read, as GNU's grammar action does */
  if (!s->infunc) {
    bc_perror(s, "Return outside of a function.");
    return NULL;
  }
  return n;
}

/* Statements up to and including '}' (the '{' is consumed). */
static bc_node *bc_block_body(bc_st *s) {
  bc_node *n = bc_new(s, BS_BLOCK), **tail;
  if (!n) return NULL;
  tail = &n->a;
  for (;;) {
    bc_node *st;
    while (s->tok == BT_NL || s->tok == ';') bc_next(s);
    if (s->tok == '}') break;
    st = bc_stmt(s);
    if (s->perr) return NULL;
    if (st) {
      *tail = st;
      tail = &st->next;
    }
    if (s->tok != ';' && s->tok != BT_NL && s->tok != '}') {
      bc_perror(s, "syntax error");
      return NULL;
    }
  }
  bc_next(s);
  return n;
}

/* { statement; ... } */
static bc_node *bc_block(bc_st *s) {
  bc_next(s);
  return bc_block_body(s);
}

/* A loop-control statement, checked against the loops around it. */
static bc_node *bc_jump(bc_st *s, int kind) {
  if (!s->loops) {
    bc_perror(s, kind == BS_BREAK ? "Break outside a for/while"
                                  : "Continue outside a for");
    return NULL;
  }
  bc_next(s);
  s->pc += 3;
  return bc_new(s, kind);
}

/* One statement; NULL for an empty one (or after an error: s->perr). */
static bc_node *bc_stmt1(bc_st *s) {
  bc_node *n;
  switch (s->tok) {
  case ';':
  case BT_NL:
  case '}':
  case BT_EOF: return NULL;
  case '{': return bc_block(s);
  case BT_IF: return bc_if(s);
  case BT_WHILE: return bc_while(s);
  case BT_FOR: return bc_for(s);
  case BT_BREAK: return bc_jump(s, BS_BREAK);
  case BT_CONTINUE: return bc_jump(s, BS_CONT);
  case BT_RETURN: return bc_return(s);
  case BT_PRINT: return bc_print(s);
  case BT_QUIT:
    s->quit = 1;
    s->perr = 1;
    return NULL;
  case BT_HALT:
  case BT_LIMITS:
    n = bc_new(s, s->tok == BT_HALT ? BS_HALT : BS_LIMITS);
    bc_next(s);
    s->pc += 1;
    return n;
  case BT_WARRANTY: bc_next(s); return bc_new(s, BS_BLOCK);
  case BT_STR:
    if (!(n = bc_new(s, BS_STR))) return NULL;
    n->text = arena_strndup(s->c->a, s->tstart, s->tlen);
    s->pc += (int)s->tlen + 2;
    bc_next(s);
    return n;
  default:
    if (!(n = bc_new(s, BS_EXPR)) || !(n->a = bc_expr(s, 1))) return NULL;
    n->print = !(n->a->kind == BN_ASSIGN && !n->a->paren);
    s->pc += 1;
    return n;
  }
}

/* bc_stmt1 within the nesting bound (the parser and runtime recurse). */
static bc_node *bc_stmt(bc_st *s) {
  bc_node *n;
  if (++s->nest > BC_MAX_NEST) {
    bc_perror(s, "statement nesting too deep");
    return NULL;
  }
  n = bc_stmt1(s);
  s->nest--;
  return n;
}

/* name or name[] in a parameter or auto list; appends to *list. */
static int bc_decl(bc_st *s, int **list, int *count) {
  int idx, *nl;
  if (s->tok != BT_NAME) return bc_perror(s, "syntax error"), 0;
  if ((idx = bc_name_idx(s, s->tstart, s->tlen)) < 0) return 0;
  bc_next(s);
  if (s->tok == '[') {
    bc_next(s);
    if (!bc_expect(s, ']')) return 0;
    idx = -idx - 1;
  }
  nl = arena_alloc(s->c->a, sizeof *nl * (size_t)(*count + 1));
  if (!nl) return 0;
  if (*count) memcpy(nl, *list, sizeof *nl * (size_t)*count);
  nl[(*count)++] = idx;
  *list = nl;
  return 1;
}

/* define name(params) { auto ...; statements } */
static int bc_define(bc_st *s) {
  bc_func f;
  int idx, savepc = s->pc;
  memset(&f, 0, sizeof f);
  bc_next(s);
  if (s->tok == BT_VOID) {
    f.isvoid = 1;
    bc_next(s);
  }
  if (s->tok != BT_NAME) return bc_perror(s, "syntax error"), 0;
  if ((idx = bc_name_idx(s, s->tstart, s->tlen)) < 0) return 0;
  bc_next(s);
  if (!bc_expect(s, '(')) return 0;
  while (s->tok != ')') {
    if (f.nparam && !bc_expect(s, ',')) return 0;
    if (!bc_decl(s, &f.param, &f.nparam)) return 0;
  }
  bc_next(s);
  bc_skip_nl(s);
  if (s->tok != '{') return bc_perror(s, "syntax error"), 0;
  bc_next(s);
  bc_skip_nl(s);
  if (s->tok == BT_AUTO) {
    do {
      bc_next(s);
      if (!bc_decl(s, &f.autov, &f.nauto)) return 0;
    } while (s->tok == ',');
    if (s->tok != ';' && s->tok != BT_NL)
      return bc_perror(s, "syntax error"), 0;
  }
  s->infunc = 1;
  s->pc = 0;
  f.body = bc_block_body(s);
  s->infunc = 0;
  s->pc = savepc;
  if (s->perr) return 0;
  f.defined = 1;
  s->names[idx].fn = f;
  return 1;
}

/* ---- runtime ------------------------------------------------------------ */

static int bc_rt_error(bc_st *s, const bc_node *n, const char *fmt,
                       const char *arg) {
  buf_printf(s->c->err,
             "Runtime error (func=%s, adr=%d): ", s->func ? s->func : "(main)",
             n ? n->adr : 0);
  buf_printf(s->c->err, fmt, arg);
  buf_putc(s->c->err, '\n');
  return BC_ERR;
}

static void bc_rt_warn(bc_st *s, const bc_node *n, const char *msg) {
  buf_printf(s->c->err, "Runtime warning (func=%s, adr=%d): %s\n",
             s->func ? s->func : "(main)", n ? n->adr : 0, msg);
}

/* Maps number-library results to bc's statuses and messages. */
static int bc_num_rc(bc_st *s, const bc_node *n, int rc, const char *div) {
  if (rc == BCN_EDIV) return bc_rt_error(s, n, "%s", div);
  if (rc == BCN_ENEG)
    return bc_rt_error(s, n, "%s", "Square root of a negative number");
  return rc;
}

static bcn *bc_var(bc_st *s, int idx) {
  bc_name *nm = &s->names[idx];
  if (!nm->nv) {
    nm->vals = mem_zalloc(s->c->m, sizeof *nm->vals * 4);
    if (!nm->vals) return NULL;
    nm->nv = 1;
    nm->cv = 4;
  }
  return &nm->vals[nm->nv - 1];
}

static bc_arr *bc_array(bc_st *s, int idx) {
  bc_name *nm = &s->names[idx];
  if (!nm->na) {
    nm->arrs = mem_zalloc(s->c->m, sizeof *nm->arrs * 4);
    if (!nm->arrs) return NULL;
    nm->arrs[0] = mem_zalloc(s->c->m, sizeof **nm->arrs);
    if (!nm->arrs[0]) return NULL;
    nm->na = 1;
    nm->ca = 4;
  }
  return nm->arrs[nm->na - 1];
}

/* The element cell (created when create is set, else NULL if unset). */
static int bc_elem(bc_st *s, bc_arr *ar, int64_t i, int create, bcn **out) {
  int64_t b = i / BC_ABLK;
  *out = NULL;
  if (b >= ar->nblk) {
    bcn **nb;
    if (!create) return 0;
    nb = mem_realloc(s->c->m, ar->blk, sizeof *nb * (size_t)(b + 1));
    if (!nb) return MSB_ENOMEM;
    memset(nb + ar->nblk, 0, sizeof *nb * (size_t)(b + 1 - ar->nblk));
    ar->blk = nb;
    ar->nblk = (int)b + 1;
  }
  if (!ar->blk[b]) {
    if (!create) return 0;
    ar->blk[b] = mem_zalloc(s->c->m, sizeof **ar->blk * BC_ABLK);
    if (!ar->blk[b]) return MSB_ENOMEM;
  }
  *out = &ar->blk[b][i % BC_ABLK];
  return 0;
}

static void bc_arr_free(bc_st *s, bc_arr *ar) {
  int b, k;
  if (!ar) return;
  for (b = 0; b < ar->nblk; b++) {
    if (!ar->blk[b]) continue;
    for (k = 0; k < BC_ABLK; k++) bcn_free(&s->e, &ar->blk[b][k]);
    mem_free(s->c->m, ar->blk[b]);
  }
  mem_free(s->c->m, ar->blk);
  mem_free(s->c->m, ar);
}

static int bc_eval(bc_st *s, bc_node *n, bcn *out);

/* Array subscript of n (BN_ARR) as an index, or BC_ERR after a message. */
static int bc_subscript(bc_st *s, bc_node *n, int64_t *idx) {
  bcn v;
  int rc = bc_eval(s, n->a, &v);
  if (rc) return rc;
  *idx = bcn_to_long(&v);
  bcn_free(&s->e, &v);
  if (*idx < 0 || *idx > BC_DIM_MAX)
    return bc_rt_error(s, n, "Array %s subscript out of bounds.",
                       s->names[n->idx].name);
  return 0;
}

/* For a store: the subscript's value, checked later at the store (GNU
 * reports a bad one there, after the value is computed). */
static int bc_subscript_value(bc_st *s, bc_node *n, int64_t *idx) {
  bcn v;
  int rc = bc_eval(s, n->a, &v);
  if (rc) return rc;
  *idx = bcn_to_long(&v);
  bcn_free(&s->e, &v);
  return 0;
}

/* Reads a named expression's value (a copy). */
static int bc_load_named(bc_st *s, bc_node *n, bcn *out) {
  bcn *cell;
  bc_arr *ar;
  int64_t i;
  int rc;
  switch (n->kind) {
  case BN_VAR:
    if (!(cell = bc_var(s, n->idx))) return MSB_ENOMEM;
    return bcn_copy(&s->e, cell, out);
  case BN_ARR:
    if ((rc = bc_subscript(s, n, &i))) return rc;
    if (!(ar = bc_array(s, n->idx))) return MSB_ENOMEM;
    if ((rc = bc_elem(s, ar, i, 0, &cell))) return rc;
    if (!cell) return bcn_from_long(&s->e, 0, out);
    return bcn_copy(&s->e, cell, out);
  case BN_SCALE: return bcn_from_long(&s->e, s->scale, out);
  case BN_IBASE: return bcn_from_long(&s->e, s->ibase, out);
  case BN_OBASE: return bcn_from_long(&s->e, s->obase, out);
  default: return bcn_copy(&s->e, &s->last, out);
  }
}

/* Clamps a value stored into scale, ibase or obase, with GNU's warnings. */
static int bc_store_special(bc_st *s, bc_node *at, int kind, const bcn *v) {
  int64_t x = bcn_to_long(v);
  if (kind == BN_SCALE) {
    if (x < 0) bc_rt_warn(s, at, "negative scale, set to 0");
    if (x > 2147483647L)
      bc_rt_warn(s, at, "scale too large, set to 2147483647");
    s->scale = x < 0 ? 0 : x > 2147483647L ? 2147483647 : (int)x;
  } else if (kind == BN_IBASE) {
    if (x < 2) bc_rt_warn(s, at, "ibase too small, set to 2");
    if (x > 36) bc_rt_warn(s, at, "ibase too large, set to 36");
    s->ibase = x < 2 ? 2 : x > 36 ? 36 : (int)x;
  } else {
    if (x < 2) bc_rt_warn(s, at, "obase too small, set to 2");
    if (x > 2147483647L)
      bc_rt_warn(s, at, "obase too large, set to 2147483647");
    s->obase = x < 2 ? 2 : x > 2147483647L ? 2147483647 : (int)x;
  }
  return 0;
}

/* Stores v (taken over) into the named expression n; at gives the
 * address for warnings. An array subscript is evaluated again only when
 * sub is NULL. */
static int bc_store(bc_st *s, bc_node *n, bc_node *at, const int64_t *sub,
                    bcn *v) {
  bcn *cell;
  bc_arr *ar;
  int64_t i;
  int rc;
  switch (n->kind) {
  case BN_VAR:
    if (!(cell = bc_var(s, n->idx))) return MSB_ENOMEM;
    break;
  case BN_ARR:
    if (sub) {
      i = *sub;
    } else if ((rc = bc_subscript(s, n, &i))) {
      return rc;
    }
    if (!(ar = bc_array(s, n->idx))) return MSB_ENOMEM;
    if ((rc = bc_elem(s, ar, i, 1, &cell))) return rc;
    break;
  case BN_LAST: cell = &s->last; break;
  default:
    rc = bc_store_special(s, at, n->kind, v);
    bcn_free(&s->e, v);
    return rc;
  }
  bcn_free(&s->e, cell);
  *cell = *v;
  memset(v, 0, sizeof *v);
  return 0;
}

/* a OP b for the arithmetic operators. */
static int bc_arith(bc_st *s, bc_node *n, int op, const bcn *a, const bcn *b,
                    bcn *out) {
  bcn t;
  int rc;
  switch (op) {
  case '+': return bcn_add(&s->e, a, b, 0, out);
  case '-': return bcn_add(&s->e, a, b, 1, out);
  case '*': return bcn_mul(&s->e, a, b, s->scale, out);
  case '/':
    return bc_num_rc(s, n, bcn_div(&s->e, a, b, s->scale, out),
                     "Divide by zero");
  case '%':
    return bc_num_rc(s, n, bcn_mod(&s->e, a, b, s->scale, out),
                     "Modulo by zero");
  default:
    if (b->scale && b->n) {
      int k, frac = 0;
      for (k = 0; k < b->scale && k < b->n; k++) frac |= b->d[k];
      if (frac) bc_rt_warn(s, n, "non-zero scale in exponent");
    }
    if (bcn_to_long(b) > 2147483647L || bcn_to_long(b) < -2147483647L)
      return bc_rt_error(s, n, "%s", "exponent too large in raise");
    if (!a->n && b->neg && bcn_to_long(b))
      return bc_rt_error(s, n, "%s", "divide by zero");
    rc = bcn_pow(&s->e, a, b, s->scale, &t);
    if (!rc) *out = t;
    return rc;
  }
}

static int bc_rel(int op, int cmp) {
  switch (op) {
  case BT_EQ: return cmp == 0;
  case BT_NE: return cmp != 0;
  case '<': return cmp < 0;
  case BT_LE: return cmp <= 0;
  case '>': return cmp > 0;
  default: return cmp >= 0;
  }
}

static int bc_assign(bc_st *s, bc_node *n, bcn *out) {
  bcn old, v, r;
  int64_t sub = 0;
  int rc;
  if (n->a->kind == BN_ARR &&
      (rc = n->op == '=' ? bc_subscript_value(s, n->a, &sub)
                         : bc_subscript(s, n->a, &sub)))
    return rc;
  if ((rc = bc_eval(s, n->b, &v))) return rc;
  if (n->a->kind == BN_ARR && (sub < 0 || sub > BC_DIM_MAX)) {
    bcn_free(&s->e, &v);
    return bc_rt_error(s, n, "Array %s subscript out of bounds.",
                       s->names[n->a->idx].name);
  }
  if (n->op != '=') {
    bc_node tmp = *n->a;
    if (tmp.kind == BN_ARR) { /* read the element already subscripted */
      bcn *cell;
      bc_arr *ar = bc_array(s, tmp.idx);
      if (!ar) return MSB_ENOMEM;
      if ((rc = bc_elem(s, ar, sub, 0, &cell))) return rc;
      rc = cell ? bcn_copy(&s->e, cell, &old) : bcn_from_long(&s->e, 0, &old);
    } else {
      rc = bc_load_named(s, n->a, &old);
    }
    if (!rc) rc = bc_arith(s, n, n->op, &old, &v, &r);
    bcn_free(&s->e, &old);
    bcn_free(&s->e, &v);
    if (rc) return rc;
    v = r;
  }
  if ((rc = bcn_copy(&s->e, &v, out))) {
    bcn_free(&s->e, &v);
    return rc;
  }
  rc = bc_store(s, n->a, n, &sub, &v);
  bcn_free(&s->e, &v);
  if (!rc && n->a->kind >= BN_SCALE && n->a->kind <= BN_OBASE) {
    bcn_free(&s->e, out);
    rc = bc_load_named(s, n->a, out);
  }
  if (rc) bcn_free(&s->e, out);
  return rc;
}

/* ++x, --x, x++, x-- */
static int bc_incdec(bc_st *s, bc_node *n, bcn *out) {
  bcn old, one, v;
  int64_t sub = 0;
  int rc;
  if (n->a->kind == BN_ARR && (rc = bc_subscript_value(s, n->a, &sub)))
    return rc;
  if (n->a->kind == BN_ARR && (sub < 0 || sub > BC_DIM_MAX))
    return bc_rt_error(s, n->a, "Array %s subscript out of bounds.",
                       s->names[n->a->idx].name);
  if (n->a->kind == BN_ARR) {
    bcn *cell;
    bc_arr *ar = bc_array(s, n->a->idx);
    if (!ar) return MSB_ENOMEM;
    if ((rc = bc_elem(s, ar, sub, 0, &cell))) return rc;
    rc = cell ? bcn_copy(&s->e, cell, &old) : bcn_from_long(&s->e, 0, &old);
  } else {
    rc = bc_load_named(s, n->a, &old);
  }
  if (rc) return rc;
  if ((rc = bcn_from_long(&s->e, 1, &one))) goto done;
  rc = bcn_add(&s->e, &old, &one, n->op == '-', &v);
  bcn_free(&s->e, &one);
  if (rc) goto done;
  rc = bcn_copy(&s->e, n->kind == BN_PREINC ? &v : &old, out);
  if (!rc && (rc = bc_store(s, n->a, n, &sub, &v))) bcn_free(&s->e, out);
  bcn_free(&s->e, &v);
done:
  bcn_free(&s->e, &old);
  return rc;
}

static int bc_exec_list(bc_st *s, bc_node *n);

/* Pushes a fresh value (or array) for each parameter and auto. */
static int bc_push(bc_st *s, int code, bcn *val, bc_arr *arr) {
  bc_name *nm = &s->names[code < 0 ? -code - 1 : code];
  if (code >= 0) {
    if (!bc_var(s, code)) return MSB_ENOMEM;
    if (nm->nv == nm->cv) {
      bcn *nv = mem_realloc(s->c->m, nm->vals, sizeof *nv * 2 * (size_t)nm->cv);
      if (!nv) return MSB_ENOMEM;
      nm->vals = nv;
      nm->cv *= 2;
    }
    memset(&nm->vals[nm->nv], 0, sizeof *nm->vals);
    if (val) nm->vals[nm->nv] = *val;
    nm->nv++;
    return 0;
  }
  if (!bc_array(s, -code - 1)) return MSB_ENOMEM;
  if (nm->na == nm->ca) {
    bc_arr **na =
        mem_realloc(s->c->m, nm->arrs, sizeof *na * 2 * (size_t)nm->ca);
    if (!na) return MSB_ENOMEM;
    nm->arrs = na;
    nm->ca *= 2;
  }
  if (!arr && !(arr = mem_zalloc(s->c->m, sizeof *arr))) return MSB_ENOMEM;
  nm->arrs[nm->na++] = arr;
  return 0;
}

static void bc_pop(bc_st *s, int code) {
  bc_name *nm = &s->names[code < 0 ? -code - 1 : code];
  if (code >= 0)
    bcn_free(&s->e, &nm->vals[--nm->nv]);
  else
    bc_arr_free(s, nm->arrs[--nm->na]);
}

/* A copy of array idx (for passing an array by value). */
static int bc_arr_dup(bc_st *s, int idx, bc_arr **out) {
  bc_arr *src = bc_array(s, idx), *d;
  int b, k, rc;
  if (!src || !(d = mem_zalloc(s->c->m, sizeof *d))) return MSB_ENOMEM;
  *out = d;
  if (!src->nblk) return 0;
  d->blk = mem_zalloc(s->c->m, sizeof *d->blk * (size_t)src->nblk);
  if (!d->blk) return MSB_ENOMEM;
  d->nblk = src->nblk;
  for (b = 0; b < src->nblk; b++) {
    if (!src->blk[b]) continue;
    d->blk[b] = mem_zalloc(s->c->m, sizeof **d->blk * BC_ABLK);
    if (!d->blk[b]) return MSB_ENOMEM;
    for (k = 0; k < BC_ABLK; k++)
      if (src->blk[b][k].n &&
          (rc = bcn_copy(&s->e, &src->blk[b][k], &d->blk[b][k])))
        return rc;
  }
  return 0;
}

/* Evaluates the arguments, binds them, runs the body. */
static int bc_call(bc_st *s, bc_node *n, bcn *out) {
  bc_func *f = &s->names[n->idx].fn;
  bc_node *arg;
  bcn *vals;
  bc_arr **arrs;
  const char *saved = s->func;
  int i, rc = 0, pushed = 0;
  uint32_t maxd = s->c->lim ? s->c->lim->max_call_depth : 0;
  if (!f->defined)
    return bc_rt_error(s, n, "Function %s not defined.", s->names[n->idx].name);
  vals = arena_zalloc(s->c->a, sizeof *vals * (size_t)(n->op + 1));
  arrs = arena_zalloc(s->c->a, sizeof *arrs * (size_t)(n->op + 1));
  if (!vals || !arrs) return MSB_ENOMEM;
  for (i = 0, arg = n->a; arg; arg = arg->next, i++) {
    int want_arr = i < f->nparam && f->param[i] < 0;
    if ((arg->kind == BN_ARRARG) != want_arr && i < f->nparam) {
      bc_node at = *n;
      at.adr = n->adr + 1 + i;
      bc_rt_error(
          s, &at, "Parameter type mismatch parameter %s.",
          s->names[f->param[i] < 0 ? -f->param[i] - 1 : f->param[i]].name);
      rc = BC_ERR;
    } else if (arg->kind == BN_ARRARG) {
      rc = bc_arr_dup(s, arg->idx, &arrs[i]);
    } else {
      rc = bc_eval(s, arg, &vals[i]);
    }
    if (rc) break;
  }
  if (rc != BC_ERR && rc) goto unwind;
  if (rc == BC_ERR || n->op != f->nparam) {
    bc_node at = *n;
    at.adr = n->adr + 1 + n->op;
    if (rc == BC_ERR || n->op != f->nparam) {
      rc = bc_rt_error(s, &at, "%s", "Parameter number mismatch");
      goto unwind;
    }
  }
  if (s->depth >= BC_MAX_DEPTH || (maxd && (uint32_t)s->depth >= maxd)) {
    cmd_err(s->c, "function call nesting too deep (%s)", s->names[n->idx].name);
    rc = BC_FATAL;
    goto unwind;
  }
  if ((rc = cmd_tick(s->c, 1))) goto unwind;
  for (i = 0; i < f->nparam; i++, pushed++)
    if ((rc = bc_push(s, f->param[i], &vals[i], arrs[i])))
      goto unwind;
    else
      memset(&vals[i], 0, sizeof vals[i]), arrs[i] = NULL;
  for (i = 0; i < f->nauto; i++, pushed++)
    if ((rc = bc_push(s, f->autov[i], NULL, NULL))) goto unwind;
  s->func = s->names[n->idx].name;
  s->depth++;
  rc = bc_exec_list(s, f->body ? f->body->a : NULL);
  s->depth--;
  s->func = saved;
  if (rc == BC_RET) {
    *out = s->ret;
    memset(&s->ret, 0, sizeof s->ret);
    rc = 0;
  } else if (rc == BC_OK) {
    rc = bcn_from_long(&s->e, 0, out);
  }
unwind:
  while (pushed > 0) {
    pushed--;
    bc_pop(s, pushed < f->nparam ? f->param[pushed]
                                 : f->autov[pushed - f->nparam]);
  }
  for (i = 0; i < n->op; i++) {
    bcn_free(&s->e, &vals[i]);
    bc_arr_free(s, arrs[i]);
  }
  return rc;
}

static int bc_eval2(bc_st *s, bc_node *n, bcn *a, bcn *b) {
  int rc = bc_eval(s, n->a, a);
  if (rc) return rc;
  if ((rc = bc_eval(s, n->b, b))) bcn_free(&s->e, a);
  return rc;
}

static int bc_eval(bc_st *s, bc_node *n, bcn *out) {
  bcn a, b;
  int rc;
  memset(out, 0, sizeof *out);
  switch (n->kind) {
  case BN_NUM:
    if (n->cache_base != s->ibase) {
      bcn_free(&s->e, &n->cache);
      if ((rc = bcn_parse(&s->e, n->text, s->ibase, &n->cache))) return rc;
      n->cache_base = s->ibase;
    }
    return bcn_copy(&s->e, &n->cache, out);
  case BN_VAR:
  case BN_ARR:
  case BN_SCALE:
  case BN_IBASE:
  case BN_OBASE:
  case BN_LAST: return bc_load_named(s, n, out);
  case BN_BIN:
    if ((rc = bc_eval2(s, n, &a, &b))) return rc;
    rc = bc_arith(s, n, n->op, &a, &b, out);
    break;
  case BN_REL:
    if ((rc = bc_eval2(s, n, &a, &b))) return rc;
    rc = bcn_from_long(&s->e, bc_rel(n->op, bcn_cmp(&a, &b)), out);
    break;
  case BN_AND:
  case BN_OR:
    if ((rc = bc_eval(s, n->a, &a))) return rc;
    if (bcn_is_zero(&a) == (n->kind == BN_AND)) {
      bcn_free(&s->e, &a);
      return bcn_from_long(&s->e, n->kind == BN_OR, out);
    }
    bcn_free(&s->e, &a);
    if ((rc = bc_eval(s, n->b, &a))) return rc;
    rc = bcn_from_long(&s->e, !bcn_is_zero(&a), out);
    bcn_free(&s->e, &a);
    return rc;
  case BN_NEG:
  case BN_NOT:
    if ((rc = bc_eval(s, n->a, &a))) return rc;
    if (n->kind == BN_NOT) {
      rc = bcn_from_long(&s->e, bcn_is_zero(&a), out);
      bcn_free(&s->e, &a);
      return rc;
    }
    a.neg = !a.neg && a.n;
    *out = a;
    return 0;
  case BN_ASSIGN: return bc_assign(s, n, out);
  case BN_PREINC:
  case BN_POSTINC: return bc_incdec(s, n, out);
  case BN_CALL: return bc_call(s, n, out);
  case BN_LENGTH:
  case BN_SCALEF:
  case BN_SQRT:
    if ((rc = bc_eval(s, n->a, &a))) return rc;
    if (n->kind == BN_SQRT)
      rc = bc_num_rc(s, n, bcn_sqrt(&s->e, &a, s->scale, out), "");
    else
      rc = bcn_from_long(&s->e, n->kind == BN_LENGTH ? bcn_length(&a) : a.scale,
                         out);
    bcn_free(&s->e, &a);
    return rc;
  default: return bc_perror(s, "syntax error"), BC_ERR;
  }
  bcn_free(&s->e, &a);
  bcn_free(&s->e, &b);
  return rc;
}

/* Writes text with bc's column count; escapes when print asks. */
static int bc_put_text(bc_st *s, const char *t, int escapes) {
  for (; *t; t++) {
    int ch = (unsigned char)*t;
    if (escapes && ch == '\\' && t[1]) {
      const char *from = "abfnqrt\\", *to = "\a\b\f\n\"\r\t\\";
      const char *hit = strchr(from, t[1]);
      if (hit) {
        ch = to[hit - from];
        t++;
      }
    }
    if (buf_putc(s->c->out, ch)) return MSB_ENOMEM;
    s->col = ch == '\n' ? 0 : s->col + 1;
  }
  return 0;
}

static int bc_print_num(bc_st *s, const bcn *v) {
  return bcn_print(&s->e, v, s->obase, s->c->out, &s->col, s->linelen);
}

static int bc_exec(bc_st *s, bc_node *n);

static int bc_exec_list(bc_st *s, bc_node *n) {
  int rc = 0;
  for (; n && !rc; n = n->next) rc = bc_exec(s, n);
  return rc;
}

/* Evaluates a condition: 1 true, 0 false, or a status through *rc. */
static int bc_test(bc_st *s, bc_node *n, int *rc) {
  bcn v;
  int t;
  if (!n) return 1;
  if ((*rc = bc_eval(s, n, &v))) return 0;
  t = !bcn_is_zero(&v);
  bcn_free(&s->e, &v);
  return t;
}

/* Runs an expression for its side effects. */
static int bc_run_expr(bc_st *s, bc_node *n) {
  bcn v;
  int rc;
  if (!n) return 0;
  if ((rc = bc_eval(s, n, &v))) return rc;
  bcn_free(&s->e, &v);
  return 0;
}

static int bc_loop(bc_st *s, bc_node *cond, bc_node *body, bc_node *incr) {
  int rc = 0;
  while (bc_test(s, cond, &rc)) {
    if ((rc = cmd_tick(s->c, 1))) return rc;
    rc = bc_exec(s, body);
    if (rc == BC_BREAK) return 0;
    if (rc && rc != BC_CONT) return rc;
    if ((rc = bc_run_expr(s, incr))) return rc;
  }
  return rc;
}

static int bc_limits(bc_st *s) {
  return buf_puts(s->c->out,
                  "BC_BASE_MAX     = 2147483647\n"
                  "BC_DIM_MAX      = 16777215\n"
                  "BC_SCALE_MAX    = 2147483647\n"
                  "BC_STRING_MAX   = 2147483647\n"
                  "MAX Exponent    = 9223372036854775807\n"
                  "Number of vars  = 32767\n")
             ? MSB_ENOMEM
             : 0;
}

static int bc_exec(bc_st *s, bc_node *n) {
  bcn v;
  int rc = 0;
  if (!n) return 0;
  switch (n->kind) {
  case BS_EXPR:
    if ((rc = bc_eval(s, n->a, &v))) return rc;
    if (!n->print || (n->a->kind == BN_CALL && !n->a->paren &&
                      s->names[n->a->idx].fn.isvoid)) {
      bcn_free(&s->e, &v);
      return 0;
    }
    if (!(rc = bc_print_num(s, &v))) rc = bcn_putc(s->c->out, '\n', &s->col, 0);
    bcn_free(&s->e, &s->last);
    s->last = v;
    return rc;
  case BS_STR: return bc_put_text(s, n->text, 0);
  case BS_PRINT:
    for (n = n->a; n && !rc; n = n->next) {
      if (n->kind == BS_STR) {
        rc = bc_put_text(s, n->text, 1);
      } else if (!(rc = bc_eval(s, n, &v))) {
        rc = bc_print_num(s, &v);
        bcn_free(&s->e, &s->last);
        s->last = v;
      }
    }
    return rc;
  case BS_IF:
    if (bc_test(s, n->a, &rc)) return bc_exec(s, n->b);
    return rc ? rc : bc_exec(s, n->x);
  case BS_WHILE: return bc_loop(s, n->a, n->b, NULL);
  case BS_FOR:
    if ((rc = bc_run_expr(s, n->a))) return rc;
    return bc_loop(s, n->b, n->y, n->x);
  case BS_BREAK: return BC_BREAK;
  case BS_CONT: return BC_CONT;
  case BS_RETURN:
    bcn_free(&s->e, &s->ret);
    if (n->a && (rc = bc_eval(s, n->a, &s->ret))) return rc;
    if (!n->a && (rc = bcn_from_long(&s->e, 0, &s->ret))) return rc;
    return BC_RET;
  case BS_HALT: return BC_HALT;
  case BS_LIMITS: return bc_limits(s);
  case BS_BLOCK: return bc_exec_list(s, n->a);
  default: return 0;
  }
}

/* ---- driver ------------------------------------------------------------- */

/* Skips the rest of a line after a syntax error. */
static void bc_recover(bc_st *s) {
  while (s->tok != BT_NL && s->tok != BT_EOF) bc_next(s);
}

/* Parses and runs one source (a file, stdin or the library). Returns 0,
 * BC_HALT (halt or quit: stop everything) or a negative code. */
static int bc_run_source(bc_st *s, const char *name, const uint8_t *d,
                         size_t len) {
  s->file = name;
  s->src = s->p = (const char *)d;
  s->end = s->src + len;
  s->line = 1;
  bc_next(s);
  while (s->tok != BT_EOF) {
    bc_node *head = NULL, **tail = &head;
    int rc;
    s->perr = 0;
    s->pc = 0;
    s->nest = 0;
    for (;;) { /* one line: statements and definitions up to a newline */
      bc_node *st;
      if (s->tok == BT_DEFINE && !head) {
        if (!bc_define(s)) break;
        continue;
      }
      st = bc_stmt(s);
      if (s->perr) break;
      if (st) {
        *tail = st;
        tail = &st->next;
      }
      if (s->tok == ';') {
        bc_next(s);
        continue;
      }
      if (s->tok != BT_NL) bc_perror(s, "syntax error");
      break;
    }
    if (s->quit) return BC_HALT;
    if (s->perr) {
      if (s->tok != BT_NL) bc_recover(s);
      if (s->tok == BT_NL) bc_next(s);
      continue;
    }
    bc_next(s);
    s->func = NULL;
    rc = bc_exec_list(s, head);
    if (rc == BC_HALT || rc == BC_FATAL || rc < 0) return rc;
    if ((rc = cmd_tick(s->c, 1))) return rc;
  }
  return 0;
}

static void bc_free_all(bc_st *s) {
  int i;
  for (i = 0; i < s->nnames; i++) {
    bc_name *nm = &s->names[i];
    while (nm->nv > 0) bcn_free(&s->e, &nm->vals[--nm->nv]);
    while (nm->na > 0) bc_arr_free(s, nm->arrs[--nm->na]);
    mem_free(s->c->m, nm->vals);
    mem_free(s->c->m, nm->arrs);
  }
  mem_free(s->c->m, s->names);
  for (; s->nums; s->nums = s->nums->numnext) bcn_free(&s->e, &s->nums->cache);
  bcn_free(&s->e, &s->last);
  bcn_free(&s->e, &s->ret);
}

/* BC_LINE_LENGTH from the environment: 0 for no breaks, 70 by default. */
static int bc_line_length(cmd_ctx *c) {
  const char *s = cmd_getenv(c, "BC_LINE_LENGTH", 14);
  int64_t v;
  if (!s || cmd_parse_int(s, &v) || v < 0 || v > 1000000) return 70;
  return v && v < 3 ? 70 : (int)v;
}

/* Entry point: see the usage above. */
int cmd_bc(cmd_ctx *c) {
  cmd_getopt g;
  bc_st s;
  int k, i, mathlib = 0, rc = 0;
  size_t err0 = c->err->len;
  cmd_opt_init(&g, c, bc_opts, bc_usage, CMD_OPTF_NOHELP);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'h') return buf_puts(c->out, cold_get(bc_usage)) ? MSB_ENOMEM : 0;
    if (k == 'v')
      return buf_puts(c->out,
                      "bc 1.07.1\nCopyright 1991-1994, 1997, 1998, "
                      "2000, 2004, 2006, 2008, 2012-2017 Free "
                      "Software Foundation, Inc.\n")
                 ? MSB_ENOMEM
                 : 0;
    if (k == 'l') mathlib = 1;
    if (k == 's' || k == 'w') {
      cmd_err(c, "-%c is not supported in memsandbox", k);
      return 1;
    }
  }
  if (k == CMD_OPT_ERR) { /* GNU bc follows getopt's line with its usage */
    const char *e = buf_str(c->err) + err0, *try = strstr(e, "Try '");
    if (try) buf_truncate(c->err, err0 + (size_t)(try - e));
    return buf_puts(c->out, cold_get(bc_usage)) ? MSB_ENOMEM : 1;
  }
  if (k < 0) return k;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.e.c = c;
  s.ibase = s.obase = 10;
  s.linelen = bc_line_length(c);
  if (mathlib) {
    buf *out = c->out;
    rc = bc_run_source(&s, "(library)", (const uint8_t *)cold_get(bc_mathlib),
                       sizeof bc_mathlib - 1);
    c->out = out;
    s.scale = 20;
  }
  for (i = 0; i < g.nops && rc == 0; i++) {
    const uint8_t *d;
    size_t len;
    if (cmd_input(c, g.ops[i], &d, &len)) {
      buf_printf(c->err, "File %s is unavailable.\n", g.ops[i]);
      bc_free_all(&s);
      return 1;
    }
    rc = bc_run_source(&s, g.ops[i], d, len);
  }
  if (rc == 0) {
    int in_rc = c->in_err;
    if (in_rc)
      c->in_failed = 1;
    else
      rc = bc_run_source(&s, "(standard_in)", c->in, c->in_len);
    c->in_used = c->in_len;
    c->in_eof = 1;
  }
  bc_free_all(&s);
  if (rc == BC_HALT) rc = 0;
  return rc == BC_FATAL ? 1 : rc;
}
