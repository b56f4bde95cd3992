/* cp.c - copy files and directories (GNU coreutils).
 *
 * Usage: cp [OPTION]... [-T] SOURCE DEST
 *        cp [OPTION]... SOURCE... DIRECTORY
 *        cp [OPTION]... -t DIRECTORY SOURCE...
 *   -a (-dR --preserve=all)  -d (no-dereference)  -f  -i  -n  -p  -r/-R
 *   -L -H -P  -s (symlinks instead of copies)  -T  -t DIR  -u  -v
 *   -l (hard links instead of copies; with -r, refused: it would link
 *      every file of the tree one by one).
 * A directory copied to a new name is one O(1) vfs_copy (shared subtree);
 * copying onto an existing directory merges entry by entry as GNU does.
 * With -R symlinks are copied as links (-P) unless -L/-H. As in GNU, a
 * directory is never merged through a symbolic link that stands where it
 * goes, and a file never written through a dangling one, so copying a
 * tree cannot spill outside the destination through links in it. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char cp_usage[] MSB_COLD =
    "Usage: cp [OPTION]... [-T] SOURCE DEST\n"
    "  or:  cp [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  cp [OPTION]... -t DIRECTORY SOURCE...\n"
    "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.\n"
    "\n"
    "  -a, --archive                same as -dR --preserve=all\n"
    "  -d                           same as --no-dereference "
    "--preserve=links\n"
    "  -f, --force                  if an existing destination file cannot "
    "be\n"
    "                                 opened, remove it and try again\n"
    "  -i, --interactive            prompt before overwrite\n"
    "  -H                           follow command-line symbolic links in "
    "SOURCE\n"
    "  -L, --dereference            always follow symbolic links in SOURCE\n"
    "  -n, --no-clobber             do not overwrite an existing file\n"
    "  -P, --no-dereference         never follow symbolic links in SOURCE\n"
    "  -p                           same as --preserve=mode,timestamps\n"
    "  -R, -r, --recursive          copy directories recursively\n"
    "  -s, --symbolic-link          make symbolic links instead of copying\n"
    "  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into "
    "DIRECTORY\n"
    "  -T, --no-target-directory    treat DEST as a normal file\n"
    "  -u, --update                 copy only when the SOURCE file is newer\n"
    "                                 than the destination file or when "
    "the\n"
    "                                 destination file is missing\n"
    "  -v, --verbose                explain what is being done\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { CP_PRESERVE = 256, CP_NOPRESERVE };

static const cmd_opt cp_opts[] = {
    {'a', "archive", CMD_ARG_NONE, 'a'},
    {'d', 0, CMD_ARG_NONE, 'd'},
    {'f', "force", CMD_ARG_NONE, 'f'},
    {'H', 0, CMD_ARG_NONE, 'H'},
    {'i', "interactive", CMD_ARG_NONE, 'i'},
    {'l', "link", CMD_ARG_NONE, 'l'},
    {'L', "dereference", CMD_ARG_NONE, 'L'},
    {'n', "no-clobber", CMD_ARG_NONE, 'n'},
    {'P', "no-dereference", CMD_ARG_NONE, 'P'},
    {'p', 0, CMD_ARG_NONE, 'p'},
    {0, "preserve", CMD_ARG_OPT, CP_PRESERVE},
    {0, "no-preserve", CMD_ARG_REQ, CP_NOPRESERVE},
    {'R', "recursive", CMD_ARG_NONE, 'R'},
    {'r', 0, CMD_ARG_NONE, 'R'},
    {'s', "symbolic-link", CMD_ARG_NONE, 's'},
    {'t', "target-directory", CMD_ARG_REQ, 't'},
    {'T', "no-target-directory", CMD_ARG_NONE, 'T'},
    {'u', "update", CMD_ARG_NONE, 'u'},
    {'v', "verbose", CMD_ARG_NONE, 'v'},
    {0, 0, 0, 0}};

enum { CP_DEREF_UNSET, CP_DEREF_NEVER, CP_DEREF_ALWAYS, CP_DEREF_CMDLINE };

typedef struct cp_state {
  cmd_ctx *c;
  int rec, deref, preserve, noclobber, inter, update, verbose, symlink, force;
  int hardlink;
  int links; /* -a, -d, --preserve=links: keep hard links among the copies */
  struct cp_seen {
    uint64_t ino;
    const char *dabs;
  } *seen; /* the first copy of each multiply-linked source file */
  size_t nseen, seencap;
  size_t in_pos;
  int status;
} cp_state;

