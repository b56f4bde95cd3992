/* table.c - the command table: commands.def expanded into a sorted array,
 * searched by binary search (the list is kept sorted bytewise; a unit test
 * checks it). */
#include <string.h>

#include "../order.h"
#include "cmd.h"

static const cmd_desc table_cmds[] = {
#define CMD(name, fn, file, flags, purpose) {name, fn, flags, purpose},
#include "commands.def"
#undef CMD
    {0, 0, 0, 0}};

#define TABLE_N (sizeof table_cmds / sizeof table_cmds[0] - 1)

const cmd_desc *cmd_find(const char *name) {
  return order_find_name(table_cmds, TABLE_N, sizeof *table_cmds, name);
}

/* The commands that pause (CMD_PAUSES) are called directly: Asyncify, which
 * lets a wasm run pause, follows direct calls only. The test of the
 * constant flags leaves a direct call for those commands alone. */
int cmd_call(const cmd_desc *d, cmd_ctx *c) {
#define CMD(name, func, file, flags, purpose) \
  if (((flags) & CMD_PAUSES) && d->fn == func) return func(c);
#include "commands.def"
#undef CMD
  return d->fn(c);
}

const cmd_desc *cmd_table(size_t *count) {
  if (count) *count = TABLE_N;
  return table_cmds;
}

/* The program number of a command name. */
unsigned cmd_prog_id(const char *name) {
  const cmd_desc *d = cmd_find(name);
  if (d) return (unsigned)(d - table_cmds) + 1;
  if (!strcmp(name, "bash")) return TABLE_N + 1;
  return !strcmp(name, "sh") ? TABLE_N + 2 : 0;
}

/* The command name of a program number. */
const char *cmd_prog_name(unsigned id) {
  if (id >= 1 && id <= TABLE_N) return table_cmds[id - 1].name;
  return id == TABLE_N + 1 ? "bash" : id == TABLE_N + 2 ? "sh" : NULL;
}

int cmd_is_program(const char *name) {
  return strchr(name, '/') || cmd_find(name) || !strcmp(name, "bash") ||
         !strcmp(name, "sh");
}
