/* realpath.c - print the resolved path (GNU coreutils).
 *
 * Usage: realpath [OPTION]... FILE...
 *   -e, --canonicalize-existing  all components must exist
 *   -m, --canonicalize-missing   no component need exist
 *   -s, --strip, --no-symlinks   don't expand symlinks (lexical)
 *   -q, --quiet   -z, --zero
 *   --relative-to=DIR  --relative-base=DIR
 * By default all but the last component must exist. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char realpath_usage[] MSB_COLD =
    "Usage: realpath [OPTION]... FILE...\n"
    "Print the resolved absolute file name;\n"
    "all but the last component must exist\n"
    "\n"
    "  -e, --canonicalize-existing  all components of the path must exist\n"
    "  -m, --canonicalize-missing   no path components need exist or be a "
    "directory\n"
    "  -L, --logical                resolve '..' components before "
    "symlinks\n"
    "  -P, --physical               resolve symlinks as encountered "
    "(default)\n"
    "  -q, --quiet                  suppress most error messages\n"
    "      --relative-to=DIR        print the resolved path relative to "
    "DIR\n"
    "      --relative-base=DIR      print absolute paths unless paths below "
    "DIR\n"
    "  -s, --strip, --no-symlinks   don't expand symlinks\n"
    "  -z, --zero                   end each output line with NUL, not "
    "newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { RP_REL = 256, RP_BASE };
static const cmd_opt realpath_opts[] = {
    {'e', "canonicalize-existing", CMD_ARG_NONE, 'e'},
    {'m', "canonicalize-missing", CMD_ARG_NONE, 'm'},
    {'L', "logical", CMD_ARG_NONE, 'L'},
    {'P', "physical", CMD_ARG_NONE, 'P'},
    {'q', "quiet", CMD_ARG_NONE, 'q'},
    {0, "relative-to", CMD_ARG_REQ, RP_REL},
    {0, "relative-base", CMD_ARG_REQ, RP_BASE},
    {'s', "strip", CMD_ARG_NONE, 's'},
    {0, "no-symlinks", CMD_ARG_NONE, 's'},
    {'z', "zero", CMD_ARG_NONE, 'z'},
    {0, 0, 0, 0}};

/* Resolves one path into b (0 or an MSB_E* code). */
static int realpath_resolve(cmd_ctx *c, const char *p, int mode, int strip,
                            buf *b) {
  const char *abs = strip ? cmd_path_lexical(c, p) : cmd_path(c, p);
  if (!abs) return MSB_ENOMEM;
  if (mode < 2 && cmd_slash_check(c, p, abs)) return MSB_ENOTDIR;
  if (strip) {
    struct vfs_stat st;
    if (mode == 0 && vfs_stat(c->fs, abs, 0, &st) < 0) return MSB_ENOENT;
    return buf_puts(b, abs);
  }
  return vfs_realpath(c->fs, abs, mode, b);
}

/* Is path inside (or equal to) dir? */
static int realpath_under(const char *path, const char *dir) {
  size_t n = strlen(dir);
  if (!strcmp(dir, "/")) return 1;
  return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* Appends path relative to base (both absolute, canonical). */
static void realpath_rel(buf *o, const char *path, const char *base) {
  size_t i = 0, common = 0;
  const char *p;
  int first = 1;
  /* Longest common prefix ending at a component boundary. */
  while (path[i] && path[i] == base[i]) {
    i++;
    if ((path[i] == '/' || !path[i]) && (base[i] == '/' || !base[i]))
      common = i;
  }
  if (!strcmp(base, "/")) common = 0;
  if (!path[i] && !base[i]) {
    buf_putc(o, '.');
    return;
  }
  for (p = base + common; *p; p++) {
    if (*p == '/' && p[1]) {
      buf_puts(o, first ? ".." : "/..");
      first = 0;
    }
  }
  if (!strcmp(base, "/") && path[1]) {
    buf_puts(o, path + 1);
    return;
  }
  p = path + common;
  if (*p == '/') p++;
  if (*p) {
    if (!first) buf_putc(o, '/');
    buf_puts(o, p);
  } else if (first) {
    buf_putc(o, '.');
  }
}

/* realpath: print canonical absolute (or relative) names. */
int cmd_realpath(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, mode = 1, strip = 0, quiet = 0, zero = 0, status = 0, rc;
  const char *relto = 0, *relbase = 0;
  buf rt, rb;
  cmd_opt_init(&g, c, realpath_opts, realpath_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'e': mode = 0; break;
    case 'm': mode = 2; break;
    case 'q': quiet = 1; break;
    case 's': strip = 1; break;
    case 'z': zero = 1; break;
    case RP_REL: relto = g.arg; break;
    case RP_BASE: relbase = g.arg; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  buf_init(&rt, c->m);
  buf_init(&rb, c->m);
  if (relto && (rc = realpath_resolve(c, relto, mode, strip, &rt)) < 0) {
    cmd_err(c, "%s: %s", cmd_quotef(c, relto), cmd_strerror(rc));
    buf_finish(&rt);
    return 1;
  }
  if (relbase && (rc = realpath_resolve(c, relbase, mode, strip, &rb)) < 0) {
    cmd_err(c, "%s: %s", cmd_quotef(c, relbase), cmd_strerror(rc));
    buf_finish(&rt);
    buf_finish(&rb);
    return 1;
  }
  if (relbase && !relto) {
    buf_puts(&rt, buf_str(&rb));
    relto = relbase;
  }
  for (i = 0; i < g.nops; i++) {
    buf b, o;
    buf_init(&b, c->m);
    buf_init(&o, c->m);
    rc = realpath_resolve(c, g.ops[i], mode, strip, &b);
    if (rc == 0 && b.err) rc = b.err;
    if (rc < 0) {
      buf_finish(&b);
      buf_finish(&o);
      if (rc == MSB_ENOMEM) {
        status = rc;
        break;
      }
      if (!quiet)
        cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      status = 1;
      continue;
    }
    if (relto && (!relbase || (realpath_under(buf_str(&b), buf_str(&rb)) &&
                               realpath_under(buf_str(&rt), buf_str(&rb)))))
      realpath_rel(&o, buf_str(&b), buf_str(&rt));
    else
      buf_puts(&o, buf_str(&b));
    buf_putc(&o, zero ? 0 : '\n');
    rc = o.err ? o.err : cmd_write(c, buf_str(&o), o.len);
    buf_finish(&b);
    buf_finish(&o);
    if (rc < 0) {
      status = rc;
      break;
    }
  }
  buf_finish(&rt);
  buf_finish(&rb);
  return status;
}
