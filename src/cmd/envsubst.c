/* envsubst.c - substitute environment variables in shell format strings
 * (GNU gettext 0.21).
 *
 * $NAME and ${NAME} on stdin become the variable's value (empty when it is
 * unset); anything else, "${NAME" without its brace or "$" before a
 * non-name included, is copied as it is. With SHELL-FORMAT only the
 * variables it names are replaced; -v lists those names instead.
 *
 * Usage: envsubst [OPTION] [SHELL-FORMAT] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char envsubst_usage[] MSB_COLD =
    "Usage: envsubst [OPTION] [SHELL-FORMAT]\n"
    "\n"
    "Substitutes the values of environment variables.\n"
    "\n"
    "Operation mode:\n"
    "  -v, --variables             output the variables occurring in "
    "SHELL-FORMAT\n"
    "\n"
    "Informative output:\n"
    "  -h, --help                  display this help and exit\n"
    "  -V, --version               output version information and exit\n"
    "\n"
    "In normal operation mode, standard input is copied to standard "
    "output,\n"
    "with references to environment variables of the form $VARIABLE or "
    "${VARIABLE}\n"
    "being replaced with the corresponding values.  If a SHELL-FORMAT is "
    "given,\n"
    "only those environment variables that are referenced in SHELL-FORMAT "
    "are\n"
    "substituted; otherwise all environment variables references occurring "
    "in\n"
    "standard input are substituted.\n"
    "\n"
    "When --variables is used, standard input is ignored, and the output "
    "consists\n"
    "of the environment variables that are referenced in SHELL-FORMAT, one "
    "per line.\n"
    "\n"
    "Report bugs in the bug tracker at "
    "<https://savannah.gnu.org/projects/gettext>\n"
    "or by email to <bug-gettext@gnu.org>.\n";

static const cmd_opt envsubst_opts[] = {{'v', "variables", CMD_ARG_NONE, 'v'},
                                        {'h', "help", CMD_ARG_NONE, 'h'},
                                        {'V', "version", CMD_ARG_NONE, 'V'},
                                        {0, 0, 0, 0}};

static int envsubst_name_start(int ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
}

static int envsubst_name_char(int ch) {
  return envsubst_name_start(ch) || (ch >= '0' && ch <= '9');
}

/* A reference at s[i] ('$'): its name's offset and length and the length
 * of the whole reference; 0 when s[i] starts none. */
static size_t envsubst_ref(const char *s, size_t len, size_t i, size_t *name,
                           size_t *nlen) {
  size_t j = i + 1, brace = j < len && s[j] == '{';
  j += brace;
  if (j >= len || !envsubst_name_start(s[j])) return 0;
  *name = j;
  while (j < len && envsubst_name_char(s[j])) j++;
  *nlen = j - *name;
  if (brace) {
    if (j >= len || s[j] != '}') return 0;
    j++;
  }
  return j - i;
}

/* Whether the format names the variable (name, n). */
static int envsubst_listed(const char *fmt, const char *name, size_t n) {
  size_t i, len = strlen(fmt), at, an, r;
  for (i = 0; i < len; i++)
    if (fmt[i] == '$' && (r = envsubst_ref(fmt, len, i, &at, &an)) && an == n &&
        !memcmp(fmt + at, name, n))
      return 1;
  return 0;
}

/* -v: the names in the format, in order. */
static int envsubst_list(cmd_ctx *c, const char *fmt) {
  size_t i, len = strlen(fmt), at, an, r;
  for (i = 0; i < len; i++)
    if (fmt[i] == '$' && (r = envsubst_ref(fmt, len, i, &at, &an))) {
      if (cmd_write(c, fmt + at, an) || cmd_write(c, "\n", 1))
        return MSB_ELIMIT;
      i += r - 1;
    }
  return 0;
}

/* Copies stdin with its references replaced. */
static int envsubst_run(cmd_ctx *c, const char *fmt) {
  const uint8_t *d;
  const char *s;
  size_t len, i, st = 0, at, an, r;
  int rc = cmd_input(c, "-", &d, &len);
  if (rc) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "error while reading \"%s\": %s", "standard input",
            cmd_strerror(rc));
    return 1;
  }
  s = (const char *)d;
  for (i = 0; i < len; i++) {
    const char *v;
    if (s[i] != '$' || !(r = envsubst_ref(s, len, i, &at, &an))) continue;
    if (fmt && !envsubst_listed(fmt, s + at, an)) continue;
    if ((rc = cmd_write(c, s + st, i - st))) return rc;
    v = cmd_getenv(c, s + at, an);
    if (v && (rc = cmd_puts(c, v))) return rc;
    i += r - 1;
    st = i + 1;
  }
  if ((rc = cmd_write(c, s + st, len - st))) return rc;
  return cmd_charge_bytes(c, len);
}

/* Entry point: see the usage above. */
int cmd_envsubst(cmd_ctx *c) {
  cmd_getopt g;
  int k, vars = 0;
  cmd_opt_init(&g, c, envsubst_opts, envsubst_usage, CMD_OPTF_NOHELP);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'v') vars = 1;
    if (k == 'h') return cmd_puts(c, cold_get(envsubst_usage));
    if (k == 'V') return cmd_puts(c, "envsubst (GNU gettext-runtime) 0.21\n");
  }
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops > 1) {
    cmd_err(c, "too many arguments");
    return 1;
  }
  if (vars) {
    if (!g.nops) {
      cmd_err(c, "missing arguments");
      return 1;
    }
    return envsubst_list(c, g.ops[0]);
  }
  return envsubst_run(c, g.nops ? g.ops[0] : NULL);
}
