/* test_cmd.c - unit tests for the command framework: the command table,
 * the option parser, quoting, number/size parsing and formatting helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cmd/cmd.h"
#include "test.h"

typedef struct tc_env {
  mem m;
  arena a;
  buf out, err;
  cmd_ctx c;
} tc_env;

static void tc_setup(tc_env *e, int argc, char **argv) {
  mem_init(&e->m, 0);
  arena_init(&e->a, &e->m);
  buf_init(&e->out, &e->m);
  buf_init(&e->err, &e->m);
  memset(&e->c, 0, sizeof e->c);
  e->c.m = &e->m;
  e->c.a = &e->a;
  e->c.argc = argc;
  e->c.argv = argv;
  e->c.out = &e->out;
  e->c.err = &e->err;
  e->c.cwd = "/workspace";
}

static void tc_done(tc_env *e) {
  buf_finish(&e->out);
  buf_finish(&e->err);
  arena_finish(&e->a);
  CHECK(e->m.blocks == 0);
}

static const cmd_opt tc_opts[] = {
    {'a', "all", CMD_ARG_NONE, 'a'},     {'A', "almost-all", CMD_ARG_NONE, 'A'},
    {'n', "lines", CMD_ARG_REQ, 'n'},    {0, "color", CMD_ARG_OPT, 300},
    {0, "classify", CMD_ARG_NONE, 'F'},  {'F', 0, CMD_ARG_NONE, 'F'},
    {'v', "verbose", CMD_ARG_NONE, 'v'}, {0, 0, 0, 0}};

/* Parses argv and records "key[=arg]" items and operands into a string. */
static int tc_parse(tc_env *e, unsigned flags, char *res, size_t cap) {
  cmd_getopt g;
  int k, i;
  res[0] = 0;
  cmd_opt_init(&g, &e->c, tc_opts, "usage text\n", flags);
  while ((k = cmd_opt_next(&g)) > 0 || k == CMD_OPT_NUM) {
    char item[64];
    if (k == CMD_OPT_NUM)
      snprintf(item, sizeof item, "#%s ", g.arg);
    else if (g.arg)
      snprintf(item, sizeof item, "%d=%s ", k, g.arg);
    else
      snprintf(item, sizeof item, "%d ", k);
    strncat(res, item, cap - strlen(res) - 1);
  }
  if (k != CMD_OPT_END) return k;
  for (i = 0; i < g.nops; i++) {
    strncat(res, "[", cap - strlen(res) - 1);
    strncat(res, g.ops[i], cap - strlen(res) - 1);
    strncat(res, "]", cap - strlen(res) - 1);
  }
  return 0;
}

#define TC_ARGV(...)                          \
  const char *tc_cargv[] = {__VA_ARGS__, 0};  \
  char **tc_argv = (char **)(void *)tc_cargv; \
  int tc_argc = (int)(sizeof tc_cargv / sizeof tc_cargv[0]) - 1

TEST("cmd-1.1 table sorted bytewise, each entry has a purpose") {
  size_t n, i;
  const cmd_desc *t = cmd_table(&n);
  for (i = 0; i < n; i++) {
    CHECK(t[i].name && t[i].fn && t[i].purpose && t[i].purpose[0]);
    if (i) CHECK(strcmp(t[i - 1].name, t[i].name) < 0);
    CHECK(cmd_find(t[i].name) == &t[i]);
  }
  CHECK(cmd_find("no-such-command") == 0);
  CHECK(cmd_find("") == 0);
}

/* Whether src/cmd/file defines the command function fn: a line that
 * starts "int FN(cmd_ctx *c)". Unit tests run from the repository root. */
static int tc_defines(const char *file, const char *fn) {
  char path[128], line[256], want[128];
  FILE *f;
  int found = 0;
  snprintf(path, sizeof path, "src/cmd/%s", file);
  snprintf(want, sizeof want, "int %s(cmd_ctx *c)", fn);
  if (!(f = fopen(path, "r"))) return 0;
  while (!found && fgets(line, sizeof line, f))
    found = !strncmp(line, want, strlen(want));
  fclose(f);
  return found;
}

