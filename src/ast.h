/* ast.h - the shell's abstract syntax tree: what the parser produces and the
 * interpreter walks.
 *
 * The tree never executes anything and holds no runtime state. Every node,
 * word, part and string of one parse lives in one arena owned by an ast_tree
 * (see parse.h), so freeing a parse is one call. Trees are immutable after
 * parsing and reference-counted: the interpreter retains the tree of a
 * function definition (ast_tree_retain) so the body outlives the parse, and a
 * cloned shell simply retains the same trees.
 *
 * Lists are singly linked through `next` fields, in source order. Strings are
 * NUL-terminated byte strings with an explicit length (they may hold NUL
 * bytes only where said). Line numbers are 1-based and count from the
 * `first_line` the caller passed to the parser (for $LINENO and messages).
 *
 * Words keep their quoting as a list of parts (see ast_part_kind). Nothing is
 * expanded at parse time except `$'...'` escapes (decoded to bytes) and
 * backslash-newline line continuations (removed). Brace expansion, tilde
 * expansion, globbing and word splitting are the interpreter's, driven by the
 * part kinds: only AST_P_LIT text is "unquoted". */
#ifndef MSB_AST_H
#define MSB_AST_H

#include <stddef.h>

#include "mem.h"

typedef struct ast_node ast_node;
typedef struct ast_word ast_word;
typedef struct ast_part ast_part;
typedef struct ast_param ast_param;
typedef struct ast_redir ast_redir;
typedef struct ast_assign ast_assign;
typedef struct ast_elem ast_elem;
typedef struct ast_case_item ast_case_item;
typedef struct ast_cond ast_cond;
typedef struct ast_tree ast_tree;

/* ---- Words ----------------------------------------------------------- */

typedef enum ast_part_kind {
  /* Unquoted literal text: subject to brace expansion and globbing (word
   * splitting applies only to expansion results, never to literal text).
   * May contain glob and brace characters. Backslash escapes have already
   * been split off into AST_P_SQ parts, so `text` holds no quoting. Inside
   * a DQ part, a here-document body or an arithmetic expr, LIT text is
   * quoted text. */
  AST_P_LIT,
  /* Quoted literal bytes: '...' (flags 0), a backslash-escaped character
   * outside double quotes (AST_PF_BACKSLASH, text is the one byte), or
   * $'...' with its escapes already decoded (AST_PF_DOLLAR; may contain
   * NUL bytes, len is exact). Never globbed, split or brace-expanded. */
  AST_P_SQ,
  /* "..." (or $"...", flag AST_PF_DOLLAR): `parts` is the nested list, which
   * holds only LIT (quoted text; `\$ \` \" \\` already unescaped, other
   * backslashes kept), PARAM, CMDSUB and ARITH parts. An empty "" is a DQ
   * with no parts (it still makes the word non-empty). */
  AST_P_DQ,
  /* Parameter expansion $x ${...}; see `param`. */
  AST_P_PARAM,
  /* Command substitution $(...) or `...` (AST_PF_BACKTICK): `cmd` is the
   * parsed body (NULL when the body is empty or only comments), `text` the
   * raw source text between the delimiters. $(...) is parsed at parse
   * time, so its syntax errors are reported up front like bash does; see
   * AST_PF_DEFERRED for backquotes and here-documents. */
  AST_P_CMDSUB,
  /* Arithmetic expansion $((...)) (or the obsolete $[...]): `expr` is the
   * expression as a word whose parts are LIT (raw expression text), SQ,
   * DQ, PARAM, CMDSUB and ARITH; the interpreter expands it like a
   * double-quoted string (quote removal included) and evaluates the result.
   * `text` is the raw source between the delimiters. */
  AST_P_ARITH,
  /* Process substitution <(...) (text "<") or >(...) (text ">"); `cmd` is
   * the parsed body. */
  AST_P_PROCSUB,
  /* Tilde prefix at the start of a word (or after `=` / an unquoted `:` in
   * an assignment value): `text` is the login name after `~`, possibly
   * empty ("~"), or "+" / "-" for ~+ ~-. Only produced when every character
   * of the prefix was unquoted. The part that follows (if any) starts with
   * `/` or `:`. */
  AST_P_TILDE
} ast_part_kind;

