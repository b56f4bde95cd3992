/* xargs.c - build and run command lines from standard input (GNU
 * findutils 4.9).
 *
 * Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...
 *   -0, --null             items are separated by NUL, not whitespace
 *   -a, --arg-file=FILE    read items from FILE, not standard input
 *   -d, --delimiter=CHAR   items are separated by CHAR
 *   -E END                 stop at the item END
 *   -I R                   replace R in INITIAL-ARGS with each input line
 *   -i[R], --replace[=R]   like -I; R defaults to {}
 *   -L, --max-lines=N      use at most N non-blank input lines per command
 *   -n, --max-args=N       use at most N arguments per command
 *   -P, --max-procs=N      accepted; commands always run one after another
 *   -r, --no-run-if-empty  do not run COMMAND when there are no items
 *   -s, --max-chars=N      limit the command line length (default 131072)
 *   -t, --verbose          print commands before running them
 *   -x, --exit             exit if the size (see -s) is exceeded
 * Commands run through the shell's lookup with empty stdin. Exit status:
 * 123 if any run exited 1-125, 124 if one exited 255 (then xargs stops),
 * 126/127 when the command cannot run / is not found. */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char xargs_usage[] MSB_COLD =
    "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n"
    "Run COMMAND with arguments INITIAL-ARGS and more arguments read from "
    "input.\n"
    "\n"
    "  -0, --null                   items are separated by a null, not "
    "whitespace;\n"
    "  -a, --arg-file=FILE          read arguments from FILE, not standard "
    "input\n"
    "  -d, --delimiter=CHARACTER    items in input stream are separated by "
    "CHARACTER,\n"
    "  -E END                       set logical EOF string\n"
    "  -I R                         same as --replace=R\n"
    "  -i, --replace[=R]            replace R in INITIAL-ARGS with names "
    "read\n"
    "  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input "
    "lines per\n"
    "  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per "
    "command line\n"
    "  -P, --max-procs=MAX-PROCS    run at most MAX-PROCS processes at a "
    "time\n"
    "  -r, --no-run-if-empty        if there are no arguments, then do not "
    "run COMMAND;\n"
    "  -s, --max-chars=MAX-CHARS    limit length of command line to "
    "MAX-CHARS\n"
    "  -t, --verbose                print commands before executing them\n"
    "  -x, --exit                   exit if the size (see -s) is exceeded\n"
    "      --help                   display this help and exit\n"
    "      --version                output version information and exit\n";

static const cmd_opt xargs_opts[] = {
    {'0', "null", CMD_ARG_NONE, '0'},
    {'a', "arg-file", CMD_ARG_REQ, 'a'},
    {'d', "delimiter", CMD_ARG_REQ, 'd'},
    {'E', 0, CMD_ARG_REQ, 'E'},
    {'e', "eof", CMD_ARG_OPT, 'e'},
    {'I', 0, CMD_ARG_REQ, 'I'},
    {'i', "replace", CMD_ARG_OPT, 'i'},
    {'L', "max-lines", CMD_ARG_REQ, 'L'},
    {'l', 0, CMD_ARG_OPT, 'l'},
    {'n', "max-args", CMD_ARG_REQ, 'n'},
    {'P', "max-procs", CMD_ARG_REQ, 'P'},
    {'p', "interactive", CMD_ARG_NONE, 'p'},
    {'r', "no-run-if-empty", CMD_ARG_NONE, 'r'},
    {'s', "max-chars", CMD_ARG_REQ, 's'},
    {'t', "verbose", CMD_ARG_NONE, 't'},
    {'x', "exit", CMD_ARG_NONE, 'x'},
    {0, 0, 0, 0}};

typedef struct xargs_item {
  char *s;
  int line_end; /* the item ended an input line (for -L) */
} xargs_item;

typedef struct xargs_state {
  cmd_ctx *c;
  xargs_item *items;
  size_t n, cap;
} xargs_state;

static int xargs_push(xargs_state *x, const char *s, size_t n, int eol) {
  if (x->n == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    xargs_item *it = arena_alloc(x->c->a, cap * sizeof *it);
    if (!it) return MSB_ENOMEM;
    if (x->n) memcpy(it, x->items, x->n * sizeof *it);
    x->items = it;
    x->cap = cap;
  }
  x->items[x->n].s = arena_strndup(x->c->a, s, n);
  x->items[x->n].line_end = eol;
  if (!x->items[x->n].s) return MSB_ENOMEM;
  x->n++;
  return 0;
}

