/* test_builtin.c - the builtin table (src/builtin/builtins.def). */
#include <string.h>

#include "../../src/interp.h"
#include "test.h"

TEST("builtin-1.1 table sorted bytewise, every entry found") {
  size_t n, i;
  const sh_builtin *t = builtin_table(&n);
  CHECK(n > 0);
  for (i = 0; i < n; i++) {
    CHECK(t[i].name && t[i].fn);
    if (i) CHECK(strcmp(t[i - 1].name, t[i].name) < 0);
    CHECK(builtin_find(t[i].name) == &t[i]);
  }
  CHECK(builtin_find("no-such-builtin") == NULL);
  CHECK(builtin_find("") == NULL);
}