/* Part flags. */
#define AST_PF_BACKSLASH 1u /* SQ from an unquoted backslash escape */
#define AST_PF_DOLLAR 2u    /* SQ from $'...', or DQ from $"..." */
#define AST_PF_BACKTICK 4u  /* CMDSUB written with backquotes */
#define AST_PF_BRACKET 8u   /* ARITH written as $[...] */
/* CMDSUB whose body did not parse. Like bash, the error belongs to the
 * run, not the parse: `cmd` is NULL and `text` is the source to parse when
 * the substitution runs (the backquote body already unescaped, or the rest
 * of a here-document body after "$("); the interpreter reports the error
 * then with the prefix "bash: command substitution: " and status 2. */
#define AST_PF_DEFERRED 16u
/* DEFERRED here-document $( whose body ran to the end of the document:
 * running it reports bash's "unexpected EOF while looking for matching
 * `)'" at `line` plus the newlines of `text`. */
#define AST_PF_EOF 32u

struct ast_part {
  ast_part_kind kind;
  unsigned flags;     /* AST_PF_* */
  ast_part *next;
  const char *text;   /* LIT, SQ, TILDE, PROCSUB; raw text of CMDSUB/ARITH */
  size_t len;         /* bytes in text */
  ast_part *parts;    /* DQ: nested parts */
  ast_param *param;   /* PARAM */
  ast_node *cmd;      /* CMDSUB, PROCSUB (NULL = empty body) */
  ast_word *expr;     /* ARITH */
  int line;           /* DEFERRED CMDSUB: source line of the "$(" */
};

/* Parameter expansion operators. "Colon" forms (`:-` etc.) set
 * AST_PE_COLON, meaning "unset or null" instead of "unset". */
typedef enum ast_pe_op {
  AST_PE_PLAIN,   /* $x ${x} ${a[i]} ${a[@]} */
  AST_PE_LENGTH,  /* ${#x} ${#a[@]} ${#a[i]} ${#} is PLAIN on name "#" */
  AST_PE_DEFAULT, /* ${x-w}  ${x:-w}   word in `w1` */
  AST_PE_ASSIGN,  /* ${x=w}  ${x:=w} */
  AST_PE_ERROR,   /* ${x?w}  ${x:?w}   w1 may be NULL (default message) */
  AST_PE_ALT,     /* ${x+w}  ${x:+w} */
  AST_PE_TRIM_SP, /* ${x#p}  shortest prefix, pattern in w1 */
  AST_PE_TRIM_LP, /* ${x##p} longest prefix */
  AST_PE_TRIM_SS, /* ${x%p}  shortest suffix */
  AST_PE_TRIM_LS, /* ${x%%p} longest suffix */
  AST_PE_SUB,     /* ${x/p/r}  first match; pattern w1, replacement w2
                     (w2 NULL when there is no second `/`) */
  AST_PE_SUB_ALL, /* ${x//p/r} */
  AST_PE_SUB_PRE, /* ${x/#p/r} anchored at start */
  AST_PE_SUB_SUF, /* ${x/%p/r} anchored at end */
  AST_PE_SLICE,   /* ${x:o} ${x:o:l}: w1 offset, w2 length or NULL; both are
                     arithmetic text (expand like ARITH's expr) */
  AST_PE_UPPER1,  /* ${x^p}  w1 = pattern or NULL */
  AST_PE_UPPER,   /* ${x^^p} */
  AST_PE_LOWER1,  /* ${x,p} */
  AST_PE_LOWER,   /* ${x,,p} */
  AST_PE_TRANSFORM, /* ${x@Q}: the operator letter is in `xform` (one of
                       Q E P A K a u U L k); others are a syntax error at
                       expansion time in bash and are kept as given */
  AST_PE_NAMES,   /* ${!prefix*} ${!prefix@}: name = prefix, subscript =
                     '*' or '@' says which */
  AST_PE_KEYS,    /* ${!a[@]} ${!a[*]}: array keys; subscript '@'/'*' */
  AST_PE_BAD,     /* unparsable ${...}: bash reports "TEXT: bad
                     substitution" when it is expanded, not at parse time;
                     only `text` is set (name is "") */
  AST_PE_TOGGLE1, /* ${x~p}  toggle the case of the first character
                     (undocumented bash operator); w1 = pattern or NULL */
  AST_PE_TOGGLE   /* ${x~~p} toggle the case of every character */
} ast_pe_op;

