/* env.c - env and printenv (GNU coreutils 9).
 *
 * Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]
 *   -i, --ignore-environment  start with an empty environment
 *   -0, --null                end each output line with NUL, not newline
 *   -u, --unset=NAME          remove variable from the environment
 * Usage: printenv [OPTION]... [VARIABLE]...
 *   -0, --null                end each output line with NUL, not newline
 * env runs COMMAND through the shell's lookup (ctx->run) with ctx->envp
 * set to the new environment, which run() passes on as the command's whole
 * exported environment. -C, -S and the signal options are refused. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const cmd_opt env_opts[] = {
    {'i', "ignore-environment", CMD_ARG_NONE, 'i'},
    {'0', "null", CMD_ARG_NONE, '0'},
    {'u', "unset", CMD_ARG_REQ, 'u'},
    {'C', "chdir", CMD_ARG_REQ, 'C'},
    {'S', "split-string", CMD_ARG_REQ, 'S'},
    {'v', "debug", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

static const char env_usage[] MSB_COLD =
    "Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\n"
    "Set each NAME to VALUE in the environment and run COMMAND.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -i, --ignore-environment  start with an empty environment\n"
    "  -0, --null           end each output line with NUL, not newline\n"
    "  -u, --unset=NAME     remove variable from the environment\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "A mere - implies -i.  If no COMMAND, print the resulting "
    "environment.\n";

/* Length of the NAME in "NAME=value" (whole string if no '='). */
static size_t env_namelen(const char *s) {
  const char *eq = strchr(s, '=');
  return eq ? (size_t)(eq - s) : strlen(s);
}

/* Removes NAME from a NULL-terminated list (in place). */
static void env_unset(char **env, int *n, const char *name) {
  int i, j = 0;
  size_t len = strlen(name);
  for (i = 0; i < *n; i++)
    if (!(env_namelen(env[i]) == len && !memcmp(env[i], name, len)))
      env[j++] = env[i];
  *n = j;
  env[j] = NULL;
}

static int env_print(cmd_ctx *c, char **env, int z) {
  int rc;
  for (; *env; env++)
    if ((rc = cmd_puts(c, *env)) < 0 ||
        (rc = cmd_write(c, z ? "" : "\n", 1)) < 0)
      return rc;
  return 0;
}

/* env: run a command in a modified environment, or print it. */
int cmd_env(cmd_ctx *c) {
  cmd_getopt g;
  char **env;
  int k, n = 0, cap = 0, z = 0, i, first;
  for (i = 0; c->envp && c->envp[i]; i++) cap++;
  cap += c->argc + 1;
  env = arena_alloc(c->a, sizeof *env * (size_t)cap);
  if (!env) return MSB_ENOMEM;
  for (i = 0; c->envp && c->envp[i]; i++) env[n++] = c->envp[i];
  env[n] = NULL;
  cmd_opt_init(&g, c, env_opts, env_usage, CMD_OPTF_NOPERMUTE);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'i':
      n = 0;
      env[0] = NULL;
      break;
    case '0': z = 1; break;
    case 'u':
      if (!*g.arg || strchr(g.arg, '=')) {
        cmd_err(c, "cannot unset %s: Invalid argument", cmd_quote(c, g.arg));
        return 125;
      }
      env_unset(env, &n, g.arg);
      break;
    default:
      cmd_err(c, "option '%s' is not supported in memsandbox",
              g.optname ? g.optname : "-C");
      return 125;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 125 : k;
  first = 0;
  if (g.nops && !strcmp(g.ops[0], "-")) {
    n = 0;
    env[0] = NULL;
    first = 1;
  }
  for (; first < g.nops && strchr(g.ops[first], '='); first++) {
    char *name = arena_strndup(c->a, g.ops[first], env_namelen(g.ops[first]));
    if (!name) return MSB_ENOMEM;
    env_unset(env, &n, name);
    env[n++] = g.ops[first];
    env[n] = NULL;
  }
  if (first == g.nops) return env_print(c, env, z);
  if (z) {
    cmd_err(c, "cannot specify --null (-0) with command");
    cmd_err(c, "Try 'env --help' for more information.");
    return 125;
  }
  /* like the real env, only programs run: not shell functions or builtins
   * such as cd */
  if (!c->run || !cmd_is_program(g.ops[first])) {
    cmd_err(c, "%s: No such file or directory", cmd_quote(c, g.ops[first]));
    return 127;
  }
  c->envp = env;
  return c->run(c, g.nops - first, g.ops + first, c->in, c->in_len, c->out,
                c->err);
}

static const cmd_opt printenv_opts[] = {{'0', "null", CMD_ARG_NONE, '0'},
                                        {0, 0, 0, 0}};

/* printenv: print all or part of the environment. */
int cmd_printenv(cmd_ctx *c) {
  cmd_getopt g;
  int k, z = 0, i, status = 0, rc;
  char **e;
  cmd_opt_init(&g, c, printenv_opts,
               "Usage: printenv [OPTION]... [VARIABLE]...\n"
               "Print the values of the specified environment VARIABLE(s).\n"
               "If no VARIABLE is specified, print name and value pairs for "
               "them all.\n"
               "\n"
               "  -0, --null     end each output line with NUL, not "
               "newline\n",
               0);
  while ((k = cmd_opt_next(&g)) > 0) z = 1;
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? 2 : k;
  if (!g.nops) {
    static char *none[] = {NULL};
    return env_print(c, c->envp ? c->envp : none, z);
  }
  for (i = 0; i < g.nops; i++) {
    size_t len = strlen(g.ops[i]);
    int found = 0;
    if (!strchr(g.ops[i], '='))
      for (e = c->envp; e && *e; e++)
        if (env_namelen(*e) == len && !memcmp(*e, g.ops[i], len)) {
          if ((rc = cmd_puts(c, *e + len + 1)) < 0 ||
              (rc = cmd_write(c, z ? "" : "\n", 1)) < 0)
            return rc;
          found = 1;
        }
    if (!found) status = 1;
  }
  return status;
}
