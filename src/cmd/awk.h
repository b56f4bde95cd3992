/* awk.h - the parts of awk shared by its lexer, parser and interpreter.
 *
 * The program is parsed into a tree of awk_node (arena memory, freed with
 * the invocation) and run by a tree-walking interpreter. Values are
 * doubles and reference-counted strings from the sandbox allocator, so
 * the memory limit applies to everything a program builds. */
#ifndef MSB_AWK_H
#define MSB_AWK_H

#include <stddef.h>
#include <stdint.h>

#include "../regex.h"
#include "cmd.h"

/* ---- values ------------------------------------------------------------ */

typedef struct awk_str {
  uint32_t ref;
  size_t len;
  char p[]; /* len bytes + NUL */
} awk_str;

/* Value kinds. AV_STRNUM is input text not yet classified; it becomes
 * AV_NUMSTR (looks numeric: compares as a number) or AV_STR. */
enum { AV_UNINIT, AV_NUM, AV_STR, AV_STRNUM, AV_NUMSTR };
/* Caches in awk_val.have. */
#define AV_HNUM 1u /* n holds the numeric value */
#define AV_HSTR 2u /* s holds the string value */

typedef struct awk_val {
  uint8_t type;
  uint8_t have;
  double n;
  awk_str *s;
} awk_val;

/* ---- syntax tree ----------------------------------------------------- */

enum {
  /* expressions */
  N_NUM,
  N_STR,
  N_ERE,
  N_VAR,
  N_LOCAL,
  N_FIELD,
  N_INDEX,
  N_ASSIGN,
  N_COND,
  N_OR,
  N_AND,
  N_IN,
  N_MATCH,
  N_CMP,
  N_CAT,
  N_ARITH,
  N_NEG,
  N_PLUS,
  N_NOT,
  N_INCDEC,
  N_CALL,
  N_BUILTIN,
  N_GETLINE,
  N_GROUP,
  /* statements */
  S_EXPR,
  S_PRINT,
  S_PRINTF,
  S_IF,
  S_WHILE,
  S_DO,
  S_FOR,
  S_FORIN,
  S_BLOCK,
  S_NEXT,
  S_NEXTFILE,
  S_EXIT,
  S_RETURN,
  S_BREAK,
  S_CONTINUE,
  S_DELETE,
  S_SWITCH, /* a: subject; b: S_CASE list (a: label or NULL, b: body) */
  S_CASE,
  S_GETLINE_UNUSED
};

/* Comparison and arithmetic operators (awk_node.sub). */
enum { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE };
enum { AR_ADD, AR_SUB, AR_MUL, AR_DIV, AR_MOD, AR_POW, AR_SET };
/* Redirections for print and getline (awk_node.sub). */
enum { RD_NONE, RD_FILE, RD_APPEND, RD_PIPE, RD_CMD };

typedef struct awk_node awk_node;
struct awk_node {
  int op;
  int sub;   /* operator variant, redirection, builtin id, flags */
  int idx;   /* variable slot, function index */
  int line;
  awk_node *a, *b, *c, *d;
  awk_node *next; /* next in a list (statements, arguments, subscripts) */
  double num;
  awk_str *str;   /* string constant or regex source */
  rx *re;         /* compiled regex literal */
};

/* Builtin functions (N_BUILTIN sub). */
enum {
  B_LENGTH,
  B_SUBSTR,
  B_INDEX,
  B_SPLIT,
  B_SUB,
  B_GSUB,
  B_MATCH,
  B_SPRINTF,
  B_SIN,
  B_COS,
  B_ATAN2,
  B_EXP,
  B_LOG,
  B_SQRT,
  B_INT,
  B_RAND,
  B_SRAND,
  B_TOLOWER,
  B_TOUPPER,
  B_SYSTEM,
  B_CLOSE,
  B_FFLUSH,
  B_GENSUB,
  B_PATSPLIT,
  B_ASORT,
  B_ASORTI,
  B_STRFTIME,
  B_SYSTIME,
  B_MKTIME,
  B_AND,
  B_OR,
  B_XOR,
  B_LSHIFT,
  B_RSHIFT,
  B_COMPL,
  B_STRTONUM,
  B_ISARRAY,
  B_TYPEOF,
  B_COUNT
};

