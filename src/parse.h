/* parse.h - the shell parser: bash source text to an AST (see ast.h).
 *
 * Like bash, the parser works one top-level command at a time: parse_next
 * returns the next complete command (everything up to an unquoted newline
 * at the top level, here-document bodies included), so the interpreter can
 * run it before a syntax error further down is even seen, exactly as
 * `bash -c` does. parse_string parses everything at once (REPL checks,
 * eval of small strings, tests).
 *
 * Errors carry bash's wording; the interpreter prints them with its own
 * prefix via parse_error_format. Incomplete input (unterminated quote,
 * here-document, compound command, trailing `|` or `&&`) is reported as
 * MSB_EINCOMPLETE so a REPL can ask for another line; `bash -c` prints it as
 * the matching syntax error, which parse_error_format also does. */
#ifndef MSB_PARSE_H
#define MSB_PARSE_H

#include <stddef.h>

#include "ast.h"
#include "buf.h"
#include "mem.h"

/* Deepest nesting of compound commands, substitutions and [[ ]] groups the
 * parser accepts; deeper input fails with MSB_ELIMIT and the message
 * "maximum nesting depth exceeded (1000)" instead of overflowing the
 * native stack. Each level is also charged the native stack its recursion
 * costs (bytes, as measured on the wasm build in V8's optimizing tier,
 * whose frames are the largest: see interp.h), against PARSE_STACK_MAX:
 * PARSE_MAX_DEPTH plain levels (( ), { }, if, while, case), fewer when
 * they are costlier ones, a $( ) counting about two. A caller that is
 * itself deep in a recursion gives a smaller budget (parse_set_stack). */
#ifndef PARSE_MAX_DEPTH
#define PARSE_MAX_DEPTH 1000
#endif
#define PARSE_STACK_LEVEL 720
#define PARSE_STACK_MAX ((size_t)PARSE_MAX_DEPTH * PARSE_STACK_LEVEL)

/* Parser options. */
#define PARSE_EXTGLOB 1u /* shopt -s extglob: ?( *( +( @( !( in words */

#define PARSE_STATUS_2 0
#define PARSE_STATUS_KEEP 1
#define PARSE_STATUS_NZ 2
#define PARSE_STATUS_127 3

typedef struct parse_error {
  /* MSB_ESYNTAX, MSB_EINCOMPLETE, MSB_ELIMIT (nesting), MSB_ENOMEM. */
  int code;
  /* MSB_ELIMIT from the caller's smaller stack budget (parse_set_stack),
   * not from the input's own nesting: the caller's recursion is at fault */
  int stack;
  int line;        /* line of the error, as bash reports it */
  /* Bash's message without any prefix, e.g.
   * "syntax error near unexpected token `fi'" or
   * "syntax error: unexpected end of file". */
  char msg[160];
  /* The offending source line bash echoes as its second message line
   * ("`if true; then fi'"), truncated to fit. has_text is 0 when bash
   * prints no second line (end of file), 2 when bash words the second
   * line "syntax error: `TEXT'" (bad `for ((...))`). */
  int has_text;
  char text[512];
  size_t text_len;
  /* Exit status bash -c ends with after printing the error:
   *   PARSE_STATUS_2     2 (ordinary syntax errors, unexpected end of file)
   *   PARSE_STATUS_KEEP  $? unchanged ([[ ]] expression errors)
   *   PARSE_STATUS_NZ    $? if it is non-zero, else 2 (end of input inside
   *                      a quote, ${, $((, backquote)
   *   PARSE_STATUS_127   127 (a syntax error inside $( ) or <( )) */
  int status_rule;
  /* Lines "expected `)'" bash adds after msg, one per `(` of a [[ ]]
   * expression the error unwinds through. */
  int cond_parens;
  /* For MSB_EINCOMPLETE, the message bash -c would print instead; msg holds
   * it already, this only records what was missing, e.g. "here-document",
   * "`\"'", "`fi'" (static string, for REPL prompts and tests). */
  const char *missing;
} parse_error;

typedef struct parser parser;

/* Starts parsing src[0..len) (borrowed; must outlive the parser). NUL bytes
 * in the source are dropped, as bash does when reading a script from a
 * pipe. first_line numbers the first line (normally 1). flags are
 * PARSE_*. NULL when out of memory. */
parser *parse_create(mem *m, const char *src, size_t len, int first_line,
                     unsigned flags);
/* Changes options between commands (shopt -s extglob takes effect on the
 * next top-level command, as in bash). */
void parse_set_flags(parser *p, unsigned flags);
/* Alias lookup for shopt -s expand_aliases: fn returns the value of an
 * alias (borrowed until the next call) or NULL. Words in command position
 * are looked up when the parser reaches them, so an alias defined by a
 * command is used from the next top-level command on, as in bash. NULL
 * fn turns expansion off. */
typedef const char *(*parse_alias_fn)(void *ctx, const char *name);
void parse_set_aliases(parser *p, parse_alias_fn fn, void *ctx);
/* Lowers the native stack the parse may use to max bytes (a caller deep
 * in a recursion of its own; see PARSE_STACK_MAX). */
void parse_set_stack(parser *p, size_t max);
/* Parses the next top-level command into *out (NULL at end of input).
 * Returns 0, or an error code with details in parse_get_error. After an
 * error, further calls return the same error. */
int parse_next(parser *p, ast_node **out);
/* The tree holding every node returned so far (borrowed; retain it to keep
 * nodes alive after parse_destroy). */
ast_tree *parse_tree(parser *p);
/* Details of the last error (borrowed). */
const parse_error *parse_get_error(const parser *p);
/* Current line number (the line the next command starts on). */
int parse_line(const parser *p);
/* Warnings produced by the last parse_next, as lines without the program
 * prefix ("line 2: warning: here-document at line 1 delimited by
 * end-of-file (wanted `EOF')\n"); bash -c prints each as "bash: " + line
 * at parse time. Borrowed
 * until the next call; "" when none. */
const char *parse_warnings(const parser *p, size_t *len);
/* Frees the parser and releases its reference to the tree. NULL is fine. */
void parse_destroy(parser *p);

/* Parses a whole string: *root receives an AST_LIST of every top-level
 * command (NULL for empty input) and *tree the tree owning it (one
 * reference, release with ast_tree_release). On error nothing is returned
 * and err (if not NULL) is filled. */
int parse_string(mem *m, const char *src, size_t len, int first_line,
                 unsigned flags, ast_tree **tree, ast_node **root,
                 parse_error *err);

/* 0 when src parses, MSB_EINCOMPLETE when more input could complete it,
 * MSB_ESYNTAX (or MSB_ELIMIT / MSB_ENOMEM) otherwise. For a REPL, a
 * here-document without its delimiter and a final backslash-newline are
 * incomplete too, although bash -c would run them. */
int parse_check(mem *m, const char *src, size_t len, unsigned flags);

/* Appends bash's message lines for err to b, each starting with prefix:
 * with prefix "bash: -c: " it produces
 *   "bash: -c: line 1: syntax error near unexpected token `fi'\n"
 *   "bash: -c: line 1: `if true; then fi'\n"
 * Returns b's error state. */
int parse_error_format(buf *b, const parse_error *err, const char *prefix);

#endif
