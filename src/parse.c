/* parse.c - the shell grammar: tokens to the AST of ast.h.
 *
 * Recursive descent over bash's grammar with one token of look-ahead:
 * list -> and-or -> pipeline -> command, where a command is a simple
 * command, a compound command (with trailing redirections) or a function
 * definition. Reserved words are recognised only where a command may start
 * and only as unquoted single-part words. Tokens are requested in a mode
 * (assignment words allowed, inside [[ ]], regex operand) because bash's
 * lexing depends on the grammar position; a peeked word is re-lexed when a
 * different mode asks for it.
 *
 * Nesting (compound commands, substitutions, [[ ]] groups) is bounded by
 * PARSE_MAX_DEPTH so hostile input cannot exhaust the C stack. */
#include "parse.h"

#include <string.h>

#include "lex.h"
#include "memsandbox.h"

struct parser {
  lex_state st;
  int done;
};

static int parse_list(lex_state *st, ast_node **out);
static int parse_and_or(lex_state *st, ast_node **out);
static int parse_command(lex_state *st, ast_node **out);

/* ---- Tokens ------------------------------------------------------------ */

/* Peeks the next token in a mode; re-lexes a peeked token when the mode
 * changed (newlines are never re-lexed: they read here-documents). The
 * token is read by lex_peek_next, out of line: a token copy inlined here
 * would enlarge the frame of every recursive parse function. */
static int parse_peek(lex_state *st, unsigned mode, lex_token **tok) {
  int r;
  if (st->have_peek) {
    if (st->peek_mode == mode || st->peek.t == LEX_T_NEWLINE ||
        st->peek.t == LEX_T_EOF) {
      *tok = &st->peek;
      return 0;
    }
    st->pos = st->peek.start;
    st->line = st->peek.line;
    st->have_peek = 0;
  }
  r = lex_peek_next(st, mode);
  if (r) return r;
  *tok = &st->peek;
  return 0;
}

static void parse_consume(lex_state *st) { st->have_peek = 0; }

/* Is tok the unquoted word w? */
static int parse_is_word(const lex_token *tok, const char *w) {
  return tok->t == LEX_T_WORD && tok->plain && !tok->assign &&
         !strcmp(tok->word->parts->text, w);
}

/* Words that end a compound list. */
static int parse_is_closer(const lex_token *tok) {
  static const char *const words[] = {"then", "else", "elif", "fi", "do",
                                      "done", "esac", "}",    NULL};
  int i;
  switch (tok->t) {
  case LEX_T_EOF:
  case LEX_T_RPAREN:
  case LEX_T_DSEMI:
  case LEX_T_SEMIAMP:
  case LEX_T_DSEMIAMP: return 1;
  case LEX_T_WORD:
    for (i = 0; words[i]; i++)
      if (parse_is_word(tok, words[i])) return 1;
    return 0;
  default: return 0;
  }
}

static ast_node *parse_node(lex_state *st, ast_kind k, int line) {
  ast_node *n = arena_zalloc(st->a, sizeof *n);
  if (!n) {
    lex_error(st, MSB_ENOMEM, st->line, 0, "out of memory");
    return NULL;
  }
  n->kind = k;
  n->line = line;
  return n;
}

static int parse_nomem(lex_state *st) {
  return lex_error(st, MSB_ENOMEM, st->line, 0, "out of memory");
}

/* Skips newline tokens. */
static int parse_newlines(lex_state *st) {
  lex_token *t;
  int r;
  for (;;) {
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_NEWLINE) return 0;
    parse_consume(st);
  }
}

/* Requires the reserved word w next (after newlines when nl). */
static int parse_expect_word(lex_state *st, const char *w) {
  lex_token *t;
  int r = parse_peek(st, 0, &t);
  if (r) return r;
  if (!parse_is_word(t, w)) return lex_error_token(st, t);
  parse_consume(st);
  return 0;
}

/* ---- Redirections -------------------------------------------------------- */

/* Parses a redirection; the operator token is peeked. */
static int parse_redir(lex_state *st, ast_redir **out) {
  lex_token *t;
  ast_redir *rd = arena_zalloc(st->a, sizeof *rd);
  int r;
  if (!rd) return parse_nomem(st);
  rd->op = st->peek.rop;
  rd->fd = st->peek.fd;
  rd->varname = st->peek.varname;
  rd->line = st->peek.line;
  rd->strip_tabs = rd->op == AST_R_HEREDOC && st->peek.strip_tabs;
  parse_consume(st);
  r = parse_peek(st, 0, &t);
  if (r) return r;
  if (t->t != LEX_T_WORD) return lex_error_token(st, t);
  if (rd->op == AST_R_HEREDOC) {
    r = lex_heredoc_queue(st, t, rd);
    if (r) return r;
  } else {
    rd->target = t->word;
  }
  parse_consume(st);
  *out = rd;
  return 0;
}

/* Appends redirections that follow a compound command. */
static int parse_trailing_redirs(lex_state *st, ast_node *n) {
  lex_token *t;
  ast_redir **tail = &n->redirs, *rd;
  int r;
  while (*tail) tail = &(*tail)->next;
  for (;;) {
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_REDIR) return 0;
    r = parse_redir(st, &rd);
    if (r) return r;
    *tail = rd;
    tail = &rd->next;
  }
}

/* ---- Simple commands ----------------------------------------------------- */

static int parse_is_decl(const ast_word *w) {
  static const char *const names[] = {"declare", "typeset",  "local",
                                      "export",  "readonly", NULL};
  int i;
  if (!w->parts || w->parts->next || w->parts->kind != AST_P_LIT) return 0;
  for (i = 0; names[i]; i++)
    if (!strcmp(w->parts->text, names[i])) return 1;
  return 0;
}

static int parse_funcdef(lex_state *st, const char *name, int line,
                         unsigned flags, ast_node **out);

