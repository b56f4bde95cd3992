/* test_glob.c - pattern matching and pathname expansion.
 *
 * The matching table was generated with real bash 5 (LC_ALL=C, extglob
 * on) as [[ $S == $P ]], and again with nocasematch against the upper-cased
 * string. Expansion runs over a vfs tree equal to the one the expected
 * lists were taken from in real bash. */
#include <string.h>

#include "../../src/glob.h"
#include "memsandbox.h"
#include "test.h"

typedef struct glob_t_row {
  const char *pat, *str;
  int nocase, want;
} glob_t_row;

static const glob_t_row glob_t_rows[] = {
    {"*", "abc", 0, 1},
    {"*", "ABC", 1, 1},
    {"a*", "abc", 0, 1},
    {"a*", "ABC", 1, 1},
    {"*c", "abc", 0, 1},
    {"*c", "ABC", 1, 1},
    {"a*c", "ac", 0, 1},
    {"a*c", "AC", 1, 1},
    {"a?c", "abc", 0, 1},
    {"a?c", "ABC", 1, 1},
    {"a?c", "ac", 0, 0},
    {"a?c", "AC", 1, 0},
    {"[abc]", "b", 0, 1},
    {"[abc]", "B", 1, 1},
    {"[!abc]", "b", 0, 0},
    {"[!abc]", "B", 1, 0},
    {"[^abc]", "d", 0, 1},
    {"[^abc]", "D", 1, 1},
    {"[a-c]x", "bx", 0, 1},
    {"[a-c]x", "BX", 1, 1},
    {"[a-c]x", "dx", 0, 0},
    {"[a-c]x", "DX", 1, 0},
    {"[]]", "]", 0, 1},
    {"[]]", "]", 1, 1},
    {"[]a]", "a", 0, 1},
    {"[]a]", "A", 1, 1},
    {"[!]]", "a", 0, 1},
    {"[!]]", "A", 1, 1},
    {"[a-]", "-", 0, 1},
    {"[a-]", "-", 1, 1},
    {"[[:alpha:]]", "q", 0, 1},
    {"[[:alpha:]]", "Q", 1, 1},
    {"[[:alpha:]]", "1", 0, 0},
    {"[[:alpha:]]", "1", 1, 0},
    {"[[:digit:]][[:upper:]]", "1A", 0, 1},
    {"[[:digit:]][[:upper:]]", "1A", 1, 1},
    {"[[:space:]]", " ", 0, 1},
    {"[[:space:]]", " ", 1, 1},
    {"[[:punct:]]", "!", 0, 1},
    {"[[:punct:]]", "!", 1, 1},
    {"[[:xdigit:]]*", "fz", 0, 1},
    {"[[:xdigit:]]*", "FZ", 1, 1},
    {"[[:alnum:]_]*", "_x1", 0, 1},
    {"[[:alnum:]_]*", "_X1", 1, 1},
    {"[[:foo:]]", "f", 0, 0},
    {"[[:foo:]]", "F", 1, 0},
    {"\\*", "*", 0, 1},
    {"\\*", "*", 1, 1},
    {"\\*", "a", 0, 0},
    {"\\*", "A", 1, 0},
    {"a\\?", "a?", 0, 1},
    {"a\\?", "A?", 1, 1},
    {"a\\?", "ab", 0, 0},
    {"a\\?", "AB", 1, 0},
    {"[a", "[a", 0, 1},
    {"[a", "[A", 1, 1},
    {"[a", "a", 0, 0},
    {"[a", "A", 1, 0},
    {"a[", "a[", 0, 1},
    {"a[", "A[", 1, 1},
    {"*[", "x[", 0, 1},
    {"*[", "X[", 1, 1},
    {"\\[a]", "[a]", 0, 1},
    {"\\[a]", "[A]", 1, 1},
    {"[\\]]", "]", 0, 1},
    {"[\\]]", "]", 1, 1},
    {"[z-a]", "m", 0, 0},
    {"[z-a]", "M", 1, 0},
    {"*.txt", "a.txt", 0, 1},
    {"*.txt", "A.TXT", 1, 1},
    {"*.txt", ".txt", 0, 1},
    {"*.txt", ".TXT", 1, 1},
    {".*", ".x", 0, 1},
    {".*", ".X", 1, 1},
    {"?", ".", 0, 1},
    {"?", ".", 1, 1},
    {"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0, 0},
    {"*a*a*a*b", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAC", 1, 0},
    {"*a*a*a*b", "aaaaaaaab", 0, 1},
    {"*a*a*a*b", "AAAAAAAAB", 1, 1},
    {"**", "x", 0, 1},
    {"**", "X", 1, 1},
    {"a**b", "ab", 0, 1},
    {"a**b", "AB", 1, 1},
    {"*/*", "a/b", 0, 1},
    {"*/*", "A/B", 1, 1},
    {"?(a|b)", "", 0, 1},
    {"?(a|b)", "", 1, 1},
    {"?(a|b)", "a", 0, 1},
    {"?(a|b)", "A", 1, 1},
    {"?(a|b)", "ab", 0, 0},
    {"?(a|b)", "AB", 1, 0},
    {"*(a|b)", "abba", 0, 1},
    {"*(a|b)", "ABBA", 1, 1},
    {"*(a|b)", "abc", 0, 0},
    {"*(a|b)", "ABC", 1, 0},
    {"+(a|b)", "", 0, 0},
    {"+(a|b)", "", 1, 0},
    {"+(ab|c)", "abcab", 0, 1},
    {"+(ab|c)", "ABCAB", 1, 1},
    {"@(a|b)c", "bc", 0, 1},
    {"@(a|b)c", "BC", 1, 1},
    {"!(a|b)", "c", 0, 1},
    {"!(a|b)", "C", 1, 1},
    {"!(a|b)", "a", 0, 0},
    {"!(a|b)", "A", 1, 0},
    {"!(a|b)", "ab", 0, 1},
    {"!(a|b)", "AB", 1, 1},
    {"!(*.c)", "x.c", 0, 0},
    {"!(*.c)", "X.C", 1, 0},
    {"!(*.c)", "x.h", 0, 1},
    {"!(*.c)", "X.H", 1, 1},
    {"*.!(c)", "x.h", 0, 1},
    {"*.!(c)", "X.H", 1, 1},
    {"*.!(c)", "x.c", 0, 0},
    {"*.!(c)", "X.C", 1, 0},
    {"*.!(c|h)", "x.o", 0, 1},
    {"*.!(c|h)", "X.O", 1, 1},
    {"a!(b)c", "abc", 0, 0},
    {"a!(b)c", "ABC", 1, 0},
    {"a!(b)c", "axc", 0, 1},
    {"a!(b)c", "AXC", 1, 1},
    {"a!(b)c", "ac", 0, 1},
    {"a!(b)c", "AC", 1, 1},
    {"@(a|@(b|c))d", "cd", 0, 1},
    {"@(a|@(b|c))d", "CD", 1, 1},
    {"*(@(a|b)c)", "acbc", 0, 1},
    {"*(@(a|b)c)", "ACBC", 1, 1},
    {"*(@(a|b)c)", "acb", 0, 0},
    {"*(@(a|b)c)", "ACB", 1, 0},
    {"+([0-9])", "123", 0, 1},
    {"+([0-9])", "123", 1, 1},
    {"+([0-9])", "12a3", 0, 0},
    {"+([0-9])", "12A3", 1, 0},
    {"?(-)+([0-9])", "-42", 0, 1},
    {"?(-)+([0-9])", "-42", 1, 1},
    {"!(foo)bar", "foobar", 0, 0},
    {"!(foo)bar", "FOOBAR", 1, 0},
    {"!(foo)bar", "bazbar", 0, 1},
    {"!(foo)bar", "BAZBAR", 1, 1},
    {"!(foo)*", "foox", 0, 1},
    {"!(foo)*", "FOOX", 1, 1},
    {"@(x", "@(x", 0, 1},
    {"*(a", "*(a", 0, 1},
    {"a|b", "a|b", 0, 1},
    {"a|b", "A|B", 1, 1},
    {"@(a\\|b)", "a|b", 0, 1},
    {"@(a\\|b)", "A|B", 1, 1},
    {"[[:upper:]]*(a)", "Baaa", 0, 1},
    {"[[:upper:]]*(a)", "BAAA", 1, 1},
    {"!(!(a))", "a", 0, 1},
    {"!(!(a))", "A", 1, 1},
    {"!(!(a))", "b", 0, 0},
    {"!(!(a))", "B", 1, 0},
    {"*(*(a)b)", "abab", 0, 1},
    {"*(*(a)b)", "ABAB", 1, 1},
    {"@()", "", 0, 1},
    {"@()", "", 1, 1},
};

TEST("glob-1 bash match table") {
  mem m;
  size_t i;
  mem_init(&m, 0);
  for (i = 0; i < sizeof glob_t_rows / sizeof glob_t_rows[0]; i++) {
    const glob_t_row *r = &glob_t_rows[i];
    unsigned fl = GLOB_EXTGLOB | (r->nocase ? GLOB_NOCASE : 0);
    int got =
        glob_match(&m, r->pat, strlen(r->pat), r->str, strlen(r->str), fl, 0);
    if (got != r->want)
      fprintf(stderr, "  [%s] vs [%s] nocase=%d: got %d\n", r->pat, r->str,
              r->nocase, got);
    CHECK(got == r->want);
  }
  CHECK(m.blocks == 0);
}

TEST("glob-2 pathname and period flags") {
  mem m;
  unsigned pp = GLOB_PATHNAME | GLOB_PERIOD;
  mem_init(&m, 0);
  CHECK(glob_match(&m, "*", 1, "a/b", 3, GLOB_PATHNAME, 0) == 0);
  CHECK(glob_match(&m, "*/*", 3, "a/b", 3, GLOB_PATHNAME, 0) == 1);
  CHECK(glob_match(&m, "a?b", 3, "a/b", 3, GLOB_PATHNAME, 0) == 0);
  CHECK(glob_match(&m, "a[/]b", 5, "a/b", 3, GLOB_PATHNAME, 0) == 0);
  CHECK(glob_match(&m, "*", 1, ".x", 2, pp, 0) == 0);
  CHECK(glob_match(&m, ".*", 2, ".x", 2, pp, 0) == 1);
  CHECK(glob_match(&m, "a/*", 3, "a/.x", 4, pp, 0) == 0);
  CHECK(glob_match(&m, "a/.*", 4, "a/.x", 4, pp, 0) == 1);
  CHECK(glob_match(&m, "!(z)", 4, ".x", 2, pp | GLOB_EXTGLOB, 0) == 0);
  CHECK(glob_match(&m, "*", 1, ".x", 2, GLOB_PATHNAME, 0) == 1);
}

TEST("glob-3 hostile patterns stay bounded") {
  mem m;
  char s[10001], p[64];
  uint64_t budget;
  int rc;
  mem_init(&m, 0);
  memset(s, 'a', 10000);
  s[10000] = 0;
  strcpy(p, "*a*a*a*a*a*b");
  budget = 1000000000;
  CHECK(glob_match(&m, p, strlen(p), s, 10000, 0, &budget) == 0);
  CHECK(budget > 1000000000 - 2000000);
  strcpy(p, "*(a|aa|aaa)b");
  budget = 2000000;
  rc = glob_match(&m, p, strlen(p), s, 10000, GLOB_EXTGLOB, &budget);
  CHECK(rc == MSB_ELIMIT || rc == 0);
  budget = 50000000;
  CHECK(glob_match(&m, p, strlen(p), s, 300, GLOB_EXTGLOB, &budget) == 0);
  strcpy(p, "!(*a*)x");
  budget = 50000000;
  CHECK(glob_match(&m, p, strlen(p), s, 200, GLOB_EXTGLOB, &budget) == 0);
  budget = 10;
  CHECK(glob_match(&m, "*b", 2, s, 10000, 0, &budget) == MSB_ELIMIT);
  CHECK(m.blocks == 0);
}

TEST("glob-4 magic and unescape") {
  mem m;
  buf b;
  mem_init(&m, 0);
  buf_init(&b, &m);
  CHECK(glob_has_magic("a*", 2, 0));
  CHECK(!glob_has_magic("a\\*", 3, 0));
  CHECK(!glob_has_magic("[a", 2, 0));
  CHECK(glob_has_magic("[a]", 3, 0));
  CHECK(!glob_has_magic("@(a)", 4, 0));
  CHECK(glob_has_magic("@(a)", 4, GLOB_EXTGLOB));
  glob_unescape("a\\*b\\\\", 6, &b);
  CHECK_STR(buf_str(&b), "a*b\\");
  buf_finish(&b);
}

/* The tree of the expansion tests (made in real bash with
 * mkdir -p a a-b x/a/b .h/q; touch a/z a-b/x x/f .hid x/.hf; ln -s x lx). */
static vfs *glob_t_tree(mem *m) {
  vfs *v = vfs_create(m, 0, 0);
  static const char *const dirs[] = {
      "/workspace/a",     "/workspace/a-b", "/workspace/x",   "/workspace/x/a",
      "/workspace/x/a/b", "/workspace/.h",  "/workspace/.h/q"};
  static const char *const files[] = {"/workspace/a/z", "/workspace/a-b/x",
                                      "/workspace/x/f", "/workspace/.hid",
                                      "/workspace/x/.hf"};
  size_t i;
  if (!v) return 0;
  for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (vfs_mkdir(v, dirs[i], 0755, 0)) return 0;
  for (i = 0; i < sizeof files / sizeof files[0]; i++)
    if (vfs_write(v, files[i], "", 0, 0, 0644, 0)) return 0;
  if (vfs_symlink(v, "x", "/workspace/lx")) return 0;
  return v;
}

/* Expands pat and joins the results with spaces ("" when none). */
static void glob_t_expand(vfs *v, mem *m, const char *pat, unsigned fl,
                          buf *out) {
  char **list;
  size_t n, i;
  uint64_t budget = 100000;
  buf_clear(out);
  if (glob_expand(v, m, "/workspace", pat, strlen(pat), fl, &budget, &list,
                  &n)) {
    buf_puts(out, "ERROR");
    return;
  }
  for (i = 0; i < n; i++) {
    if (i) buf_putc(out, ' ');
    buf_puts(out, list[i]);
  }
  glob_free(m, list, n);
}

TEST("glob-5 expansion over the vfs, as bash prints it") {
  static const struct {
    const char *pat;
    unsigned fl;
    const char *want;
  } rows[] = {
      {"*", 0, "a a-b lx x"},
      {"*/*", 0, "a-b/x a/z lx/a lx/f x/a x/f"},
      {".*", 0, ".h .hid"},
      {"./a*", 0, "./a ./a-b"},
      {"*/", 0, "a-b/ a/ lx/ x/"},
      {"x//*", 0, "x//a x//f"},
      {"a?b/../a*", 0, "a-b/../a a-b/../a-b"},
      {"/workspace/a*", 0, "/workspace/a /workspace/a-b"},
      {"nope*", 0, ""},
      {"a/nope", 0, ""},
      {"*/f", 0, "lx/f x/f"},
      {"[ax]*", 0, "a a-b x"},
      {"x/.*", 0, "x/.hf"},
      {"*/.*", 0, "lx/.hf x/.hf"},
      {"*/*/", 0, "lx/a/ x/a/"},
      {"lx/*", 0, "lx/a lx/f"},
      {"*/a/*", 0, "lx/a/b x/a/b"},
      {"\\a*", 0, "a a-b"},
      {"*\\-*", 0, "a-b"},
      {"x/a/b/", 0, "x/a/b/"},
      {".h/*", 0, ".h/q"},
      {"**", GLOB_GLOBSTAR, "a a-b a-b/x a/z lx x x/a x/a/b x/f"},
      {"x/**", GLOB_GLOBSTAR, "x/ x/a x/a/b x/f"},
      {"**/", GLOB_GLOBSTAR, "a-b/ a/ lx/ x/ x/a/ x/a/b/"},
      {"x/**/", GLOB_GLOBSTAR, "x/ x/a/ x/a/b/"},
      {"**/b", GLOB_GLOBSTAR, "x/a/b"},
      {"lx/**", GLOB_GLOBSTAR, "lx/ lx/a lx/a/b lx/f"},
      {"**/f", GLOB_GLOBSTAR, "x/f"},
      {"**/*", GLOB_GLOBSTAR, "a a-b a-b/x a/z lx x x/a x/a/b x/f"},
      {"x/**/b", GLOB_GLOBSTAR, "x/a/b"},
      {"*", GLOB_GLOBSTAR | GLOB_DOTGLOB, ".h .hid a a-b lx x"},
      {"x/*", GLOB_GLOBSTAR | GLOB_DOTGLOB, "x/.hf x/a x/f"},
      {"[ax]*//*", 0, "a-b/x a/z x/a x/f"},
      {"?//*/", 0, "x/a/"},
      {"?/**", GLOB_GLOBSTAR, "a a/z x x/a x/a/b x/f"},
      {"*/**/", GLOB_GLOBSTAR, "a-b/ a/ lx/ lx/a/ lx/a/b/ x/ x/a/ x/a/b/"},
      {"./**/f", GLOB_GLOBSTAR, "./lx/f ./x/f"},
      {"?//**", GLOB_GLOBSTAR, "a/ a/z x/ x/a x/a/b x/f"},
      {"**", GLOB_GLOBSTAR | GLOB_DOTGLOB,
       ".h .h/q .hid a a-b a-b/x a/z lx x x/.hf x/a x/a/b x/f"},
      {"A*", GLOB_NOCASE, "a a-b"},
      {"X/F", GLOB_NOCASE, ""},
      {"!(a)", GLOB_EXTGLOB, "a-b lx x"},
      {"@(a|x)/*", GLOB_EXTGLOB, "a/z x/a x/f"},
      {"*(a)-b", GLOB_EXTGLOB, "a-b"},
      {"!(a)/*", GLOB_EXTGLOB, "a-b/x lx/a lx/f x/a x/f"},
  };
  mem m;
  vfs *v;
  buf out;
  size_t i;
  mem_init(&m, 0);
  v = glob_t_tree(&m);
  REQUIRE(v != 0);
  buf_init(&out, &m);
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    glob_t_expand(v, &m, rows[i].pat, rows[i].fl, &out);
    if (strcmp(buf_str(&out), rows[i].want))
      fprintf(stderr, "  pattern [%s]\n", rows[i].pat);
    CHECK_STR(buf_str(&out), rows[i].want);
  }
  buf_finish(&out);
  vfs_destroy(v);
  CHECK(m.blocks == 0);
}

TEST("glob-6 expansion budget") {
  mem m;
  vfs *v;
  char **list = 0;
  size_t n = 0;
  uint64_t budget = 3;
  mem_init(&m, 0);
  v = glob_t_tree(&m);
  REQUIRE(v != 0);
  CHECK(glob_expand(v, &m, "/workspace", "*/*", 3, 0, &budget, &list, &n) ==
        MSB_ELIMIT);
  CHECK(list == 0 && n == 0);
  vfs_destroy(v);
  CHECK(m.blocks == 0);
}

TEST("glob-7 prefix and suffix matching agrees with whole matches") {
  static const char *const pats[] = {
      "*",     "a*",    "*b",       "a?b*",  "*.*", "[ab]*c",
      "\\*x",  "*a*b*", "",         "a",     "?",   "*(a|b)c",
      "+(ab)", "!(a*)", "@(a|ab)*", "*[!a]", "**b", "[[:alpha:]]*"};
  static const char *const strs[] = {"",      "a",    "ab", "abc", "aabbc",
                                     "x.y.z", "abab", "*x", "cab", "ba.c"};
  mem m;
  size_t i, j, k, n;
  int suf;
  uint8_t ends[16];
  mem_init(&m, 0);
  for (i = 0; i < sizeof pats / sizeof pats[0]; i++)
    for (j = 0; j < sizeof strs / sizeof strs[0]; j++)
      for (suf = 0; suf < 2; suf++) {
        const char *p = pats[i], *s = strs[j];
        n = strlen(s);
        REQUIRE(glob_match_ends(&m, p, strlen(p), s, n, GLOB_EXTGLOB, suf, 0,
                                ends) == 0);
        for (k = 0; k <= n; k++) {
          int want =
              suf ? glob_match(&m, p, strlen(p), s + k, n - k, GLOB_EXTGLOB, 0)
                  : glob_match(&m, p, strlen(p), s, k, GLOB_EXTGLOB, 0);
          if (ends[k] != want)
            fprintf(stderr, "  [%s] [%s] suffix=%d k=%zu\n", p, s, suf, k);
          CHECK(ends[k] == want);
        }
      }
  CHECK(m.blocks == 0);
}

TEST("glob-8 prefix matching is one pass") {
  mem m;
  static char s[200001];
  static uint8_t ends[200002];
  uint64_t budget = 20000000;
  mem_init(&m, 0);
  memset(s, 'a', 200000);
  s[100000] = '/';
  CHECK(glob_match_ends(&m, "*/", 2, s, 200000, 0, 0, &budget, ends) == 0);
  CHECK(ends[100001] == 1 && ends[100000] == 0 && ends[200000] == 0);
  CHECK(glob_match_ends(&m, "/*", 2, s, 200000, 0, 1, &budget, ends) == 0);
  CHECK(ends[100000] == 1 && ends[100001] == 0 && ends[0] == 0);
  CHECK(m.blocks == 0);
}

TEST("glob-9 deeply nested groups are refused, not recursed") {
  static char p[30001];
  mem m;
  size_t i;
  mem_init(&m, 0);
  for (i = 0; i < 10000; i++) memcpy(p + 2 * i, "@(", 2);
  memset(p + 20000, ')', 10000);
  CHECK(glob_match(&m, p, 30000, "a", 1, GLOB_EXTGLOB, 0) == MSB_ELIMIT);
  CHECK(m.blocks == 0);
}