TEST("cmd-1.1b commands.def names the file that defines each function") {
  static const struct {
    const char *name, *fn, *file;
  } rows[] = {
#define CMD(name, fn, file, flags, purpose) {name, #fn, file},
#include "../../src/cmd/commands.def"
#undef CMD
  };
  size_t i;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (!tc_defines(rows[i].file, rows[i].fn))
      fprintf(stderr, "  %s: %s is not defined in src/cmd/%s\n", rows[i].name,
              rows[i].fn, rows[i].file);
    CHECK(tc_defines(rows[i].file, rows[i].fn));
  }
}

TEST("cmd-1.2 file commands are registered") {
  static const char *names[] = {
      "basename", "cat",  "chmod",    "cp",       "df", "dirname",
      "du",       "file", "find",     "ln",       "ls", "mkdir",
      "mktemp",   "mv",   "readlink", "realpath", "rm", "rmdir",
      "stat",     "tee",  "touch",    "tree"};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    CHECK(cmd_find(names[i]) != 0);
}

TEST("cmd-2.1 clustered shorts, attached and separate arguments") {
  tc_env e;
  char r[256];
  TC_ARGV("ls", "-aA", "-n5", "x", "-n", "7", "-vn8");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, 0, r, sizeof r) == 0);
  CHECK_STR(r, "97 65 110=5 110=7 118 110=8 [x]");
  tc_done(&e);
}

TEST("cmd-2.2 long options, prefixes, = and separate values, --") {
  tc_env e;
  char r[256];
  TC_ARGV("ls", "--all", "--lines=3", "--lin", "4", "--col", "--color=x", "--",
          "-a", "--all");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, 0, r, sizeof r) == 0);
  CHECK_STR(r, "97 110=3 110=4 300 300=x [-a][--all]");
  tc_done(&e);
}

TEST("cmd-2.3 permutation and -NUM, - is an operand") {
  tc_env e;
  char r[256];
  TC_ARGV("head", "f", "-5", "-", "-a", "g");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, CMD_OPTF_NUMERIC, r, sizeof r) == 0);
  CHECK_STR(r, "#5 97 [f][-][g]");
  tc_done(&e);
}

TEST("cmd-2.4 no permutation stops at the first operand") {
  tc_env e;
  char r[256];
  TC_ARGV("x", "-a", "f", "-v");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, CMD_OPTF_NOPERMUTE, r, sizeof r) == 0);
  CHECK_STR(r, "97 [f][-v]");
  tc_done(&e);
}

TEST("cmd-2.5 GNU getopt error wording") {
  static const struct {
    const char *arg, *msg;
  } cases[] = {
      {"-z", "ls: invalid option -- 'z'\n"},
      {"--zzz=3", "ls: unrecognized option '--zzz=3'\n"},
      {"-n", "ls: option requires an argument -- 'n'\n"},
      {"--lines", "ls: option '--lines' requires an argument\n"},
      {"--all=x", "ls: option '--all' doesn't allow an argument\n"},
      {"--al",
       "ls: option '--al' is ambiguous; possibilities: '--all' "
       "'--almost-all'\n"},
      {"--c",
       "ls: option '--c' is ambiguous; possibilities: '--color' "
       "'--classify'\n"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tc_env e;
    char r[256], want[256];
    char *argv[3];
    argv[0] = (char *)"ls";
    argv[1] = (char *)cases[i].arg;
    argv[2] = 0;
    tc_setup(&e, 2, argv);
    CHECK(tc_parse(&e, 0, r, sizeof r) == CMD_OPT_ERR);
    snprintf(want, sizeof want, "%sTry 'ls --help' for more information.\n",
             cases[i].msg);
    CHECK_STR(buf_str(&e.err), want);
    tc_done(&e);
  }
}

TEST("cmd-2.6 --help and --version, prefix --he") {
  tc_env e;
  char r[256];
  TC_ARGV("ls", "--he");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, 0, r, sizeof r) == CMD_OPT_EXIT);
  CHECK_STR(buf_str(&e.out), "usage text\n");
  tc_done(&e);
}

