/* table.c - builtins.def expanded into the sorted table that builtin_find
 * searches (the list is kept sorted bytewise; a unit test checks it). */
#include <string.h>

#include "builtin.h"

static const sh_builtin table_builtins[] = {
#define BUILTIN(name, fn, flags, help, purpose) {name, fn, flags},
#include "builtins.def"
#undef BUILTIN
};

#define TABLE_N (sizeof table_builtins / sizeof table_builtins[0])

/* Looks up a shell builtin. */
const sh_builtin *builtin_find(const char *name) {
  size_t lo = 0, hi = TABLE_N;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    /* first bytes decide most steps without a call */
    int c = (unsigned char)name[0] - (unsigned char)table_builtins[mid].name[0];
    if (!c) c = strcmp(name, table_builtins[mid].name);
    if (!c) return &table_builtins[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* The whole table. */
const sh_builtin *builtin_table(size_t *count) {
  *count = TABLE_N;
  return table_builtins;
}