static int parse_alias(lex_state *st, const lex_token *t, int *done);

static int parse_simple(lex_state *st, ast_node **out) {
  ast_node *n;
  ast_assign **atail;
  ast_word **wtail;
  ast_redir **rtail, *rd;
  lex_token *t;
  unsigned mode = LEX_M_ASSIGN;
  int r, nwords = 0, line;
  r = parse_peek(st, mode, &t);
  if (r) return r;
  line = t->line;
  n = parse_node(st, AST_CMD, line);
  if (!n) return MSB_ENOMEM;
  atail = &n->u.cmd.assigns;
  wtail = &n->u.cmd.words;
  rtail = &n->redirs;
  for (;;) {
    r = parse_peek(st, mode, &t);
    if (r) return r;
    if (t->t == LEX_T_REDIR) {
      r = parse_redir(st, &rd);
      if (r) return r;
      *rtail = rd;
      rtail = &rd->next;
      continue;
    }
    if (t->t == LEX_T_LPAREN && nwords == 1 && !n->u.cmd.assigns &&
        !n->redirs && n->u.cmd.words->parts && !n->u.cmd.words->parts->next &&
        n->u.cmd.words->parts->kind == AST_P_LIT) {
      /* name ( ) compound-command */
      parse_consume(st);
      r = parse_peek(st, 0, &t);
      if (r) return r;
      if (t->t != LEX_T_RPAREN) return lex_error_token(st, t);
      parse_consume(st);
      return parse_funcdef(st, n->u.cmd.words->parts->text, line, 0, out);
    }
    if (t->t != LEX_T_WORD) break;
    if (nwords == 0 && t->assign) {
      *atail = t->assign;
      atail = &t->assign->next;
      parse_consume(st);
      continue;
    }
    if (t->array_assign && nwords == 0) {
      *atail = t->assign;
      atail = &t->assign->next;
      parse_consume(st);
      continue;
    }
    if (nwords > 0 && (st->alias_first ||
                       (st->alias_next && t->start >= st->alias_next_at))) {
      /* after an alias whose value ends in a blank, and the first word of
       * what that word expanded to */
      int done;
      if (!st->alias_first || t->start >= st->alias_next_at) st->alias_next = 0;
      st->alias_first = 0;
      r = parse_alias(st, t, &done);
      if (r) return r;
      if (done) {
        st->alias_first = 1;
        continue;
      }
    }
    if (nwords == 0 && n->u.cmd.assigns && st->alias_fn) {
      /* x=1 ll: the first word after assignments is in command position */
      int done;
      r = parse_alias(st, t, &done);
      if (r) return r;
      if (done) continue;
    }
    *wtail = t->word;
    wtail = &t->word->next;
    nwords++;
    parse_consume(st);
    mode = (nwords >= 1 && parse_is_decl(n->u.cmd.words)) ? LEX_M_ASSIGN : 0;
  }
  if (!nwords && !n->u.cmd.assigns && !n->redirs) return lex_error_token(st, t);
  *out = n;
  return 0;
}

/* ---- Compound commands --------------------------------------------------- */

/* A compound list that must hold at least one command. */
static int parse_body(lex_state *st, ast_node **out) {
  lex_token *t;
  int r = parse_list(st, out);
  if (r) return r;
  if (!*out) {
    r = parse_peek(st, 0, &t);
    if (r) return r;
    return lex_error_token(st, t);
  }
  return 0;
}

static int parse_if(lex_state *st, int line, ast_node **out) {
  ast_node *n = parse_node(st, AST_IF, line);
  lex_token *t;
  int r;
  if (!n) return MSB_ENOMEM;
  r = parse_body(st, &n->u.ifs.cond);
  if (!r) r = parse_expect_word(st, "then");
  if (!r) r = parse_body(st, &n->u.ifs.then);
  if (!r) r = parse_peek(st, 0, &t);
  if (r) return r;
  if (parse_is_word(t, "elif")) {
    int l2 = t->line;
    parse_consume(st);
    r = parse_if(st, l2, &n->u.ifs.els);
    if (r) return r;
    *out = n;
    return 0;
  }
  if (parse_is_word(t, "else")) {
    parse_consume(st);
    r = parse_body(st, &n->u.ifs.els);
    if (r) return r;
  }
  r = parse_expect_word(st, "fi");
  if (r) return r;
  *out = n;
  return 0;
}

static int parse_loop(lex_state *st, ast_kind k, int line, ast_node **out) {
  ast_node *n = parse_node(st, k, line);
  int r;
  if (!n) return MSB_ENOMEM;
  r = parse_body(st, &n->u.loop.cond);
  if (!r) r = parse_expect_word(st, "do");
  if (!r) r = parse_body(st, &n->u.loop.body);
  if (!r) r = parse_expect_word(st, "done");
  if (r) return r;
  *out = n;
  return 0;
}

/* do list done (or { list } as bash also accepts for loops). */
static int parse_do_group(lex_state *st, ast_node **body) {
  lex_token *t;
  int r = parse_newlines(st);
  if (!r) r = parse_peek(st, 0, &t);
  if (r) return r;
  if (parse_is_word(t, "{")) {
    parse_consume(st);
    r = parse_body(st, body);
    if (!r) r = parse_expect_word(st, "}");
    return r;
  }
  r = parse_expect_word(st, "do");
  if (!r) r = parse_body(st, body);
  if (!r) r = parse_expect_word(st, "done");
  return r;
}

