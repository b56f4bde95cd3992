/* opt.c - the shared option parser: GNU getopt_long behaviour, reentrant.
 *
 * State lives in a caller-owned cmd_getopt, so nested commands (find -exec,
 * xargs) parse independently. Operands are collected as they are met
 * (GNU's permutation) into an arena array sized for argc, and returned
 * together once the options are exhausted. Diagnostics use glibc's exact
 * wording; ambiguous long prefixes list candidates in table order, with
 * the implicit --help and --version last, as coreutils tables do. */
#include <stdarg.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

/* Implicit entries appended after the command's own table. */
#define CMD_OPT_KEY_HELP (-100)
#define CMD_OPT_KEY_VERSION (-101)

static const cmd_opt opt_implicit[] = {
    {0, "help", CMD_ARG_NONE, CMD_OPT_KEY_HELP},
    {0, "version", CMD_ARG_NONE, CMD_OPT_KEY_VERSION},
    {0, 0, 0, 0}};

void cmd_opt_init(cmd_getopt *g, cmd_ctx *c, const cmd_opt *opts,
                  const char *usage, unsigned flags) {
  memset(g, 0, sizeof *g);
  g->c = c;
  g->opts = opts;
  g->usage = usage;
  g->flags = flags;
  g->status = 1;
  g->ind = 1;
}

static void opt_try(cmd_getopt *g) {
  const char *n = cmd_name(g->c);
  g->c->fail = CMD_FAIL_USAGE; /* every usage error ends here */
  if (g->flags & CMD_OPTF_ARGP)
    buf_printf(g->c->err,
               "Try '%s --help' or '%s --usage' for more information.\n", n, n);
  else if (g->flags & CMD_OPTF_TRYNAME)
    buf_printf(g->c->err, "%s: Try '%s --help' for more information.\n", n, n);
  else
    buf_printf(g->c->err, "Try '%s --help' for more information.\n", n);
}

int cmd_usage_err(cmd_getopt *g, const char *fmt, ...) {
  va_list ap;
  buf_printf(g->c->err, "%s: ", cmd_name(g->c));
  va_start(ap, fmt);
  buf_vprintf(g->c->err, fmt, ap);
  va_end(ap);
  buf_putc(g->c->err, '\n');
  opt_try(g);
  return g->status;
}

static int opt_alloc(cmd_getopt *g) {
  size_t n = (size_t)(g->c->argc > 0 ? g->c->argc : 0) + 1;
  if (!g->ops) g->ops = arena_zalloc(g->c->a, sizeof(char *) * n);
  return g->ops ? 0 : MSB_ENOMEM;
}

static int opt_add_operand(cmd_getopt *g, char *s) {
  if (opt_alloc(g) < 0) return MSB_ENOMEM;
  g->ops[g->nops++] = s;
  return 0;
}

/* Handles --help / --version; returns CMD_OPT_EXIT. */
static int opt_builtin(cmd_getopt *g, int key) {
  if (key == CMD_OPT_KEY_HELP) {
    if (g->usage)
      buf_puts(g->c->out, cold_get(g->usage));
    else
      buf_printf(g->c->out, "Usage: %s [OPTION]... [ARG]...\n", cmd_name(g->c));
  } else {
    buf_printf(g->c->out, "%s (memsandbox) %s\n", cmd_name(g->c), MSB_VERSION);
  }
  return CMD_OPT_EXIT;
}

/* Finds a long option: exact match wins; otherwise a unique prefix (or
 * several prefixes naming the same key and argument kind). */