static const char *cp_join(cmd_ctx *c, const char *dir, const char *name) {
  size_t dl = strlen(dir), nl = strlen(name);
  int slash = dl && dir[dl - 1] != '/';
  char *p = arena_alloc(c->a, dl + nl + 2);
  if (!p) return 0;
  memcpy(p, dir, dl);
  if (slash) p[dl] = '/';
  memcpy(p + dl + (size_t)slash, name, nl + 1);
  return p;
}

/* With links kept, a source file met again through another of its names
 * becomes a hard link to its first copy, as GNU cp does. */
static int cp_keep_link(cp_state *s, const struct vfs_stat *st,
                        const char *dabs) {
  size_t i;
  struct cp_seen *n;
  if (!s->links || st->kind != VFS_FILE || st->nlink < 2) return 0;
  for (i = 0; i < s->nseen; i++)
    if (s->seen[i].ino == st->ino) {
      vfs_remove(s->c->fs, dabs, 0);
      return vfs_link(s->c->fs, s->seen[i].dabs, dabs);
    }
  if (s->nseen == s->seencap) {
    s->seencap = s->seencap ? s->seencap * 2 : 8;
    n = arena_alloc(s->c->a, s->seencap * sizeof *n);
    if (!n) return MSB_ENOMEM;
    if (s->nseen) memcpy(n, s->seen, s->nseen * sizeof *n);
    s->seen = n;
  }
  s->seen[s->nseen].ino = st->ino;
  s->seen[s->nseen].dabs = arena_strdup(s->c->a, dabs);
  return s->seen[s->nseen++].dabs ? 0 : MSB_ENOMEM;
}

/* The same for every file of a subtree copied whole. */
static int cp_keep_links_tree(cp_state *s, const char *src, const char *dabs) {
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc;
  size_t sl = strlen(src);
  if (!s->links) return 0;
  if ((rc = cmd_walk_open(s->c, src, 0, &w)) < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    const char *rel = e->path + sl, *to;
    if (e->st.kind != VFS_FILE || e->st.nlink < 2) continue;
    while (*rel == '/') rel++;
    to = *rel ? cp_join(s->c, dabs, rel) : dabs;
    if (!to || (rc = cp_keep_link(s, &e->st, to)) == MSB_ENOMEM) {
      rc = MSB_ENOMEM;
      break;
    }
  }
  cmd_walk_close(w);
  return rc;
}

static int cp_verbose(cp_state *s, const char *from, const char *to) {
  if (!s->verbose) return 0;
  return cmd_outf(s->c, "%s -> %s\n", cmd_quote(s->c, from),
                  cmd_quote(s->c, to));
}

/* New copies get the source's mode minus the umask, as a file created
 * with open(2) would (not with -p / -a). A copied subtree is shared, so
 * it is only walked when the umask actually takes bits away. */
static int cp_umask(cp_state *s, const char *dabs) {
  cmd_ctx *c = s->c;
  uint32_t um = cmd_umask(c);
  struct vfs_stat st;
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc;
  if (s->preserve || vfs_stat(c->fs, dabs, 0, &st) < 0) return 0;
  if (st.kind == VFS_LINK) return 0;
  if (st.kind != VFS_DIR)
    return (st.mode & um) ? vfs_chmod(c->fs, dabs, st.mode & 07777 & ~um) : 0;
  if ((rc = cmd_walk_open(c, dabs, 0, &w)) < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0)
    if (e->st.kind != VFS_LINK && (e->st.mode & um) &&
        (rc = vfs_chmod(c->fs, e->abs, e->st.mode & 07777 & ~um)) < 0)
      break;
  cmd_walk_close(w);
  return rc < 0 ? rc : 0;
}

/* cp -l: dst becomes another name of src (GNU: refused onto an existing
 * file unless -f). */
static int cp_hardlink(cp_state *s, const char *sabs, const char *dabs,
                       const char *src, const char *dst, int exists) {
  cmd_ctx *c = s->c;
  int rc;
  if (exists && s->force) vfs_remove(c->fs, dabs, 0);
  rc = vfs_link(c->fs, sabs, dabs);
  if (rc == MSB_ENOMEM) return rc;
  if (rc < 0) {
    cmd_err(c, "cannot create hard link %s to %s: %s", cmd_quote(c, dst),
            cmd_quote(c, src), cmd_strerror(rc));
    return 1;
  }
  return cp_verbose(s, src, dst);
}

