/* ast.c - AST storage (reference-counted arenas) and a printer for tests.
 *
 * The printer renders a tree as nested S-expressions with words in a
 * normalised shell-like notation, so a test can state the expected shape
 * of a parse in one line:
 *   (list (cmd (= a 1) echo "$a" (> 2 f)) (bg (cmd sleep)))
 * Parts: LIT as is, SQ as '...' (non-printable bytes as \xHH), backslash
 * escapes as \c, DQ as "...", ${name op w1 / w2} as ${name<op>w1[/w2]},
 * $(list) for command substitution, $((expr)) for arithmetic. */
#include "ast.h"

#include <string.h>

#include "buf.h"
#include "memsandbox.h"

/* Creates an empty tree with one reference. */
ast_tree *ast_tree_create(mem *m) {
  ast_tree *t = mem_zalloc(m, sizeof *t);
  if (!t) return NULL;
  t->m = m;
  arena_init(&t->a, m);
  t->refs = 1;
  return t;
}

/* Adds a reference. */
void ast_tree_retain(ast_tree *t) {
  if (t) t->refs++;
}

/* Drops a reference, freeing the tree at zero. */
void ast_tree_release(ast_tree *t) {
  if (!t || --t->refs > 0) return;
  arena_finish(&t->a);
  mem_free(t->m, t);
}

static void ast_print_parts(buf *b, const ast_part *p);
static void ast_print_node(buf *b, const ast_node *n);

static void ast_print_bytes(buf *b, const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 32 || c >= 127)
      buf_printf(b, "\\x%02x", c);
    else
      buf_putc(b, c);
  }
}

static void ast_print_w(buf *b, const ast_word *w) {
  if (w) ast_print_parts(b, w->parts);
}

static const char *ast_pe_name(const ast_param *pm) {
  int colon = (pm->flags & AST_PE_COLON) != 0;
  switch (pm->op) {
  case AST_PE_DEFAULT: return colon ? ":-" : "-";
  case AST_PE_ASSIGN: return colon ? ":=" : "=";
  case AST_PE_ERROR: return colon ? ":?" : "?";
  case AST_PE_ALT: return colon ? ":+" : "+";
  case AST_PE_TRIM_SP: return "#";
  case AST_PE_TRIM_LP: return "##";
  case AST_PE_TRIM_SS: return "%";
  case AST_PE_TRIM_LS: return "%%";
  case AST_PE_SUB: return "/";
  case AST_PE_SUB_ALL: return "//";
  case AST_PE_SUB_PRE: return "/#";
  case AST_PE_SUB_SUF: return "/%";
  case AST_PE_SLICE: return ":";
  case AST_PE_UPPER1: return "^";
  case AST_PE_UPPER: return "^^";
  case AST_PE_LOWER1: return ",";
  case AST_PE_LOWER: return ",,";
  case AST_PE_TOGGLE1: return "~";
  case AST_PE_TOGGLE: return "~~";
  default: return "";
  }
}

static void ast_print_param(buf *b, const ast_param *pm) {
  if (pm->op == AST_PE_BAD) {
    buf_puts(b, "BAD<");
    buf_put(b, pm->text, pm->text_len);
    buf_putc(b, '>');
    return;
  }
  if (!(pm->flags & AST_PE_BRACED)) {
    buf_printf(b, "$%s", pm->name);
    return;
  }
  buf_puts(b, "${");
  if (pm->op == AST_PE_LENGTH) buf_putc(b, '#');
  if (pm->flags & AST_PE_INDIRECT || pm->op == AST_PE_NAMES ||
      pm->op == AST_PE_KEYS)
    buf_putc(b, '!');
  buf_puts(b, pm->name);
  if (pm->op == AST_PE_NAMES) {
    buf_printf(b, "%c}", pm->subscript);
    return;
  }
  if (pm->subscript == '@' || pm->subscript == '*')
    buf_printf(b, "[%c]", pm->subscript);
  else if (pm->subscript == 'i') {
    buf_putc(b, '[');
    ast_print_w(b, pm->index);
    buf_putc(b, ']');
  }
  if (pm->op == AST_PE_TRANSFORM) {
    buf_printf(b, "@%c}", pm->xform);
    return;
  }
  buf_puts(b, ast_pe_name(pm));
  if (pm->w1) {
    buf_putc(b, '<');
    ast_print_w(b, pm->w1);
    buf_putc(b, '>');
  }
  if (pm->w2) {
    buf_puts(b, pm->op == AST_PE_SLICE ? ":<" : "/<");
    ast_print_w(b, pm->w2);
    buf_putc(b, '>');
  }
  buf_putc(b, '}');
}

