/* rm.c - remove files or directories (GNU coreutils).
 *
 * Usage: rm [OPTION]... [FILE]...
 *   -f, --force  ignore nonexistent files and arguments, never prompt
 *   -i           prompt before every removal (answers read from stdin)
 *   -r, -R, --recursive  remove directories and their contents
 *   -d, --dir    remove empty directories
 *   -v, --verbose  explain what is being done
 *   --preserve-root (default), --no-preserve-root
 * A recursive removal is one vfs operation (atomic, O(1) on shared
 * subtrees); with -v or -i the tree is walked first in post-order to print
 * or ask per entry, in sorted order (GNU uses directory order). */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char rm_usage[] MSB_COLD =
    "Usage: rm [OPTION]... [FILE]...\n"
    "Remove (unlink) the FILE(s).\n"
    "\n"
    "  -f, --force           ignore nonexistent files and arguments, never "
    "prompt\n"
    "  -i                    prompt before every removal\n"
    "  -r, -R, --recursive   remove directories and their contents "
    "recursively\n"
    "  -d, --dir             remove empty directories\n"
    "  -v, --verbose         explain what is being done\n"
    "      --no-preserve-root  do not treat '/' specially\n"
    "      --preserve-root   do not remove '/' (default)\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

#define RM_NOPRESERVE 256
#define RM_PRESERVE 257
static const cmd_opt rm_opts[] = {
    {'f', "force", CMD_ARG_NONE, 'f'},
    {'i', 0, CMD_ARG_NONE, 'i'},
    {'r', "recursive", CMD_ARG_NONE, 'r'},
    {'R', 0, CMD_ARG_NONE, 'r'},
    {'d', "dir", CMD_ARG_NONE, 'd'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, "no-preserve-root", CMD_ARG_NONE, RM_NOPRESERVE},
    {0, "preserve-root", CMD_ARG_NONE, RM_PRESERVE},
    {0, 0, 0, 0}};

typedef struct rm_opts_t {
  int force, inter, rec, dir, verbose, preserve;
  size_t in_pos; /* next unread stdin byte for -i answers */
} rm_state;

static const char *rm_kind(const struct vfs_stat *st) {
  if (st->kind == VFS_DIR) return "directory";
  if (st->kind == VFS_LINK) return "symbolic link";
  return st->size ? "regular file" : "regular empty file";
}

/* Walks a directory in post-order, printing (-v) or asking (-i) per
 * entry, removing entries as it goes. Returns 0, 1 or <0. */
static int rm_walk(cmd_ctx *c, rm_state *s, const char *op) {
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc, status = 0;
  if ((rc = cmd_walk_open(c, op, CMD_WALK_POST, &w)) < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    int isdir = e->st.kind == VFS_DIR;
    if (isdir && !e->post) {
      if (s->inter) {
        buf_printf(c->err, "%s: descend into directory %s? ", cmd_name(c),
                   cmd_quote(c, e->path));
        if (!cmd_answer_yes(c, &s->in_pos)) {
          cmd_walk_prune(w);
          status = 1; /* the directory itself will not be empty */
        }
      }
      continue;
    }
    if (s->inter) {
      buf_printf(c->err, "%s: remove %s %s? ", cmd_name(c), rm_kind(&e->st),
                 cmd_quote(c, e->path));
      if (!cmd_answer_yes(c, &s->in_pos)) continue;
    }
    rc = vfs_remove(c->fs, e->abs, isdir ? VFS_RM_DIR : 0);
    if (rc == MSB_ENOMEM) break;
    if (rc < 0) {
      cmd_err(c, "cannot remove %s: %s", cmd_quote(c, e->path),
              cmd_strerror(rc));
      status = 1;
      continue;
    }
    if (s->verbose) {
      if (isdir)
        rc = cmd_outf(c, "removed directory %s\n", cmd_quote(c, e->path));
      else
        rc = cmd_outf(c, "removed %s\n", cmd_quote(c, e->path));
      if (rc < 0) break;
    }
  }
  cmd_walk_close(w);
  return rc < 0 ? rc : status;
}

static int rm_one(cmd_ctx *c, rm_state *s, const char *op) {
  const char *abs = cmd_path(c, op), *base = cmd_base_name(c, op);
  struct vfs_stat st;
  int rc;
  if (!abs || !base) return MSB_ENOMEM;
  if (!strcmp(base, ".") || !strcmp(base, "..")) {
    if (s->rec) {
      cmd_err(c, "refusing to remove '.' or '..' directory: skipping %s",
              cmd_quote(c, op));
      return 1;
    }
  }
  if (s->rec && s->preserve && !strcmp(abs, "/")) {
    if (!strcmp(op, "/"))
      cmd_err(c, "it is dangerous to operate recursively on '/'");
    else
      cmd_err(c,
              "it is dangerous to operate recursively on %s (same as "
              "'/')",
              cmd_quote(c, op));
    cmd_err(c, "use --no-preserve-root to override this failsafe");
    return 1;
  }
  rc = cmd_slash_check(c, op, abs);
  if (rc == 0) rc = vfs_stat(c->fs, abs, 0, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    if (s->force && rc == MSB_ENOENT) return 0;
    cmd_err(c, "cannot remove %s: %s", cmd_quote(c, op), cmd_strerror(rc));
    return 1;
  }
  if (st.kind == VFS_DIR && !s->rec) {
    if (!s->dir) {
      cmd_err(c, "cannot remove %s: %s", cmd_quote(c, op),
              cmd_strerror(MSB_EISDIR));
      return 1;
    }
    if (st.nodes > 1) {
      cmd_err(c, "cannot remove %s: %s", cmd_quote(c, op),
              cmd_strerror(MSB_ENOTEMPTY));
      return 1;
    }
  }
  if (st.kind == VFS_DIR && s->rec && (s->verbose || s->inter))
    return rm_walk(c, s, op);
  if (s->inter) {
    buf_printf(c->err, "%s: remove %s %s? ", cmd_name(c), rm_kind(&st),
               cmd_quote(c, op));
    if (!cmd_answer_yes(c, &s->in_pos)) return 0;
  }
  rc = vfs_remove(c->fs, abs,
                  st.kind == VFS_DIR ? VFS_RM_DIR | VFS_RM_RECURSIVE : 0);
  if (rc == MSB_ENOMEM) return rc;
  if (rc < 0) {
    cmd_err(c, "cannot remove %s: %s", cmd_quote(c, op), cmd_strerror(rc));
    return 1;
  }
  if (s->verbose)
    return cmd_outf(
        c, st.kind == VFS_DIR ? "removed directory %s\n" : "removed %s\n",
        cmd_quote(c, op));
  return 0;
}

/* rm: remove each FILE. */
int cmd_rm(cmd_ctx *c) {
  cmd_getopt g;
  rm_state s;
  int k, i, status = 0, rc;
  memset(&s, 0, sizeof s);
  s.preserve = 1;
  cmd_opt_init(&g, c, rm_opts, rm_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'f':
      s.force = 1;
      s.inter = 0;
      break;
    case 'i':
      s.inter = 1;
      s.force = 0;
      break;
    case 'r': s.rec = 1; break;
    case 'd': s.dir = 1; break;
    case 'v': s.verbose = 1; break;
    case RM_NOPRESERVE: s.preserve = 0; break;
    case RM_PRESERVE: s.preserve = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) {
    if (s.force) return 0;
    return cmd_usage_err(&g, "missing operand");
  }
  for (i = 0; i < g.nops; i++) {
    rc = rm_one(c, &s, g.ops[i]);
    if (rc < 0) return rc;
    if (rc) status = 1;
  }
  return status;
}