static int parse_for(lex_state *st, ast_kind k, int line, ast_node **out) {
  ast_node *n;
  lex_token *t;
  ast_word **wtail;
  int r;
  /* for (( ... )) */
  if (k == AST_FOR && lex_peek_char(st) == '(' && st->pos + 1 < st->len &&
      st->src[st->pos + 1] == '(') {
    ast_word *w3[3];
    n = parse_node(st, AST_ARITH_FOR, line);
    if (!n) return MSB_ENOMEM;
    st->pos += 2;
    r = lex_arith_for(st, w3);
    if (r) return r;
    n->u.afor.init = w3[0];
    n->u.afor.cond = w3[1];
    n->u.afor.step = w3[2];
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t == LEX_T_SEMI) parse_consume(st);
    r = parse_do_group(st, &n->u.afor.body);
    if (r) return r;
    *out = n;
    return 0;
  }
  n = parse_node(st, k, line);
  if (!n) return MSB_ENOMEM;
  r = parse_peek(st, 0, &t);
  if (r) return r;
  if (t->t != LEX_T_WORD) return lex_error_token(st, t);
  /* The name is validated when the loop runs, as bash does. */
  n->u.forin.var = arena_strndup(st->a, t->raw, t->raw_len);
  if (!n->u.forin.var) return parse_nomem(st);
  parse_consume(st);
  r = parse_newlines(st);
  if (!r) r = parse_peek(st, 0, &t);
  if (r) return r;
  if (parse_is_word(t, "in")) {
    n->u.forin.has_in = 1;
    parse_consume(st);
    wtail = &n->u.forin.words;
    for (;;) {
      r = parse_peek(st, 0, &t);
      if (r) return r;
      if (t->t != LEX_T_WORD) break;
      *wtail = t->word;
      wtail = &t->word->next;
      parse_consume(st);
    }
    if (t->t != LEX_T_SEMI && t->t != LEX_T_NEWLINE)
      return lex_error_token(st, t);
    parse_consume(st);
  } else if (t->t == LEX_T_SEMI) {
    parse_consume(st);
  }
  r = parse_do_group(st, &n->u.forin.body);
  if (r) return r;
  *out = n;
  return 0;
}

static int parse_case(lex_state *st, int line, ast_node **out) {
  ast_node *n = parse_node(st, AST_CASE, line);
  ast_case_item **itail;
  lex_token *t;
  int r;
  if (!n) return MSB_ENOMEM;
  r = parse_peek(st, 0, &t);
  if (r) return r;
  if (t->t != LEX_T_WORD) return lex_error_token(st, t);
  n->u.casec.subject = t->word;
  parse_consume(st);
  r = parse_newlines(st);
  if (!r) r = parse_expect_word(st, "in");
  if (r) return r;
  itail = &n->u.casec.items;
  for (;;) {
    ast_case_item *it;
    ast_word **ptail;
    r = parse_newlines(st);
    if (!r) r = parse_peek(st, 0, &t);
    if (r) return r;
    if (parse_is_word(t, "esac")) {
      parse_consume(st);
      break;
    }
    it = arena_zalloc(st->a, sizeof *it);
    if (!it) return parse_nomem(st);
    it->line = t->line;
    if (t->t == LEX_T_LPAREN) {
      parse_consume(st);
      r = parse_peek(st, 0, &t);
      if (r) return r;
    }
    ptail = &it->patterns;
    for (;;) {
      if (t->t != LEX_T_WORD) return lex_error_token(st, t);
      *ptail = t->word;
      ptail = &t->word->next;
      parse_consume(st);
      r = parse_peek(st, 0, &t);
      if (r) return r;
      if (t->t == LEX_T_RPAREN) break;
      if (t->t != LEX_T_PIPE) return lex_error_token(st, t);
      parse_consume(st);
      r = parse_peek(st, 0, &t);
      if (r) return r;
    }
    parse_consume(st);
    r = parse_list(st, &it->body);
    if (!r) r = parse_peek(st, 0, &t);
    if (r) return r;
    *itail = it;
    itail = &it->next;
    if (t->t == LEX_T_DSEMI || t->t == LEX_T_SEMIAMP ||
        t->t == LEX_T_DSEMIAMP) {
      it->term = t->t == LEX_T_DSEMI     ? AST_CASE_BREAK
                 : t->t == LEX_T_SEMIAMP ? AST_CASE_FALL
                                         : AST_CASE_CONT;
      parse_consume(st);
      continue;
    }
    if (parse_is_word(t, "esac")) {
      parse_consume(st);
      break;
    }
    return lex_error_token(st, t);
  }
  *out = n;
  return 0;
}

/* ---- [[ ... ]] ---------------------------------------------------------- */

static int parse_cond_or(lex_state *st, ast_cond **out);

/* Records a [[ ]] error: bash prints it without the source line and keeps
 * the previous exit status. */
static int parse_cond_error(lex_state *st, int line, const char *msg) {
  int r = lex_error(st, MSB_ESYNTAX, line, 0, msg);
  st->err.status_rule = PARSE_STATUS_KEEP;
  return r;
}

static int parse_cond_error_tok(lex_state *st, const char *pre,
                                const lex_token *t, const char *post) {
  char msg[160];
  const char *txt = t->t == LEX_T_EOF ? "newline" : lex_tok_text(st, t);
  size_t a = strlen(pre), b = strlen(txt), c = strlen(post);
  if (t->t == LEX_T_EOF) return lex_error_eof(st, "]]");
  if (b > sizeof msg - a - c - 1) b = sizeof msg - a - c - 1;
  memcpy(msg, pre, a);
  memcpy(msg + a, txt, b);
  memcpy(msg + a + b, post, c + 1);
  return parse_cond_error(st, t->line, msg);
}

static int parse_cond_is_unary(const lex_token *t) {
  static const char ops[] = "abcdefghknoprstuvwxzGLNORS";
  const char *s;
  if (t->t != LEX_T_WORD || !t->plain) return 0;
  s = t->word->parts->text;
  return s[0] == '-' && s[1] && !s[2] && strchr(ops, s[1]);
}

