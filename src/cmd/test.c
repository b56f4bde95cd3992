/* test.c - evaluate conditional expressions (bash builtins test and [).
 *
 * Usage: test [EXPR] | [ [EXPR] ]
 *   strings: STR, -z STR, -n STR, S1 = S2, S1 == S2, S1 != S2, S1 < S2,
 *            S1 > S2 (bytewise: the C locale)
 *   integers: N1 -eq -ne -lt -le -gt -ge N2 (decimal, blanks and a sign
 *            allowed; otherwise "integer expression expected", status 2)
 *   files: -e -f -d -h -L -s -r -w -x -u -g -k -O -G -N -b -c -p -S, -t FD,
 *          F1 -nt -ot -ef F2
 *   shell: -v NAME, -o OPTION (asked of the shell through c->run as
 *          `eval [[ ... ]]`; a plain name is required)
 *   logic: ! EXPR, ( EXPR ), EXPR -a EXPR, EXPR -o EXPR
 *
 * Parsing is bash's: the POSIX rules by argument count for up to four
 * arguments (so `test ! -a` or `test -n -a` mean what POSIX says), then a
 * recursive-descent parser (-o below -a below ! below primaries) for longer
 * expressions, with bash's messages. Syntax errors give status 2.
 *
 * Files: the sandbox user owns every file, so -r -w -x read the owner
 * permission bits and -O -G are true for any existing file. There are no
 * devices, pipes, sockets or terminals (-b -c -p -S -t are false). -N has
 * no access times to compare with and is true for any existing file. */
#include <string.h>

#include "cmd.h"

typedef struct test_st {
  cmd_ctx *c;
  char **argv;
  int argc;
  int pos;
  int depth; /* parenthesis nesting, bounded for the C stack */
  int err;   /* a syntax error was printed (or out of memory) */
} test_st;

/* Deepest ( ... ) nesting accepted; bash has no limit but its own stack. */
#define TEST_MAX_DEPTH 512

/* All diagnostics go through here ("test: ..." / "[: ..."). */
static int test_syntax(test_st *t, const char *msg, const char *arg) {
  if (t->err) return 0;
  if (arg)
    cmd_err(t->c, "%s: %s", arg, msg);
  else
    cmd_err(t->c, "%s", msg);
  t->err = 1;
  return 0;
}

static int test_is(const char *s, const char *w) { return !strcmp(s, w); }

static int test_unop(const char *s) {
  return s[0] == '-' && s[1] && !s[2] &&
         strchr("abcdefghknoprstuvwxzGLNOS", s[1]);
}

static int test_binop(const char *s) {
  static const char *const ops[] = {"=",   "==",  "!=",  "<",   ">",
                                    "-nt", "-ot", "-ef", "-eq", "-ne",
                                    "-lt", "-le", "-gt", "-ge", 0};
  int i;
  for (i = 0; ops[i]; i++)
    if (test_is(s, ops[i])) return 1;
  return 0;
}

/* bash's legal_number: blanks, optional sign, decimal digits, blanks. */
static int test_number(const char *s, int64_t *out) {
  uint64_t v = 0, lim;
  int neg = 0, any = 0;
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  while (*s >= '0' && *s <= '9') {
    uint64_t d = (uint64_t)(*s++ - '0');
    if (v > (lim - d) / 10) return 0;
    v = v * 10 + d;
    any = 1;
  }
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  if (!any || *s) return 0;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

static int test_stat(test_st *t, const char *path, int follow,
                     struct vfs_stat *st) {
  const char *abs;
  if (!*path) return 0;
  abs = cmd_path(t->c, path);
  if (!abs) {
    t->err = 1;
    return 0;
  }
  return vfs_stat(t->c->fs, abs, follow, st) == 0;
}

/* Asks the shell `[[ OP NAME ]]` for -v and -o, which need its state. */
static int test_shell(test_st *t, const char *op, const char *name) {
  buf cmd, out, err;
  char *av[3];
  const char *p = name;
  int rc;
  /* a name, optionally with a plain subscript: nothing eval could expand */
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
    return 0;
  for (; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789_[]@*",
                *p))
      return 0;
  if (!t->c->run) {
    cmd_err(t->c, "%s: not supported here", op);
    t->err = 1;
    return 0;
  }
  buf_init(&cmd, t->c->m);
  buf_init(&out, t->c->m);
  buf_init(&err, t->c->m);
  buf_printf(&cmd, "[[ %s %s ]]", op, name);
  av[0] = (char *)"eval";
  av[1] = cmd.p;
  av[2] = 0;
  rc = cmd.err ? cmd.err : t->c->run(t->c, 2, av, 0, 0, &out, &err);
  buf_finish(&cmd);
  buf_finish(&out);
  buf_finish(&err);
  if (rc < 0 || rc > 1) {
    t->err = 1;
    if (rc >= 0) cmd_err(t->c, "%s: not supported here", op);
    return 0;
  }
  return rc == 0;
}

