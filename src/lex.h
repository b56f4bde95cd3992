/* lex.h - the shell lexer's state and tokens, shared by lex.c and parse.c
 * (private to the front end; the interpreter includes parse.h and ast.h).
 *
 * The lexer and parser share one state struct because they recurse into
 * each other: a word containing $(...) makes the lexer call the parser for
 * the body, and the parser asks the lexer for tokens in a mode that depends
 * on the grammar position (array assignments, [[ ]], case patterns). */
#ifndef MSB_LEX_H
#define MSB_LEX_H

#include <stddef.h>

#include "ast.h"
#include "buf.h"
#include "mem.h"
#include "parse.h"

typedef enum lex_tok {
  LEX_T_EOF,
  LEX_T_WORD,     /* tok.word set */
  LEX_T_NEWLINE,
  LEX_T_SEMI,     /* ; */
  LEX_T_AMP,      /* & */
  LEX_T_PIPE,     /* | */
  LEX_T_PIPEAMP,  /* |& */
  LEX_T_AND,      /* && */
  LEX_T_OR,       /* || */
  LEX_T_DSEMI,    /* ;; */
  LEX_T_SEMIAMP,  /* ;& */
  LEX_T_DSEMIAMP, /* ;;& */
  LEX_T_LPAREN,   /* ( */
  LEX_T_RPAREN,   /* ) */
  LEX_T_REDIR     /* tok.rop, tok.fd, tok.varname */
} lex_tok;

/* Token request modes. */
#define LEX_M_ASSIGN 1u /* NAME=( starts an array literal (command prefix) */
#define LEX_M_COND 2u   /* inside [[ ]]: < > are words, ( ) && || ! tokens */
#define LEX_M_REGEX 4u  /* the right side of =~ */

typedef struct lex_token {
  lex_tok t;
  ast_word *word;     /* LEX_T_WORD */
  /* For words: the raw source text (reserved word and assignment checks);
   * plain is 1 when the word is one unquoted literal part. */
  const char *raw;
  size_t raw_len;
  int plain;
  int array_assign;   /* word was NAME=( ... ) or NAME+=( ... ) */
  ast_assign *assign; /* the parsed array assignment when array_assign */
  ast_redir_op rop;   /* LEX_T_REDIR */
  int strip_tabs;     /* the operator was <<- */
  int fd;             /* explicit fd or -1 */
  const char *varname;
  int line;           /* line where the token starts */
  size_t start;       /* source offset where the token starts */
} lex_token;

/* A substitution body parsed earlier in this top-level command: the
 * resulting part (in the tree's arena; only its next changes later) and
 * where the source position and line ended up. */
typedef struct lex_memo {
  const char *src;
  size_t start, end;
  int kind; /* LEX_MEMO_* */
  int end_line;
  const ast_part *part;
} lex_memo;

/* A here-document waiting for its body (read after the next newline). */
typedef struct lex_heredoc {
  struct lex_heredoc *next;
  ast_redir *r;
} lex_heredoc;

typedef struct lex_state {
  mem *m;
  ast_tree *tree;
  arena *a;
  const char *src;   /* current source (the script, or a backquote body) */
  size_t len;
  size_t pos;
  int line;
  unsigned flags;    /* PARSE_* */
  int depth;         /* nesting depth (PARSE_MAX_DEPTH) */
  size_t stack;      /* native stack the open levels cost (PARSE_STACK_*) */
  size_t stack_max;  /* what they may cost (parse_set_stack) */
  int failed;        /* an error is recorded in err */
  parse_error err;
  /* Outermost source, for error line text. */
  const char *top_src;
  size_t top_len;
  int top_first_line;
  int in_backquote;  /* >0 while parsing a backquote body */
  lex_heredoc *hd_head, *hd_tail;
  /* One token of lookahead. */
  int have_peek;
  unsigned peek_mode;
  lex_token peek;
  /* >0 while parsing a $( ... ) or <( ... ) body (no alias expansion
   * there: the body's text is cut from the source afterwards). */
  int cmdsub_depth;
  /* $( ), <( ) and `...` bodies parsed so far, by source and offset (open
   * hash): the parser re-lexes a peeked word when it asks for it in
   * another mode, and without this every nesting level would parse its
   * inner substitutions again, doubling the work per level. */
  lex_memo **memo;
  size_t memo_cap, memo_n;
  buf warn;          /* warnings ("warning: ...\n" lines) */
  int hd_eof;        /* a here-document ended at end of input */
  int eof_nl;        /* the implicit final newline was returned */
  int bs_eof;        /* the input ends with an unquoted backslash */
  /* Alias expansion (parse_set_aliases): the lookup, the bytes of source
   * rewritten so far (bounded), and the aliases being expanded with the
   * offset where each expansion ends (not expanded again before it). */
  const char *(*alias_fn)(void *ctx, const char *name);
  void *alias_ctx;
  size_t alias_bytes;
  struct {
    const char *name;
    size_t end;
  } alias_act[128];
  int nalias_act;
  /* The last alias value ended in a blank: the first word starting at or
   * after offset alias_next_at of src is alias-expanded too. */
  int alias_next;
  size_t alias_next_at;
  int alias_first; /* the next word starts such an expanded value: check it */
} lex_state;