static int parse_cond_is_binary(const lex_token *t) {
  static const char *const ops[] = {"==",  "=",   "!=",  "=~",  "<",   ">",
                                    "-eq", "-ne", "-lt", "-le", "-gt", "-ge",
                                    "-nt", "-ot", "-ef", NULL};
  int i;
  if (t->t != LEX_T_WORD || !t->plain) return 0;
  for (i = 0; ops[i]; i++)
    if (!strcmp(t->word->parts->text, ops[i])) return 1;
  return 0;
}

static ast_cond *parse_cond_new(lex_state *st, ast_cond_kind k, int line) {
  ast_cond *c = arena_zalloc(st->a, sizeof *c);
  if (!c) {
    parse_nomem(st);
    return NULL;
  }
  c->kind = k;
  c->line = line;
  return c;
}

static int parse_cond_primary(lex_state *st, ast_cond **out) {
  lex_token *t, first;
  ast_cond *c;
  int r;
  for (;;) {
    r = parse_peek(st, LEX_M_COND, &t);
    if (r) return r;
    if (t->t != LEX_T_NEWLINE) break;
    parse_consume(st);
  }
  if (t->t == LEX_T_EOF) {
    r = lex_error(st, MSB_EINCOMPLETE, lex_eof_line(st), 0,
                  "unexpected token `EOF' in conditional command");
    st->err.missing = "]]";
    st->err.status_rule = PARSE_STATUS_KEEP;
    return r;
  }
  if (t->t == LEX_T_LPAREN) {
    int line = t->line;
    parse_consume(st);
    r = lex_enter(st, LEX_STACK_COND);
    if (r) return r;
    r = parse_cond_or(st, out);
    lex_leave(st, LEX_STACK_COND);
    if (r == MSB_ESYNTAX && st->err.status_rule == PARSE_STATUS_KEEP)
      st->err.cond_parens++;
    if (!r) r = parse_peek(st, LEX_M_COND, &t);
    if (r) return r;
    if (t->t != LEX_T_RPAREN)
      return parse_cond_error_tok(st, "unexpected token `", t,
                                  "', expected `)'");
    (void)line;
    (*out)->paren = 1;
    parse_consume(st);
    return 0;
  }
  if (t->t == LEX_T_WORD && parse_is_word(t, "!")) {
    c = parse_cond_new(st, AST_C_NOT, t->line);
    if (!c) return MSB_ENOMEM;
    parse_consume(st);
    r = lex_enter(st, LEX_STACK_COND);
    if (r) return r;
    r = parse_cond_primary(st, &c->left);
    lex_leave(st, LEX_STACK_COND);
    if (r) return r;
    *out = c;
    return 0;
  }
  if (t->t != LEX_T_WORD || parse_is_word(t, "]]")) {
    if (t->t == LEX_T_EOF) return lex_error_eof(st, "]]");
    if (t->t == LEX_T_WORD || t->t == LEX_T_AND || t->t == LEX_T_OR) {
      /* bash ends such expressions silently. */
      return parse_cond_error(st, t->line, "");
    }
    return parse_cond_error_tok(st, "unexpected token `", t,
                                "' in conditional command");
  }
  first = *t;
  parse_consume(st);
  if (parse_cond_is_unary(&first)) {
    r = parse_peek(st, LEX_M_COND, &t);
    if (r) return r;
    if (t->t == LEX_T_WORD && !parse_is_word(t, "]]") &&
        !parse_cond_is_binary(t)) {
      c = parse_cond_new(st, AST_C_UNARY, first.line);
      if (!c) return MSB_ENOMEM;
      c->op = first.word->parts->text;
      c->w1 = t->word;
      parse_consume(st);
      *out = c;
      return 0;
    }
    if (t->t != LEX_T_WORD || parse_is_word(t, "]]")) {
      if (t->t == LEX_T_NEWLINE || parse_is_word(t, "]]"))
        return parse_cond_error_tok(st, "unexpected argument `", t,
                                    "' to conditional unary operator");
    }
    /* Otherwise the operator is a plain word (e.g. `-f == -f`). */
  }
  r = parse_peek(st, LEX_M_COND, &t);
  if (r) return r;
  if (parse_cond_is_binary(t)) {
    lex_token op = *t;
    int regex = !strcmp(op.word->parts->text, "=~");
    c = parse_cond_new(st, AST_C_BINARY, first.line);
    if (!c) return MSB_ENOMEM;
    c->op = op.word->parts->text;
    c->w1 = first.word;
    parse_consume(st);
    r = parse_peek(st, regex ? LEX_M_REGEX : LEX_M_COND, &t);
    if (r) return r;
    if (t->t != LEX_T_WORD || parse_is_word(t, "]]")) {
      if (t->t == LEX_T_EOF) return lex_error_eof(st, "]]");
      return parse_cond_error_tok(st, "unexpected argument `", t,
                                  "' to conditional binary operator");
    }
    c->w2 = t->word;
    parse_consume(st);
    *out = c;
    return 0;
  }
  if (t->t == LEX_T_WORD && !parse_is_word(t, "]]"))
    return parse_cond_error(st, t->line,
                            "conditional binary operator expected");
  if (t->t == LEX_T_NEWLINE)
    return parse_cond_error_tok(st, "unexpected token `", t,
                                "', conditional binary operator expected");
  c = parse_cond_new(st, AST_C_WORD, first.line);
  if (!c) return MSB_ENOMEM;
  c->w1 = first.word;
  *out = c;
  return 0;
}

static int parse_cond_and(lex_state *st, ast_cond **out) {
  lex_token *t;
  ast_cond *c;
  int r = parse_cond_primary(st, out);
  for (;;) {
    if (r) return r;
    r = parse_peek(st, LEX_M_COND, &t);
    if (r) return r;
    if (t->t != LEX_T_AND) return 0;
    c = parse_cond_new(st, AST_C_AND, t->line);
    if (!c) return MSB_ENOMEM;
    parse_consume(st);
    r = parse_newlines(st);
    if (r) return r;
    c->left = *out;
    r = parse_cond_primary(st, &c->right);
    *out = c;
  }
}