TEST("cmd-2.7 --ver prints a version line") {
  tc_env e;
  char r[256];
  TC_ARGV("ls", "--vers");
  tc_setup(&e, tc_argc, tc_argv);
  CHECK(tc_parse(&e, 0, r, sizeof r) == CMD_OPT_EXIT);
  CHECK(strncmp(buf_str(&e.out), "ls (memsandbox) ", 16) == 0);
  tc_done(&e);
}

TEST("cmd-3.1 GNU shell-escape quoting") {
  static const struct {
    const char *in, *f, *q;
  } cases[] = {
      {"x", "x", "'x'"},
      {"a b", "'a b'", "'a b'"},
      {"it's", "\"it's\"", "\"it's\""},
      {"a\nb", "'a'$'\\n''b'", "'a'$'\\n''b'"},
      {"\nb", "''$'\\n''b'", "''$'\\n''b'"},
      {"b\n", "'b'$'\\n'", "'b'$'\\n'"},
      {"it's $x", "'it'\\''s $x'", "'it'\\''s $x'"},
      {"#a", "'#a'", "'#a'"},
      {"a#", "a#", "'a#'"},
      {"{", "'{'", "'{'"},
      {"a{", "a{", "'a{'"},
      {"@a", "@a", "'@a'"},
      {"a=b", "'a=b'", "'a=b'"},
      {"\xc3\xa9", "''$'\\303\\251'", "''$'\\303\\251'"},
      {"", "''", "''"},
      {"a\\b", "'a\\b'", "'a\\b'"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tc_env e;
    char *argv[] = {(char *)"x", 0};
    tc_setup(&e, 1, argv);
    CHECK_STR(cmd_quotef(&e.c, cases[i].in), cases[i].f);
    CHECK_STR(cmd_quote(&e.c, cases[i].in), cases[i].q);
    tc_done(&e);
  }
}

TEST("cmd-4.1 size parsing") {
  uint64_t v;
  CHECK(cmd_parse_size("10", 0, &v) == 0 && v == 10);
  CHECK(cmd_parse_size("2K", 0, &v) == 0 && v == 2048);
  CHECK(cmd_parse_size("2k", 0, &v) == 0 && v == 2048);
  CHECK(cmd_parse_size("2KB", 0, &v) == 0 && v == 2000);
  CHECK(cmd_parse_size("2KiB", 0, &v) == 0 && v == 2048);
  CHECK(cmd_parse_size("3M", 0, &v) == 0 && v == 3145728);
  CHECK(cmd_parse_size("1b", CMD_SZ_B, &v) == 0 && v == 512);
  CHECK(cmd_parse_size("1b", 0, &v) == CMD_NUM_INVALID);
  CHECK(cmd_parse_size("x", 0, &v) == CMD_NUM_INVALID);
  CHECK(cmd_parse_size("1Q", 0, &v) == CMD_NUM_INVALID);
  CHECK(cmd_parse_size("99999999999999999999", 0, &v) == CMD_NUM_RANGE);
  CHECK(cmd_parse_size("20E", 0, &v) == CMD_NUM_RANGE);
}

TEST("cmd-4.2 integer parsing") {
  int64_t v;
  CHECK(cmd_parse_int("-12", &v) == 0 && v == -12);
  CHECK(cmd_parse_int("+7", &v) == 0 && v == 7);
  CHECK(cmd_parse_int("9223372036854775807", &v) == 0 && v == INT64_MAX);
  CHECK(cmd_parse_int("-9223372036854775808", &v) == 0 && v == INT64_MIN);
  CHECK(cmd_parse_int("9223372036854775808", &v) == CMD_NUM_RANGE);
  CHECK(cmd_parse_int("12a", &v) == CMD_NUM_INVALID);
  CHECK(cmd_parse_int("", &v) == CMD_NUM_INVALID);
  CHECK(cmd_parse_int("-", &v) == CMD_NUM_INVALID);
}

TEST("cmd-5.1 human sizes round up like GNU") {
  static const struct {
    uint64_t n;
    const char *s;
  } cases[] = {{0, "0"},          {1023, "1023"}, {1024, "1.0K"},
               {1025, "1.1K"},    {1536, "1.5K"}, {10239, "10K"},
               {10240, "10K"},    {10241, "11K"}, {1048575, "1.0M"},
               {1048576, "1.0M"}, {4096, "4.0K"}, {12582912, "12M"}};
  size_t i;
  char out[24];
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cmd_human(cases[i].n, 0, out);
    CHECK_STR(out, cases[i].s);
  }
  cmd_human(1500, 1, out);
  CHECK_STR(out, "1.5k");
}