static int test_unary(test_st *t, const char *op, const char *arg) {
  struct vfs_stat st;
  int64_t n;
  switch (op[1]) {
  case 'z': return arg[0] == 0;
  case 'n': return arg[0] != 0;
  case 't': test_number(arg, &n); return 0;
  case 'v': return test_shell(t, "-v", arg);
  case 'o': return test_shell(t, "-o", arg);
  case 'h':
  case 'L': return test_stat(t, arg, 0, &st) && st.kind == VFS_LINK;
  default: break;
  }
  if (!test_stat(t, arg, 1, &st)) return 0;
  switch (op[1]) {
  case 'a':
  case 'e':
  case 'O':
  case 'G':
  case 'N': return 1;
  case 'f': return st.kind == VFS_FILE && !(st.mode & VFS_CHR);
  case 'c': return (st.mode & VFS_CHR) != 0;
  case 'd': return st.kind == VFS_DIR;
  case 's': return st.kind == VFS_DIR || st.size > 0;
  case 'r': return (st.mode & 0400) != 0;
  case 'w': return (st.mode & 0200) != 0;
  case 'x': return (st.mode & 0100) != 0;
  case 'u': return (st.mode & 04000) != 0;
  case 'g': return (st.mode & 02000) != 0;
  case 'k': return (st.mode & 01000) != 0;
  default: return 0; /* -b -p -S: no such files here */
  }
}

static int test_binary(test_st *t, const char *a, const char *op,
                       const char *b) {
  int64_t x, y;
  struct vfs_stat sa, sb;
  int ea, eb;
  if (test_is(op, "=") || test_is(op, "==")) return strcmp(a, b) == 0;
  if (test_is(op, "!=")) return strcmp(a, b) != 0;
  if (test_is(op, "<")) return strcmp(a, b) < 0;
  if (test_is(op, ">")) return strcmp(a, b) > 0;
  if (op[1] == 'n' && op[2] == 't') {
    ea = test_stat(t, a, 1, &sa);
    eb = test_stat(t, b, 1, &sb);
    return ea && (!eb || sa.mtime_ns > sb.mtime_ns);
  }
  if (op[1] == 'o' && op[2] == 't') {
    ea = test_stat(t, a, 1, &sa);
    eb = test_stat(t, b, 1, &sb);
    return eb && (!ea || sa.mtime_ns < sb.mtime_ns);
  }
  if (op[1] == 'e' && op[2] == 'f')
    return test_stat(t, a, 1, &sa) && test_stat(t, b, 1, &sb) &&
           sa.ino == sb.ino;
  if (!test_number(a, &x))
    return test_syntax(t, "integer expression expected", a);
  if (!test_number(b, &y))
    return test_syntax(t, "integer expression expected", b);
  if (test_is(op, "-eq")) return x == y;
  if (test_is(op, "-ne")) return x != y;
  if (test_is(op, "-lt")) return x < y;
  if (test_is(op, "-le")) return x <= y;
  if (test_is(op, "-gt")) return x > y;
  return x >= y;
}

static int test_expr(test_st *t);

/* Moves past one argument; need: one more must follow. */
static void test_advance(test_st *t, int need) {
  t->pos++;
  if (need && t->pos >= t->argc) test_syntax(t, "argument expected", 0);
}

static int test_unary_at(test_st *t) {
  const char *op = t->argv[t->pos];
  int64_t n;
  if (op[1] == 't') {
    test_advance(t, 0);
    if (t->pos < t->argc) {
      if (!test_number(t->argv[t->pos], &n)) return 0;
      test_advance(t, 0);
    }
    return 0;
  }
  test_advance(t, 1);
  if (t->err) return 0;
  test_advance(t, 0);
  return test_unary(t, op, t->argv[t->pos - 1]);
}

static int test_binary_at(test_st *t) {
  int v =
      test_binary(t, t->argv[t->pos], t->argv[t->pos + 1], t->argv[t->pos + 2]);
  t->pos += 3;
  return v;
}

