/* jq.h - internals shared by the jq command's files (jq*.c).
 *
 * Values are small structs passed by value; strings, arrays and objects
 * live on the sandbox heap with a reference count and are copied on write
 * only when shared. A number keeps its literal text (canonicalised as
 * jq 1.7.1's decNumber prints it) when that differs from the double's
 * shortest form, so unchanged input numbers print as they came.
 * Allocation failure sets rt->oom and yields null; the evaluator checks
 * the flag between steps and stops with MSB_ENOMEM. */
#ifndef MSB_CMD_JQ_H
#define MSB_CMD_JQ_H

#include <stddef.h>
#include <stdint.h>

#include "cmd.h"

enum {
  JV_NULL,
  JV_FALSE,
  JV_TRUE,
  JV_NUMBER,
  JV_STRING,
  JV_ARRAY,
  JV_OBJECT,
  JV_INVALID
};

typedef struct jv {
  int k;
  void *p;  /* jq_str / jq_arr / jq_obj; for numbers the literal jq_str */
  double n;
} jv;

typedef struct jq_str {
  uint32_t rc;
  uint32_t hash; /* 0 until computed */
  size_t len;
  char s[];      /* NUL-terminated */
} jq_str;

typedef struct jq_arr {
  uint32_t rc;
  size_t len, cap;
  jv *v;
} jq_arr;

typedef struct jq_ent {
  jv key; /* JV_INVALID for a deleted slot */
  jv val;
} jq_ent;

typedef struct jq_obj {
  uint32_t rc;
  size_t n, used, cap; /* live entries, slots used, slots allocated */
  jq_ent *e;
  int32_t *idx;        /* open addressing over e, -1 empty; size icap */
  size_t icap;
} jq_obj;

typedef struct jq_rt jq_rt;

/* Runtime state the value functions need. */
struct jq_rt {
  mem *m;
  cmd_ctx *c;
  int oom;
  struct jq_node *lits; /* the program's literals, freed by jq_free_lits */
};

/* Constructors (owned results). */
jv jv_null(void);
jv jv_bool(int b);
jv jv_num(double d);
jv jv_invalid(void);
jv jv_str(jq_rt *R, const char *s, size_t n);
jv jv_cstr(jq_rt *R, const char *s);
jv jv_arr(jq_rt *R);
jv jv_obj(jq_rt *R);
/* Number with literal text (already canonical, n bytes). */
jv jv_num_lit(jq_rt *R, double d, const char *lit, size_t n);

jv jv_ref(jv v);
void jv_unref(jq_rt *R, jv v);

/* Strings: borrowed bytes and length. */
const char *jv_sp(jv v);
size_t jv_sl(jv v);
uint32_t jv_shash(jv v);
/* a + b (both consumed). */
jv jv_scat(jq_rt *R, jv a, jv b);
/* Appends bytes to an owned string (in place when unshared). */
jv jv_sappend(jq_rt *R, jv a, const char *s, size_t n);

/* Arrays. */
size_t jv_alen(jv a);
jv jv_aget(jv a, size_t i); /* borrowed */
void jv_apush(jq_rt *R, jv *a, jv v);   /* consumes v */
void jv_aset(jq_rt *R, jv *a, size_t i, jv v); /* grows with nulls */
jv jv_aslice(jq_rt *R, jv a, size_t from, size_t to);

/* Objects: insertion order kept. */
size_t jv_olen(jv o);
jv *jv_oget(jv o, const char *k, size_t kl); /* borrowed or NULL */
void jv_oset(jq_rt *R, jv *o, jv key, jv v); /* consumes key and v */
void jv_odel(jq_rt *R, jv *o, const char *k, size_t kl);
/* Iteration: *i starts at 0; returns the next live entry or NULL. */
jq_ent *jv_onext(jv o, size_t *i);

/* Makes *v unshared (copy on write) before mutation. */
void jv_own(jq_rt *R, jv *v);

/* Ordering and equality as jq defines them. */
int jv_cmp(jv a, jv b);
int jv_eq(jv a, jv b);
int jv_truthy(jv v);
const char *jv_kind_name(int k);
/* Sorted keys (array of strings). */
jv jv_keys(jq_rt *R, jv o);
/* Sorts an array of values in place (stable). */
void jv_sort(jq_rt *R, jv *a);

