/* nl.c - number lines of files (GNU coreutils nl).
 *
 * Lines pass through one state machine: section delimiter lines (\:\:\:,
 * \:\:, \: by default) switch between header, body and footer, print as
 * empty lines and restart numbering unless -p; each section has its own
 * style (a, t, n, or pBRE through the shared regex engine). Unnumbered
 * lines are indented by the width plus the separator length, as in GNU.
 *
 * Usage: nl [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "../regex.h"
#include "cmd.h"

static const char nl_usage[] MSB_COLD =
    "Usage: nl [OPTION]... [FILE]...\n"
    "Write each FILE to standard output, with line numbers added.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, --body-numbering=STYLE      use STYLE for numbering body lines\n"
    "  -d, --section-delimiter=CC      use CC for logical page delimiters\n"
    "  -f, --footer-numbering=STYLE    use STYLE for numbering footer "
    "lines\n"
    "  -h, --header-numbering=STYLE    use STYLE for numbering header "
    "lines\n"
    "  -i, --line-increment=NUMBER     line number increment at each "
    "line\n"
    "  -l, --join-blank-lines=NUMBER   group of NUMBER empty lines counted "
    "as one\n"
    "  -n, --number-format=FORMAT      insert line numbers according to "
    "FORMAT\n"
    "  -p, --no-renumber               do not reset line numbers for each "
    "section\n"
    "  -s, --number-separator=STRING   add STRING after (possible) line "
    "number\n"
    "  -v, --starting-line-number=NUMBER  first line number for each "
    "section\n"
    "  -w, --number-width=NUMBER       use NUMBER columns for line "
    "numbers\n";

static const cmd_opt nl_opts[] = {
    {'b', "body-numbering", CMD_ARG_REQ, 'b'},
    {'d', "section-delimiter", CMD_ARG_REQ, 'd'},
    {'f', "footer-numbering", CMD_ARG_REQ, 'f'},
    {'h', "header-numbering", CMD_ARG_REQ, 'h'},
    {'i', "line-increment", CMD_ARG_REQ, 'i'},
    {'l', "join-blank-lines", CMD_ARG_REQ, 'l'},
    {'n', "number-format", CMD_ARG_REQ, 'n'},
    {'p', "no-renumber", CMD_ARG_NONE, 'p'},
    {'s', "number-separator", CMD_ARG_REQ, 's'},
    {'v', "starting-line-number", CMD_ARG_REQ, 'v'},
    {'w', "number-width", CMD_ARG_REQ, 'w'},
    {0, 0, 0, 0}};

typedef struct nl_style {
  int kind; /* 'a' 't' 'n' 'p' */
  rx *re;
} nl_style;

static int nl_style_parse(cmd_getopt *g, const char *arg, const char *what,
                          nl_style *st) {
  cmd_ctx *c = g->c;
  if ((arg[0] == 'a' || arg[0] == 't' || arg[0] == 'n') && !arg[1]) {
    st->kind = arg[0];
    return 0;
  }
  if (arg[0] == 'p') {
    buf em;
    int rc;
    buf_init(&em, c->m);
    rx_free(st->re);
    st->re = NULL;
    rc = rx_compile(c->m, arg + 1, strlen(arg + 1), RX_BRE | RX_NOSUB, &st->re,
                    &em);
    if (rc < 0) {
      cmd_err(c, "%s", rc == MSB_EINVAL ? buf_str(&em) : cmd_strerror(rc));
      buf_finish(&em);
      return 1;
    }
    buf_finish(&em);
    st->kind = 'p';
    return 0;
  }
  cmd_usage_err(g, "invalid %s numbering style: %s", what, cmd_quote(c, arg));
  return 1;
}

