/* install.c - copy files and set attributes (GNU coreutils 9).
 *
 * SOURCE DEST, SOURCE... DIRECTORY, -t DIRECTORY SOURCE... and -d
 * DIRECTORY... as GNU: copies get mode 0755 (or -m, octal or symbolic from
 * no bits), -D creates DEST's missing parents, -d creates every missing
 * component, -v reports each copy and directory, -p keeps the source's
 * modification time, and a file installed twice in one run is refused as
 * GNU's "just-created" check does. -C copies as without it (the result is
 * the same file).
 *
 * Deviation: -s (strip), -o and -g (owners), -Z and --context are refused
 * by name: the sandbox has no strip program, users or contexts.
 *
 * Usage: install [OPTION]... [-T] SOURCE DEST
 *        install [OPTION]... SOURCE... DIRECTORY
 *        install [OPTION]... -t DIRECTORY SOURCE...
 *        install [OPTION]... -d DIRECTORY... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char install_usage[] MSB_COLD =
    "Usage: install [OPTION]... [-T] SOURCE DEST\n"
    "  or:  install [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  install [OPTION]... -t DIRECTORY SOURCE...\n"
    "  or:  install [OPTION]... -d DIRECTORY...\n"
    "\n"
    "This install program copies files (often just compiled) into "
    "destination\n"
    "locations you choose.  If you want to download and install a "
    "ready-to-use\n"
    "package on a GNU/Linux system, you should instead be using a package "
    "manager\n"
    "like yum(1) or apt-get(1).\n"
    "\n"
    "In the first three forms, copy SOURCE to DEST or multiple SOURCE(s) to\n"
    "the existing DIRECTORY, while setting permission modes and "
    "owner/group.\n"
    "In the 4th form, create all components of the given DIRECTORY(ies).\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -C, --compare       compare content of source and destination files, "
    "and\n"
    "                        if no change to content, ownership, and "
    "permissions,\n"
    "                        do not modify the destination at all\n"
    "  -d, --directory     treat all arguments as directory names; create "
    "all\n"
    "                        components of the specified directories\n"
    "  -D                  create all leading components of DEST except the "
    "last,\n"
    "                        or all components of --target-directory,\n"
    "                        then copy SOURCE to DEST\n"
    "  -m, --mode=MODE     set permission mode (as in chmod), instead of "
    "rwxr-xr-x\n"
    "  -p, --preserve-timestamps   apply access/modification times of "
    "SOURCE files\n"
    "                        to corresponding destination files\n"
    "  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into "
    "DIRECTORY\n"
    "  -T, --no-target-directory  treat DEST as a normal file\n"
    "  -v, --verbose       print the name of each created file or directory\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { INSTALL_UNSUP = 256 };

static const cmd_opt install_opts[] = {
    {'b', 0, CMD_ARG_NONE, INSTALL_UNSUP},
    {'C', "compare", CMD_ARG_NONE, 'C'},
    {'c', 0, CMD_ARG_NONE, 'c'},
    {'d', "directory", CMD_ARG_NONE, 'd'},
    {'D', 0, CMD_ARG_NONE, 'D'},
    {'g', "group", CMD_ARG_REQ, INSTALL_UNSUP},
    {'m', "mode", CMD_ARG_REQ, 'm'},
    {'o', "owner", CMD_ARG_REQ, INSTALL_UNSUP},
    {'p', "preserve-timestamps", CMD_ARG_NONE, 'p'},
    {'s', "strip", CMD_ARG_NONE, INSTALL_UNSUP},
    {'t', "target-directory", CMD_ARG_REQ, 't'},
    {'T', "no-target-directory", CMD_ARG_NONE, 'T'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {'Z', "context", CMD_ARG_OPT, INSTALL_UNSUP},
    {0, 0, 0, 0}};

typedef struct install_st {
  cmd_ctx *c;
  uint32_t mode;
  int parents, verbose, keep_time;
  const char **made; /* files this run created, for the just-created check */
  int nmade, capmade;
} install_st;

/* Creates the missing directories of path (all of it, or all but the
 * last component), mode 0755, saying so with -v. 0, 1 or a code. */
static int install_mkdirs(install_st *s, const char *op, int all) {
  cmd_ctx *c = s->c;
  size_t len = strlen(op), i;
  char *p = arena_strndup(c->a, op, len);
  if (!p) return MSB_ENOMEM;
  if (!all)
    while (len > 0 && p[len - 1] != '/') len--;
  for (i = 1; i <= len; i++) {
    struct vfs_stat st;
    const char *abs;
    int rc;
    if (i < len && p[i] != '/') continue;
    p[i] = 0;
    if (!(abs = cmd_path(c, p))) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, abs, 1, &st);
    if (rc == MSB_ENOENT) {
      rc = vfs_mkdir(c->fs, abs, 0755, 0);
      if (rc == 0 && s->verbose)
        buf_printf(c->out, "%s: creating directory %s\n", cmd_name(c),
                   cmd_quote(c, p));
    } else if (rc == 0 && st.kind != VFS_DIR) {
      rc = MSB_ENOTDIR;
    }
    if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
    if (rc) {
      cmd_err(c, "cannot create directory %s: %s", cmd_quote(c, p),
              cmd_strerror(rc));
      return 1;
    }
    if (i < len) p[i] = '/';
  }
  return 0;
}

