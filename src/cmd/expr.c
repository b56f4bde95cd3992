/* expr.c - evaluate expressions (GNU coreutils 9).
 *
 * Usage: expr EXPRESSION
 * Operators by increasing precedence: |, &, < <= = == != >= >, + -,
 * * / %, : (regex match anchored at the start, BRE), and the keywords
 * match, substr, index, length and +TOKEN, with parentheses. Exit status
 * 0 if the value is neither null nor 0, 1 if it is, 2 for an invalid
 * expression, 3 for other errors. Integers are 64-bit: GNU uses bignums,
 * so where it would print a number beyond 64 bits we report an overflow. */
#include <stdio.h>
#include <string.h>

#include "../regex.h"
#include "cmd.h"

typedef struct expr_val {
  const char *s; /* string form (arena); NULL when is_int */
  int64_t i;
  int is_int;
} expr_val;

/* Deepest nesting of ( ) and keywords; GNU has none and runs out of
 * stack at some depth, we say so instead (and keep the stack small). */
#define EXPR_MAX_DEPTH 128

typedef struct expr_p {
  cmd_ctx *c;
  char **av;
  int n, pos;
  int err; /* exit status 2/3 when set, or a negative MSB_E* code */
  int depth;
} expr_p;

static expr_val expr_or(expr_p *p);

static int expr_fail(expr_p *p, int status, const char *msg, const char *arg) {
  if (!p->err) {
    if (arg)
      cmd_err(p->c, "%s %s", msg, cmd_quote(p->c, arg));
    else
      cmd_err(p->c, "%s", msg);
    p->err = status;
  }
  return 0;
}

static expr_val expr_int(int64_t v) {
  expr_val r = {NULL, v, 1};
  return r;
}

static expr_val expr_str(const char *s) {
  expr_val r = {s, 0, 0};
  return r;
}

/* The value as text (arena). */
static const char *expr_text(expr_p *p, expr_val v) {
  char tmp[32];
  const char *r;
  if (!v.is_int) return v.s;
  snprintf(tmp, sizeof tmp, "%lld", (long long)v.i);
  r = arena_strdup(p->c->a, tmp);
  return r ? r : "";
}

/* Converts to an integer if the text is one ("-5", "007"). */
static int expr_to_int(expr_val v, int64_t *out) {
  const char *s = v.s;
  if (v.is_int) {
    *out = v.i;
    return 1;
  }
  if (*s == '-' || *s == '+') s++;
  if (!*s || strspn(s, "0123456789") != strlen(s) || v.s[0] == '+') return 0;
  return !cmd_parse_int(v.s, out);
}

static int expr_null(expr_val v) {
  int64_t i;
  if (v.is_int) return v.i == 0;
  if (!*v.s) return 1;
  return expr_to_int(v, &i) && i == 0;
}

static const char *expr_peek(expr_p *p) {
  return p->pos < p->n ? p->av[p->pos] : NULL;
}

static int expr_accept(expr_p *p, const char *tok) {
  if (p->pos < p->n && !strcmp(p->av[p->pos], tok)) {
    p->pos++;
    return 1;
  }
  return 0;
}

static expr_val expr_primary(expr_p *p);

/* The operand after a keyword or operator; reports a missing one. */
static expr_val expr_need(expr_p *p, const char *after) {
  if (p->pos >= p->n) {
    char msg[64];
    snprintf(msg, sizeof msg, "syntax error: missing argument after");
    expr_fail(p, 2, msg, after);
    return expr_str("");
  }
  return expr_primary(p);
}

static expr_val expr_match(expr_p *p, expr_val a, expr_val b) {
  const char *s = expr_text(p, a), *pat = expr_text(p, b);
  rx *r = NULL;
  buf msg;
  rx_match m[2];
  int rc;
  buf_init(&msg, p->c->m);
  rc = rx_compile(p->c->m, pat, strlen(pat), RX_BRE, &r, &msg);
  if (rc) {
    if (rc == MSB_EINVAL)
      expr_fail(p, 2, buf_str(&msg), NULL);
    else
      p->err = rc;
    buf_finish(&msg);
    return expr_str("");
  }
  buf_finish(&msg);
  rc = cmd_rx_exec(p->c, r, (const uint8_t *)s, strlen(s), 0, 0, m, 2);
  if (rc < 0) p->err = rc;
  if (rc == 1 && m[0].so != 0) rc = 0;
  if (rx_nsub(r) > 0) {
    expr_val v = expr_str("");
    if (rc == 1 && m[1].so >= 0)
      v.s = arena_strndup(p->c->a, s + m[1].so, (size_t)(m[1].eo - m[1].so));
    rx_free(r);
    if (!v.s) v.s = "";
    return v;
  }
  rx_free(r);
  return expr_int(rc == 1 ? m[0].eo : 0);
}