/* JSON text. Dump options. */
typedef struct jq_fmt {
  int indent;   /* spaces per level; 0 = compact */
  int tab;      /* indent with one tab per level */
  int ascii;    /* -a: \uXXXX for non-ASCII */
  int sort;     /* -S: keys sorted */
} jq_fmt;
void jv_dump(jq_rt *R, buf *b, jv v, const jq_fmt *f, int level);
/* Compact dump as a new string. */
jv jv_tojson(jq_rt *R, jv v);
/* The dump cut to n-1 bytes ending in "..." when longer (error texts). */
void jv_dump_trunc(jq_rt *R, buf *b, jv v, size_t n);
/* Number text as jq prints it. */
void jv_numfmt(buf *b, jv v);
void jv_dblfmt(char *out, double d);

/* Streaming JSON reader over one text. */
typedef struct jq_rd {
  jq_rt *R;
  const uint8_t *p, *end, *start;
  size_t line;      /* newlines consumed */
  const char *err;  /* message on failure */
  size_t eline, ecol;
  int depth;
  /* --stream: when set, jq_rd_next appends jq's stream events
   * ([path, leaf] and [path] when a container closes) here as the text
   * is read, the ones before an error included; epath is the path
   * where an error stopped the reading (owned, --stream-errors). */
  jv *evs;
  jv epath;
  const uint8_t *errp; /* where the error was seen (after that byte) */
} jq_rd;
/* Sets r's error to msg at the position after consuming up to p. */
void jq_rd_fail(jq_rd *r, const char *msg, const uint8_t *p);
void jq_rd_init(jq_rd *r, jq_rt *R, const uint8_t *p, size_t n);
/* 1 and *out for the next value, 0 at the end, -1 on a syntax error
 * (r->err and position set). */
int jq_rd_next(jq_rd *r, jv *out);
/* Parses a whole text holding exactly one value (fromjson, --argjson). */
int jq_parse_one(jq_rt *R, const char *s, size_t n, jv *out, buf *err);
/* Canonical literal (decNumber to-scientific-string) of a JSON number. */
int jq_numlit(const char *s, size_t n, buf *out);
/* Decodes UTF-8 with U+FFFD for bad sequences, as jq does on input. */
jv jv_str_utf8(jq_rt *R, const char *s, size_t n);
/* Next code point from s (with U+FFFD for bad bytes); returns bytes used. */
size_t jq_utf8_next(const uint8_t *s, size_t n, uint32_t *cp);
void jq_utf8_put(buf *b, uint32_t cp);

#endif

/* ---- programs --------------------------------------------------------- */

enum {
  JN_ID,
  JN_RECURSE,
  JN_INDEX,
  JN_SLICE,
  JN_ITER,
  JN_TRY,
  JN_LIT,
  JN_STR,
  JN_FORMAT,
  JN_ARRAY,
  JN_OBJECT,
  JN_OENT,
  JN_NEG,
  JN_PIPE,
  JN_COMMA,
  JN_BIN,
  JN_AND,
  JN_OR,
  JN_ALT,
  JN_IF,
  JN_REDUCE,
  JN_FOREACH,
  JN_DEF,
  JN_CALL,
  JN_VAR,
  JN_AS,
  JN_LABEL,
  JN_BREAK,
  JN_ASSIGN,
  JN_PARAM,
  JN_PVAR,
  JN_PARR,
  JN_POBJ,
  JN_PENT,
  JN_GLOBAL
};

/* Binary and assignment operators (op field). */
enum {
  JO_ADD = 1,
  JO_SUB,
  JO_MUL,
  JO_DIV,
  JO_MOD,
  JO_EQ,
  JO_NE,
  JO_LT,
  JO_LE,
  JO_GT,
  JO_GE,
  JO_SET,
  JO_UPD,
  JO_ALT
};

typedef struct jq_node jq_node;
struct jq_node {
  int t, op, line;
  int opt;              /* JN_INDEX/JN_ITER/JN_SLICE wrapped by '?' */
  int toplevel;         /* JN_DEF: defined outside any function */
  int nargs;
  int dollar;           /* JN_PARAM: declared as $name */
  int bi;               /* JN_CALL to a native builtin: its index + 1 */
  jq_node *a, *b, *c, *d;
  jq_node **args;
  jv v;                 /* literal, key string */
  const char *name;
  const char *pos;      /* where in the source (error messages) */
  jq_node *ref;         /* JN_CALL/JN_VAR: the binder (JN_DEF/JN_PARAM/
                           JN_PVAR/JN_GLOBAL) */
  jq_node *next_lit;    /* JN_LIT: the next literal of the program */
};

