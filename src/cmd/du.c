/* du.c - estimate file space usage (GNU coreutils).
 *
 * Usage: du [OPTION]... [FILE]...
 *   -a, --all  -b, --bytes  -c, --total  -d, --max-depth=N  -h
 *   --si  -k  -m  -s, --summarize  -S, --separate-dirs  -L  -P  -x
 *   --apparent-size  -B, --block-size=SIZE  -0, --null
 * Disk usage follows cmd_blocks (4 KiB allocation units, directories one
 * block, symlinks none), the same rule ls -s and stat use, so du, ls and
 * stat agree. Entries are visited in bytewise order, children before their
 * directory (GNU uses directory order). */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char du_usage[] MSB_COLD =
    "Usage: du [OPTION]... [FILE]...\n"
    "Summarize device usage of the set of FILEs, recursively for "
    "directories.\n"
    "\n"
    "  -0, --null            end each output line with NUL, not newline\n"
    "  -a, --all             write counts for all files, not just "
    "directories\n"
    "      --apparent-size   print apparent sizes rather than device usage\n"
    "  -B, --block-size=SIZE  scale sizes by SIZE before printing them\n"
    "  -b, --bytes           equivalent to '--apparent-size "
    "--block-size=1'\n"
    "  -c, --total           produce a grand total\n"
    "  -d, --max-depth=N     print the total for a directory (or file, with "
    "--all)\n"
    "                          only if it is N or fewer levels below the "
    "command\n"
    "                          line argument\n"
    "  -h, --human-readable  print sizes in human readable format (e.g., "
    "1K 234M 2G)\n"
    "      --si              like -h, but use powers of 1000 not 1024\n"
    "  -k                    like --block-size=1K\n"
    "  -L, --dereference     dereference all symbolic links\n"
    "  -m                    like --block-size=1M\n"
    "  -P, --no-dereference  don't follow any symbolic links (this is the "
    "default)\n"
    "  -S, --separate-dirs   for directories do not include size of "
    "subdirectories\n"
    "  -s, --summarize       display only a total for each argument\n"
    "  -x, --one-file-system    skip directories on different file systems\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum { DU_APPARENT = 256, DU_SI, DU_MAXDEPTH };
static const cmd_opt du_opts[] = {
    {'0', "null", CMD_ARG_NONE, '0'},
    {'a', "all", CMD_ARG_NONE, 'a'},
    {0, "apparent-size", CMD_ARG_NONE, DU_APPARENT},
    {'B', "block-size", CMD_ARG_REQ, 'B'},
    {'b', "bytes", CMD_ARG_NONE, 'b'},
    {'c', "total", CMD_ARG_NONE, 'c'},
    {'d', "max-depth", CMD_ARG_REQ, 'd'},
    {'h', "human-readable", CMD_ARG_NONE, 'h'},
    {0, "si", CMD_ARG_NONE, DU_SI},
    {'k', 0, CMD_ARG_NONE, 'k'},
    {'L', "dereference", CMD_ARG_NONE, 'L'},
    {'m', 0, CMD_ARG_NONE, 'm'},
    {'P', "no-dereference", CMD_ARG_NONE, 'P'},
    {'S', "separate-dirs", CMD_ARG_NONE, 'S'},
    {'s', "summarize", CMD_ARG_NONE, 's'},
    {'x', "one-file-system", CMD_ARG_NONE, 'x'},
    {0, 0, 0, 0}};

typedef struct du_state {
  cmd_ctx *c;
  uint64_t *seen; /* open-addressing set of visited inodes (0 = empty) */
  size_t nseen, cap;
  int hash_all;
  int all, apparent, human, si, sep, follow, maxdepth, zero;
  uint64_t bsize;
} du_state;

