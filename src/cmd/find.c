/* find.c - search for files in a directory hierarchy (GNU findutils).
 *
 * Usage: find [-H] [-L] [-P] [starting-point...] [expression]
 *
 * The expression is parsed into a tree (operators ( ) ! -not -a -and -o
 * -or , with GNU precedence) and evaluated for every entry of an iterative
 * walk (cmd_walk), so depth costs heap, not C stack. Supported:
 *   tests   -name -iname -path -ipath -wholename -iwholename -lname
 *           -ilname -regex -iregex -type -xtype -size -empty -newer -mtime
 *           -mmin -perm -user -group -uid -gid -nouser -nogroup -links
 *           -inum -samefile -readable -writable -executable -true -false
 *   actions -print -print0 -printf -ls -delete -exec ... ; / + -ok -prune
 *           -quit
 *   options -depth -d -maxdepth -mindepth -follow -regextype -daystart
 *           -xdev -mount -noleaf -warn -nowarn -ignore_readdir_race
 * Deviations: entries come in bytewise order (GNU uses readdir order);
 * every file is owned by "user" (uid/gid 1000); atime and ctime equal
 * mtime; -execdir, -okdir, -fprint*, -fls, -newerXY refuse loudly. The
 * "global option after argument" warning is not printed (GNU prints it
 * only when stdin is a terminal). -regex uses the emacs syntax by default,
 * translated to the shared engine's BRE. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../glob.h"
#include "../regex.h"
#include "cmd.h"

static const char find_usage[] MSB_COLD =
    "Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] "
    "[expression]\n"
    "\n"
    "default path is the current directory; default expression is -print\n"
    "expression may consist of: operators, options, tests, and actions:\n"
    "operators (decreasing precedence; -and is implicit where no others are "
    "given):\n"
    "      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and "
    "EXPR2\n"
    "      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2\n"
    "positional options (always true): -daystart -follow -regextype\n"
    "normal options (always true, specified before other expressions):\n"
    "      -depth --help -maxdepth LEVELS -mindepth LEVELS -mount -noleaf\n"
    "      --version -xdev -ignore_readdir_race -noignore_readdir_race\n"
    "tests (N can be +N or -N or N): -amin N -anewer FILE -atime N -cmin N\n"
    "      -cnewer FILE -ctime N -empty -false -gid N -group NAME\n"
    "      -ilname PATTERN -iname PATTERN -inum N -iwholename PATTERN\n"
    "      -iregex PATTERN -links N -lname PATTERN -mmin N -mtime N\n"
    "      -name PATTERN -newer FILE -nouser -nogroup -path PATTERN\n"
    "      -perm [-/]MODE -regex PATTERN -readable -writable -executable\n"
    "      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD] -uid N\n"
    "      -used N -user NAME -xtype [bcdpfls]\n"
    "actions: -delete -print0 -printf FORMAT -print -ls -prune -quit\n"
    "      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;\n";

enum {
  FN_AND,
  FN_OR,
  FN_NOT,
  FN_COMMA,
  FN_TRUE,
  FN_FALSE,
  FN_NAME,
  FN_PATH,
  FN_LNAME,
  FN_REGEX,
  FN_TYPE,
  FN_XTYPE,
  FN_SIZE,
  FN_EMPTY,
  FN_NEWER,
  FN_MTIME,
  FN_MMIN,
  FN_PERM,
  FN_USER,
  FN_NOUSER,
  FN_LINKS,
  FN_INUM,
  FN_READABLE,
  FN_WRITABLE,
  FN_EXECUTABLE,
  FN_PRINT,
  FN_PRINT0,
  FN_PRINTF,
  FN_LS,
  FN_DELETE,
  FN_EXEC,
  FN_OK,
  FN_PRUNE,
  FN_QUIT
};

typedef struct find_node {
  int kind;
  struct find_node *l, *r;
  const char *arg;   /* pattern, format, type letters */
  int icase;
  int cmp;           /* -1 less, 0 exact, 1 more (numeric tests) */
  int64_t num;       /* numeric argument (units applied) */
  uint64_t unit;     /* -size unit in bytes */
  uint32_t mode;     /* -perm */
  int permkind;      /* 0 exact, '-' all, '/' any */
  rx *re;
  char **argv;       /* -exec/-ok command, {} not yet substituted */
  int argc, plus;
  char **acc;        /* -exec + accumulated paths */
  size_t nacc, cacc, accbytes;
  struct find_node *rxnext; /* list of nodes holding a compiled regex */
} find_node;

typedef struct find_state {
  cmd_ctx *c;
  char **args;
  int nargs, pos;
  int expr0; /* index of the expression's first word */
  int follow; /* 0 -P, 1 -H, 2 -L */
  int depth_first, maxdepth, mindepth, daystart, regextype;
  int has_action, quit, status;
  int64_t now_ns;
  size_t in_pos;
  find_node *root;
  find_node **execs;
  size_t nexecs;
  int err; /* parse error already reported */
  int nest; /* parenthesis / ! nesting while parsing */
  find_node *rxhead;
  cmd_walk *w;
  cmd_walk_ent *e;
  const char *start; /* current starting point */
} find_state;

#define FIND_RT_EMACS 0
#define FIND_RT_BASIC 1
#define FIND_RT_EXT 2

/* ---- Parsing -------------------------------------------------------- */

static find_node *find_new(find_state *s, int kind) {
  find_node *n = arena_zalloc(s->c->a, sizeof *n);
  if (n)
    n->kind = kind;
  else
    s->err = MSB_ENOMEM;
  return n;
}

static int find_fail(find_state *s, const char *fmt, const char *a) {
  buf_printf(s->c->err, "find: ");
  buf_printf(s->c->err, fmt, a);
  buf_putc(s->c->err, '\n');
  s->err = 1;
  return 1;
}

static const char *find_need(find_state *s, const char *pred) {
  if (s->pos >= s->nargs) {
    find_fail(s, "missing argument to `%s'", pred);
    return 0;
  }
  return s->args[s->pos++];
}

/* Numeric argument with optional +/- prefix. */
static int find_numarg(find_state *s, const char *pred, const char *a,
                       find_node *n) {
  int64_t v;
  const char *p = a;
  n->cmp = 0;
  if (*p == '+') {
    n->cmp = 1;
    p++;
  } else if (*p == '-') {
    n->cmp = -1;
    p++;
  }
  if (*p < '0' || *p > '9' || cmd_parse_int(p, &v) < 0) {
    buf_printf(s->c->err, "find: invalid argument `%s' to `%s'\n", a, pred);
    s->err = 1;
    return -1;
  }
  n->num = v;
  return 0;
}

