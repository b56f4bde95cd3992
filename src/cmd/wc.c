/* wc.c - print newline, word, and byte counts (GNU coreutils wc, C locale).
 *
 * One pass per input over the borrowed bytes. Words are GNU's C-locale
 * words: a printable non-space byte starts or continues one, white space
 * ends it, other bytes change nothing. -m counts bytes (the C locale has
 * single-byte characters). -L uses GNU's display width: tabs to the next
 * multiple of 8, non-printable bytes zero, \r and \f end a line.
 *
 * Column width follows GNU: the digits of the summed sizes of the regular
 * files among the operands, at least 7 when any operand is not a regular
 * file (standard input counts as a pipe here, even under `wc < file`,
 * where GNU would see a regular file), and 1 for a single count of a
 * single operand.
 *
 * Usage: wc [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char wc_usage[] MSB_COLD =
    "Usage: wc [OPTION]... [FILE]...\n"
    "Print newline, word, and byte counts for each FILE, and a total line "
    "if\n"
    "more than one FILE is specified.  A word is a non-zero-length sequence "
    "of\n"
    "printable characters delimited by white space.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -c, --bytes            print the byte counts\n"
    "  -m, --chars            print the character counts\n"
    "  -l, --lines            print the newline counts\n"
    "  -L, --max-line-length  print the maximum display width\n"
    "  -w, --words            print the word counts\n";

enum { WC_O_FILES0 = 256 };

static const cmd_opt wc_opts[] = {{'c', "bytes", CMD_ARG_NONE, 'c'},
                                  {'m', "chars", CMD_ARG_NONE, 'm'},
                                  {'l', "lines", CMD_ARG_NONE, 'l'},
                                  {0, "files0-from", CMD_ARG_REQ, WC_O_FILES0},
                                  {'L', "max-line-length", CMD_ARG_NONE, 'L'},
                                  {'w', "words", CMD_ARG_NONE, 'w'},
                                  {0, 0, 0, 0}};

/* Counts: lines, words, chars, bytes, max line length. */
typedef struct wc_counts {
  uint64_t v[5];
} wc_counts;

static void wc_count(const uint8_t *d, size_t len, wc_counts *r) {
  uint64_t lines = 0, words = 0, pos = 0, maxlen = 0;
  int inword = 0;
  size_t i;
  for (i = 0; i < len; i++) {
    int ch = d[i];
    switch (ch) {
    case '\n':
      lines++;
      /* fall through */
    case '\r':
    case '\f':
      if (pos > maxlen) maxlen = pos;
      pos = 0;
      inword = 0;
      break;
    case '\t':
      pos += 8 - pos % 8;
      inword = 0;
      break;
    case ' ':
      pos++;
      inword = 0;
      break;
    case '\v': inword = 0; break;
    default:
      if (ch > 32 && ch < 127) {
        pos++;
        if (!inword) words++;
        inword = 1;
      }
      break;
    }
  }
  if (pos > maxlen) maxlen = pos;
  r->v[0] = lines;
  r->v[1] = words;
  r->v[2] = len;
  r->v[3] = len;
  r->v[4] = maxlen;
}

static void wc_print(cmd_ctx *c, const wc_counts *w, const int *show, int width,
                     const char *name) {
  int i, first = 1;
  buf line;
  buf_init(&line, c->m);
  for (i = 0; i < 5; i++) {
    if (!show[i]) continue;
    buf_printf(&line, "%s%*llu", first ? "" : " ", width,
               (unsigned long long)w->v[i]);
    first = 0;
  }
  if (name) buf_printf(&line, " %s", name);
  buf_putc(&line, '\n');
  if (!line.err) cmd_write(c, line.p, line.len);
  buf_finish(&line);
}

/* Entry point: see the usage above. */
int cmd_wc(cmd_ctx *c) {
  cmd_getopt g;
  int show[5] = {0, 0, 0, 0, 0}, opt, i, nops, width, status = 0, nshow;
  int minw = 1;
  char *const *ops;
  wc_counts tot, one;
  uint64_t regular = 0;
  const uint8_t **data;
  size_t *lens;
  int *rcs;
  cmd_opt_init(&g, c, wc_opts, wc_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'l': show[0] = 1; break;
    case 'w': show[1] = 1; break;
    case 'm': show[2] = 1; break;
    case 'c': show[3] = 1; break;
    case 'L': show[4] = 1; break;
    case WC_O_FILES0:
      cmd_err(c, "--files0-from is not supported in memsandbox");
      return 1;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (!(show[0] | show[1] | show[2] | show[3] | show[4]))
    show[0] = show[1] = show[3] = 1;
  nshow = show[0] + show[1] + show[2] + show[3] + show[4];
  ops = cmd_operands(&g, &nops);
  data = arena_alloc(c->a, (size_t)nops * sizeof *data);
  lens = arena_alloc(c->a, (size_t)nops * sizeof *lens);
  rcs = arena_alloc(c->a, (size_t)nops * sizeof *rcs);
  if (!data || !lens || !rcs) return 1;
  for (i = 0; i < nops; i++) {
    rcs[i] = cmd_input(c, ops[i], &data[i], &lens[i]);
    if (!strcmp(ops[i], "-") && c->in_regular && rcs[i] == 0)
      regular += lens[i]; /* "wc < f" sizes columns like a named file */
    else if (rcs[i] == CMD_EBADF)
      ; /* `wc <&-`: GNU's fstat failed, so no width hint */
    else if (!strcmp(ops[i], "-") || rcs[i] == MSB_EISDIR ||
             !strcmp(ops[i], "/dev/null")) /* not a regular file */
      minw = 7;
    else if (rcs[i] == 0)
      regular += lens[i];
  }
  width = 1;
  if (!(nops == 1 && nshow == 1)) {
    for (; regular >= 10; regular /= 10) width++;
    if (width < minw) width = minw;
  }
  memset(&tot, 0, sizeof tot);
  for (i = 0; i < nops; i++) {
    const char *name = g.nops ? ops[i] : NULL;
    int k;
    if (rcs[i] < 0 && rcs[i] != MSB_EISDIR && rcs[i] != CMD_EBADF) {
      cmd_err(c, "%s: %s", cmd_quotef(c, ops[i]), cmd_strerror(rcs[i]));
      status = 1;
      continue;
    }
    if (rcs[i] == MSB_EISDIR || rcs[i] == CMD_EBADF) {
      /* `wc < dir` names it 'standard input'; counted as empty */
      cmd_err(c, "%s: %s", cmd_quotef(c, g.nops ? ops[i] : "standard input"),
              cmd_strerror(rcs[i]));
      status = 1;
      memset(&one, 0, sizeof one);
    } else {
      wc_count(data[i], lens[i], &one);
    }
    for (k = 0; k < 4; k++) tot.v[k] += one.v[k];
    if (one.v[4] > tot.v[4]) tot.v[4] = one.v[4];
    wc_print(c, &one, show, width, name ? cmd_quotef(c, name) : NULL);
    if ((k = cmd_tick(c, 1)) != 0) return k;
  }
  if (nops > 1) wc_print(c, &tot, show, width, "total");
  return status;
}