static int parse_cond_or(lex_state *st, ast_cond **out) {
  lex_token *t;
  ast_cond *c;
  int r = parse_cond_and(st, out);
  for (;;) {
    if (r) return r;
    r = parse_peek(st, LEX_M_COND, &t);
    if (r) return r;
    if (t->t != LEX_T_OR) return 0;
    c = parse_cond_new(st, AST_C_OR, t->line);
    if (!c) return MSB_ENOMEM;
    parse_consume(st);
    r = parse_newlines(st);
    if (r) return r;
    c->left = *out;
    r = parse_cond_and(st, &c->right);
    *out = c;
  }
}

static int parse_cond(lex_state *st, int line, ast_node **out) {
  ast_node *n = parse_node(st, AST_COND, line);
  lex_token *t;
  unsigned saved = st->flags;
  int r;
  if (!n) return MSB_ENOMEM;
  /* bash 5.2 parses [[ ... ]] with extglob on whatever the shopt says. */
  st->flags |= PARSE_EXTGLOB;
  r = parse_cond_or(st, &n->u.cond);
  if (!r) r = parse_peek(st, LEX_M_COND, &t);
  st->flags = saved;
  if (r) return r;
  if (!parse_is_word(t, "]]")) {
    if (t->t == LEX_T_EOF) return lex_error_eof(st, "]]");
    if (t->t == LEX_T_RPAREN)
      return parse_cond_error(
          st, t->line,
          "syntax error in conditional expression: unexpected token `)'");
    return parse_cond_error(st, t->line,
                            "syntax error in conditional expression");
  }
  parse_consume(st);
  *out = n;
  return 0;
}

/* ---- Commands ------------------------------------------------------------ */

static int parse_is_compound_start(lex_state *st, const lex_token *t) {
  static const char *const words[] = {"{",    "if", "while",  "until",    "for",
                                      "case", "[[", "select", "function", NULL};
  int i;
  (void)st;
  if (t->t == LEX_T_LPAREN) return 1;
  for (i = 0; words[i]; i++)
    if (parse_is_word(t, words[i])) return 1;
  return 0;
}

static int parse_funcdef(lex_state *st, const char *name, int line,
                         unsigned flags, ast_node **out) {
  ast_node *n = parse_node(st, AST_FUNC, line);
  lex_token *t;
  int r;
  if (!n) return MSB_ENOMEM;
  n->flags = flags;
  n->u.func.name = name;
  r = parse_newlines(st);
  if (!r) r = parse_peek(st, 0, &t);
  if (r) return r;
  if (!parse_is_compound_start(st, t) || parse_is_word(t, "function"))
    return lex_error_token(st, t);
  /* the body's own level does not cover the definition's frames */
  r = lex_enter(st, LEX_STACK_FUNC);
  if (r) return r;
  r = parse_command(st, &n->u.func.body);
  lex_leave(st, LEX_STACK_FUNC);
  if (r) return r;
  *out = n;
  return 0;
}

static int parse_compound(lex_state *st, lex_token *t, ast_node **out) {
  int line = t->line, r;
  ast_node *n = NULL;
  if (t->t == LEX_T_LPAREN) {
    /* "((" is an arithmetic command unless it closes like two subshells. */
    if (t->start + 1 < st->len && st->src[t->start + 1] == '(') {
      st->pos = t->start;
      st->line = t->line;
      parse_consume(st);
      if (lex_dparen_is_arith(st)) {
        n = parse_node(st, AST_ARITH, line);
        if (!n) return MSB_ENOMEM;
        r = lex_arith_cmd(st, &n->u.arith.expr, &n->u.arith.text);
        if (r) return r;
        goto redirs;
      }
      st->pos++;
    } else {
      parse_consume(st);
    }
    n = parse_node(st, AST_SUBSHELL, line);
    if (!n) return MSB_ENOMEM;
    r = parse_body(st, &n->u.body);
    if (!r) r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_RPAREN) return lex_error_token(st, t);
    parse_consume(st);
    goto redirs;
  }
  if (parse_is_word(t, "{")) {
    parse_consume(st);
    n = parse_node(st, AST_GROUP, line);
    if (!n) return MSB_ENOMEM;
    r = parse_body(st, &n->u.body);
    if (!r) r = parse_expect_word(st, "}");
    if (r) return r;
    goto redirs;
  }
  if (parse_is_word(t, "if")) {
    parse_consume(st);
    r = parse_if(st, line, &n);
  } else if (parse_is_word(t, "while")) {
    parse_consume(st);
    r = parse_loop(st, AST_WHILE, line, &n);
  } else if (parse_is_word(t, "until")) {
    parse_consume(st);
    r = parse_loop(st, AST_UNTIL, line, &n);
  } else if (parse_is_word(t, "for")) {
    parse_consume(st);
    r = parse_for(st, AST_FOR, line, &n);
  } else if (parse_is_word(t, "select")) {
    parse_consume(st);
    r = parse_for(st, AST_SELECT, line, &n);
  } else if (parse_is_word(t, "case")) {
    parse_consume(st);
    r = parse_case(st, line, &n);
  } else if (parse_is_word(t, "[[")) {
    parse_consume(st);
    r = parse_cond(st, line, &n);
  } else {
    /* function name [()] compound */
    const char *name;
    parse_consume(st);
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_WORD) return lex_error_token(st, t);
    name = arena_strndup(st->a, t->raw, t->raw_len);
    if (!name) return parse_nomem(st);
    parse_consume(st);
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t == LEX_T_LPAREN) {
      parse_consume(st);
      r = parse_peek(st, 0, &t);
      if (r) return r;
      if (t->t != LEX_T_RPAREN) return lex_error_token(st, t);
      parse_consume(st);
    }
    return parse_funcdef(st, name, line, AST_F_FUNC_KW, out);
  }
  if (r) return r;