static int find_posint(find_state *s, const char *pred, const char *a,
                       int *out) {
  int64_t v;
  if (*a < '0' || *a > '9' || cmd_parse_int(a, &v) < 0 || v > 1000000) {
    buf_printf(s->c->err,
               "find: Expected a positive decimal integer argument to %s, "
               "but got %s\n",
               pred, cmd_quote(s->c, a));
    s->err = 1;
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* Translates emacs regex syntax to GNU BRE: unescaped + ? become \+ \?,
 * escaped \+ \? \{ \} become literal, brackets are copied verbatim. */
static char *find_emacs(find_state *s, const char *p, size_t *len) {
  size_t n = strlen(p), i, o = 0;
  char *r = arena_alloc(s->c->a, n * 2 + 1);
  if (!r) return 0;
  for (i = 0; i < n; i++) {
    char ch = p[i];
    if (ch == '[') {
      size_t j = i + 1;
      if (j < n && p[j] == '^') j++;
      if (j < n && p[j] == ']') j++;
      while (j < n && p[j] != ']') j++;
      if (j >= n) j = n - 1;
      memcpy(r + o, p + i, j - i + 1);
      o += j - i + 1;
      i = j;
    } else if (ch == '\\' && i + 1 < n) {
      char nx = p[++i];
      if (nx == '+' || nx == '?' || nx == '{' || nx == '}') {
        r[o++] = nx;
      } else {
        r[o++] = '\\';
        r[o++] = nx;
      }
    } else if (ch == '+' || ch == '?') {
      r[o++] = '\\';
      r[o++] = ch;
    } else if (ch == '{' || ch == '}') {
      r[o++] = ch;
    } else {
      r[o++] = ch;
    }
  }
  r[o] = 0;
  *len = o;
  return r;
}

static int find_regex(find_state *s, find_node *n, const char *pat) {
  unsigned fl = n->icase ? RX_ICASE : 0;
  const char *p = pat;
  size_t len = strlen(pat);
  buf msg;
  int rc;
  if (s->regextype == FIND_RT_EMACS) {
    p = find_emacs(s, pat, &len);
    if (!p) return MSB_ENOMEM;
    fl |= RX_BRE;
  } else {
    fl |= s->regextype == FIND_RT_EXT ? RX_ERE : RX_BRE;
  }
  buf_init(&msg, s->c->m);
  rc = rx_compile(s->c->m, p, len, fl, &n->re, &msg);
  if (rc == 0) {
    n->rxnext = s->rxhead;
    s->rxhead = n;
  }
  if (rc == MSB_EINVAL) {
    buf_printf(s->c->err, "find: %s\n", buf_str(&msg));
    s->err = 1;
  } else if (rc < 0) {
    s->err = rc;
  }
  buf_finish(&msg);
  return rc;
}

static int find_is_action(int k) {
  return k == FN_PRINT || k == FN_PRINT0 || k == FN_PRINTF || k == FN_LS ||
         k == FN_DELETE || k == FN_EXEC || k == FN_OK || k == FN_QUIT;
}

static find_node *find_parse_or(find_state *s);

static int find_add_exec(find_state *s, find_node *n) {
  find_node **ne;
  ne = arena_alloc(s->c->a, (s->nexecs + 1) * sizeof *ne);
  if (!ne) return MSB_ENOMEM;
  if (s->nexecs) memcpy(ne, s->execs, s->nexecs * sizeof *ne);
  ne[s->nexecs++] = n;
  s->execs = ne;
  return 0;
}

static find_node *find_primary(find_state *s) {
  const char *a, *v;
  find_node *n;
  cmd_ctx *c = s->c;
  if (s->pos >= s->nargs) return 0;
  a = s->args[s->pos++];
  if (!strcmp(a, "(")) {
    if (s->pos >= s->nargs) {
      find_fail(s,
                "invalid expression; expected to find a ')' but didn't see "
                "one. Perhaps you need an extra predicate after '('%s",
                "");
      return 0;
    }
    if (++s->nest > 200) {
      find_fail(s, "expression nested too deeply%s", "");
      return 0;
    }
    n = find_parse_or(s);
    s->nest--;
    if (s->err) return 0;
    if (!n) {
      find_fail(s,
                "invalid expression; empty parentheses are not "
                "allowed.%s",
                "");
      return 0;
    }
    if (s->pos >= s->nargs || strcmp(s->args[s->pos], ")")) {
      find_fail(s,
                "invalid expression; I was expecting to find a ')' "
                "somewhere but did not see one.%s",
                "");
      return 0;
    }
    s->pos++;
    return n;
  }
  if (!strcmp(a, "!") || !strcmp(a, "-not")) {
    find_node *x;
    /* GNU's wording depends on where the operand is missing. */
    if (s->pos >= s->nargs) {
      const char *pv = s->pos - 2 >= s->expr0 ? s->args[s->pos - 2] : "(";
      if (!strcmp(pv, "(") || !strcmp(pv, "!") || !strcmp(pv, "-not") ||
          !strcmp(pv, ","))
        find_fail(s, "expected an expression after '%s'", a);
      else
        find_fail(s, "invalid expression%s", "");
      return 0;
    }
    if (!strcmp(s->args[s->pos], ")")) {
      find_fail(s, "expected an expression between '%s' and ')'", a);
      return 0;
    }
    if (++s->nest > 200) {
      find_fail(s, "expression nested too deeply%s", "");
      return 0;
    }
    x = find_primary(s);
    s->nest--;
    if (!x) {
      if (!s->err)
        find_fail(s,
                  "invalid expression; you have used a binary operator "
                  "'%s' with nothing after it.",
                  a);
      return 0;
    }
    n = find_new(s, FN_NOT);
    if (n) n->l = x;
    return n;
  }
  if (!strcmp(a, "-o") || !strcmp(a, "-or") || !strcmp(a, "-a") ||
      !strcmp(a, "-and") || !strcmp(a, ",")) {
    find_fail(s,
              "invalid expression; you have used a binary operator '%s' "
              "with nothing before it.",
              a);
    return 0;
  }
  if (!strcmp(a, ")")) {
    find_fail(s, "invalid expression; you have too many ')'%s", "");
    return 0;
  }
  if (a[0] != '-') {
    find_fail(s, "paths must precede expression: `%s'", a);
    return 0;
  }
  /* Options: always true. */
  if (!strcmp(a, "-depth") || !strcmp(a, "-d")) {
    s->depth_first = 1;
    return find_new(s, FN_TRUE);
  }
  if (!strcmp(a, "-maxdepth") || !strcmp(a, "-mindepth")) {
    if (!(v = find_need(s, a))) return 0;
    if (find_posint(s, a, v, a[2] == 'a' ? &s->maxdepth : &s->mindepth) < 0)
      return 0;
    return find_new(s, FN_TRUE);
  }
  if (!strcmp(a, "-follow")) {
    s->follow = 2;
    return find_new(s, FN_TRUE);
  }
  if (!strcmp(a, "-daystart")) {
    s->daystart = 1;
    return find_new(s, FN_TRUE);
  }
  if (!strcmp(a, "-xdev") || !strcmp(a, "-mount") || !strcmp(a, "-noleaf") ||
      !strcmp(a, "-warn") || !strcmp(a, "-nowarn") ||
      !strcmp(a, "-ignore_readdir_race") ||
      !strcmp(a, "-noignore_readdir_race"))
    return find_new(s, FN_TRUE);
  if (!strcmp(a, "-regextype")) {
    if (!(v = find_need(s, a))) return 0;
    if (!strcmp(v, "emacs") || !strcmp(v, "findutils-default"))
      s->regextype = FIND_RT_EMACS;
    else if (!strcmp(v, "posix-basic") || !strcmp(v, "grep") ||
             !strcmp(v, "sed") || !strcmp(v, "ed") ||
             !strcmp(v, "posix-minimal-basic"))
      s->regextype = FIND_RT_BASIC;
    else if (!strcmp(v, "posix-extended") || !strcmp(v, "egrep") ||
             !strcmp(v, "posix-egrep") || !strcmp(v, "awk") ||
             !strcmp(v, "posix-awk") || !strcmp(v, "gnu-awk"))
      s->regextype = FIND_RT_EXT;
    else {
      find_fail(s,
                "Unknown regular expression type %s; valid types are "
                "'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', "
                "'posix-awk', 'awk', 'posix-basic', 'posix-egrep', "
                "'egrep', 'posix-extended', 'posix-minimal-basic', "
                "'sed'.",
                cmd_quote(c, v));
      return 0;
    }
    return find_new(s, FN_TRUE);
  }
  if (!strcmp(a, "-true")) return find_new(s, FN_TRUE);
  if (!strcmp(a, "-false")) return find_new(s, FN_FALSE);
  if (!strcmp(a, "-name") || !strcmp(a, "-iname") || !strcmp(a, "-path") ||
      !strcmp(a, "-ipath") || !strcmp(a, "-wholename") ||
      !strcmp(a, "-iwholename") || !strcmp(a, "-lname") ||
      !strcmp(a, "-ilname")) {
    if (!(v = find_need(s, a))) return 0;
    n = find_new(s, !strcmp(a + 1 + (a[1] == 'i'), "name")    ? FN_NAME
                    : !strcmp(a + 1 + (a[1] == 'i'), "lname") ? FN_LNAME
                                                              : FN_PATH);
    if (!n) return 0;
    n->arg = v;
    n->icase = a[1] == 'i';
    return n;
  }
  if (!strcmp(a, "-regex") || !strcmp(a, "-iregex")) {
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, FN_REGEX))) return 0;
    n->icase = a[1] == 'i';
    n->arg = v;
    return n; /* compiled after parsing: -regextype is positional-ish */
  }
  if (!strcmp(a, "-type") || !strcmp(a, "-xtype")) {
    size_t i;
    if (!(v = find_need(s, a))) return 0;
    for (i = 0; v[i]; i++) {
      if (!strchr("fdlbcpsD", v[i]) || (i % 2 && v[i] != ',') ||
          (!(i % 2) && v[i] == ',')) {
        if (strchr("bcpsD", v[i])) continue;
        if (v[i] == ',' && i % 2) continue;
        find_fail(s, "Unknown argument to %s", a);
        buf_truncate(c->err, c->err->len - 1);
        buf_printf(c->err, ": %c\n", v[i]);
        return 0;
      }
    }
    if (!v[0] || v[strlen(v) - 1] == ',') {
      find_fail(s, "Unknown argument to %s", a);
      buf_truncate(c->err, c->err->len - 1);
      buf_puts(c->err, ": \n");
      return 0;
    }
    if (!(n = find_new(s, a[1] == 'x' ? FN_XTYPE : FN_TYPE))) return 0;
    n->arg = v;
    return n;
  }
  if (!strcmp(a, "-size")) {
    const char *p;
    size_t l;
    char num[32];
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, FN_SIZE))) return 0;
    l = strlen(v);
    n->unit = 512;
    p = v + l;
    if (!l) {
      find_fail(s, "invalid null argument to %s", a);
      return 0;
    }
    if ((v[l - 1] < '0' || v[l - 1] > '9') && !strchr("bcwkMG", v[l - 1])) {
      buf_printf(c->err, "find: invalid -size type `%c'\n", v[l - 1]);
      s->err = 1;
      return 0;
    }
    if (l && strchr("bcwkMG", v[l - 1])) {
      switch (v[l - 1]) {
      case 'c': n->unit = 1; break;
      case 'w': n->unit = 2; break;
      case 'k': n->unit = 1024; break;
      case 'M': n->unit = 1048576; break;
      case 'G': n->unit = 1073741824; break;
      default: n->unit = 512; break;
      }
      p = v + l - 1;
    }
    if ((size_t)(p - v) >= sizeof num) {
      find_fail(s, "Invalid argument `%s' to -size", v);
      return 0;
    }
    memcpy(num, v, (size_t)(p - v));
    num[p - v] = 0;
    l = c->err->len;
    if (find_numarg(s, a, num, n) < 0) {
      buf_truncate(c->err, l);
      find_fail(s, "Invalid argument `%s' to -size", v);
      return 0;
    }
    return n;
  }
  if (!strcmp(a, "-empty")) return find_new(s, FN_EMPTY);
  if (!strcmp(a, "-newer")) {
    struct vfs_stat st;
    const char *abs;
    if (!(v = find_need(s, a))) return 0;
    abs = cmd_path(c, v);
    if (!abs) {
      s->err = MSB_ENOMEM;
      return 0;
    }
    if (vfs_stat(c->fs, abs, s->follow > 0, &st) < 0) {
      find_fail(s, "%s: No such file or directory", cmd_quote(c, v));
      return 0;
    }
    if (!(n = find_new(s, FN_NEWER))) return 0;
    n->num = st.mtime_ns;
    return n;
  }
  if (!strcmp(a, "-mtime") || !strcmp(a, "-mmin") || !strcmp(a, "-atime") ||
      !strcmp(a, "-amin") || !strcmp(a, "-ctime") || !strcmp(a, "-cmin")) {
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, a[3] == 'i' ? FN_MMIN : FN_MTIME))) return 0;
    if (find_numarg(s, a, v, n) < 0) return 0;
    return n;
  }
  if (!strcmp(a, "-links") || !strcmp(a, "-inum") || !strcmp(a, "-uid") ||
      !strcmp(a, "-gid")) {
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, a[1] == 'l'   ? FN_LINKS
                          : a[1] == 'i' ? FN_INUM
                                        : FN_USER)))
      return 0;
    if (find_numarg(s, a, v, n) < 0) return 0;
    if (n->kind == FN_USER) n->arg = "#";
    return n;
  }
  if (!strcmp(a, "-user") || !strcmp(a, "-group")) {
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, FN_USER))) return 0;
    n->cmp = 0;
    if (!strcmp(v, "user") || !strcmp(v, "1000")) {
      n->num = 1000;
    } else if (!strcmp(v, "root") || !strcmp(v, "0")) {
      n->num = 0;
    } else {
      find_fail(s,
                a[1] == 'u' ? "%s is not the name of a known user"
                            : "%s is not the name of an existing group",
                cmd_quote(c, v));
      return 0;
    }
    return n;
  }
  if (!strcmp(a, "-nouser") || !strcmp(a, "-nogroup"))
    return find_new(s, FN_NOUSER);
  if (!strcmp(a, "-perm")) {
    const char *m;
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, FN_PERM))) return 0;
    m = v;
    if (*m == '-' || *m == '/') n->permkind = *m++;
    if (cmd_parse_mode(m, 0, 0, 0, &n->mode) < 0) {
      find_fail(s, "invalid mode %s", cmd_quote(c, v));
      return 0;
    }
    return n;
  }
  if (!strcmp(a, "-samefile")) {
    struct vfs_stat st;
    const char *abs;
    if (!(v = find_need(s, a))) return 0;
    abs = cmd_path(c, v);
    if (!abs || vfs_stat(c->fs, abs, 0, &st) < 0) {
      find_fail(s, "%s: No such file or directory", cmd_quote(c, v));
      return 0;
    }
    if (!(n = find_new(s, FN_INUM))) return 0;
    n->num = (int64_t)st.ino;
    return n;
  }
  if (!strcmp(a, "-readable")) return find_new(s, FN_READABLE);
  if (!strcmp(a, "-writable")) return find_new(s, FN_WRITABLE);
  if (!strcmp(a, "-executable")) return find_new(s, FN_EXECUTABLE);
  if (!strcmp(a, "-print")) return find_new(s, FN_PRINT);
  if (!strcmp(a, "-print0")) return find_new(s, FN_PRINT0);
  if (!strcmp(a, "-ls")) return find_new(s, FN_LS);
  if (!strcmp(a, "-printf")) {
    if (!(v = find_need(s, a))) return 0;
    if (!(n = find_new(s, FN_PRINTF))) return 0;
    n->arg = v;
    return n;
  }
  if (!strcmp(a, "-delete")) {
    s->depth_first = 1;
    return find_new(s, FN_DELETE);
  }
  if (!strcmp(a, "-prune")) return find_new(s, FN_PRUNE);
  if (!strcmp(a, "-quit")) return find_new(s, FN_QUIT);
  if (!strcmp(a, "-exec") || !strcmp(a, "-ok")) {
    int start = s->pos, end;
    if (!(n = find_new(s, a[1] == 'e' ? FN_EXEC : FN_OK))) return 0;
    for (end = start; end < s->nargs; end++) {
      if (!strcmp(s->args[end], ";")) break;
      if (n->kind == FN_EXEC && !strcmp(s->args[end], "+") && end > start &&
          !strcmp(s->args[end - 1], "{}")) {
        n->plus = 1;
        break;
      }
    }
    if (end >= s->nargs || end == start) {
      find_fail(s, "missing argument to `%s'", a);
      return 0;
    }
    n->argc = end - start;
    n->argv = s->args + start;
    s->pos = end + 1;
    if (n->plus && find_add_exec(s, n) < 0) {
      s->err = MSB_ENOMEM;
      return 0;
    }
    return n;
  }
  if (!strcmp(a, "-execdir") || !strcmp(a, "-okdir") || !strcmp(a, "-fprint") ||
      !strcmp(a, "-fprint0") || !strcmp(a, "-fprintf") || !strcmp(a, "-fls") ||
      !strncmp(a, "-newer", 6) || !strcmp(a, "-anewer") ||
      !strcmp(a, "-cnewer") || !strcmp(a, "-used") || !strcmp(a, "-context") ||
      !strcmp(a, "-fstype")) {
    find_fail(s, "%s is not supported in this sandbox", a);
    return 0;
  }
  find_fail(s, "unknown predicate `%s'", a);
  return 0;
}

