/* mv.c - move (rename) files (GNU coreutils).
 *
 * Usage: mv [OPTION]... [-T] SOURCE DEST
 *        mv [OPTION]... SOURCE... DIRECTORY
 *        mv [OPTION]... -t DIRECTORY SOURCE...
 *   -f  -i (answers from stdin)  -n  -T  -t DIR  -u  -v
 * Every move is one atomic vfs_rename; the whole filesystem is one device,
 * so there is no copy-then-delete fallback. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char mv_usage[] MSB_COLD =
    "Usage: mv [OPTION]... [-T] SOURCE DEST\n"
    "  or:  mv [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  mv [OPTION]... -t DIRECTORY SOURCE...\n"
    "Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.\n"
    "\n"
    "  -f, --force                  do not prompt before overwriting\n"
    "  -i, --interactive            prompt before overwrite\n"
    "  -n, --no-clobber             do not overwrite an existing file\n"
    "  -t, --target-directory=DIRECTORY  move all SOURCE arguments into "
    "DIRECTORY\n"
    "  -T, --no-target-directory    treat DEST as a normal file\n"
    "  -u, --update                 move only when the SOURCE file is "
    "newer\n"
    "                                 than the destination file or when "
    "the\n"
    "                                 destination file is missing\n"
    "  -v, --verbose                explain what is being done\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt mv_opts[] = {
    {'f', "force", CMD_ARG_NONE, 'f'},
    {'i', "interactive", CMD_ARG_NONE, 'i'},
    {'n', "no-clobber", CMD_ARG_NONE, 'n'},
    {'t', "target-directory", CMD_ARG_REQ, 't'},
    {'T', "no-target-directory", CMD_ARG_NONE, 'T'},
    {'u', "update", CMD_ARG_NONE, 'u'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

typedef struct mv_state {
  cmd_ctx *c;
  int inter, noclobber, update, verbose;
  size_t in_pos;
} mv_state;

static int mv_one(mv_state *s, const char *src, const char *dst);

static int mv_one_cb(void *s, const char *src, const char *dst) {
  return mv_one(s, src, dst);
}

static int mv_one(mv_state *s, const char *src, const char *dst) {
  cmd_ctx *c = s->c;
  const char *sabs = cmd_path(c, src), *dabs = cmd_path(c, dst);
  struct vfs_stat st, dt;
  int rc, exists;
  size_t sl;
  if (!sabs || !dabs) return MSB_ENOMEM;
  rc = cmd_slash_check(c, src, sabs);
  if (rc == 0) rc = vfs_stat(c->fs, sabs, 0, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "cannot stat %s: %s", cmd_quote(c, src), cmd_strerror(rc));
    return 1;
  }
  exists = vfs_stat(c->fs, dabs, 0, &dt) == 0;
  if (exists && dt.ino == st.ino) {
    cmd_err(c, "%s and %s are the same file", cmd_quote(c, src),
            cmd_quote(c, dst));
    return 1;
  }
  sl = strlen(sabs);
  if (st.kind == VFS_DIR && !strncmp(dabs, sabs, sl) &&
      (dabs[sl] == '/' || !strcmp(sabs, "/"))) {
    cmd_err(c, "cannot move %s to a subdirectory of itself, %s",
            cmd_quote(c, src), cmd_quote(c, dst));
    return 1;
  }
  if (exists) {
    if (dt.kind == VFS_DIR && st.kind != VFS_DIR) {
      cmd_err(c, "cannot overwrite directory %s with non-directory",
              cmd_quote(c, dst));
      return 1;
    }
    if (dt.kind != VFS_DIR && st.kind == VFS_DIR) {
      cmd_err(c, "cannot overwrite non-directory %s with directory %s",
              cmd_quote(c, dst), cmd_quote(c, src));
      return 1;
    }
    if (s->noclobber) return 0;
    if (s->update && dt.mtime_ns >= st.mtime_ns) return 0;
    if (s->inter) {
      buf_printf(c->err, "%s: overwrite %s? ", cmd_name(c), cmd_quote(c, dst));
      if (!cmd_answer_yes(s->c, &s->in_pos)) return 0;
    }
    if (dt.kind == VFS_DIR && dt.nodes > 1) {
      cmd_err(c, "cannot move %s to %s: %s", cmd_quote(c, src),
              cmd_quote(c, dst), cmd_strerror(MSB_ENOTEMPTY));
      return 1;
    }
  }
  rc = vfs_rename(c->fs, sabs, dabs, VFS_CP_OVERWRITE);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "cannot move %s to %s: %s", cmd_quote(c, src), cmd_quote(c, dst),
            cmd_strerror(rc));
    return 1;
  }
  if (s->verbose)
    return cmd_outf(c, "renamed %s -> %s\n", cmd_quote(c, src),
                    cmd_quote(c, dst));
  return 0;
}

/* mv: rename SOURCE to DEST, or move SOURCEs into DIRECTORY. */
int cmd_mv(cmd_ctx *c) {
  cmd_getopt g;
  mv_state s;
  int k, notarget = 0;
  const char *tdir = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  cmd_opt_init(&g, c, mv_opts, mv_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'f': s.inter = s.noclobber = 0; break;
    case 'i':
      s.inter = 1;
      s.noclobber = 0;
      break;
    case 'n':
      s.noclobber = 1;
      s.inter = 0;
      break;
    case 't': tdir = g.arg; break;
    case 'T': notarget = 1; break;
    case 'u': s.update = 1; break;
    case 'v': s.verbose = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  return cmd_dest_run(&g, tdir, notarget, mv_one_cb, &s);
}