TEST("cmd-5.2 mode strings") {
  char m[11];
  cmd_mode_str(VFS_FILE, 0644, m);
  CHECK_STR(m, "-rw-r--r--");
  cmd_mode_str(VFS_DIR, 0755, m);
  CHECK_STR(m, "drwxr-xr-x");
  cmd_mode_str(VFS_LINK, 0777, m);
  CHECK_STR(m, "lrwxrwxrwx");
  cmd_mode_str(VFS_DIR, 01777, m);
  CHECK_STR(m, "drwxrwxrwt");
  cmd_mode_str(VFS_FILE, 06644, m);
  CHECK_STR(m, "-rwSr-Sr--");
}

TEST("cmd-5.3 calendar and time formats") {
  cmd_tm tm;
  char out[48];
  int64_t now = 1796005200LL * 1000000000; /* 2026-11-30 02:20:00 UTC */
  cmd_gmtime(0, &tm);
  CHECK(tm.year == 1970 && tm.mon == 1 && tm.mday == 1 && tm.wday == 4);
  cmd_gmtime(951782400, &tm); /* 2000-02-29 */
  CHECK(tm.year == 2000 && tm.mon == 2 && tm.mday == 29);
  CHECK(cmd_timegm(&tm) == 951782400);
  cmd_gmtime(-1, &tm);
  CHECK(tm.year == 1969 && tm.mon == 12 && tm.mday == 31 && tm.sec == 59);
  cmd_time_ls(now, now, out);
  CHECK_STR(out, "Nov 30 02:20");
  cmd_time_ls(now - 200LL * 86400 * 1000000000, now, out);
  CHECK_STR(out, "May 14  2026");
  cmd_time_full(now + 5, out);
  CHECK_STR(out, "2026-11-30 02:20:00.000000005 +0000");
}

TEST("cmd-5.4 date parsing") {
  int64_t now = 1796005200LL * 1000000000, t;
  CHECK(cmd_parse_date("@10", now, &t) == 0 && t == 10000000000LL);
  CHECK(cmd_parse_date("2024-01-15", now, &t) == 0 &&
        t == 1705276800LL * 1000000000);
  CHECK(cmd_parse_date("2024-01-15 10:30", now, &t) == 0 &&
        t == (1705276800LL + 37800) * 1000000000);
  CHECK(cmd_parse_date("2024-01-15T10:30:05Z", now, &t) == 0 &&
        t == (1705276800LL + 37805) * 1000000000);
  CHECK(cmd_parse_date("2024-01-15T10:30:05+01:00", now, &t) == 0 &&
        t == (1705276800LL + 37805 - 3600) * 1000000000);
  CHECK(cmd_parse_date("1 day ago", now, &t) == 0 &&
        t == now - 86400LL * 1000000000);
  CHECK(cmd_parse_date("yesterday", now, &t) == 0 &&
        t == now - 86400LL * 1000000000);
  CHECK(cmd_parse_date("now", now, &t) == 0 && t == now);
  CHECK(cmd_parse_date("2024-02-30", now, &t) == CMD_NUM_INVALID);
  CHECK(cmd_parse_date("garbage", now, &t) == CMD_NUM_INVALID);
}