static expr_val expr_primary_run(expr_p *p);

static expr_val expr_primary(expr_p *p) {
  expr_val v;
  if (p->depth >= EXPR_MAX_DEPTH) {
    expr_fail(p, 2, "syntax error: expression nested too deeply", NULL);
    return expr_str("");
  }
  p->depth++;
  v = expr_primary_run(p);
  p->depth--;
  return v;
}

static expr_val expr_primary_run(expr_p *p) {
  const char *t = expr_peek(p);
  if (p->err) return expr_str("");
  if (!t) {
    expr_fail(p, 2, "syntax error: missing argument after",
              p->pos ? p->av[p->pos - 1] : "");
    return expr_str("");
  }
  if (!strcmp(t, "(")) {
    expr_val v;
    p->pos++;
    v = expr_or(p);
    if (!expr_accept(p, ")")) {
      if (p->pos < p->n)
        expr_fail(p, 2, "syntax error: expecting ')' instead of",
                  p->av[p->pos]);
      else
        expr_fail(p, 2, "syntax error: expecting ')' after", p->av[p->pos - 1]);
    }
    return v;
  }
  if (!strcmp(t, "+")) {
    p->pos++;
    if (p->pos >= p->n) return expr_need(p, "+");
    return expr_str(p->av[p->pos++]);
  }
  if (!strcmp(t, "length")) {
    const char *s;
    p->pos++;
    s = expr_text(p, expr_need(p, "length"));
    return expr_int((int64_t)strlen(s));
  }
  if (!strcmp(t, "match")) {
    expr_val a, b;
    p->pos++;
    a = expr_need(p, "match");
    b = expr_need(p, p->av[p->pos - 1]);
    return expr_match(p, a, b);
  }
  if (!strcmp(t, "index")) {
    const char *s, *chars;
    size_t i;
    p->pos++;
    s = expr_text(p, expr_need(p, "index"));
    chars = expr_text(p, expr_need(p, p->av[p->pos - 1]));
    for (i = 0; s[i]; i++)
      if (strchr(chars, s[i])) return expr_int((int64_t)i + 1);
    return expr_int(0);
  }
  if (!strcmp(t, "substr")) {
    const char *s;
    int64_t pos, len, sl;
    expr_val a, b;
    p->pos++;
    s = expr_text(p, expr_need(p, "substr"));
    a = expr_need(p, p->av[p->pos - 1]);
    b = expr_need(p, p->av[p->pos - 1]);
    if (p->err) return expr_str("");
    sl = (int64_t)strlen(s);
    if (!expr_to_int(a, &pos) || !expr_to_int(b, &len) || pos < 1 || len < 1 ||
        pos > sl)
      return expr_str("");
    if (len > sl - pos + 1) len = sl - pos + 1;
    return expr_str(arena_strndup(p->c->a, s + pos - 1, (size_t)len));
  }
  p->pos++;
  return expr_str(t);
}

static expr_val expr_colon(expr_p *p) {
  expr_val a = expr_primary(p);
  while (!p->err && expr_accept(p, ":")) {
    expr_val b = expr_need(p, ":");
    a = expr_match(p, a, b);
  }
  return a;
}

