/* arith.h - bash arithmetic evaluation ($((...)), ((...)), let, array
 * subscripts, declare -i).
 *
 * The evaluator follows bash 5's expr.c exactly: the same operators and
 * precedence, 64-bit two's-complement wrap-around, evaluation during parsing
 * with short-circuit sides parsed but not evaluated (no side effects, no
 * errors such as division by zero), and the same error messages, including
 * the "error token" bash reports.
 *
 * The shell's variables are reached through callbacks, so this module knows
 * nothing about the interpreter. A variable's text value is itself evaluated
 * as an expression (bash: x=y y=3; $((x+1)) is 4); the nesting is bounded
 * (ARITH_MAX_DEPTH) and reported as bash does ("expression recursion level
 * exceeded"). An unset or empty variable is 0.
 *
 * Caller's part: do parameter expansion, command substitution and quote
 * removal on the expression text first (bash expands $x, $(...) inside
 * $((...)) before evaluating), then call arith_eval. */
#ifndef MSB_ARITH_H
#define MSB_ARITH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Nesting bound for variables whose values are expressions. bash allows
 * 1024; we keep the C stack small for wasm. Even, like bash's, so an
 * x=y y=x loop names the same variable in the error. */
#define ARITH_MAX_DEPTH 128

/* A reference to a variable as the expression names it. */
typedef struct arith_ref {
  const char *name; /* not NUL-terminated */
  size_t nlen;
  int kind;         /* ARITH_PLAIN, ARITH_INDEX or ARITH_KEY */
  int64_t index;    /* ARITH_INDEX: the evaluated subscript (may be < 0:
                       bash counts from the end; the callback reports
                       "bad array subscript" itself when out of range) */
  const char *key;  /* ARITH_KEY: the subscript text as written (not
                       NUL-terminated) */
  size_t klen;
} arith_ref;

enum { ARITH_PLAIN = 0, ARITH_INDEX = 1, ARITH_KEY = 2 };

/* The variable interface. Every callback returns 0 or a negative MSB_E*
 * code; on error it writes its full message (without the "bash: line N: "
 * prefix, e.g. "x: readonly variable" or "x: unbound variable") to errmsg,
 * and arith_eval returns that code unchanged. */
typedef struct arith_env {
  void *ctx;
  /* Whether NAME is an associative array: its subscript is then a key (the
   * raw text), not an expression. May be NULL (no associative arrays). */
  int (*is_assoc)(void *ctx, const char *name, size_t nlen);
  /* Gets a value: *val receives the text (borrowed until the next callback)
   * or NULL when unset (then 0 is used, unless the callback itself reports
   * set -u's "unbound variable" error). "a" on an array means "a[0]". */
  int (*get)(void *ctx, const arith_ref *r, const char **val, size_t *vlen,
             buf *errmsg);
  /* Assigns an integer (=, op=, ++, --). */
  int (*set)(void *ctx, const arith_ref *r, int64_t v, buf *errmsg);
  /* Deepest nesting (parentheses, unary and right-associative operators,
   * values that are expressions, together) the caller's native stack
   * allows, each level costing the caller's estimate; 0 leaves only the
   * built-in bounds. Deeper input is the same recursion error. */
  int max_nest;
} arith_env;

/* Evaluates expr[0..len) (NUL bytes are not allowed inside; bash never
 * passes them). On success stores the value in *out and returns 0. On an
 * arithmetic error returns MSB_EINVAL with errmsg holding bash's text
 * without the "bash: line N: " prefix, for example
 *   "1/0: division by 0 (error token is \"0\")"
 * The expression text inside the message is what bash shows: the
 * expression (or the variable's value being evaluated) with leading blanks
 * removed, cut after the bad number for number errors. A callback error is
 * returned unchanged. MSB_ENOMEM when out of memory. work, when not NULL,
 * is charged one unit per token and evaluation stops with MSB_ELIMIT when
 * it would go below zero (the caller reports the limit). Errors never
 * assign partial results beyond what bash also assigns before the error. */
int arith_eval(const arith_env *env, const char *expr, size_t len, int64_t *out,
               buf *errmsg, uint64_t *work);

/* Parses an integer constant as bash does for arithmetic and `declare -i`
 * style checks (decimal, 0x hex, 0 octal, base#digits, optional leading
 * blanks and sign not included): returns 0 and *out, or MSB_EINVAL when s is
 * not exactly one valid constant. For commands that need bash's number
 * rules outside expressions. */
int arith_parse_const(const char *s, size_t len, int64_t *out);

#endif