/* Copies one non-directory (file or link) onto dst. */
static int cp_file(cp_state *s, const char *src, const char *sabs,
                   const struct vfs_stat *sst, const char *dst,
                   const char *dabs, int follow) {
  cmd_ctx *c = s->c;
  struct vfs_stat dst_st;
  int rc, exists = vfs_stat(c->fs, dabs, 1, &dst_st) == 0;
  unsigned fl = VFS_CP_OVERWRITE;
  if (!exists) {
    struct vfs_stat l;
    exists = vfs_stat(c->fs, dabs, 0, &l) == 0; /* dangling link */
    if (exists) dst_st = l;
    /* GNU writes a file through a link only to an existing file: a
     * dangling one would create a file wherever it points */
    if (exists && !s->symlink && sst->kind != VFS_LINK) {
      cmd_err(c, "not writing through dangling symlink %s", cmd_quote(c, dst));
      return 1;
    }
  }
  if (exists) {
    if (dst_st.kind == VFS_DIR) {
      cmd_err(c, "cannot overwrite directory %s with non-directory",
              cmd_quote(c, dst));
      return 1;
    }
    if (dst_st.ino == sst->ino && dst_st.kind == sst->kind) {
      cmd_err(c, "%s and %s are the same file", cmd_quote(c, src),
              cmd_quote(c, dst));
      return 1;
    }
    if (s->noclobber) return 0;
    if (s->update && dst_st.mtime_ns >= sst->mtime_ns) return 0;
    if (s->inter) {
      buf_printf(c->err, "%s: overwrite %s? ", cmd_name(c), cmd_quote(c, dst));
      if (!cmd_answer_yes(s->c, &s->in_pos)) return 0;
    }
  }
  if (s->symlink) {
    if (exists) {
      if (!s->force) {
        cmd_err(c, "cannot create symbolic link %s to %s: %s",
                cmd_quote(c, dst), cmd_quote(c, src), cmd_strerror(MSB_EEXIST));
        return 1;
      }
      vfs_remove(c->fs, dabs, 0);
    }
    rc = vfs_symlink(c->fs, src, dabs);
    if (rc < 0) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "cannot create symbolic link %s: %s", cmd_quote(c, dst),
              cmd_strerror(rc));
      return 1;
    }
    return cp_verbose(s, src, dst);
  }
  if (s->hardlink) return cp_hardlink(s, sabs, dabs, src, dst, exists);
  if (!follow) fl |= VFS_CP_NOFOLLOW;
  if (s->preserve) fl |= VFS_CP_KEEP_META;
  if (exists && sst->kind == VFS_LINK && !follow) vfs_remove(c->fs, dabs, 0);
  rc = vfs_copy(c->fs, sabs, dabs, fl);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    if (rc == MSB_ENOSPC) /* the write failed: a full device or quota */
      cmd_err(c, "error writing %s: %s", cmd_quote(c, dst), cmd_strerror(rc));
    else if (rc == MSB_ENOENT || rc == MSB_ENOTDIR)
      cmd_err(
          c, "cannot create %s %s: %s",
          sst->kind == VFS_LINK && !follow ? "symbolic link" : "regular file",
          cmd_quote(c, dst), cmd_strerror(rc));
    else
      cmd_err(c, "cannot copy %s to %s: %s", cmd_quote(c, src),
              cmd_quote(c, dst), cmd_strerror(rc));
    return 1;
  }
  if (!exists && (rc = cp_umask(s, dabs)) < 0) return rc;
  if (follow || sst->kind != VFS_LINK)
    if ((rc = cp_keep_link(s, sst, dabs)) == MSB_ENOMEM) return rc;
  return cp_verbose(s, src, dst);
}

/* Prints "'src/x' -> 'dst/x'" for every entry of a copied subtree. */
static int cp_list(cp_state *s, const char *src, const char *dst) {
  cmd_walk *w;
  cmd_walk_ent *e;
  int rc;
  size_t sl = strlen(src);
  if (!s->verbose) return 0;
  if ((rc = cmd_walk_open(s->c, src, 0, &w)) < 0) return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    const char *rel = e->path + sl, *to;
    while (*rel == '/') rel++;
    to = *rel ? cp_join(s->c, dst, rel) : dst;
    if (!to) {
      rc = MSB_ENOMEM;
      break;
    }
    if ((rc = cp_verbose(s, e->path, to)) < 0) break;
  }
  cmd_walk_close(w);
  return rc;
}

