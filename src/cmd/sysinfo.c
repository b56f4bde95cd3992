/* sysinfo.c - whoami, hostname, id, nproc, uname, clear: fixed facts of
 * the sandbox's machine (GNU coreutils, hostname, ncurses clear).
 *
 * The sandbox is one user, "user" (uid and gid 1000), on a one-CPU Linux
 * host named "memsandbox" whose machine reports x86_64 so that scripts
 * probing the platform take their common path. root (0) and nobody (65534)
 * exist for `id NAME`. Nothing here reads the real host. */
#include <string.h>

#include "cmd.h"

static const cmd_opt sysinfo_none[] = {{0, 0, 0, 0}};

/* Parses options that take none; returns -1 to go on, else a status. */
static int sysinfo_noopts(cmd_ctx *c, cmd_getopt *g, const char *usage,
                          int max_ops) {
  int k;
  cmd_opt_init(g, c, sysinfo_none, usage, 0);
  while ((k = cmd_opt_next(g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g->status : k;
  if (g->nops > max_ops)
    return cmd_usage_err(g, "extra operand %s", cmd_quote(c, g->ops[max_ops]));
  return -1;
}

/* whoami: print the user name. */
int cmd_whoami(cmd_ctx *c) {
  cmd_getopt g;
  int rc = sysinfo_noopts(c, &g,
                          "Usage: whoami [OPTION]...\n"
                          "Print the user name associated with the current "
                          "effective user ID.\n",
                          0);
  if (rc >= 0) return rc;
  return cmd_puts(c, "user\n") < 0 ? MSB_ELIMIT : 0;
}

static const cmd_opt hostname_opts[] = {{'s', "short", CMD_ARG_NONE, 's'},
                                        {'f', "fqdn", CMD_ARG_NONE, 'f'},
                                        {'d', "domain", CMD_ARG_NONE, 'd'},
                                        {'i', "ip-address", CMD_ARG_NONE, 'i'},
                                        {0, 0, 0, 0}};

/* hostname: print the host name (setting it is refused). */
int cmd_hostname(cmd_ctx *c) {
  cmd_getopt g;
  int k;
  const char *out = "memsandbox\n";
  cmd_opt_init(&g, c, hostname_opts,
               "Usage: hostname [-s|-f|-d|-i]\n"
               "Show the system's host name.\n",
               0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'd') out = "\n";
    if (k == 'i') out = "127.0.0.1\n";
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops) {
    cmd_err(c, "you must be root to change the host name");
    return 1;
  }
  return cmd_puts(c, out) < 0 ? MSB_ELIMIT : 0;
}

typedef struct sysinfo_user {
  const char *name, *group;
  unsigned id;
} sysinfo_user;

static const sysinfo_user sysinfo_users[] = {
    {"user", "user", 1000}, {"root", "root", 0}, {"nobody", "nogroup", 65534}};

static const cmd_opt id_opts[] = {{'u', "user", CMD_ARG_NONE, 'u'},
                                  {'g', "group", CMD_ARG_NONE, 'g'},
                                  {'G', "groups", CMD_ARG_NONE, 'G'},
                                  {'n', "name", CMD_ARG_NONE, 'n'},
                                  {'r', "real", CMD_ARG_NONE, 'r'},
                                  {'z', "zero", CMD_ARG_NONE, 'z'},
                                  {0, 0, 0, 0}};

/* id: print user and group ids. */
int cmd_id(cmd_ctx *c) {
  cmd_getopt g;
  int k, which = 0, name = 0, i;
  const sysinfo_user *u = &sysinfo_users[0];
  cmd_opt_init(&g, c, id_opts,
               "Usage: id [OPTION]... [USER]...\n"
               "Print user and group information for each specified USER,\n"
               "or (when USER omitted) for the current process.\n"
               "\n"
               "  -g, --group    print only the effective group ID\n"
               "  -G, --groups   print all group IDs\n"
               "  -n, --name     print a name instead of a number, for "
               "-ugG\n"
               "  -r, --real     print the real ID instead of the effective "
               "ID, with -ugG\n"
               "  -u, --user     print only the effective user ID\n"
               "  -z, --zero     delimit entries with NUL characters, not "
               "whitespace;\n",
               0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'u' || k == 'g' || k == 'G') {
      if (which && which != k) {
        cmd_err(c, "cannot print \"only\" of more than one choice");
        return 1;
      }
      which = k;
    }
    if (k == 'n') name = 1;
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (name && !which) {
    cmd_err(c, "cannot print only names or real IDs in default format");
    return 1;
  }
  if (g.nops > 1)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
  if (g.nops) {
    u = NULL;
    for (i = 0; i < 3; i++)
      if (!strcmp(g.ops[0], sysinfo_users[i].name)) u = &sysinfo_users[i];
    if (!u) {
      cmd_err(c, "%s: no such user", cmd_quote(c, g.ops[0]));
      return 1;
    }
  }
  if (which == 'u')
    k = name ? cmd_outf(c, "%s\n", u->name) : cmd_outf(c, "%u\n", u->id);
  else if (which)
    k = name ? cmd_outf(c, "%s\n", u->group) : cmd_outf(c, "%u\n", u->id);
  else
    k = cmd_outf(c, "uid=%u(%s) gid=%u(%s) groups=%u(%s)\n", u->id, u->name,
                 u->id, u->group, u->id, u->group);
  return k < 0 ? k : 0;
}

enum { NPROC_ALL = 256, NPROC_IGNORE };
static const cmd_opt nproc_opts[] = {{0, "all", CMD_ARG_NONE, NPROC_ALL},
                                     {0, "ignore", CMD_ARG_REQ, NPROC_IGNORE},
                                     {0, 0, 0, 0}};

/* nproc: the sandbox has one processing unit. */
int cmd_nproc(cmd_ctx *c) {
  cmd_getopt g;
  int k;
  int64_t ign;
  cmd_opt_init(&g, c, nproc_opts,
               "Usage: nproc [OPTION]...\n"
               "Print the number of processing units available to the "
               "current process,\n"
               "which may be less than the number of online processors\n"
               "\n"
               "      --all      print the number of installed processors\n"
               "      --ignore=N  if possible, exclude N processing units\n",
               0);
  while ((k = cmd_opt_next(&g)) > 0)
    if (k == NPROC_IGNORE && (cmd_parse_int(g.arg, &ign) || ign < 0)) {
      cmd_err(c, "invalid number: %s", cmd_quote(c, g.arg));
      return 1;
    }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[0]));
  return cmd_puts(c, "1\n") < 0 ? MSB_ELIMIT : 0;
}