redirs:
  r = parse_trailing_redirs(st, n);
  if (r) return r;
  *out = n;
  return 0;
}

/* Most bytes alias expansion may rewrite in one parse (each expansion
 * copies the rest of the source). */
#define PARSE_ALIAS_MAX_BYTES ((size_t)64 << 20)

/* Alias expansion of a plain word in command position: the word is
 * replaced in the source text by the alias value and lexing goes on from
 * there, so the value may hold any syntax. Sets *done when it expanded. */
static int parse_alias(lex_state *st, const lex_token *t, int *done) {
  const char *name, *val;
  size_t end = st->pos, vlen, rest;
  char *nb;
  int i, k;
  *done = 0;
  if (!st->alias_fn || st->cmdsub_depth || st->in_backquote ||
      t->t != LEX_T_WORD || !t->plain || t->assign || !t->word->parts)
    return 0;
  name = t->word->parts->text;
  for (i = 0; i < st->nalias_act; i++)
    if (st->alias_act[i].end > t->start && !strcmp(st->alias_act[i].name, name))
      return 0;
  val = st->alias_fn(st->alias_ctx, name);
  if (!val ||
      st->nalias_act >= (int)(sizeof st->alias_act / sizeof st->alias_act[0]))
    return 0;
  vlen = strlen(val);
  rest = st->len - end;
  st->alias_bytes += vlen + rest;
  if (st->alias_bytes > PARSE_ALIAS_MAX_BYTES)
    return lex_error(st, MSB_ELIMIT, t->line, 0,
                     "memsandbox: alias expansion too large");
  nb = arena_alloc(st->a, vlen + rest + 1);
  name = arena_strdup(st->a, name);
  if (!nb || !name) return parse_nomem(st);
  memcpy(nb, val, vlen);
  memcpy(nb + vlen, st->src + end, rest);
  nb[vlen + rest] = 0;
  /* expansions still open move with the text (the new source starts at
   * the value); one that held the word now holds at least the value */
  for (i = k = 0; i < st->nalias_act; i++)
    if (st->alias_act[i].end > t->start) {
      size_t e = st->alias_act[i].end;
      st->alias_act[k].name = st->alias_act[i].name;
      st->alias_act[k++].end = e > end ? e - end + vlen : vlen;
    }
  st->alias_act[k].name = name;
  st->alias_act[k++].end = vlen;
  st->nalias_act = k;
  st->alias_next = vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t');
  st->alias_next_at = vlen;
  st->src = nb;
  st->len = vlen + rest;
  st->pos = 0;
  st->have_peek = 0;
  *done = 1;
  return 0;
}

static int parse_command(lex_state *st, ast_node **out) {
  lex_token *t;
  int r = parse_peek(st, LEX_M_ASSIGN, &t), done;
  if (r) return r;
  st->alias_next = st->alias_first = 0;
  while (st->alias_fn) {
    r = parse_alias(st, t, &done);
    if (r) return r;
    if (!done) break;
    r = parse_peek(st, LEX_M_ASSIGN, &t);
    if (r) return r;
  }
  if (parse_is_word(t, "coproc"))
    return lex_error(st, MSB_ENOTSUP, t->line, 0,
                     "memsandbox: coproc is not supported");
  if (parse_is_compound_start(st, t)) {
    size_t cost = parse_is_word(t, "for") || parse_is_word(t, "select")
                      ? LEX_STACK_LOOP
                      : PARSE_STACK_LEVEL;
    r = lex_enter(st, cost);
    if (r) return r;
    r = parse_compound(st, t, out);
    lex_leave(st, cost);
    return r;
  }
  if (t->t == LEX_T_WORD && t->plain && !t->assign) {
    static const char *const bad[] = {"then", "else", "elif", "fi",
                                      "do",   "done", "esac", "}",
                                      "in",   "]]",   NULL};
    int i;
    for (i = 0; bad[i]; i++)
      if (parse_is_word(t, bad[i])) return lex_error_token(st, t);
  }
  return parse_simple(st, out);
}

/* [time [-p]] [!] command { | command } */
static int parse_pipeline(lex_state *st, ast_node **out) {
  lex_token *t;
  ast_node *n = NULL, *first, **tail;
  unsigned flags = 0;
  int r, line, nstages = 1;
  r = parse_peek(st, LEX_M_ASSIGN, &t);
  if (r) return r;
  line = t->line;
  for (;;) {
    if (parse_is_word(t, "time") && !(flags & AST_F_TIME)) {
      flags |= AST_F_TIME;
      parse_consume(st);
      r = parse_peek(st, LEX_M_ASSIGN, &t);
      if (r) return r;
      if (parse_is_word(t, "-p")) {
        flags |= AST_F_TIME_P;
        parse_consume(st);
        r = parse_peek(st, LEX_M_ASSIGN, &t);
        if (r) return r;
      }
      continue;
    }
    if (parse_is_word(t, "!")) {
      flags ^= AST_F_NEGATE;
      parse_consume(st);
      r = parse_peek(st, LEX_M_ASSIGN, &t);
      if (r) return r;
      continue;
    }
    break;
  }
  if (flags && (t->t == LEX_T_NEWLINE || t->t == LEX_T_SEMI ||
                t->t == LEX_T_EOF || t->t == LEX_T_AMP || parse_is_closer(t))) {
    /* `time` or `!` alone: an empty pipeline (bash accepts it). */
    n = parse_node(st, AST_PIPELINE, line);
    if (!n) return MSB_ENOMEM;
    n->flags = flags;
    *out = n;
    return 0;
  }
  r = parse_command(st, &first);
  if (r) return r;
  tail = &first->next;
  for (;;) {
    ast_node *stage;
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_PIPE && t->t != LEX_T_PIPEAMP) break;
    if (t->t == LEX_T_PIPEAMP) {
      ast_node *last = first;
      while (last->next) last = last->next;
      last->flags |= AST_F_PIPE_ERR;
    }
    parse_consume(st);
    r = parse_newlines(st);
    if (!r) r = parse_peek(st, LEX_M_ASSIGN, &t);
    if (r) return r;
    if (parse_is_word(t, "!")) return lex_error_token(st, t);
    r = parse_command(st, &stage);
    if (r) return r;
    *tail = stage;
    tail = &stage->next;
    nstages++;
  }
  if (nstages == 1 && !flags) {
    *out = first;
    return 0;
  }
  n = parse_node(st, AST_PIPELINE, line);
  if (!n) return MSB_ENOMEM;
  n->flags = flags;
  n->u.pipe.stages = first;
  *out = n;
  return 0;
}

