/* lex.c - the shell lexer: bytes to tokens, words to quoted parts.
 *
 * Approach: a hand-written scanner over the source with one function per
 * quoting context (unquoted word, "...", here-document body, ${...}
 * operand, arithmetic text, [subscript]). Each context appends parts to a
 * word builder, which merges adjacent literal bytes into one part. The
 * lexer recurses into the parser for $( ... ), backquotes and <( ... ), and
 * into itself for nested quoting; every recursion passes through lex_enter
 * so hostile nesting ends in a clean MSB_ELIMIT instead of a stack overflow.
 *
 * Token boundaries follow bash: metacharacters are blank, newline and
 * ; & | < > ( ); `#` starts a comment only at the start of a token;
 * backslash-newline disappears everywhere except inside single quotes and
 * quoted here-documents. Reserved words and assignments are recognised by
 * the parser from the word's parts (an unquoted, single literal part). */
#include "lex.h"

#include <stdint.h>
#include <string.h>

#include "memsandbox.h"

/* Quoting contexts of lex_parts. */
enum {
  LEX_X_WORD,    /* unquoted word */
  LEX_X_DQ,      /* inside "..." */
  LEX_X_HEREDOC, /* unquoted here-document body (whole sub-source) */
  LEX_X_PARAM,   /* ${x OP word} operand */
  LEX_X_ARITH,   /* $(( ... )), (( ... )), for (( ; ; )) */
  LEX_X_SUBSCR,  /* name[ ... ] subscript */
  LEX_X_REGEX    /* right side of =~ in [[ ]] */
};

/* Context options. */
#define LEX_O_INDQ 1u      /* PARAM operand inside double quotes */
#define LEX_O_SQLIT 2u     /* PARAM operand: single quotes are literal */
#define LEX_O_STOP_SLASH 4u  /* PARAM: stop at an unquoted `/` */
#define LEX_O_STOP_COLON 8u  /* PARAM: stop at a top-level `:` (slice) */
#define LEX_O_STOP_SEMI 16u  /* ARITH: stop at a top-level `;` (for) */
#define LEX_O_ASSIGN 32u   /* WORD: assignment value (tilde after `:`) */
#define LEX_O_TILDE_EQ 64u /* WORD: tilde allowed after the first `=` */
#define LEX_O_NOANSI 128u  /* PARAM: ${x:-w} in a here-document: no $'' */
#define LEX_O_PSUB 256u    /* PARAM: ${x/a/w} replacement: <( ) even in "" */

typedef struct lex_wb {
  lex_state *st;
  ast_part *head, *tail;
  buf lit;    /* pending literal bytes */
  int lit_sq; /* pending bytes are backslash-escaped (SQ part) */
} lex_wb;

static int lex_parts(lex_state *st, int ctx, unsigned opts, ast_part **out);
static int lex_dollar(lex_state *st, lex_wb *w, int ctx, unsigned opts);

/* ---- Errors ------------------------------------------------------------ */

/* Copies line `line` of the outermost source into the error. */
static void lex_set_text(lex_state *st, int line) {
  const char *s = st->top_src, *e = st->top_src + st->top_len, *nl;
  int n = st->top_first_line;
  size_t len;
  while (n < line && s < e) {
    nl = memchr(s, '\n', (size_t)(e - s));
    if (!nl) {
      s = e;
      break;
    }
    s = nl + 1;
    n++;
  }
  nl = memchr(s, '\n', (size_t)(e - s));
  len = nl ? (size_t)(nl - s) : (size_t)(e - s);
  if (len >= sizeof st->err.text) len = sizeof st->err.text - 1;
  memcpy(st->err.text, s, len);
  st->err.text[len] = 0;
  st->err.text_len = len;
  st->err.has_text = 1;
}

int lex_error(lex_state *st, int code, int line, int has_text,
              const char *msg) {
  size_t n;
  if (st->failed) return st->err.code;
  st->failed = 1;
  st->err.code = code;
  st->err.line = line;
  n = strlen(msg);
  if (n >= sizeof st->err.msg) n = sizeof st->err.msg - 1;
  memcpy(st->err.msg, msg, n);
  st->err.msg[n] = 0;
  st->err.has_text = 0;
  st->err.status_rule = PARSE_STATUS_2;
  st->err.cond_parens = 0;
  st->err.text_len = 0;
  st->err.text[0] = 0;
  if (has_text) lex_set_text(st, line);
  return code;
}

/* Line bash reports for "unexpected end of file": one past the last line
 * of the outermost source. */
int lex_eof_line(lex_state *st) {
  const char *s = st->top_src;
  size_t i;
  int n = st->top_first_line;
  for (i = 0; i < st->top_len; i++)
    if (s[i] == '\n') n++;
  if (st->top_len == 0 || s[st->top_len - 1] != '\n') n++;
  return n;
}

int lex_error_eof(lex_state *st, const char *missing) {
  int r = lex_error(st, MSB_EINCOMPLETE, lex_eof_line(st), 0,
                    "syntax error: unexpected end of file");
  if (st->err.code == MSB_EINCOMPLETE) st->err.missing = missing;
  return r;
}

/* "unexpected EOF while looking for matching `c'" at a line. */
int lex_error_match(lex_state *st, int line, const char *what) {
  char msg[80];
  size_t n = strlen("unexpected EOF while looking for matching `");
  memcpy(msg, "unexpected EOF while looking for matching `", n);
  msg[n++] = what[0];
  msg[n++] = '\'';
  msg[n] = 0;
  lex_error(st, MSB_EINCOMPLETE, line, 0, msg);
  if (st->err.code == MSB_EINCOMPLETE) {
    st->err.missing = what;
    st->err.status_rule = PARSE_STATUS_NZ;
  }
  return MSB_EINCOMPLETE;
}

static int lex_nomem(lex_state *st) {
  return lex_error(st, MSB_ENOMEM, st->line, 0, "out of memory");
}

/* Forgets a recoverable error (syntax or incomplete input) so a deferred
 * construct can be kept; returns 0, or the error when it must stand. */
static int lex_recover(lex_state *st, int r) {
  if (r != MSB_ESYNTAX && r != MSB_EINCOMPLETE) return r;
  st->failed = 0;
  memset(&st->err, 0, sizeof st->err);
  return 0;
}