/* Copies a directory: whole subtree when dst is new, else merges. */
static int cp_dir(cp_state *s, const char *src, const char *sabs,
                  const char *dst, const char *dabs) {
  cmd_ctx *c = s->c;
  struct vfs_stat dst_st, st;
  size_t sl = strlen(sabs);
  int rc, status = 0;
  cmd_walk *w;
  cmd_walk_ent *e;
  if (s->hardlink) {
    cmd_err(c, "-l with directories is not supported in this sandbox: %s",
            cmd_quote(c, src));
    return 1;
  }
  if (!strncmp(dabs, sabs, sl) &&
      (dabs[sl] == '/' || !dabs[sl] || !strcmp(sabs, "/"))) {
    if (!dabs[sl]) {
      cmd_err(c, "cannot copy a directory, %s, into itself, %s",
              cmd_quote(c, src), cmd_quote(c, dst));
    } else {
      cmd_err(c, "cannot copy a directory, %s, into itself, %s",
              cmd_quote(c, src), cmd_quote(c, dst));
    }
    return 1;
  }
  /* a link where the directory goes is not merged through (GNU) */
  rc = vfs_stat(c->fs, dabs, 0, &dst_st);
  if (rc < 0 && s->deref == CP_DEREF_ALWAYS) {
    /* -L: links inside must be resolved, so copy entry by entry. */
    struct vfs_stat sst;
    if (vfs_stat(c->fs, sabs, 1, &sst) < 0) sst.mode = 0755;
    rc = vfs_mkdir(c->fs, dabs, sst.mode & 07777 & ~cmd_umask(c), 0);
    if (rc < 0) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "cannot create directory %s: %s", cmd_quote(c, dst),
              cmd_strerror(rc));
      return 1;
    }
    rc = vfs_stat(c->fs, dabs, 0, &dst_st);
  }
  if (rc < 0) {
    unsigned fl = s->deref == CP_DEREF_ALWAYS ? 0 : VFS_CP_NOFOLLOW;
    if (s->preserve) fl |= VFS_CP_KEEP_META;
    rc = vfs_copy(c->fs, sabs, dabs, fl);
    if (rc == MSB_EPOLICY &&
        vfs_access(c->fs, sabs, VFS_ACC_TREE_READ) == MSB_EPOLICY) {
      /* the policy hides part of the source tree */
      cmd_err(c, "cannot open directory %s: %s", cmd_quote(c, src),
              cmd_strerror(rc));
      return 1;
    }
    if (rc < 0) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "cannot create directory %s: %s", cmd_quote(c, dst),
              cmd_strerror(rc));
      return 1;
    }
    if ((rc = cp_umask(s, dabs)) < 0) return rc;
    if (cp_keep_links_tree(s, src, dabs) == MSB_ENOMEM) return MSB_ENOMEM;
    return cp_list(s, src, dst) < 0 ? MSB_ELIMIT : 0;
  }
  if (dst_st.kind != VFS_DIR) {
    cmd_err(c, "cannot overwrite non-directory %s with directory %s",
            cmd_quote(c, dst), cmd_quote(c, src));
    return 1;
  }
  /* Merge: walk the source; new subtrees are copied whole. */
  if ((rc = cp_verbose(s, src, dst)) < 0) return rc;
  if ((rc = cmd_walk_open(
           c, src,
           s->deref == CP_DEREF_ALWAYS ? CMD_WALK_FOLLOW : CMD_WALK_FOLLOW_ROOT,
           &w)) < 0)
    return rc;
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    const char *rel = e->path + strlen(src), *to, *tabs;
    if (e->depth == 0) continue;
    while (*rel == '/') rel++;
    to = cp_join(c, dst, rel);
    tabs = to ? cp_join(c, dabs, rel) : 0;
    if (!tabs) {
      rc = MSB_ENOMEM;
      break;
    }
    if (e->err == MSB_ELOOP) {
      cmd_err(c, "cannot copy cyclic symbolic link %s", cmd_quote(c, e->path));
      rc = 1;
    } else if (e->st.kind == VFS_DIR) {
      if (vfs_stat(c->fs, tabs, 0, &st) < 0) {
        /* A new subdirectory: with -L make it and keep walking (links
         * inside must be resolved); otherwise copy it whole in O(1). */
        if (s->deref == CP_DEREF_ALWAYS) {
          rc = vfs_mkdir(c->fs, tabs, e->st.mode & 07777 & ~cmd_umask(c), 0);
          if (rc == 0) rc = cp_verbose(s, e->path, to);
        } else {
          unsigned fl = VFS_CP_NOFOLLOW | (s->preserve ? VFS_CP_KEEP_META : 0);
          rc = vfs_copy(c->fs, e->abs, tabs, fl);
          if (rc == 0) rc = cp_umask(s, tabs);
          if (rc == 0) rc = cp_list(s, e->path, to);
          cmd_walk_prune(w);
        }
        if (rc < 0 && rc != MSB_ENOMEM && rc != MSB_ELIMIT) {
          cmd_err(c, "cannot create directory %s: %s", cmd_quote(c, to),
                  cmd_strerror(rc));
          rc = 1;
        }
      } else if (st.kind != VFS_DIR) {
        cmd_err(c, "cannot overwrite non-directory %s with directory %s",
                cmd_quote(c, to), cmd_quote(c, e->path));
        rc = 1;
        cmd_walk_prune(w);
      } else {
        rc = cp_verbose(s, e->path, to);
      }
    } else {
      rc = cp_file(s, e->path, e->abs, &e->st, to, tabs,
                   s->deref == CP_DEREF_ALWAYS);
    }
    if (rc < 0) break;
    if (rc) status = 1;
  }
  cmd_walk_close(w);
  return rc < 0 ? rc : status;
}