static int parse_and_or(lex_state *st, ast_node **out) {
  lex_token *t;
  ast_node *left, *n;
  int r = parse_pipeline(st, &left);
  if (r) return r;
  for (;;) {
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t != LEX_T_AND && t->t != LEX_T_OR) break;
    n = parse_node(st, t->t == LEX_T_AND ? AST_AND : AST_OR, left->line);
    if (!n) return MSB_ENOMEM;
    parse_consume(st);
    r = parse_newlines(st);
    if (r) return r;
    n->u.bin.left = left;
    r = parse_pipeline(st, &n->u.bin.right);
    if (r) return r;
    left = n;
  }
  *out = left;
  return 0;
}

/* A compound list: and-or lists separated by ; & and newlines, up to a
 * closing token (left unconsumed). *out is an AST_LIST or NULL when empty. */
static int parse_list(lex_state *st, ast_node **out) {
  lex_token *t;
  ast_node *list = NULL, **tail = NULL, *item;
  int r;
  *out = NULL;
  for (;;) {
    r = parse_newlines(st);
    if (!r) r = parse_peek(st, LEX_M_ASSIGN, &t);
    if (r) return r;
    if (parse_is_closer(t)) break;
    r = parse_and_or(st, &item);
    if (r) return r;
    if (!list) {
      list = parse_node(st, AST_LIST, item->line);
      if (!list) return MSB_ENOMEM;
      tail = &list->u.list.items;
    }
    *tail = item;
    tail = &item->next;
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t == LEX_T_SEMI || t->t == LEX_T_AMP) {
      if (t->t == LEX_T_AMP) item->flags |= AST_F_BG;
      parse_consume(st);
      continue;
    }
    if (t->t == LEX_T_NEWLINE) continue;
    break;
  }
  *out = list;
  return 0;
}

/* One top-level command line: and-or lists up to a newline or EOF. */
static int parse_line_cmd(lex_state *st, ast_node **out) {
  lex_token *t;
  ast_node *list = NULL, **tail = NULL, *item;
  int r;
  *out = NULL;
  r = parse_newlines(st);
  if (!r) r = parse_peek(st, LEX_M_ASSIGN, &t);
  if (r) return r;
  if (t->t == LEX_T_EOF) return lex_read_heredocs(st);
  for (;;) {
    r = parse_and_or(st, &item);
    if (r) return r;
    if (!list) {
      list = parse_node(st, AST_LIST, item->line);
      if (!list) return MSB_ENOMEM;
      tail = &list->u.list.items;
    }
    *tail = item;
    tail = &item->next;
    r = parse_peek(st, 0, &t);
    if (r) return r;
    if (t->t == LEX_T_SEMI || t->t == LEX_T_AMP) {
      if (t->t == LEX_T_AMP) item->flags |= AST_F_BG;
      parse_consume(st);
      r = parse_peek(st, LEX_M_ASSIGN, &t);
      if (r) return r;
      if (t->t == LEX_T_NEWLINE) {
        parse_consume(st);
        break;
      }
      if (t->t == LEX_T_EOF) break;
      continue;
    }
    if (t->t == LEX_T_NEWLINE) {
      parse_consume(st);
      break;
    }
    if (t->t == LEX_T_EOF) break;
    return lex_error_token(st, t);
  }
  if (t->t == LEX_T_EOF) {
    r = lex_read_heredocs(st);
    if (r) return r;
  }
  *out = list;
  return 0;
}

/* ---- Entry points for the lexer ------------------------------------------ */

int parse_cmdsub_body(lex_state *st, ast_node **out) {
  lex_token *t, *saved;
  int r = lex_peek_save(st, &saved);
  if (r) return r;
  r = parse_list(st, out);
  if (!r) r = parse_peek(st, 0, &t);
  if (r) return r;
  if (t->t == LEX_T_EOF) {
    /* bash exits 2 here, whatever $? was. */
    r = lex_error_match(st, lex_eof_line(st), ")");
    if (st->err.code == MSB_EINCOMPLETE) st->err.status_rule = PARSE_STATUS_2;
    return r;
  }
  if (t->t != LEX_T_RPAREN) return lex_error_token(st, t);
  parse_consume(st);
  lex_peek_restore(st, saved);
  return 0;
}

int parse_sub_source(lex_state *st, const char *src, size_t len, int line,
                     ast_node **out) {
  const char *osrc = st->src;
  size_t olen = st->len, opos = st->pos;
  int oline = st->line, r;
  lex_token *saved;
  ast_node *list = NULL, **tail = NULL, *cmd;
  r = lex_peek_save(st, &saved);
  if (r) return r;
  st->src = src;
  st->len = len;
  st->pos = 0;
  st->line = line;
  st->in_backquote++;
  for (;;) {
    r = parse_line_cmd(st, &cmd);
    if (r || !cmd) break;
    if (!list) {
      list = cmd;
      tail = &cmd->u.list.items;
      while (*tail) tail = &(*tail)->next;
    } else {
      *tail = cmd->u.list.items;
      while (*tail) tail = &(*tail)->next;
    }
  }
  st->in_backquote--;
  st->src = osrc;
  st->len = olen;
  st->pos = opos;
  st->line = oline;
  lex_peek_restore(st, saved);
  if (r) return r;
  *out = list;
  return 0;
}