/* Special variables: fixed global slots. */
enum {
  V_NR,
  V_FNR,
  V_NF,
  V_FS,
  V_OFS,
  V_ORS,
  V_RS,
  V_FILENAME,
  V_SUBSEP,
  V_CONVFMT,
  V_OFMT,
  V_RSTART,
  V_RLENGTH,
  V_ENVIRON,
  V_ARGC,
  V_ARGV,
  V_IGNORECASE,
  V_FPAT,
  V_FIELDWIDTHS,
  V_RT,
  V_PROCINFO,
  V_ERRNO,
  V_BINMODE,
  V_LINT,
  V_TEXTDOMAIN,
  V_NSPECIAL
};

typedef struct awk_func {
  const char *name;
  int nparams;
  char **params;   /* parameter names, for messages */
  awk_node *body;
  int defined;
  int line;        /* first use, for "function not defined" */
} awk_func;

typedef struct awk_rule {
  int kind; /* R_BEGIN, R_END, R_BEGINFILE, R_ENDFILE, R_MAIN */
  awk_node *pat, *pat2; /* pattern, range end */
  awk_node *body;       /* NULL: print $0 */
  int inrange;
} awk_rule;
enum { R_BEGIN, R_END, R_BEGINFILE, R_ENDFILE, R_MAIN };

/* The parsed program. */
typedef struct awk_prog {
  awk_rule *rules;
  int nrules;
  awk_func *funcs;
  int nfuncs;
  char **gnames; /* global variable names by slot */
  int nglobals;
  int has_main, has_end, has_getline_main;
} awk_prog;

/* One source piece for error positions: -f files or the command line. */
typedef struct awk_src {
  const char *name; /* "cmd. line" or the file name */
  const char *text;
  size_t len;
} awk_src;

/* ---- lexer --------------------------------------------------------- */

enum {
  T_EOF = 256,
  T_NL,
  T_NUMBER,
  T_STRING,
  T_ERE,
  T_NAME,
  T_FUNC_NAME,
  T_BUILTIN,
  T_BEGIN,
  T_END,
  T_BEGINFILE,
  T_ENDFILE,
  T_FUNCTION,
  T_IF,
  T_ELSE,
  T_WHILE,
  T_FOR,
  T_DO,
  T_BREAK,
  T_CONTINUE,
  T_NEXT,
  T_NEXTFILE,
  T_EXIT,
  T_RETURN,
  T_DELETE,
  T_SWITCH,
  T_CASE,
  T_DEFAULT,
  T_GETLINE,
  T_PRINT,
  T_PRINTF,
  T_IN,
  T_AND,
  T_OR,
  T_EQ,
  T_NE,
  T_LE,
  T_GE,
  T_MATCH,
  T_NOMATCH,
  T_INCR,
  T_DECR,
  T_APPEND,
  T_PIPE_BOTH,
  T_POW,
  T_ADD_ASSIGN,
  T_SUB_ASSIGN,
  T_MUL_ASSIGN,
  T_DIV_ASSIGN,
  T_MOD_ASSIGN,
  T_POW_ASSIGN,
  T_INCLUDE,
  T_BAD
};

typedef struct awk_lex {
  cmd_ctx *c;
  const awk_src *srcs;
  int nsrc, cur;       /* current source */
  size_t pos;          /* offset in the current source */
  int line;            /* 1-based line in the current source */
  int tok;             /* current token */
  size_t tok_start;    /* offset of the current token */
  int tok_line;
  char *text;          /* token text (names, strings, regex), arena */
  size_t text_len;
  double num;
  int bid;             /* builtin id for T_BUILTIN */
  int prev;            /* previous token (regex vs division) */
  buf *err;            /* where syntax errors go */
  int failed;
  int at_start; /* the caret goes under the token's first character */
} awk_lex;

void awk_lex_init(awk_lex *l, cmd_ctx *c, const awk_src *srcs, int nsrc);
/* Advances to the next token; returns it (T_BAD after a reported error). */
int awk_lex_next(awk_lex *l);
/* Reads a regex body after '/' was taken as its start (the parser decides
 * when '/' opens a regex). */