static find_node *find_bin(find_state *s, int kind, find_node *l,
                           find_node *r) {
  find_node *n = find_new(s, kind);
  if (!n) return 0;
  n->l = l;
  n->r = r;
  return n;
}

static int find_at_end(find_state *s) {
  const char *a;
  if (s->pos >= s->nargs) return 1;
  a = s->args[s->pos];
  return !strcmp(a, ")") || !strcmp(a, "-o") || !strcmp(a, "-or") ||
         !strcmp(a, ",");
}

/* Chains are built right-deep (a AND (b AND c)) so evaluation can loop
 * over the right spine instead of recursing. */
static find_node *find_parse_and(find_state *s) {
  find_node *l = find_primary(s), *r, *last = 0;
  if (!l) return 0;
  while (!find_at_end(s)) {
    const char *a = s->args[s->pos];
    if (!strcmp(a, "-a") || !strcmp(a, "-and")) {
      s->pos++;
      if (s->pos >= s->nargs) {
        find_fail(s, "invalid expression%s", "");
        return 0;
      }
      if (!strcmp(s->args[s->pos], ")")) {
        find_fail(s, "expected an expression between '%s' and ')'", a);
        return 0;
      }
      if (find_at_end(s)) {
        find_fail(s,
                  "invalid expression; you have used a binary operator "
                  "'%s' with nothing after it.",
                  a);
        return 0;
      }
    }
    r = find_primary(s);
    if (!r) return 0;
    if (!last) {
      if (!(l = last = find_bin(s, FN_AND, l, r))) return 0;
    } else {
      find_node *x = find_bin(s, FN_AND, last->r, r);
      if (!x) return 0;
      last->r = x;
      last = x;
    }
  }
  return l;
}