/* Copies one file (cmd_dest_run's callback). */
static int install_one(void *arg, const char *src, const char *dst) {
  install_st *s = arg;
  cmd_ctx *c = s->c;
  const char *sabs = cmd_path(c, src), *dabs = cmd_path(c, dst);
  struct vfs_stat st;
  int rc, i;
  if (!sabs || !dabs) return MSB_ENOMEM;
  if ((rc = vfs_stat(c->fs, sabs, 1, &st))) {
    cmd_err(c, "cannot stat %s: %s", cmd_quote(c, src), cmd_strerror(rc));
    return 1;
  }
  if (st.kind == VFS_DIR) {
    cmd_err(c, "omitting directory %s", cmd_quote(c, src));
    return 1;
  }
  for (i = 0; i < s->nmade; i++)
    if (!strcmp(s->made[i], dabs)) {
      cmd_err(c, "will not overwrite just-created %s with %s",
              cmd_quote(c, dst), cmd_quote(c, src));
      return 1;
    }
  if (s->parents && (rc = install_mkdirs(s, dst, 0))) return rc;
  if (vfs_stat(c->fs, dabs, 1, &st) == 0 && st.kind == VFS_DIR) {
    cmd_err(c, "cannot overwrite directory %s with non-directory",
            cmd_quote(c, dst));
    return 1;
  }
  /* GNU install unlinks the destination first: other hard links keep it */
  if (vfs_stat(c->fs, dabs, 0, &st) == 0 && st.kind == VFS_FILE && st.nlink > 1)
    vfs_remove(c->fs, dabs, 0);
  rc = vfs_copy(c->fs, sabs, dabs, VFS_CP_OVERWRITE | VFS_CP_KEEP_META);
  if (rc == 0) rc = vfs_chmod(c->fs, dabs, s->mode);
  if (rc == 0 && !s->keep_time) rc = vfs_utime(c->fs, dabs, *c->clock_ns, 0);
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  if (rc) {
    cmd_err(c, "cannot create regular file %s: %s", cmd_quote(c, dst),
            cmd_strerror(rc));
    return 1;
  }
  if (s->nmade == s->capmade) {
    int nc = s->capmade ? 2 * s->capmade : 16;
    const char **nm = arena_alloc(c->a, sizeof *nm * (size_t)nc);
    if (!nm) return MSB_ENOMEM;
    if (s->nmade) memcpy(nm, s->made, sizeof *nm * (size_t)s->nmade);
    s->made = nm;
    s->capmade = nc;
  }
  s->made[s->nmade++] = dabs;
  if (s->verbose)
    buf_printf(c->out, "%s -> %s\n", cmd_quote(c, src), cmd_quote(c, dst));
  return 0;
}

/* Entry point: see the usage above. */
int cmd_install(cmd_ctx *c) {
  cmd_getopt g;
  install_st s;
  const char *tdir = NULL, *mode = NULL;
  int k, i, rc, dirs = 0, notarget = 0, status = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.mode = 0755;
  cmd_opt_init(&g, c, install_opts, install_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'd') dirs = 1;
    if (k == 'D') s.parents = 1;
    if (k == 'm') mode = g.arg;
    if (k == 'p') s.keep_time = 1;
    if (k == 't') tdir = g.arg;
    if (k == 'T') notarget = 1;
    if (k == 'v') s.verbose = 1;
    if (k == INSTALL_UNSUP) {
      cmd_err(c, "-%c is not supported in memsandbox", g.opt ? g.opt : 'Z');
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (mode && cmd_parse_mode(mode, 0, 0, 0, &s.mode)) {
    cmd_err(c, "invalid mode %s", cmd_quote(c, mode));
    return 1;
  }
  if (dirs) {
    if (!g.nops) return cmd_usage_err(&g, "missing file operand");
    for (i = 0; i < g.nops; i++) {
      if ((rc = install_mkdirs(&s, g.ops[i], 1)) < 0) return rc;
      status |= rc;
      if (!rc && mode) {
        const char *abs = cmd_path(c, g.ops[i]);
        if (!abs) return MSB_ENOMEM;
        vfs_chmod(c->fs, abs, s.mode);
      }
    }
    return status;
  }
  if (tdir && s.parents && (rc = install_mkdirs(&s, tdir, 1))) return rc;
  return cmd_dest_run(&g, tdir, notarget, install_one, &s);
}