static void ast_print_parts(buf *b, const ast_part *p) {
  for (; p; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT: ast_print_bytes(b, p->text, p->len); break;
    case AST_P_SQ:
      if (p->flags & AST_PF_BACKSLASH) {
        size_t i;
        for (i = 0; i < p->len; i++) {
          buf_putc(b, '\\');
          ast_print_bytes(b, p->text + i, 1);
        }
        break;
      }
      buf_puts(b, p->flags & AST_PF_DOLLAR ? "$'" : "'");
      ast_print_bytes(b, p->text, p->len);
      buf_putc(b, '\'');
      break;
    case AST_P_DQ:
      buf_puts(b, p->flags & AST_PF_DOLLAR ? "$\"" : "\"");
      ast_print_parts(b, p->parts);
      buf_putc(b, '"');
      break;
    case AST_P_PARAM: ast_print_param(b, p->param); break;
    case AST_P_CMDSUB:
      buf_puts(b, p->flags & AST_PF_BACKTICK ? "`" : "$(");
      if (p->cmd) ast_print_node(b, p->cmd);
      buf_puts(b, p->flags & AST_PF_BACKTICK ? "`" : ")");
      break;
    case AST_P_ARITH:
      buf_puts(b, "$((");
      ast_print_w(b, p->expr);
      buf_puts(b, "))");
      break;
    case AST_P_PROCSUB:
      buf_printf(b, "%s(", p->text);
      if (p->cmd) ast_print_node(b, p->cmd);
      buf_putc(b, ')');
      break;
    case AST_P_TILDE:
      buf_puts(b, "~");
      ast_print_bytes(b, p->text, p->len);
      buf_puts(b, "~");
      break;
    }
  }
}

static void ast_print_assign(buf *b, const ast_assign *a);

static void ast_print_words(buf *b, const ast_word *w) {
  for (; w; w = w->next) {
    if (w->assign) {
      buf_puts(b, " (decl");
      ast_print_assign(b, w->assign);
      buf_putc(b, ')');
      continue;
    }
    buf_putc(b, ' ');
    ast_print_w(b, w);
  }
}

static void ast_print_redirs(buf *b, const ast_redir *r) {
  static const char *const ops[] = {"<",  ">",  ">>",  ">|",  "<>", "<&",
                                    ">&", "&>", "&>>", "<<<", "<<"};
  for (; r; r = r->next) {
    buf_printf(b, " (%s%s", ops[r->op],
               r->op == AST_R_HEREDOC && r->strip_tabs ? "-" : "");
    if (r->varname)
      buf_printf(b, " {%s}", r->varname);
    else if (r->fd >= 0)
      buf_printf(b, " %d", r->fd);
    if (r->op == AST_R_HEREDOC) {
      buf_printf(b, " %s%s ", r->delim, r->heredoc_quoted ? " quoted" : "");
      buf_putc(b, '[');
      ast_print_w(b, r->body);
      buf_putc(b, ']');
    } else {
      buf_putc(b, ' ');
      ast_print_w(b, r->target);
    }
    buf_putc(b, ')');
  }
}

static void ast_print_assign(buf *b, const ast_assign *a) {
  const ast_elem *e;
  buf_printf(b, " (%s %s", a->append ? "+=" : "=", a->name);
  if (a->index) {
    buf_putc(b, '[');
    ast_print_w(b, a->index);
    buf_putc(b, ']');
  }
  if (a->is_array) {
    buf_puts(b, " (");
    for (e = a->elems; e; e = e->next) {
      if (e != a->elems) buf_putc(b, ' ');
      if (e->index) {
        buf_putc(b, '[');
        ast_print_w(b, e->index);
        buf_puts(b, e->append ? "]+=" : "]=");
      }
      ast_print_w(b, e->value);
    }
    buf_putc(b, ')');
  } else {
    buf_putc(b, ' ');
    ast_print_w(b, a->value);
  }
  buf_putc(b, ')');
}

static void ast_print_cond(buf *b, const ast_cond *c) {
  switch (c->kind) {
  case AST_C_AND:
  case AST_C_OR:
    buf_puts(b, c->kind == AST_C_AND ? "(&& " : "(|| ");
    ast_print_cond(b, c->left);
    buf_putc(b, ' ');
    ast_print_cond(b, c->right);
    buf_putc(b, ')');
    break;
  case AST_C_NOT:
    buf_puts(b, "(! ");
    ast_print_cond(b, c->left);
    buf_putc(b, ')');
    break;
  case AST_C_UNARY:
    buf_printf(b, "(%s ", c->op);
    ast_print_w(b, c->w1);
    buf_putc(b, ')');
    break;
  case AST_C_BINARY:
    buf_printf(b, "(%s ", c->op);
    ast_print_w(b, c->w1);
    buf_putc(b, ' ');
    ast_print_w(b, c->w2);
    buf_putc(b, ')');
    break;
  case AST_C_WORD: ast_print_w(b, c->w1); break;
  }
}

static void ast_print_opt(buf *b, const ast_node *n) {
  buf_putc(b, ' ');
  if (n)
    ast_print_node(b, n);
  else
    buf_puts(b, "()");
}