static int test_term(test_st *t) {
  int v;
  if (t->err) return 0;
  if (t->pos >= t->argc) return test_syntax(t, "argument expected", 0);
  if (test_is(t->argv[t->pos], "!")) {
    int neg = 0;
    while (t->pos < t->argc && test_is(t->argv[t->pos], "!")) {
      test_advance(t, 1);
      neg = !neg;
      if (t->err) return 0;
    }
    v = test_term(t);
    return neg ? !v : v;
  }
  if (test_is(t->argv[t->pos], "(")) {
    test_advance(t, 1);
    if (t->err) return 0;
    if (++t->depth > TEST_MAX_DEPTH)
      return test_syntax(t, "expression nested too deeply", 0);
    v = test_expr(t);
    t->depth--;
    if (t->err) return 0;
    if (t->pos >= t->argc) return test_syntax(t, "`)' expected", 0);
    if (!test_is(t->argv[t->pos], ")")) {
      if (!t->err) cmd_err(t->c, "`)' expected, found %s", t->argv[t->pos]);
      t->err = 1;
      return 0;
    }
    test_advance(t, 0);
    return v;
  }
  if (t->pos + 3 <= t->argc && test_binop(t->argv[t->pos + 1]))
    return test_binary_at(t);
  if (t->pos + 2 <= t->argc && test_unop(t->argv[t->pos]))
    return test_unary_at(t);
  v = t->argv[t->pos][0] != 0;
  test_advance(t, 0);
  return v;
}

/* -a and -o chains in loops: their length costs no stack. Every operand
 * is parsed (for its errors) whatever the value so far. */
static int test_and(test_st *t) {
  int v = test_term(t), v2;
  while (!t->err && t->pos < t->argc && test_is(t->argv[t->pos], "-a")) {
    test_advance(t, 0);
    v2 = test_term(t);
    v = v && v2;
  }
  return v;
}

static int test_or(test_st *t) {
  int v = test_and(t), v2;
  while (!t->err && t->pos < t->argc && test_is(t->argv[t->pos], "-o")) {
    test_advance(t, 0);
    v2 = test_and(t);
    v = v || v2;
  }
  return v;
}

static int test_expr(test_st *t) {
  if (t->pos >= t->argc) return test_syntax(t, "argument expected", 0);
  return test_or(t);
}

static int test_one(const char *s) { return s[0] != 0; }

static int test_two(test_st *t) {
  const char *a = t->argv[t->pos];
  if (test_is(a, "!")) return t->argv[t->pos + 1][0] == 0;
  if (a[0] == '-' && a[1] && !a[2] && test_unop(a)) return test_unary_at(t);
  return test_syntax(t, "unary operator expected", a);
}

static int test_three(test_st *t) {
  char **v = t->argv + t->pos;
  int r;
  if (test_binop(v[1])) {
    r = test_binary_at(t);
  } else if (test_is(v[1], "-a") || test_is(v[1], "-o")) {
    r = v[1][1] == 'a' ? test_one(v[0]) && test_one(v[2])
                       : test_one(v[0]) || test_one(v[2]);
  } else if (test_is(v[0], "!")) {
    t->pos++;
    r = !test_two(t);
  } else if (test_is(v[0], "(") && test_is(v[2], ")")) {
    r = test_one(v[1]);
  } else {
    return test_syntax(t, "binary operator expected", v[1]);
  }
  t->pos = t->argc;
  return r;
}

/* bash's posixtest: the rules by argument count, then the full parser. */
static int test_posix(test_st *t) {
  int n = t->argc - t->pos, v;
  switch (n) {
  case 0: return 0;
  case 1: t->pos = t->argc; return test_one(t->argv[0]);
  case 2:
    v = test_two(t);
    t->pos = t->argc;
    return v;
  case 3: return test_three(t);
  case 4:
    if (test_is(t->argv[t->pos], "!")) {
      t->pos++;
      return !test_three(t);
    }
    if (test_is(t->argv[t->pos], "(") && test_is(t->argv[t->argc - 1], ")")) {
      t->pos++;
      t->argc--;
      v = test_two(t);
      t->argc++;
      t->pos = t->argc;
      return v;
    }
    /* fall through */
  default: return test_expr(t);
  }
}

/* test and [: evaluate EXPR; status 0 true, 1 false, 2 error. */
int cmd_test(cmd_ctx *c) {
  test_st t;
  int v;
  memset(&t, 0, sizeof t);
  t.c = c;
  t.argv = c->argv + 1;
  t.argc = c->argc - 1;
  if (test_is(c->argv[0], "[")) {
    if (t.argc < 1 || !test_is(t.argv[t.argc - 1], "]")) {
      cmd_err(c, "missing `]'");
      return 2;
    }
    t.argc--;
  }
  v = test_posix(&t);
  if (!t.err && t.pos < t.argc) test_syntax(&t, "too many arguments", 0);
  if (t.err) return 2;
  return v ? 0 : 1;
}