static find_node *find_parse_orx(find_state *s) {
  find_node *l = find_parse_and(s), *r, *last = 0;
  if (!l) return 0;
  while (s->pos < s->nargs &&
         (!strcmp(s->args[s->pos], "-o") || !strcmp(s->args[s->pos], "-or"))) {
    const char *a = s->args[s->pos++];
    if (s->pos >= s->nargs) {
      find_fail(s, "invalid expression%s", "");
      return 0;
    }
    if (!strcmp(s->args[s->pos], ")")) {
      find_fail(s, "expected an expression between '%s' and ')'", a);
      return 0;
    }
    r = find_parse_and(s);
    if (!r) return 0;
    if (!last) {
      if (!(l = last = find_bin(s, FN_OR, l, r))) return 0;
    } else {
      find_node *x = find_bin(s, FN_OR, last->r, r);
      if (!x) return 0;
      last->r = x;
      last = x;
    }
  }
  return l;
}

static find_node *find_parse_or(find_state *s) {
  find_node *l, *r, *last = 0;
  if (s->pos < s->nargs && !strcmp(s->args[s->pos], ")")) return 0;
  l = find_parse_orx(s);
  if (!l) return 0;
  while (s->pos < s->nargs && !strcmp(s->args[s->pos], ",")) {
    s->pos++;
    if (s->pos >= s->nargs) {
      find_fail(s, "invalid expression%s", "");
      return 0;
    }
    if (!strcmp(s->args[s->pos], ")")) {
      find_fail(s, "expected an expression between ',' and ')'%s", "");
      return 0;
    }
    r = find_parse_orx(s);
    if (!r) {
      if (!s->err)
        find_fail(s,
                  "invalid expression; you have used a binary operator "
                  "',' with nothing after it.%s",
                  "");
      return 0;
    }
    if (!last) {
      if (!(l = last = find_bin(s, FN_COMMA, l, r))) return 0;
    } else {
      find_node *x = find_bin(s, FN_COMMA, last->r, r);
      if (!x) return 0;
      last->r = x;
      last = x;
    }
  }
  return l;
}

