/* fold.c - wrap each input line to fit in specified width (GNU coreutils).
 *
 * GNU's algorithm on a line buffer: columns advance per byte (tabs to the
 * next multiple of 8, backspace back one, carriage return to 0, unless -b
 * counts bytes); when a byte would pass the width the buffer is broken,
 * after its last blank with -s.
 *
 * Usage: fold [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char fold_usage[] MSB_COLD =
    "Usage: fold [OPTION]... [FILE]...\n"
    "Wrap input lines in each FILE, writing to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, --bytes         count bytes rather than columns\n"
    "  -s, --spaces        break at spaces\n"
    "  -w, --width=WIDTH   use WIDTH columns instead of 80\n";

static const cmd_opt fold_opts[] = {{'b', "bytes", CMD_ARG_NONE, 'b'},
                                    {'s', "spaces", CMD_ARG_NONE, 's'},
                                    {'w', "width", CMD_ARG_REQ, 'w'},
                                    {0, 0, 0, 0}};

static size_t fold_adjust(size_t col, int ch, int bytes) {
  if (bytes) return col + 1;
  if (ch == '\b') return col ? col - 1 : 0;
  if (ch == '\r') return 0;
  if (ch == '\t') return col + 8 - col % 8;
  return col + 1;
}

static int fold_width(cmd_ctx *c, const char *s, size_t *w) {
  int64_t v;
  int rc = cmd_parse_int(s, &v);
  if (rc == 0 && v >= 1) {
    *w = v > 0x7fffffff ? 0x7fffffff : (size_t)v;
    return 0;
  }
  if (rc == 0 || rc == CMD_NUM_RANGE)
    cmd_err(c,
            "invalid number of columns: %s: Numerical result out of "
            "range",
            cmd_quote(c, s));
  else
    cmd_err(c, "invalid number of columns: %s", cmd_quote(c, s));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_fold(cmd_ctx *c) {
  cmd_getopt g;
  int opt, bytes = 0, spaces = 0;
  cmd_inputs in;
  const uint8_t *d;
  size_t len;
  size_t width = 80;
  buf line;
  cmd_opt_init(&g, c, fold_opts, fold_usage, CMD_OPTF_NUMERIC);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case CMD_OPT_NUM:
    case 'w':
      if (fold_width(c, g.arg, &width)) return 1;
      break;
    case 'b': bytes = 1; break;
    case 's': spaces = 1; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  cmd_inputs_init(&in, c, &g);
  buf_init(&line, c->m);
  while (cmd_inputs_next(&in, &d, &len)) {
    size_t k, col = 0;
    buf_clear(&line);
    for (k = 0; k < len; k++) {
      int ch = d[k];
      if (ch == '\n') {
        buf_put(c->out, line.p ? line.p : "", line.len);
        buf_putc(c->out, '\n');
        buf_clear(&line);
        col = 0;
        continue;
      }
      for (;;) {
        size_t ncol = fold_adjust(col, ch, bytes);
        if (ncol <= width) {
          col = ncol;
          buf_putc(&line, ch);
          break;
        }
        if (spaces) {
          size_t e = line.len, j;
          while (e > 0 && line.p[e - 1] != ' ' && line.p[e - 1] != '\t') e--;
          if (e > 0) {
            buf_put(c->out, line.p, e);
            buf_putc(c->out, '\n');
            memmove(line.p, line.p + e, line.len - e);
            buf_truncate(&line, line.len - e);
            col = 0;
            for (j = 0; j < line.len; j++)
              col = fold_adjust(col, (unsigned char)line.p[j], bytes);
            continue;
          }
        }
        if (line.len == 0) {
          col = ncol;
          buf_putc(&line, ch);
          break;
        }
        buf_put(c->out, line.p, line.len);
        buf_putc(c->out, '\n');
        buf_clear(&line);
        col = 0;
      }
    }
    if (line.len) buf_put(c->out, line.p, line.len);
    if (line.err || c->out->err) {
      buf_finish(&line);
      return MSB_ENOMEM;
    }
  }
  buf_finish(&line);
  return in.status;
}