/* Forgets the substitution memo (between top-level commands, which are
 * never re-lexed) and, with release, frees its table. */
void lex_memo_reset(lex_state *st, int release);

/* Reads the next token in the given mode (LEX_M_*). Returns 0 or an error
 * code (recorded in st->err). */
/* Decodes the escape after a backslash at s (n > 0 bytes there) as $'...'
 * does, appending to out; a NUL sets *cut, after which nothing is appended
 * (bash drops the rest of the string). Returns the bytes used. */
size_t lex_ansi_escape(const char *s, size_t n, buf *out, int *cut);
int lex_next(lex_state *st, unsigned mode, lex_token *tok);
/* Reads the next token in a mode into st->peek (have_peek set). */
int lex_peek_next(lex_state *st, unsigned mode);
/* Sets a held peek token aside (an arena copy in *saved, NULL when none)
 * for a nested parse; lex_peek_restore puts it back. */
int lex_peek_save(lex_state *st, lex_token **saved);
void lex_peek_restore(lex_state *st, const lex_token *saved);
/* Skips blanks, comments and line continuations; returns the next byte or
 * -1 at end (for the parser's look-ahead on `((`, `{` and the like). */
int lex_peek_char(lex_state *st);
/* Reads pending here-document bodies (after a newline was consumed). */
int lex_read_heredocs(lex_state *st);
/* Records a syntax error "syntax error near unexpected token `X'" for the
 * given token. Returns MSB_ESYNTAX. */
int lex_error_token(lex_state *st, const lex_token *tok);
/* Records an error with a fixed message at a line; has_text selects the
 * second message line. Returns code. */
int lex_error(lex_state *st, int code, int line, int has_text, const char *msg);
/* "unexpected EOF while looking for matching `W'" (W = what[0]) at a
 * line; incomplete input. */
int lex_error_match(lex_state *st, int line, const char *what);
/* The line bash reports for errors at end of input. */
int lex_eof_line(lex_state *st);
/* Records an "unexpected end of file" (incomplete input). */
int lex_error_eof(lex_state *st, const char *missing);
/* Text of a token for messages ("newline", ";;", the word). */
const char *lex_tok_text(lex_state *st, const lex_token *tok);
/* Native stack per nesting level, by what nests (bytes, measured like
 * PARSE_STACK_LEVEL); the recursion behind a $( ) runs through the whole
 * grammar, hence its price. */
#define LEX_STACK_LOOP 900   /* for, select */
#define LEX_STACK_FUNC 600   /* a function definition, beyond its body */
#define LEX_STACK_COND 300   /* [[ ( ... ) ]], [[ ! ... ]] */
#define LEX_STACK_DQ 400     /* "..." */
#define LEX_STACK_PARAM 600  /* ${ ... } */
#define LEX_STACK_ARITH 600  /* $(( ... )) */
#define LEX_STACK_SUB 1440   /* $( ... ), `...` */
#define LEX_STACK_PROC 1300  /* <( ... ), >( ... ) */

/* Nesting guard: enters a level costing `cost` bytes of native stack,
 * failing with MSB_ELIMIT past PARSE_MAX_DEPTH or the stack budget. Pair
 * with lex_leave(st, cost) on success. */
int lex_enter(lex_state *st, size_t cost);
void lex_leave(lex_state *st, size_t cost);

/* "((" at the current position: 1 when it is an arithmetic command, 0
 * for two nested subshells. */
int lex_dparen_is_arith(lex_state *st);
/* Parses "(( ... ))" at the current position into an expression word and
 * its raw text. */
int lex_arith_cmd(lex_state *st, ast_word **expr, const char **raw);
/* Parses the inside of `for (( a; b; c ))`, st->pos just past "((";
 * w3 receives the three expressions (NULL when empty). */
int lex_arith_for(lex_state *st, ast_word **w3);
/* Computes a here-document delimiter from its word token and queues the
 * redirection for body reading at the next newline. */
int lex_heredoc_queue(lex_state *st, const lex_token *word, ast_redir *r);

/* Provided by parse.c: parses a command list for a $( ... ) body up to the
 * closing `)`, which it consumes. *out may be NULL for an empty body. */
int parse_cmdsub_body(lex_state *st, ast_node **out);
/* "((" at the current position: 1 when it is an arithmetic command, 0
 * for two nested subshells. */
int lex_dparen_is_arith(lex_state *st);
/* Parses "(( ... ))" at the current position into an expression word and
 * its raw text. */
int lex_arith_cmd(lex_state *st, ast_word **expr, const char **raw);
/* Parses the inside of `for (( a; b; c ))`, st->pos just past "((";
 * w3 receives the three expressions (NULL when empty). */
int lex_arith_for(lex_state *st, ast_word **w3);
/* Computes a here-document delimiter from its word token and queues the
 * redirection for body reading at the next newline. */
int lex_heredoc_queue(lex_state *st, const lex_token *word, ast_redir *r);

/* Provided by parse.c: parses a whole string (a backquote body) in the
 * current state, starting at line. */
int parse_sub_source(lex_state *st, const char *src, size_t len, int line,
                     ast_node **out);

#endif