/* Natives: name, arity and implementation index (jq_builtin.c). */
typedef struct jq_native {
  const char *name;
  int arity;
} jq_native;
int jq_native_find(const char *name, int arity);

/* Parses a program. globals: names of $variables defined outside
 * (without '$'), nglobals of them; their binder nodes are returned in
 * gnodes (arena). On errors appends jq's compile error text to err (each
 * message ends in "\n") and returns the number of errors; *out is the
 * program on success. The prelude (jq-defined builtins) is parsed
 * first and its definitions are visible to the program. */
/* Releases the values the program's literals hold (before the arena the
 * nodes live in is freed). */
void jq_free_lits(jq_rt *R);
int jq_compile(arena *a, jq_rt *R, const char *prelude, const char *src,
               const char **globals, int nglobals, jq_node ***gnodes,
               jq_node **out, buf *err);

/* ---- evaluation -------------------------------------------------------- */

/* Results of evaluation steps besides 0 (go on) and negative MSB_E*
 * codes (stop everything). */
#define JQ_ERR 1  /* error raised; value in E->err */
#define JQ_BRK 2  /* break to the label E->brk */
#define JQ_ERRX 3 /* an error from outside a try's body passing through it */

typedef struct jq_env jq_env;
struct jq_env {
  jq_env *up;
  const jq_node *b;   /* binder */
  jv v;               /* variable value (borrowed) */
  const jq_node *cl;  /* closure body */
  jq_env *clenv;      /* closure environment */
  void *tok;          /* label token */
};

typedef struct jq_ev jq_ev;
typedef int (*jq_k)(jq_ev *E, jv v, jv path, void *kd);

struct jq_ev {
  jq_rt R;
  cmd_ctx *c;
  jv err;           /* owned, valid after JQ_ERR */
  void *brk;        /* label token after JQ_BRK */
  void *owner;      /* try frame for JQ_ERRX */
  uint64_t ticks;
  const char *stack_base;
  jq_node **gnodes; /* global binders */
  jv *gvals;
  int nglobals;
  /* Input stream for input/inputs. */
  /* 1 value, 0 end, JQ_INPUT_ERR (E->err set), <0 stop */
  int (*next_input)(jq_ev *E, jv *out);
  void *input_ctx;
  const char *input_name;
  int halted, halt_code;
  int limit_depth;   /* named limit hit: printed already */
  jv named_args;     /* $ARGS */
  int64_t now_ns;
  size_t input_line; /* lines read of the current input */
  jq_fmt debug_fmt;  /* debug's output: -a and -S apply, compact */
};

/* Path tracking: a path value of kind JV_INVALID with n == 0 means "not
 * tracking", n == 1 means "not a path" (result of a non-path expression). */
jv jq_pt_off(void);
jv jq_pt_bad(void);
int jq_pt_is_off(jv p);
int jq_pt_is_bad(jv p);

int jq_eval(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip, jq_k k,
            void *kd);
/* Raises an error with a message (printf style). Returns JQ_ERR. */
int jq_errf(jq_ev *E, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int jq_raise(jq_ev *E, jv v);
/* Collects every output of n on in into *out (an array). */
int jq_collect(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv *out);
/* Value operations that may fail with an error (JQ_ERR). */
int jq_index(jq_ev *E, jv t, jv key, jv *out);
int jq_binop(jq_ev *E, int op, jv a, jv b, jv *out);
int jq_getpath(jq_ev *E, jv v, jv path, jv *out);
int jq_setpath(jq_ev *E, jv v, jv path, size_t i, jv nv, jv *out);
int jq_delpaths(jq_ev *E, jv v, jv paths, jv *out);
int jq_call_native(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                   jq_k k, void *kd);
int jq_format(jq_ev *E, const char *fmt, jv v, jv *out);
extern const char jq_prelude[];
#define JQ_HALT 4      /* halt / halt_error: E->halt_code set */
#define JQ_INPUT_ERR 2 /* next_input: an input could not be parsed */
int jq_recurse_all(jq_ev *E, jv in, jv ip, jq_k k, void *kd);