/* Splits on one delimiter byte, no quoting (-0, -d). */
static int xargs_split_delim(xargs_state *x, const uint8_t *d, size_t len,
                             int delim) {
  size_t i, start = 0;
  int rc;
  for (i = 0; i <= len; i++) {
    if (i < len && d[i] != delim) continue;
    if (i == len && start == len) break;
    if ((rc = xargs_push(x, (const char *)d + start, i - start, 1))) return rc;
    start = i + 1;
  }
  return 0;
}

/* Default parsing: blanks and newlines separate; quotes and backslash. */
static int xargs_split_words(xargs_state *x, const uint8_t *d, size_t len,
                             const char *eof_str) {
  buf w;
  size_t i = 0;
  int rc = 0, have = 0;
  buf_init(&w, x->c->m);
  while (i <= len && !rc) {
    int ch = i < len ? d[i] : '\n';
    if (i == len && !have) break;
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (have) {
        if (eof_str && !strcmp(buf_str(&w), eof_str)) break;
        rc = xargs_push(x, buf_str(&w), w.len, ch == '\n');
        buf_clear(&w);
        have = 0;
      } else if (ch == '\n' && x->n) {
        x->items[x->n - 1].line_end = 1;
      }
      i++;
      continue;
    }
    have = 1;
    if (ch == '\'' || ch == '"') {
      size_t j = i + 1;
      while (j < len && d[j] != ch && d[j] != '\n') j++;
      if (j >= len || d[j] != ch) {
        cmd_err(x->c,
                "unmatched %s quote; by default quotes are special to "
                "xargs unless you use the -0 option",
                ch == '\'' ? "single" : "double");
        rc = 1;
        break;
      }
      buf_put(&w, d + i + 1, j - i - 1);
      i = j + 1;
      continue;
    }
    if (ch == '\\' && i + 1 < len) {
      buf_putc(&w, d[i + 1]);
      i += 2;
      continue;
    }
    buf_putc(&w, ch);
    i++;
  }
  if (!rc && w.err) rc = w.err;
  buf_finish(&w);
  return rc;
}

/* -I: each line is one item, leading blanks removed. */
static int xargs_split_lines(xargs_state *x, const uint8_t *d, size_t len) {
  cmd_lines it;
  const uint8_t *rec;
  size_t n;
  int term, rc;
  cmd_lines_init(&it, d, len, '\n');
  while (cmd_lines_next(&it, &rec, &n, &term)) {
    while (n && (*rec == ' ' || *rec == '\t')) {
      rec++;
      n--;
    }
    if (!n) continue;
    if ((rc = xargs_push(x, (const char *)rec, n, 1))) return rc;
  }
  return 0;
}

/* Replaces every occurrence of r in s by v (arena). */
/* GNU's warning when a later option overrides an earlier one. */
static void xargs_excl(cmd_ctx *c, const char *prev, const char *now) {
  cmd_err(c,
          "warning: options %s and %s are mutually exclusive, ignoring "
          "previous %s value",
          prev, now, prev);
}

static char *xargs_replace(cmd_ctx *c, const char *s, const char *r,
                           const char *v) {
  buf b;
  const char *p;
  char *out;
  size_t rl = strlen(r);
  if (!rl || !strstr(s, r)) return (char *)s;
  buf_init(&b, c->m);
  while ((p = strstr(s, r))) {
    buf_put(&b, s, (size_t)(p - s));
    buf_puts(&b, v);
    s = p + rl;
  }
  buf_puts(&b, s);
  out = b.err ? NULL : arena_strndup(c->a, b.p, b.len);
  buf_finish(&b);
  return out;
}

typedef struct xargs_opts_set {
  const char *repl;
  int64_t max_args, max_lines, max_chars;
  int trace, no_empty, exit_on_size;
} xargs_opts_set;

/* Runs one command line; returns xargs' running status contribution or a
 * negative code, and sets *stop when xargs must stop (status 255). */