static void ast_print_node(buf *b, const ast_node *n) {
  const ast_node *c;
  const ast_assign *a;
  const ast_case_item *it;
  static const char *const terms[] = {";;", ";&", ";;&"};
  if (n->flags & AST_F_BG) buf_puts(b, "(bg ");
  switch (n->kind) {
  case AST_CMD:
    buf_puts(b, "(cmd");
    for (a = n->u.cmd.assigns; a; a = a->next) ast_print_assign(b, a);
    ast_print_words(b, n->u.cmd.words);
    break;
  case AST_PIPELINE:
    buf_puts(b, "(pipe");
    if (n->flags & AST_F_TIME)
      buf_puts(b, n->flags & AST_F_TIME_P ? " time-p" : " time");
    if (n->flags & AST_F_NEGATE) buf_puts(b, " !");
    for (c = n->u.pipe.stages; c; c = c->next) {
      buf_putc(b, ' ');
      ast_print_node(b, c);
      if (c->flags & AST_F_PIPE_ERR) buf_puts(b, " |&");
    }
    break;
  case AST_AND:
  case AST_OR:
    buf_puts(b, n->kind == AST_AND ? "(and " : "(or ");
    ast_print_node(b, n->u.bin.left);
    buf_putc(b, ' ');
    ast_print_node(b, n->u.bin.right);
    break;
  case AST_LIST:
    buf_puts(b, "(list");
    for (c = n->u.list.items; c; c = c->next) {
      buf_putc(b, ' ');
      ast_print_node(b, c);
    }
    break;
  case AST_SUBSHELL:
  case AST_GROUP:
    buf_puts(b, n->kind == AST_SUBSHELL ? "(sub" : "(group");
    ast_print_opt(b, n->u.body);
    break;
  case AST_IF:
    buf_puts(b, "(if");
    ast_print_opt(b, n->u.ifs.cond);
    ast_print_opt(b, n->u.ifs.then);
    if (n->u.ifs.els) ast_print_opt(b, n->u.ifs.els);
    break;
  case AST_WHILE:
  case AST_UNTIL:
    buf_puts(b, n->kind == AST_WHILE ? "(while" : "(until");
    ast_print_opt(b, n->u.loop.cond);
    ast_print_opt(b, n->u.loop.body);
    break;
  case AST_FOR:
  case AST_SELECT:
    buf_printf(b, "(%s %s", n->kind == AST_FOR ? "for" : "select",
               n->u.forin.var);
    if (n->u.forin.has_in) {
      buf_puts(b, " (in");
      ast_print_words(b, n->u.forin.words);
      buf_putc(b, ')');
    }
    ast_print_opt(b, n->u.forin.body);
    break;
  case AST_ARITH_FOR:
    buf_puts(b, "(afor [");
    ast_print_w(b, n->u.afor.init);
    buf_puts(b, "] [");
    ast_print_w(b, n->u.afor.cond);
    buf_puts(b, "] [");
    ast_print_w(b, n->u.afor.step);
    buf_putc(b, ']');
    ast_print_opt(b, n->u.afor.body);
    break;
  case AST_CASE:
    buf_puts(b, "(case ");
    ast_print_w(b, n->u.casec.subject);
    for (it = n->u.casec.items; it; it = it->next) {
      buf_puts(b, " (");
      ast_print_words(b, it->patterns);
      buf_puts(b, " ->");
      ast_print_opt(b, it->body);
      buf_printf(b, " %s)", terms[it->term]);
    }
    break;
  case AST_FUNC:
    buf_printf(b, "(func %s", n->u.func.name);
    ast_print_opt(b, n->u.func.body);
    break;
  case AST_COND:
    buf_puts(b, "(cond ");
    ast_print_cond(b, n->u.cond);
    break;
  case AST_ARITH:
    buf_puts(b, "(arith ");
    ast_print_w(b, n->u.arith.expr);
    break;
  }
  ast_print_redirs(b, n->redirs);
  buf_putc(b, ')');
  if (n->flags & AST_F_BG) buf_putc(b, ')');
}

/* Appends the S-expression rendering of n. */
int ast_print(buf *b, const ast_node *n) {
  if (n)
    ast_print_node(b, n);
  else
    buf_puts(b, "()");
  return b->err;
}

/* Appends the rendering of one word. */
int ast_print_word(buf *b, const ast_word *w) {
  ast_print_w(b, w);
  return b->err;
}

/* ---- Function definitions in bash's layout ------------------------------
 *
 * `declare -f` and `type` print a function the way bash's print_cmd.c lays
 * it out: four-space indents, `;` between commands of a list (none after
 * the last one, except in if/loop bodies), `if`/`elif` as nested if-else,
 * words as written (ANSI-C $'...' re-quoted with single quotes),
 * redirections as "OP target", here-document bodies after their command.
 * Pending here-documents are kept in a small context. */

typedef struct ast_dp {
  buf *b;
  const ast_redir *hd[16]; /* here-documents awaiting their body */
  int nhd;
  int after_hd;            /* bodies were printed: bash then omits the
                              next `;` too */
  int sub_top;             /* next item list is a $(...) top level:
                              items joined by "; " on one line */
  int err;                 /* MSB_ENOTSUP for what cannot be printed,
                              MSB_ELIMIT past max_depth */
  size_t depth, max_depth; /* nesting printed now, allowed (stack) */
} ast_dp;

static void ast_dp_cmd(ast_dp *d, const ast_node *n, int ind);
static void ast_dp_items(ast_dp *d, const ast_node *n, int ind, int term,
                         int inline_first);