static int cp_one(cp_state *s, const char *src, const char *dst);

static int cp_one_cb(void *s, const char *src, const char *dst) {
  return cp_one(s, src, dst);
}

static int cp_one(cp_state *s, const char *src, const char *dst) {
  cmd_ctx *c = s->c;
  const char *sabs = cmd_path(c, src), *dabs = cmd_path(c, dst);
  struct vfs_stat st;
  int follow, rc;
  size_t sl = strlen(src);
  if (!sabs || !dabs) return MSB_ENOMEM;
  follow = s->deref == CP_DEREF_ALWAYS || s->deref == CP_DEREF_CMDLINE ||
           (s->deref == CP_DEREF_UNSET && !s->rec) ||
           (sl && src[sl - 1] == '/');
  rc = cmd_slash_check(c, src, sabs);
  if (rc == 0) rc = vfs_stat(c->fs, sabs, follow, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "cannot stat %s: %s", cmd_quote(c, src), cmd_strerror(rc));
    return 1;
  }
  if (st.kind == VFS_DIR) {
    if (!s->rec) {
      cmd_err(c, "-r not specified; omitting directory %s", cmd_quote(c, src));
      return 1;
    }
    return cp_dir(s, src, sabs, dst, dabs);
  }
  return cp_file(s, src, sabs, &st, dst, dabs, follow);
}

/* cp: copy SOURCE to DEST, or SOURCEs into DIRECTORY. */
int cmd_cp(cmd_ctx *c) {
  cmd_getopt g;
  cp_state s;
  int k, notarget = 0, rc;
  const char *tdir = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  cmd_opt_init(&g, c, cp_opts, cp_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'a':
      s.rec = 1;
      s.preserve = 1;
      s.links = 1;
      s.deref = CP_DEREF_NEVER;
      break;
    case 'd':
      s.deref = CP_DEREF_NEVER;
      s.links = 1;
      break;
    case 'f': s.force = 1; break;
    case 'H': s.deref = CP_DEREF_CMDLINE; break;
    case 'i':
      s.inter = 1;
      s.noclobber = 0;
      break;
    case 'l': s.hardlink = 1; break;
    case 'L': s.deref = CP_DEREF_ALWAYS; break;
    case 'n':
      s.noclobber = 1;
      s.inter = 0;
      break;
    case 'P': s.deref = CP_DEREF_NEVER; break;
    case 'p': s.preserve = 1; break;
    case CP_PRESERVE:
      s.preserve = 1;
      if (g.arg && (strstr(g.arg, "links") || strstr(g.arg, "all")))
        s.links = 1;
      break;
    case CP_NOPRESERVE: s.preserve = 0; break;
    case 'R': s.rec = 1; break;
    case 's': s.symlink = 1; break;
    case 't': tdir = g.arg; break;
    case 'T': notarget = 1; break;
    case 'u': s.update = 1; break;
    case 'v': s.verbose = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  rc = cmd_dest_run(&g, tdir, notarget, cp_one_cb, &s);
  return rc < 0 ? rc : rc ? rc : s.status;
}
