/* sed.c - stream editor (GNU sed 4.9, C locale).
 *
 * The script (every -e and -f piece, joined by newlines) is parsed once
 * into a flat array of commands; `{` records the index of its `}` so a
 * failed address jumps past the block, and branches hold their target
 * index. Errors carry GNU's "-e expression #N, char M" position, M being
 * the characters consumed so far within that piece.
 *
 * Execution follows GNU's cycle: read a line into the pattern space, run
 * the commands, auto-print unless -n, then flush the append queue (a, r,
 * R). Inputs are borrowed whole, so `$` is a look-ahead. Range state lives
 * in each command (GNU's rules for line-number, +N, ~N, regex and 0,/re/
 * ends). Regexes use the shared engine; the empty regex reuses the last
 * one executed. `s` walks matches left to right, skipping an empty match
 * right after the previous match as GNU does. Files for w/W are truncated
 * when the script is parsed and written when sed ends; -i writes each file
 * back (with an optional backup) when it is done.
 *
 * Refused: the e command and s///e (no processes in the sandbox), --debug.
 *
 * Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]... */
#include <string.h>

#include "../cold.h"
#include "../regex.h"
#include "cmd.h"

static const char sed_usage[] MSB_COLD =
    "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n"
    "\n"
    "  -n, --quiet, --silent\n"
    "                 suppress automatic printing of pattern space\n"
    "      --debug\n"
    "                 annotate program execution\n"
    "  -e script, --expression=script\n"
    "                 add the script to the commands to be executed\n"
    "  -f script-file, --file=script-file\n"
    "                 add the contents of script-file to the"
    " commands to be executed\n"
    "  --follow-symlinks\n"
    "                 follow symlinks when processing in place\n"
    "  -i[SUFFIX], --in-place[=SUFFIX]\n"
    "                 edit files in place (makes backup if SUFFIX supplied)\n"
    "  -l N, --line-length=N\n"
    "                 specify the desired line-wrap length for"
    " the `l' command\n"
    "  --posix\n"
    "                 disable all GNU extensions.\n"
    "  -E, -r, --regexp-extended\n"
    "                 use extended regular expressions in the script\n"
    "                 (for portability use POSIX -E).\n"
    "  -s, --separate\n"
    "                 consider files as separate rather than as a single,\n"
    "                 continuous long stream.\n"
    "      --sandbox\n"
    "                 operate in sandbox mode (disable e/r/w commands).\n"
    "  -u, --unbuffered\n"
    "                 load minimal amounts of data from the"
    " input files and flush\n"
    "                 the output buffers more often\n"
    "  -z, --null-data\n"
    "                 separate lines by NUL characters\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n"
    "\n"
    "If no -e, --expression, -f, or --file option is given, then the first\n"
    "non-option argument is taken as the sed script to interpret.  All\n"
    "remaining arguments are names of input files; if no input files are\n"
    "specified, then the standard input is read.\n"
    "\n"
    "GNU sed home page: <https://www.gnu.org/software/sed/>.\n"
    "General help using GNU software: <https://www.gnu.org/gethelp/>.\n";

enum {
  SED_O_POSIX = 256,
  SED_O_DEBUG,
  SED_O_FOLLOW,
  SED_O_SANDBOX,
  SED_O_IGNORED
};