int awk_lex_regex(awk_lex *l);
/* Reports "awk: NAME:LINE: <source line>" + caret + msg as gawk does. */
void awk_lex_error(awk_lex *l, const char *msg);

/* ---- parser --------------------------------------------------------- */

/* Parses the sources into *prog (arena memory). Returns 0, or 1 after a
 * syntax error was printed, or a negative MSB_E* code. */
int awk_parse(cmd_ctx *c, const awk_src *srcs, int nsrc, awk_prog *prog);
/* Slot of a global name, adding it (arena); -1 on out of memory. */
int awk_global(cmd_ctx *c, awk_prog *p, const char *name);

/* ---- interpreter ---------------------------------------------------- */

/* The run options main collects. */
typedef struct awk_opts {
  const char *fs;      /* -F */
  char **assigns;      /* -v var=val */
  int nassign;
  char **args;         /* operands after the program */
  int nargs;
  int csv;
  const char *progname; /* "awk" */
} awk_opts;

/* Runs a parsed program; returns the exit status or a negative code. */
int awk_run(cmd_ctx *c, awk_prog *p, const awk_opts *o);

/* ---- runtime (shared by awk_interp.c, awk_io.c, awk_func.c) ---------- */

/* Associative array: insertion-ordered entries, open-addressed index.
 * The g* fields model where gawk would store each key, which is the order
 * for (k in a) lists them in (awk_order.c). */
typedef struct awk_ent {
  awk_str *key; /* NULL: deleted */
  awk_val v;
  uint32_t hash;
  uint32_t gcode;  /* gawk's hash of the key in its table */
  uint32_t gstamp; /* insertion rank in that table */
  uint8_t gpart;   /* AP_STR, AP_CINT or AP_INT: the gawk table holding it */
  int32_t gint;    /* the key as an integer (AP_CINT, AP_INT) */
} awk_ent;
typedef struct awk_arr {
  awk_ent *e;
  size_t n, cap, live; /* entries used (with holes), allocated, live */
  uint32_t *ix;        /* 0 empty, else entry index + 1 */
  size_t ixcap;        /* power of two */
  /* gawk's storage model (awk_order.c) */
  uint8_t gkind, xkind; /* the array's type; its extra part's (cint only) */
  uint32_t gsize, gcount, gtick; /* string table: buckets, keys, last rank */
  uint32_t isize, icount, itick; /* integer hash table: the same */
  size_t ncint;                  /* keys in the cint part */
  long long gcap;                /* cint leaf slots allocated */
  long long *lbase; /* cint leaves: first key (open addressing) */
  uint32_t *lcount; /* and keys in it (0: freed) */
  size_t lcap, lused;
} awk_arr;

enum { C_UNTYPED, C_SCALAR, C_ARRAY, C_REF };
typedef struct awk_cell {
  uint8_t kind;
  awk_val v;
  awk_arr *a;
  struct awk_cell *ref; /* C_REF: the caller's cell (arrays by reference) */
} awk_cell;

typedef struct awk_field {
  size_t off, len; /* span in the record while not materialised */
  awk_val v;
  int mat; /* v holds the value */
} awk_field;

/* An input source: the main input, `getline < file` or `cmd | getline`. */
typedef struct awk_in {
  char *name; /* file or command (owned) */
  int kind; /* RD_FILE, RD_CMD, or RD_NONE for the main input */
  char *abs; /* absolute path for files (refetched after writes) */
  const uint8_t *data; /* the bytes */
  size_t len, pos;
  buf own; /* owned bytes (command output) */
  unsigned gen; /* filesystem generation the view belongs to */
  int eof;
} awk_in;

/* An output redirection. */
typedef struct awk_out {
  char *name;
  int kind; /* RD_FILE/RD_APPEND or RD_PIPE */
  char *abs;
  buf b;
  int dev; /* 1 stdout, 2 stderr, 0 a file or pipe */
} awk_out;

#define AWK_MAX_STREAMS 256