#define AST_PE_COLON 1u    /* the `:` variant of - = ? + */
#define AST_PE_INDIRECT 2u /* ${!x...}: name's value names the parameter */
#define AST_PE_BRACED 4u   /* written with braces (printing only) */

struct ast_param {
  /* Parameter name: a variable name, a positional number ("1", "10"), or a
   * special parameter ("@" "*" "#" "?" "-" "$" "!" "0" "_"). */
  const char *name;
  ast_pe_op op;
  unsigned flags;     /* AST_PE_COLON, AST_PE_INDIRECT, AST_PE_BRACED */
  /* Subscript: 0 none, '@' for [@], '*' for [*], 'i' for [expr] with the
   * subscript text in `index` (expanded like a double-quoted string; for
   * indexed arrays the result is evaluated arithmetically). */
  int subscript;
  ast_word *index;
  ast_word *w1, *w2;  /* operands as described per op; may be NULL */
  char xform;         /* AST_PE_TRANSFORM letter */
  /* Raw source of the whole expansion ("$x", "${x:-a}"), for messages such
   * as "${x}: bad substitution". */
  const char *text;
  size_t text_len;
};
/* Operand words of ${x-w} ${x=w} ${x?w} ${x+w} inside double quotes were
 * lexed with single quotes as plain characters (bash prints "${x:-'a'}" as
 * 'a'); their LIT text is quoted text like the rest of the DQ part. Pattern
 * and replacement operands process quotes in both contexts. */

/* A word: a non-empty list of parts (`parts` may be NULL only for a word
 * that was written as nothing, e.g. the value of `a=`). */
struct ast_word {
  ast_word *next;     /* next word in an argument or pattern list */
  ast_part *parts;
  int line;
  /* Declaration-builtin arguments: in `declare`, `typeset`, `local`,
   * `export` and `readonly` commands (when the command name is that literal
   * word), an argument shaped like an assignment (`a=v`, `a+=v`, `a[i]=v`,
   * `a=(x y)`) also carries its parse here, so `local a=(1 2)` works and
   * `local x=$y` can skip word splitting like bash. `parts` still holds the
   * whole word (except for `a=(...)`, where parts is the name only). */
  ast_assign *assign;
  /* The word's source text as written (quotes included, backslash-newline
   * kept), for messages and for printing function definitions. */
  const char *raw;
  size_t raw_len;
};

/* ---- Simple command pieces ------------------------------------------- */

/* One element of an array literal `a=(v [k]=v ...)`. */
struct ast_elem {
  ast_elem *next;
  ast_word *index;    /* [k]=: key/subscript word; NULL for plain values */
  int append;         /* [k]+=v */
  ast_word *value;    /* never NULL (may have no parts for `[k]=`) */
};

/* An assignment word before the command name: `name=value`, `name+=value`,
 * `name[index]=value`, `name=(elements)`. */
struct ast_assign {
  ast_assign *next;
  const char *name;
  ast_word *index;    /* subscript of name[index]=, NULL otherwise */
  int append;         /* += */
  int is_array;       /* name=( ... ): elements in `elems` (may be empty) */
  ast_word *value;    /* scalar value; parts NULL for an empty value */
  ast_elem *elems;
  int line;
  const char *raw;    /* source text of the whole assignment word */
  size_t raw_len;
};

typedef enum ast_redir_op {
  AST_R_IN,        /* [n]<word */
  AST_R_OUT,       /* [n]>word */
  AST_R_APPEND,    /* [n]>>word */
  AST_R_CLOBBER,   /* [n]>|word */
  AST_R_RDWR,      /* [n]<>word */
  AST_R_DUPIN,     /* [n]<&word  (word: digits, "-" to close, or "N-" move) */
  AST_R_DUPOUT,    /* [n]>&word  (as DUPIN; a non-number word with no fd
                      means &>word, as in bash) */
  AST_R_ALL,       /* &>word  (stdout and stderr) */
  AST_R_ALL_APPEND,/* &>>word */
  AST_R_HERESTR,   /* [n]<<<word */
  AST_R_HEREDOC    /* [n]<<DELIM / [n]<<-DELIM; body in `body` */
} ast_redir_op;