static const cmd_opt sed_opts[] = {
    {'n', "quiet", CMD_ARG_NONE, 'n'},
    {0, "silent", CMD_ARG_NONE, 'n'},
    {0, "debug", CMD_ARG_NONE, SED_O_DEBUG},
    {'e', "expression", CMD_ARG_REQ, 'e'},
    {'f', "file", CMD_ARG_REQ, 'f'},
    {0, "follow-symlinks", CMD_ARG_NONE, SED_O_FOLLOW},
    {'i', "in-place", CMD_ARG_OPT, 'i'},
    {'l', "line-length", CMD_ARG_REQ, 'l'},
    {0, "posix", CMD_ARG_NONE, SED_O_POSIX},
    {'E', "regexp-extended", CMD_ARG_NONE, 'E'},
    {'r', 0, CMD_ARG_NONE, 'E'},
    {0, "sandbox", CMD_ARG_NONE, SED_O_SANDBOX},
    {'s', "separate", CMD_ARG_NONE, 's'},
    {'u', "unbuffered", CMD_ARG_NONE, SED_O_IGNORED},
    {'b', "binary", CMD_ARG_NONE, SED_O_IGNORED},
    {'z', "null-data", CMD_ARG_NONE, 'z'},
    {0, "zero-terminated", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

/* Address kinds. */
enum {
  SED_A_NONE,
  SED_A_LINE,
  SED_A_LAST,
  SED_A_RE,
  SED_A_STEP,
  SED_A_ZERO,
  SED_A_PLUS,
  SED_A_TILDE
};

typedef struct sed_addr {
  int type;
  uint64_t n1, n2;
  rx *re; /* NULL with SED_A_RE: the last regex used */
} sed_addr;

/* One piece of an s replacement: literal text, a group, or a case op. */
enum { SED_R_LIT, SED_R_GROUP, SED_R_CASE };
typedef struct sed_rpart {
  int kind;
  const char *s; /* literal */
  size_t len;
  int group;     /* 0-9 */
  int cs;        /* 'L' 'U' 'l' 'u' 'E' */
} sed_rpart;

typedef struct sed_cmd {
  sed_addr a1, a2;
  int neg;
  int cmd;
  int active;      /* range in progress */
  int closed;      /* a range from a line number ended: never again */
  uint64_t endl;   /* computed end line for +N / ~N */
  const char *text; /* a i c text; label; file name */
  size_t tlen;
  size_t jump;     /* { -> index after }, b/t/T -> target (-1 = end) */
  int code;        /* q/Q exit code; l width (-1 none) */
  /* s */
  rx *re;
  sed_rpart *rp;
  size_t nrp;
  int global, print, eval;
  uint64_t nth;
  int wfile;       /* index into output files, -1 none */
  uint8_t ymap[256];
} sed_cmd;

typedef struct sed_wfile {
  const char *name;
  buf data;
  int special;     /* 1 stdout, 2 stderr */
} sed_wfile;

typedef struct sed_rfile {
  const char *name;
  const uint8_t *d;
  size_t len, pos;
  int loaded, ok; /* ok: the file could be read */
} sed_rfile;

typedef struct sed {
  cmd_ctx *c;
  /* script */
  const char *sc;
  size_t slen, pos;
  size_t *piece;   /* start offsets of the script pieces */
  const char **piecename; /* NULL for -e pieces, file name for -f */
  size_t npiece;
  sed_cmd *cmds;
  size_t ncmd, cap;
  sed_wfile *wf;
  size_t nwf;
  sed_rfile *rf;
  size_t nrf;
  rx **rxs;        /* every compiled regex, for freeing */
  size_t nrx, rxcap;
  int ere, quiet, separate, inplace, posix, sandbox, delim;
  long lwidth;
  const char *suffix;
  /* run */
  buf ps, hs, appq, *out;
  int appq_any; /* something was queued, maybe empty: still ends the line */
  rx *lastre;
  uint64_t lineno;
  int tflag, quit, exitcode, status, islast;
  int quit_cmd; /* quit came from q or Q, not the end of input */
  /* GNU's "chomped" flags: whether the text had its newline. Printing a
   * pattern space without one leaves the newline missing, and it is
   * added before anything else is printed. */
  int ps_chomped, hs_chomped, missing;
  uint64_t jumps;
  const char *fname;
} sed;

/* ---- Script parsing --------------------------------------------------- */

static int sed_peek(sed *s) {
  return s->pos < s->slen ? (unsigned char)s->sc[s->pos] : -1;
}

static int sed_get(sed *s) {
  return s->pos < s->slen ? (unsigned char)s->sc[s->pos++] : -1;
}

/* Prints a parse error at the current position; returns 1. */
static int sed_bad(sed *s, const char *msg) {
  size_t i = 0, pos = s->pos, start, end;
  while (i + 1 < s->npiece && s->piece[i + 1] <= pos) i++;
  start = s->piece[i];
  end = i + 1 < s->npiece ? s->piece[i + 1] - 1 : s->slen;
  if (pos > end) pos = end;
  if (s->piecename[i]) {
    size_t line = 1, k;
    for (k = start; k < pos && k < s->slen; k++)
      if (s->sc[k] == '\n' && k + 1 < pos) line++;
    cmd_err(s->c, "file %s line %lu: %s", s->piecename[i], (unsigned long)line,
            msg);
  } else {
    size_t n = 0, k;
    for (k = 0; k < i; k++)
      if (!s->piecename[k]) n++;
    cmd_err(s->c, "-e expression #%lu, char %lu: %s", (unsigned long)(n + 1),
            (unsigned long)(pos - start), msg);
  }
  return 1;
}

/* Whether the next character is the newline joining two -e pieces: a
 * delimited string never continues into the next piece. */
static int sed_boundary(sed *s) {
  size_t i;
  if (s->pos >= s->slen || s->sc[s->pos] != '\n') return 0;
  for (i = 1; i < s->npiece; i++)
    if (s->piece[i] == s->pos + 1) return 1;
  return 0;
}

static void sed_skipws(sed *s) {
  int ch;
  while ((ch = sed_peek(s)) == ' ' || ch == '\t') s->pos++;
}

static int sed_isdigit(int ch) { return ch >= '0' && ch <= '9'; }

static uint64_t sed_number(sed *s) {
  uint64_t v = 0;
  while (sed_isdigit(sed_peek(s))) {
    int d = sed_get(s) - '0';
    v = v > (UINT64_MAX - (uint64_t)d) / 10 ? UINT64_MAX : v * 10 + (uint64_t)d;
  }
  return v;
}

static int sed_track_rx(sed *s, rx *r) {
  if (s->nrx == s->rxcap) {
    rx **nv = cmd_grow(s->c, s->rxs, s->nrx, &s->rxcap, sizeof *nv, 16);
    if (!nv) return MSB_ENOMEM;
    s->rxs = nv;
  }
  s->rxs[s->nrx++] = r;
  return 0;
}

/* The escapes GNU sed converts inside a regex, brackets included. */
static int sed_rx_escape(int nx) {
  switch (nx) {
  case 'n': return '\n';
  case 't': return '\t';
  case 'f': return '\f';
  case 'v': return '\v';
  case 'a': return '\a';
  case 'r': return '\r';
  default: return -1;
  }
}

/* GNU's numeric escapes after the backslash: \xHH, \oNNN, \dNNN and \cX
 * at t[0..n) (t[0] is the letter). Returns the byte and sets *used to the
 * characters taken, or -1 when t holds none (the letter stands alone). */
static int sed_numesc(const char *t, size_t n, size_t *used) {
  int base = t[0] == 'x' ? 16 : t[0] == 'o' ? 8 : t[0] == 'd' ? 10 : 0;
  int max = base == 16 ? 2 : 3, v = 0, k;
  if (t[0] == 'c') {
    if (n < 2) return -1;
    *used = 2;
    return ((t[1] >= 'a' && t[1] <= 'z' ? t[1] - 32 : t[1]) ^ 0x40) & 0xff;
  }
  if (!base) return -1;
  for (k = 1; k <= max && (size_t)k < n; k++) {
    int ch = t[k], d = ch >= '0' && ch <= '9'                 ? ch - '0'
                       : base == 16 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                       : base == 16 && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                              : 99;
    if (d >= base) break;
    v = v * base + d;
  }
  if (k == 1) return -1;
  *used = (size_t)k;
  return v & 0xff;
}

/* The same escape read from the script (the backslash and letter were
 * taken); -1 with nothing more consumed when there is none. */
static int sed_numesc_script(sed *s, int letter) {
  char t[4];
  size_t n = 1, used = 0, k;
  int v;
  t[0] = (char)letter;
  while (n < 4 && s->pos + n - 1 < s->slen && s->sc[s->pos + n - 1] != '\n') {
    t[n] = s->sc[s->pos + n - 1];
    n++;
  }
  v = sed_numesc(t, n, &used);
  if (v < 0) return -1;
  for (k = 1; k < used; k++) sed_get(s);
  return v;
}

/* Copies a bracket expression of a regex (the '[' is read): GNU sed does
 * not end a regex inside one, so "s/[/]/x/" replaces a slash. A backslash
 * there is literal except for the escapes above. 0, or 1 when the bracket
 * (or a "[:" inside it) never closes. */
static int sed_bracket(sed *s, buf *out) {
  int ch, first = 1;
  buf_putc(out, '[');
  if (sed_peek(s) == '^') buf_putc(out, sed_get(s));
  for (;;) {
    if (sed_boundary(s)) return 1;
    ch = sed_get(s);
    if (ch < 0 || ch == '\n') return 1;
    if (ch == ']' && !first) {
      buf_putc(out, ch);
      return 0;
    }
    first = 0;
    if (ch == '\\' && sed_rx_escape(sed_peek(s)) >= 0) {
      buf_putc(out, sed_rx_escape(sed_get(s)));
      continue;
    }
    if (ch == '\\' && sed_peek(s) > 0 && strchr("xodc", sed_peek(s))) {
      size_t save = s->pos;
      int v = sed_numesc_script(s, sed_get(s));
      if (v >= 0) {
        buf_putc(out, v);
        continue;
      }
      s->pos = save;
    }
    buf_putc(out, ch);
    if (ch == '[' && strchr(":.=", sed_peek(s)) && sed_peek(s) > 0) {
      int term = sed_get(s), prev = -1;
      buf_putc(out, term);
      for (;;) {
        if (sed_boundary(s)) return 1;
        ch = sed_get(s);
        if (ch < 0 || ch == '\n') return 1;
        buf_putc(out, ch);
        if (prev == term && ch == ']') break;
        prev = ch;
      }
    }
  }
}

/* Reads text up to an unescaped delim into out, turning "\delim" into
 * delim and "\n" into a newline; other escapes stay for the consumer.
 * regex: also convert \t and friends. 0, or 1 when unterminated. */
static int sed_delimited(sed *s, int delim, buf *out, int regex) {
  int ch, v;
  for (;;) {
    if (sed_boundary(s)) return 1;
    ch = sed_get(s);
    if (ch < 0) return 1;
    if (ch == delim) return 0;
    if (ch == '\n' && regex) {
      /* A newline ends an unterminated regex in GNU sed. */
      return 1;
    }
    if (ch == '[' && regex) {
      if (sed_bracket(s, out)) return 1;
      continue;
    }
    if (ch == '\\') {
      int nx = sed_get(s);
      if (nx < 0) return 1;
      if (nx == delim) {
        buf_putc(out, nx);
      } else if (nx == 'n') {
        buf_putc(out, '\n');
      } else if (nx == '\n' && !regex) {
        buf_putc(out, '\n');
      } else if (regex && nx == 't') {
        buf_putc(out, '\t');
      } else if (regex && nx == 'f') {
        buf_putc(out, '\f');
      } else if (regex && nx == 'v') {
        buf_putc(out, '\v');
      } else if (regex && nx == 'a') {
        buf_putc(out, '\a');
      } else if (regex && nx == 'r') {
        buf_putc(out, '\r');
      } else if (regex && strchr("xodc", nx) &&
                 (v = sed_numesc_script(s, nx)) >= 0) {
        /* GNU puts the byte in the regex as if typed: "\x2e" is a '.'. */
        buf_putc(out, v);
      } else {
        buf_putc(out, '\\');
        buf_putc(out, nx);
      }
      continue;
    }
    buf_putc(out, ch);
  }
}

/* Compiles a regex text (empty: the last regex, NULL). 0 or 1. */
static int sed_regex(sed *s, buf *text, unsigned extra, rx **out) {
  buf em;
  int rc;
  *out = NULL;
  if (text->len == 0) {
    if (extra & RX_ICASE || extra & RX_NEWLINE) {
      /* GNU refuses modifiers on the empty regex. */
      return sed_bad(s, "no previous regular expression");
    }
    return 0;
  }
  buf_init(&em, s->c->m);
  rc = rx_compile(
      s->c->m, text->p, text->len,
      (s->ere ? RX_ERE : RX_BRE) | RX_SED | (s->posix ? RX_POSIX : 0) | extra,
      out, &em);
  if (rc == MSB_EINVAL && !strcmp(buf_str(&em), RX_COLON_MSG)) {
    /* GNU's dfa reports this one bare, and sed exits 4. */
    cmd_err(s->c, "%s", RX_COLON_MSG);
    s->status = 4;
    buf_finish(&em);
    return 1;
  }
  if (rc == MSB_EINVAL) {
    sed_bad(s, buf_str(&em));
    buf_finish(&em);
    return 1;
  }
  buf_finish(&em);
  if (rc < 0) {
    cmd_err(s->c, "%s", cmd_strerror(rc));
    return 1;
  }
  if (sed_track_rx(s, *out) < 0) {
    rx_free(*out);
    *out = NULL;
    return 1;
  }
  return 0;
}

/* Parses one address; 0 none, 1 found, -1 error printed. */
static int sed_addr_parse(sed *s, sed_addr *a) {
  int ch = sed_peek(s);
  memset(a, 0, sizeof *a);
  if (sed_isdigit(ch)) {
    a->n1 = sed_number(s);
    a->type = SED_A_LINE;
    if (sed_peek(s) == '~') {
      s->pos++;
      a->n2 = sed_number(s);
      a->type = SED_A_STEP;
    } else if (a->n1 == 0) {
      a->type = SED_A_ZERO;
    }
    return 1;
  }
  if (ch == '$') {
    s->pos++;
    a->type = SED_A_LAST;
    return 1;
  }
  if (ch == '/' || ch == '\\') {
    buf t;
    int delim = '/', fl = 0;
    unsigned extra = 0;
    s->pos++;
    if (ch == '\\') {
      delim = sed_get(s);
      if (delim < 0 || delim == '\n' || delim == '\\') {
        sed_bad(s, "unexpected `,'");
        return -1;
      }
    }
    buf_init(&t, s->c->m);
    if (sed_delimited(s, delim, &t, 1)) {
      buf_finish(&t);
      sed_bad(s, "unterminated address regex");
      return -1;
    }
    for (;;) {
      ch = sed_peek(s);
      if (ch == 'I') {
        extra |= RX_ICASE;
      } else if (ch == 'M') {
        extra |= RX_NEWLINE;
      } else {
        break;
      }
      s->pos++;
    }
    a->type = SED_A_RE;
    fl = sed_regex(s, &t, extra, &a->re);
    buf_finish(&t);
    return fl ? -1 : 1;
  }
  return 0;
}

static sed_cmd *sed_newcmd(sed *s) {
  sed_cmd *c;
  if (s->ncmd == s->cap) {
    sed_cmd *nv = cmd_grow(s->c, s->cmds, s->ncmd, &s->cap, sizeof *nv, 32);
    if (!nv) return NULL;
    s->cmds = nv;
  }
  c = &s->cmds[s->ncmd++];
  memset(c, 0, sizeof *c);
  c->wfile = -1;
  c->code = -1;
  return c;
}

/* Reads the rest of the line (for labels, file names): labels also stop
 * at ';' (GNU 4.9), file names only at a newline. */
static const char *sed_word(sed *s, int semi, size_t *len) {
  size_t st;
  sed_skipws(s);
  st = s->pos;
  while (s->pos < s->slen && s->sc[s->pos] != '\n' &&
         !(semi && s->sc[s->pos] == ';'))
    s->pos++;
  *len = s->pos - st;
  if (semi)
    while (*len &&
           (s->sc[st + *len - 1] == ' ' || s->sc[st + *len - 1] == '\t'))
      (*len)--;
  return arena_strndup(s->c->a, s->sc + st, *len);
}

/* After a command: spaces, then ';', '}', '#', newline or the end. */
static int sed_endcmd(sed *s) {
  int ch;
  sed_skipws(s);
  ch = sed_peek(s);
  if (ch < 0 || ch == '\n' || ch == ';') {
    if (ch >= 0) s->pos++;
    return 0;
  }
  if (ch == '}' || ch == '#') return 0;
  s->pos++;
  return sed_bad(s, "extra characters after command");
}

static int sed_wfile_get(sed *s, const char *name) {
  size_t i;
  sed_wfile *nv;
  for (i = 0; i < s->nwf; i++)
    if (!strcmp(s->wf[i].name, name)) return (int)i;
  nv = arena_alloc(s->c->a, (s->nwf + 1) * sizeof *nv);
  if (!nv) return -1;
  if (s->nwf) memcpy(nv, s->wf, s->nwf * sizeof *nv);
  s->wf = nv;
  memset(&s->wf[s->nwf], 0, sizeof *s->wf);
  s->wf[s->nwf].name = name;
  buf_init(&s->wf[s->nwf].data, s->c->m);
  s->wf[s->nwf].special = !strcmp(name, "/dev/stdout")   ? 1
                          : !strcmp(name, "/dev/stderr") ? 2
                                                         : 0;
  return (int)s->nwf++;
}

static int sed_rfile_get(sed *s, const char *name) {
  size_t i;
  sed_rfile *nv;
  for (i = 0; i < s->nrf; i++)
    if (!strcmp(s->rf[i].name, name)) return (int)i;
  nv = arena_alloc(s->c->a, (s->nrf + 1) * sizeof *nv);
  if (!nv) return -1;
  if (s->nrf) memcpy(nv, s->rf, s->nrf * sizeof *nv);
  s->rf = nv;
  memset(&s->rf[s->nrf], 0, sizeof *s->rf);
  s->rf[s->nrf].name = name;
  return (int)s->nrf++;
}

/* Text of a, i, c: GNU one-liner or backslash-newline form. */
static int sed_text(sed *s, sed_cmd *c) {
  buf t;
  int ch;
  sed_skipws(s);
  ch = sed_peek(s);
  if (ch < 0) return sed_bad(s, "expected \\ after `a', `c' or `i'");
  if (ch == '\\') {
    s->pos++;
    if (sed_peek(s) < 0) {
      /* GNU: "a\" at the end of the script appends nothing at all. */
      c->text = "";
      c->tlen = 0;
      return 0;
    }
    if (sed_peek(s) == '\n') s->pos++;
  }
  buf_init(&t, s->c->m);
  for (;;) {
    ch = sed_get(s);
    if (ch < 0 || ch == '\n') break;
    if (ch == '\\') {
      int nx = sed_get(s);
      if (nx < 0) break;
      switch (nx) {
      case 't': buf_putc(&t, '\t'); break;
      case 'n': buf_putc(&t, '\n'); break;
      case 'a': buf_putc(&t, '\a'); break;
      case 'f': buf_putc(&t, '\f'); break;
      case 'v': buf_putc(&t, '\v'); break;
      case 'r': buf_putc(&t, '\r'); break;
      default: buf_putc(&t, nx); break;
      }
      continue;
    }
    buf_putc(&t, ch);
  }
  buf_putc(&t, '\n');
  if (t.err) {
    buf_finish(&t);
    return 1;
  }
  c->text = arena_strndup(s->c->a, t.p, t.len);
  c->tlen = t.len;
  buf_finish(&t);
  return c->text ? 0 : 1;
}

static int sed_rpart_add(sed *s, sed_cmd *c, size_t *cap, int kind,
                         const char *p, size_t len, int group, int cs);

/* Parses an s replacement into parts. 0 or 1 (error printed). */
static int sed_repl(sed *s, sed_cmd *c, const char *r, size_t n, size_t nsub) {
  size_t i, cap = 8;
  buf lit;
  c->rp = arena_alloc(s->c->a, cap * sizeof *c->rp);
  if (!c->rp) return 1;
  buf_init(&lit, s->c->m);
#define SED_FLUSH()                                                   \
  do {                                                                \
    if (lit.len) {                                                    \
      if (sed_rpart_add(s, c, &cap, SED_R_LIT, lit.p, lit.len, 0, 0)) \
        goto fail;                                                    \
      buf_clear(&lit);                                                \
    }                                                                 \
  } while (0)
  for (i = 0; i < n; i++) {
    int ch = (unsigned char)r[i];
    if (ch == '&') {
      SED_FLUSH();
      if (sed_rpart_add(s, c, &cap, SED_R_GROUP, NULL, 0, 0, 0)) goto fail;
      continue;
    }
    if (ch != '\\' || i + 1 >= n) {
      buf_putc(&lit, ch);
      continue;
    }
    ch = (unsigned char)r[++i];
    if (sed_isdigit(ch)) {
      if ((size_t)(ch - '0') > nsub) {
        char msg[64];
        size_t k = 0;
        const char *m1 = "invalid reference \\";
        while (*m1) msg[k++] = *m1++;
        msg[k++] = (char)ch;
        m1 = " on `s' command's RHS";
        while (*m1) msg[k++] = *m1++;
        msg[k] = 0;
        buf_finish(&lit);
        /* GNU reports this after reading the command's terminator. */
        if (sed_peek(s) == ';' || sed_peek(s) == '\n') s->pos++;
        return sed_bad(s, msg);
      }
      SED_FLUSH();
      if (sed_rpart_add(s, c, &cap, SED_R_GROUP, NULL, 0, ch - '0', 0))
        goto fail;
      continue;
    }
    switch (ch) {
    case 'L':
    case 'U':
    case 'l':
    case 'u':
    case 'E':
      SED_FLUSH();
      if (sed_rpart_add(s, c, &cap, SED_R_CASE, NULL, 0, 0, ch)) goto fail;
      break;
    case 'n': buf_putc(&lit, '\n'); break;
    case 't': buf_putc(&lit, '\t'); break;
    case 'a': buf_putc(&lit, '\a'); break;
    case 'f': buf_putc(&lit, '\f'); break;
    case 'v': buf_putc(&lit, '\v'); break;
    case 'r': buf_putc(&lit, '\r'); break;
    case 'x':
    case 'o':
    case 'd':
    case 'c': {
      /* In the replacement the byte is always literal (even '&'). */
      size_t used = 0;
      int v = sed_numesc(r + i, n - i, &used);
      if (v < 0) {
        buf_putc(&lit, ch);
      } else {
        buf_putc(&lit, v);
        i += used - 1;
      }
      break;
    }
    default: buf_putc(&lit, ch); break;
    }
  }
  SED_FLUSH();
#undef SED_FLUSH
  buf_finish(&lit);
  return 0;
fail:
  buf_finish(&lit);
  return 1;
}

static int sed_rpart_add(sed *s, sed_cmd *c, size_t *cap, int kind,
                         const char *p, size_t len, int group, int cs) {
  sed_rpart *e;
  if (c->nrp == *cap) {
    sed_rpart *nv = arena_alloc(s->c->a, *cap * 2 * sizeof *nv);
    if (!nv) return 1;
    memcpy(nv, c->rp, c->nrp * sizeof *nv);
    c->rp = nv;
    *cap *= 2;
  }
  e = &c->rp[c->nrp++];
  e->kind = kind;
  e->s = p ? arena_strndup(s->c->a, p, len) : NULL;
  e->len = len;
  e->group = group;
  e->cs = cs;
  return (p && !e->s) ? 1 : 0;
}

static int sed_parse_s(sed *s, sed_cmd *c) {
  int delim = sed_get(s), ch, nflag = 0;
  buf re, rep;
  unsigned extra = 0;
  size_t nsub;
  if (delim < 0 || delim == '\n' || delim == '\\')
    return sed_bad(s, "unterminated `s' command");
  buf_init(&re, s->c->m);
  buf_init(&rep, s->c->m);
  if (sed_delimited(s, delim, &re, 1) || sed_delimited(s, delim, &rep, 0)) {
    buf_finish(&re);
    buf_finish(&rep);
    return sed_bad(s, "unterminated `s' command");
  }
  c->nth = 0;
  for (;;) {
    ch = sed_peek(s);
    if (ch == 'g') {
      s->pos++;
      if (c->global) goto bad_g;
      c->global = 1;
    } else if (ch == 'p') {
      s->pos++;
      if (c->print) {
        buf_finish(&re);
        buf_finish(&rep);
        return sed_bad(s, "multiple `p' options to `s' command");
      }
      c->print = 1;
    } else if (ch == 'i' || ch == 'I') {
      s->pos++;
      extra |= RX_ICASE;
    } else if (ch == 'm' || ch == 'M') {
      s->pos++;
      extra |= RX_NEWLINE;
    } else if (ch == 'e') {
      s->pos++;
      buf_finish(&re);
      buf_finish(&rep);
      return sed_bad(s, "the e flag is not supported in memsandbox");
    } else if (sed_isdigit(ch)) {
      uint64_t v;
      if (nflag) {
        s->pos++;
        buf_finish(&re);
        buf_finish(&rep);
        return sed_bad(s, "multiple number options to `s' command");
      }
      v = sed_number(s);
      if (!v) {
        buf_finish(&re);
        buf_finish(&rep);
        return sed_bad(s, "number option to `s' command may not be zero");
      }
      c->nth = v;
      nflag = 1;
    } else if (ch == 'w') {
      size_t len;
      const char *fn;
      s->pos++;
      fn = sed_word(s, 0, &len);
      if (!fn || !len) {
        buf_finish(&re);
        buf_finish(&rep);
        return sed_bad(s, "missing filename in r/R/w/W commands");
      }
      c->wfile = sed_wfile_get(s, fn);
      break;
    } else if (ch >= 0 && ch != ' ' && ch != '\t' && ch != '\n' && ch != ';' &&
               ch != '}' && ch != '#') {
      s->pos++;
      buf_finish(&re);
      buf_finish(&rep);
      return sed_bad(s, "unknown option to `s'");
    } else {
      break;
    }
  }
  if (sed_regex(s, &re, extra, &c->re)) {
    buf_finish(&re);
    buf_finish(&rep);
    return 1;
  }
  nsub = c->re ? rx_nsub(c->re) : 9;
  if (sed_repl(s, c, rep.p ? rep.p : "", rep.len, nsub)) {
    buf_finish(&re);
    buf_finish(&rep);
    return 1;
  }
  buf_finish(&re);
  buf_finish(&rep);
  return c->wfile >= 0 ? 0 : sed_endcmd(s);
bad_g:
  buf_finish(&re);
  buf_finish(&rep);
  return sed_bad(s, "multiple `g' options to `s' command");
}

/* y/src/dst/ with \n, \\ and \delim. */
static int sed_parse_y(sed *s, sed_cmd *c) {
  int delim = sed_get(s), i;
  buf a, b;
  size_t k;
  if (delim < 0 || delim == '\n' || delim == '\\')
    return sed_bad(s, "unterminated `y' command");
  buf_init(&a, s->c->m);
  buf_init(&b, s->c->m);
  if (sed_delimited(s, delim, &a, 0) || sed_delimited(s, delim, &b, 0)) {
    buf_finish(&a);
    buf_finish(&b);
    return sed_bad(s, "unterminated `y' command");
  }
  /* Resolve remaining escapes: "\\" is a backslash. */
  for (i = 0; i < 2; i++) {
    buf *x = i ? &b : &a;
    size_t r = 0, w = 0;
    while (r < x->len) {
      if (x->p[r] == '\\' && r + 1 < x->len) {
        const char *m = strchr("\\tafvr", x->p[r + 1]);
        if (m && *m) {
          x->p[w++] = "\\\t\a\f\v\r"[m - "\\tafvr"];
          r += 2;
          continue;
        }
      }
      x->p[w++] = x->p[r++];
    }
    x->len = w;
  }
  if (a.len != b.len) {
    buf_finish(&a);
    buf_finish(&b);
    return sed_bad(s, "strings for `y' command are different lengths");
  }
  for (i = 0; i < 256; i++) c->ymap[i] = (uint8_t)i;
  for (k = 0; k < a.len; k++)
    c->ymap[(unsigned char)a.p[k]] = (unsigned char)b.p[k];
  buf_finish(&a);
  buf_finish(&b);
  return sed_endcmd(s);
}

/* Parses the whole script. 0 or 1 (error printed). */
static int sed_parse(sed *s) {
  size_t *stack = NULL, depth = 0, i, j;
  stack = arena_alloc(s->c->a, (s->slen + 1) * sizeof *stack);
  if (!stack) return 1;
  if (s->slen >= 2 && s->sc[0] == '#' && s->sc[1] == 'n' &&
      (s->slen == 2 || s->sc[2] == '\n'))
    s->quiet = 1;
  for (;;) {
    sed_cmd *c;
    int ch, r;
    /* Skip blanks, newlines and semicolons between commands. */
    for (;;) {
      ch = sed_peek(s);
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == ';')
        s->pos++;
      else
        break;
    }
    if (ch < 0) break;
    if (ch == '#') {
      while ((ch = sed_peek(s)) >= 0 && ch != '\n') s->pos++;
      continue;
    }
    c = sed_newcmd(s);
    if (!c) return 1;
    r = sed_addr_parse(s, &c->a1);
    if (r < 0) return 1;
    if (r > 0) {
      sed_skipws(s);
      if (sed_peek(s) == ',') {
        s->pos++;
        sed_skipws(s);
        ch = sed_peek(s);
        if (ch == '+' || ch == '~') {
          s->pos++;
          if (!sed_isdigit(sed_peek(s)))
            return sed_bad(s, "expected newer version of sed");
          c->a2.type = ch == '+' ? SED_A_PLUS : SED_A_TILDE;
          c->a2.n1 = sed_number(s);
        } else {
          r = sed_addr_parse(s, &c->a2);
          if (r < 0) return 1;
          if (r == 0) {
            /* GNU counts the character it read and rejected. */
            if (sed_peek(s) >= 0) s->pos++;
            return sed_bad(s, "unexpected `,'");
          }
          if (c->a2.type == SED_A_ZERO) {
            c->a2.type = SED_A_LINE;
            c->a2.n1 = 0;
          }
          if (c->a2.type == SED_A_STEP) {
            c->a2.type = SED_A_LINE;
          }
        }
      }
    }
    sed_skipws(s);
    while (sed_peek(s) == '!') {
      s->pos++;
      c->neg = 1;
      sed_skipws(s);
    }
    ch = sed_get(s);
    if (ch < 0 || ch == '\n' || ch == ';') {
      if (ch >= 0) s->pos--;
      if (ch < 0 && r == 0) {
        s->ncmd--;
        break;
      }
      return sed_bad(s, "missing command");
    }
    c->cmd = ch;
    if (c->a1.type == SED_A_ZERO && (c->a2.type != SED_A_RE || s->posix))
      return sed_bad(s, "invalid usage of line address 0");
    if (c->a1.type == SED_A_ZERO) c->active = 1;
    switch (ch) {
    case '{': stack[depth++] = s->ncmd - 1; break;
    case '}':
      if (!depth) return sed_bad(s, "unexpected `}'");
      if (c->a1.type) return sed_bad(s, "`}' doesn't want any addresses");
      s->cmds[stack[--depth]].jump = s->ncmd;
      if (sed_endcmd(s)) return 1;
      break;
    case '#': return sed_bad(s, "comments don't accept any addresses");
    case ':': {
      size_t len;
      if (c->a1.type) return sed_bad(s, ": doesn't want any addresses");
      c->text = sed_word(s, 1, &len);
      if (!c->text) return 1;
      if (!len) return sed_bad(s, "\":\" lacks a label");
      c->tlen = len;
      if (sed_peek(s) == ';') s->pos++;
      break;
    }
    case 'b':
    case 't':
    case 'T': {
      size_t len;
      c->text = sed_word(s, 1, &len);
      if (!c->text) return 1;
      c->tlen = len;
      if (sed_peek(s) == ';') s->pos++;
      break;
    }
    case 'a':
    case 'i':
    case 'c':
      if (sed_text(s, c)) return 1;
      break;
    case 'q':
    case 'Q':
    case 'l':
    case 'L':
      if (ch == 'L') return sed_bad(s, "unknown command: `L'");
      if ((ch == 'q' || ch == 'Q') && c->a2.type)
        return sed_bad(s, "command only uses one address");
      sed_skipws(s);
      if (sed_isdigit(sed_peek(s))) {
        uint64_t v = sed_number(s);
        c->code = v > 0x7fffffff ? 0x7fffffff : (int)v;
      }
      if (sed_endcmd(s)) return 1;
      break;
    case '=':
    case 'd':
    case 'D':
    case 'g':
    case 'G':
    case 'h':
    case 'H':
    case 'n':
    case 'N':
    case 'p':
    case 'P':
    case 'x':
    case 'z':
    case 'F':
      if (sed_endcmd(s)) return 1;
      break;
    case 'r':
    case 'R':
    case 'w':
    case 'W': {
      size_t len;
      c->text = sed_word(s, 0, &len);
      if (!c->text) return 1;
      if (!len) return sed_bad(s, "missing filename in r/R/w/W commands");
      c->tlen = len;
      if (s->sandbox)
        return sed_bad(s, "e/r/w commands disabled in sandbox mode");
      if (ch == 'w' || ch == 'W') {
        c->wfile = sed_wfile_get(s, c->text);
        if (c->wfile < 0) return 1;
      } else {
        c->code = sed_rfile_get(s, c->text);
        if (c->code < 0) return 1;
      }
      break;
    }
    case 's':
      if (sed_parse_s(s, c)) return 1;
      break;
    case 'y':
      if (sed_parse_y(s, c)) return 1;
      break;
    case 'v': {
      /* We are GNU sed 4.9: a newer required version is an error. */
      static const long have[3] = {4, 9, 0};
      size_t len, k = 0;
      const char *w = sed_word(s, 1, &len);
      long want[3] = {0, 0, 0};
      int part = 0;
      for (; w && k < len && part < 3; k++) {
        if (w[k] == '.')
          part++;
        else if (w[k] >= '0' && w[k] <= '9' && want[part] < 100000)
          want[part] = want[part] * 10 + (w[k] - '0');
      }
      for (part = 0; len && part < 3 && want[part] == have[part]; part++) {
      }
      if (len && part < 3 && want[part] > have[part])
        return sed_bad(s, "expected newer version of sed");
      if (sed_peek(s) == ';') s->pos++;
      break;
    }
    case 'e': return sed_bad(s, "e command not supported in memsandbox");
    default: {
      char msg[40];
      const char *pre = "unknown command: `";
      size_t k = 0;
      while (*pre) msg[k++] = *pre++;
      msg[k++] = (char)ch;
      msg[k++] = '\'';
      msg[k] = 0;
      return sed_bad(s, msg);
    }
    }
  }
  if (depth) {
    s->pos = 0;
    s->piece[0] = 0;
    cmd_err(s->c, "-e expression #1, char 0: unmatched `{'");
    return 1;
  }
  /* Resolve branch targets. */
  for (i = 0; i < s->ncmd; i++) {
    sed_cmd *c = &s->cmds[i];
    if (c->cmd != 'b' && c->cmd != 't' && c->cmd != 'T') continue;
    c->jump = (size_t)-1;
    if (!c->tlen) continue;
    for (j = 0; j < s->ncmd; j++)
      if (s->cmds[j].cmd == ':' && s->cmds[j].tlen == c->tlen &&
          !memcmp(s->cmds[j].text, c->text, c->tlen)) {
        c->jump = j;
        break;
      }
    if (j == s->ncmd) {
      cmd_err(s->c, "can't find label for jump to `%s'", c->text);
      return 4;
    }
  }
  return 0;
}

/* ---- Execution -------------------------------------------------------- */

/* Input: the operands as borrowed buffers, read line by line. */
typedef struct sed_in {
  char **names;
  int n, i;
  const uint8_t *d;
  size_t len, pos;
  int open;
} sed_in;

/* Opens the next readable input; 0 when none is left. */
static int sed_in_next_file(sed *s, sed_in *in) {
  while (in->i < in->n) {
    const char *nm = in->names[in->i++];
    int rc = cmd_input(s->c, nm, &in->d, &in->len);
    if (rc == MSB_EISDIR || rc == CMD_EBADF) {
      /* GNU opens a directory, fails to read it and gives up at once. */
      cmd_err(s->c, "read error on %s: %s", strcmp(nm, "-") ? nm : "stdin",
              cmd_strerror(rc));
      s->status = 4;
      s->quit = 1;
      break;
    }
    if (rc < 0) {
      cmd_err(s->c, "can't read %s: %s", nm, cmd_strerror(rc));
      s->status = 2;
      continue;
    }
    in->pos = 0;
    in->open = 1;
    s->fname = nm;
    return 1;
  }
  in->open = 0;
  return 0;
}

/* Whether more input follows the current line (in this file for -s). */
static int sed_more(sed *s, sed_in *in) {
  int k;
  if (in->open && in->pos < in->len) return 1;
  if (s->separate) return 0;
  for (k = in->i; k < in->n; k++) {
    const uint8_t *d;
    size_t len;
    if (cmd_input(s->c, in->names[k], &d, &len) == 0 && len > 0) return 1;
  }
  return 0;
}

/* Reads the next line into ps (append: after a newline). 0 at the end.
 * *missing_nl reports a last line without its delimiter. */
static int sed_read(sed *s, sed_in *in, int append, int *missing_nl) {
  const uint8_t *q;
  size_t st, e;
  while (!in->open || in->pos >= in->len) {
    if (s->separate && in->open && in->pos >= in->len) return 0;
    if (!sed_in_next_file(s, in)) return 0;
  }
  st = in->pos;
  q = memchr(in->d + st, s->delim, in->len - st);
  e = q ? (size_t)(q - in->d) : in->len;
  in->pos = q ? e + 1 : in->len;
  *missing_nl = q == NULL;
  s->ps_chomped = q != NULL;
  if (append)
    buf_putc(&s->ps, s->delim == '\n' ? '\n' : 0);
  else
    buf_clear(&s->ps);
  buf_put(&s->ps, in->d + st, e - st);
  s->lineno++;
  s->islast = !sed_more(s, in);
  return 1;
}

/* Runs a regex on the pattern space (budget: see cmd_rx_exec). */
static int sed_match(sed *s, rx *r, size_t start, rx_match *m, size_t nm) {
  if (!r) r = s->lastre;
  if (!r) {
    cmd_err(s->c, "-e expression #1, char 0: no previous regular expression");
    return MSB_EINVAL;
  }
  s->lastre = r;
  return cmd_rx_exec(s->c, r, (const uint8_t *)(s->ps.p ? s->ps.p : ""),
                     s->ps.len, start, 0, m, nm);
}

static int sed_addr_match(sed *s, const sed_addr *a, int last) {
  int r;
  switch (a->type) {
  case SED_A_LINE: return s->lineno == a->n1;
  case SED_A_LAST: return last;
  case SED_A_STEP:
    if (!a->n2) return s->lineno == a->n1;
    return s->lineno >= a->n1 && (s->lineno - a->n1) % a->n2 == 0;
  case SED_A_RE: r = sed_match(s, a->re, 0, NULL, 0); return r;
  default: return 0;
  }
}

/* Whether a command applies to the current line (GNU range rules). */
static int sed_applies(sed *s, sed_cmd *c, int last) {
  int r;
  if (!c->a1.type) return 1;
  if (!c->a2.type) return sed_addr_match(s, &c->a1, last);
  if (c->active) {
    switch (c->a2.type) {
    case SED_A_LINE:
      if (s->lineno >= c->a2.n1) c->active = 0;
      return s->lineno <= c->a2.n1;
    case SED_A_PLUS:
    case SED_A_TILDE:
      if (s->lineno >= c->endl) c->active = 0;
      return 1;
    default:
      r = sed_addr_match(s, &c->a2, last);
      if (r < 0) return r;
      if (r) c->active = 0;
      return 1;
    }
  }
  if (c->a1.type == SED_A_LINE) {
    /* A line-number start also fires when N skipped past it (GNU), unless
     * the end line was skipped too; it fires once. */
    if (c->closed || s->lineno < c->a1.n1) return 0;
    c->closed = 1;
    if (s->lineno > c->a1.n1 && c->a2.type == SED_A_LINE &&
        c->a2.n1 < s->lineno)
      return 0;
    r = 1;
  } else {
    r = sed_addr_match(s, &c->a1, last);
    if (r <= 0) return r;
  }
  switch (c->a2.type) {
  case SED_A_LINE:
    if (c->a2.n1 > s->lineno) c->active = 1;
    break;
  case SED_A_PLUS:
    c->endl = s->lineno + c->a2.n1;
    if (c->a2.n1) c->active = 1;
    break;
  case SED_A_TILDE:
    if (c->a2.n1 && s->lineno % c->a2.n1) {
      c->endl = (s->lineno / c->a2.n1 + 1) * c->a2.n1;
      c->active = 1;
    }
    break;
  default: c->active = 1; break;
  }
  return 1;
}

/* Adds the newline a previous chomped print left out. */
static void sed_nl(sed *s) {
  if (s->missing) {
    buf_putc(s->out, s->delim);
    s->missing = 0;
  }
}

/* Prints text from the pattern space: newline-terminated unless the
 * text came from a line without one. */
static void sed_emit(sed *s, const char *p, size_t n, int chomped) {
  sed_nl(s);
  buf_put(s->out, p, n);
  if (chomped)
    buf_putc(s->out, s->delim);
  else
    s->missing = 1;
}

/* Output of l: escapes and line wrapping. */
static void sed_list(sed *s, long width) {
  buf *o = s->out;
  size_t i, col = 0;
  char esc[8];
  sed_nl(s);
  for (i = 0; i < s->ps.len; i++) {
    int ch = (unsigned char)s->ps.p[i];
    size_t n;
    const char *m = strchr("\a\b\f\n\r\t\v", ch);
    if (ch == '\\') {
      esc[0] = '\\';
      esc[1] = '\\';
      n = 2;
    } else if (m && ch) {
      esc[0] = '\\';
      esc[1] = "abfnrtv"[m - "\a\b\f\n\r\t\v"];
      n = 2;
    } else if (ch >= 32 && ch < 127) {
      esc[0] = (char)ch;
      n = 1;
    } else {
      esc[0] = '\\';
      esc[1] = (char)('0' + ((ch >> 6) & 7));
      esc[2] = (char)('0' + ((ch >> 3) & 7));
      esc[3] = (char)('0' + (ch & 7));
      n = 4;
    }
    if (width > 0 && col + n > (size_t)width - 1) {
      buf_puts(o, "\\\n");
      col = 0;
    }
    buf_put(o, esc, n);
    col += n;
  }
  buf_puts(o, "$\n");
}

static int sed_case(int ch, int mode) {
  if (mode == 'U' && ch >= 'a' && ch <= 'z') return ch - 32;
  if (mode == 'L' && ch >= 'A' && ch <= 'Z') return ch + 32;
  return ch;
}

/* Appends text with the case state (persistent cs, one-shot once). */
static void sed_put_case(buf *b, const char *p, size_t n, int cs, int *once) {
  size_t i;
  for (i = 0; i < n; i++) {
    int ch = (unsigned char)p[i];
    if (*once) {
      ch = sed_case(ch, *once == 'u' ? 'U' : 'L');
      *once = 0;
    } else if (cs) {
      ch = sed_case(ch, cs);
    }
    buf_putc(b, ch);
  }
}

/* The s command. Returns 1 substituted, 0 not, negative code. */
static int sed_subst(sed *s, sed_cmd *c) {
  rx_match m[10];
  buf res;
  size_t pos = 0, copied = 0, nsub;
  uint64_t count = 0;
  long prev_end = -1;
  int did = 0, r;
  rx *re = c->re ? c->re : s->lastre;
  if (!re) {
    cmd_err(s->c, "-e expression #1, char 0: no previous regular expression");
    return MSB_EINVAL;
  }
  nsub = rx_nsub(re);
  if (nsub > 9) nsub = 9;
  buf_init(&res, s->c->m);
  while (pos <= s->ps.len) {
    r = sed_match(s, c->re, pos, m, nsub + 1);
    if (r < 0) {
      buf_finish(&res);
      return r;
    }
    if (!r) break;
    if (m[0].so == m[0].eo && m[0].so == prev_end) {
      /* Empty match right after the previous one: step over a char. */
      if ((size_t)m[0].so >= s->ps.len) break;
      pos = (size_t)m[0].so + 1;
      continue;
    }
    count++;
    if (count >= (c->nth ? c->nth : 1)) {
      size_t k;
      int cs = 0, once = 0;
      buf_put(&res, s->ps.p + copied, (size_t)m[0].so - copied);
      for (k = 0; k < c->nrp; k++) {
        sed_rpart *p = &c->rp[k];
        if (p->kind == SED_R_LIT) {
          sed_put_case(&res, p->s, p->len, cs, &once);
        } else if (p->kind == SED_R_GROUP) {
          if ((size_t)p->group <= nsub && m[p->group].so >= 0)
            sed_put_case(&res, s->ps.p + m[p->group].so,
                         (size_t)(m[p->group].eo - m[p->group].so), cs, &once);
        } else if (p->cs == 'l' || p->cs == 'u') {
          once = p->cs;
        } else {
          cs = p->cs == 'E' ? 0 : p->cs;
          once = 0;
        }
      }
      copied = (size_t)m[0].eo;
      did = 1;
      if (!c->global) break;
    }
    prev_end = m[0].eo;
    if (m[0].eo == m[0].so) {
      if ((size_t)m[0].eo >= s->ps.len) break;
      pos = (size_t)m[0].eo + 1;
    } else {
      pos = (size_t)m[0].eo;
    }
  }
  if (did) {
    buf_put(&res, s->ps.p + copied, s->ps.len - copied);
    if (res.err) {
      buf_finish(&res);
      return MSB_ENOMEM;
    }
    buf_clear(&s->ps);
    buf_put(&s->ps, res.p ? res.p : "", res.len);
  }
  buf_finish(&res);
  return did;
}

static void sed_flush_appends(sed *s) {
  if (s->appq.len || s->appq_any) {
    sed_nl(s);
    buf_put(s->out, s->appq.p, s->appq.len);
    buf_clear(&s->appq);
    s->appq_any = 0;
  }
}

static void sed_wwrite(sed *s, int idx, const char *p, size_t n) {
  sed_wfile *w = &s->wf[idx];
  buf *b = w->special == 1 ? s->out : w->special == 2 ? s->c->err : &w->data;
  buf_put(b, p, n);
  buf_putc(b, s->delim);
}

/* Queues one line of an R file. */
static void sed_rline(sed *s, sed_rfile *f) {
  const uint8_t *q;
  size_t e;
  if (!f->loaded) {
    f->loaded = 1;
    if (cmd_input(s->c, f->name, &f->d, &f->len) < 0) f->len = 0;
  }
  if (f->pos >= f->len) return;
  q = memchr(f->d + f->pos, '\n', f->len - f->pos);
  e = q ? (size_t)(q - f->d) + 1 : f->len;
  /* A last line without a newline goes out as it is, like GNU. */
  buf_put(&s->appq, f->d + f->pos, e - f->pos);
  f->pos = e;
}

/* Processes one input stream (all files, or one with -s/-i). Returns 0 or
 * a negative code. */
static int sed_run(sed *s, sed_in *in) {
  int missing_nl = 0, r;
  size_t pc;
  while (!s->quit && sed_read(s, in, 0, &missing_nl)) {
    int autoprint = !s->quiet, restart;
    if ((s->lineno & 1023) == 0 && (r = cmd_tick_pause(s->c, 1)) != 0) return r;
    if ((r = cmd_charge_work(s->c, s->ps.len + 1, CMD_COST_SED)) != 0) return r;
    s->tflag = 0;
  again:
    restart = 0;
    for (pc = 0; pc < s->ncmd && !s->quit;) {
      sed_cmd *c = &s->cmds[pc];
      int last = s->islast;
      int ap;
      ap = sed_applies(s, c, last);
      if (ap < 0) return ap;
      if (c->neg) ap = !ap;
      if (!ap) {
        pc = c->cmd == '{' ? c->jump : pc + 1;
        continue;
      }
      pc++;
      switch (c->cmd) {
      case '{':
      case '}':
      case ':':
      case 'v': break;
      case '=':
        sed_nl(s);
        buf_printf(s->out, "%llu\n", (unsigned long long)s->lineno);
        break;
      case 'a':
        buf_put(&s->appq, c->text, c->tlen);
        s->appq_any = 1;
        break;
      case 'i':
        sed_nl(s);
        buf_put(s->out, c->text, c->tlen);
        break;
      case 'c':
        if (!c->a2.type || !c->active || c->neg) {
          sed_nl(s);
          buf_put(s->out, c->text, c->tlen);
        }
        autoprint = 0;
        goto endcycle;
      case 'b':
        pc = c->jump == (size_t)-1 ? s->ncmd : c->jump;
        if ((++s->jumps & 1023) == 0 && (r = cmd_tick(s->c, 1)) != 0) return r;
        break;
      case 't':
        if (s->tflag) {
          s->tflag = 0;
          pc = c->jump == (size_t)-1 ? s->ncmd : c->jump;
          if ((++s->jumps & 1023) == 0 && (r = cmd_tick(s->c, 1)) != 0)
            return r;
        }
        break;
      case 'T':
        if (!s->tflag) {
          pc = c->jump == (size_t)-1 ? s->ncmd : c->jump;
          if ((++s->jumps & 1023) == 0 && (r = cmd_tick(s->c, 1)) != 0)
            return r;
        } else {
          s->tflag = 0;
        }
        break;
      case 'd': autoprint = 0; goto endcycle;
      case 'D': {
        const char *nl = s->ps.p ? memchr(s->ps.p, '\n', s->ps.len) : NULL;
        if (!nl) {
          autoprint = 0;
          goto endcycle;
        }
        {
          size_t cut = (size_t)(nl - s->ps.p) + 1, rest = s->ps.len - cut;
          memmove(s->ps.p, s->ps.p + cut, rest);
          buf_truncate(&s->ps, rest);
        }
        sed_flush_appends(s);
        restart = 1;
        goto endcycle;
      }
      case 'g':
        buf_clear(&s->ps);
        buf_put(&s->ps, s->hs.p ? s->hs.p : "", s->hs.len);
        s->ps_chomped = s->hs_chomped;
        break;
      case 'G':
        buf_putc(&s->ps, '\n');
        buf_put(&s->ps, s->hs.p ? s->hs.p : "", s->hs.len);
        s->ps_chomped = s->hs_chomped;
        break;
      case 'h':
        buf_clear(&s->hs);
        buf_put(&s->hs, s->ps.p ? s->ps.p : "", s->ps.len);
        s->hs_chomped = s->ps_chomped;
        break;
      case 'H':
        buf_putc(&s->hs, '\n');
        buf_put(&s->hs, s->ps.p ? s->ps.p : "", s->ps.len);
        s->hs_chomped = s->ps_chomped;
        break;
      case 'x': {
        buf t = s->ps;
        int k = s->ps_chomped;
        s->ps = s->hs;
        s->hs = t;
        s->ps_chomped = s->hs_chomped;
        s->hs_chomped = k;
        break;
      }
      case 'l': sed_list(s, c->code >= 0 ? c->code : s->lwidth); break;
      case 'n':
        if (s->quit || !sed_more(s, in)) {
          if (s->posix) autoprint = 0;
          s->quit = 1;
          goto endcycle;
        }
        if (!s->quiet)
          sed_emit(s, s->ps.p ? s->ps.p : "", s->ps.len, s->ps_chomped);
        sed_flush_appends(s);
        sed_read(s, in, 0, &missing_nl);
        break;
      case 'N':
        if (!sed_more(s, in)) {
          if (s->posix) autoprint = 0;
          s->quit = 1;
          goto endcycle;
        }
        sed_flush_appends(s);
        sed_read(s, in, 1, &missing_nl);
        break;
      case 'p':
        sed_emit(s, s->ps.p ? s->ps.p : "", s->ps.len, s->ps_chomped);
        break;
      case 'P': {
        const char *nl = s->ps.p ? memchr(s->ps.p, '\n', s->ps.len) : NULL;
        sed_emit(s, s->ps.p ? s->ps.p : "",
                 nl ? (size_t)(nl - s->ps.p) : s->ps.len,
                 nl ? 1 : s->ps_chomped);
        break;
      }
      case 'q':
        s->exitcode = c->code >= 0 ? c->code : 0;
        s->quit = 1;
        s->quit_cmd = 1;
        /* q always ends its output with a newline, as GNU does. */
        if (autoprint) sed_emit(s, s->ps.p ? s->ps.p : "", s->ps.len, 1);
        sed_nl(s);
        autoprint = 0;
        goto endcycle;
      case 'Q':
        s->exitcode = c->code >= 0 ? c->code : 0;
        s->quit = 1;
        s->quit_cmd = 1;
        autoprint = 0;
        buf_clear(&s->appq);
        s->appq_any = 0;
        goto endcycle;
      case 'r': {
        sed_rfile *f = &s->rf[c->code];
        if (!f->loaded) {
          f->loaded = 1;
          if (cmd_input(s->c, f->name, &f->d, &f->len) < 0)
            f->len = 0;
          else
            f->ok = 1;
        }
        buf_put(&s->appq, f->d, f->len);
        s->appq_any |= f->ok;
        break;
      }
      case 'R': sed_rline(s, &s->rf[c->code]); break;
      case 'w':
        sed_wwrite(s, c->wfile, s->ps.p ? s->ps.p : "", s->ps.len);
        break;
      case 'W': {
        const char *nl = s->ps.p ? memchr(s->ps.p, '\n', s->ps.len) : NULL;
        sed_wwrite(s, c->wfile, s->ps.p ? s->ps.p : "",
                   nl ? (size_t)(nl - s->ps.p) : s->ps.len);
        break;
      }
      case 'z': buf_clear(&s->ps); break;
      case 'F':
        sed_nl(s);
        buf_printf(s->out, "%s\n", strcmp(s->fname, "-") ? s->fname : "-");
        break;
      case 'y': {
        size_t k;
        for (k = 0; k < s->ps.len; k++)
          s->ps.p[k] = (char)c->ymap[(unsigned char)s->ps.p[k]];
        break;
      }
      case 's':
        r = sed_subst(s, c);
        if (r < 0) return r;
        if (r) {
          s->tflag = 1;
          if (c->print)
            sed_emit(s, s->ps.p ? s->ps.p : "", s->ps.len, s->ps_chomped);
          if (c->wfile >= 0)
            sed_wwrite(s, c->wfile, s->ps.p ? s->ps.p : "", s->ps.len);
        }
        break;
      default: break;
      }
    }
  endcycle:
    if (autoprint && !restart)
      sed_emit(s, s->ps.p ? s->ps.p : "", s->ps.len, s->ps_chomped);
    if (restart && !s->quit) {
      /* D restarts the cycle without reading a new line. */
      s->tflag = 0;
      if ((++s->jumps & 1023) == 0 && (r = cmd_tick(s->c, 1)) != 0) return r;
      if (s->ps.err || s->out->err) return MSB_ENOMEM;
      goto again;
    }
    sed_flush_appends(s);
    if (s->ps.err || s->hs.err || s->out->err) return MSB_ENOMEM;
  }
  return 0;
}

/* Writes the w files (created even when never written). */
static int sed_wfiles_write(sed *s) {
  size_t i;
  for (i = 0; i < s->nwf; i++) {
    sed_wfile *w = &s->wf[i];
    const char *abs;
    int rc;
    if (w->special) continue;
    abs = cmd_path(s->c, w->name);
    rc = abs ? vfs_write(s->c->fs, abs, w->data.p ? w->data.p : "", w->data.len,
                         VFS_KEEP_MODE, CMD_NEWFILE(s->c), NULL)
             : MSB_ENOMEM;
    if (rc < 0) {
      cmd_err(s->c, "couldn't open file %s: %s", w->name, cmd_strerror(rc));
      return 4;
    }
  }
  return 0;
}

static void sed_cleanup(sed *s) {
  size_t i;
  for (i = 0; i < s->nrx; i++) rx_free(s->rxs[i]);
  for (i = 0; i < s->nwf; i++) buf_finish(&s->wf[i].data);
  buf_finish(&s->ps);
  buf_finish(&s->hs);
  buf_finish(&s->appq);
}

/* Edits one file in place (-i). 0 or a negative code. */
static int sed_inplace(sed *s, char *name) {
  buf out;
  sed_in in;
  const uint8_t *d;
  size_t len;
  int rc;
  char *names[1];
  const char *abs;
  rc = cmd_input(s->c, name, &d, &len);
  if (rc < 0) {
    if (rc == MSB_EISDIR)
      cmd_err(s->c, "couldn't edit %s: not a regular file", name);
    else
      cmd_err(s->c, "can't read %s: %s", name, cmd_strerror(rc));
    s->status = 2;
    return 0;
  }
  abs = cmd_path(s->c, name);
  if (!abs) return MSB_ENOMEM;
  if (s->suffix && *s->suffix) {
    buf bk;
    const char *star = strchr(s->suffix, '*');
    buf_init(&bk, s->c->m);
    if (star) {
      const char *base = cmd_base_name(s->c, name);
      const char *dir = strrchr(name, '/');
      const char *q;
      if (dir && !strchr(s->suffix, '/'))
        buf_put(&bk, name, (size_t)(dir - name) + 1);
      for (q = s->suffix; *q; q++)
        if (*q == '*')
          buf_puts(&bk, base);
        else
          buf_putc(&bk, *q);
    } else {
      buf_puts(&bk, name);
      buf_puts(&bk, s->suffix);
    }
    rc = bk.err;
    if (!rc) {
      const char *babs = cmd_path(s->c, buf_str(&bk));
      rc = babs ? vfs_write(s->c->fs, babs, d, len, 0, CMD_NEWFILE(s->c), NULL)
                : MSB_ENOMEM;
    }
    buf_finish(&bk);
    if (rc < 0) {
      cmd_err(s->c, "couldn't open file %s: %s", name, cmd_strerror(rc));
      s->status = 4;
      return 0;
    }
  }
  buf_init(&out, s->c->m);
  s->out = &out;
  s->missing = 0;
  names[0] = name;
  memset(&in, 0, sizeof in);
  in.names = names;
  in.n = 1;
  s->lineno = 0;
  rc = sed_run(s, &in);
  s->out = s->c->out;
  if (rc == 0 && out.err) rc = out.err;
  if (rc == 0) {
    rc = vfs_write(s->c->fs, abs, out.p ? out.p : "", out.len,
                   VFS_KEEP_MODE | VFS_REPLACE, CMD_NEWFILE(s->c), NULL);
    if (rc < 0) {
      cmd_err(s->c, "couldn't open temporary file %s: %s", name,
              cmd_strerror(rc));
      s->status = 4;
      rc = 0;
    }
  }
  buf_finish(&out);
  return rc;
}

/* GNU sed answers a bad option with its whole usage on stderr instead of
 * the "Try" line the shared parser printed after err[mark..). */
static void sed_usage_err(cmd_ctx *c, size_t mark) {
  buf *e = c->err;
  char *p = e->p ? e->p + mark : NULL;
  char *nl = p ? memchr(p, '\n', e->len - mark) : NULL;
  if (!nl) return;
  buf_truncate(e, (size_t)(nl + 1 - e->p));
  buf_puts(e, cold_get(sed_usage));
}

/* Entry point: see the usage above. */
int cmd_sed(cmd_ctx *c) {
  cmd_getopt g;
  sed s;
  buf script;
  int opt, rc, i, have = 0;
  size_t npieces = 0, piececap = 0, stop = 0;
  size_t *piece = NULL;
  const char **pname = NULL;
  char *dash[2] = {(char *)"-", NULL};
  char **ops;
  int nops;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.delim = '\n';
  s.lwidth = 70;
  s.hs_chomped = 1;
  buf_init(&script, c->m);
  buf_init(&s.ps, c->m);
  buf_init(&s.hs, c->m);
  buf_init(&s.appq, c->m);
  cmd_opt_init(&g, c, sed_opts, sed_usage, 0);
  for (;;) {
    const uint8_t *d = NULL;
    size_t len = 0;
    const char *pn = NULL;
    size_t mark = c->err->len;
    if ((opt = cmd_opt_next(&g)) == CMD_OPT_END) break;
    switch (opt) {
    case CMD_OPT_ERR:
      sed_usage_err(c, mark);
      /* fall through */
    case CMD_OPT_EXIT:
      buf_finish(&script);
      sed_cleanup(&s);
      return opt == CMD_OPT_EXIT ? 0 : 1;
    case 'n': s.quiet = 1; break;
    case 'e':
    case 'f':
      if (opt == 'e') {
        d = (const uint8_t *)g.arg;
        len = strlen(g.arg);
      } else {
        rc = cmd_input(c, g.arg, &d, &len);
        if (rc < 0) {
          cmd_err(c, "couldn't open file %s: %s", g.arg, cmd_strerror(rc));
          buf_finish(&script);
          sed_cleanup(&s);
          return 1;
        }
        if (len && d[len - 1] == '\n') len--;
        pn = g.arg;
      }
      if (npieces == piececap) {
        size_t nc = piececap ? piececap * 2 : 8;
        size_t *np = arena_alloc(c->a, nc * sizeof *np);
        const char **nn = arena_alloc(c->a, nc * sizeof *nn);
        if (!np || !nn) {
          buf_finish(&script);
          sed_cleanup(&s);
          return MSB_ENOMEM;
        }
        if (npieces) {
          memcpy(np, piece, npieces * sizeof *np);
          memcpy(nn, pname, npieces * sizeof *nn);
        }
        piece = np;
        pname = nn;
        piececap = nc;
      }
      if (have) buf_putc(&script, '\n');
      piece[npieces] = script.len;
      pname[npieces++] = pn;
      buf_put(&script, d, len);
      have = 1;
      break;
    case 'i':
      s.inplace = 1;
      s.separate = 1;
      s.suffix = g.arg;
      break;
    case 'l': {
      int64_t v;
      if (cmd_parse_int(g.arg, &v) || v < 0) {
        cmd_err(c, "invalid line length: %s", g.arg);
        buf_finish(&script);
        sed_cleanup(&s);
        return 1;
      }
      s.lwidth = v > 0x7fffffff ? 0x7fffffff : (long)v;
      break;
    }
    case SED_O_POSIX: s.posix = 1; break;
    case 'E': s.ere = 1; break;
    case 's': s.separate = 1; break;
    case 'z': s.delim = 0; break;
    case SED_O_SANDBOX: s.sandbox = 1; break;
    case SED_O_DEBUG:
      cmd_err(c, "--debug is not supported in memsandbox");
      buf_finish(&script);
      sed_cleanup(&s);
      return 1;
    case SED_O_FOLLOW:
    case SED_O_IGNORED: break;
    default:
      if (opt < 0) {
        buf_finish(&script);
        sed_cleanup(&s);
        return opt == CMD_OPT_ERR ? 1 : opt;
      }
      break;
    }
  }
  ops = g.ops;
  nops = g.nops;
  if (!have) {
    if (nops < 1) {
      buf_puts(c->err, cold_get(sed_usage));
      buf_finish(&script);
      sed_cleanup(&s);
      return 1;
    }
    piece = arena_alloc(c->a, sizeof *piece);
    pname = arena_alloc(c->a, sizeof *pname);
    if (!piece || !pname) {
      buf_finish(&script);
      sed_cleanup(&s);
      return MSB_ENOMEM;
    }
    piece[0] = 0;
    pname[0] = NULL;
    npieces = 1;
    buf_puts(&script, ops[0]);
    ops++;
    nops--;
  }
  if (script.err) {
    buf_finish(&script);
    sed_cleanup(&s);
    return MSB_ENOMEM;
  }
  s.sc = script.p ? script.p : "";
  s.slen = script.len;
  s.piece = piece;
  s.piecename = pname;
  s.npiece = npieces;
  if ((rc = sed_parse(&s)) != 0) {
    buf_finish(&script);
    sed_cleanup(&s);
    return s.status == 4 ? 4 : rc;
  }
  s.out = c->out;
  rc = 0;
  if (s.inplace) {
    if (nops == 0) {
      cmd_err(c, "no input files");
      buf_finish(&script);
      sed_cleanup(&s);
      return 1;
    }
    for (i = 0; i < nops && rc == 0 && !s.quit; i++)
      rc = sed_inplace(&s, ops[i]);
  } else {
    sed_in in;
    memset(&in, 0, sizeof in);
    in.names = nops ? ops : dash;
    in.n = nops ? nops : 1;
    if (s.separate) {
      while (rc == 0 && !s.quit && in.i < in.n) {
        in.open = 0;
        s.lineno = 0;
        if (!sed_in_next_file(&s, &in)) break;
        rc = sed_run(&s, &in);
      }
    } else {
      rc = sed_run(&s, &in);
    }
    if (in.d == c->in) stop = in.pos;
  }
  if (rc == 0) {
    int wr = sed_wfiles_write(&s);
    if (wr) s.status = wr;
  }
  /* q and Q stop reading (see cmd_ctx) */
  if (s.quit_cmd && !s.inplace) {
    c->in_eof = 0;
    c->in_stop = stop;
  }
  buf_finish(&script);
  sed_cleanup(&s);
  if (rc == MSB_EINVAL) return 1;
  if (rc < 0) return rc;
  if (s.exitcode) return s.exitcode;
  return s.status;
}
