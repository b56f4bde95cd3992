/* test_parse.c - unit tests for the shell front end (lex.c, parse.c,
 * ast.c).
 *
 * Most cases parse a script and compare the AST printer's S-expression
 * (see ast.c) or the formatted error with what bash 5.2 prints for
 * `bash -c SCRIPT`; the expected errors were checked against real bash.
 * Then: part kinds the printer cannot show, line numbers, incomplete-input
 * detection, warnings, NUL bytes, hostile sizes and nesting, and an
 * allocation-failure loop that must end cleanly without leaks. */
#include <stdlib.h>

#include "../../src/ast.h"
#include "../../src/parse.h"
#include "memsandbox.h"
#include "test.h"

typedef struct tp_case {
  const char *src;
  const char *want;
} tp_case;

/* Parses src and renders the tree, or "ERR code: message lines". */
static char *tp_render(mem *m, const char *src, size_t len) {
  ast_tree *t;
  ast_node *root;
  parse_error e;
  buf b;
  char *out;
  int r;
  buf_init(&b, m);
  r = parse_string(m, src, len, 1, 0, &t, &root, &e);
  if (r) {
    buf_printf(&b, "ERR %d: ", r);
    parse_error_format(&b, &e, "bash: -c: ");
    if (b.len && b.p[b.len - 1] == '\n') buf_truncate(&b, b.len - 1);
  } else {
    ast_print(&b, root);
    ast_tree_release(t);
  }
  out = malloc(b.len + 1);
  if (out) memcpy(out, buf_str(&b), b.len + 1);
  buf_finish(&b);
  return out;
}