static int opt_long(cmd_getopt *g, const char *text) {
  const char *eq = strchr(text, '=');
  size_t n = eq ? (size_t)(eq - text) : strlen(text);
  const cmd_opt *found = 0, *o;
  const cmd_opt *tabs[2];
  int t, ambig = 0;
  buf *e = g->c->err;
  tabs[0] = g->opts;
  tabs[1] = (g->flags & CMD_OPTF_NOHELP) ? 0 : opt_implicit;
  for (t = 0; t < 2 && !found; t++)
    for (o = tabs[t]; o && (o->sh || o->lng); o++)
      if (o->lng && strlen(o->lng) == n && !memcmp(o->lng, text, n)) {
        found = o;
        break;
      }
  if (!found) {
    for (t = 0; t < 2; t++)
      for (o = tabs[t]; o && (o->sh || o->lng); o++) {
        if (!o->lng || strncmp(o->lng, text, n)) continue;
        if (!found)
          found = o;
        else if (found->key != o->key || found->arg != o->arg)
          ambig = 1;
      }
  }
  if (!found) {
    buf_printf(e, "%s: unrecognized option '--%s'\n", cmd_name(g->c), text);
    opt_try(g);
    return CMD_OPT_ERR;
  }
  if (ambig) {
    buf_printf(e,
               "%s: option '--%s' is ambiguous; possibilities:", cmd_name(g->c),
               text);
    for (t = 0; t < 2; t++)
      for (o = tabs[t]; o && (o->sh || o->lng); o++)
        if (o->lng && !strncmp(o->lng, text, n))
          buf_printf(e, " '--%s'", o->lng);
    buf_putc(e, '\n');
    opt_try(g);
    return CMD_OPT_ERR;
  }
  g->opt = found->sh;
  g->optname = found->lng;
  g->arg = 0;
  if (eq) {
    if (found->arg == CMD_ARG_NONE) {
      buf_printf(e, "%s: option '--%s' doesn't allow an argument\n",
                 cmd_name(g->c), found->lng);
      opt_try(g);
      return CMD_OPT_ERR;
    }
    g->arg = eq + 1;
  } else if (found->arg == CMD_ARG_REQ) {
    if (g->ind >= g->c->argc) {
      buf_printf(e, "%s: option '--%s' requires an argument\n", cmd_name(g->c),
                 found->lng);
      opt_try(g);
      return CMD_OPT_ERR;
    }
    g->arg = g->c->argv[g->ind++];
  }
  if (found->key == CMD_OPT_KEY_HELP || found->key == CMD_OPT_KEY_VERSION)
    return opt_builtin(g, found->key);
  return found->key;
}

static int opt_short(cmd_getopt *g) {
  int ch = *g->next++;
  const cmd_opt *o;
  buf *e = g->c->err;
  for (o = g->opts; o->sh || o->lng; o++)
    if (o->sh == ch) break;
  if (!o->sh && !o->lng) {
    g->next = 0;
    buf_printf(e, "%s: invalid option -- '%c'\n", cmd_name(g->c), ch);
    opt_try(g);
    return CMD_OPT_ERR;
  }
  g->opt = ch;
  g->optname = o->lng;
  g->arg = 0;
  if (o->arg != CMD_ARG_NONE) {
    if (*g->next) {
      g->arg = g->next;
    } else if (o->arg == CMD_ARG_REQ) {
      if (g->ind >= g->c->argc) {
        g->next = 0;
        buf_printf(e, "%s: option requires an argument -- '%c'\n",
                   cmd_name(g->c), ch);
        opt_try(g);
        return CMD_OPT_ERR;
      }
      g->arg = g->c->argv[g->ind++];
    }
    g->next = 0;
  } else if (!*g->next) {
    g->next = 0;
  }
  return o->key;
}

int cmd_opt_next(cmd_getopt *g) {
  cmd_ctx *c = g->c;
  int rc;
  if (g->done) return CMD_OPT_END;
  if (g->next && *g->next) return opt_short(g);
  g->next = 0;
  while (g->ind < c->argc) {
    char *a = c->argv[g->ind];
    if (a[0] != '-' || a[1] == 0) {
      g->ind++;
      if ((rc = opt_add_operand(g, a)) < 0) return rc;
      if (g->flags & CMD_OPTF_NOPERMUTE) break;
      continue;
    }
    g->ind++;
    if (a[1] == '-') {
      if (a[2] == 0) break;
      return opt_long(g, a + 2);
    }
    if ((g->flags & CMD_OPTF_NUMERIC) && a[1] >= '0' && a[1] <= '9') {
      g->arg = a + 1;
      g->opt = 0;
      return CMD_OPT_NUM;
    }
    g->next = a + 1;
    return opt_short(g);
  }
  /* The rest (after "--" or the first operand without permutation). */
  while (g->ind < c->argc)
    if ((rc = opt_add_operand(g, c->argv[g->ind++])) < 0) return rc;
  if (opt_alloc(g) < 0) return MSB_ENOMEM;
  g->ops[g->nops] = 0;
  g->done = 1;
  return CMD_OPT_END;
}