static const cmd_opt uname_opts[] = {
    {'a', "all", CMD_ARG_NONE, 'a'},
    {'s', "kernel-name", CMD_ARG_NONE, 's'},
    {'n', "nodename", CMD_ARG_NONE, 'n'},
    {'r', "kernel-release", CMD_ARG_NONE, 'r'},
    {'v', "kernel-version", CMD_ARG_NONE, 'v'},
    {'m', "machine", CMD_ARG_NONE, 'm'},
    {'p', "processor", CMD_ARG_NONE, 'p'},
    {'i', "hardware-platform", CMD_ARG_NONE, 'i'},
    {'o', "operating-system", CMD_ARG_NONE, 'o'},
    {0, 0, 0, 0}};

/* uname: print system information in GNU's field order. */
int cmd_uname(cmd_ctx *c) {
  static const char fields[] = "snrvmpio";
  static const char *const values[] = {
      "Linux",  "memsandbox", "6.1.0-memsandbox", "#1 SMP PREEMPT_DYNAMIC",
      "x86_64", "unknown",    "unknown",          "GNU/Linux"};
  cmd_getopt g;
  unsigned want = 0;
  int k, i, first = 1, all = 0;
  cmd_opt_init(&g, c, uname_opts,
               "Usage: uname [OPTION]...\n"
               "Print certain system information.  With no OPTION, same as "
               "-s.\n",
               0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'a') {
      all = 1;
      continue;
    }
    want |= 1u << (strchr(fields, k) - fields);
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[0]));
  /* -a prints everything but an unknown processor or platform */
  if (all) want |= 0xffu & ~(1u << 5 | 1u << 6);
  if (!want) want = 1;
  for (i = 0; i < 8; i++) {
    if (!(want & (1u << i))) continue;
    if ((k = cmd_outf(c, "%s%s", first ? "" : " ", values[i])) < 0) return k;
    first = 0;
  }
  return cmd_write(c, "\n", 1) < 0 ? MSB_ELIMIT : 0;
}

/* clear: the escape sequence ncurses' clear writes for xterm. */
int cmd_clear(cmd_ctx *c) {
  cmd_getopt g;
  int rc = sysinfo_noopts(c, &g, "Usage: clear [-x]\n", 0);
  if (rc >= 0) return rc;
  return cmd_puts(c, "\033[H\033[2J\033[3J") < 0 ? MSB_ELIMIT : 0;
}