/* Walks the tree: marks whether an action exists, compiles regexes. */
static int find_prepare(find_state *s, find_node *root) {
  find_node **st;
  size_t n = 0, cap = 64;
  st = arena_alloc(s->c->a, cap * sizeof *st);
  if (!st) return MSB_ENOMEM;
  st[n++] = root;
  while (n) {
    find_node *x = st[--n];
    if (!x) continue;
    if (find_is_action(x->kind)) s->has_action = 1;
    if (x->kind == FN_REGEX && !x->re) {
      int rc = find_regex(s, x, x->arg);
      if (rc < 0) return rc;
    }
    if (n + 2 > cap) {
      find_node **ns = arena_alloc(s->c->a, cap * 2 * sizeof *ns);
      if (!ns) return MSB_ENOMEM;
      memcpy(ns, st, n * sizeof *ns);
      st = ns;
      cap *= 2;
    }
    st[n++] = x->l;
    st[n++] = x->r;
  }
  return 0;
}

/* ---- Evaluation ------------------------------------------------------ */

static int find_kind_letter(int kind, uint32_t mode) {
  return kind == VFS_DIR    ? 'd'
         : kind == VFS_LINK ? 'l'
         : mode & VFS_CHR   ? 'c' /* /dev/null */
                            : 'f';
}

static int find_cmp(const find_node *n, int64_t v) {
  if (n->cmp > 0) return v > n->num;
  if (n->cmp < 0) return v < n->num;
  return v == n->num;
}

static void find_free_regexes(find_state *s) {
  find_node *n;
  for (n = s->rxhead; n; n = n->rxnext) {
    rx_free(n->re);
    n->re = 0;
  }
  s->rxhead = 0;
}

static const char *find_dirpart(find_state *s, const char *path, size_t *len) {
  const char *sl = strrchr(path, '/');
  (void)s;
  if (!sl) {
    *len = 1;
    return ".";
  }
  if (sl == path) {
    *len = path[1] ? 1 : 0;
    return "/";
  }
  *len = (size_t)(sl - path);
  return path;
}

static void find_time(buf *o, int64_t ns, int k) {
  static const char *days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *ldays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                "Thursday", "Friday", "Saturday"};
  static const char *mons[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  static const char *lmons[] = {
      "January", "February", "March",     "April",   "May",      "June",
      "July",    "August",   "September", "October", "November", "December"};
  int64_t sec = cmd_ns_to_s(ns);
  long long frac = (long long)(ns - sec * 1000000000);
  cmd_tm tm;
  cmd_gmtime(sec, &tm);
  switch (k) {
  case 0: /* %t */
    buf_printf(o, "%s %s %2d %02d:%02d:%02d.%09lld0 %lld", days[tm.wday],
               mons[tm.mon - 1], tm.mday, tm.hour, tm.min, tm.sec, frac,
               (long long)tm.year);
    break;
  case '@': buf_printf(o, "%lld.%09lld0", (long long)sec, frac); break;
  case 'a': buf_puts(o, days[tm.wday]); break;
  case 'A': buf_puts(o, ldays[tm.wday]); break;
  case 'b':
  case 'h': buf_puts(o, mons[tm.mon - 1]); break;
  case 'B': buf_puts(o, lmons[tm.mon - 1]); break;
  case 'c':
    buf_printf(o, "%s %s %2d %02d:%02d:%02d %lld", days[tm.wday],
               mons[tm.mon - 1], tm.mday, tm.hour, tm.min, tm.sec,
               (long long)tm.year);
    break;
  case 'd': buf_printf(o, "%02d", tm.mday); break;
  case 'D':
    buf_printf(o, "%02d/%02d/%02d", tm.mon, tm.mday, (int)(tm.year % 100));
    break;
  case 'F':
    buf_printf(o, "%04lld-%02d-%02d", (long long)tm.year, tm.mon, tm.mday);
    break;
  case 'H': buf_printf(o, "%02d", tm.hour); break;
  case 'I': buf_printf(o, "%02d", (tm.hour + 11) % 12 + 1); break;
  case 'j': buf_printf(o, "%03d", tm.yday + 1); break;
  case 'k': buf_printf(o, "%2d", tm.hour); break;
  case 'l': buf_printf(o, "%2d", (tm.hour + 11) % 12 + 1); break;
  case 'm': buf_printf(o, "%02d", tm.mon); break;
  case 'M': buf_printf(o, "%02d", tm.min); break;
  case 'p': buf_puts(o, tm.hour < 12 ? "AM" : "PM"); break;
  case 'r':
    buf_printf(o, "%02d:%02d:%02d %s", (tm.hour + 11) % 12 + 1, tm.min, tm.sec,
               tm.hour < 12 ? "AM" : "PM");
    break;
  case 's': buf_printf(o, "%lld", (long long)sec); break;
  case 'S': buf_printf(o, "%02d.%09lld0", tm.sec, frac); break;
  case 'T':
  case 'X':
    buf_printf(o, "%02d:%02d:%02d.%09lld0", tm.hour, tm.min, tm.sec, frac);
    break;
  case '+':
    buf_printf(o, "%04lld-%02d-%02d+%02d:%02d:%02d.%09lld0", (long long)tm.year,
               tm.mon, tm.mday, tm.hour, tm.min, tm.sec, frac);
    break;
  case 'u': buf_printf(o, "%d", tm.wday ? tm.wday : 7); break;
  case 'w': buf_printf(o, "%d", tm.wday); break;
  case 'y': buf_printf(o, "%02d", (int)(tm.year % 100)); break;
  case 'Y': buf_printf(o, "%lld", (long long)tm.year); break;
  case 'Z': buf_puts(o, "UTC"); break;
  case 'z': buf_puts(o, "+0000"); break;
  default: { /* the rest as strftime has them (%Tx, %TV, %TG ...) */
    char f[3] = {'%', (char)k, 0};
    if (strchr("xVgGUWCeRntE", k))
      cmd_strftime(o, f, ns);
    else if (k == 'E' || k == 'Q')
      buf_puts(o, f);
    break;
  }
  }
}

/* Validates a -printf format once (warnings as GNU prints them). */
static void find_check_format(find_state *s, const char *f) {
  const char *p;
  for (p = f; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      if (!strchr("abcfnrtv\\0123456789", *p))
        buf_printf(s->c->err, "find: warning: unrecognized escape `\\%c'\n",
                   *p);
    } else if (*p == '%' && p[1]) {
      p++;
      while (*p && strchr("-+ #0", *p)) p++;
      while (*p >= '0' && *p <= '9') p++;
      if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++;
      }
      if (!*p) break;
      if (strchr("AaCcTt", *p)) {
        if (*p != 'a' && *p != 'c' && *p != 't' && p[1]) p++;
        continue;
      }
      if (!strchr("%bdDfFgGhHiklmMnpPsSuUyY", *p))
        buf_printf(s->c->err,
                   "find: warning: unrecognized format directive `%%%c'\n", *p);
    }
  }
}

