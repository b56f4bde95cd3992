/* fuzz_parse.c - libFuzzer target: arbitrary bytes through the shell front
 * end (lexer, parser, AST printer).
 *
 * Each input is parsed twice: once command by command with parse_next (the
 * way the interpreter runs scripts, each command also printed the way
 * `declare -f` does) and once whole with parse_string, with the tree
 * printed. Both must agree on success or failure, every error must
 * carry a known code and a message, and freeing must return every byte.
 * The sanitizers catch memory errors and undefined behaviour; the nesting
 * limit keeps hostile nesting off the C stack. Built by `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ast.h"
#include "../../src/buf.h"
#include "../../src/parse.h"
#include "memsandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int ok) {
  if (!ok) abort();
}

static int fuzz_known(int rc) {
  return rc == MSB_ESYNTAX || rc == MSB_EINCOMPLETE || rc == MSB_ELIMIT ||
         rc == MSB_ENOMEM || rc == MSB_ENOTSUP;
}

/* The first byte's low bit turns extglob on, so both lexers get fuzzed. */
static unsigned fuzz_flags(const uint8_t *data, size_t size) {
  return size && (data[0] & 1) ? PARSE_EXTGLOB : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m;
  parser *p;
  ast_node *n;
  ast_tree *t;
  parse_error e;
  buf b;
  int r1, r2;
  if (size > 1 << 16) return 0;
  mem_init(&m, 64u << 20);
  buf_init(&b, &m);
  p = parse_create(&m, (const char *)data, size, 1, fuzz_flags(data, size));
  fuzz_check(p != NULL);
  do {
    r1 = parse_next(p, &n);
    if (!r1 && n) {
      int rf;
      ast_print(&b, n);
      /* Any command can be a function body for the bash-style printer. */
      rf = ast_print_function(&b, "f", n, AST_PRINT_STACK_MAX);
      fuzz_check(rf == 0 || rf == MSB_ENOMEM || rf == MSB_ENOTSUP ||
                 rf == MSB_ELIMIT);
    }
  } while (!r1 && n);
  if (r1) {
    const parse_error *pe = parse_get_error(p);
    fuzz_check(fuzz_known(r1) && pe->code == r1);
    parse_error_format(&b, pe, "bash: -c: ");
  }
  parse_destroy(p);
  r2 = parse_string(&m, (const char *)data, size, 1, fuzz_flags(data, size), &t,
                    &n, &e);
  fuzz_check(r1 == r2);
  if (!r2) {
    ast_print(&b, n);
    ast_tree_release(t);
  }
  buf_finish(&b);
  fuzz_check(m.blocks == 0 && m.used == 0);
  return 0;
}