typedef struct awk_rxc { /* dynamic regex cache entry */
  awk_str *src;
  int icase;
  rx *re;
} awk_rxc;

typedef struct awk_frame {
  awk_cell *cells;
  int n;
  awk_func *f;
} awk_frame;

typedef struct awk_rt {
  cmd_ctx *c;
  mem *m;
  awk_prog *p;
  const awk_opts *o;
  awk_cell *g; /* globals */
  awk_frame *fr; /* current function frame */
  int depth;
  /* record and fields */
  awk_val rec;
  awk_field *f;
  size_t nf, fcap;
  int split, dirty; /* fields split from rec; rec stale (fields changed) */
  /* input */
  awk_in main;
  int argi; /* next ARGV index for the main input */
  int main_done, main_open;
  awk_in *ins[AWK_MAX_STREAMS];
  int nins;
  awk_out *outs[AWK_MAX_STREAMS];
  int nouts;
  unsigned gen; /* bumped when the filesystem may have changed */
  buf ob; /* stdout */
  buf tmp, tmp2; /* scratch */
  buf pline;      /* print's line, kept between prints: not allocated anew */
  int pline_busy; /* a print is building its line in pline (nested: own) */
  /* regex */
  awk_rxc rxc[64];
  int rxnext;
  rx *fs_rx, *rs_rx, *fpat_rx;
  /* state */
  int exiting, exit_code;
  awk_val ret;
  uint64_t ticks;
  double rand_seed, prev_seed;
  uint64_t rng;
  int err; /* pending negative code */
  int cur_line;
  int rs_mode; /* 0 char, 1 paragraph, 2 regex */
  int fs_mode; /* 0 space, 1 single char, 2 regex, 3 tab-ish single */
  int in_end, range_active;
  int nextfile;
  int nfiles; /* file operands met */
  const char *rec_p; /* the record awk_next_main read */
  size_t rec_n;
  uint32_t rst[63]; /* rand() state */
  int rf, rr, rseeded;
  awk_val nofield; /* a field past NF: the empty string, not numeric */
  rx **lits; /* compiled regex literals, freed at the end */
  size_t nlits, litcap;
} awk_rt;

/* awk_order.c: gawk's for-in order. */
enum { AP_STR, AP_CINT, AP_INT };
int awk_order_add(awk_rt *A, awk_arr *a, awk_ent *e);
void awk_order_del(awk_rt *A, awk_arr *a, awk_ent *e);
void awk_order_clear(awk_rt *A, awk_arr *a);

/* gawk's default for strftime() and PROCINFO["strftime"]. */
#define AWK_STRFTIME_FMT "%a %b %e %H:%M:%S %Z %Y"

/* Control results of statements besides 0 and negative codes. */
enum {
  AWK_BREAK = 1,
  AWK_CONTINUE,
  AWK_NEXT,
  AWK_NEXTFILE,
  AWK_EXIT,
  AWK_RETURN,
  AWK_FATAL /* a fatal error was printed; exit status 2 */
};