static int find_printf(find_state *s, const char *f, cmd_walk_ent *e) {
  cmd_ctx *c = s->c;
  buf *o = c->out;
  buf tmp;
  const char *p;
  buf_init(&tmp, c->m);
  for (p = f; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      switch (*p) {
      case 'a': buf_putc(o, '\a'); break;
      case 'b': buf_putc(o, '\b'); break;
      case 'c': buf_finish(&tmp); return 1;
      case 'f': buf_putc(o, '\f'); break;
      case 'n': buf_putc(o, '\n'); break;
      case 'r': buf_putc(o, '\r'); break;
      case 't': buf_putc(o, '\t'); break;
      case 'v': buf_putc(o, '\v'); break;
      case '\\': buf_putc(o, '\\'); break;
      default:
        if (*p >= '0' && *p <= '7') {
          int v = 0, k;
          for (k = 0; k < 3 && *p >= '0' && *p <= '7'; k++, p++)
            v = v * 8 + (*p - '0');
          p--;
          buf_putc(o, v & 255);
        } else {
          buf_putc(o, '\\');
          buf_putc(o, *p);
        }
      }
      continue;
    }
    if (*p != '%' || !p[1]) {
      buf_putc(o, *p);
      continue;
    }
    {
      const char *spec = ++p;
      size_t slen;
      char d;
      char num[64];
      const struct vfs_stat *st = &e->st;
      while (*p && strchr("-+ #0", *p)) p++;
      while (*p >= '0' && *p <= '9') p++;
      if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++;
      }
      slen = (size_t)(p - spec);
      d = *p;
      if (!d) break;
      buf_clear(&tmp);
      switch (d) {
      case '%': buf_putc(&tmp, '%'); break;
      case 'p': buf_puts(&tmp, e->path); break;
      case 'f': {
        const char *b = cmd_base_name(c, e->path);
        buf_puts(&tmp, b ? b : "");
        break;
      }
      case 'h': {
        size_t l;
        const char *dp = find_dirpart(s, e->path, &l);
        buf_put(&tmp, dp, l);
        break;
      }
      case 'H': buf_puts(&tmp, s->start); break;
      case 'P': {
        const char *r = e->path + strlen(s->start);
        if (e->depth > 0) {
          while (*r == '/') r++;
          buf_puts(&tmp, r);
        }
        break;
      }
      case 's':
        snprintf(num, sizeof num, "%llu", (unsigned long long)cmd_size(st));
        buf_puts(&tmp, num);
        break;
      case 'd': buf_printf(&tmp, "%d", e->depth); break;
      case 'm': buf_printf(&tmp, "%o", (unsigned)(st->mode & 07777)); break;
      case 'M': {
        char m[11];
        cmd_mode_str(st->kind, st->mode, m);
        buf_puts(&tmp, m);
        break;
      }
      case 'y': buf_putc(&tmp, find_kind_letter(st->kind, st->mode)); break;
      case 'Y': {
        struct vfs_stat t;
        if (st->kind != VFS_LINK)
          buf_putc(&tmp, find_kind_letter(st->kind, st->mode));
        else if (vfs_stat(c->fs, e->abs, 1, &t) == 0)
          buf_putc(&tmp, find_kind_letter(t.kind, t.mode));
        else
          buf_putc(&tmp, 'N');
        break;
      }
      case 'l':
        if (st->kind == VFS_LINK) vfs_readlink(c->fs, e->abs, &tmp);
        break;
      case 'u':
      case 'g': buf_puts(&tmp, "user"); break;
      case 'U':
      case 'G': buf_puts(&tmp, "1000"); break;
      case 'i': buf_printf(&tmp, "%llu", (unsigned long long)st->ino); break;
      case 'n': buf_printf(&tmp, "%lu", (unsigned long)st->nlink); break;
      case 'k':
        buf_printf(&tmp, "%llu", (unsigned long long)(cmd_blocks(st) / 2));
        break;
      case 'b':
        buf_printf(&tmp, "%llu", (unsigned long long)cmd_blocks(st));
        break;
      case 'D': buf_puts(&tmp, "2049"); break;
      case 'F': buf_puts(&tmp, "memsandbox"); break;
      case 'S': /* sparseness: allocated bytes over size */
        if (!cmd_size(st))
          buf_puts(&tmp, "1");
        else
          buf_printf(&tmp, "%g",
                     (double)cmd_blocks(st) * 512.0 / (double)cmd_size(st));
        break;
      case 'a':
      case 'c':
      case 't': find_time(&tmp, st->mtime_ns, 0); break;
      case 'A':
      case 'C':
      case 'T':
        if (p[1]) {
          p++;
          find_time(&tmp, st->mtime_ns, *p);
        }
        break;
      default:
        buf_putc(&tmp, '%');
        buf_putc(&tmp, d);
        break;
      }
      cmd_pad(o, spec, slen, buf_str(&tmp), tmp.len, 0);
    }
  }
  buf_finish(&tmp);
  return 1;
}

static int find_ls(find_state *s, cmd_walk_ent *e) {
  cmd_ctx *c = s->c;
  char mode[11], t[32];
  int64_t now = s->now_ns;
  buf *o = c->out;
  cmd_mode_str(e->st.kind, e->st.mode, mode);
  cmd_time_ls(e->st.mtime_ns, now, t);
  buf_printf(o, "%9llu %6llu %s %3lu %-8s %-8s %8llu %s %s",
             (unsigned long long)e->st.ino,
             (unsigned long long)(cmd_blocks(&e->st) / 2), mode,
             (unsigned long)e->st.nlink, "user", "user",
             (unsigned long long)cmd_size(&e->st), t, e->path);
  if (e->st.kind == VFS_LINK) {
    buf_puts(o, " -> ");
    vfs_readlink(c->fs, e->abs, o);
  }
  buf_putc(o, '\n');
  return 1;
}

/* Replaces every "{}" in a with path (GNU does this inside words too). */
static char *find_subst(find_state *s, const char *a, const char *path) {
  buf b;
  const char *p = a, *q;
  char *r;
  if (!strstr(a, "{}")) return (char *)a;
  buf_init(&b, s->c->m);
  while ((q = strstr(p, "{}")) != 0) {
    buf_put(&b, p, (size_t)(q - p));
    buf_puts(&b, path);
    p = q + 2;
  }
  buf_puts(&b, p);
  r = b.err ? 0 : arena_strndup(s->c->a, buf_str(&b), b.len);
  buf_finish(&b);
  return r;
}

static int find_run(find_state *s, int argc, char **argv) {
  cmd_ctx *c = s->c;
  if (!c->run) {
    cmd_err(c, "cannot run %s: no command runner", argv[0]);
    return 127;
  }
  return c->run(c, argc, argv, 0, 0, c->out, c->err);
}

static int find_flush(find_state *s, find_node *n) {
  char **argv;
  int i, rc;
  size_t k;
  if (!n->nacc) return 0;
  argv = arena_alloc(s->c->a, ((size_t)n->argc + n->nacc + 1) * sizeof *argv);
  if (!argv) return MSB_ENOMEM;
  for (i = 0; i < n->argc - 1; i++) argv[i] = n->argv[i];
  for (k = 0; k < n->nacc; k++) argv[i++] = n->acc[k];
  argv[i] = 0;
  rc = find_run(s, i, argv);
  n->nacc = 0;
  n->accbytes = 0;
  if (rc < 0) return rc;
  if (rc) s->status = 1;
  return 0;
}