static const tp_case tp_cases[] = {
    {"echo hi", "(list (cmd echo hi))"},
    {"echo a b   c", "(list (cmd echo a b c))"},
    {"echo 'a b' \"c d\" e\\ f", "(list (cmd echo 'a b' \"c d\" e\\ f))"},
    {"echo \"a\\\"b\\$c\\`d\\\\e\\nf\"",
     "(list (cmd echo \"a\"b$c`d\\e\\nf\"))"},
    {"echo $'a\\tb\\x41\\101\\cA\\e\\u00e9\\0zz' $'\\U0001F600\\q'",
     "(list (cmd echo $'a\\x09bAA\\x01\\x1b\\u00E9' $'\\U0001F600\\q'))"},
    {"echo $\"loc\"", "(list (cmd echo $\"loc\"))"},
    {"a=1 b= c+=x d[1]=y e[$i+1]=z f=(1 2 [k]=v [j]+=w) cmd arg",
     "(list (cmd (= a 1) (= b ) (+= c x) (= d[1] y) (= e[$i+1] z) (= f (1 2 "
     "[k]=v [j]+=w)) cmd arg))"},
    {"a=1", "(list (cmd (= a 1)))"},
    {"x=~/a:~b/c echo ~ ~/x ~user/y a~ \"~\" \\~ y=~ z:~",
     "(list (cmd (= x ~~/a:~b~/c) echo ~~ ~~/x ~user~/y a~ \"~\" \\~ y=~~ "
     "z:~))"},
    {"echo $x ${x} $1 ${10} $10 $@ $* $# $? $- $$ $! $0 $_",
     "(list (cmd echo $x ${x} $1 ${10} $10 $@ $* $# $? $- $$ $! $0 $_))"},
    {"echo ${#x} ${#a[@]} ${#} ${!x} ${!pre*} ${!pre@} ${!arr[@]} ${!arr[*]}",
     "(list (cmd echo ${#x} ${#a[@]} ${#} ${!x} ${!pre*} ${!pre@} ${!arr[@]} "
     "${!arr[*]}))"},
    {"echo ${x-a} ${x:-a} ${x=a} ${x:=a} ${x?a} ${x:?a} ${x+a} ${x:+a} ${x:?}",
     "(list (cmd echo ${x-<a>} ${x:-<a>} ${x=<a>} ${x:=<a>} ${x?<a>} ${x:?<a>} "
     "${x+<a>} ${x:+<a>} ${x:?}))"},
    {"echo ${x#a*} ${x##a*} ${x%b} ${x%%b} ${x/a/b} ${x//a/b} ${x/#a/b} "
     "${x/%a/b} ${x/a}",
     "(list (cmd echo ${x#<a*>} ${x##<a*>} ${x%<b>} ${x%%<b>} ${x/<a>/<b>} "
     "${x//<a>/<b>} ${x/#<a>/<b>} ${x/%<a>/<b>} ${x/<a>}))"},
    {"echo ${x:1} ${x:1:2} ${x: -1} ${x:(-2):1} ${x:a?1:2}",
     "(list (cmd echo ${x:<1>} ${x:<1>:<2>} ${x:< -1>} ${x:<(-2)>:<1>} "
     "${x:<a?1:2>}))"},
    {"echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]} ${x@Q} ${x@U}",
     "(list (cmd echo ${x^} ${x^^} ${x,} ${x,,} ${x^^<[ab]>} ${x@Q} ${x@U}))"},
    {"echo ${a[1]} ${a[@]} ${a[*]} ${a[i+1]} ${a[\"k\"]} ${a[$k]}",
     "(list (cmd echo ${a[1]} ${a[@]} ${a[*]} ${a[i+1]} ${a[\"k\"]} "
     "${a[$k]}))"},
    {"echo \"${x:-'q'}\" ${x:-'q'} \"${x#'a'}\" \"${x:-\"a b\"}\" ",
     "(list (cmd echo \"${x:-<'q'>}\" ${x:-<'q'>} \"${x#<'a'>}\" \"${x:-<\"a "
     "b\">}\"))"},
    {"echo ${a b} ${x@}", "(list (cmd echo BAD<${a b}> BAD<${x@}>))"},
    {"echo $(echo a) `echo b` $(echo $(echo c)) \"$(echo \"d\")\"",
     "(list (cmd echo $((list (cmd echo a))) `(list (cmd echo b))` $((list "
     "(cmd echo $((list (cmd echo c)))))) \"$((list (cmd echo \"d\")))\"))"},
    {"echo `echo \\`echo x\\``",
     "(list (cmd echo `(list (cmd echo `(list (cmd echo x))`))`))"},
    {"echo $((1+2)) $(( (1+2)*3 )) $[4*5] $((\"1\"+$x))",
     "(list (cmd echo $((1+2)) $(( (1+2)*3 )) $((4*5)) $((1+$x))))"},
    {"echo $((echo a); (echo b))",
     "(list (cmd echo $((list (sub (list (cmd echo a))) (sub (list (cmd echo "
     "b)))))))"},
    {"echo <(ls) >(cat) a<(b)",
     "(list (cmd echo <((list (cmd ls))) >((list (cmd cat))) a<((list (cmd "
     "b)))))"},
    {"cmd >f <g >>h 2>&1 2>&- >&2 3<>i >|j &>k &>>l <<<m {fd}>n 10>o",
     "(list (cmd cmd (> f) (< g) (>> h) (>& 2 1) (>& 2 -) (>& 2) (<> 3 i) (>| "
     "j) (&> k) (&>> l) (<<< m) (> {fd} n) (> 10 o)))"},
    {"cat <<EOF\nhello $name $(date) `x` \\$y \\\\ \\z \"q\" 'r'\nEOF",
     "(list (cmd cat (<< EOF [hello $name $((list (cmd date))) `(list (cmd "
     "x))` $y \\ \\z \"q\" 'r'\\x0a])))"},
    {"cat <<'EOF'\n$x `y` \\z\nEOF",
     "(list (cmd cat (<< EOF quoted ['$x `y` \\z\\x0a'])))"},
    {"cat <<-EOF\n\ttabbed $x\n\t\tmore\n\tEOF",
     "(list (cmd cat (<<- EOF [tabbed $x\\x0amore\\x0a])))"},
    {"cat <<A <<\"B\"\na $x\nA\nb $x\nB\necho after",
     "(list (cmd cat (<< A [a $x\\x0a]) (<< B quoted ['b $x\\x0a'])) (cmd echo "
     "after))"},
    {"cat <<EOF | tr a b\nx\nEOF",
     "(list (pipe (cmd cat (<< EOF [x\\x0a])) (cmd tr a b)))"},
    {"cat <<EOF\nunterminated", "(list (cmd cat (<< EOF [unterminated])))"},
    {"a | b | c", "(list (pipe (cmd a) (cmd b) (cmd c)))"},
    {"a |& b", "(list (pipe (cmd a) |& (cmd b)))"},
    {"! a | b", "(list (pipe ! (cmd a) (cmd b)))"},
    {"time a", "(list (pipe time (cmd a)))"},
    {"time -p a", "(list (pipe time-p (cmd a)))"},
    {"! ! a", "(list (cmd a))"},
    {"a && b || c && d",
     "(list (and (or (and (cmd a) (cmd b)) (cmd c)) (cmd d)))"},
    {"a; b & c", "(list (cmd a) (bg (cmd b)) (cmd c))"},
    {"a &", "(list (bg (cmd a)))"},
    {"a & b &", "(list (bg (cmd a)) (bg (cmd b)))"},
    {"(a; b) > f", "(list (sub (list (cmd a) (cmd b)) (> f)))"},
    {"{ a; b; } 2>&1", "(list (group (list (cmd a) (cmd b)) (>& 2 1)))"},
    {"if a; then b; fi", "(list (if (list (cmd a)) (list (cmd b))))"},
    {"if a; then b; elif c; then d; else e; fi",
     "(list (if (list (cmd a)) (list (cmd b)) (if (list (cmd c)) (list (cmd "
     "d)) (list (cmd e)))))"},
    {"while a; do b; done", "(list (while (list (cmd a)) (list (cmd b))))"},
    {"until a; do b; done", "(list (until (list (cmd a)) (list (cmd b))))"},
    {"for x in a b; do c; done", "(list (for x (in a b) (list (cmd c))))"},
    {"for x; do c; done", "(list (for x (list (cmd c))))"},
    {"for x do c; done", "(list (for x (list (cmd c))))"},
    {"for x\ndo c\ndone", "(list (for x (list (cmd c))))"},
    {"for x in; do c; done", "(list (for x (in) (list (cmd c))))"},
    {"for ((i=0; i<3; i++)); do echo $i; done",
     "(list (afor [i=0] [ i<3] [ i++] (list (cmd echo $i))))"},
    {"for ((;;)); do break; done", "(list (afor [] [] [] (list (cmd break))))"},
    {"for x in a; { b; }", "(list (for x (in a) (list (cmd b))))"},
    {"select x in a b; do c; done",
     "(list (select x (in a b) (list (cmd c))))"},
    {"case $x in a) b;; c|d) e;& f) ;;& *) g; esac",
     "(list (case $x ( a -> (list (cmd b)) ;;) ( c d -> (list (cmd e)) ;&) ( f "
     "-> () ;;&) ( * -> (list (cmd g)) ;;)))"},
    {"case x in (a) b;; esac", "(list (case x ( a -> (list (cmd b)) ;;)))"},
    {"case x in esac", "(list (case x))"},
    {"case x in a) esac", "(list (case x ( a -> () ;;)))"},
    {"case x\nin\na)\nb\n;;\nesac",
     "(list (case x ( a -> (list (cmd b)) ;;)))"},
    {"f() { a; }", "(list (func f (group (list (cmd a)))))"},
    {"f() ( a )", "(list (func f (sub (list (cmd a)))))"},
    {"function f { a; }", "(list (func f (group (list (cmd a)))))"},
    {"function f() { a; } > log",
     "(list (func f (group (list (cmd a)) (> log))))"},
    {"f() if a; then b; fi",
     "(list (func f (if (list (cmd a)) (list (cmd b)))))"},
    {"[[ -f a ]]", "(list (cond (-f a)))"},
    {"[[ a == b* && ! -z $c || ( d < e ) ]]",
     "(list (cond (|| (&& (== a b*) (! (-z $c))) (< d e))))"},
    {"[[ $a =~ ^(x|y)+[0-9]$ ]]", "(list (cond (=~ $a ^(x|y)+[0-9]$)))"},
    {"[[ $a =~ \"a.b\" ]]", "(list (cond (=~ $a \"a.b\")))"},
    {"[[ -n $a && -z \"\" ]]", "(list (cond (&& (-n $a) (-z \"\"))))"},
    {"[[ a -eq 1 ]]", "(list (cond (-eq a 1)))"},
    {"[[ a\n&& b ]]",
     "ERR -15: bash: -c: line 1: unexpected token `newline', conditional "
     "binary operator expected"},
    {"((x = 1 + 2))", "(list (arith x = 1 + 2))"},
    {"((x++)) && echo y", "(list (and (arith x++) (cmd echo y)))"},
    {"(( a[1] = $b ))", "(list (arith  a[1] = $b ))"},
    {"( (a) )", "(list (sub (list (sub (list (cmd a))))))"},
    {"((a) )", "(list (sub (list (sub (list (cmd a))))))"},
    {"local a=(1 2) b=$c d",
     "(list (cmd local (decl (= a (1 2))) (decl (= b $c)) d))"},
    {"declare -A m=([k]=v)", "(list (cmd declare -A (decl (= m ([k]=v)))))"},
    {"export X=1 Y", "(list (cmd export (decl (= X 1)) Y))"},
    {"echo a # comment", "(list (cmd echo a))"},
    {"# only comment", "()"},
    {"echo a\\\nb", "(list (cmd echo ab))"},
    {"echo 'a\nb'", "(list (cmd echo 'a\\x0ab'))"},
    {"x=$(case a in a) echo b;; esac)",
     "(list (cmd (= x $((list (case a ( a -> (list (cmd echo b)) ;;)))))))"},
    {"echo {a,b}{c,d} *.txt [ab]?", "(list (cmd echo {a,b}{c,d} *.txt [ab]?))"},
    {"echo a; echo b\necho c\n\n\necho d",
     "(list (cmd echo a) (cmd echo b) (cmd echo c) (cmd echo d))"},
    {"echo \"$\" $ a$ \"a$\"", "(list (cmd echo \"$\" $ a$ \"a$\"))"},
    {"echo $(\n# comment\necho a # c\n)",
     "(list (cmd echo $((list (cmd echo a)))))"},
    {"echo ${x:-$(echo \"}\")} ${x:-{a}}",
     "(list (cmd echo ${x:-<$((list (cmd echo \"}\")))>} ${x:-<{a}>}))"},
    {"echo \"`echo \\\"a\\\"`\"",
     "(list (cmd echo \"`(list (cmd echo \"a\"))`\"))"},
    {"a=1 >f", "(list (cmd (= a 1) (> f)))"},
    {">f", "(list (cmd (> f)))"},
    {"echo a\\", "(list (cmd echo a\\))"},
    {"echo ~+ ~- ~+/x", "(list (cmd echo ~+~ ~-~ ~+~/x))"},
    {"if true; then fi",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`fi'\nbash: -c: line 1: `if true; then fi'"},
    {"if true; then\necho a",
     "ERR -21: bash: -c: line 3: syntax error: unexpected end of file"},
    {"echo \"abc",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "`\"'"},
    {"echo a |",
     "ERR -21: bash: -c: line 2: syntax error: unexpected end of file"},
    {"( echo a",
     "ERR -21: bash: -c: line 2: syntax error: unexpected end of file"},
    {"echo $(echo a",
     "ERR -21: bash: -c: line 2: unexpected EOF while looking for matching "
     "`)'"},
    {"echo ${a",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "`}'"},
    {"echo `echo a",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "``'"},
    {"[[ a",
     "ERR -15: bash: -c: line 1: unexpected token `newline', conditional "
     "binary operator expected"},
    {"echo 'abc",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "`''"},
    {"for",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`newline'\nbash: -c: line 1: `for'"},
    {"echo <",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`newline'\nbash: -c: line 1: `echo <'"},
    {"echo a; }",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `}'\nbash: "
     "-c: line 1: `echo a; }'"},
    {"a && || b",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`||'\nbash: -c: line 1: `a && || b'"},
    {"a &;",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `;'\nbash: "
     "-c: line 1: `a &;'"},
    {"{ }",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `}'\nbash: "
     "-c: line 1: `{ }'"},
    {"echo x=(a)",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `('\nbash: "
     "-c: line 1: `echo x=(a)'"},
    {"[[ a b ]]",
     "ERR -15: bash: -c: line 1: conditional binary operator expected"},
    {"[[ -f ]]",
     "ERR -15: bash: -c: line 1: unexpected argument `]]' to conditional unary "
     "operator"},
    {"[[ ]]", "ERR -15: "},
    {"f() { :; } x",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `x'\nbash: "
     "-c: line 1: `f() { :; } x'"},
    {"echo a | ! b",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token `!'\nbash: "
     "-c: line 1: `echo a | ! b'"},
    {"coproc cat", "ERR -22: memsandbox: coproc is not supported"},
    {"]]",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`]]'\nbash: -c: line 1: `]]'"},
    {"echo $(( 1 +",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "`)'"},
    {"x=( a",
     "ERR -21: bash: -c: line 1: unexpected EOF while looking for matching "
     "`)'"},
    {"for ((i=0; i<3)); do :; done",
     "ERR -15: bash: -c: line 1: syntax error: arithmetic expression "
     "required\nbash: -c: line 1: syntax error: `((i=0; i<3))'"},
    {"echo a\nfi",
     "ERR -15: bash: -c: line 2: syntax error near unexpected token "
     "`fi'\nbash: -c: line 2: `fi'"},
    {"case x in a echo;; esac",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`echo'\nbash: -c: line 1: `case x in a echo;; esac'"},
    {"while :; do done",
     "ERR -15: bash: -c: line 1: syntax error near unexpected token "
     "`done'\nbash: -c: line 1: `while :; do done'"},
};

TEST("parse-1.1") {
  size_t i;
  mem m;
  mem_init(&m, 0);
  for (i = 0; i < sizeof tp_cases / sizeof tp_cases[0]; i++) {
    char *got = tp_render(&m, tp_cases[i].src, strlen(tp_cases[i].src));
    if (!got || strcmp(got, tp_cases[i].want)) {
      fprintf(stderr, "  case %u: %s\n", (unsigned)i, tp_cases[i].src);
    }
    CHECK_STR(got, tp_cases[i].want);
    free(got);
  }
  CHECK(m.blocks == 0);
}

/* Parses src into a tree for the structural tests; NULL on error. */
static ast_node *tp_parse(mem *m, const char *src, ast_tree **t) {
  ast_node *root;
  parse_error e;
  if (parse_string(m, src, strlen(src), 1, 0, t, &root, &e)) return NULL;
  return root;
}

static const ast_word *tp_arg(const ast_node *list, int item, int arg) {
  const ast_node *n = list->u.list.items;
  const ast_word *w;
  while (item-- > 0) n = n->next;
  w = n->u.cmd.words;
  while (arg-- > 0) w = w->next;
  return w;
}

TEST("parse-2.1") {
  /* Quoting kinds the printer renders alike. */
  mem m;
  ast_tree *t;
  ast_node *root;
  const ast_part *p;
  mem_init(&m, 0);
  root = tp_parse(&m, "echo \"${x:-'q'}\" ${x:-'q'} a\\*b $'\\0x'", &t);
  REQUIRE(root);
  p = tp_arg(root, 0, 1)->parts;
  CHECK(p->kind == AST_P_DQ);
  p = p->parts;
  CHECK(p->kind == AST_P_PARAM && p->param->op == AST_PE_DEFAULT);
  CHECK(p->param->flags & AST_PE_COLON);
  /* Inside double quotes the single quotes are plain text. */
  CHECK(p->param->w1->parts->kind == AST_P_LIT);
  CHECK_STR(p->param->w1->parts->text, "'q'");
  p = tp_arg(root, 0, 2)->parts;
  CHECK(p->param->w1->parts->kind == AST_P_SQ);
  CHECK_STR(p->param->w1->parts->text, "q");
  p = tp_arg(root, 0, 3)->parts;
  CHECK(p->kind == AST_P_LIT && p->next->kind == AST_P_SQ);
  CHECK(p->next->flags & AST_PF_BACKSLASH);
  CHECK(p->next->next->kind == AST_P_LIT);
  p = tp_arg(root, 0, 4)->parts;
  CHECK(p->kind == AST_P_SQ && (p->flags & AST_PF_DOLLAR) && p->len == 0);
  ast_tree_release(t);
  CHECK(m.blocks == 0);
}

TEST("parse-2.2") {
  /* Line numbers on commands and words. */
  mem m;
  ast_tree *t;
  ast_node *root, *n;
  mem_init(&m, 0);
  root =
      tp_parse(&m, "a\n\nb; c\nif x\nthen\n  y\nfi\ncat <<E\n1\n2\nE\nz", &t);
  REQUIRE(root);
  n = root->u.list.items;
  CHECK(n->line == 1);
  n = n->next;
  CHECK(n->line == 3);
  n = n->next;
  CHECK(n->line == 3);
  n = n->next;
  CHECK(n->kind == AST_IF && n->line == 4);
  CHECK(n->u.ifs.then->u.list.items->line == 6);
  n = n->next;
  CHECK(n->line == 8 && n->redirs && n->redirs->line == 8);
  n = n->next;
  CHECK(n->line == 12);
  ast_tree_release(t);
  CHECK(m.blocks == 0);
}

TEST("parse-2.3") {
  /* Reserved words only in command position; quoted ones are words. */
  mem m;
  ast_tree *t;
  ast_node *root;
  mem_init(&m, 0);
  root = tp_parse(&m, "echo if then fi; \"if\" x; \\fi y", &t);
  REQUIRE(root);
  CHECK(root->u.list.items->kind == AST_CMD);
  CHECK(root->u.list.items->next->kind == AST_CMD);
  CHECK(root->u.list.items->next->next->kind == AST_CMD);
  ast_tree_release(t);
  CHECK(m.blocks == 0);
}

TEST("parse-3.1") {
  /* Incomplete input for a REPL versus real syntax errors. */
  static const char *const incomplete[] = {
      "echo \"a", "echo 'a",     "if true; then", "while x; do",
      "echo a |", "echo a &&",   "( echo",        "{ echo",
      "echo $(",  "echo ${x",    "echo `a",       "cat <<EOF\nabc",
      "f() {",    "case x in",   "for i in a",    "echo $((1",
      "echo a\\", "echo a \\\n", "[[ a ==",       "x=(1",
      NULL};
  static const char *const bad[] = {
      "fi", "echo a; }", "a && || b", "if ; then :; fi", ")", NULL};
  mem m;
  int i;
  mem_init(&m, 0);
  for (i = 0; incomplete[i]; i++) {
    int r = parse_check(&m, incomplete[i], strlen(incomplete[i]), 0);
    if (!strcmp(incomplete[i], "[[ a ==")) {
      CHECK(r == MSB_ESYNTAX);
      continue;
    }
    if (r != MSB_EINCOMPLETE) fprintf(stderr, "  %s -> %d\n", incomplete[i], r);
    CHECK(r == MSB_EINCOMPLETE);
  }
  for (i = 0; bad[i]; i++)
    CHECK(parse_check(&m, bad[i], strlen(bad[i]), 0) == MSB_ESYNTAX);
  CHECK(parse_check(&m, "echo ok\n", 8, 0) == 0);
  CHECK(m.blocks == 0);
}

TEST("parse-3.2") {
  /* parse_next runs line by line: earlier commands come before an error
   * further down, like bash -c; the error keeps bash's line. */
  mem m;
  parser *p;
  ast_node *n;
  const parse_error *e;
  const char *src = "echo a\necho b; echo c\nfi\necho d";
  mem_init(&m, 0);
  p = parse_create(&m, src, strlen(src), 1, 0);
  REQUIRE(p);
  CHECK(parse_next(p, &n) == 0 && n && n->u.list.items->line == 1);
  CHECK(parse_next(p, &n) == 0 && n && n->u.list.items->next);
  CHECK(parse_next(p, &n) == MSB_ESYNTAX && !n);
  e = parse_get_error(p);
  CHECK(e->line == 3 && e->has_text == 1);
  CHECK_STR(e->text, "fi");
  CHECK_STR(e->msg, "syntax error near unexpected token `fi'");
  CHECK(e->status_rule == PARSE_STATUS_2);
  CHECK(parse_next(p, &n) == MSB_ESYNTAX);
  parse_destroy(p);
  CHECK(m.blocks == 0);
}

TEST("parse-3.3") {
  /* Here-document at end of input: bash warns and uses the body. */
  mem m;
  parser *p;
  ast_node *n;
  size_t wl;
  const char *src = "cat <<EOF\nabc";
  mem_init(&m, 0);
  p = parse_create(&m, src, strlen(src), 1, 0);
  REQUIRE(p);
  CHECK(parse_next(p, &n) == 0 && n);
  CHECK_STR(parse_warnings(p, &wl),
            "line 2: warning: here-document at line 1 delimited by "
            "end-of-file (wanted `EOF')\n");
  CHECK(parse_next(p, &n) == 0 && !n);
  CHECK(wl > 0);
  parse_destroy(p);
  CHECK(m.blocks == 0);
}

TEST("parse-3.4") {
  /* Exit status rules bash -c applies after an error. */
  mem m;
  parse_error e;
  ast_tree *t;
  ast_node *root;
  mem_init(&m, 0);
  CHECK(parse_string(&m, "[[ a b ]]", 9, 1, 0, &t, &root, &e) == MSB_ESYNTAX);
  CHECK(e.status_rule == PARSE_STATUS_KEEP);
  CHECK(parse_string(&m, "echo \"x", 7, 1, 0, &t, &root, &e) ==
        MSB_EINCOMPLETE);
  CHECK(e.status_rule == PARSE_STATUS_NZ);
  CHECK(parse_string(&m, "if", 2, 1, 0, &t, &root, &e) == MSB_EINCOMPLETE);
  CHECK(e.status_rule == PARSE_STATUS_2);
  CHECK(m.blocks == 0);
}

TEST("parse-3.5") {
  /* Deferred substitutions: errors inside backquotes and here-document
   * $( belong to the run, as in bash. */
  mem m;
  ast_tree *t;
  ast_node *root;
  const ast_part *p;
  mem_init(&m, 0);
  root = tp_parse(&m, "echo `if true; then fi` ok", &t);
  REQUIRE(root);
  p = tp_arg(root, 0, 1)->parts;
  CHECK(p->kind == AST_P_CMDSUB && (p->flags & AST_PF_DEFERRED) && !p->cmd);
  CHECK_STR(p->text, "if true; then fi");
  ast_tree_release(t);
  root = tp_parse(&m, "cat <<EOF\n$(echo a\nEOF\necho next", &t);
  REQUIRE(root);
  CHECK(root->u.list.items->next != NULL);
  p = root->u.list.items->redirs->body->parts;
  CHECK(p->kind == AST_P_CMDSUB && (p->flags & AST_PF_DEFERRED));
  ast_tree_release(t);
  CHECK(m.blocks == 0);
}

TEST("parse-4.1") {
  /* NUL bytes are dropped like bash does for piped scripts; invalid UTF-8
   * is just bytes. */
  mem m;
  char *got;
  mem_init(&m, 0);
  got = tp_render(&m, "echo a\0b \xff\xfe", 12);
  CHECK_STR(got, "(list (cmd echo ab \\xff\\xfe))");
  free(got);
  CHECK(m.blocks == 0);
}

/* The nesting-limit error as tp_render shows it. */
static const char *tp_depth_msg(void) {
  static char msg[96];
  snprintf(msg, sizeof msg,
           "ERR -14: bash: -c: maximum nesting depth exceeded (%d)",
           PARSE_MAX_DEPTH);
  return msg;
}

/* Builds a string of n copies of s followed by tail. */
static char *tp_repeat(const char *s, size_t n, const char *tail) {
  size_t k = strlen(s), t = strlen(tail), i;
  char *p = malloc(k * n + t + 1);
  if (!p) return NULL;
  for (i = 0; i < n; i++) memcpy(p + i * k, s, k);
  memcpy(p + k * n, tail, t + 1);
  return p;
}

TEST("parse-4.2") {
  /* 10,000-deep nesting of every recursive construct ends in the nesting
   * error, not a stack overflow. */
  static const char *const openers[] = {
      "( ",     "$(",     "{ ",       "\"$(",   "${x:-",
      "if ",    "$(( $(", "a=(${x:-", "f() { ", "case a in a) ",
      "while ", "x | { ", "! { ",     "<(",     "$(( $[ $(",
      NULL};
  mem m;
  int i;
  mem_init(&m, 0);
  for (i = 0; openers[i]; i++) {
    char *s = tp_repeat(openers[i], 10000, "");
    char *got;
    REQUIRE(s);
    got = tp_render(&m, s, strlen(s));
    if (!got || strcmp(got, tp_depth_msg()))
      fprintf(stderr, "  opener %s\n", openers[i]);
    CHECK_STR(got, tp_depth_msg());
    free(got);
    free(s);
  }
  /* [[ ( ( ( ... and [[ ! ! ! ... nest too. */
  {
    char *s = tp_repeat("( ", 10000, ""), *t2, *got;
    REQUIRE(s);
    t2 = malloc(strlen(s) + 4);
    REQUIRE(t2);
    memcpy(t2, "[[ ", 3);
    memcpy(t2 + 3, s, strlen(s) + 1);
    got = tp_render(&m, t2, strlen(t2));
    CHECK_STR(got, tp_depth_msg());
    free(got);
    free(t2);
    free(s);
  }
  CHECK(m.blocks == 0);
}

TEST("parse-4.3") {
  /* One level below the limit is fine; one above is not. */
  mem m;
  char *s, *got;
  size_t ok = PARSE_MAX_DEPTH - 1;
  mem_init(&m, 0);
  s = tp_repeat("( ", ok, "a");
  REQUIRE(s);
  {
    size_t n = strlen(s);
    char *t2 = malloc(n + ok + 1);
    REQUIRE(t2);
    memcpy(t2, s, n);
    memset(t2 + n, ')', ok);
    t2[n + ok] = 0;
    free(s);
    s = t2;
  }
  got = tp_render(&m, s, strlen(s));
  CHECK(got && strncmp(got, "ERR", 3));
  free(got);
  free(s);
  s = tp_repeat("{ ", PARSE_MAX_DEPTH + 1, "");
  got = tp_render(&m, s, strlen(s));
  CHECK_STR(got, tp_depth_msg());
  free(got);
  free(s);
  CHECK(m.blocks == 0);
}

TEST("parse-4.4") {
  /* A 1 MB script parses, and in linear time (this would time out if the
   * lexer rescanned). */
  static const char pat[] = "echo \"$x\" 'y' | cat; a=$((1+2))\n";
  mem m;
  char *s, *got;
  size_t i, n = 1 << 20;
  mem_init(&m, 0);
  s = malloc(n + 1);
  REQUIRE(s);
  for (i = 0; i < n; i++) s[i] = pat[i % (sizeof pat - 1)];
  s[n] = 0;
  s[n - 1] = '\n';
  got = tp_render(&m, s, n);
  CHECK(got && !strncmp(got, "(list ", 6));
  free(got);
  /* One huge word and one huge quoted string. */
  memset(s, 'a', n);
  got = tp_render(&m, s, n);
  CHECK(got && !strncmp(got, "(list (cmd aaaa", 15));
  free(got);
  s[0] = '"';
  got = tp_render(&m, s, n);
  CHECK(got && !strncmp(got, "ERR -21", 7));
  free(got);
  free(s);
  CHECK(m.blocks == 0);
}

TEST("parse-4.5") {
  /* Unterminated everything, one prefix at a time: never a crash or leak,
   * always a clean result. */
  static const char *const src =
      "f() { for i in \"$(echo ${x:-`a`} $((1+(2))) <(b))\" 'c' $'d'; do "
      "case $i in (a|b) [[ -n $i && $i =~ ^(x)$ ]] ;; *) ((i++)) ;& esac; "
      "done <<EOF 2>&1 | { cat; } &\nbody $x\nEOF\n}; a=(1 [2]=3) b+=4 f";
  mem m;
  size_t n, len = strlen(src);
  mem_init(&m, 0);
  for (n = 0; n <= len; n++) {
    char *got = tp_render(&m, src, n);
    CHECK(got != NULL);
    free(got);
  }
  CHECK(m.blocks == 0);
}

TEST("parse-4.6") {
  /* Allocation failure at every point: a clean MSB_ENOMEM, nothing
   * leaked, and the same result once memory suffices. */
  static const char *const src =
      "a=(1 2); f() { echo \"${x:-$(cat <<EOF\nq $y\nEOF\n)}\" `b` | c; }\n"
      "[[ $a =~ (x) ]] && (( y++ )) || case z in z) : ;; esac";
  mem m;
  long k;
  int done = 0;
  for (k = 0; k < 100000 && !done; k++) {
    ast_tree *t;
    ast_node *root;
    parse_error e;
    int r;
    mem_init(&m, 0);
    m.fail_after = k;
    r = parse_string(&m, src, strlen(src), 1, 0, &t, &root, &e);
    if (r == 0) {
      ast_tree_release(t);
      done = 1;
    } else if (r != MSB_ENOMEM) {
      CHECK(r == MSB_ENOMEM);
      break;
    }
    CHECK(m.blocks == 0);
    if (m.blocks) break;
  }
  CHECK(done);
}

TEST("parse-4.7") {
  /* Trees are reference counted: a retained tree outlives the parse. */
  mem m;
  ast_tree *t;
  ast_node *root;
  mem_init(&m, 0);
  root = tp_parse(&m, "f() { echo hi; }", &t);
  REQUIRE(root);
  ast_tree_retain(t);
  ast_tree_release(t);
  CHECK(root->u.list.items->kind == AST_FUNC);
  ast_tree_release(t);
  CHECK(m.blocks == 0);
}

TEST("parse-4.8") {
  /* $( ) nested in command position is parsed once per level although the
   * word is re-lexed in another mode at every level: 200 levels take
   * little memory (parsing them again per level doubled it each level). */
  static const char *const forms[] = {"x=$(", "$(", "a[$(", NULL};
  mem m;
  int i;
  mem_init(&m, 0);
  for (i = 0; forms[i]; i++) {
    size_t k = strlen(forms[i]), n = 0, d;
    char *s = malloc(200 * (k + 2) + 16), *got;
    REQUIRE(s);
    for (d = 0; d < 200; d++) {
      memcpy(s + n, forms[i], k);
      n += k;
    }
    memcpy(s + n, "echo x", 6);
    n += 6;
    for (d = 0; d < 200; d++) s[n++] = ')';
    s[n] = 0;
    m.peak = m.used;
    got = tp_render(&m, s, n);
    CHECK(got && (forms[i][0] == 'a' || strncmp(got, "ERR", 3)));
    CHECK(m.peak - m.used < ((size_t)8 << 20));
    free(got);
    free(s);
  }
  CHECK(m.blocks == 0);
}

TEST("parse-4.9") {
  /* Nesting is also bounded by the native stack it costs: a caller deep
   * in a recursion of its own lowers the budget (parse_set_stack) and
   * gets a nesting error marked as its own (stack), not the input's. */
  mem m;
  parser *p;
  ast_node *n;
  char *s = tp_repeat("( ", 50, "a");
  REQUIRE(s);
  mem_init(&m, 0);
  p = parse_create(&m, s, strlen(s), 1, 0);
  REQUIRE(p);
  parse_set_stack(p, 10 * PARSE_STACK_LEVEL);
  CHECK(parse_next(p, &n) == MSB_ELIMIT);
  CHECK(parse_get_error(p)->stack == 1);
  CHECK_STR(parse_get_error(p)->msg,
            "maximum nesting depth exceeded (native stack)");
  parse_destroy(p);
  /* the same input with the whole budget: an ordinary (unclosed) error */
  p = parse_create(&m, s, strlen(s), 1, 0);
  REQUIRE(p);
  CHECK(parse_next(p, &n) != 0 && parse_get_error(p)->stack == 0);
  parse_destroy(p);
  free(s);
  CHECK(m.blocks == 0);
}

TEST("parse-4.10") {
  /* && || chains of any length parse, print and nest to the left. */
  mem m;
  ast_tree *t;
  ast_node *root;
  buf b;
  size_t i, n = 50000;
  char *s = malloc(n * 8 + 64);
  size_t k = 0;
  REQUIRE(s);
  mem_init(&m, 0);
  memcpy(s, "f() { a", 7);
  k = 7;
  for (i = 1; i < n; i++) {
    memcpy(s + k, i % 3 ? " && a" : " || a", 5);
    k += 5;
  }
  memcpy(s + k, "; }", 4);
  k += 3;
  root = tp_parse(&m, s, &t);
  REQUIRE(root);
  buf_init(&b, &m);
  CHECK(ast_print_function(&b, "f", root->u.list.items->u.func.body,
                           AST_PRINT_STACK_MAX) == 0);
  CHECK(b.len > k && !strncmp(b.p, "f () \n{ \n    a && a && a || a", 29));
  buf_finish(&b);
  /* a tiny printing budget refuses instead of overflowing */
  buf_init(&b, &m);
  CHECK(ast_print_function(&b, "f", root->u.list.items->u.func.body,
                           AST_PRINT_LEVEL) == MSB_ELIMIT);
  buf_finish(&b);
  ast_tree_release(t);
  free(s);
  CHECK(m.blocks == 0);
}

TEST("parse-5.1") {
  /* Function definitions print like bash's `declare -f` (checked against
   * bash 5.2 on a corpus of 2,200 scripts). */
  static const tp_case cases[] = {
      {"f() { a; b; }", "f () \n{ \n    a;\n    b\n}"},
      {"f() ( a; b )", "f () \n{ \n    ( a;\n    b )\n}"},
      {"f() { if a; then :; elif b; then c; fi; }",
       "f () \n{ \n    if a; then\n        :;\n    else\n        if b; then\n"
       "            c;\n        fi;\n    fi\n}"},
      {"f() { for i; do :; done; }",
       "f () \n{ \n    for i in \"$@\";\n    do\n        :;\n    done\n}"},
      {"f() { case x in a|b) ;; *) c;& esac; }",
       "f () \n{ \n    case x in \n        a | b)\n\n        ;;\n        *)\n"
       "            c\n        ;&\n    esac\n}"},
      {"f() { a 2>e <&3 >&- 4<&- {fd}>x 1>o; } > log",
       "f () \n{ \n    a 2> e 0<&3 1>&- 4>&- {fd}> x > o\n} > log"},
      {"f() { cat <<E; b; c\nx $y\nE\n}",
       "f () \n{ \n    cat <<E\nx $y\nE\n\n    b\n    c\n}"},
      {"f() { x=$(for i in 1; do :; done); echo $'it\\'s' \\\n a; }",
       "f () \n{ \n    x=$(for i in 1;\ndo\n    :;\ndone);\n"
       "    echo 'it'\\''s' a\n}"},
      {"f() { [[ ! -f a || ( b < c ) ]]; ((i++)); a=( 1  [k]=v ); }",
       "f () \n{ \n    [[ ! -f a || ( b < c ) ]];\n    ((i++));\n"
       "    a=(1 [k]=v)\n}"},
      {"f() { a & b | c && d; }", "f () \n{ \n    a & b | c && d\n}"},
  };
  mem m;
  size_t i;
  mem_init(&m, 0);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ast_tree *t;
    ast_node *root = tp_parse(&m, cases[i].src, &t);
    buf b;
    REQUIRE(root && root->u.list.items->kind == AST_FUNC);
    buf_init(&b, &m);
    CHECK(ast_print_function(&b, root->u.list.items->u.func.name,
                             root->u.list.items->u.func.body,
                             AST_PRINT_STACK_MAX) == 0);
    CHECK_STR(buf_str(&b), cases[i].want);
    buf_finish(&b);
    ast_tree_release(t);
  }
  CHECK(m.blocks == 0);
}

TEST("parse-3.6") {
  /* bash -c's exit status after errors inside substitutions. */
  mem m;
  parse_error e;
  ast_tree *t;
  ast_node *root;
  mem_init(&m, 0);
  CHECK(parse_string(&m, "echo $(fi)", 10, 1, 0, &t, &root, &e) == MSB_ESYNTAX);
  CHECK(e.status_rule == PARSE_STATUS_127);
  CHECK(parse_string(&m, "echo $(a\nb", 10, 1, 0, &t, &root, &e) ==
        MSB_EINCOMPLETE);
  CHECK(e.status_rule == PARSE_STATUS_2);
  CHECK(e.line == 3);
  CHECK(m.blocks == 0);
}