awk_str *awk_str_new(mem *m, const char *s, size_t len);
void awk_str_unref(mem *m, awk_str *s);
void awk_val_free(awk_rt *A, awk_val *v);
void awk_val_copy(awk_val *dst, const awk_val *src);
int awk_val_str(awk_rt *A, awk_val *v, int ofmt); /* fill the string cache */
double awk_val_num(awk_val *v);
int awk_val_bool(awk_rt *A, awk_val *v);
int awk_icase(awk_rt *A); /* IGNORECASE is on */
int awk_set_str(awk_rt *A, awk_val *v, const char *s, size_t n, int strnum);
void awk_set_num(awk_rt *A, awk_val *v, double d);
int awk_num_to_str(awk_rt *A, double d, const char *fmt, buf *out);
double awk_strtod(const char *s, size_t n, int *looks);
int awk_fatal(awk_rt *A, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void awk_warn(awk_rt *A, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int awk_tick(awk_rt *A);
int awk_eval(awk_rt *A, awk_node *n, awk_val *out);
int awk_eval_str(awk_rt *A, awk_node *n, awk_val *out); /* with string */
int awk_exec(awk_rt *A, awk_node *n);
int awk_call_user(awk_rt *A, int fi, awk_node *args, int argc, awk_val *out,
                  awk_val *vargs);
/* Arrays. */
awk_arr *awk_arr_new(awk_rt *A);
void awk_arr_free(awk_rt *A, awk_arr *a);
void awk_arr_clear(awk_rt *A, awk_arr *a);
awk_val *awk_arr_get(awk_rt *A, awk_arr *a, const char *k, size_t n,
                     int create);
void awk_arr_del(awk_rt *A, awk_arr *a, const char *k, size_t n);
awk_arr *awk_cell_arr(awk_rt *A, awk_node *var); /* the array a name holds */
int awk_arr_keys(awk_rt *A, awk_arr *a, awk_str ***keys, size_t *n);
/* Regex: a regex literal node or a dynamic string. */
rx *awk_regex(awk_rt *A, awk_node *n, int *rc);
int awk_rx_compile(mem *m, const char *s, size_t n, int icase, rx **out,
                   buf *msg);
rx *awk_regex_str(awk_rt *A, const char *s, size_t n, int *rc);
int awk_rx_exec(awk_rt *A, rx *r, const char *s, size_t n, size_t start,
                unsigned ef, rx_match *m, size_t nm);
/* Records and fields (awk_io.c). */
int awk_set_record(awk_rt *A, const char *s, size_t n);
int awk_field_get(awk_rt *A, double idx, awk_val **out);
int awk_field_set(awk_rt *A, double idx, awk_val *v);
int awk_get_nf(awk_rt *A);
int awk_set_nf(awk_rt *A, double nf);
int awk_rec_val(awk_rt *A, awk_val **out);
int awk_special_set(awk_rt *A, int slot);
int awk_next_main(awk_rt *A, int *got); /* reads the next main record */
int awk_getline(awk_rt *A, awk_node *n, awk_val *out);
int awk_end_file(awk_rt *A);
int awk_split_csv(awk_rt *A, const char *s, size_t n);
/* The next non-empty match of re in s from *pos (FPAT, patsplit): 1 with
 * m set and *pos past it, 0 at the end, or a negative code. */
int awk_next_field_match(awk_rt *A, rx *re, const char *s, size_t n,
                         size_t *pos, size_t *last, rx_match *m);
int awk_patsplit(awk_rt *A, const char *s, size_t n, awk_node *pat,
                 awk_arr *arr, awk_arr *seps, int *count);
/* A `var=value` operand or -v assignment: 1 when s was one, else 0. */
int awk_cmdline_assign(awk_rt *A, const char *s, size_t n);
/* Stores v (consumed) into an lvalue node. */
int awk_store_lval(awk_rt *A, awk_node *n, awk_val *v);
int awk_print(awk_rt *A, awk_node *n);
int awk_out_stream(awk_rt *A, int kind, const char *name, buf **b);
int awk_close(awk_rt *A, const char *name, size_t n, double *res);
int awk_flush_all(awk_rt *A);
int awk_fflush(awk_rt *A, const char *name, double *res);
void awk_set_errno(awk_rt *A, const char *msg);
int awk_split_csv_arr(awk_rt *A, const char *s, size_t n, awk_arr *arr,
                      awk_arr *seps, int *count);
int awk_close_all(awk_rt *A);
int awk_system(awk_rt *A, const char *cmd, double *status);
int awk_ob_flush(awk_rt *A);
int awk_split_str(awk_rt *A, const char *s, size_t n, awk_val *fs,
                  awk_node *fsn, awk_arr *arr, awk_arr *seps, int *count);
/* Builtins and formatting (awk_func.c). */
int awk_builtin(awk_rt *A, awk_node *n, awk_val *out);
int awk_format(awk_rt *A, buf *o, const char *fmt, size_t fn, awk_val *args,
               int nargs);
int awk_foreach_order(awk_rt *A, awk_arr *a, awk_str ***keys, size_t *n);

/* Processes escapes of a -v value or string literal into b. */
void awk_unescape(buf *b, const char *s, size_t n, int regex);

#endif