static int ast_dp_flush(ast_dp *d);
static void ast_dp_sub(ast_dp *d, const ast_node *cmd);

/* Enters a level of nesting: 0, or 1 (with d->err set) past the stack
 * the printer was given. Pair a 0 with d->depth--. */
/* Records a failure; the first one is the one reported. */
static void ast_dp_fail(ast_dp *d, int err) {
  if (!d->err) d->err = err;
}

static int ast_dp_enter(ast_dp *d) {
  if (d->depth >= d->max_depth) {
    ast_dp_fail(d, MSB_ELIMIT);
    return 1;
  }
  d->depth++;
  return 0;
}

static void ast_dp_indent(ast_dp *d, int ind) {
  int i;
  for (i = 0; i < ind; i++) buf_putc(d->b, ' ');
}

static int ast_dp_has_dollar(const ast_part *p) {
  for (; p; p = p->next)
    if (p->flags & AST_PF_DOLLAR) return 1;
  return 0;
}

static void ast_dp_parts_run(ast_dp *d, const ast_part *p, int in_dq);

static void ast_dp_parts(ast_dp *d, const ast_part *p, int in_dq) {
  if (ast_dp_enter(d)) return;
  ast_dp_parts_run(d, p, in_dq);
  d->depth--;
}

/* Renders parts for words holding $'...' or $"...", which bash prints in
 * their plain quoted form. */
static void ast_dp_parts_run(ast_dp *d, const ast_part *p, int in_dq) {
  size_t i;
  for (; p; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT:
      for (i = 0; i < p->len; i++) {
        char c = p->text[i];
        if (in_dq && (c == '"' || c == '\\' || c == '`' || c == '$'))
          buf_putc(d->b, '\\');
        buf_putc(d->b, c);
      }
      break;
    case AST_P_SQ:
      if (p->flags & AST_PF_BACKSLASH) {
        for (i = 0; i < p->len; i++) {
          buf_putc(d->b, '\\');
          buf_putc(d->b, p->text[i]);
        }
        break;
      }
      if (p->len == 1 && p->text[0] == '\'') {
        buf_puts(d->b, "\\'"); /* bash's sh_single_quote special case */
        break;
      }
      buf_putc(d->b, '\'');
      for (i = 0; i < p->len; i++) {
        if (p->text[i] == '\'')
          buf_puts(d->b, "'\\''");
        else
          buf_putc(d->b, p->text[i]);
      }
      buf_putc(d->b, '\'');
      break;
    case AST_P_DQ:
      buf_putc(d->b, '"');
      ast_dp_parts(d, p->parts, 1);
      buf_putc(d->b, '"');
      break;
    case AST_P_PARAM: buf_put(d->b, p->param->text, p->param->text_len); break;
    case AST_P_CMDSUB:
      if (p->flags & AST_PF_BACKTICK) {
        buf_putc(d->b, '`');
        buf_put(d->b, p->text, p->len);
        buf_putc(d->b, '`');
      } else {
        ast_dp_sub(d, p->cmd);
      }
      break;
    case AST_P_ARITH:
      buf_puts(d->b, p->flags & AST_PF_BRACKET ? "$[" : "$((");
      buf_put(d->b, p->text, p->len);
      buf_puts(d->b, p->flags & AST_PF_BRACKET ? "]" : "))");
      break;
    case AST_P_PROCSUB:
      /* Only reached inside $'..' words, which cannot hold these. */
      ast_dp_fail(d, MSB_ENOTSUP);
      break;
    case AST_P_TILDE:
      buf_putc(d->b, '~');
      buf_put(d->b, p->text, p->len);
      break;
    }
  }
}

/* Prints a $( ... ) body the way bash re-prints it: from the parse, the
 * top-level commands joined by "; ", compound commands from column 0. */
static void ast_dp_sub(ast_dp *d, const ast_node *cmd) {
  ast_dp in;
  memset(&in, 0, sizeof in);
  in.b = d->b;
  in.depth = d->depth;
  in.max_depth = d->max_depth;
  buf_puts(d->b, "$(");
  if (cmd) {
    in.sub_top = 1;
    ast_dp_items(&in, cmd->kind == AST_LIST ? cmd->u.list.items : cmd, 0, 0, 1);
    ast_dp_flush(&in);
  }
  buf_putc(d->b, ')');
  if (in.err) ast_dp_fail(d, in.err);
}

/* Copies raw source, dropping backslash-newline outside single quotes;
 * *q carries the quote state between calls. */
static void ast_dp_raw(ast_dp *d, const char *s, size_t n, int *q) {
  size_t i;
  for (i = 0; i < n; i++) {
    char c = s[i];
    if (*q == '\'') {
      if (c == '\'') *q = 0;
    } else if (c == '\\' && i + 1 < n) {
      if (s[i + 1] != '\n') buf_put(d->b, s + i, 2);
      i++;
      continue;
    } else if (c == '\'' && *q != '"') {
      *q = '\'';
    } else if (c == '"') {
      *q = *q == '"' ? 0 : '"';
    }
    buf_putc(d->b, c);
  }
}