/* Inserts ino; 1 if new, 0 if already seen, MSB_ENOMEM. */
static int du_seen_add(du_state *s, uint64_t ino) {
  size_t i;
  ino++; /* keep 0 as the empty marker */
  if ((s->nseen + 1) * 2 > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 256, j;
    uint64_t *ns = mem_zalloc(s->c->m, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    for (j = 0; j < s->cap; j++) {
      uint64_t v = s->seen[j];
      if (!v) continue;
      for (i = (size_t)(v * 0x9E3779B97F4A7C15ull) & (nc - 1); ns[i];
           i = (i + 1) & (nc - 1)) {
      }
      ns[i] = v;
    }
    mem_free(s->c->m, s->seen);
    s->seen = ns;
    s->cap = nc;
  }
  for (i = (size_t)(ino * 0x9E3779B97F4A7C15ull) & (s->cap - 1); s->seen[i];
       i = (i + 1) & (s->cap - 1))
    if (s->seen[i] == ino) return 0;
  s->seen[i] = ino;
  s->nseen++;
  return 1;
}

static uint64_t du_size(const du_state *s, const struct vfs_stat *st) {
  return s->apparent ? cmd_size(st) : cmd_blocks(st) * 512;
}

static int du_line(du_state *s, uint64_t bytes, const char *name) {
  char num[32];
  if (s->human || s->si)
    cmd_human(bytes, s->si, num);
  else
    snprintf(num, sizeof num, "%llu",
             (unsigned long long)(bytes / s->bsize + (bytes % s->bsize != 0)));
  return cmd_outf(s->c, "%s\t%s%c", num, name, s->zero ? 0 : '\n');
}

/* Walks one operand; adds its total to *total. */
static int du_one(du_state *s, const char *op, uint64_t *total) {
  cmd_ctx *c = s->c;
  cmd_walk *w;
  cmd_walk_ent *e;
  uint64_t *sums; /* per depth: running totals of open directories */
  size_t cap = 64;
  int rc, status = 0, skip_post = 0;
  const char *abs = cmd_path(c, op);
  struct vfs_stat st;
  if (!abs) return MSB_ENOMEM;
  rc = cmd_slash_check(c, op, abs);
  if (rc == 0) rc = vfs_stat(c->fs, abs, s->follow, &st);
  if (rc < 0) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "cannot access %s: %s", cmd_quote(c, op), cmd_strerror(rc));
    return 1;
  }
  sums = mem_zalloc(c->m, cap * sizeof *sums);
  if (!sums) return MSB_ENOMEM;
  rc = cmd_walk_open(
      c, op,
      CMD_WALK_POST | CMD_WALK_FOLLOW_ROOT | (s->follow ? CMD_WALK_FOLLOW : 0),
      &w);
  if (rc < 0) {
    mem_free(c->m, sums);
    return rc;
  }
  while ((rc = cmd_walk_next(w, &e)) > 0) {
    size_t d = (size_t)e->depth;
    uint64_t own;
    if (d + 2 > cap) {
      uint64_t *ns = mem_realloc(c->m, sums, cap * 2 * sizeof *ns);
      if (!ns) {
        rc = MSB_ENOMEM;
        break;
      }
      memset(ns + cap, 0, cap * sizeof *ns);
      sums = ns;
      cap *= 2;
    }
    if (e->err == MSB_ELOOP) continue;
    if (e->err == MSB_EPOLICY) {
      /* unreadable (policy): report it, count it as an empty directory */
      cmd_err(c, "cannot read directory %s: %s", cmd_quote(c, e->path),
              cmd_strerror(e->err));
      status = 1;
      e->post = 1;
    }
    if (skip_post) {
      skip_post = 0;
      if (e->post) continue;
    }
    /* a file of several names counts once, as GNU du without -l */
    if ((s->hash_all || (e->st.kind != VFS_DIR && e->st.nlink > 1)) &&
        !e->post) {
      int r = du_seen_add(s, e->st.ino);
      if (r < 0) {
        rc = r;
        break;
      }
      if (r == 0) {
        if (e->st.kind == VFS_DIR) {
          cmd_walk_prune(w);
          skip_post = 1;
        }
        continue;
      }
    }
    own = du_size(s, &e->st);
    if (e->st.kind == VFS_DIR && !e->post) {
      sums[d] = own; /* directory opened: start its running total */
      continue;
    }
    if (e->st.kind == VFS_DIR) {
      uint64_t mine = sums[d];
      if (e->depth == 0 || s->maxdepth < 0 || e->depth <= s->maxdepth)
        if ((rc = du_line(s, mine, e->path)) < 0) break;
      if (d > 0)
        sums[d - 1] += s->sep ? 0 : mine;
      else
        *total += mine;
      continue;
    }
    if (d > 0) {
      sums[d - 1] += own;
      if (s->all && (s->maxdepth < 0 || e->depth <= s->maxdepth))
        if ((rc = du_line(s, own, e->path)) < 0) break;
    } else {
      *total += own;
      if ((rc = du_line(s, own, e->path)) < 0) break;
    }
  }
  cmd_walk_close(w);
  mem_free(c->m, sums);
  return rc < 0 ? rc : status;
}