static int nl_num(cmd_getopt *g, const char *arg, const char *what,
                  int64_t *out, int64_t min) {
  int rc = cmd_parse_int(arg, out);
  if (rc == 0 && *out >= min) return 0;
  if (rc == 0 || rc == CMD_NUM_RANGE)
    cmd_err(g->c, "invalid %s: %s: Numerical result out of range", what,
            cmd_quote(g->c, arg));
  else
    cmd_err(g->c, "invalid %s: %s", what, cmd_quote(g->c, arg));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_nl(cmd_ctx *c) {
  cmd_getopt g;
  nl_style sty[3]; /* header, body, footer */
  int opt, norenum = 0, rc = 0, section = 1, k;
  cmd_inputs in;
  const uint8_t *d;
  size_t len;
  int64_t incr = 1, join = 1, start = 1, width = 6, line, blanks = 0;
  const char *sep = "\t", *fmt = "rn";
  char dl[3] = {'\\', ':', 0};
  memset(sty, 0, sizeof sty);
  sty[0].kind = 'n';
  sty[1].kind = 't';
  sty[2].kind = 'n';
  cmd_opt_init(&g, c, nl_opts, nl_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: rc = 1; goto out;
    case CMD_OPT_EXIT: goto out;
    case 'b':
      if (nl_style_parse(&g, g.arg, "body", &sty[1])) rc = 1;
      break;
    case 'h':
      if (nl_style_parse(&g, g.arg, "header", &sty[0])) rc = 1;
      break;
    case 'f':
      if (nl_style_parse(&g, g.arg, "footer", &sty[2])) rc = 1;
      break;
    case 'd':
      if (g.arg[0]) {
        dl[0] = g.arg[0];
        dl[1] = g.arg[1] ? g.arg[1] : ':';
      }
      break;
    case 'i':
      if (nl_num(&g, g.arg, "line number increment", &incr, 0)) rc = 1;
      break;
    case 'l':
      if (nl_num(&g, g.arg, "line number of blank lines", &join, 1)) rc = 1;
      break;
    case 'n':
      if (strcmp(g.arg, "ln") && strcmp(g.arg, "rn") && strcmp(g.arg, "rz")) {
        cmd_usage_err(&g, "invalid line numbering format: %s",
                      cmd_quote(c, g.arg));
        rc = 1;
      }
      fmt = g.arg;
      break;
    case 'p': norenum = 1; break;
    case 's': sep = g.arg; break;
    case 'v':
      if (nl_num(&g, g.arg, "starting line number", &start, INT64_MIN)) rc = 1;
      break;
    case 'w':
      if (nl_num(&g, g.arg, "line number field width", &width, 1)) rc = 1;
      break;
    default:
      if (opt < 0) rc = 1;
      break;
    }
    if (rc) goto out;
  }
  if (width > 1000) width = 1000;
  cmd_inputs_init(&in, c, &g);
  line = start;
  while (cmd_inputs_next(&in, &d, &len)) {
    const uint8_t *rec;
    size_t rl;
    cmd_lines it;
    cmd_lines_init(&it, d, len, '\n');
    while (cmd_lines_next(&it, &rec, &rl, NULL)) {
      int number = 0;
      nl_style *st;
      /* Section delimiters: 3, 2 or 1 copies of the two characters. */
      for (k = 3; k >= 1; k--) {
        int j, is = rl == (size_t)(2 * k);
        for (j = 0; is && j < k; j++)
          if (rec[2 * j] != (uint8_t)dl[0] || rec[2 * j + 1] != (uint8_t)dl[1])
            is = 0;
        if (is) break;
      }
      if (k >= 1) {
        section = 3 - k;
        /* GNU 9.1 restarts numbering at every delimiter line. */
        if (!norenum) line = start;
        buf_putc(c->out, '\n');
        continue;
      }
      st = &sty[section];
      switch (st->kind) {
      case 'a':
        if (rl == 0) {
          if (++blanks >= join) {
            number = 1;
            blanks = 0;
          }
        } else {
          blanks = 0;
          number = 1;
        }
        break;
      case 't': number = rl > 0; break;
      case 'p': {
        int m = cmd_rx_exec(c, st->re, rec, rl, 0, 0, NULL, 0);
        if (m < 0) {
          rc = m;
          goto out;
        }
        number = m;
        break;
      }
      default: break;
      }
      if (number) {
        if (!strcmp(fmt, "ln"))
          buf_printf(c->out, "%-*lld", (int)width, (long long)line);
        else if (!strcmp(fmt, "rz"))
          buf_printf(c->out, "%0*lld", (int)width, (long long)line);
        else
          buf_printf(c->out, "%*lld", (int)width, (long long)line);
        buf_puts(c->out, sep);
        line += incr;
      } else {
        buf_printf(c->out, "%*s", (int)(width + (int64_t)strlen(sep)), "");
      }
      buf_put(c->out, rec, rl);
      buf_putc(c->out, '\n');
    }
    if (c->out->err) {
      rc = c->out->err;
      goto out;
    }
  }
  rc = in.status;
out:
  for (k = 0; k < 3; k++) rx_free(sty[k].re);
  return rc;
}