/* now is Monday 2026-11-30 02:20 UTC; midnight is 1795996800. */
TEST("cmd-5.5 date items in any order, like GNU") {
  int64_t now = 1796005200LL * 1000000000, t, day = 1795996800LL;
  CHECK(cmd_parse_date("Jan 5 2020", now, &t) == 0 &&
        t == 1578182400LL * 1000000000);
  CHECK(cmd_parse_date("5 Jan 2020 10:30", now, &t) == 0 &&
        t == (1578182400LL + 37800) * 1000000000);
  CHECK(cmd_parse_date("01/05/2020", now, &t) == 0 &&
        t == 1578182400LL * 1000000000);
  CHECK(cmd_parse_date("2020-01-31 1 month ago", now, &t) == 0 &&
        t == 1577750400LL * 1000000000);
  /* "ago" turns round only the item before it */
  CHECK(cmd_parse_date("1 hour 30 minutes ago", now, &t) == 0 &&
        t == now + 1800LL * 1000000000);
  CHECK(cmd_parse_date("next monday", now, &t) == 0 &&
        t == (day + 7 * 86400) * 1000000000);
  CHECK(cmd_parse_date("last friday", now, &t) == 0 &&
        t == (day - 3 * 86400) * 1000000000);
  CHECK(cmd_parse_date("10:30pm", now, &t) == 0 &&
        t == (day + 81000) * 1000000000);
  CHECK(cmd_parse_date("", now, &t) == 0 && t == day * 1000000000);
  CHECK(cmd_parse_date("Sun, 29 Feb 2004 16:21:42 -0800", now, &t) == 0 &&
        t == 1078100502LL * 1000000000);
  CHECK(cmd_parse_date("13pm", now, &t) == CMD_NUM_INVALID);
  CHECK(cmd_parse_date("yesterday ago", now, &t) == CMD_NUM_INVALID);
}

TEST("cmd-6.1 record iteration keeps a missing final delimiter") {
  cmd_lines l;
  const uint8_t *r;
  size_t n;
  int term, count = 0;
  cmd_lines_init(&l, (const uint8_t *)"a\n\nbc", 5, '\n');
  CHECK(cmd_lines_next(&l, &r, &n, &term) && n == 1 && term);
  CHECK(cmd_lines_next(&l, &r, &n, &term) && n == 0 && term);
  CHECK(cmd_lines_next(&l, &r, &n, &term) && n == 2 && !term);
  CHECK(!cmd_lines_next(&l, &r, &n, &term));
  cmd_lines_init(&l, (const uint8_t *)"a\0b\0", 4, 0);
  while (cmd_lines_next(&l, &r, &n, &term)) count++;
  CHECK(count == 2);
}

TEST("cmd-6.2 basename and dirname helpers") {
  tc_env e;
  char *argv[] = {(char *)"x", 0};
  tc_setup(&e, 1, argv);
  CHECK_STR(cmd_base_name(&e.c, "/a/b//"), "b");
  CHECK_STR(cmd_base_name(&e.c, "//"), "/");
  CHECK_STR(cmd_base_name(&e.c, ""), "");
  CHECK_STR(cmd_dir_name(&e.c, "//a/b"), "//a");
  CHECK_STR(cmd_dir_name(&e.c, "//a"), "/");
  CHECK_STR(cmd_dir_name(&e.c, "a"), ".");
  CHECK_STR(cmd_dir_name(&e.c, "a/b//"), "a");
  CHECK_STR(cmd_dir_name(&e.c, "/"), "/");
  tc_done(&e);
}

/* A context with a real filesystem for walker tests. */
static vfs *tc_fs(tc_env *e) {
  vfs_limits lim = {1u << 20, 1u << 20, 1000, 4096, 255, 64};
  vfs *v = vfs_create(&e->m, &lim, 0);
  e->c.fs = v;
  return v;
}

TEST("cmd-7.1 walker: pre/post order, sorted, depth, prune") {
  tc_env e;
  char *argv[] = {(char *)"x", 0};
  cmd_walk *w;
  cmd_walk_ent *ent;
  buf log;
  vfs *v;
  tc_setup(&e, 1, argv);
  v = tc_fs(&e);
  REQUIRE(v);
  vfs_mkdir(v, "/workspace/a", 0755, 0);
  vfs_mkdir(v, "/workspace/a/c", 0755, 0);
  vfs_mkdir(v, "/workspace/a/p", 0755, 0);
  vfs_write(v, "/workspace/a/b", "x", 1, 0, 0644, 0);
  vfs_write(v, "/workspace/a/p/q", "x", 1, 0, 0644, 0);
  buf_init(&log, &e.m);
  REQUIRE(cmd_walk_open(&e.c, "a", CMD_WALK_POST, &w) == 0);
  while (cmd_walk_next(w, &ent) > 0) {
    buf_printf(&log, "%s%s:%d ", ent->post ? "/" : "", ent->path, ent->depth);
    if (!ent->post && !strcmp(ent->name, "p")) cmd_walk_prune(w);
  }
  cmd_walk_close(w);
  CHECK_STR(buf_str(&log), "a:0 a/b:1 a/c:1 /a/c:1 a/p:1 /a/p:1 /a:0 ");
  buf_finish(&log);
  vfs_destroy(v);
  tc_done(&e);
}