/* du: print disk usage of each FILE (default "."). */
int cmd_du(cmd_ctx *c) {
  static char *dot[] = {(char *)".", 0};
  cmd_getopt g;
  du_state s;
  int k, i, nops, rc = 0, status = 0, total_line = 0, summarize = 0;
  char **ops;
  uint64_t total = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.bsize = 1024;
  s.maxdepth = -1;
  cmd_opt_init(&g, c, du_opts, du_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case '0': s.zero = 1; break;
    case 'a': s.all = 1; break;
    case DU_APPARENT: s.apparent = 1; break;
    case 'B':
      if (cmd_parse_size(g.arg, 0, &s.bsize) < 0 || !s.bsize) {
        cmd_err(c, "invalid -B argument %s", cmd_quote(c, g.arg));
        return 1;
      }
      s.human = s.si = 0;
      break;
    case 'b':
      s.apparent = 1;
      s.bsize = 1;
      s.human = s.si = 0;
      break;
    case 'c': total_line = 1; break;
    case 'd': {
      int64_t v;
      if (cmd_parse_int(g.arg, &v) < 0 || v < 0 || v > 1000000) {
        cmd_err(c, "invalid maximum depth %s", cmd_quote(c, g.arg));
        buf_printf(c->err, "Try '%s --help' for more information.\n",
                   cmd_name(c));
        return 1;
      }
      s.maxdepth = (int)v;
      break;
    }
    case 'h':
      s.human = 1;
      s.si = 0;
      break;
    case DU_SI:
      s.si = 1;
      s.human = 0;
      break;
    case 'k':
      s.bsize = 1024;
      s.human = s.si = 0;
      break;
    case 'L': s.follow = 1; break;
    case 'm':
      s.bsize = 1048576;
      s.human = s.si = 0;
      break;
    case 'P': s.follow = 0; break;
    case 'S': s.sep = 1; break;
    case 's': summarize = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (summarize) {
    if (s.maxdepth > 0) {
      cmd_err(c, "warning: summarizing conflicts with --max-depth=%d",
              s.maxdepth);
      return 1;
    }
    if (s.all) {
      cmd_err(c, "cannot both summarize and show all entries");
      buf_printf(c->err, "Try '%s --help' for more information.\n",
                 cmd_name(c));
      return 1;
    }
    s.maxdepth = 0;
  }
  ops = g.nops ? g.ops : dot;
  nops = g.nops ? g.nops : 1;
  s.hash_all = s.follow || nops > 1;
  for (i = 0; i < nops; i++) {
    rc = du_one(&s, ops[i], &total);
    if (rc < 0) break;
    if (rc) status = 1;
  }
  if (rc >= 0 && total_line) rc = du_line(&s, total, "total");
  mem_free(c->m, s.seen);
  return rc < 0 ? rc : status;
}
