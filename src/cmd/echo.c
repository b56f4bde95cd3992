/* echo.c - write arguments to standard output (bash builtin semantics).
 *
 * Usage: echo [-neE] [ARG ...]
 *   -n  do not output the trailing newline
 *   -e  interpret backslash escapes
 *   -E  do not interpret backslash escapes (default; xpg_echo is off)
 * As in bash: leading arguments made only of the letters n, e, E after one
 * '-' are options (the last of -e/-E wins); anything else, including "--"
 * and "-", ends the options and is printed. No --help. With -e, "\c"
 * stops all output. The escape decoder is shared with printf's %b
 * (echo_escape), which differs only in also accepting "\NNN" octal. */
#include <string.h>

#include "cmd.h"

static int echo_hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Appends a \u / \U code point as bash does in the C locale: ASCII as the
 * byte, anything else spelled back as \uXXXX or \UXXXXXXXX. */
static void echo_unicode(buf *o, uint32_t v) {
  if (v < 0x80)
    buf_putc(o, (int)v);
  else if (v < 0x10000)
    buf_printf(o, "\\u%04X", (unsigned)v);
  else
    buf_printf(o, "\\U%08X", (unsigned)v);
}

/* Decodes echo -e / printf %b escapes in s[0..n) into o. bare_octal:
 * accept \NNN as well as \0NNN (printf %b). warn: when not NULL, \x and
 * \u without digits are reported on it as printf %b does (echo is
 * silent). Returns 1 when "\c" was met (the caller stops all output),
 * else 0; o->err on memory failure. */
int echo_escape(buf *o, const char *s, size_t n, int bare_octal, cmd_ctx *warn);

int echo_escape(buf *o, const char *s, size_t n, int bare_octal,
                cmd_ctx *warn) {
  size_t i = 0, k;
  while (i < n) {
    int c = (unsigned char)s[i];
    size_t run = i;
    while (run < n && s[run] != '\\') run++;
    if (run > i) {
      buf_put(o, s + i, run - i);
      i = run;
      continue;
    }
    if (i + 1 >= n) {
      buf_putc(o, '\\');
      i++;
      continue;
    }
    c = (unsigned char)s[i + 1];
    i += 2;
    switch (c) {
    case 'a': buf_putc(o, 7); break;
    case 'b': buf_putc(o, 8); break;
    case 'c': return 1;
    case 'e':
    case 'E': buf_putc(o, 27); break;
    case 'f': buf_putc(o, 12); break;
    case 'n': buf_putc(o, '\n'); break;
    case 'r': buf_putc(o, '\r'); break;
    case 't': buf_putc(o, '\t'); break;
    case 'v': buf_putc(o, 11); break;
    case '\\': buf_putc(o, '\\'); break;
    case 'x': {
      int v = 0, d;
      for (k = 0; k < 2 && i < n && (d = echo_hex((unsigned char)s[i])) >= 0;
           k++, i++)
        v = v * 16 + d;
      if (k == 0) {
        buf_puts(o, "\\x");
        if (warn) cmd_err(warn, "missing hex digit for \\x");
      } else
        buf_putc(o, v);
      break;
    }
    case 'u':
    case 'U': {
      uint32_t v = 0;
      int d;
      size_t max = c == 'u' ? 4 : 8;
      for (k = 0; k < max && i < n && (d = echo_hex((unsigned char)s[i])) >= 0;
           k++, i++)
        v = v * 16 + (uint32_t)d;
      if (k == 0) {
        buf_putc(o, '\\');
        buf_putc(o, c);
        if (warn) cmd_err(warn, "missing unicode digit for \\%c", c);
      } else {
        echo_unicode(o, v);
      }
      break;
    }
    default:
      if (c == '0' || (bare_octal && c >= '1' && c <= '7')) {
        int v = c == '0' ? 0 : c - '0';
        size_t max = c == '0' ? 3 : 2;
        for (k = 0; k < max && i < n && s[i] >= '0' && s[i] <= '7'; k++, i++)
          v = v * 8 + (s[i] - '0');
        buf_putc(o, v & 255);
      } else {
        buf_putc(o, '\\');
        buf_putc(o, c);
      }
      break;
    }
  }
  return 0;
}

/* echo: print the arguments separated by spaces. */
int cmd_echo(cmd_ctx *c) {
  int i = 1, nl = 1, esc = 0, stop = 0, rc;
  buf o;
  for (; i < c->argc; i++) {
    const char *a = c->argv[i];
    size_t j;
    if (a[0] != '-' || a[1] == 0) break;
    for (j = 1; a[j]; j++)
      if (!strchr("neE", a[j])) break;
    if (a[j]) break;
    for (j = 1; a[j]; j++) {
      if (a[j] == 'n') nl = 0;
      if (a[j] == 'e') esc = 1;
      if (a[j] == 'E') esc = 0;
    }
  }
  buf_init(&o, c->m);
  for (; i < c->argc && !stop; i++) {
    const char *a = c->argv[i];
    if (esc)
      stop = echo_escape(&o, a, strlen(a), 0, 0);
    else
      buf_puts(&o, a);
    if (!stop && i + 1 < c->argc) buf_putc(&o, ' ');
  }
  if (nl && !stop) buf_putc(&o, '\n');
  rc = o.err ? o.err : cmd_write(c, o.p ? o.p : "", o.len);
  buf_finish(&o);
  return rc < 0 ? rc : 0;
}
