/* chmod.c - change file mode bits (GNU coreutils).
 *
 * Usage: chmod [OPTION]... MODE[,MODE]... FILE...
 *        chmod [OPTION]... OCTAL-MODE FILE...
 *   -c, --changes  like verbose but report only when a change is made
 *   -f, --silent, --quiet  suppress most error messages
 *   -v, --verbose  output a diagnostic for every file processed
 *   -R, --recursive  change files and directories recursively
 * As in GNU, a mode that looks like an option ("-w", "-x,o+r") is taken as
 * the mode. Symlinks met during -R are skipped; operands are followed. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char chmod_usage[] MSB_COLD =
    "Usage: chmod [OPTION]... MODE[,MODE]... FILE...\n"
    "  or:  chmod [OPTION]... OCTAL-MODE FILE...\n"
    "Change the mode of each FILE to MODE.\n"
    "\n"
    "  -c, --changes          like verbose but report only when a change is "
    "made\n"
    "  -f, --silent, --quiet  suppress most error messages\n"
    "  -v, --verbose          output a diagnostic for every file processed\n"
    "  -R, --recursive        change files and directories recursively\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+"
    "'.\n";

static const cmd_opt chmod_opts[] = {
    {'c', "changes", CMD_ARG_NONE, 'c'},   {'f', "silent", CMD_ARG_NONE, 'f'},
    {0, "quiet", CMD_ARG_NONE, 'f'},       {'v', "verbose", CMD_ARG_NONE, 'v'},
    {'R', "recursive", CMD_ARG_NONE, 'R'}, {0, 0, 0, 0}};

typedef struct chmod_state {
  const char *mode;
  int changes, quiet, verbose, rec;
} chmod_state;

static int chmod_looks_mode(const char *a) {
  if (a[0] != '-' || !a[1]) return 0;
  return strspn(a + 1, "rwxXstugoa,+-=01234567") == strlen(a + 1);
}

static void chmod_bits(uint32_t m, char out[10]) {
  char full[11];
  cmd_mode_str(VFS_FILE, m, full);
  memcpy(out, full + 1, 10);
}

/* Applies the mode to one path; name is as printed. */
static int chmod_one(cmd_ctx *c, chmod_state *s, const char *name,
                     const char *abs, int follow) {
  struct vfs_stat st;
  uint32_t nm;
  char ob[10], nb[10];
  int rc = cmd_slash_check(c, name, abs);
  if (rc == 0) rc = vfs_stat(c->fs, abs, follow, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    if (!s->quiet)
      cmd_err(c, "cannot access %s: %s", cmd_quote(c, name), cmd_strerror(rc));
    if (s->verbose && !s->changes)
      cmd_outf(c, "%s could not be accessed\n", cmd_quote(c, name));
    return 1;
  }
  if (cmd_parse_mode(s->mode, st.mode, st.kind == VFS_DIR, cmd_umask(c), &nm) <
      0)
    return 1;
  rc = nm == (st.mode & 07777) ? 0 : vfs_chmod(c->fs, abs, nm);
  if (rc == MSB_ENOMEM) return rc;
  if (rc < 0) {
    if (!s->quiet)
      cmd_err(c, "changing permissions of %s: %s", cmd_quote(c, name),
              cmd_strerror(rc));
    return 1;
  }
  chmod_bits(st.mode & 07777, ob);
  chmod_bits(nm, nb);
  if (nm != (st.mode & 07777) && (s->verbose || s->changes))
    return cmd_outf(c, "mode of %s changed from %04o (%s) to %04o (%s)\n",
                    cmd_quote(c, name), (unsigned)(st.mode & 07777), ob,
                    (unsigned)nm, nb) < 0
               ? MSB_ELIMIT
               : 0;
  if (nm == (st.mode & 07777) && s->verbose && !s->changes)
    return cmd_outf(c, "mode of %s retained as %04o (%s)\n", cmd_quote(c, name),
                    (unsigned)nm, ob) < 0
               ? MSB_ELIMIT
               : 0;
  return 0;
}

static int chmod_tree(cmd_ctx *c, chmod_state *s, const char *op) {
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc, status = 0;
  if ((rc = cmd_walk_open(c, op, CMD_WALK_FOLLOW_ROOT, &w)) < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    if (e->depth > 0 && e->st.kind == VFS_LINK) continue;
    rc = chmod_one(c, s, e->path, e->abs, 1);
    if (rc < 0) break;
    if (rc) status = 1;
  }
  cmd_walk_close(w);
  return rc < 0 ? rc : status;
}

/* chmod: change the mode of each FILE. */
int cmd_chmod(cmd_ctx *c) {
  cmd_getopt g;
  chmod_state s;
  int k, i, status = 0, rc, first = 0, mode_at = 0;
  cmd_ctx sub = *c;
  char **argv;
  uint32_t dummy;
  memset(&s, 0, sizeof s);
  /* Pull a mode that looks like an option out of argv first. */
  argv = arena_zalloc(c->a, sizeof(char *) * (size_t)(c->argc + 1));
  if (!argv) return MSB_ENOMEM;
  for (i = 0; i < c->argc; i++) {
    if (i > 0 && !mode_at && !strcmp(c->argv[i], "--")) mode_at = -1;
    if (i > 0 && !mode_at && chmod_looks_mode(c->argv[i])) {
      mode_at = i;
      s.mode = c->argv[i];
      continue;
    }
    argv[first++] = c->argv[i];
  }
  sub.argc = first;
  sub.argv = argv;
  cmd_opt_init(&g, &sub, chmod_opts, chmod_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'c': s.changes = 1; break;
    case 'f': s.quiet = 1; break;
    case 'v': s.verbose = 1; break;
    case 'R': s.rec = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  i = 0;
  if (!s.mode) {
    if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
    s.mode = g.ops[i++];
  }
  if (i >= g.nops) {
    return cmd_usage_err(&g, "missing operand after %s", cmd_quote(c, s.mode));
  }
  if (cmd_parse_mode(s.mode, 0644, 0, cmd_umask(c), &dummy) < 0)
    return cmd_usage_err(&g, "invalid mode: %s", cmd_quote(c, s.mode));
  for (; i < g.nops; i++) {
    const char *abs = cmd_path(c, g.ops[i]);
    if (!abs) return MSB_ENOMEM;
    if (s.rec)
      rc = chmod_tree(c, &s, g.ops[i]);
    else
      rc = chmod_one(c, &s, g.ops[i], abs, 1);
    if (rc < 0) return rc;
    if (rc) status = 1;
  }
  return status;
}
