/* interp_print.c - prints function definitions the way bash does for
 * `declare -f`, `type NAME` and `declare -F`-style listings.
 *
 * bash does not keep function source: it re-prints the parsed command in
 * its canonical layout (4-space indentation, one command per line, `;`
 * after commands inside compound bodies). This walks our AST and produces
 * the same layout; words are rebuilt from their parts (parameter
 * expansions keep their raw source text). */
#include <string.h>

#include "interp.h"

static void ip_node(buf *b, const ast_node *n, int ind);

static void ip_indent(buf *b, int ind) {
  int i;
  for (i = 0; i < ind; i++) buf_putc(b, ' ');
}

static void ip_parts(buf *b, const ast_part *p, int dq);

static void ip_dq_text(buf *b, const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '$' || s[i] == '`' || s[i] == '\\')
      buf_putc(b, '\\');
    buf_putc(b, s[i]);
  }
}

static void ip_dollar_sq(buf *b, const char *s, size_t n) {
  size_t i;
  buf_puts(b, "$'");
  for (i = 0; i < n; i++) {
    int c = (uint8_t)s[i];
    switch (c) {
    case '\n': buf_puts(b, "\\n"); break;
    case '\t': buf_puts(b, "\\t"); break;
    case '\r': buf_puts(b, "\\r"); break;
    case '\'': buf_puts(b, "\\'"); break;
    case '\\': buf_puts(b, "\\\\"); break;
    default:
      if (c < 32 || c == 127)
        buf_printf(b, "\\%03o", c);
      else
        buf_putc(b, c);
    }
  }
  buf_putc(b, '\'');
}

static void ip_parts(buf *b, const ast_part *p, int dq) {
  for (; p; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT:
      if (dq)
        ip_dq_text(b, p->text, p->len);
      else
        buf_put(b, p->text, p->len);
      break;
    case AST_P_SQ:
      if (p->flags & AST_PF_BACKSLASH) {
        buf_putc(b, '\\');
        buf_put(b, p->text, p->len);
      } else if (p->flags & AST_PF_DOLLAR)
        ip_dollar_sq(b, p->text, p->len);
      else {
        buf_putc(b, '\'');
        buf_put(b, p->text, p->len);
        buf_putc(b, '\'');
      }
      break;
    case AST_P_DQ:
      buf_putc(b, '"');
      ip_parts(b, p->parts, 1);
      buf_putc(b, '"');
      break;
    case AST_P_PARAM:
      if (p->param->text)
        buf_put(b, p->param->text, p->param->text_len);
      else
        buf_printf(b, "${%s}", p->param->name);
      break;
    case AST_P_CMDSUB:
      if (p->flags & AST_PF_BACKTICK) {
        buf_putc(b, '`');
        buf_put(b, p->text, p->len);
        buf_putc(b, '`');
      } else {
        buf_puts(b, "$(");
        buf_put(b, p->text, p->len);
        buf_putc(b, ')');
      }
      break;
    case AST_P_ARITH:
      buf_puts(b, "$((");
      buf_put(b, p->text, p->len);
      buf_puts(b, "))");
      break;
    case AST_P_TILDE:
      buf_putc(b, '~');
      buf_put(b, p->text, p->len);
      break;
    case AST_P_PROCSUB:
      buf_put(b, p->text, p->len);
      buf_puts(b, "(...)");
      break;
    }
  }
}

static void ip_word(buf *b, const ast_word *w) {
  if (w) ip_parts(b, w->parts, 0);
}

static void ip_assign(buf *b, const ast_assign *a) {
  const ast_elem *e;
  buf_puts(b, a->name);
  if (a->index) {
    buf_putc(b, '[');
    ip_word(b, a->index);
    buf_putc(b, ']');
  }
  buf_puts(b, a->append ? "+=" : "=");
  if (!a->is_array) {
    ip_word(b, a->value);
    return;
  }
  buf_putc(b, '(');
  for (e = a->elems; e; e = e->next) {
    if (e != a->elems) buf_putc(b, ' ');
    if (e->index) {
      buf_putc(b, '[');
      ip_word(b, e->index);
      buf_puts(b, e->append ? "]+=" : "]=");
    }
    ip_word(b, e->value);
  }
  buf_putc(b, ')');
}

