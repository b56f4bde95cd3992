/* awk_lex.c - awk's lexer: tokens of the POSIX grammar plus gawk's
 * keywords (BEGINFILE, ENDFILE, nextfile, switch, @include).
 *
 * Newlines are tokens, except after the tokens the grammar lets a line
 * continue past ("," "{" "&&" "||" "do" "else") and after a backslash.
 * Whether '/' starts a regex depends on the previous token: after an
 * operand it divides. Errors are printed like gawk's: the source line,
 * a caret under the last character read, and the message. */
#include <stdlib.h>
#include <string.h>

#include "awk.h"

static const struct {
  const char *name;
  int tok, bid;
} awk_words[] = {
    {"BEGIN", T_BEGIN, 0},
    {"BEGINFILE", T_BEGINFILE, 0},
    {"END", T_END, 0},
    {"ENDFILE", T_ENDFILE, 0},
    {"and", T_BUILTIN, B_AND},
    {"asort", T_BUILTIN, B_ASORT},
    {"asorti", T_BUILTIN, B_ASORTI},
    {"atan2", T_BUILTIN, B_ATAN2},
    {"break", T_BREAK, 0},
    {"case", T_CASE, 0},
    {"close", T_BUILTIN, B_CLOSE},
    {"compl", T_BUILTIN, B_COMPL},
    {"continue", T_CONTINUE, 0},
    {"cos", T_BUILTIN, B_COS},
    {"default", T_DEFAULT, 0},
    {"delete", T_DELETE, 0},
    {"do", T_DO, 0},
    {"else", T_ELSE, 0},
    {"exit", T_EXIT, 0},
    {"exp", T_BUILTIN, B_EXP},
    {"fflush", T_BUILTIN, B_FFLUSH},
    {"for", T_FOR, 0},
    {"func", T_FUNCTION, 0},
    {"function", T_FUNCTION, 0},
    {"gensub", T_BUILTIN, B_GENSUB},
    {"getline", T_GETLINE, 0},
    {"gsub", T_BUILTIN, B_GSUB},
    {"if", T_IF, 0},
    {"in", T_IN, 0},
    {"index", T_BUILTIN, B_INDEX},
    {"int", T_BUILTIN, B_INT},
    {"isarray", T_BUILTIN, B_ISARRAY},
    {"length", T_BUILTIN, B_LENGTH},
    {"log", T_BUILTIN, B_LOG},
    {"lshift", T_BUILTIN, B_LSHIFT},
    {"match", T_BUILTIN, B_MATCH},
    {"mktime", T_BUILTIN, B_MKTIME},
    {"next", T_NEXT, 0},
    {"nextfile", T_NEXTFILE, 0},
    {"or", T_BUILTIN, B_OR},
    {"patsplit", T_BUILTIN, B_PATSPLIT},
    {"print", T_PRINT, 0},
    {"printf", T_PRINTF, 0},
    {"rand", T_BUILTIN, B_RAND},
    {"return", T_RETURN, 0},
    {"rshift", T_BUILTIN, B_RSHIFT},
    {"sin", T_BUILTIN, B_SIN},
    {"split", T_BUILTIN, B_SPLIT},
    {"sprintf", T_BUILTIN, B_SPRINTF},
    {"sqrt", T_BUILTIN, B_SQRT},
    {"srand", T_BUILTIN, B_SRAND},
    {"strftime", T_BUILTIN, B_STRFTIME},
    {"strtonum", T_BUILTIN, B_STRTONUM},
    {"sub", T_BUILTIN, B_SUB},
    {"substr", T_BUILTIN, B_SUBSTR},
    {"switch", T_SWITCH, 0},
    {"system", T_BUILTIN, B_SYSTEM},
    {"systime", T_BUILTIN, B_SYSTIME},
    {"tolower", T_BUILTIN, B_TOLOWER},
    {"toupper", T_BUILTIN, B_TOUPPER},
    {"typeof", T_BUILTIN, B_TYPEOF},
    {"while", T_WHILE, 0},
    {"xor", T_BUILTIN, B_XOR},
};

void awk_lex_init(awk_lex *l, cmd_ctx *c, const awk_src *srcs, int nsrc) {
  memset(l, 0, sizeof *l);
  l->c = c;
  l->srcs = srcs;
  l->nsrc = nsrc;
  l->line = 1;
  l->err = c->err;
  l->prev = T_NL;
}

static int awk_lex_peekc(awk_lex *l, size_t off) {
  const awk_src *s = &l->srcs[l->cur];
  return l->pos + off < s->len ? (unsigned char)s->text[l->pos + off] : -1;
}