/* Finds needle ("$(" body ")") in raw from *pos. */
static const char *ast_dp_find(const ast_word *w, size_t from,
                               const ast_part *p) {
  size_t i, need = p->len + 3;
  for (i = from; i + need <= w->raw_len; i++) {
    if (w->raw[i] == '$' && w->raw[i + 1] == '(' &&
        w->raw[i + need - 1] == ')' && !memcmp(w->raw + i + 2, p->text, p->len))
      return w->raw + i;
  }
  return NULL;
}

static void ast_dp_word(ast_dp *d, const ast_word *w);

/* name=(a b [k]=v) with bash's spacing: one blank between elements. */
static void ast_dp_array(ast_dp *d, const ast_assign *a) {
  const ast_elem *e;
  const char *eq = memchr(a->raw, '=', a->raw_len);
  buf_put(d->b, a->raw, eq ? (size_t)(eq - a->raw) + 1 : 0);
  buf_putc(d->b, '(');
  for (e = a->elems; e; e = e->next) {
    if (e != a->elems) buf_putc(d->b, ' ');
    if (e->index) {
      buf_putc(d->b, '[');
      ast_dp_word(d, e->index);
      buf_puts(d->b, e->append ? "]+=" : "]=");
    }
    ast_dp_word(d, e->value);
  }
  buf_putc(d->b, ')');
}

static void ast_dp_word(ast_dp *d, const ast_word *w) {
  const ast_part *p;
  size_t pos = 0;
  int q = 0;
  if (!w) return;
  if (w->assign && w->assign->is_array) {
    ast_dp_array(d, w->assign);
    return;
  }
  if (ast_dp_has_dollar(w->parts) || !w->raw) {
    ast_dp_parts(d, w->parts, 0);
    return;
  }
  /* Words as written, with each $( ... ) (top level or inside double
   * quotes) re-printed from its parse like bash does. */
  for (p = w->parts; p; p = p->next) {
    const ast_part *s = p->kind == AST_P_DQ ? p->parts : p;
    for (; s; s = p->kind == AST_P_DQ ? s->next : NULL) {
      const char *at;
      if (s->kind != AST_P_CMDSUB || (s->flags & AST_PF_BACKTICK) ||
          (s->flags & AST_PF_DEFERRED) || (s->len && s->text[0] == '('))
        continue;
      at = ast_dp_find(w, pos, s);
      if (!at) continue;
      ast_dp_raw(d, w->raw + pos, (size_t)(at - w->raw) - pos, &q);
      ast_dp_sub(d, s->cmd);
      pos = (size_t)(at - w->raw) + s->len + 3;
    }
  }
  ast_dp_raw(d, w->raw + pos, w->raw_len - pos, &q);
}

static int ast_dp_is_dash(const ast_word *w) {
  return w && w->parts && !w->parts->next && w->parts->kind == AST_P_LIT &&
         !strcmp(w->parts->text, "-");
}

static void ast_dp_redirs(ast_dp *d, const ast_redir *r, int first) {
  for (; r; r = r->next, first = 0) {
    int fd = r->fd;
    if (!first) buf_putc(d->b, ' ');
    if (r->varname) buf_printf(d->b, "{%s}", r->varname);
    switch (r->op) {
    case AST_R_IN:
      if (fd > 0) buf_printf(d->b, "%d", fd);
      buf_puts(d->b, "< ");
      break;
    case AST_R_OUT:
    case AST_R_APPEND:
    case AST_R_CLOBBER:
      if (fd >= 0 && fd != 1) buf_printf(d->b, "%d", fd);
      buf_puts(d->b, r->op == AST_R_OUT      ? "> "
                     : r->op == AST_R_APPEND ? ">> "
                                             : ">| ");
      break;
    case AST_R_RDWR:
      if (fd > 0) buf_printf(d->b, "%d", fd);
      buf_puts(d->b, "<> ");
      break;
    case AST_R_DUPIN:
    case AST_R_DUPOUT:
      if (fd < 0 && !r->varname) fd = r->op == AST_R_DUPIN ? 0 : 1;
      if (fd >= 0) buf_printf(d->b, "%d", fd);
      if (ast_dp_is_dash(r->target)) {
        buf_puts(d->b, ">&-");
        continue;
      }
      buf_puts(d->b, r->op == AST_R_DUPIN ? "<&" : ">&");
      ast_dp_word(d, r->target);
      continue;
    case AST_R_ALL: buf_puts(d->b, "&> "); break;
    case AST_R_ALL_APPEND: buf_puts(d->b, "&>> "); break;
    case AST_R_HERESTR:
      if (fd > 0) buf_printf(d->b, "%d", fd);
      buf_puts(d->b, "<<< ");
      break;
    case AST_R_HEREDOC:
      if (fd > 0) buf_printf(d->b, "%d", fd);
      buf_printf(d->b, "<<%s", r->strip_tabs ? "-" : "");
      if (r->heredoc_quoted)
        buf_printf(d->b, "'%s'", r->delim);
      else
        buf_puts(d->b, r->delim);
      if (d->nhd < 16)
        d->hd[d->nhd++] = r;
      else
        ast_dp_fail(d, MSB_ENOTSUP);
      continue;
    }
    ast_dp_word(d, r->target);
  }
}

