/* ln.c - make links between files (GNU coreutils).
 *
 * Usage: ln [OPTION]... [-T] TARGET LINK_NAME
 *        ln [OPTION]... TARGET... DIRECTORY
 *        ln [OPTION]... -t DIRECTORY TARGET...
 *   -s, --symbolic  -f, --force  -n, --no-dereference  -r, --relative
 *   -T, --no-target-directory  -t, --target-directory=DIR  -v, --verbose
 * Without -s, TARGET gets another name (vfs_link): a hard link; of a
 * symlink, a copy of the symlink. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char ln_usage[] MSB_COLD =
    "Usage: ln [OPTION]... [-T] TARGET LINK_NAME\n"
    "  or:  ln [OPTION]... TARGET\n"
    "  or:  ln [OPTION]... TARGET... DIRECTORY\n"
    "  or:  ln [OPTION]... -t DIRECTORY TARGET...\n"
    "In the 1st form, create a link to TARGET with the name LINK_NAME.\n"
    "In the 2nd form, create a link to TARGET in the current directory.\n"
    "In the 3rd and 4th forms, create links to each TARGET in DIRECTORY.\n"
    "Create hard links by default, symbolic links with --symbolic.\n"
    "\n"
    "  -f, --force                 remove existing destination files\n"
    "  -n, --no-dereference        treat LINK_NAME as a normal file if\n"
    "                                it is a symbolic link to a directory\n"
    "  -r, --relative              with -s, create links relative to link "
    "location\n"
    "  -s, --symbolic              make symbolic links instead of hard "
    "links\n"
    "  -t, --target-directory=DIRECTORY  specify the DIRECTORY in which to "
    "create\n"
    "                                the links\n"
    "  -T, --no-target-directory   treat LINK_NAME as a normal file always\n"
    "  -v, --verbose               print name of each linked file\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt ln_opts[] = {
    {'b', "backup", CMD_ARG_NONE, 'b'},
    {'f', "force", CMD_ARG_NONE, 'f'},
    {'i', "interactive", CMD_ARG_NONE, 'i'},
    {'L', "logical", CMD_ARG_NONE, 'L'},
    {'n', "no-dereference", CMD_ARG_NONE, 'n'},
    {'P', "physical", CMD_ARG_NONE, 'P'},
    {'r', "relative", CMD_ARG_NONE, 'r'},
    {'s', "symbolic", CMD_ARG_NONE, 's'},
    {'t', "target-directory", CMD_ARG_REQ, 't'},
    {'T', "no-target-directory", CMD_ARG_NONE, 'T'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

typedef struct ln_state {
  cmd_ctx *c;
  int sym, force, noderef, rel, verbose;
} ln_state;

/* Relative path from directory `from` to `to` (both absolute). */
static const char *ln_relative(cmd_ctx *c, const char *to, const char *from) {
  buf b;
  size_t i = 0, common = 0;
  const char *p, *r;
  int ups = 0;
  while (to[i] && to[i] == from[i]) {
    i++;
    if ((to[i] == '/' || !to[i]) && (from[i] == '/' || !from[i])) common = i;
  }
  if (!from[i] && to[i] == '/') common = i;
  if (!strcmp(from, "/")) common = 0;
  buf_init(&b, c->m);
  for (p = from + common; *p; p++)
    if (*p == '/' && p[1]) {
      buf_puts(&b, ups++ ? "/.." : "..");
    }
  p = to + common;
  while (*p == '/') p++;
  if (*p) {
    if (ups) buf_putc(&b, '/');
    buf_puts(&b, p);
  } else if (!ups) {
    buf_putc(&b, '.');
  }
  r = b.err ? 0 : arena_strndup(c->a, buf_str(&b), b.len);
  buf_finish(&b);
  return r;
}

