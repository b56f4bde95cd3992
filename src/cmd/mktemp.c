/* mktemp.c - create a temporary file or directory (GNU coreutils).
 *
 * Usage: mktemp [OPTION]... [TEMPLATE]
 *   -d, --directory  -u, --dry-run  -q, --quiet  --suffix=SUFF
 *   -p DIR, --tmpdir[=DIR]  -t (TEMPLATE is relative to $TMPDIR or /tmp)
 * The default template is tmp.XXXXXXXXXX under $TMPDIR or /tmp. The X's
 * come from the sandbox's seeded random state (*c->rng, advanced with
 * splitmix64), so runs are reproducible for a given seed. Files are made
 * with mode 0600 and directories 0700, and never replace anything. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char mktemp_usage[] MSB_COLD =
    "Usage: mktemp [OPTION]... [TEMPLATE]\n"
    "Create a temporary file or directory, safely, and print its name.\n"
    "TEMPLATE must contain at least 3 consecutive 'X's in last component.\n"
    "If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is "
    "implied.\n"
    "Files are created u+rw, and directories u+rwx, minus umask "
    "restrictions.\n"
    "\n"
    "  -d, --directory     create a directory, not a file\n"
    "  -u, --dry-run       do not create anything; merely print a name "
    "(unsafe)\n"
    "  -q, --quiet         suppress diagnostics about file/dir-creation "
    "failure\n"
    "      --suffix=SUFF   append SUFF to TEMPLATE; SUFF must not contain "
    "a slash.\n"
    "  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR; if DIR "
    "is not\n"
    "                        specified, use $TMPDIR if set, else /tmp.\n"
    "  -t                  interpret TEMPLATE as a single file name "
    "component,\n"
    "                        relative to a directory: $TMPDIR, if set; "
    "else the\n"
    "                        directory specified via -p; else /tmp "
    "[deprecated]\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { MKTEMP_SUFFIX = 256, MKTEMP_TMPDIR };
static const cmd_opt mktemp_opts[] = {{'d', "directory", CMD_ARG_NONE, 'd'},
                                      {'u', "dry-run", CMD_ARG_NONE, 'u'},
                                      {'q', "quiet", CMD_ARG_NONE, 'q'},
                                      {0, "suffix", CMD_ARG_REQ, MKTEMP_SUFFIX},
                                      {'p', 0, CMD_ARG_REQ, 'p'},
                                      {0, "tmpdir", CMD_ARG_OPT, MKTEMP_TMPDIR},
                                      {'t', 0, CMD_ARG_NONE, 't'},
                                      {0, 0, 0, 0}};

static uint64_t mktemp_next(uint64_t *st) {
  uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static const char *mktemp_env(cmd_ctx *c, const char *name) {
  size_t n = strlen(name);
  char **e;
  for (e = c->envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return 0;
}

/* mktemp: create a unique file or directory and print its name. */
int cmd_mktemp(cmd_ctx *c) {
  static const char chars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  cmd_getopt g;
  int k, dir = 0, dry = 0, quiet = 0, tflag = 0, use_tmpdir = 0, tries;
  const char *suffix = 0, *pdir = 0, *tmpl, *slash;
  char *path;
  size_t plen, xend, xs, i;
  uint64_t local = 0x1234567, *rng = c->rng ? c->rng : &local;
  cmd_opt_init(&g, c, mktemp_opts, mktemp_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'd': dir = 1; break;
    case 'u': dry = 1; break;
    case 'q': quiet = 1; break;
    case MKTEMP_SUFFIX: suffix = g.arg; break;
    case 'p':
      pdir = g.arg;
      use_tmpdir = 1;
      break;
    case MKTEMP_TMPDIR:
      pdir = g.arg;
      use_tmpdir = 1;
      break;
    case 't': tflag = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops > 1) return cmd_usage_err(&g, "too many templates");
  tmpl = g.nops ? g.ops[0] : "tmp.XXXXXXXXXX";
  if (!g.nops) use_tmpdir = 1;
  if (tflag) use_tmpdir = 1;
  if (suffix && strchr(suffix, '/')) {
    cmd_err(c, "invalid suffix %s, contains directory separator",
            cmd_quote(c, suffix));
    return 1;
  }
  if (use_tmpdir) {
    const char *env = mktemp_env(c, "TMPDIR");
    if (strchr(tmpl, '/') && g.nops) {
      cmd_err(c, "invalid template, %s, contains directory separator",
              cmd_quote(c, tmpl));
      return 1;
    }
    if (tflag && env && *env) pdir = env;
    if (!pdir || !*pdir) pdir = env && *env ? env : "/tmp";
  }
  plen = (pdir && use_tmpdir ? strlen(pdir) + 1 : 0) + strlen(tmpl) +
         (suffix ? strlen(suffix) : 0);
  path = arena_alloc(c->a, plen + 1);
  if (!path) return MSB_ENOMEM;
  path[0] = 0;
  if (pdir && use_tmpdir) {
    strcpy(path, pdir);
    if (path[strlen(path) - 1] != '/') strcat(path, "/");
  }
  strcat(path, tmpl);
  xend = strlen(path);
  slash = strrchr(path, '/');
  if (!suffix) {
    /* GNU: without --suffix, whatever follows the last X is the suffix. */
    const char *lx = strrchr(path, 'X');
    if (lx && (!slash || lx > slash)) xend = (size_t)(lx - path) + 1;
  } else {
    strcat(path, suffix);
  }
  xs = xend;
  while (xs > 0 && path[xs - 1] == 'X' && (!slash || path + xs - 1 > slash))
    xs--;
  if (xend - xs < 3) {
    if (suffix && xend > 0 && path[xend - 1] != 'X')
      cmd_err(c, "with --suffix, template %s must end in X",
              cmd_quote(c, tmpl));
    else
      cmd_err(c, "too few X's in template %s", cmd_quote(c, tmpl));
    return 1;
  }
  for (tries = 0; tries < 100; tries++) {
    const char *abs;
    struct vfs_stat st;
    int rc;
    for (i = xs; i < xend; i++)
      path[i] = chars[mktemp_next(rng) % (sizeof chars - 1)];
    abs = cmd_path(c, path);
    if (!abs) return MSB_ENOMEM;
    if (vfs_stat(c->fs, abs, 0, &st) == 0) continue;
    if (dry) break;
    if (dir)
      rc = vfs_mkdir(c->fs, abs, 0700 & ~cmd_umask(c), 0);
    else
      rc = vfs_write(c->fs, abs, "", 0, VFS_EXCL, 0600 & ~cmd_umask(c), 0);
    if (rc == MSB_EEXIST) continue;
    if (rc < 0) {
      if (rc == MSB_ENOMEM) return rc;
      if (!quiet) {
        for (i = xs; i < xend; i++) path[i] = 'X';
        cmd_err(c, "failed to create %s via template %s: %s",
                dir ? "directory" : "file", cmd_quote(c, path),
                cmd_strerror(rc));
      }
      return 1;
    }
    break;
  }
  if (tries == 100) {
    if (!quiet) cmd_err(c, "failed to create file: too many attempts");
    return 1;
  }
  return cmd_outf(c, "%s\n", path) < 0 ? MSB_ELIMIT : 0;
}