static int xargs_exec(cmd_ctx *c, const xargs_opts_set *o, char **argv,
                      int argc, int *stop) {
  int rc, i;
  if (o->trace) {
    for (i = 0; i < argc; i++)
      buf_printf(c->err, "%s%s", i ? " " : "", argv[i]);
    buf_putc(c->err, '\n');
  }
  if (!c->run || !cmd_is_program(argv[0])) {
    cmd_err(c, "%s: No such file or directory", argv[0]);
    *stop = 1;
    return 127;
  }
  argv[argc] = NULL;
  rc = c->run(c, argc, argv, (const uint8_t *)"", 0, c->out, c->err);
  if (rc < 0) return rc;
  if (rc == 255) {
    cmd_err(c, "%s: exited with status 255; aborting", argv[0]);
    *stop = 1;
    return 124;
  }
  if (rc == 126 || rc == 127) {
    *stop = 1;
    return rc;
  }
  return rc ? 123 : 0;
}

/* Parses the -d value as findutils does: one character, or a backslash
 * escape (\n, \t and the other C letters, \\, octal \NNN, hex \xHH).
 * Returns the byte or -1 after printing the error. */
static int xargs_parse_delim(cmd_ctx *c, const char *s) {
  static const char letters[] = "a\ab\bf\fn\nr\rt\tv\v\\\\";
  size_t n = strlen(s), i;
  unsigned long v = 0;
  int base = 8;
  const char *p;
  if (n == 1) return (unsigned char)s[0];
  if (n == 0 || s[0] != '\\') {
    cmd_err(c,
            "Invalid input delimiter specification %s: the delimiter must "
            "be either a single character or an escape sequence starting "
            "with \\.",
            s);
    return -1;
  }
  for (i = 0; letters[i]; i += 2)
    if (n == 2 && s[1] == letters[i]) return (unsigned char)letters[i + 1];
  p = s + 1;
  if (*p == 'x') {
    base = 16;
    p++;
  } else if (*p < '0' || *p > '9') {
    cmd_err(c, "Invalid escape sequence %s in input delimiter specification.",
            s);
    return -1;
  }
  for (; *p; p++) {
    int dg = *p >= '0' && *p <= '9'   ? *p - '0'
             : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
             : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                      : 99;
    if (dg >= base) {
      cmd_err(c,
              "Invalid escape sequence %s in input delimiter specification; "
              "trailing characters %s not recognised.",
              s, p);
      return -1;
    }
    if (v <= 0xffff) v = v * (unsigned long)base + (unsigned long)dg;
  }
  if (v > 255) {
    cmd_err(c,
            "Invalid escape sequence %s in input delimiter specification; "
            "character values must not exceed %s.",
            s, base == 16 ? "ff" : "377");
    return -1;
  }
  return (int)v;
}

static int xargs_parse_num(cmd_getopt *g, const char *arg, int64_t min,
                           int64_t *out) {
  if (cmd_parse_int(arg, out) || *out < min) {
    if (!cmd_parse_int(arg, out))
      cmd_err(g->c, "value %s for -%c option should be >= %lld", arg, g->opt,
              (long long)min);
    else
      /* findutils wraps the value in plain double quotes, unescaped. */
      cmd_err(g->c, "invalid number \"%s\" for -%c option", arg, g->opt);
    buf_printf(g->c->err, "Try 'xargs --help' for more information.\n");
    return 1;
  }
  return 0;
}

