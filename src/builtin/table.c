/* table.c - builtins.def expanded into the sorted table that builtin_find
 * searches (the list is kept sorted bytewise; a unit test checks it). */
#include <string.h>

#include "../order.h"
#include "builtin.h"

static const sh_builtin table_builtins[] = {
#define BUILTIN(name, fn, flags, help, purpose) {name, fn, flags},
#include "builtins.def"
#undef BUILTIN
};

#define TABLE_N (sizeof table_builtins / sizeof table_builtins[0])

/* Looks up a shell builtin. */
const sh_builtin *builtin_find(const char *name) {
  return order_find_name(table_builtins, TABLE_N, sizeof *table_builtins, name);
}

/* The whole table. */
const sh_builtin *builtin_table(size_t *count) {
  *count = TABLE_N;
  return table_builtins;
}