void awk_lex_error(awk_lex *l, const char *msg) {
  const awk_src *s = &l->srcs[l->cur < l->nsrc ? l->cur : l->nsrc - 1];
  size_t p = l->pos < s->len ? l->pos : s->len, b, e, col;
  const char *name = cmd_name(l->c);
  int eof = l->pos >= s->len && l->tok == T_EOF;
  if (l->failed) return;
  l->failed = 1;
  if (p > 0) p--;
  if (l->at_start) p = l->tok_start < s->len ? l->tok_start : p;
  b = p;
  while (b > 0 && s->text[b - 1] != '\n') b--;
  e = b;
  while (e < s->len && s->text[e] != '\n') e++;
  col = p - b + (eof && s->len && s->text[s->len - 1] != '\n');
  buf_printf(l->err, "%s: %s:%d: %.*s\n", name, s->name, l->line, (int)(e - b),
             s->text + b);
  buf_printf(l->err, "%s: %s:%d: %*s^ %s\n", name, s->name, l->line, (int)col,
             "", msg);
}

static int awk_lex_word(awk_lex *l, const char *w, size_t n) {
  size_t lo = 0, hi = sizeof awk_words / sizeof awk_words[0];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int r = strncmp(awk_words[mid].name, w, n);
    if (r == 0 && awk_words[mid].name[n]) r = 1;
    if (r == 0) {
      l->bid = awk_words[mid].bid;
      return awk_words[mid].tok;
    }
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

/* Appends the escape at s[*i] (after the backslash) to b. In a regex,
 * escapes other than the C ones are kept for the regex engine. */
static size_t awk_esc(buf *b, const char *s, size_t n, int regex) {
  size_t i = 0;
  int v, k;
  char ch = s[0];
  switch (ch) {
  case 'n': buf_putc(b, '\n'); return 1;
  case 't': buf_putc(b, '\t'); return 1;
  case 'r': buf_putc(b, '\r'); return 1;
  case '\\': buf_puts(b, regex ? "\\\\" : "\\"); return 1;
  case '"': buf_putc(b, '"'); return 1;
  case '/': buf_putc(b, '/'); return 1;
  case 'a': buf_putc(b, 7); return 1;
  case 'b': buf_putc(b, 8); return 1;
  case 'f': buf_putc(b, 12); return 1;
  case 'v': buf_putc(b, 11); return 1;
  default: break;
  }
  if (ch >= '0' && ch <= '7') {
    for (v = 0, k = 0; k < 3 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
      v = v * 8 + (s[i++] - '0');
    if (regex && strchr("^$.[]|()*+?{}\\", v)) buf_putc(b, '\\');
    buf_putc(b, v & 255);
    return i;
  }
  if (ch == 'x') {
    for (v = 0, k = 0, i = 1;
         k < 2 && i < n && strchr("0123456789abcdefABCDEF", s[i]) && s[i];
         k++, i++)
      v = v * 16 + (s[i] <= '9' ? s[i] - '0' : (s[i] | 32) - 'a' + 10);
    if (k == 0) {
      buf_puts(b, regex ? "\\x" : "x");
      return 1;
    }
    if (regex && strchr("^$.[]|()*+?{}\\", v)) buf_putc(b, '\\');
    buf_putc(b, v & 255);
    return i;
  }
  if (regex) buf_putc(b, '\\');
  buf_putc(b, ch);
  return 1;
}

void awk_unescape(buf *b, const char *s, size_t n, int regex) {
  size_t i = 0;
  while (i < n) {
    if (s[i] == '\\' && i + 1 < n) {
      i++;
      i += awk_esc(b, s + i, n - i, regex);
    } else if (s[i] == '\\') {
      buf_putc(b, '\\');
      i++;
    } else
      buf_putc(b, s[i++]);
  }
}

static int awk_lex_string(awk_lex *l) {
  const awk_src *s = &l->srcs[l->cur];
  buf b;
  int ch;
  buf_init(&b, l->c->m);
  l->pos++;
  for (;;) {
    ch = awk_lex_peekc(l, 0);
    if (ch < 0 || ch == '\n') {
      buf_finish(&b);
      l->at_start = 1;
      awk_lex_error(l, "unterminated string");
      return l->tok = T_BAD;
    }
    if (ch == '"') break;
    if (ch == '\\') {
      if (awk_lex_peekc(l, 1) == '\n') {
        l->pos += 2;
        l->line++;
        continue;
      }
      if (awk_lex_peekc(l, 1) < 0) {
        buf_putc(&b, '\\');
        l->pos++;
        continue;
      }
      l->pos++;
      if (!strchr("ntr\\\"abfvx01234567", s->text[l->pos]) || !s->text[l->pos])
        buf_printf(l->err,
                   "%s: %s:%d: warning: escape sequence `\\%c' treated as "
                   "plain `%c'\n",
                   cmd_name(l->c), s->name, l->line, s->text[l->pos],
                   s->text[l->pos]);
      l->pos += awk_esc(&b, s->text + l->pos, s->len - l->pos, 0);
      continue;
    }
    buf_putc(&b, ch);
    l->pos++;
  }
  l->pos++;
  if (b.err) return buf_finish(&b), l->tok = T_BAD;
  l->text = arena_strndup(l->c->a, b.p ? b.p : "", b.len);
  l->text_len = b.len;
  buf_finish(&b);
  return l->tok = T_STRING;
}

int awk_lex_regex(awk_lex *l) {
  buf b;
  int ch, inbr = 0;
  size_t body = l->pos;
  buf_init(&b, l->c->m);
  for (;;) {
    ch = awk_lex_peekc(l, 0);
    if (ch < 0 || ch == '\n') {
      buf_finish(&b);
      /* gawk's caret: under the regex's first character */
      l->tok_start = body;
      l->at_start = 1;
      awk_lex_error(l, "unterminated regexp");
      return l->tok = T_BAD;
    }
    if (ch == '/' && !inbr) break;
    if (ch == '[') {
      if (!inbr) {
        inbr = 1;
        buf_putc(&b, ch);
        l->pos++;
        if (awk_lex_peekc(l, 0) == '^') buf_putc(&b, '^'), l->pos++;
        if (awk_lex_peekc(l, 0) == ']') buf_putc(&b, ']'), l->pos++;
        continue;
      }
      if (awk_lex_peekc(l, 1) == ':') {
        /* [:class:] inside a bracket */
        size_t k = 2;
        while (awk_lex_peekc(l, k) >= 'a' && awk_lex_peekc(l, k) <= 'z') k++;
        if (awk_lex_peekc(l, k) == ':' && awk_lex_peekc(l, k + 1) == ']') {
          buf_put(&b, l->srcs[l->cur].text + l->pos, k + 2);
          l->pos += k + 2;
          continue;
        }
      }
    } else if (ch == ']' && inbr)
      inbr = 0;
    if (ch == '\\' && awk_lex_peekc(l, 1) == '/') {
      buf_putc(&b, '/');
      l->pos += 2;
      continue;
    }
    if (ch == '\\' && awk_lex_peekc(l, 1) == '\n') {
      l->pos += 2;
      l->line++;
      continue;
    }
    if (ch == '\\' && awk_lex_peekc(l, 1) >= 0) {
      buf_putc(&b, '\\');
      buf_putc(&b, awk_lex_peekc(l, 1));
      l->pos += 2;
      continue;
    }
    buf_putc(&b, ch);
    l->pos++;
  }
  l->pos++;
  if (b.err) return buf_finish(&b), l->tok = T_BAD;
  l->text = arena_strndup(l->c->a, b.p ? b.p : "", b.len);
  l->text_len = b.len;
  buf_finish(&b);
  l->prev = T_ERE;
  return l->tok = T_ERE;
}

static int awk_lex_number(awk_lex *l) {
  const awk_src *s = &l->srcs[l->cur];
  const char *p = s->text + l->pos, *end = s->text + s->len;
  size_t n = 0;
  char tmp[128];
  if (p[0] == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X') &&
      p + 2 < end && strchr("0123456789abcdefABCDEF", p[2]) && p[2]) {
    double v = 0;
    n = 2;
    while (p + n < end && p[n] && strchr("0123456789abcdefABCDEF", p[n])) {
      v = v * 16 + (p[n] <= '9' ? p[n] - '0' : (p[n] | 32) - 'a' + 10);
      n++;
    }
    l->num = v;
    l->pos += n;
    return l->tok = T_NUMBER;
  }
  while (p + n < end && p[n] >= '0' && p[n] <= '9') n++;
  if (p + n < end && p[n] == '.') {
    n++;
    while (p + n < end && p[n] >= '0' && p[n] <= '9') n++;
  }
  if (p + n < end && (p[n] == 'e' || p[n] == 'E')) {
    size_t k = n + 1;
    if (p + k < end && (p[k] == '+' || p[k] == '-')) k++;
    if (p + k < end && p[k] >= '0' && p[k] <= '9') {
      while (p + k < end && p[k] >= '0' && p[k] <= '9') k++;
      n = k;
    }
  }
  if (n < sizeof tmp) {
    memcpy(tmp, p, n);
    tmp[n] = 0;
    l->num = strtod(tmp, 0);
  } else {
    char *t = arena_strndup(l->c->a, p, n);
    l->num = t ? strtod(t, 0) : 0;
  }
  /* an octal-looking constant: gawk reads 011 as 9 */
  if (p[0] == '0' && n > 1 && p[1] >= '0' && p[1] <= '7') {
    size_t k;
    double v = 0;
    for (k = 1; k < n && p[k] >= '0' && p[k] <= '7'; k++)
      v = v * 8 + p[k] - '0';
    if (k == n) l->num = v;
  }
  l->pos += n;
  return l->tok = T_NUMBER;
}

/* Tokens after which a newline does not end a statement. */
static int awk_lex_contin(int t) {
  return t == ',' || t == '{' || t == T_AND || t == T_OR || t == T_DO ||
         t == T_ELSE;
}

/* Operators spelled with more than their first character, or renamed;
 * longest first, so the first match is the token (gawk's maximal munch). */
static const struct {
  char text[4];
  int tok;
} awk_ops[] = {
    {"**=", T_POW_ASSIGN}, {"&&", T_AND},        {"||", T_OR},
    {"|&", T_PIPE_BOTH},   {"==", T_EQ},         {"!=", T_NE},
    {"!~", T_NOMATCH},     {"<=", T_LE},         {">=", T_GE},
    {">>", T_APPEND},      {"++", T_INCR},       {"+=", T_ADD_ASSIGN},
    {"--", T_DECR},        {"-=", T_SUB_ASSIGN}, {"**", T_POW},
    {"*=", T_MUL_ASSIGN},  {"/=", T_DIV_ASSIGN}, {"%=", T_MOD_ASSIGN},
    {"^=", T_POW_ASSIGN},  {"~", T_MATCH},       {"^", T_POW},
};

/* Characters that are tokens by themselves. */
static const char awk_op_chars[] = "&|=!<>+-*/%{}()[];,?:$";

static int awk_lex_op(awk_lex *l, int ch) {
  size_t i, k;
  for (i = 0; i < sizeof awk_ops / sizeof *awk_ops; i++) {
    const char *o = awk_ops[i].text;
    for (k = 0; o[k] && awk_lex_peekc(l, k) == (unsigned char)o[k]; k++) {
    }
    if (!o[k]) {
      l->pos += k;
      return awk_ops[i].tok;
    }
  }
  l->pos++;
  if (ch && strchr(awk_op_chars, ch)) return ch;
  awk_lex_error(l, "invalid char in expression");
  return T_BAD;
}

static int awk_lex_scan(awk_lex *l) {
  int ch;
  for (;;) {
    const awk_src *s;
    if (l->cur >= l->nsrc) return T_EOF;
    s = &l->srcs[l->cur];
    ch = awk_lex_peekc(l, 0);
    if (ch < 0) {
      if (l->cur + 1 >= l->nsrc) return T_EOF;
      l->cur++;
      l->pos = 0;
      l->line = 1;
      return T_NL; /* a file boundary ends a statement */
    }
    if (ch == ' ' || ch == '\t' || ch == '\r') {
      l->pos++;
      continue;
    }
    if (ch == '\\' && awk_lex_peekc(l, 1) == '\n') {
      l->pos += 2;
      l->line++;
      continue;
    }
    if (ch == '\\' && awk_lex_peekc(l, 1) == '\r' &&
        awk_lex_peekc(l, 2) == '\n') {
      l->pos += 3;
      l->line++;
      continue;
    }
    if (ch == '#') {
      while (l->pos < s->len && s->text[l->pos] != '\n') l->pos++;
      continue;
    }
    l->tok_start = l->pos;
    l->tok_line = l->line;
    if (ch == '\n') {
      l->pos++;
      l->line++;
      return T_NL;
    }
    if (ch == '"') return awk_lex_string(l);
    if ((ch >= '0' && ch <= '9') ||
        (ch == '.' && awk_lex_peekc(l, 1) >= '0' && awk_lex_peekc(l, 1) <= '9'))
      return awk_lex_number(l);
    if (ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
      size_t n = 0;
      int t;
      while ((ch = awk_lex_peekc(l, n)) == '_' || (ch >= 'a' && ch <= 'z') ||
             (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
        n++;
      t = awk_lex_word(l, s->text + l->pos, n);
      l->text = arena_strndup(l->c->a, s->text + l->pos, n);
      l->text_len = n;
      l->pos += n;
      if (!l->text) return T_BAD;
      if (t) return t;
      return awk_lex_peekc(l, 0) == '(' ? T_FUNC_NAME : T_NAME;
    }
    if (ch == '@') {
      size_t n = 1;
      while ((ch = awk_lex_peekc(l, n)) >= 'a' && ch <= 'z') n++;
      l->text = arena_strndup(l->c->a, s->text + l->pos, n);
      l->pos += n;
      return T_INCLUDE;
    }
    return awk_lex_op(l, ch);
  }
}

int awk_lex_next(awk_lex *l) {
  int t;
  if (l->failed) return l->tok = T_BAD;
  do {
    t = awk_lex_scan(l);
  } while (t == T_NL && awk_lex_contin(l->prev));
  l->prev = t;
  return l->tok = t;
}