static int find_exec(find_state *s, find_node *n, cmd_walk_ent *e) {
  char **argv;
  int i, rc;
  if (n->plus) {
    char *p;
    if (n->nacc == n->cacc) {
      size_t nc = n->cacc ? n->cacc * 2 : 64;
      char **na = arena_alloc(s->c->a, nc * sizeof *na);
      if (!na) return MSB_ENOMEM;
      if (n->nacc) memcpy(na, n->acc, n->nacc * sizeof *na);
      n->acc = na;
      n->cacc = nc;
    }
    p = arena_strdup(s->c->a, e->path);
    if (!p) return MSB_ENOMEM;
    n->acc[n->nacc++] = p;
    n->accbytes += strlen(p) + 1;
    if (n->accbytes > 128 * 1024 && (rc = find_flush(s, n)) < 0) return rc;
    return 1;
  }
  argv = arena_alloc(s->c->a, ((size_t)n->argc + 1) * sizeof *argv);
  if (!argv) return MSB_ENOMEM;
  for (i = 0; i < n->argc; i++) {
    argv[i] = find_subst(s, n->argv[i], e->path);
    if (!argv[i]) return MSB_ENOMEM;
  }
  argv[i] = 0;
  if (n->kind == FN_OK) {
    cmd_ctx *c = s->c;
    buf_puts(c->err, "< ");
    for (i = 0; i < n->argc; i++) {
      if (i == 1) buf_puts(c->err, "... ");
      if (i == 0 || i == n->argc - 1) {
        buf_puts(c->err, argv[i]);
        buf_putc(c->err, ' ');
      }
    }
    if (n->argc == 1) buf_puts(c->err, "... ");
    buf_puts(c->err, "> ? ");
    if (!cmd_answer_yes(c, &s->in_pos)) return 0;
  }
  rc = find_run(s, n->argc, argv);
  if (rc < 0) return rc;
  return rc == 0;
}

/* The last component of path; allocates only when path ends in '/'. */
static const char *find_base(cmd_ctx *c, const char *path) {
  size_t n = strlen(path);
  const char *sl;
  if (n > 1 && path[n - 1] == '/') return cmd_base_name(c, path);
  sl = strrchr(path, '/');
  return sl && sl[1] ? sl + 1 : path;
}

/* Evaluates the tree for one entry without C recursion deeper than the
 * expression nesting (bounded by the argument count). */
static int find_eval(find_state *s, find_node *n, cmd_walk_ent *e) {
  cmd_ctx *c = s->c;
  const struct vfs_stat *st = &e->st;
  int r;
  while (n->kind == FN_AND || n->kind == FN_OR || n->kind == FN_COMMA) {
    r = find_eval(s, n->l, e);
    if (r < 0 || s->quit) return r;
    if (n->kind != FN_COMMA && (n->kind == FN_AND) != (r == 1)) return r;
    n = n->r;
  }
  switch (n->kind) {
  case FN_NOT: r = find_eval(s, n->l, e); return r < 0 ? r : !r;
  case FN_TRUE: return 1;
  case FN_FALSE: return 0;
  case FN_NAME: {
    const char *b = find_base(c, e->path);
    if (!b) return MSB_ENOMEM;
    r = glob_match(c->m, n->arg, strlen(n->arg), b, strlen(b),
                   GLOB_PERIOD * 0 | (n->icase ? GLOB_NOCASE : 0), 0);
    return r;
  }
  case FN_PATH:
    return glob_match(c->m, n->arg, strlen(n->arg), e->path, strlen(e->path),
                      n->icase ? GLOB_NOCASE : 0, 0);
  case FN_LNAME: {
    buf t;
    if (st->kind != VFS_LINK) return 0;
    buf_init(&t, c->m);
    vfs_readlink(c->fs, e->abs, &t);
    r = t.err ? t.err
              : glob_match(c->m, n->arg, strlen(n->arg), buf_str(&t), t.len,
                           n->icase ? GLOB_NOCASE : 0, 0);
    buf_finish(&t);
    return r;
  }
  case FN_REGEX: {
    rx_match m;
    size_t len = strlen(e->path);
    if (!n->re) return 0;
    r = cmd_rx_exec(s->c, n->re, (const uint8_t *)e->path, len, 0, 0, &m, 1);
    if (r < 0) return r;
    return r == 1 && m.so == 0 && (size_t)m.eo == len;
  }
  case FN_TYPE:
  case FN_XTYPE: {
    int kind = st->kind;
    uint32_t mode = st->mode;
    if (n->kind == FN_XTYPE) {
      struct vfs_stat t;
      if (st->kind == VFS_LINK && s->follow < 2) {
        if (vfs_stat(c->fs, e->abs, 1, &t) == 0) kind = t.kind, mode = t.mode;
      } else if (s->follow == 2 && st->kind != VFS_LINK) {
        if (vfs_stat(c->fs, e->abs, 0, &t) == 0) kind = t.kind, mode = t.mode;
      }
    }
    return strchr(n->arg, find_kind_letter(kind, mode)) != 0;
  }
  case FN_SIZE: {
    uint64_t sz = cmd_size(st), units = (sz + n->unit - 1) / n->unit;
    return find_cmp(n, (int64_t)units);
  }
  case FN_EMPTY:
    if (st->kind == VFS_DIR) return st->nodes <= 1;
    return st->kind == VFS_FILE && st->size == 0;
  case FN_NEWER: return st->mtime_ns > n->num;
  case FN_MTIME:
  case FN_MMIN: {
    int64_t base = s->now_ns, age, unit = n->kind == FN_MTIME ? 86400 : 60;
    if (s->daystart) {
      int64_t sec = cmd_ns_to_s(base);
      base = ((sec - (sec % 86400 + 86400) % 86400) + 86400) * 1000000000;
    }
    age = base - st->mtime_ns;
    if (n->kind == FN_MTIME) {
      int64_t days =
          age >= 0 ? age / (unit * 1000000000)
                   : -((-age + unit * 1000000000 - 1) / (unit * 1000000000));
      return find_cmp(n, days);
    }
    /* -mmin: GNU compares the age in minutes, rounded up. */
    {
      int64_t mins = age > 0 ? (age + 60000000000LL - 1) / 60000000000LL
                             : age / 60000000000LL;
      return find_cmp(n, mins);
    }
  }
  case FN_PERM: {
    uint32_t m = st->mode & 07777;
    if (n->permkind == '-') return (m & n->mode) == n->mode;
    if (n->permkind == '/') return n->mode == 0 || (m & n->mode) != 0;
    return m == n->mode;
  }
  case FN_USER: return find_cmp(n, 1000);
  case FN_NOUSER: return 0;
  case FN_LINKS: return find_cmp(n, (int64_t)st->nlink);
  case FN_INUM: return find_cmp(n, (int64_t)st->ino);
  case FN_READABLE:
  case FN_WRITABLE:
  case FN_EXECUTABLE: {
    struct vfs_stat t = *st;
    uint32_t bit = n->kind == FN_READABLE   ? 0400
                   : n->kind == FN_WRITABLE ? 0200
                                            : 0100;
    if (st->kind == VFS_LINK && vfs_stat(c->fs, e->abs, 1, &t) < 0) return 0;
    return (t.mode & bit) != 0;
  }
  case FN_PRINT:
    buf_puts(c->out, e->path);
    buf_putc(c->out, '\n');
    return 1;
  case FN_PRINT0: buf_put(c->out, e->path, strlen(e->path) + 1); return 1;
  case FN_PRINTF: return find_printf(s, n->arg, e);
  case FN_LS: return find_ls(s, e);
  case FN_DELETE:
    if (e->depth == 0 && !strcmp(e->path, ".")) return 1;
    r = vfs_remove(c->fs, e->abs, st->kind == VFS_DIR ? VFS_RM_DIR : 0);
    if (r == MSB_ENOMEM) return r;
    if (r < 0) {
      cmd_err(c, "cannot delete %s: %s", cmd_quote(c, e->path),
              cmd_strerror(r));
      s->status = 1;
      return 0;
    }
    return 1;
  case FN_EXEC:
  case FN_OK: return find_exec(s, n, e);
  case FN_PRUNE:
    if (!s->depth_first && st->kind == VFS_DIR) cmd_walk_prune(s->w);
    return 1;
  case FN_QUIT: s->quit = 1; return 1;
  default: return 0;
  }
}

