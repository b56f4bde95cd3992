/* expand_int.h - what the word expansion files (src/expand*.c) share
 * with each other and with nothing else. */
#ifndef MSB_EXPAND_INT_H
#define MSB_EXPAND_INT_H

#include "interp.h"

/* What a word expands to: fields, one string, or a glob pattern. */
enum { XM_FIELDS, XM_STRING, XM_PATTERN };

/* One finished field: its text, and its pattern when it is to be globbed. */
typedef struct xfield {
  char *text;
  char *pat; /* NULL unless the field needs pathname expansion */
} xfield;

/* The field builder a word is expanded into (see expand.c). */
typedef struct xw {
  shell *sh;
  int mode;
  xfield *f;
  size_t n, cap;
  buf cur, pat;
  int started, wsbreak, magic;
  int litsplit; /* literal text of ${x-word} in unquoted context splits */
  const char *ifs; /* $IFS, looked up at the first unquoted expansion */
  int ifs_set;
  uint8_t ifs_map[32]; /* the bytes of ifs, one bit each */
  int err;      /* sticky: <0 fatal, 1 expansion error */
} xw;

/* A parameter's value: a scalar, or the list of $@, $* or an array. */
typedef struct xval {
  int set;      /* 0 unset */
  int list;     /* @ or * form */
  int star;     /* * (join) */
  char **v;
  size_t n;
} xval;

/* expand.c */
void xw_end(xw *x);
void xw_lit(xw *x, const char *s, size_t n, int quoted);
void xw_exp(xw *x, const char *s, size_t n, int quoted);
int expand_parts(xw *x, const ast_part *p, int quoted);

/* expand_param.c */
void xval_free(shell *sh, xval *v);
int xval_str(shell *sh, xval *v, const char *s);
/* Appends one value of len bytes to v's list. */
int xval_push(shell *sh, xval *v, const char *s, size_t len);
int expand_special(shell *sh, const char *name, xval *v, int *rc);
int expand_unbound(shell *sh, const char *name);
int expand_index(shell *sh, ast_word *w, int64_t *ix);
int expand_get(shell *sh, const char *name, int sub, ast_word *index,
               const char *idx_text, xval *out);
void expand_put_val(xw *x, xval *v, int quoted);
int expand_is_null(const xval *v, int colon);

/* expand_op.c */
int expand_param(xw *x, ast_param *pe, int quoted);

/* expand_subst.c */
int expand_cmdsub(xw *x, const ast_part *p, int quoted);

/* expand_brace.c */
int brace_word(shell *sh, arena *a, ast_word *w, ast_part ***lists,
               size_t *count);

#endif