TEST("cmd-7.2 walker: deleting entries while walking is safe") {
  tc_env e;
  char *argv[] = {(char *)"x", 0};
  cmd_walk *w;
  cmd_walk_ent *ent;
  int n = 0;
  vfs *v;
  struct vfs_stat st;
  tc_setup(&e, 1, argv);
  v = tc_fs(&e);
  REQUIRE(v);
  vfs_mkdir(v, "/workspace/d", 0755, 0);
  vfs_mkdir(v, "/workspace/d/s", 0755, 0);
  vfs_write(v, "/workspace/d/s/f", "x", 1, 0, 0644, 0);
  vfs_write(v, "/workspace/d/g", "x", 1, 0, 0644, 0);
  REQUIRE(cmd_walk_open(&e.c, "d", CMD_WALK_POST, &w) == 0);
  while (cmd_walk_next(w, &ent) > 0) {
    if (ent->st.kind == VFS_DIR && !ent->post) continue;
    CHECK(vfs_remove(v, ent->abs, ent->st.kind == VFS_DIR ? VFS_RM_DIR : 0) ==
          0);
    n++;
  }
  cmd_walk_close(w);
  CHECK(n == 4);
  CHECK(vfs_stat(v, "/workspace/d", 0, &st) == MSB_ENOENT);
  vfs_destroy(v);
  tc_done(&e);
}

TEST("cmd-7.3 walker: a missing root reports its error") {
  tc_env e;
  char *argv[] = {(char *)"x", 0};
  cmd_walk *w;
  cmd_walk_ent *ent;
  vfs *v;
  tc_setup(&e, 1, argv);
  v = tc_fs(&e);
  REQUIRE(v);
  REQUIRE(cmd_walk_open(&e.c, "nope", 0, &w) == 0);
  CHECK(cmd_walk_next(w, &ent) == 1 && ent->err == MSB_ENOENT);
  CHECK(cmd_walk_next(w, &ent) == 0);
  cmd_walk_close(w);
  vfs_destroy(v);
  tc_done(&e);
}

TEST("cmd-7.4 chmod-style modes") {
  uint32_t m;
  CHECK(cmd_parse_mode("755", 0, 0, 022, &m) == 0 && m == 0755);
  CHECK(cmd_parse_mode("u+x", 0644, 0, 022, &m) == 0 && m == 0744);
  CHECK(cmd_parse_mode("+x", 0644, 0, 022, &m) == 0 && m == 0755);
  CHECK(cmd_parse_mode("-w", 0666, 0, 022, &m) == 0 && m == 0466);
  CHECK(cmd_parse_mode("go-w,a+r", 0620, 0, 022, &m) == 0 && m == 0644);
  CHECK(cmd_parse_mode("o=u", 0640, 0, 022, &m) == 0 && m == 0646);
  CHECK(cmd_parse_mode("a+X", 0644, 1, 022, &m) == 0 && m == 0755);
  CHECK(cmd_parse_mode("a+X", 0644, 0, 022, &m) == 0 && m == 0644);
  CHECK(cmd_parse_mode("u+s,+t", 0755, 0, 022, &m) == 0 && m == 05755);
  CHECK(cmd_parse_mode("zz", 0, 0, 022, &m) == CMD_NUM_INVALID);
  CHECK(cmd_parse_mode("77777", 0, 0, 022, &m) == CMD_NUM_INVALID);
  CHECK(cmd_parse_mode("u+q", 0, 0, 022, &m) == CMD_NUM_INVALID);
}