/* Redirections; here-document bodies are appended to *hd. */
static void ip_redirs(buf *b, const ast_redir *r, buf *hd) {
  static const char *const ops[] = {"<",  ">",  ">>",  ">|",  "<>", "<&",
                                    ">&", "&>", "&>>", "<<<", "<<"};
  for (; r; r = r->next) {
    buf_putc(b, ' ');
    if (r->fd >= 0) {
      int def =
          (r->op == AST_R_IN || r->op == AST_R_RDWR || r->op == AST_R_DUPIN ||
           r->op == AST_R_HERESTR || r->op == AST_R_HEREDOC)
              ? 0
              : 1;
      if (r->fd != def) buf_printf(b, "%d", r->fd);
    }
    buf_puts(b, ops[r->op]);
    if (r->op == AST_R_HEREDOC) {
      const ast_part *p;
      if (r->strip_tabs) buf_putc(b, '-');
      if (r->heredoc_quoted)
        buf_printf(b, "'%s'", r->delim);
      else
        buf_puts(b, r->delim);
      buf_putc(hd, '\n');
      for (p = r->body ? r->body->parts : NULL; p; p = p->next) {
        if (r->heredoc_quoted || p->kind == AST_P_LIT)
          buf_put(hd, p->text, p->len);
        else {
          ast_part one = *p;
          one.next = NULL;
          ip_parts(hd, &one, 0);
        }
      }
      buf_puts(hd, r->delim);
      continue;
    }
    if (r->op != AST_R_DUPIN && r->op != AST_R_DUPOUT) buf_putc(b, ' ');
    ip_word(b, r->target);
  }
}

static void ip_cond(buf *b, const ast_cond *c) {
  if (!c) return;
  switch (c->kind) {
  case AST_C_AND:
  case AST_C_OR:
    ip_cond(b, c->left);
    buf_puts(b, c->kind == AST_C_AND ? " && " : " || ");
    ip_cond(b, c->right);
    break;
  case AST_C_NOT:
    buf_puts(b, "! ");
    ip_cond(b, c->left);
    break;
  case AST_C_UNARY:
    buf_printf(b, "%s ", c->op);
    ip_word(b, c->w1);
    break;
  case AST_C_BINARY:
    ip_word(b, c->w1);
    buf_printf(b, " %s ", c->op);
    ip_word(b, c->w2);
    break;
  case AST_C_WORD: ip_word(b, c->w1); break;
  }
}

/* A list of commands, one per line at ind; sep after each but the last
 * unless all_sep. */
static void ip_list(buf *b, const ast_node *n, int ind, int all_sep) {
  const ast_node *it;
  if (!n) return;
  if (n->kind != AST_LIST) {
    ip_indent(b, ind);
    ip_node(b, n, ind);
    if (all_sep && !(n->flags & AST_F_BG)) buf_putc(b, ';');
    buf_putc(b, '\n');
    return;
  }
  for (it = n->u.list.items; it; it = it->next) {
    ip_indent(b, ind);
    ip_node(b, it, ind);
    if (it->flags & AST_F_BG)
      buf_puts(b, " &");
    else if (it->next || all_sep)
      buf_putc(b, ';');
    buf_putc(b, '\n');
  }
}

static void ip_simple(buf *b, const ast_node *n) {
  const ast_assign *a;
  const ast_word *w;
  buf hd;
  int first = 1;
  buf_init(&hd, b->m);
  for (a = n->u.cmd.assigns; a; a = a->next) {
    if (!first) buf_putc(b, ' ');
    ip_assign(b, a);
    first = 0;
  }
  for (w = n->u.cmd.words; w; w = w->next) {
    if (!first) buf_putc(b, ' ');
    if (w->assign && w->assign->is_array)
      ip_assign(b, w->assign);
    else
      ip_word(b, w);
    first = 0;
  }
  ip_redirs(b, n->redirs, &hd);
  if (hd.len) {
    buf_put(b, hd.p, hd.len);
    buf_putc(b, '\n');
  }
  buf_finish(&hd);
}