struct ast_redir {
  ast_redir *next;
  ast_redir_op op;
  int fd;             /* explicit fd number, or -1 for the default */
  /* {varname}> form: bash allocates an fd >= 10 and stores it in the
   * variable. NULL when not used. */
  const char *varname;
  ast_word *target;   /* file, fd word or here-string; NULL for HEREDOC */
  /* Here-documents: */
  ast_word *body;     /* the body; see below */
  const char *delim;  /* delimiter after quote removal */
  int heredoc_quoted; /* delimiter had quotes: body is one SQ part (or no
                         parts when empty), no expansion */
  int strip_tabs;     /* <<- (already applied to the body) */
  const char *body_raw; /* body text after tab stripping, before any
                           expansion (for printing function bodies) */
  size_t body_raw_len;
  int line;
};
/* An unquoted here-document body is a word whose parts are LIT (text, with
 * `\$ \` \\` unescaped and backslash-newline removed; other backslashes and
 * all quotes kept as text), PARAM, CMDSUB and ARITH. The interpreter expands
 * it like a double-quoted string: no splitting, no globbing. */

/* ---- Commands ------------------------------------------------------- */

typedef enum ast_kind {
  AST_CMD,        /* simple command: u.cmd, redirs */
  AST_PIPELINE,   /* u.pipe; only when there are >1 stages, `!` or `time` */
  AST_AND,        /* u.bin: left && right (left-associative) */
  AST_OR,         /* u.bin: left || right */
  AST_LIST,       /* u.list: items run in order; an item with AST_F_BG
                     ended with `&` */
  AST_SUBSHELL,   /* ( list ): u.body */
  AST_GROUP,      /* { list; }: u.body */
  AST_IF,         /* u.ifs: elif chains are nested AST_IF in `els` */
  AST_WHILE,      /* u.loop */
  AST_UNTIL,      /* u.loop */
  AST_FOR,        /* u.forin */
  AST_SELECT,     /* u.forin; the interpreter may refuse it */
  AST_ARITH_FOR,  /* u.afor: for ((init; cond; step)) */
  AST_CASE,       /* u.casec */
  AST_FUNC,       /* u.func: a definition (executing it defines it) */
  AST_COND,       /* [[ ... ]]: u.cond */
  AST_ARITH       /* (( ... )): u.arith */
} ast_kind;

/* Every command list the parser produces (parse_next's result, the bodies
 * of if/while/until/for/select/case items/{ }/( ), $( ) and <( )) is an
 * AST_LIST node, even with one item; the items themselves are never
 * AST_LIST. A function body is the compound command itself (usually an
 * AST_GROUP). */

/* Node flags. */
#define AST_F_BG 1u       /* list item terminated by `&` */
#define AST_F_PIPE_ERR \
  2u /* pipeline stage followed by `|&`: its stderr
                             goes into the pipe too */
#define AST_F_NEGATE 4u   /* pipeline preceded by `!` */
#define AST_F_TIME \
  8u     /* pipeline preceded by `time` (AST_F_TIME_P for
                             `time -p`) */
#define AST_F_TIME_P 16u
#define AST_F_FUNC_KW 32u /* function written with the `function` keyword */

/* case item terminators. */
typedef enum ast_case_term {
  AST_CASE_BREAK,  /* ;; (also the implicit one before esac) */
  AST_CASE_FALL,   /* ;& run the next item's body without testing */
  AST_CASE_CONT    /* ;;& test the next patterns too */
} ast_case_term;

struct ast_case_item {
  ast_case_item *next;
  ast_word *patterns; /* one or more, linked by next */
  ast_node *body;     /* NULL when empty */
  ast_case_term term;
  int line;
};

/* [[ ... ]] expression tree. */
typedef enum ast_cond_kind {
  AST_C_AND,    /* left && right */
  AST_C_OR,     /* left || right */
  AST_C_NOT,    /* ! left */
  AST_C_UNARY,  /* op w1: op is "-f", "-z", "-n", "-v", ... */
  AST_C_BINARY, /* w1 op w2: op is "==" "=" "!=" "=~" "<" ">" "-eq" "-nt"
                   ... For "==" "=" "!=", w2 is a pattern (quoted parts
                   literal). For "=~", w2 is a regex word: its LIT parts are
                   regex text, quoted parts match literally. */
  AST_C_WORD    /* a lone word: true when it expands non-empty (-n) */
} ast_cond_kind;