/* ---- Public API ---------------------------------------------------------- */

parser *parse_create(mem *m, const char *src, size_t len, int first_line,
                     unsigned flags) {
  parser *p = mem_zalloc(m, sizeof *p);
  lex_state *st;
  if (!p) return NULL;
  st = &p->st;
  st->m = m;
  st->tree = ast_tree_create(m);
  if (!st->tree) {
    mem_free(m, p);
    return NULL;
  }
  st->a = &st->tree->a;
  if (len && memchr(src, 0, len)) {
    /* Drop NUL bytes, as bash does for scripts read from a pipe. */
    char *copy = arena_alloc(st->a, len);
    size_t i, n = 0;
    if (!copy) {
      ast_tree_release(st->tree);
      mem_free(m, p);
      return NULL;
    }
    for (i = 0; i < len; i++)
      if (src[i]) copy[n++] = src[i];
    src = copy;
    len = n;
  }
  st->src = st->top_src = src;
  st->len = st->top_len = len;
  st->line = st->top_first_line = first_line;
  st->flags = flags;
  st->stack_max = PARSE_STACK_MAX;
  buf_init(&st->warn, m);
  return p;
}

void parse_set_flags(parser *p, unsigned flags) { p->st.flags = flags; }

void parse_set_stack(parser *p, size_t max) {
  p->st.stack_max = max < PARSE_STACK_MAX ? max : PARSE_STACK_MAX;
}

/* Sets the alias lookup (NULL: no alias expansion). */
void parse_set_aliases(parser *p, parse_alias_fn fn, void *ctx) {
  p->st.alias_fn = fn;
  p->st.alias_ctx = ctx;
}

int parse_next(parser *p, ast_node **out) {
  lex_state *st = &p->st;
  int r;
  *out = NULL;
  buf_clear(&st->warn);
  lex_memo_reset(st, 0);
  if (st->failed) return st->err.code;
  if (p->done) return 0;
  r = parse_line_cmd(st, out);
  if (r) {
    *out = NULL;
    if (!st->failed) lex_error(st, r, st->line, 0, "out of memory");
    return st->err.code;
  }
  if (st->warn.err) {
    *out = NULL;
    return lex_error(st, MSB_ENOMEM, st->line, 0, "out of memory");
  }
  if (!*out) p->done = 1;
  return 0;
}

ast_tree *parse_tree(parser *p) { return p->st.tree; }

const parse_error *parse_get_error(const parser *p) { return &p->st.err; }

int parse_line(const parser *p) { return p->st.line; }

const char *parse_warnings(const parser *p, size_t *len) {
  if (len) *len = p->st.warn.len;
  return buf_str(&p->st.warn);
}

void parse_destroy(parser *p) {
  mem *m;
  if (!p) return;
  m = p->st.m;
  buf_finish(&p->st.warn);
  lex_memo_reset(&p->st, 1);
  ast_tree_release(p->st.tree);
  mem_free(m, p);
}

int parse_string(mem *m, const char *src, size_t len, int first_line,
                 unsigned flags, ast_tree **tree, ast_node **root,
                 parse_error *err) {
  parser *p = parse_create(m, src, len, first_line, flags);
  ast_node *list = NULL, **tail = NULL, *cmd;
  int r;
  *tree = NULL;
  *root = NULL;
  if (!p) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->code = MSB_ENOMEM;
      memcpy(err->msg, "out of memory", 14);
    }
    return MSB_ENOMEM;
  }
  for (;;) {
    r = parse_next(p, &cmd);
    if (r || !cmd) break;
    if (!list) {
      list = cmd;
      tail = &cmd->u.list.items;
    } else {
      *tail = cmd->u.list.items;
    }
    while (*tail) tail = &(*tail)->next;
  }
  if (r) {
    if (err) *err = p->st.err;
    parse_destroy(p);
    return r;
  }
  if (err) memset(err, 0, sizeof *err);
  if (err && p->st.hd_eof) err->missing = "here-document";
  *tree = p->st.tree;
  ast_tree_retain(*tree);
  *root = list;
  parse_destroy(p);
  return 0;
}

int parse_check(mem *m, const char *src, size_t len, unsigned flags) {
  parser *p = parse_create(m, src, len, 1, flags);
  ast_node *cmd;
  int r;
  if (!p) return MSB_ENOMEM;
  do {
    r = parse_next(p, &cmd);
  } while (!r && cmd);
  if (!r && (p->st.hd_eof || p->st.bs_eof)) r = MSB_EINCOMPLETE;
  parse_destroy(p);
  return r;
}

int parse_error_format(buf *b, const parse_error *err, const char *prefix) {
  int i;
  if (err->code == MSB_ENOTSUP || err->code == MSB_ELIMIT ||
      err->code == MSB_ENOMEM) {
    buf_printf(b, "%s%s\n", err->code == MSB_ENOTSUP ? "" : prefix, err->msg);
    return b->err;
  }
  if (err->msg[0])
    buf_printf(b, "%sline %d: %s\n", prefix, err->line, err->msg);
  for (i = 0; i < err->cond_parens; i++)
    buf_printf(b, "%sline %d: expected `)'\n", prefix, err->line);
  if (err->msg[0] && err->has_text) {
    buf_printf(b, "%sline %d: %s`", prefix, err->line,
               err->has_text == 2 ? "syntax error: " : "");
    buf_put(b, err->text, err->text_len);
    buf_puts(b, "'\n");
  }
  return b->err;
}