static void ip_node(buf *b, const ast_node *n, int ind) {
  const ast_node *it;
  if (!n) return;
  switch (n->kind) {
  case AST_CMD: ip_simple(b, n); return;
  case AST_PIPELINE:
    if (n->flags & AST_F_NEGATE) buf_puts(b, "! ");
    for (it = n->u.pipe.stages; it; it = it->next) {
      ip_node(b, it, ind);
      if (it->next) buf_puts(b, (it->flags & AST_F_PIPE_ERR) ? " |& " : " | ");
    }
    break;
  case AST_AND:
  case AST_OR:
    ip_node(b, n->u.bin.left, ind);
    buf_puts(b, n->kind == AST_AND ? " && " : " || ");
    ip_node(b, n->u.bin.right, ind);
    break;
  case AST_LIST:
    for (it = n->u.list.items; it; it = it->next) {
      ip_node(b, it, ind);
      if (it->flags & AST_F_BG) buf_puts(b, " &");
      if (it->next) buf_puts(b, (it->flags & AST_F_BG) ? " " : "; ");
    }
    break;
  case AST_SUBSHELL:
    buf_puts(b, "( ");
    ip_node(b, n->u.body, ind);
    buf_puts(b, " )");
    break;
  case AST_GROUP:
    buf_puts(b, "{ \n");
    ip_list(b, n->u.body, ind + 4, 0);
    ip_indent(b, ind);
    buf_putc(b, '}');
    break;
  case AST_IF:
    buf_puts(b, "if ");
    ip_node(b, n->u.ifs.cond, ind);
    buf_puts(b, "; then\n");
    ip_list(b, n->u.ifs.then, ind + 4, 1);
    if (n->u.ifs.els) {
      ip_indent(b, ind);
      buf_puts(b, "else\n");
      ip_list(b, n->u.ifs.els, ind + 4, 1);
    }
    ip_indent(b, ind);
    buf_puts(b, "fi");
    break;
  case AST_WHILE:
  case AST_UNTIL:
    buf_puts(b, n->kind == AST_WHILE ? "while " : "until ");
    ip_node(b, n->u.loop.cond, ind);
    buf_puts(b, "; do\n");
    ip_list(b, n->u.loop.body, ind + 4, 1);
    ip_indent(b, ind);
    buf_puts(b, "done");
    break;
  case AST_FOR:
  case AST_SELECT: {
    const ast_word *w;
    buf_printf(b, "%s %s", n->kind == AST_FOR ? "for" : "select",
               n->u.forin.var);
    if (n->u.forin.has_in) {
      buf_puts(b, " in");
      for (w = n->u.forin.words; w; w = w->next) {
        buf_putc(b, ' ');
        ip_word(b, w);
      }
    } else
      buf_puts(b, " in \"$@\"");
    buf_puts(b, ";\n");
    ip_indent(b, ind);
    buf_puts(b, "do\n");
    ip_list(b, n->u.forin.body, ind + 4, 1);
    ip_indent(b, ind);
    buf_puts(b, "done");
    break;
  }
  case AST_ARITH_FOR:
    buf_puts(b, "for ((");
    ip_word(b, n->u.afor.init);
    buf_puts(b, "; ");
    ip_word(b, n->u.afor.cond);
    buf_puts(b, "; ");
    ip_word(b, n->u.afor.step);
    buf_puts(b, "))\n");
    ip_indent(b, ind);
    buf_puts(b, "do\n");
    ip_list(b, n->u.afor.body, ind + 4, 1);
    ip_indent(b, ind);
    buf_puts(b, "done");
    break;
  case AST_CASE: {
    const ast_case_item *ci;
    buf_puts(b, "case ");
    ip_word(b, n->u.casec.subject);
    buf_puts(b, " in \n");
    for (ci = n->u.casec.items; ci; ci = ci->next) {
      const ast_word *p;
      ip_indent(b, ind + 4);
      for (p = ci->patterns; p; p = p->next) {
        if (p != ci->patterns) buf_puts(b, " | ");
        ip_word(b, p);
      }
      buf_puts(b, ")\n");
      if (ci->body)
        ip_list(b, ci->body, ind + 8, 0);
      else
        buf_putc(b, '\n');
      ip_indent(b, ind + 4);
      buf_puts(b, ci->term == AST_CASE_BREAK  ? ";;\n"
                  : ci->term == AST_CASE_FALL ? ";&\n"
                                              : ";;&\n");
    }
    ip_indent(b, ind);
    buf_puts(b, "esac");
    break;
  }
  case AST_FUNC:
    buf_printf(b, "%s () \n", n->u.func.name);
    ip_indent(b, ind);
    ip_node(b, n->u.func.body, ind);
    break;
  case AST_COND:
    buf_puts(b, "[[ ");
    ip_cond(b, n->u.cond);
    buf_puts(b, " ]]");
    break;
  case AST_ARITH: {
    const char *t = n->u.arith.text ? n->u.arith.text : "";
    size_t l = strlen(t);
    while (*t == ' ' || *t == '\t') t++, l--;
    while (l && (t[l - 1] == ' ' || t[l - 1] == '\t')) l--;
    buf_printf(b, "(( %.*s ))", (int)l, t);
    break;
  }
  }
  if (n->kind != AST_CMD && n->redirs) {
    buf hd;
    buf_init(&hd, b->m);
    ip_redirs(b, n->redirs, &hd);
    if (hd.len) buf_put(b, hd.p, hd.len);
    buf_finish(&hd);
  }
}

/* Appends "NAME () \n{ ... }\n" in bash's layout. */
int interp_print_func(shell *sh, const char *name, const ast_node *body,
                      buf *b) {
  (void)sh;
  buf_printf(b, "%s () \n", name);
  if (body && body->kind == AST_GROUP) {
    buf_puts(b, "{ \n");
    ip_list(b, body->u.body, 4, 0);
    buf_puts(b, "}");
    if (body->redirs) {
      buf hd;
      buf_init(&hd, b->m);
      ip_redirs(b, body->redirs, &hd);
      if (hd.len) buf_put(b, hd.p, hd.len);
      buf_finish(&hd);
    }
    buf_putc(b, '\n');
  } else {
    buf_puts(b, "{ \n    ");
    ip_node(b, body, 4);
    buf_puts(b, "\n}\n");
  }
  return b->err;
}