/* Prints waiting here-document bodies; returns 1 when there were any. */
static int ast_dp_flush(ast_dp *d) {
  int i, any = d->nhd > 0;
  for (i = 0; i < d->nhd; i++) {
    const ast_redir *r = d->hd[i];
    buf_putc(d->b, '\n');
    buf_put(d->b, r->body_raw ? r->body_raw : "", r->body_raw_len);
    buf_printf(d->b, "%s\n", r->delim);
  }
  d->nhd = 0;
  if (any) d->after_hd = 1;
  return any;
}

/* Prints list items. Separators: "; newline indent" (or the here-document
 * bodies), " & " after background items. term: end the last item with `;`
 * (if/loop bodies). inline_first: the first item continues the current
 * line (no indent before it). */
static void ast_dp_items(ast_dp *d, const ast_node *n, int ind, int term,
                         int inline_first) {
  int first = 1, sub = d->sub_top;
  d->sub_top = 0;
  for (; n; n = n->next, first = 0) {
    if (!first || !inline_first) {
      if (first) ast_dp_indent(d, ind);
    }
    ast_dp_cmd(d, n, ind);
    if (n->flags & AST_F_BG) {
      buf_puts(d->b, " &");
      /* bash continues after here-document bodies with two spaces. */
      if (n->next) buf_puts(d->b, ast_dp_flush(d) ? "  " : " ");
      continue;
    }
    if (n->next) {
      /* bash's rule: a separator that prints here-document bodies has no
       * `;`, and neither has the one after it. */
      if (!ast_dp_flush(d)) {
        if (d->after_hd)
          d->after_hd = 0;
        else
          buf_putc(d->b, ';');
      }
      buf_puts(d->b, sub ? " " : "\n");
      if (!sub) ast_dp_indent(d, ind);
    } else if (term && !d->nhd) {
      buf_putc(d->b, ';');
    }
  }
}

static const ast_node *ast_dp_list_items(const ast_node *n) {
  return n && n->kind == AST_LIST ? n->u.list.items : n;
}

/* A body on its own lines at ind, then a newline (after any pending
 * here-documents). */
static void ast_dp_body(ast_dp *d, const ast_node *n, int ind, int term) {
  ast_dp_items(d, ast_dp_list_items(n), ind, term, 0);
  ast_dp_flush(d);
  buf_putc(d->b, '\n');
}

/* A loop's body after its "do" line, then "done" at the loop's indent. */
static void ast_dp_loop_body(ast_dp *d, const ast_node *body, int ind) {
  ast_dp_body(d, body, ind + 4, 1);
  ast_dp_indent(d, ind);
  buf_puts(d->b, "done");
}

static void ast_dp_cond_run(ast_dp *d, const ast_cond *c);

static void ast_dp_cond(ast_dp *d, const ast_cond *c) {
  if (ast_dp_enter(d)) return;
  ast_dp_cond_run(d, c);
  d->depth--;
}

/* An && / || chain nests to the left: printed in a loop from its leftmost
 * operand, so that its length costs no native stack. */
static void ast_dp_cond_chain(ast_dp *d, const ast_cond *c) {
  const ast_cond *small[8], **chain = small, *x;
  size_t k = 0, i;
  for (x = c;
       (x->kind == AST_C_AND || x->kind == AST_C_OR) && (x == c || !x->paren);
       x = x->left)
    k++;
  if (k > sizeof small / sizeof small[0]) {
    chain = mem_alloc(d->b->m, k * sizeof *chain);
    if (!chain) {
      ast_dp_fail(d, MSB_ENOMEM);
      return;
    }
  }
  for (i = k, x = c; i; x = x->left) chain[--i] = x;
  ast_dp_cond(d, x);
  for (i = 0; i < k; i++) {
    buf_puts(d->b, chain[i]->kind == AST_C_AND ? " && " : " || ");
    ast_dp_cond(d, chain[i]->right);
  }
  if (chain != small) mem_free(d->b->m, chain);
}

static void ast_dp_cond_run(ast_dp *d, const ast_cond *c) {
  if (c->paren) buf_puts(d->b, "( ");
  switch (c->kind) {
  case AST_C_AND:
  case AST_C_OR: ast_dp_cond_chain(d, c); break;
  case AST_C_NOT:
    buf_puts(d->b, "! ");
    ast_dp_cond(d, c->left);
    break;
  case AST_C_UNARY:
    buf_printf(d->b, "%s ", c->op);
    ast_dp_word(d, c->w1);
    break;
  case AST_C_BINARY:
    ast_dp_word(d, c->w1);
    buf_printf(d->b, " %s ", c->op);
    ast_dp_word(d, c->w2);
    break;
  case AST_C_WORD:
    buf_puts(d->b, "-n ");
    ast_dp_word(d, c->w1);
    break;
  }
  if (c->paren) buf_puts(d->b, " )");
}

/* Arithmetic-for parts: as written minus leading blanks; empty ones
 * print as 1. */