static expr_val expr_arith(expr_p *p, int level) {
  static const char *const ops[2][3] = {{"+", "-", NULL}, {"*", "/", "%"}};
  expr_val a = level ? expr_colon(p) : expr_arith(p, 1);
  for (;;) {
    const char *t = expr_peek(p);
    int k, found = -1;
    int64_t x, y, r = 0;
    expr_val b;
    if (p->err || !t) return a;
    for (k = 0; k < 3; k++)
      if (ops[level][k] && !strcmp(t, ops[level][k])) found = k;
    if (found < 0) return a;
    p->pos++;
    b = p->pos < p->n ? (level ? expr_colon(p) : expr_arith(p, 1))
                      : expr_need(p, t);
    if (p->err) return a;
    if (!expr_to_int(a, &x) || !expr_to_int(b, &y)) {
      expr_fail(p, 2, "non-integer argument", NULL);
      return a;
    }
    if (level && found && y == 0) {
      expr_fail(p, 2, "division by zero", NULL);
      return a;
    }
    if (level == 0 && found == 0 && __builtin_add_overflow(x, y, &r))
      found = -2;
    if (level == 0 && found == 1 && __builtin_sub_overflow(x, y, &r))
      found = -2;
    if (level == 1 && found == 0 && __builtin_mul_overflow(x, y, &r))
      found = -2;
    if (level == 1 && found > 0) {
      if (x == INT64_MIN && y == -1)
        found = -2;
      else
        r = found == 1 ? x / y : x % y;
    }
    if (found == -2) {
      expr_fail(p, 3, "integer result too large for memsandbox's 64-bit expr",
                NULL);
      return a;
    }
    a = expr_int(r);
  }
}

static expr_val expr_cmp(expr_p *p) {
  static const char *const ops[] = {"<", "<=", "=", "==", "!=", ">=", ">"};
  expr_val a = expr_arith(p, 0);
  for (;;) {
    const char *t = expr_peek(p);
    int k, found = -1, c;
    int64_t x, y;
    expr_val b;
    if (p->err || !t) return a;
    for (k = 0; k < 7; k++)
      if (!strcmp(t, ops[k])) found = k;
    if (found < 0) return a;
    p->pos++;
    b = p->pos < p->n ? expr_arith(p, 0) : expr_need(p, t);
    if (p->err) return a;
    if (expr_to_int(a, &x) && expr_to_int(b, &y))
      c = x < y ? -1 : x > y;
    else
      c = strcmp(expr_text(p, a), expr_text(p, b));
    switch (found) {
    case 0: c = c < 0; break;
    case 1: c = c <= 0; break;
    case 2:
    case 3: c = c == 0; break;
    case 4: c = c != 0; break;
    case 5: c = c >= 0; break;
    default: c = c > 0; break;
    }
    a = expr_int(c);
  }
}

static expr_val expr_and(expr_p *p) {
  expr_val a = expr_cmp(p);
  while (!p->err && expr_accept(p, "&")) {
    expr_val b = p->pos < p->n ? expr_cmp(p) : expr_need(p, "&");
    if (expr_null(a) || expr_null(b)) a = expr_int(0);
  }
  return a;
}

static expr_val expr_or(expr_p *p) {
  expr_val a = expr_and(p);
  while (!p->err && expr_accept(p, "|")) {
    expr_val b = p->pos < p->n ? expr_and(p) : expr_need(p, "|");
    if (expr_null(a)) a = expr_null(b) ? expr_int(0) : b;
  }
  return a;
}

/* expr: evaluate the expression given as arguments and print it. */
int cmd_expr(cmd_ctx *c) {
  expr_p p;
  expr_val v;
  int rc, first = 1;
  if (c->argc == 2 && !strcmp(c->argv[1], "--help")) {
    cmd_puts(c, "Usage: expr EXPRESSION\n  or:  expr OPTION\n");
    return 0;
  }
  if (c->argc > 1 && !strcmp(c->argv[1], "--")) first = 2;
  p.c = c;
  p.av = c->argv + first;
  p.n = c->argc - first;
  p.pos = 0;
  p.err = 0;
  p.depth = 0;
  if (p.n == 0) {
    cmd_err(c, "missing operand");
    buf_puts(c->err, "Try 'expr --help' for more information.\n");
    return 2;
  }
  v = expr_or(&p);
  if (!p.err && p.pos < p.n)
    expr_fail(&p, 2, "syntax error: unexpected argument", p.av[p.pos]);
  if (p.err) return p.err;
  if ((rc = cmd_outf(c, "%s\n", expr_text(&p, v))) < 0) return rc;
  return expr_null(v);
}