int lex_enter(lex_state *st, size_t cost) {
  if (st->stack + cost > st->stack_max && st->stack_max < PARSE_STACK_MAX &&
      st->stack + cost <= PARSE_STACK_MAX && st->depth < PARSE_MAX_DEPTH) {
    int r = lex_error(st, MSB_ELIMIT, st->line, 0,
                      "maximum nesting depth exceeded (native stack)");
    if (st->err.code == MSB_ELIMIT) st->err.stack = 1;
    return r;
  }
  if (st->depth >= PARSE_MAX_DEPTH || st->stack + cost > PARSE_STACK_MAX) {
    static const char pre[] = "maximum nesting depth exceeded (";
    char msg[64], num[12];
    size_t n = 0, k = sizeof pre - 1;
    long v = PARSE_MAX_DEPTH;
    do num[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    memcpy(msg, pre, k);
    while (n) msg[k++] = num[--n];
    msg[k++] = ')';
    msg[k] = 0;
    return lex_error(st, MSB_ELIMIT, st->line, 0, msg);
  }
  st->depth++;
  st->stack += cost;
  return 0;
}

void lex_leave(lex_state *st, size_t cost) {
  st->depth--;
  st->stack -= cost;
}

const char *lex_tok_text(lex_state *st, const lex_token *tok) {
  static const char *const names[] = {
      "end of file", "",   "newline", ";",  "&",   "|", "|&",
      "&&",          "||", ";;",      ";&", ";;&", "(", ")"};
  static const char *const redirs[] = {"<",  ">",  ">>",  ">|",  "<>", "<&",
                                       ">&", "&>", "&>>", "<<<", "<<"};
  const ast_part *p;
  char *s;
  if (tok->t == LEX_T_REDIR) {
    if (tok->rop == AST_R_HEREDOC && tok->strip_tabs) return "<<-";
    return redirs[tok->rop];
  }
  if (tok->t != LEX_T_WORD) return names[tok->t];
  /* Words print as written (bash echoes the token text). */
  p = tok->word ? tok->word->parts : NULL;
  if (tok->raw) {
    s = arena_strndup(st->a, tok->raw, tok->raw_len);
    if (s) return s;
  }
  return p && p->kind == AST_P_LIT ? p->text : "";
}

int lex_error_token(lex_state *st, const lex_token *tok) {
  char msg[160];
  const char *t;
  size_t n, k;
  if (tok->t == LEX_T_EOF) return lex_error_eof(st, "end of file");
  t = lex_tok_text(st, tok);
  n = strlen("syntax error near unexpected token `");
  memcpy(msg, "syntax error near unexpected token `", n);
  k = strlen(t);
  if (k > sizeof msg - n - 2) k = sizeof msg - n - 2;
  memcpy(msg + n, t, k);
  n += k;
  msg[n++] = '\'';
  msg[n] = 0;
  return lex_error(st, MSB_ESYNTAX, tok->line, 1, msg);
}

/* ---- Characters -------------------------------------------------------- */

static int lex_ch(const lex_state *st, size_t off) {
  return st->pos + off < st->len ? (unsigned char)st->src[st->pos + off] : -1;
}

static void lex_adv(lex_state *st, size_t n) {
  while (n-- && st->pos < st->len) {
    if (st->src[st->pos] == '\n') st->line++;
    st->pos++;
  }
}

static int lex_is_blank(int c) { return c == ' ' || c == '\t'; }

static int lex_is_meta(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
         c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

static int lex_is_name0(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int lex_is_name(int c) {
  return lex_is_name0(c) || (c >= '0' && c <= '9');
}

static int lex_is_digit(int c) { return c >= '0' && c <= '9'; }

static int lex_hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* ---- Word builder ------------------------------------------------------ */

static void lex_wb_init(lex_wb *w, lex_state *st) {
  w->st = st;
  w->head = w->tail = NULL;
  buf_init(&w->lit, st->m);
  w->lit_sq = 0;
}

static ast_part *lex_part_new(lex_state *st, ast_part_kind k) {
  ast_part *p = arena_zalloc(st->a, sizeof *p);
  if (!p) {
    lex_nomem(st);
    return NULL;
  }
  p->kind = k;
  return p;
}

static void lex_wb_link(lex_wb *w, ast_part *p) {
  if (w->tail)
    w->tail->next = p;
  else
    w->head = p;
  w->tail = p;
}

static int lex_wb_flush(lex_wb *w) {
  ast_part *p;
  if (w->lit.err) return lex_nomem(w->st);
  if (!w->lit.len) return 0;
  p = lex_part_new(w->st, w->lit_sq ? AST_P_SQ : AST_P_LIT);
  if (!p) return MSB_ENOMEM;
  if (w->lit_sq) p->flags = AST_PF_BACKSLASH;
  p->text = arena_strndup(w->st->a, w->lit.p, w->lit.len);
  if (!p->text) return lex_nomem(w->st);
  p->len = w->lit.len;
  buf_clear(&w->lit);
  lex_wb_link(w, p);
  return 0;
}

/* Appends literal bytes (sq: backslash-escaped). */
static int lex_wb_put(lex_wb *w, int sq, const char *s, size_t n) {
  int r;
  if (sq != w->lit_sq && w->lit.len) {
    r = lex_wb_flush(w);
    if (r) return r;
  }
  w->lit_sq = sq;
  if (buf_put(&w->lit, s, n)) return lex_nomem(w->st);
  return 0;
}

static int lex_wb_putc(lex_wb *w, int sq, int c) {
  char ch = (char)c;
  return lex_wb_put(w, sq, &ch, 1);
}

static int lex_wb_add(lex_wb *w, ast_part *p) {
  int r = lex_wb_flush(w);
  if (r) return r;
  lex_wb_link(w, p);
  return 0;
}

/* Ends building: *out receives the parts. */
static int lex_wb_finish(lex_wb *w, ast_part **out) {
  int r = lex_wb_flush(w);
  buf_finish(&w->lit);
  *out = r ? NULL : w->head;
  return r;
}

static void lex_wb_drop(lex_wb *w) { buf_finish(&w->lit); }

/* ---- Quoted pieces ----------------------------------------------------- */

/* '...': at the opening quote. */
static int lex_squote(lex_state *st, lex_wb *w) {
  int line = st->line;
  size_t start = st->pos + 1, end;
  const char *q = memchr(st->src + start, '\'', st->len - start);
  ast_part *p;
  if (!q) {
    st->pos = st->len;
    return lex_error_match(st, line, "'");
  }
  end = (size_t)(q - st->src);
  p = lex_part_new(st, AST_P_SQ);
  if (!p) return MSB_ENOMEM;
  p->text = arena_strndup(st->a, st->src + start, end - start);
  if (!p->text) return lex_nomem(st);
  p->len = end - start;
  lex_adv(st, end + 1 - st->pos);
  return lex_wb_add(w, p);
}

/* Appends the UTF-8-free rendering bash uses for \u / \U in the C locale:
 * ASCII becomes the byte, anything else stays as escape text. */
static void lex_ansi_unicode(buf *b, unsigned long v) {
  static const char hex[] = "0123456789ABCDEF";
  int i, digits;
  if (v < 0x80) {
    buf_putc(b, (int)v);
    return;
  }
  digits = v <= 0xffff ? 4 : 8;
  buf_putc(b, '\\');
  buf_putc(b, digits == 4 ? 'u' : 'U');
  for (i = digits - 1; i >= 0; i--) buf_putc(b, hex[(v >> (4 * i)) & 15]);
}

size_t lex_ansi_escape(const char *s, size_t n, buf *out, int *cut) {
  size_t k = 1, i;
  unsigned long v = 0;
  int c = (unsigned char)s[0], d;
  switch (c) {
  case 'a': v = 7; break;
  case 'b': v = 8; break;
  case 'e':
  case 'E': v = 27; break;
  case 'f': v = 12; break;
  case 'n': v = 10; break;
  case 'r': v = 13; break;
  case 't': v = 9; break;
  case 'v': v = 11; break;
  case '\\':
  case '\'':
  case '"':
  case '?': v = (unsigned long)c; break;
  case '0':
  case '1':
  case '2':
  case '3':
  case '4':
  case '5':
  case '6':
  case '7':
    v = (unsigned long)(c - '0');
    for (i = 0; i < 2 && k < n && s[k] >= '0' && s[k] <= '7'; i++, k++)
      v = v * 8 + (unsigned long)(s[k] - '0');
    v &= 0xff;
    break;
  case 'x':
    for (i = 0; i < 2 && k < n && (d = lex_hexval(s[k])) >= 0; i++, k++)
      v = v * 16 + (unsigned long)d;
    if (!i) {
      if (!*cut) buf_put(out, "\\x", 2);
      return k;
    }
    break;
  case 'u':
  case 'U':
    for (i = 0;
         i < (c == 'u' ? 4u : 8u) && k < n && (d = lex_hexval(s[k])) >= 0;
         i++, k++)
      v = v * 16 + (unsigned long)d;
    if (!i) {
      if (!*cut) {
        buf_putc(out, '\\');
        buf_putc(out, c);
      }
      return k;
    }
    if (v == 0)
      *cut = 1;
    else if (!*cut)
      lex_ansi_unicode(out, v);
    return k;
  case 'c':
    if (k >= n || s[k] == '\'') {
      if (!*cut) buf_put(out, "\\c", 2);
      return k;
    }
    d = (unsigned char)s[k++];
    if (d == '\\' && k < n && s[k] == '\\') k++;
    v = d == '?' ? 0x7f : (unsigned long)(d & 0x1f);
    break;
  default:
    if (!*cut) {
      buf_putc(out, '\\');
      buf_putc(out, c);
    }
    return k;
  }
  if (v == 0)
    *cut = 1;
  else if (!*cut)
    buf_putc(out, (int)v);
  return k;
}

/* $'...': at the `$`. Decodes escapes into an SQ part; a NUL byte ends
 * the string's value like in bash (the rest is skipped). */
static int lex_ansi(lex_state *st, lex_wb *w) {
  int line = st->line, c, cut = 0;
  buf b;
  ast_part *p;
  buf_init(&b, st->m);
  lex_adv(st, 2);
  for (;;) {
    c = lex_ch(st, 0);
    if (c < 0) {
      buf_finish(&b);
      return lex_error_match(st, line, "'");
    }
    lex_adv(st, 1);
    if (c == '\'') break;
    if (c != '\\') {
      if (!cut) buf_putc(&b, c);
      continue;
    }
    if (lex_ch(st, 0) < 0) {
      if (!cut) buf_putc(&b, '\\');
      continue;
    }
    lex_adv(st,
            lex_ansi_escape(st->src + st->pos, st->len - st->pos, &b, &cut));
  }
  if (b.err) {
    buf_finish(&b);
    return lex_nomem(st);
  }
  p = lex_part_new(st, AST_P_SQ);
  if (!p) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  p->flags = AST_PF_DOLLAR;
  p->text = arena_strndup(st->a, b.p ? b.p : "", b.len);
  p->len = b.len;
  buf_finish(&b);
  if (!p->text) return lex_nomem(st);
  return lex_wb_add(w, p);
}

/* "...": at the opening quote (after `$` for $"..."). */
static int lex_dquote(lex_state *st, lex_wb *w, unsigned flags) {
  int line = st->line, r;
  ast_part *p = lex_part_new(st, AST_P_DQ);
  if (!p) return MSB_ENOMEM;
  p->flags = flags;
  lex_adv(st, 1);
  r = lex_enter(st, LEX_STACK_DQ);
  if (r) return r;
  r = lex_parts(st, LEX_X_DQ, 0, &p->parts);
  lex_leave(st, LEX_STACK_DQ);
  if (r) return r;
  if (lex_ch(st, 0) != '"') return lex_error_match(st, line, "\"");
  lex_adv(st, 1);
  return lex_wb_add(w, p);
}

/* ---- Substitution memo ------------------------------------------------ */

/* What a memo entry holds; a backquote body unescapes \" only inside
 * double quotes, so the two are different entries. */
enum { LEX_MEMO_CMDSUB, LEX_MEMO_PROCSUB, LEX_MEMO_BQ, LEX_MEMO_BQ_DQ };

static size_t lex_memo_slot(size_t cap, const char *src, size_t start,
                            int kind) {
  uint64_t h = (uint64_t)(uintptr_t)src * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)start << 2 | (uint64_t)kind) * 0xff51afd7ed558ccdull;
  h ^= h >> 29;
  return (size_t)h & (cap - 1);
}

/* The substitution of this kind parsed earlier at the current position,
 * or NULL. */
static const lex_memo *lex_memo_find(const lex_state *st, int kind) {
  size_t i;
  const lex_memo *e;
  if (!st->memo_n) return NULL;
  for (i = lex_memo_slot(st->memo_cap, st->src, st->pos, kind);
       (e = st->memo[i]); i = (i + 1) & (st->memo_cap - 1))
    if (e->src == st->src && e->start == st->pos && e->kind == kind) return e;
  return NULL;
}

/* Records the part a substitution starting at offset start parsed into,
 * ending at the current position. Best effort: without memory the body is
 * simply parsed again when the word is re-lexed. */
static void lex_memo_put(lex_state *st, size_t start, int kind,
                         const ast_part *p) {
  lex_memo *e;
  size_t i;
  if ((st->memo_n + 1) * 2 > st->memo_cap) {
    size_t nc = st->memo_cap ? st->memo_cap * 2 : 64, k;
    lex_memo **nt = mem_zalloc(st->m, nc * sizeof *nt);
    if (!nt) return;
    for (k = 0; k < st->memo_cap; k++) {
      lex_memo *o = st->memo[k];
      if (!o) continue;
      for (i = lex_memo_slot(nc, o->src, o->start, o->kind); nt[i];
           i = (i + 1) & (nc - 1)) {
      }
      nt[i] = o;
    }
    mem_free(st->m, st->memo);
    st->memo = nt;
    st->memo_cap = nc;
  }
  e = arena_alloc(st->a, sizeof *e);
  if (!e) return;
  e->src = st->src;
  e->start = start;
  e->end = st->pos;
  e->kind = kind;
  e->end_line = st->line;
  e->part = p;
  for (i = lex_memo_slot(st->memo_cap, e->src, start, kind); st->memo[i];
       i = (i + 1) & (st->memo_cap - 1)) {
  }
  st->memo[i] = e;
  st->memo_n++;
}

/* Adds a copy of a remembered part and moves past its source. */
static int lex_memo_use(lex_state *st, lex_wb *w, const lex_memo *e) {
  ast_part *p = lex_part_new(st, e->part->kind);
  if (!p) return MSB_ENOMEM;
  *p = *e->part;
  p->next = NULL;
  st->pos = e->end;
  st->line = e->end_line;
  return lex_wb_add(w, p);
}

void lex_memo_reset(lex_state *st, int release) {
  if (release || st->memo_cap > 64) {
    mem_free(st->m, st->memo);
    st->memo = NULL;
    st->memo_cap = 0;
  } else if (st->memo_n)
    memset(st->memo, 0, st->memo_cap * sizeof *st->memo);
  st->memo_n = 0;
}

/* `...`: at the opening backquote. The body is unescaped (\\ \` \$, and
 * \" inside double quotes) and parsed as its own source. */
static int lex_backquote(lex_state *st, lex_wb *w, int in_dq) {
  int line = st->line, c, r, kind = in_dq ? LEX_MEMO_BQ_DQ : LEX_MEMO_BQ;
  size_t start = st->pos + 1;
  buf b;
  ast_part *p;
  char *body;
  size_t blen;
  const lex_memo *e = lex_memo_find(st, kind);
  if (e) return lex_memo_use(st, w, e);
  buf_init(&b, st->m);
  lex_adv(st, 1);
  for (;;) {
    c = lex_ch(st, 0);
    if (c < 0) {
      buf_finish(&b);
      return lex_error_match(st, line, "`");
    }
    if (c == '`') break;
    if (c == '\\') {
      int d = lex_ch(st, 1);
      if (d == '\\' || d == '`' || d == '$' || (in_dq && d == '"')) {
        buf_putc(&b, d);
        lex_adv(st, 2);
        continue;
      }
      if (d >= 0) {
        buf_putc(&b, '\\');
        buf_putc(&b, d);
        lex_adv(st, 2);
        continue;
      }
    }
    buf_putc(&b, c);
    lex_adv(st, 1);
  }
  if (b.err) {
    buf_finish(&b);
    return lex_nomem(st);
  }
  p = lex_part_new(st, AST_P_CMDSUB);
  if (!p) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  p->flags = AST_PF_BACKTICK;
  p->line = line; /* for a run from the text (aliases) */
  p->text = arena_strndup(st->a, st->src + start, st->pos - start);
  p->len = st->pos - start;
  blen = b.len;
  body = arena_strndup(st->a, b.p ? b.p : "", blen);
  buf_finish(&b);
  if (!p->text || !body) return lex_nomem(st);
  lex_adv(st, 1);
  r = lex_enter(st, LEX_STACK_SUB);
  if (r) return r;
  {
    int depth = st->depth;
    size_t stack = st->stack;
    lex_heredoc *hh = st->hd_head, *ht = st->hd_tail;
    r = parse_sub_source(st, body, blen, line, &p->cmd);
    if (r && !lex_recover(st, r)) {
      /* bash reports a broken backquote body when it runs. */
      st->depth = depth;
      st->stack = stack;
      st->hd_head = hh;
      st->hd_tail = ht;
      if (ht) ht->next = NULL;
      p->cmd = NULL;
      p->flags |= AST_PF_DEFERRED;
      p->text = body;
      p->len = blen;
      r = 0;
    }
  }
  lex_leave(st, LEX_STACK_SUB);
  if (r) return r;
  lex_memo_put(st, start - 1, kind, p);
  return lex_wb_add(w, p);
}

/* Skips a quoted stretch during a look-ahead scan; returns the new offset
 * or len when unterminated. */
static size_t lex_scan_quote(const char *s, size_t len, size_t i) {
  char q = s[i++];
  while (i < len && s[i] != q) {
    if (s[i] == '\\' && q != '\'' && i + 1 < len) i++;
    i++;
  }
  return i < len ? i + 1 : len;
}

/* Decides whether "((" at offset i (pointing just past both parens) is
 * arithmetic: the first `)` that closes depth 0 must be followed by `)`.
 * Unterminated text counts as arithmetic (bash then reports the missing
 * `)`). The scan gives up (arithmetic) past the nesting limit. */
static int lex_is_arith(const lex_state *st, size_t i) {
  const char *s = st->src;
  size_t len = st->len;
  int depth = 0, outer = 0;
  while (i < len) {
    char c = s[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      i = lex_scan_quote(s, len, i);
      continue;
    }
    if (c == '(') {
      if (++depth > PARSE_MAX_DEPTH) return 1;
    } else if (c == ')') {
      if (depth == 0 && outer) return 0;
      if (depth == 0) {
        if (i + 1 < len && s[i + 1] == ')') return 1;
        /* Not "))": a command substitution if the outer `(` closes;
         * bash reports unbalanced text as an unfinished $((. */
        outer = 1;
        i++;
        continue;
      }
      depth--;
    }
    i++;
  }
  return 1;
}

/* Is "((" at the current position an arithmetic command? */
int lex_dparen_is_arith(lex_state *st) { return lex_is_arith(st, st->pos + 2); }

/* $(( ... )) or (( ... )) body: st->pos is just past "((" . Parses the
 * expression into *expr and consumes the closing "))". raw receives the
 * text. */
static int lex_arith_body(lex_state *st, int line, ast_word **expr,
                          const char **raw) {
  size_t start = st->pos;
  ast_word *wd;
  int r;
  wd = arena_zalloc(st->a, sizeof *wd);
  if (!wd) return lex_nomem(st);
  wd->line = line;
  r = lex_enter(st, LEX_STACK_ARITH);
  if (r) return r;
  r = lex_parts(st, LEX_X_ARITH, 0, &wd->parts);
  lex_leave(st, LEX_STACK_ARITH);
  if (r) return r;
  if (lex_ch(st, 0) != ')' || lex_ch(st, 1) != ')') {
    /* lex_is_arith only lets a lone `)` through when the text never
     * balances: bash then reports the missing `)`. */
    return lex_error_match(st, line, ")");
  }
  *raw = arena_strndup(st->a, st->src + start, st->pos - start);
  if (!*raw) return lex_nomem(st);
  lex_adv(st, 2);
  *expr = wd;
  return 0;
}

/* Parses the inside of `for (( ... ))`, st->pos just past "((". */
int lex_arith_for(lex_state *st, ast_word **w3) {
  int i, r, line = st->line;
  size_t start = st->pos;
  for (i = 0; i < 3; i++) {
    ast_word *wd = arena_zalloc(st->a, sizeof *wd);
    size_t wstart = st->pos;
    if (!wd) return lex_nomem(st);
    wd->line = st->line;
    r = lex_parts(st, LEX_X_ARITH, i < 2 ? LEX_O_STOP_SEMI : 0, &wd->parts);
    if (r) return r;
    wd->raw = arena_strndup(st->a, st->src + wstart, st->pos - wstart);
    wd->raw_len = st->pos - wstart;
    if (!wd->raw) return lex_nomem(st);
    w3[i] = wd->parts ? wd : NULL;
    if (i < 2) {
      if (lex_ch(st, 0) != ';') {
        size_t e = start;
        if (lex_ch(st, 0) < 0) return lex_error_match(st, line, ")");
        /* bash quotes the whole ((...)) in its second line. */
        lex_error(st, MSB_ESYNTAX, line, 0,
                  "syntax error: arithmetic expression required");
        while (e + 1 < st->len && !(st->src[e] == ')' && st->src[e + 1] == ')'))
          e++;
        e = e + 1 < st->len ? e + 2 : st->len;
        e -= start - 2;
        if (e > sizeof st->err.text - 1) e = sizeof st->err.text - 1;
        memcpy(st->err.text, st->src + start - 2, e);
        st->err.text[e] = 0;
        st->err.text_len = e;
        st->err.has_text = 2;
        return MSB_ESYNTAX;
      }
      lex_adv(st, 1);
    }
  }
  if (lex_ch(st, 0) != ')' || lex_ch(st, 1) != ')')
    return lex_error_match(st, line, ")");
  lex_adv(st, 2);
  return 0;
}

/* Parses an arithmetic command body "(( ... ))" at the current position. */
int lex_arith_cmd(lex_state *st, ast_word **expr, const char **raw) {
  int line = st->line;
  lex_adv(st, 2);
  return lex_arith_body(st, line, expr, raw);
}

/* bash -c exits 127 after a syntax error inside $( ) or <( ). */
static int lex_sub_status(lex_state *st, int r) {
  if (r == MSB_ESYNTAX && (st->err.status_rule == PARSE_STATUS_2 ||
                           st->err.status_rule == PARSE_STATUS_KEEP))
    st->err.status_rule = PARSE_STATUS_127;
  return r;
}

/* $( ... ) at the `$`. */
static int lex_cmdsub(lex_state *st, lex_wb *w) {
  size_t start, at = st->pos;
  int r;
  const lex_memo *e = lex_memo_find(st, LEX_MEMO_CMDSUB);
  ast_part *p;
  if (e) return lex_memo_use(st, w, e);
  p = lex_part_new(st, AST_P_CMDSUB);
  if (!p) return MSB_ENOMEM;
  p->line = st->line; /* for a run from the text (aliases) */
  lex_adv(st, 2);
  start = st->pos;
  r = lex_enter(st, LEX_STACK_SUB);
  if (r) return r;
  st->cmdsub_depth++;
  r = parse_cmdsub_body(st, &p->cmd);
  st->cmdsub_depth--;
  lex_leave(st, LEX_STACK_SUB);
  if (r) return lex_sub_status(st, r);
  /* The body ends just before the `)` the parser consumed. */
  p->text = arena_strndup(st->a, st->src + start, st->pos - 1 - start);
  if (!p->text) return lex_nomem(st);
  p->len = st->pos - 1 - start;
  lex_memo_put(st, at, LEX_MEMO_CMDSUB, p);
  return lex_wb_add(w, p);
}

/* <( ... ) or >( ... ) at the `<` / `>`. */
static int lex_procsub(lex_state *st, lex_wb *w) {
  int r;
  size_t at = st->pos;
  const lex_memo *e = lex_memo_find(st, LEX_MEMO_PROCSUB);
  ast_part *p;
  if (e) return lex_memo_use(st, w, e);
  p = lex_part_new(st, AST_P_PROCSUB);
  if (!p) return MSB_ENOMEM;
  p->text = lex_ch(st, 0) == '<' ? "<" : ">";
  p->len = 1;
  lex_adv(st, 2);
  r = lex_enter(st, LEX_STACK_PROC);
  if (r) return r;
  st->cmdsub_depth++;
  r = parse_cmdsub_body(st, &p->cmd);
  st->cmdsub_depth--;
  lex_leave(st, LEX_STACK_PROC);
  if (r) return lex_sub_status(st, r);
  lex_memo_put(st, at, LEX_MEMO_PROCSUB, p);
  return lex_wb_add(w, p);
}

/* ---- Parameter expansion ----------------------------------------------- */

/* Skips to the `}` closing a ${ whose inside could not be parsed, for the
 * AST_PE_BAD text. Returns 0 or the EOF error. */
static int lex_skip_brace(lex_state *st, int line) {
  int depth = 0, c;
  for (;;) {
    c = lex_ch(st, 0);
    if (c < 0) return lex_error_match(st, line, "}");
    if (c == '\\') {
      lex_adv(st, 2);
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      size_t e = lex_scan_quote(st->src, st->len, st->pos);
      lex_adv(st, e - st->pos);
      continue;
    }
    if (c == '{') depth++;
    if (c == '}' && depth-- == 0) {
      lex_adv(st, 1);
      return 0;
    }
    lex_adv(st, 1);
  }
}

/* Reads a parameter name at the current position: identifier, digits
 * (braced only) or one special character. Returns its length or 0. */
static size_t lex_param_name(lex_state *st, int braced) {
  int c = lex_ch(st, 0);
  size_t n = 0;
  if (lex_is_name0(c)) {
    while (lex_is_name(lex_ch(st, n))) n++;
    return n;
  }
  if (lex_is_digit(c)) {
    if (!braced) return 1;
    while (lex_is_digit(lex_ch(st, n))) n++;
    return n;
  }
  if (c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' ||
      c == '!')
    return 1;
  return 0;
}

/* Parses an operand word of ${...} in context opts; stops before `}` (or
 * the stop character). */
static int lex_param_word(lex_state *st, unsigned opts, ast_word **out) {
  ast_word *wd = arena_zalloc(st->a, sizeof *wd);
  int r;
  if (!wd) return lex_nomem(st);
  wd->line = st->line;
  r = lex_parts(st, LEX_X_PARAM, opts, &wd->parts);
  if (r) return r;
  *out = wd;
  return 0;
}

/* [subscript] after a name, at the `[`. Sets pm->subscript/index. */
static int lex_subscript(lex_state *st, ast_param *pm) {
  int line = st->line, r;
  ast_word *wd;
  lex_adv(st, 1);
  if ((lex_ch(st, 0) == '@' || lex_ch(st, 0) == '*') && lex_ch(st, 1) == ']') {
    pm->subscript = lex_ch(st, 0);
    lex_adv(st, 2);
    return 0;
  }
  wd = arena_zalloc(st->a, sizeof *wd);
  if (!wd) return lex_nomem(st);
  wd->line = line;
  r = lex_parts(st, LEX_X_SUBSCR, 0, &wd->parts);
  if (r) return r;
  if (lex_ch(st, 0) != ']') return lex_error_match(st, line, "]");
  lex_adv(st, 1);
  pm->subscript = 'i';
  pm->index = wd;
  return 0;
}

/* ${ ... } at the `$`. */
static int lex_brace_inner(lex_state *st, ast_param *pm, int in_dq, int line,
                           size_t start);

static int lex_brace_param(lex_state *st, lex_wb *w, int in_dq) {
  int line = st->line, r;
  size_t start = st->pos;
  ast_param *pm = arena_zalloc(st->a, sizeof *pm);
  ast_part *p = lex_part_new(st, AST_P_PARAM);
  if (!pm || !p) return lex_nomem(st);
  p->param = pm;
  pm->flags = AST_PE_BRACED;
  r = lex_enter(st, LEX_STACK_PARAM);
  if (r) return r;
  r = lex_brace_inner(st, pm, in_dq, line, start);
  lex_leave(st, LEX_STACK_PARAM);
  if (r) return r;
  return lex_wb_add(w, p);
}

/* The inside of ${...}, st->pos at the `$`. */
static int lex_brace_inner(lex_state *st, ast_param *pm, int in_dq, int line,
                           size_t start) {
  int c, r;
  size_t n;
  unsigned wopts = in_dq ? LEX_O_INDQ : 0;
  lex_adv(st, 2);
  c = lex_ch(st, 0);
  if (c == '#' && lex_ch(st, 1) != '}' &&
      (lex_is_name(lex_ch(st, 1)) || lex_ch(st, 1) == '@' ||
       lex_ch(st, 1) == '*' || lex_ch(st, 1) == '#' || lex_ch(st, 1) == '?' ||
       lex_ch(st, 1) == '$' || lex_ch(st, 1) == '!' ||
       (lex_ch(st, 1) == '-' && lex_ch(st, 2) == '}'))) {
    pm->op = AST_PE_LENGTH;
    lex_adv(st, 1);
  } else if (c == '!' && lex_ch(st, 1) != '}' && lex_param_name(st, 1) &&
             lex_ch(st, 1) >= 0 &&
             (lex_is_name(lex_ch(st, 1)) || lex_ch(st, 1) == '@' ||
              lex_ch(st, 1) == '*' || lex_ch(st, 1) == '#' ||
              lex_ch(st, 1) == '?' || lex_ch(st, 1) == '$' ||
              lex_ch(st, 1) == '!' || lex_ch(st, 1) == '-')) {
    pm->flags |= AST_PE_INDIRECT;
    lex_adv(st, 1);
  }
  n = lex_param_name(st, 1);
  if (!n) goto bad;
  pm->name = arena_strndup(st->a, st->src + st->pos, n);
  if (!pm->name) return lex_nomem(st);
  lex_adv(st, n);
  if (lex_is_name0(pm->name[0]) && lex_ch(st, 0) == '[') {
    r = lex_subscript(st, pm);
    if (r) return r;
  }
  c = lex_ch(st, 0);
  if (pm->flags & AST_PE_INDIRECT) {
    if ((c == '*' || c == '@') && lex_ch(st, 1) == '}' && !pm->subscript &&
        lex_is_name0(pm->name[0])) {
      pm->op = AST_PE_NAMES;
      pm->subscript = c;
      pm->flags &= ~AST_PE_INDIRECT;
      lex_adv(st, 1);
      c = '}';
    } else if (c == '}' && (pm->subscript == '@' || pm->subscript == '*')) {
      pm->op = AST_PE_KEYS;
      pm->flags &= ~AST_PE_INDIRECT;
    }
  }
  if (pm->op == AST_PE_LENGTH && c != '}') goto bad;
  if (c == '}') {
    lex_adv(st, 1);
    goto done;
  }
  if (c < 0) return lex_error_match(st, line, "}");
  if (c == ':' && (lex_ch(st, 1) == '-' || lex_ch(st, 1) == '=' ||
                   lex_ch(st, 1) == '?' || lex_ch(st, 1) == '+')) {
    pm->flags |= AST_PE_COLON;
    lex_adv(st, 1);
    c = lex_ch(st, 0);
  }
  switch (c) {
  case '-': pm->op = AST_PE_DEFAULT; break;
  case '=': pm->op = AST_PE_ASSIGN; break;
  case '?': pm->op = AST_PE_ERROR; break;
  case '+': pm->op = AST_PE_ALT; break;
  case '#':
    pm->op = lex_ch(st, 1) == '#' ? AST_PE_TRIM_LP : AST_PE_TRIM_SP;
    break;
  case '%':
    pm->op = lex_ch(st, 1) == '%' ? AST_PE_TRIM_LS : AST_PE_TRIM_SS;
    break;
  case '/':
    pm->op = lex_ch(st, 1) == '/'   ? AST_PE_SUB_ALL
             : lex_ch(st, 1) == '#' ? AST_PE_SUB_PRE
             : lex_ch(st, 1) == '%' ? AST_PE_SUB_SUF
                                    : AST_PE_SUB;
    break;
  case ':': pm->op = AST_PE_SLICE; break;
  case '^': pm->op = lex_ch(st, 1) == '^' ? AST_PE_UPPER : AST_PE_UPPER1; break;
  case ',': pm->op = lex_ch(st, 1) == ',' ? AST_PE_LOWER : AST_PE_LOWER1; break;
  case '~':
    pm->op = lex_ch(st, 1) == '~' ? AST_PE_TOGGLE : AST_PE_TOGGLE1;
    break;
  case '@':
    pm->op = AST_PE_TRANSFORM;
    if (lex_ch(st, 1) < 0) return lex_error_match(st, line, "}");
    pm->xform = (char)lex_ch(st, 1);
    if (lex_ch(st, 2) != '}') goto bad;
    lex_adv(st, 3);
    goto done;
  default: goto bad;
  }
  switch (pm->op) {
  case AST_PE_DEFAULT:
  case AST_PE_ASSIGN:
  case AST_PE_ERROR:
  case AST_PE_ALT:
    lex_adv(st, 1);
    r = lex_param_word(
        st, wopts | (in_dq ? LEX_O_SQLIT : 0) | (in_dq == 2 ? LEX_O_NOANSI : 0),
        &pm->w1);
    break;
  case AST_PE_TRIM_LP:
  case AST_PE_TRIM_LS:
  case AST_PE_UPPER:
  case AST_PE_LOWER:
  case AST_PE_TOGGLE:
    lex_adv(st, 2);
    r = lex_param_word(st, wopts, &pm->w1);
    break;
  case AST_PE_SUB_ALL:
  case AST_PE_SUB_PRE:
  case AST_PE_SUB_SUF:
  case AST_PE_SUB:
    lex_adv(st, pm->op == AST_PE_SUB ? 1 : 2);
    r = lex_param_word(st, wopts | LEX_O_STOP_SLASH, &pm->w1);
    if (!r && lex_ch(st, 0) == '/') {
      lex_adv(st, 1);
      r = lex_param_word(st, wopts | LEX_O_PSUB, &pm->w2);
    }
    break;
  case AST_PE_SLICE:
    lex_adv(st, 1);
    r = lex_param_word(st, wopts | LEX_O_STOP_COLON, &pm->w1);
    if (!r && lex_ch(st, 0) == ':') {
      lex_adv(st, 1);
      r = lex_param_word(st, wopts, &pm->w2);
    }
    break;
  default:
    lex_adv(st, 1);
    r = lex_param_word(st, wopts, &pm->w1);
    break;
  }
  if (r) return r;
  if ((pm->op == AST_PE_UPPER1 || pm->op == AST_PE_UPPER ||
       pm->op == AST_PE_LOWER1 || pm->op == AST_PE_LOWER ||
       pm->op == AST_PE_TOGGLE1 || pm->op == AST_PE_TOGGLE ||
       pm->op == AST_PE_ERROR) &&
      pm->w1 && !pm->w1->parts)
    pm->w1 = NULL;
  if (lex_ch(st, 0) != '}') return lex_error_match(st, line, "}");
  lex_adv(st, 1);
done:
  pm->text = arena_strndup(st->a, st->src + start, st->pos - start);
  if (!pm->text) return lex_nomem(st);
  pm->text_len = st->pos - start;
  return 0;
bad:
  if (st->failed) return st->err.code;
  r = lex_skip_brace(st, line);
  if (r) return r;
  memset(pm, 0, sizeof *pm);
  pm->op = AST_PE_BAD;
  pm->name = "";
  pm->flags = AST_PE_BRACED;
  goto done;
}

/* Any $-construct at the `$`. Appends a literal `$` when nothing follows
 * that makes it special. */
static int lex_dollar(lex_state *st, lex_wb *w, int ctx, unsigned opts) {
  int c = lex_ch(st, 1), quoted = ctx == LEX_X_DQ || ctx == LEX_X_HEREDOC ||
                                  ctx == LEX_X_ARITH || (opts & LEX_O_INDQ);
  size_t n, start = st->pos;
  ast_part *p;
  ast_param *pm;
  int r, line = st->line;
  /* extquote (on by default): $'...' works in a ${...} word even inside
   * double quotes */
  if (c == '\'' && (!quoted || (ctx == LEX_X_PARAM && !(opts & LEX_O_NOANSI))))
    return lex_ansi(st, w);
  if (c == '"' && (!quoted || (ctx == LEX_X_PARAM && !(opts & LEX_O_NOANSI)))) {
    lex_adv(st, 1);
    return lex_dquote(st, w, AST_PF_DOLLAR);
  }
  if (c == '{') /* 2: in a here-document (see LEX_O_NOANSI) */
    return lex_brace_param(st, w,
                           !quoted                                         ? 0
                           : ctx == LEX_X_HEREDOC || (opts & LEX_O_NOANSI) ? 2
                                                                           : 1);
  if (c == '(') {
    if (lex_ch(st, 2) == '(' && lex_is_arith(st, st->pos + 3)) {
      p = lex_part_new(st, AST_P_ARITH);
      if (!p) return MSB_ENOMEM;
      lex_adv(st, 3);
      r = lex_arith_body(st, line, &p->expr, &p->text);
      if (r) return r;
      p->len = strlen(p->text);
      return lex_wb_add(w, p);
    }
    return lex_cmdsub(st, w);
  }
  if (c == '[') {
    /* Obsolete $[ expr ]: same as $(( expr )). */
    ast_word *wd = arena_zalloc(st->a, sizeof *wd);
    p = lex_part_new(st, AST_P_ARITH);
    if (!wd || !p) return lex_nomem(st);
    p->flags = AST_PF_BRACKET;
    wd->line = line;
    lex_adv(st, 2);
    r = lex_parts(st, LEX_X_SUBSCR, 0, &wd->parts);
    if (r) return r;
    if (lex_ch(st, 0) != ']') return lex_error_match(st, line, "]");
    p->text = arena_strndup(st->a, st->src + start + 2, st->pos - start - 2);
    if (!p->text) return lex_nomem(st);
    p->len = st->pos - start - 2;
    p->expr = wd;
    lex_adv(st, 1);
    return lex_wb_add(w, p);
  }
  lex_adv(st, 1);
  n = lex_param_name(st, 0);
  if (!n) return lex_wb_putc(w, 0, '$');
  p = lex_part_new(st, AST_P_PARAM);
  pm = arena_zalloc(st->a, sizeof *pm);
  if (!p || !pm) return lex_nomem(st);
  p->param = pm;
  pm->name = arena_strndup(st->a, st->src + st->pos, n);
  lex_adv(st, n);
  pm->text = arena_strndup(st->a, st->src + start, st->pos - start);
  pm->text_len = st->pos - start;
  if (!pm->name || !pm->text) return lex_nomem(st);
  return lex_wb_add(w, p);
}

/* ---- Tilde ------------------------------------------------------------- */

/* At a `~` where a tilde prefix may start: if the prefix (up to `/`, `:` in
 * assignments, or the end of the word) is all plain characters, adds a
 * TILDE part and returns 1; 0 leaves the `~` to the caller. */
static int lex_tilde(lex_state *st, lex_wb *w, int ctx, unsigned opts) {
  size_t i = 1, n;
  int c, r;
  ast_part *p;
  for (;;) {
    c = lex_ch(st, i);
    if (c < 0 || c == '/') break;
    if (c == ':' && (opts & LEX_O_ASSIGN)) break;
    if (ctx == LEX_X_WORD && lex_is_meta(c)) break;
    if (ctx == LEX_X_PARAM && c == '}') break;
    if (!lex_is_name(c) && c != '.' && c != '-' && c != '+') return 0;
    i++;
  }
  n = i - 1;
  p = lex_part_new(st, AST_P_TILDE);
  if (!p) return -1;
  p->text = arena_strndup(st->a, st->src + st->pos + 1, n);
  if (!p->text) {
    lex_nomem(st);
    return -1;
  }
  p->len = n;
  lex_adv(st, i);
  r = lex_wb_add(w, p);
  return r ? -1 : 1;
}

/* ---- The context loop ---------------------------------------------------- */

/* Reads parts in a context until its terminator (left unconsumed). */
static int lex_parts(lex_state *st, int ctx, unsigned opts, ast_part **out) {
  lex_wb w;
  int c, r = 0, depth = 0, bdepth = 0, first = 1, seen_eq = 0;
  int eq_tilde = 0;
  int quoted_ctx = ctx == LEX_X_DQ || ctx == LEX_X_HEREDOC ||
                   ctx == LEX_X_ARITH || (opts & LEX_O_INDQ);
  /* Where single quotes quote: everywhere unquoted, and in pattern
   * operands of ${...} even inside double quotes. */
  int sq_quotes = ctx == LEX_X_WORD || ctx == LEX_X_REGEX ||
                  ctx == LEX_X_SUBSCR ||
                  (ctx == LEX_X_PARAM && !(opts & LEX_O_SQLIT));
  lex_wb_init(&w, st);
  *out = NULL;
  for (;; first = 0) {
    if (st->failed) {
      r = st->err.code;
      break;
    }
    c = lex_ch(st, 0);
    if (c < 0) break;
    /* Terminators. */
    switch (ctx) {
    case LEX_X_WORD:
      if (depth == 0 && lex_is_meta(c)) {
        if ((c == '<' || c == '>') && lex_ch(st, 1) == '(') {
          r = lex_procsub(st, &w);
          if (r) goto out;
          continue;
        }
        goto out;
      }
      if (depth > 0 && c == ')') depth--;
      if (depth > 0 && c == '(') depth++;
      break;
    case LEX_X_REGEX:
      if (depth == 0 && (c == '<' || c == '>') && lex_ch(st, 1) == '(') {
        r = lex_procsub(st, &w);
        if (r) goto out;
        continue;
      }
      if (depth == 0 && (lex_is_blank(c) || c == '\n' || c == ';' || c == '&' ||
                         c == '<' || c == '>'))
        goto out;
      if (c == '(') depth++;
      if (c == ')') {
        if (depth == 0) goto out;
        depth--;
      }
      break;
    case LEX_X_DQ:
      if (c == '"') goto out;
      break;
    case LEX_X_PARAM:
      /* ${x:-<(cmd)} substitutes a process outside double quotes. */
      if ((c == '<' || c == '>') && lex_ch(st, 1) == '(' &&
          (!(opts & LEX_O_INDQ) || (opts & LEX_O_PSUB))) {
        r = lex_procsub(st, &w);
        if (r) goto out;
        continue;
      }
      if (c == '}' && bdepth == 0) goto out;
      if (c == '}') bdepth--;
      if (c == '{') bdepth++;
      if (c == '/' && (opts & LEX_O_STOP_SLASH) && bdepth == 0) goto out;
      if (c == ':' && (opts & LEX_O_STOP_COLON) && depth == 0) goto out;
      if (c == '?' && (opts & LEX_O_STOP_COLON)) depth++;
      if (c == ':' && (opts & LEX_O_STOP_COLON)) depth--;
      break;
    case LEX_X_ARITH:
      if (c == ')') {
        if (depth == 0) goto out;
        depth--;
      }
      if (c == '(') depth++;
      if (c == ';' && depth == 0 && (opts & LEX_O_STOP_SEMI)) goto out;
      break;
    case LEX_X_SUBSCR:
      if (c == ']') {
        if (depth == 0) goto out;
        depth--;
      }
      if (c == '[') depth++;
      break;
    default: break;
    }
    /* Quoting and expansions. */
    if (c == '\\') {
      int d = lex_ch(st, 1);
      if (d == '\n') {
        lex_adv(st, 2);
        if (st->pos == st->len && st->src == st->top_src) st->bs_eof = 1;
        continue;
      }
      if (d < 0) {
        /* bash -c keeps a final backslash; a REPL asks for more. */
        if (st->src == st->top_src) st->bs_eof = 1;
        r = lex_wb_putc(&w, 0, '\\');
        lex_adv(st, 1);
        if (r) goto out;
        continue;
      }
      if (quoted_ctx) {
        int special = d == '$' || d == '`' || d == '\\' ||
                      (d == '"' && ctx != LEX_X_HEREDOC) ||
                      (d == '}' && ctx == LEX_X_PARAM);
        if (special) {
          r = lex_wb_putc(&w, 0, d);
          lex_adv(st, 2);
        } else {
          r = lex_wb_putc(&w, 0, '\\');
          lex_adv(st, 1);
        }
        if (r) goto out;
        continue;
      }
      r = lex_wb_putc(&w, 1, d);
      lex_adv(st, 2);
      if (r) goto out;
      continue;
    }
    if (c == '$') {
      if (ctx == LEX_X_HEREDOC && lex_ch(st, 1) == '(' &&
          !(lex_ch(st, 2) == '(' && lex_is_arith(st, st->pos + 3))) {
        /* A broken $( in a here-document fails when it runs, as in
         * bash: keep the rest of the body as a deferred substitution. */
        size_t save = st->pos;
        int sline = st->line, odepth = st->depth;
        size_t ostack = st->stack;
        r = lex_dollar(st, &w, ctx, opts);
        if (r && !lex_recover(st, r)) {
          ast_part *p = lex_part_new(st, AST_P_CMDSUB);
          st->depth = odepth;
          st->stack = ostack;
          st->pos = save;
          st->line = sline;
          if (!p) {
            r = MSB_ENOMEM;
            goto out;
          }
          p->flags = AST_PF_DEFERRED;
          if (r == MSB_EINCOMPLETE) p->flags |= AST_PF_EOF;
          /* bash numbers the error from the body's first line */
          p->line = sline;
          for (size_t i = 0; i < save; i++)
            if (st->src[i] == '\n') p->line--;
          p->text = st->src + save + 2;
          p->len = st->len - save - 2;
          lex_adv(st, st->len - st->pos);
          r = lex_wb_add(&w, p);
        }
        if (r) goto out;
        continue;
      }
      r = lex_dollar(st, &w, ctx, opts);
      if (r) goto out;
      continue;
    }
    if (c == '`') {
      r = lex_backquote(st, &w, quoted_ctx && ctx != LEX_X_HEREDOC);
      if (r) goto out;
      continue;
    }
    if (c == '\'' && sq_quotes) {
      r = lex_squote(st, &w);
      if (r) goto out;
      continue;
    }
    if (c == '"' && ctx == LEX_X_ARITH) {
      lex_adv(st, 1); /* double quotes are removed in arithmetic */
      continue;
    }
    if (c == '"' && ctx != LEX_X_HEREDOC && ctx != LEX_X_DQ) {
      r = lex_dquote(st, &w, 0);
      if (r) goto out;
      continue;
    }
    if (c == '~' && (ctx == LEX_X_WORD || ctx == LEX_X_PARAM) &&
        !(opts & LEX_O_INDQ) &&
        (first || ((opts & LEX_O_ASSIGN) && w.lit.len && !w.lit_sq &&
                   w.lit.p[w.lit.len - 1] == ':'))) {
      int t = lex_tilde(st, &w, ctx, opts);
      if (t < 0) {
        r = st->err.code ? st->err.code : MSB_ENOMEM;
        goto out;
      }
      if (t) continue;
    }
    if (c == '=' && !seen_eq && (opts & LEX_O_TILDE_EQ)) {
      /* `echo a=~/x` expands the tilde after the first `=` when the text
       * before it is a name, like an assignment. */
      size_t i;
      seen_eq = 1;
      eq_tilde = !w.head && !w.lit_sq && w.lit.len > 0 &&
                 lex_is_name0((unsigned char)w.lit.p[0]);
      for (i = 0; eq_tilde && i < w.lit.len; i++)
        if (!lex_is_name((unsigned char)w.lit.p[i])) eq_tilde = 0;
      r = lex_wb_putc(&w, 0, c);
      lex_adv(st, 1);
      if (r) goto out;
      if (eq_tilde && lex_ch(st, 0) == '~') {
        int t = lex_tilde(st, &w, ctx, opts);
        if (t < 0) {
          r = st->err.code ? st->err.code : MSB_ENOMEM;
          goto out;
        }
      }
      continue;
    }
    if (ctx == LEX_X_WORD && (st->flags & PARSE_EXTGLOB) &&
        (c == '?' || c == '*' || c == '+' || c == '@' || c == '!') &&
        lex_ch(st, 1) == '(') {
      r = lex_wb_put(&w, 0, st->src + st->pos, 2);
      lex_adv(st, 2);
      depth++;
      if (r) goto out;
      continue;
    }
    r = lex_wb_putc(&w, 0, c);
    lex_adv(st, 1);
    if (r) goto out;
  }
out:
  if (r) {
    lex_wb_drop(&w);
    return r;
  }
  return lex_wb_finish(&w, out);
}

/* ---- Here-documents ------------------------------------------------------ */

/* Reads one body, st->pos at the start of the line after the operator's
 * line. */
static int lex_heredoc_body(lex_state *st, ast_redir *r) {
  size_t dlen = strlen(r->delim), ls, le;
  int line0 = st->line, found = 0, rr;
  buf b;
  const char *s;
  buf_init(&b, st->m);
  while (st->pos < st->len) {
    const char *nl;
    size_t k;
    ls = st->pos;
    nl = memchr(st->src + ls, '\n', st->len - ls);
    le = nl ? (size_t)(nl - st->src) : st->len;
    s = st->src + ls;
    k = 0;
    if (r->strip_tabs)
      while (ls + k < le && s[k] == '\t') k++;
    /* Unquoted bodies join backslash-newline before the delimiter check. */
    if (!r->heredoc_quoted && le > ls + k && st->src[le - 1] == '\\' && nl) {
      size_t bs = 0;
      while (le - bs > ls + k && st->src[le - 1 - bs] == '\\') bs++;
      if (bs % 2 == 1) {
        buf_put(&b, s + k, le - 1 - (ls + k));
        lex_adv(st, le + 1 - ls);
        continue;
      }
    }
    if (le - (ls + k) == dlen && !memcmp(s + k, r->delim, dlen)) {
      lex_adv(st, (nl ? le + 1 : le) - ls);
      found = 1;
      break;
    }
    buf_put(&b, s + k, le - (ls + k));
    if (nl) buf_putc(&b, '\n');
    lex_adv(st, (nl ? le + 1 : le) - ls);
  }
  if (b.err) {
    buf_finish(&b);
    return lex_nomem(st);
  }
  if (!found) {
    /* bash warns and uses what it read. */
    buf_printf(&st->warn,
               "line %d: warning: here-document at line %d delimited by "
               "end-of-file (wanted `%s')\n",
               lex_eof_line(st) - 1, r->line, r->delim);
    if (!st->err.missing) st->err.missing = "here-document";
    st->hd_eof = 1;
  }
  r->body = arena_zalloc(st->a, sizeof *r->body);
  r->body_raw = arena_strndup(st->a, b.p ? b.p : "", b.len);
  r->body_raw_len = b.len;
  if (!r->body || !r->body_raw) {
    buf_finish(&b);
    return lex_nomem(st);
  }
  r->body->line = line0;
  if (r->heredoc_quoted) {
    ast_part *p;
    if (b.len) {
      p = lex_part_new(st, AST_P_SQ);
      if (!p) {
        buf_finish(&b);
        return MSB_ENOMEM;
      }
      p->text = arena_strndup(st->a, b.p, b.len);
      p->len = b.len;
      r->body->parts = p;
      if (!p->text) {
        buf_finish(&b);
        return lex_nomem(st);
      }
    }
    buf_finish(&b);
    return 0;
  }
  /* Lex the unquoted body as its own source. */
  {
    const char *osrc = st->src;
    size_t olen = st->len, opos = st->pos;
    int oline = st->line;
    char *body = arena_strndup(st->a, b.p ? b.p : "", b.len);
    size_t blen = b.len;
    buf_finish(&b);
    if (!body) return lex_nomem(st);
    st->src = body;
    st->len = blen;
    st->pos = 0;
    st->line = line0;
    rr = lex_parts(st, LEX_X_HEREDOC, 0, &r->body->parts);
    st->src = osrc;
    st->len = olen;
    st->pos = opos;
    st->line = oline;
    return rr;
  }
}

int lex_heredoc_queue(lex_state *st, const lex_token *word, ast_redir *r) {
  const char *s = word->raw;
  size_t i = 0, n = word->raw_len;
  buf b;
  lex_heredoc *h;
  buf_init(&b, st->m);
  /* Quote removal on the raw text; any quoting makes the body literal. */
  while (i < n) {
    char c = s[i];
    if (c == '\\' && i + 1 < n) {
      if (s[i + 1] != '\n') buf_putc(&b, s[i + 1]);
      r->heredoc_quoted = s[i + 1] != '\n' ? 1 : r->heredoc_quoted;
      i += 2;
    } else if (c == '\'' || c == '"') {
      size_t j = i + 1;
      r->heredoc_quoted = 1;
      while (j < n && s[j] != c) {
        if (c == '"' && s[j] == '\\' && j + 1 < n &&
            (s[j + 1] == '"' || s[j + 1] == '\\' || s[j + 1] == '$' ||
             s[j + 1] == '`'))
          j++;
        buf_putc(&b, s[j]);
        j++;
      }
      i = j + 1;
    } else if (c == '$' && i + 1 < n && (s[i + 1] == '\'' || s[i + 1] == '"')) {
      i++;
    } else {
      buf_putc(&b, c);
      i++;
    }
  }
  r->delim = arena_strndup(st->a, b.p ? b.p : "", b.len);
  buf_finish(&b);
  h = arena_zalloc(st->a, sizeof *h);
  if (!r->delim || !h) return lex_nomem(st);
  h->r = r;
  if (st->hd_tail)
    st->hd_tail->next = h;
  else
    st->hd_head = h;
  st->hd_tail = h;
  return 0;
}

/* Reads every queued here-document body, in order. */
int lex_read_heredocs(lex_state *st) {
  int r;
  while (st->hd_head) {
    lex_heredoc *h = st->hd_head;
    st->hd_head = h->next;
    if (!st->hd_head) st->hd_tail = NULL;
    r = lex_heredoc_body(st, h->r);
    if (r) return r;
  }
  return 0;
}

/* ---- Tokens -------------------------------------------------------------- */

/* Skips blanks, continuations and a comment. */
static void lex_skip_space(lex_state *st) {
  for (;;) {
    int c = lex_ch(st, 0);
    if (lex_is_blank(c)) {
      lex_adv(st, 1);
    } else if (c == '\\' && lex_ch(st, 1) == '\n') {
      lex_adv(st, 2);
      if (st->pos == st->len && st->src == st->top_src) st->bs_eof = 1;
    } else if (c == '#') {
      const char *nl = memchr(st->src + st->pos, '\n', st->len - st->pos);
      lex_adv(st, (nl ? (size_t)(nl - st->src) : st->len) - st->pos);
    } else {
      return;
    }
  }
}

int lex_peek_char(lex_state *st) {
  lex_skip_space(st);
  return lex_ch(st, 0);
}

/* Array literal elements after NAME=( : st->pos just past `(`. */
static int lex_array(lex_state *st, ast_assign *as) {
  int line = st->line, r, c;
  ast_elem *tail = NULL;
  for (;;) {
    ast_elem *e;
    for (;;) {
      lex_skip_space(st);
      c = lex_ch(st, 0);
      if (c != '\n') break;
      lex_adv(st, 1);
      r = lex_read_heredocs(st);
      if (r) return r;
    }
    if (c < 0) return lex_error_match(st, line, ")");
    if (c == ')') {
      lex_adv(st, 1);
      return 0;
    }
    if (lex_is_meta(c) && !((c == '<' || c == '>') && lex_ch(st, 1) == '(')) {
      lex_token t;
      memset(&t, 0, sizeof t);
      t.t = LEX_T_WORD;
      t.line = st->line;
      t.raw = st->src + st->pos;
      t.raw_len = (c == ';' && lex_ch(st, 1) == ';') ||
                          (c == '&' && lex_ch(st, 1) == '&') ||
                          (c == '|' && lex_ch(st, 1) == '|')
                      ? 2
                      : 1;
      return lex_error_token(st, &t);
    }
    e = arena_zalloc(st->a, sizeof *e);
    if (!e) return lex_nomem(st);
    e->value = arena_zalloc(st->a, sizeof *e->value);
    if (!e->value) return lex_nomem(st);
    e->value->line = st->line;
    if (c == '[') {
      size_t save = st->pos;
      int sline = st->line;
      ast_word *ix = arena_zalloc(st->a, sizeof *ix);
      if (!ix) return lex_nomem(st);
      ix->line = st->line;
      lex_adv(st, 1);
      r = lex_parts(st, LEX_X_SUBSCR, 0, &ix->parts);
      if (r) return r;
      ix->raw = arena_strndup(st->a, st->src + save + 1, st->pos - save - 1);
      ix->raw_len = st->pos - save - 1;
      if (!ix->raw) return lex_nomem(st);
      if (lex_ch(st, 0) == ']' &&
          (lex_ch(st, 1) == '=' ||
           (lex_ch(st, 1) == '+' && lex_ch(st, 2) == '='))) {
        e->index = ix;
        e->append = lex_ch(st, 1) == '+';
        lex_adv(st, e->append ? 3 : 2);
      } else {
        st->pos = save;
        st->line = sline;
      }
    }
    {
      size_t vstart = st->pos;
      r = lex_parts(st, LEX_X_WORD, LEX_O_ASSIGN, &e->value->parts);
      if (r) return r;
      e->value->raw = arena_strndup(st->a, st->src + vstart, st->pos - vstart);
      e->value->raw_len = st->pos - vstart;
      if (!e->value->raw) return lex_nomem(st);
    }
    if (tail)
      tail->next = e;
    else
      as->elems = e;
    tail = e;
  }
}

/* Tries NAME=, NAME+=, NAME[sub]= at the current position. On success
 * fills tok (word, assign) and returns 1; 0 restores the position. */
static int lex_assignment(lex_state *st, lex_token *tok) {
  size_t save = st->pos, n = 0, eqpos;
  int sline = st->line, r;
  ast_assign *as;
  ast_word *wd;
  ast_part *head = NULL;
  if (!lex_is_name0(lex_ch(st, 0))) return 0;
  while (lex_is_name(lex_ch(st, n))) n++;
  as = arena_zalloc(st->a, sizeof *as);
  wd = arena_zalloc(st->a, sizeof *wd);
  if (!as || !wd) {
    lex_nomem(st);
    return -1;
  }
  as->line = st->line;
  wd->line = st->line;
  as->name = arena_strndup(st->a, st->src + st->pos, n);
  if (!as->name) return -1;
  lex_adv(st, n);
  if (lex_ch(st, 0) == '[') {
    ast_word *ix = arena_zalloc(st->a, sizeof *ix);
    if (!ix) return -1;
    ix->line = st->line;
    lex_adv(st, 1);
    r = lex_parts(st, LEX_X_SUBSCR, 0, &ix->parts);
    if (r) {
      if (r == MSB_ENOMEM || r == MSB_ELIMIT) return -1;
      /* Not an assignment after all: forget the error. */
      st->failed = 0;
      st->err.code = 0;
      st->err.missing = NULL;
      goto no;
    }
    if (lex_ch(st, 0) != ']') goto no;
    lex_adv(st, 1);
    as->index = ix;
  }
  if (lex_ch(st, 0) == '+' && lex_ch(st, 1) == '=') {
    as->append = 1;
    lex_adv(st, 1);
  }
  if (lex_ch(st, 0) != '=') goto no;
  lex_adv(st, 1);
  eqpos = st->pos;
  /* The word's parts: the literal "name...=" text, then the value. */
  head = lex_part_new(st, AST_P_LIT);
  if (!head) return -1;
  head->text = arena_strndup(st->a, st->src + save, eqpos - save);
  head->len = eqpos - save;
  if (!head->text) return -1;
  wd->parts = head;
  as->value = arena_zalloc(st->a, sizeof *as->value);
  if (!as->value) return -1;
  as->value->line = st->line;
  if (lex_ch(st, 0) == '(') {
    as->is_array = 1;
    lex_adv(st, 1);
    r = lex_array(st, as);
    if (r) return -1;
    as->value = NULL;
    tok->array_assign = 1;
  } else {
    r = lex_parts(st, LEX_X_WORD, LEX_O_ASSIGN, &as->value->parts);
    if (r) return -1;
    head->next = as->value->parts;
  }
  tok->t = LEX_T_WORD;
  tok->word = wd;
  tok->assign = as;
  wd->assign = as;
  tok->raw = st->src + save;
  tok->raw_len = st->pos - save;
  wd->raw = as->raw = arena_strndup(st->a, tok->raw, tok->raw_len);
  wd->raw_len = as->raw_len = tok->raw_len;
  if (!wd->raw) {
    lex_nomem(st);
    return -1;
  }
  tok->plain = 0;
  return 1;
no:
  st->pos = save;
  st->line = sline;
  return 0;
}

/* Reads a word token. */
static int lex_word(lex_state *st, unsigned mode, lex_token *tok) {
  size_t start = st->pos;
  int r;
  ast_word *wd;
  if (mode & LEX_M_ASSIGN) {
    r = lex_assignment(st, tok);
    if (r < 0) return st->failed ? st->err.code : lex_nomem(st);
    if (r > 0) {
      /* An assignment word ends where a word would. */
      int c = lex_ch(st, 0);
      if (c < 0 || lex_is_meta(c) || tok->array_assign) return 0;
      st->pos = start;
      st->line = tok->line;
      tok->assign = NULL;
      tok->array_assign = 0;
    }
  }
  wd = arena_zalloc(st->a, sizeof *wd);
  if (!wd) return lex_nomem(st);
  wd->line = st->line;
  r = lex_parts(st, (mode & LEX_M_REGEX) ? LEX_X_REGEX : LEX_X_WORD,
                LEX_O_TILDE_EQ, &wd->parts);
  if (r) return r;
  tok->t = LEX_T_WORD;
  tok->word = wd;
  tok->raw = st->src + start;
  tok->raw_len = st->pos - start;
  tok->plain = wd->parts && !wd->parts->next && wd->parts->kind == AST_P_LIT;
  wd->raw = arena_strndup(st->a, tok->raw, tok->raw_len);
  wd->raw_len = tok->raw_len;
  if (!wd->raw) return lex_nomem(st);
  return 0;
}

/* The token copies live here, out of line (see parse_peek). */
int lex_peek_next(lex_state *st, unsigned mode) {
  lex_token t;
  int r = lex_next(st, mode, &t);
  if (r) return r;
  st->peek = t;
  st->peek_mode = mode;
  st->have_peek = 1;
  return 0;
}

int lex_peek_save(lex_state *st, lex_token **saved) {
  *saved = NULL;
  if (!st->have_peek) return 0;
  *saved = arena_alloc(st->a, sizeof **saved);
  if (!*saved) return lex_nomem(st);
  **saved = st->peek;
  st->have_peek = 0;
  return 0;
}

void lex_peek_restore(lex_state *st, const lex_token *saved) {
  st->have_peek = saved != NULL;
  if (saved) st->peek = *saved;
}

int lex_next(lex_state *st, unsigned mode, lex_token *tok) {
  int c, d, r;
  size_t n;
  memset(tok, 0, sizeof *tok);
  tok->fd = -1;
  if (st->failed) return st->err.code;
  lex_skip_space(st);
  tok->line = st->line;
  tok->start = st->pos;
  c = lex_ch(st, 0);
  d = lex_ch(st, 1);
  if (c < 0) {
    /* bash -c ends an unterminated last line with a newline token. */
    if (!st->eof_nl && st->src == st->top_src && st->len &&
        st->src[st->len - 1] != '\n') {
      st->eof_nl = 1;
      tok->t = LEX_T_NEWLINE;
      return lex_read_heredocs(st);
    }
    tok->t = LEX_T_EOF;
    return 0;
  }
  if (mode & LEX_M_REGEX) {
    if (c == '\n' || c == ';' || c == '&' || c == '|' || c == ')') goto ops;
    return lex_word(st, mode, tok);
  }
  if (c == '\n') {
    tok->t = LEX_T_NEWLINE;
    lex_adv(st, 1);
    return lex_read_heredocs(st);
  }
  if ((mode & LEX_M_COND) && (c == '<' || c == '>') && d != '(') {
    /* String comparison operators inside [[ ]]. */
    ast_word *wd = arena_zalloc(st->a, sizeof *wd);
    ast_part *p = lex_part_new(st, AST_P_LIT);
    if (!wd || !p) return lex_nomem(st);
    p->text = c == '<' ? "<" : ">";
    p->len = 1;
    wd->parts = p;
    wd->line = st->line;
    tok->t = LEX_T_WORD;
    tok->word = wd;
    tok->raw = p->text;
    tok->raw_len = 1;
    tok->plain = 1;
    lex_adv(st, 1);
    return 0;
  }
  /* Redirections with an fd number or {varname}. */
  if (lex_is_digit(c)) {
    n = 0;
    while (lex_is_digit(lex_ch(st, n))) n++;
    if ((lex_ch(st, n) == '<' || lex_ch(st, n) == '>') &&
        lex_ch(st, n + 1) != '(' && n < 10) {
      int fd = 0;
      size_t i;
      for (i = 0; i < n; i++) fd = fd * 10 + (st->src[st->pos + i] - '0');
      lex_adv(st, n);
      c = lex_ch(st, 0);
      d = lex_ch(st, 1);
      tok->fd = fd;
      goto redir;
    }
  }
  if (c == '{' && lex_is_name0(d)) {
    n = 1;
    while (lex_is_name(lex_ch(st, n))) n++;
    if (lex_ch(st, n) == '}' &&
        (lex_ch(st, n + 1) == '<' || lex_ch(st, n + 1) == '>') &&
        lex_ch(st, n + 2) != '(') {
      tok->varname = arena_strndup(st->a, st->src + st->pos + 1, n - 1);
      if (!tok->varname) return lex_nomem(st);
      lex_adv(st, n + 1);
      c = lex_ch(st, 0);
      d = lex_ch(st, 1);
      goto redir;
    }
  }
ops:
  switch (c) {
  case ';':
    if (d == ';') {
      if (lex_ch(st, 2) == '&') {
        tok->t = LEX_T_DSEMIAMP;
        lex_adv(st, 3);
      } else {
        tok->t = LEX_T_DSEMI;
        lex_adv(st, 2);
      }
    } else if (d == '&') {
      tok->t = LEX_T_SEMIAMP;
      lex_adv(st, 2);
    } else {
      tok->t = LEX_T_SEMI;
      lex_adv(st, 1);
    }
    return 0;
  case '&':
    if (d == '&') {
      tok->t = LEX_T_AND;
      lex_adv(st, 2);
      return 0;
    }
    if (d == '>' && !(mode & LEX_M_COND)) {
      lex_adv(st, 2);
      tok->t = LEX_T_REDIR;
      if (lex_ch(st, 0) == '>') {
        lex_adv(st, 1);
        tok->rop = AST_R_ALL_APPEND;
      } else {
        tok->rop = AST_R_ALL;
      }
      return 0;
    }
    tok->t = LEX_T_AMP;
    lex_adv(st, 1);
    return 0;
  case '|':
    if (d == '|') {
      tok->t = LEX_T_OR;
      lex_adv(st, 2);
    } else if (d == '&') {
      tok->t = LEX_T_PIPEAMP;
      lex_adv(st, 2);
    } else {
      tok->t = LEX_T_PIPE;
      lex_adv(st, 1);
    }
    return 0;
  case '(':
    tok->t = LEX_T_LPAREN;
    lex_adv(st, 1);
    return 0;
  case ')':
    tok->t = LEX_T_RPAREN;
    lex_adv(st, 1);
    return 0;
  case '\n':
    tok->t = LEX_T_NEWLINE;
    lex_adv(st, 1);
    return lex_read_heredocs(st);
  case '<':
  case '>':
    if (d == '(') return lex_word(st, mode, tok);
    goto redir;
  default: return lex_word(st, mode, tok);
  }
redir:
  tok->t = LEX_T_REDIR;
  if (c == '<') {
    if (d == '<') {
      if (lex_ch(st, 2) == '<') {
        tok->rop = AST_R_HERESTR;
        lex_adv(st, 3);
      } else if (lex_ch(st, 2) == '-') {
        tok->rop = AST_R_HEREDOC;
        tok->strip_tabs = 1;
        lex_adv(st, 3);
      } else {
        tok->rop = AST_R_HEREDOC;
        lex_adv(st, 2);
      }
    } else if (d == '>') {
      tok->rop = AST_R_RDWR;
      lex_adv(st, 2);
    } else if (d == '&') {
      tok->rop = AST_R_DUPIN;
      lex_adv(st, 2);
    } else {
      tok->rop = AST_R_IN;
      lex_adv(st, 1);
    }
  } else {
    if (d == '>') {
      tok->rop = AST_R_APPEND;
      lex_adv(st, 2);
    } else if (d == '|') {
      tok->rop = AST_R_CLOBBER;
      lex_adv(st, 2);
    } else if (d == '&') {
      tok->rop = AST_R_DUPOUT;
      lex_adv(st, 2);
    } else {
      tok->rop = AST_R_OUT;
      lex_adv(st, 1);
    }
  }
  r = 0;
  return r;
}