/* xargs: run a command with arguments read from input. */
int cmd_xargs(cmd_ctx *c) {
  cmd_getopt g;
  xargs_opts_set o = {NULL, 0, 0, 131072, 0, 0, 0};
  xargs_state x = {c, NULL, 0, 0};
  const char *eof_str = NULL, *file = NULL;
  const uint8_t *d = c->in;
  size_t len = c->in_len, i, next = 0;
  int k, delim = -1, status = 0, stop = 0, rc, ninit, quote_err = 0;
  char **init, **argv, *echo_argv[] = {(char *)"echo", NULL};
  cmd_opt_init(&g, c, xargs_opts, xargs_usage, CMD_OPTF_NOPERMUTE);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case '0': delim = 0; break;
    case 'a': file = g.arg; break;
    case 'd':
      if ((delim = xargs_parse_delim(c, g.arg)) < 0) return 1;
      break;
    case 'E': eof_str = g.arg; break;
    case 'e': eof_str = g.arg; break;
    case 'I':
    case 'i':
      o.repl = k == 'I' ? g.arg : g.arg ? g.arg : "{}";
      /* GNU: the later of -I, -L, -n wins, with a warning. */
      if (o.max_args) xargs_excl(c, "--max-args", "--replace/-I/-i");
      if (o.max_lines) xargs_excl(c, "--max-lines", "--replace/-I/-i");
      o.max_args = o.max_lines = 0;
      break;
    case 'L':
    case 'l':
      if (xargs_parse_num(&g, g.arg ? g.arg : "1", 1, &o.max_lines)) return 1;
      if (o.max_args) xargs_excl(c, "--max-args", k == 'L' ? "-L" : "-l");
      if (o.repl) xargs_excl(c, "--replace", k == 'L' ? "-L" : "-l");
      o.max_args = 0;
      o.repl = NULL;
      break;
    case 'n':
      if (xargs_parse_num(&g, g.arg, 1, &o.max_args)) return 1;
      if (o.max_lines) xargs_excl(c, "--max-lines", "--max-args/-n");
      o.max_lines = 0;
      break;
    case 'P': {
      int64_t procs; /* checked, then ignored: commands run one by one */
      if (xargs_parse_num(&g, g.arg, 0, &procs)) return 1;
      break;
    }
    case 'p':
      cmd_err(c,
              "-p (--interactive) needs a terminal; not supported in "
              "memsandbox");
      return 1;
    case 'r': o.no_empty = 1; break;
    case 's':
      if (xargs_parse_num(&g, g.arg, 1, &o.max_chars)) return 1;
      break;
    case 't': o.trace = 1; break;
    case 'x': o.exit_on_size = 1; break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 1 : k;
  if (!file) {
    c->in_used = c->in_len;
    c->in_eof = 1;
  }
  if (file && (rc = cmd_input(c, file, &d, &len))) {
    cmd_err(c, "%s: %s", cmd_quotef(c, file), cmd_strerror(rc));
    return 1;
  }
  init = g.nops ? g.ops : echo_argv;
  ninit = g.nops ? g.nops : 1;
  if (delim >= 0) /* -0 and -d split items even with -I */
    rc = xargs_split_delim(&x, d, len, delim);
  else if (o.repl)
    rc = xargs_split_lines(&x, d, len);
  else
    rc = xargs_split_words(&x, d, len, eof_str);
  if (rc < 0) return rc;
  if (rc) {
    /* GNU runs the command on the items read before the bad quote */
    quote_err = 1;
    if (!x.n) return 1;
  }
  if (!x.n && (o.no_empty || o.repl)) return 0;
  /* One argv for every command line, big enough for the longest: a fresh
   * one per line would allocate the remaining items each time (quadratic). */
  argv = arena_alloc(c->a, ((size_t)ninit + x.n + 1) * sizeof *argv);
  if (!argv) return MSB_ENOMEM;
  do {
    /* one command line: initial args + as many items as the limits allow */
    size_t chars = 0;
    int argc = 0;
    int64_t lines = 0;
    for (k = 0; k < ninit; k++) {
      /* The default echo is not an initial arg: nothing replaced there. */
      argv[argc] = o.repl && g.nops && next < x.n
                       ? xargs_replace(c, init[k], o.repl, x.items[next].s)
                       : init[k];
      if (!argv[argc]) return MSB_ENOMEM;
      chars += strlen(argv[argc++]) + 1;
    }
    if (o.repl) {
      next++;
    } else {
      for (i = next; i < x.n; i++) {
        size_t add = strlen(x.items[i].s) + 1;
        if (o.max_args && (int64_t)(i - next) >= o.max_args) break;
        if (chars + add > (uint64_t)o.max_chars && i > next) break;
        argv[argc++] = x.items[i].s;
        chars += add;
        if (o.max_lines && x.items[i].line_end && ++lines >= o.max_lines) {
          i++;
          break;
        }
      }
      if (o.exit_on_size && chars > (uint64_t)o.max_chars) {
        cmd_err(c, "argument list too long");
        return 1;
      }
      next = i;
    }
    rc = xargs_exec(c, &o, argv, argc, &stop);
    if (rc < 0) return rc;
    if (rc > status) status = rc;
  } while (next < x.n && !stop);
  return quote_err && !status ? 1 : status;
}