static int ln_one(ln_state *s, const char *target, const char *name) {
  cmd_ctx *c = s->c;
  const char *nabs = cmd_path(c, name), *tval = target;
  struct vfs_stat st;
  int rc, exists;
  if (!nabs) return MSB_ENOMEM;
  exists = vfs_stat(c->fs, nabs, 0, &st) == 0;
  if (!s->sym) {
    const char *tabs = cmd_path(c, target);
    struct vfs_stat ts;
    if (!tabs) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, tabs, 0, &ts);
    if (rc < 0) {
      cmd_err(c, "failed to access %s: %s", cmd_quote(c, target),
              cmd_strerror(rc));
      return 1;
    }
    if (ts.kind == VFS_DIR) {
      cmd_err(c, "%s: hard link not allowed for directory",
              cmd_quotef(c, target));
      return 1;
    }
    /* one entry under two spellings; other names of the file are fine */
    if (exists && s->force && st.ino == ts.ino && !strcmp(tabs, nabs)) {
      cmd_err(c, "%s and %s are the same file", cmd_quote(c, target),
              cmd_quote(c, name));
      return 1;
    }
  }
  if (exists) {
    if (!s->force) {
      cmd_err(c, "failed to create %s link %s: %s",
              s->sym ? "symbolic" : "hard", cmd_quote(c, name),
              cmd_strerror(MSB_EEXIST));
      return 1;
    }
    if (st.kind == VFS_DIR) {
      cmd_err(c, "%s: cannot overwrite directory", cmd_quote(c, name));
      return 1;
    }
  }
  if (s->sym && s->rel) {
    const char *tabs = cmd_path(c, target), *dir;
    buf rb;
    if (!tabs) return MSB_ENOMEM;
    buf_init(&rb, c->m);
    if (vfs_realpath(c->fs, tabs, 2, &rb) == 0 && !rb.err)
      tabs = arena_strndup(c->a, buf_str(&rb), rb.len);
    buf_finish(&rb);
    dir = cmd_dir_name(c, nabs);
    buf_init(&rb, c->m);
    if (dir && vfs_realpath(c->fs, dir, 2, &rb) == 0 && !rb.err)
      dir = arena_strndup(c->a, buf_str(&rb), rb.len);
    buf_finish(&rb);
    if (!tabs || !dir) return MSB_ENOMEM;
    tval = ln_relative(c, tabs, dir);
    if (!tval) return MSB_ENOMEM;
  }
  if (exists) vfs_remove(c->fs, nabs, 0);
  if (s->sym)
    rc = vfs_symlink(c->fs, tval, nabs);
  else
    rc = vfs_link(c->fs, cmd_path(c, target), nabs);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    if (s->sym)
      cmd_err(c, "failed to create symbolic link %s: %s", cmd_quote(c, name),
              cmd_strerror(rc));
    else
      cmd_err(c, "failed to create hard link %s => %s: %s", cmd_quote(c, name),
              cmd_quote(c, target), cmd_strerror(rc));
    return 1;
  }
  if (s->verbose)
    return cmd_outf(c, "%s %s %s\n", cmd_quote(c, name), s->sym ? "->" : "=>",
                    cmd_quote(c, tval)) < 0
               ? MSB_ELIMIT
               : 0;
  return 0;
}

static const char *ln_join(cmd_ctx *c, const char *dir, const char *name) {
  size_t dl = strlen(dir);
  char *p = arena_alloc(c->a, dl + strlen(name) + 2);
  if (!p) return 0;
  memcpy(p, dir, dl);
  if (dl && dir[dl - 1] != '/') p[dl++] = '/';
  strcpy(p + dl, name);
  return p;
}

/* ln: make hard or symbolic links. */
int cmd_ln(cmd_ctx *c) {
  cmd_getopt g;
  ln_state s;
  int k, i, notarget = 0, n, rc, status = 0, isdir = 0;
  const char *tdir = 0, *dest;
  struct vfs_stat st;
  memset(&s, 0, sizeof s);
  s.c = c;
  cmd_opt_init(&g, c, ln_opts, ln_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'b':
    case 'i':
      cmd_err(c, "-%c is not supported in this sandbox", g.opt ? g.opt : k);
      return 1;
    case 'f': s.force = 1; break;
    case 'n': s.noderef = 1; break;
    case 'r': s.rel = 1; break;
    case 's': s.sym = 1; break;
    case 't': tdir = g.arg; break;
    case 'T': notarget = 1; break;
    case 'v': s.verbose = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (s.rel && !s.sym) {
    cmd_err(c, "cannot do --relative without --symbolic");
    return 1;
  }
  n = g.nops;
  if (n < 1) return cmd_usage_err(&g, "missing file operand");
  if (notarget) {
    if (n > 2)
      return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[2]));
    if (n < 2)
      return cmd_usage_err(&g, "missing destination file operand after %s",
                           cmd_quote(c, g.ops[0]));
    rc = ln_one(&s, g.ops[0], g.ops[1]);
    return rc < 0 ? rc : rc ? 1 : 0;
  }
  if (!tdir && n == 1) {
    const char *b = cmd_base_name(c, g.ops[0]);
    if (!b) return MSB_ENOMEM;
    rc = ln_one(&s, g.ops[0], ln_join(c, ".", b));
    return rc < 0 ? rc : rc ? 1 : 0;
  }
  dest = tdir ? tdir : g.ops[n - 1];
  if (!tdir) n--;
  {
    const char *dabs = cmd_path(c, dest);
    if (!dabs) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, dabs, 0, &st);
    if (rc == 0 && st.kind == VFS_DIR) isdir = 1;
    if (rc == 0 && st.kind == VFS_LINK && !s.noderef &&
        vfs_stat(c->fs, dabs, 1, &st) == 0 && st.kind == VFS_DIR)
      isdir = 1;
  }
  if (isdir) {
    for (i = 0; i < n; i++) {
      const char *b = cmd_base_name(c, g.ops[i]), *to;
      if (!b || !(to = ln_join(c, dest, b))) return MSB_ENOMEM;
      rc = ln_one(&s, g.ops[i], to);
      if (rc < 0) return rc;
      if (rc) status = 1;
    }
    return status;
  }
  if (tdir || n > 1) {
    if (rc == 0)
      cmd_err(c, "target %s: %s", cmd_quote(c, dest),
              cmd_strerror(MSB_ENOTDIR));
    else
      cmd_err(c, "target %s: %s", cmd_quote(c, dest), cmd_strerror(rc));
    return 1;
  }
  rc = ln_one(&s, g.ops[0], dest);
  return rc < 0 ? rc : rc ? 1 : 0;
}
