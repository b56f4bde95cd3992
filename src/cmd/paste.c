/* paste.c - merge lines of files (GNU coreutils paste).
 *
 * Parallel mode walks one cursor per operand ("-" operands share the one
 * standard input cursor, as they share a stream in GNU) and joins the
 * current lines with the delimiter list, cycling; serial mode (-s) joins
 * each file's lines. "\0" in the list means no delimiter.
 *
 * Usage: paste [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char paste_usage[] MSB_COLD =
    "Usage: paste [OPTION]... [FILE]...\n"
    "Write lines consisting of the sequentially corresponding lines from\n"
    "each FILE, separated by TABs, to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -d, --delimiters=LIST   reuse characters from LIST instead of TABs\n"
    "  -s, --serial            paste one file at a time instead of in "
    "parallel\n"
    "  -z, --zero-terminated    line delimiter is NUL, not newline\n";

static const cmd_opt paste_opts[] = {
    {'d', "delimiters", CMD_ARG_REQ, 'd'},
    {'s', "serial", CMD_ARG_NONE, 's'},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

/* One input cursor. */
typedef struct paste_in {
  const uint8_t *d;
  size_t len, *pos; /* pos is shared between "-" operands */
  size_t own;
  int ok;
} paste_in;

/* Delimiter list with escapes; entries of -1 mean "none" (\0). */
static int paste_delims(cmd_ctx *c, const char *s, int **out, size_t *n) {
  const char *list = s;
  size_t len = strlen(s), k = 0;
  int *v = arena_alloc(c->a, (len + 1) * sizeof *v);
  if (!v) return MSB_ENOMEM;
  while (*s) {
    int ch = (unsigned char)*s++;
    if (ch == '\\') {
      if (!*s) {
        cmd_err(c, "delimiter list ends with an unescaped backslash: %s", list);
        return 1;
      }
      ch = (unsigned char)*s++;
      switch (ch) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case '0': ch = -1; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'r': ch = '\r'; break;
      case 'v': ch = '\v'; break;
      default: break;
      }
    }
    v[k++] = ch;
  }
  *out = v;
  *n = k;
  return 0;
}

/* Next line of an input: 1 and the line, 0 at its end. */
static int paste_line(paste_in *in, int eol, const uint8_t **l, size_t *ll) {
  const uint8_t *q;
  size_t p;
  if (!in->ok || *in->pos >= in->len) return 0;
  p = *in->pos;
  q = memchr(in->d + p, eol, in->len - p);
  *l = in->d + p;
  *ll = q ? (size_t)(q - in->d) - p : in->len - p;
  *in->pos = q ? (size_t)(q - in->d) + 1 : in->len;
  return 1;
}

/* Entry point: see the usage above. */
int cmd_paste(cmd_ctx *c) {
  cmd_getopt g;
  int opt, i, nops, status = 0, serial = 0, eol = '\n', rc;
  int defd[1] = {'\t'}, *dl = defd;
  size_t nd = 1, stdin_pos = 0;
  char *const *ops;
  paste_in *in;
  cmd_opt_init(&g, c, paste_opts, paste_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'd':
      if ((rc = paste_delims(c, g.arg, &dl, &nd)) != 0) return rc;
      break;
    case 's': serial = 1; break;
    case 'z': eol = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  ops = cmd_operands(&g, &nops);
  in = arena_zalloc(c->a, (size_t)nops * sizeof *in);
  if (!in) return MSB_ENOMEM;
  for (i = 0; i < nops; i++) {
    rc = cmd_input(c, ops[i], &in[i].d, &in[i].len);
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, ops[i]), cmd_strerror(rc));
      return 1;
    }
    in[i].ok = 1;
    in[i].pos = strcmp(ops[i], "-") ? &in[i].own : &stdin_pos;
  }
  if (serial) {
    for (i = 0; i < nops; i++) {
      const uint8_t *l;
      size_t ll, k = 0;
      int any = 0;
      while (paste_line(&in[i], eol, &l, &ll)) {
        if (any && nd) {
          int d = dl[k++ % nd];
          if (d >= 0) buf_putc(c->out, d);
        }
        any = 1;
        buf_put(c->out, l, ll);
      }
      buf_putc(c->out, eol);
    }
  } else {
    for (;;) {
      int any = 0;
      size_t mark = c->out->len;
      for (i = 0; i < nops; i++) {
        const uint8_t *l;
        size_t ll;
        if (paste_line(&in[i], eol, &l, &ll)) {
          any = 1;
          buf_put(c->out, l, ll);
        }
        if (i + 1 < nops && nd) {
          int d = dl[(size_t)i % nd];
          if (d >= 0) buf_putc(c->out, d);
        }
      }
      if (!any) {
        buf_truncate(c->out, mark);
        break;
      }
      buf_putc(c->out, eol);
      if ((rc = cmd_tick(c, 0)) != 0) return rc;
    }
  }
  return c->out->err ? c->out->err : status;
}