static void ast_dp_afor_part(ast_dp *d, const ast_word *w) {
  size_t i = 0;
  if (!w || !w->raw) {
    buf_putc(d->b, '1');
    return;
  }
  while (i < w->raw_len &&
         (w->raw[i] == ' ' || w->raw[i] == '\t' || w->raw[i] == '\n'))
    i++;
  buf_put(d->b, w->raw + i, w->raw_len - i);
}

static void ast_dp_func(ast_dp *d, const char *name, const ast_node *body,
                        int ind, int kw) {
  buf_printf(d->b, "%s%s () \n", kw ? "function " : "", name);
  ast_dp_indent(d, ind);
  buf_puts(d->b, "{ \n");
  if (body->kind == AST_GROUP) {
    ast_dp_items(d, ast_dp_list_items(body->u.body), ind + 4, 0, 0);
    ast_dp_flush(d);
    buf_putc(d->b, '\n');
    ast_dp_indent(d, ind);
    buf_putc(d->b, '}');
    if (body->redirs) {
      buf_putc(d->b, ' ');
      ast_dp_redirs(d, body->redirs, 1);
    }
    d->after_hd = 0;
  } else {
    ast_dp_indent(d, ind + 4);
    ast_dp_cmd(d, body, ind + 4);
    ast_dp_flush(d);
    buf_putc(d->b, '\n');
    ast_dp_indent(d, ind);
    buf_putc(d->b, '}');
    d->after_hd = 0;
  }
}

static void ast_dp_cmd_run(ast_dp *d, const ast_node *n, int ind);

static void ast_dp_cmd(ast_dp *d, const ast_node *n, int ind) {
  if (ast_dp_enter(d)) return;
  ast_dp_cmd_run(d, n, ind);
  d->depth--;
}

/* An && / || list nests to the left, (a && b) || c: printed in a loop
 * from its leftmost command, as ast_dp_cond_chain does. */
static void ast_dp_andor(ast_dp *d, const ast_node *n, int ind) {
  const ast_node *small[8], **chain = small, *x;
  size_t k = 0, i;
  for (x = n;
       (x->kind == AST_AND || x->kind == AST_OR) && (x == n || !x->redirs);
       x = x->u.bin.left)
    k++;
  if (k > sizeof small / sizeof small[0]) {
    chain = mem_alloc(d->b->m, k * sizeof *chain);
    if (!chain) {
      ast_dp_fail(d, MSB_ENOMEM);
      return;
    }
  }
  for (i = k, x = n; i; x = x->u.bin.left) chain[--i] = x;
  ast_dp_cmd(d, x, ind);
  for (i = 0; i < k; i++) {
    buf_puts(d->b, chain[i]->kind == AST_AND ? " && " : " || ");
    if (ast_dp_flush(d)) buf_putc(d->b, ' ');
    ast_dp_cmd(d, chain[i]->u.bin.right, ind);
  }
  if (chain != small) mem_free(d->b->m, chain);
}