struct ast_cond {
  ast_cond_kind kind;
  const char *op;      /* UNARY/BINARY operator text */
  ast_cond *left, *right;
  ast_word *w1, *w2;
  int line;
  int paren;           /* written inside ( ) (printing only) */
};

struct ast_node {
  ast_kind kind;
  unsigned flags;      /* AST_F_* */
  int line;            /* line where the command starts */
  ast_node *next;      /* next list item / pipeline stage */
  /* Redirections: on AST_CMD and on every compound command (SUBSHELL,
   * GROUP, IF, WHILE, UNTIL, FOR, SELECT, ARITH_FOR, CASE, COND, ARITH).
   * For AST_FUNC they are on the body node and apply at each call. */
  ast_redir *redirs;
  union {
    struct {
      ast_assign *assigns;  /* prefix assignments, may be NULL */
      ast_word *words;      /* command name and arguments, may be NULL
                               (assignment- or redirection-only command) */
    } cmd;
    struct {
      ast_node *stages;     /* linked by next; NULL only for a bare `!` or
                               `time` with no command (bash accepts both:
                               `!` alone has status 1, `time` alone 0) */
    } pipe;
    struct {
      ast_node *left, *right;
    } bin;
    struct {
      ast_node *items;      /* linked by next; >= 1 */
    } list;
    ast_node *body;         /* SUBSHELL, GROUP */
    struct {
      ast_node *cond, *then, *els; /* els NULL when no else/elif */
    } ifs;
    struct {
      ast_node *cond, *body;
    } loop;
    struct {
      const char *var;
      int has_in;           /* `in` present (words may still be NULL) */
      ast_word *words;      /* without `in`: iterate "$@" */
      ast_node *body;
    } forin;
    struct {
      /* Each expression may be NULL when empty; raw text as written. Same
       * representation as AST_P_ARITH's expr. */
      ast_word *init, *cond, *step;
      ast_node *body;
    } afor;
    struct {
      ast_word *subject;
      ast_case_item *items; /* may be NULL */
    } casec;
    struct {
      const char *name;
      ast_node *body; /* any compound command, with its redirs */
    } func;
    ast_cond *cond; /* AST_COND */
    struct {
      ast_word *expr; /* as AST_P_ARITH's expr */
      const char *text; /* raw text */
    } arith;
  } u;
};

/* ---- Trees ----------------------------------------------------------- */

/* The storage of one parse: an arena holding every node. Reference counted;
 * created by the parser with one reference. */
struct ast_tree {
  mem *m;
  arena a;
  int refs;
  const char *src_name; /* file the source came from (BASH_SOURCE), or NULL */
};

/* Creates an empty tree with one reference; NULL when out of memory. */
ast_tree *ast_tree_create(mem *m);
/* Adds a reference (for function bodies that outlive the parse). */
void ast_tree_retain(ast_tree *t);
/* Drops a reference; frees everything at zero. NULL is accepted. */
void ast_tree_release(ast_tree *t);

/* Appends a readable, deterministic rendering of a node (and everything
 * below it) to b, for tests and debugging. Returns b's error state. */
struct buf;
int ast_print(struct buf *b, const ast_node *n);
/* Renders one word the same way. */
int ast_print_word(struct buf *b, const ast_word *w);
/* Appends a function definition (AST_FUNC's name and body) laid out as
 * bash's `declare -f NAME` and `type NAME` print it, without the final
 * newline. Returns 0, MSB_ENOMEM, or MSB_ENOTSUP when the body holds
 * something it cannot reproduce exactly (then refuse loudly). The printer
 * recurses once per level of nesting, each costing up to AST_PRINT_LEVEL
 * bytes of native stack: it may use `stack` bytes (AST_PRINT_STACK_MAX
 * when nothing else is running) and fails with MSB_ELIMIT beyond. */
#define AST_PRINT_LEVEL 640
#ifndef AST_PRINT_STACK_MAX
#define AST_PRINT_STACK_MAX ((size_t)720 << 10)
#endif
int ast_print_function(struct buf *b, const char *name, const ast_node *body,
                       size_t stack);
/* Appends one command as ast_print_function lays it out ($BASH_COMMAND). */
int ast_print_command(struct buf *b, const ast_node *n, size_t stack);

#endif
