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
    case AST_P_LIT:
      ast_print_bytes(b, p->text, p->len);
      break;
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
    case AST_P_PARAM:
      ast_print_param(b, p->param);
      break;
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
  case AST_C_WORD:
    ast_print_w(b, c->w1);
    break;
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