static void ast_dp_cmd_run(ast_dp *d, const ast_node *n, int ind) {
  const ast_node *c;
  const ast_assign *a;
  const ast_word *w;
  const ast_case_item *it;
  int sp = 0;
  static const char *const terms[] = {";;", ";&", ";;&"};
  switch (n->kind) {
  case AST_CMD:
    for (a = n->u.cmd.assigns; a; a = a->next, sp = 1) {
      ast_word view;
      if (sp) buf_putc(d->b, ' ');
      if (!a->raw) {
        ast_dp_fail(d, MSB_ENOTSUP);
        continue;
      }
      if (a->is_array) {
        ast_dp_array(d, a);
        continue;
      }
      /* The assignment's text, with its value's substitutions. */
      memset(&view, 0, sizeof view);
      view.parts = a->value && !ast_dp_has_dollar(a->value->parts)
                       ? a->value->parts
                       : NULL;
      view.raw = a->raw;
      view.raw_len = a->raw_len;
      if (a->value && ast_dp_has_dollar(a->value->parts)) {
        buf_put(d->b, a->raw, (size_t)(strchr(a->raw, '=') - a->raw) + 1);
        ast_dp_parts(d, a->value->parts, 0);
        continue;
      }
      ast_dp_word(d, &view);
    }
    for (w = n->u.cmd.words; w; w = w->next, sp = 1) {
      if (sp) buf_putc(d->b, ' ');
      ast_dp_word(d, w);
    }
    if (n->redirs) {
      if (sp) buf_putc(d->b, ' ');
      ast_dp_redirs(d, n->redirs, 1);
    }
    return;
  case AST_PIPELINE:
    if (n->flags & AST_F_TIME)
      buf_puts(d->b, n->flags & AST_F_TIME_P ? "time -p " : "time ");
    if (n->flags & AST_F_NEGATE) buf_puts(d->b, "! ");
    for (c = n->u.pipe.stages; c; c = c->next) {
      ast_dp_cmd(d, c, ind);
      if (c->next) {
        buf_puts(d->b, c->flags & AST_F_PIPE_ERR ? " 2>&1 |" : " |");
        buf_puts(d->b, ast_dp_flush(d) ? "  " : " ");
      }
    }
    return;
  case AST_AND:
  case AST_OR: ast_dp_andor(d, n, ind); return;
  case AST_LIST: ast_dp_items(d, n->u.list.items, ind, 0, 1); return;
  case AST_SUBSHELL:
    buf_puts(d->b, "( ");
    ast_dp_items(d, ast_dp_list_items(n->u.body), ind, 0, 1);
    buf_puts(d->b, " )");
    break;
  case AST_GROUP:
    buf_puts(d->b, "{ \n");
    ast_dp_body(d, n->u.body, ind + 4, 0);
    ast_dp_indent(d, ind);
    buf_putc(d->b, '}');
    break;
  case AST_IF:
    buf_puts(d->b, "if ");
    ast_dp_items(d, ast_dp_list_items(n->u.ifs.cond), ind, 0, 1);
    buf_puts(d->b, "; then\n");
    ast_dp_body(d, n->u.ifs.then, ind + 4, 1);
    if (n->u.ifs.els) {
      ast_dp_indent(d, ind);
      buf_puts(d->b, "else\n");
      ast_dp_body(d, n->u.ifs.els, ind + 4, 1);
    }
    ast_dp_indent(d, ind);
    buf_puts(d->b, "fi");
    break;
  case AST_WHILE:
  case AST_UNTIL:
    buf_puts(d->b, n->kind == AST_WHILE ? "while " : "until ");
    ast_dp_items(d, ast_dp_list_items(n->u.loop.cond), ind, 0, 1);
    buf_puts(d->b, "; do\n");
    ast_dp_loop_body(d, n->u.loop.body, ind);
    break;
  case AST_FOR:
  case AST_SELECT:
    buf_printf(d->b, "%s %s in ", n->kind == AST_FOR ? "for" : "select",
               n->u.forin.var);
    if (!n->u.forin.has_in) buf_puts(d->b, "\"$@\"");
    for (w = n->u.forin.words; w; w = w->next) {
      ast_dp_word(d, w);
      if (w->next) buf_putc(d->b, ' ');
    }
    buf_puts(d->b, ";\n");
    ast_dp_indent(d, ind);
    buf_puts(d->b, "do\n");
    ast_dp_loop_body(d, n->u.forin.body, ind);
    break;
  case AST_ARITH_FOR:
    buf_puts(d->b, "for ((");
    ast_dp_afor_part(d, n->u.afor.init);
    buf_puts(d->b, "; ");
    ast_dp_afor_part(d, n->u.afor.cond);
    buf_puts(d->b, "; ");
    ast_dp_afor_part(d, n->u.afor.step);
    buf_puts(d->b, "))\n");
    ast_dp_indent(d, ind);
    buf_puts(d->b, "do\n");
    ast_dp_loop_body(d, n->u.afor.body, ind);
    break;
  case AST_CASE:
    buf_puts(d->b, "case ");
    ast_dp_word(d, n->u.casec.subject);
    buf_puts(d->b, " in \n");
    for (it = n->u.casec.items; it; it = it->next) {
      ast_dp_indent(d, ind + 4);
      for (w = it->patterns; w; w = w->next) {
        ast_dp_word(d, w);
        if (w->next) buf_puts(d->b, " | ");
      }
      buf_puts(d->b, ")\n");
      if (it->body)
        ast_dp_body(d, it->body, ind + 8, 0);
      else
        buf_putc(d->b, '\n');
      ast_dp_indent(d, ind + 4);
      buf_printf(d->b, "%s\n", terms[it->term]);
    }
    ast_dp_indent(d, ind);
    buf_puts(d->b, "esac");
    break;
  case AST_FUNC: ast_dp_func(d, n->u.func.name, n->u.func.body, ind, 1); return;
  case AST_COND:
    buf_puts(d->b, "[[ ");
    ast_dp_cond(d, n->u.cond);
    buf_puts(d->b, " ]]");
    break;
  case AST_ARITH: buf_printf(d->b, "((%s))", n->u.arith.text); break;
  }
  if (n->redirs) {
    buf_putc(d->b, ' ');
    ast_dp_redirs(d, n->redirs, 1);
  }
}

/* Appends function name's definition as bash's `declare -f` prints it
 * (without a final newline). Returns 0, b's error, MSB_ENOTSUP for a body
 * it cannot reproduce (the caller should then refuse loudly), or
 * MSB_ELIMIT for one nested deeper than `stack` allows. */
int ast_print_command(buf *b, const ast_node *n, size_t stack) {
  ast_dp d;
  memset(&d, 0, sizeof d);
  d.b = b;
  d.max_depth = stack / AST_PRINT_LEVEL;
  ast_dp_cmd(&d, n, 0);
  if (d.err) return d.err;
  return b->err;
}

int ast_print_function(buf *b, const char *name, const ast_node *body,
                       size_t stack) {
  ast_dp d;
  memset(&d, 0, sizeof d);
  d.b = b;
  d.max_depth = stack / AST_PRINT_LEVEL;
  if (!body) return MSB_EINVAL;
  ast_dp_func(&d, name, body, 0, 0);
  if (d.err) return d.err;
  return b->err;
}