static int find_start(find_state *s, const char *start) {
  cmd_ctx *c = s->c;
  cmd_walk_ent *e;
  unsigned fl = s->depth_first ? CMD_WALK_POST : 0;
  int rc;
  struct vfs_stat st;
  const char *abs = cmd_path(c, start);
  if (!abs) return MSB_ENOMEM;
  rc = cmd_slash_check(c, start, abs);
  if (rc == 0) rc = vfs_stat(c->fs, abs, 0, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "%s: %s", cmd_quote(c, start), cmd_strerror(rc));
    s->status = 1;
    return 0;
  }
  if (s->follow == 2) fl |= CMD_WALK_FOLLOW;
  if (s->follow == 1) fl |= CMD_WALK_FOLLOW_ROOT;
  s->start = start;
  if ((rc = cmd_walk_open(c, start, fl, &s->w)) < 0) return rc;
  if (s->maxdepth >= 0) cmd_walk_max_depth(s->w, s->maxdepth);
  while (!s->quit && (rc = cmd_walk_next(s->w, &e)) > 0) {
    int isdir = e->st.kind == VFS_DIR;
    if (e->err == MSB_ELOOP) {
      cmd_err(c,
              "File system loop detected; %s is part of the same file "
              "system loop as %s.",
              cmd_quote(c, e->path), cmd_quote(c, start));
      s->status = 1;
      continue;
    }
    if (e->err < 0 && (e->depth > 0 || e->err == MSB_EPOLICY)) {
      cmd_err(c, "%s: %s", cmd_quote(c, e->path), cmd_strerror(e->err));
      s->status = 1;
      continue;
    }
    if (s->depth_first && isdir && !e->post) continue;
    if (e->depth < s->mindepth) continue;
    s->e = e;
    rc = find_eval(s, s->root, e);
    if (rc < 0) break;
    if (c->out_max && c->out->len > c->out_max) {
      rc = MSB_ELIMIT;
      break;
    }
    if (c->out->err) {
      rc = c->out->err;
      break;
    }
  }
  cmd_walk_close(s->w);
  s->w = 0;
  return rc < 0 ? rc : 0;
}

/* find: walk each starting point and evaluate the expression. */
int cmd_find_main(cmd_ctx *c) {
  find_state s;
  int i, first_expr, rc = 0;
  size_t k;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.maxdepth = -1;
  s.now_ns = c->clock_ns ? *c->clock_ns : vfs_clock(c->fs);
  s.args = c->argv + 1;
  s.nargs = c->argc - 1;
  /* Leading -H -L -P (and --help / --version). */
  while (s.pos < s.nargs) {
    const char *a = s.args[s.pos];
    if (!strcmp(a, "-H"))
      s.follow = 1;
    else if (!strcmp(a, "-L"))
      s.follow = 2;
    else if (!strcmp(a, "-P"))
      s.follow = 0;
    else if (!strcmp(a, "--help")) {
      buf_puts(c->out, cold_get(find_usage));
      return 0;
    } else if (!strcmp(a, "--version")) {
      buf_printf(c->out, "find (memsandbox) %s\n", MSB_VERSION);
      return 0;
    } else if (!strcmp(a, "--")) {
      s.pos++;
      break;
    } else
      break;
    s.pos++;
  }
  first_expr = s.pos;
  while (first_expr < s.nargs) {
    const char *a = s.args[first_expr];
    if ((a[0] == '-' && a[1]) || !strcmp(a, "(") || !strcmp(a, "!")) break;
    first_expr++;
  }
  {
    int nstart = first_expr - s.pos, spos = s.pos;
    s.pos = first_expr;
    s.expr0 = first_expr;
    if (s.pos < s.nargs) {
      s.root = find_parse_or(&s);
      if (!s.err && s.pos < s.nargs) {
        if (!strcmp(s.args[s.pos], ")"))
          find_fail(&s, "invalid expression; you have too many ')'%s", "");
        else
          find_fail(&s, "paths must precede expression: `%s'", s.args[s.pos]);
      }
    }
    if (s.err < 0) return s.err;
    if (s.err) return 1;
    if (!s.root) s.root = find_new(&s, FN_TRUE);
    if (!s.root) return MSB_ENOMEM;
    if ((rc = find_prepare(&s, s.root)) < 0 && rc != MSB_EINVAL) goto done;
    if (s.err) {
      rc = 0;
      s.status = 1;
      goto done;
    }
    if (!s.has_action) {
      find_node *p = find_new(&s, FN_PRINT);
      find_node *a = p ? find_bin(&s, FN_AND, s.root, p) : 0;
      if (!a) {
        rc = MSB_ENOMEM;
        goto done;
      }
      s.root = a;
    }
    {
      find_node **st =
          arena_alloc(c->a, (size_t)(c->argc + 8) * 4 * sizeof *st);
      size_t n = 0;
      if (!st) {
        rc = MSB_ENOMEM;
        goto done;
      }
      st[n++] = s.root;
      while (n) {
        find_node *x = st[--n];
        if (x->kind == FN_PRINTF) find_check_format(&s, x->arg);
        if (x->l) st[n++] = x->l;
        if (x->r) st[n++] = x->r;
      }
    }
    if (nstart == 0) {
      rc = find_start(&s, ".");
    } else {
      for (i = 0; i < nstart && !s.quit; i++) {
        rc = find_start(&s, s.args[spos + i]);
        if (rc < 0) break;
      }
    }
    for (k = 0; rc >= 0 && k < s.nexecs; k++) {
      rc = find_flush(&s, s.execs[k]);
    }
  }
done:
  find_free_regexes(&s);
  if (rc < 0) return rc;
  return s.status;
}
