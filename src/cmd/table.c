/* table.c - the command table: commands.def expanded into a sorted array,
 * searched by binary search (the list is kept sorted bytewise; a unit test
 * checks it). */
#include <string.h>

#include "cmd.h"

static const cmd_desc table_cmds[] = {
#define CMD(name, fn, flags, purpose) {name, fn, flags, purpose},
#include "commands.def"
#undef CMD
    {0, 0, 0, 0}};

#define TABLE_N (sizeof table_cmds / sizeof table_cmds[0] - 1)

const cmd_desc *cmd_find(const char *name) {
  size_t lo = 0, hi = TABLE_N;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int r = strcmp(name, table_cmds[mid].name);
    if (r == 0) return &table_cmds[mid];
    if (r < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return 0;
}

const cmd_desc *cmd_table(size_t *count) {
  if (count) *count = TABLE_N;
  return table_cmds;
}

int cmd_is_program(const char *name) {
  return strchr(name, '/') || cmd_find(name) || !strcmp(name, "bash") ||
         !strcmp(name, "sh");
}
