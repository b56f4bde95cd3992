/* tree.c - list contents of directories in a tree-like format (tree 2.x).
 *
 * Usage: tree [-adfFilps] [-h] [-L level] [-I pattern] [-P pattern]
 *             [--noreport] [--dirsfirst] [--prune] [directory ...]
 * The filtered tree is first built in memory (iteratively, from the
 * arena), then --prune removes empty directories bottom-up, then it is
 * drawn with tree's UTF-8 line characters. Directories, including
 * symlinks to directories, are counted as tree 2.1 does: every listed
 * directory, plus each root that has entries. Sorting is bytewise.
 * Refused: colors (-C), JSON/XML/HTML output, -t/-c/-v sorts. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../glob.h"
#include "../order.h"
#include "cmd.h"

static const char tree_usage[] MSB_COLD =
    "usage: tree [-adfFilpsh] [-L level] [-P pattern] [-I pattern]\n"
    "\t[--noreport] [--dirsfirst] [--prune] [--] [directory ...]\n"
    "  -a            All files are listed.\n"
    "  -d            List directories only.\n"
    "  -l            Follow symbolic links like directories.\n"
    "  -f            Print the full path prefix for each file.\n"
    "  -L level      Descend only level directories deep.\n"
    "  -P pattern    List only those files that match the pattern given.\n"
    "  -I pattern    Do not list files that match the given pattern.\n"
    "  --noreport    Turn off file/directory count at end of tree listing.\n"
    "  -p            Print the protections for each file.\n"
    "  -s            Print the size in bytes of each file.\n"
    "  -h            Print the size in a more human readable way.\n"
    "  -F            Appends '/', '=', '*', '@', '|' or '>' as per ls -F.\n"
    "  -i            Don't print indentation lines.\n"
    "  -r            Sort files in reverse alphanumeric order.\n"
    "  --dirsfirst   List directories before files.\n"
    "  --prune       Prune empty directories from the output.\n"
    "  --help        Print usage and this help message and exit.\n"
    "  --version     Print version and exit.\n";

typedef struct tree_node {
  const char *name, *path, *abs, *target;
  struct vfs_stat st;
  int isdir;    /* directory or followed link to one */
  int recursive; /* -l link back to an ancestor */
  int err;
  struct tree_node **kids;
  size_t nkids;
  struct tree_node *parent;
  int depth;
  int keep;      /* survives --prune */
  uint64_t tino; /* -l: inode of a followed link's directory */
} tree_node;

typedef struct tree_state {
  cmd_ctx *c;
  int all, dirs, follow, full, noindent, classify, perms, size, human, noreport,
      dirsfirst, prune, reverse, maxlevel;
  const char *ipat, *ppat;
  uint64_t ndirs, nfiles;
  int utf8;          /* line drawing: UTF-8 boxes or ASCII (C locale) */
  int unreadable;    /* a directory could not be opened: status 2 */
  cmd_inodes visited; /* -l: directories already listed */
} tree_state;

/* tree picks its line characters from the locale: UTF-8 boxes when
 * LC_ALL / LC_CTYPE / LANG name a UTF-8 charset, ASCII otherwise. */
static int tree_utf8(cmd_ctx *c) {
  static const char *vars[] = {"LC_ALL=", "LC_CTYPE=", "LANG="};
  size_t v;
  char **e;
  for (v = 0; v < 3; v++) {
    size_t n = strlen(vars[v]);
    for (e = c->envp; e && *e; e++) {
      if (strncmp(*e, vars[v], n) || !(*e)[n]) continue;
      return strstr(*e + n, "UTF-8") || strstr(*e + n, "utf8") ||
             strstr(*e + n, "UTF8") || strstr(*e + n, "utf-8");
    }
  }
  return 0;
}

/* -l: records a directory inode; 0 when it was listed before. */
static int tree_visit(tree_state *s, uint64_t ino) {
  return cmd_inodes_add(s->c, &s->visited, ino);
}

/* Matches name against a tree pattern: globs separated by '|'. */
static int tree_match(cmd_ctx *c, const char *pat, const char *name) {
  const char *p = pat;
  while (1) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (glob_match(c->m, p, n, name, strlen(name), 0, 0) == 1) return 1;
    if (!bar) return 0;
    p = bar + 1;
  }
}

static int tree_cmp(const tree_state *s, const tree_node *a,
                    const tree_node *b) {
  int r;
  if (s->dirsfirst && a->isdir != b->isdir) return b->isdir - a->isdir;
  r = strcmp(a->name, b->name);
  return s->reverse ? -r : r;
}

static int tree_order(const void *a, const void *b, void *s) {
  return tree_cmp(s, *(tree_node *const *)a, *(tree_node *const *)b);
}

static int tree_sort(tree_state *s, tree_node **v, size_t n) {
  tree_node **tmp;
  if (n < 2) return 0;
  tmp = arena_alloc(s->c->a, n * sizeof *tmp);
  if (!tmp) return MSB_ENOMEM;
  order_sort(v, n, sizeof *v, tmp, tree_order, s);
  return 0;
}

static char *tree_join(cmd_ctx *c, const char *dir, const char *name,
                       size_t nl) {
  size_t dl = strlen(dir);
  int slash = dl && dir[dl - 1] != '/';
  char *p = arena_alloc(c->a, dl + nl + 2);
  if (!p) return 0;
  memcpy(p, dir, dl);
  if (slash) p[dl] = '/';
  memcpy(p + dl + (size_t)slash, name, nl);
  p[dl + (size_t)slash + nl] = 0;
  return p;
}

/* Reads the children of n (filtered and sorted). */
static int tree_read(tree_state *s, tree_node *n) {
  cmd_ctx *c = s->c;
  vfs_dir d;
  const char *en;
  size_t nl, cap = 8;
  int rc = vfs_opendir(c->fs, n->abs, &d);
  n->err = rc == MSB_EPOLICY; /* unreadable: said on its line, like GNU */
  if (n->err) s->unreadable = 1;
  if (rc < 0) return rc == MSB_ENOMEM ? rc : 0;
  n->kids = arena_alloc(c->a, cap * sizeof *n->kids);
  if (!n->kids) {
    vfs_closedir(&d);
    return MSB_ENOMEM;
  }
  while (vfs_readdir(&d, &en, &nl, 0) == 1) {
    tree_node *k;
    char *name;
    if (en[0] == '.' && !s->all) continue;
    name = arena_strndup(c->a, en, nl);
    k = name ? arena_zalloc(c->a, sizeof *k) : 0;
    if (!k) {
      vfs_closedir(&d);
      return MSB_ENOMEM;
    }
    k->name = name;
    k->parent = n;
    k->depth = n->depth + 1;
    k->path = tree_join(c, n->path, en, nl);
    k->abs = tree_join(c, n->abs, en, nl);
    if (!k->path || !k->abs) {
      vfs_closedir(&d);
      return MSB_ENOMEM;
    }
    vfs_stat(c->fs, k->abs, 0, &k->st);
    k->isdir = k->st.kind == VFS_DIR;
    if (k->st.kind == VFS_LINK) {
      struct vfs_stat t;
      buf b;
      buf_init(&b, c->m);
      if (vfs_readlink(c->fs, k->abs, &b) == 0 && !b.err)
        k->target = arena_strndup(c->a, buf_str(&b), b.len);
      buf_finish(&b);
      if (vfs_stat(c->fs, k->abs, 1, &t) == 0 && t.kind == VFS_DIR) {
        k->isdir = 1;
        k->tino = t.ino;
      }
    }
    if (s->dirs && !k->isdir) continue;
    if (s->ipat && tree_match(c, s->ipat, name)) continue;
    if (s->ppat && !(k->isdir && (k->st.kind != VFS_LINK || s->follow)) &&
        !tree_match(c, s->ppat, name))
      continue;
    if (n->nkids == cap) {
      tree_node **nk = arena_alloc(c->a, cap * 2 * sizeof *nk);
      if (!nk) {
        vfs_closedir(&d);
        return MSB_ENOMEM;
      }
      memcpy(nk, n->kids, n->nkids * sizeof *nk);
      n->kids = nk;
      cap *= 2;
    }
    n->kids[n->nkids++] = k;
    if ((n->nkids % 1000) == 0 && (rc = cmd_tick(c, 1)) < 0) {
      vfs_closedir(&d);
      return rc;
    }
  }
  vfs_closedir(&d);
  return tree_sort(s, n->kids, n->nkids);
}

/* Builds the whole (level-limited) tree below root without recursion. */
static int tree_build(tree_state *s, tree_node *root) {
  tree_node **stack;
  size_t n = 0, cap = 64, i;
  int rc;
  stack = arena_alloc(s->c->a, cap * sizeof *stack);
  if (!stack) return MSB_ENOMEM;
  stack[n++] = root;
  while (n) {
    tree_node *x = stack[--n];
    if (s->follow) {
      rc = tree_visit(s, x->st.kind == VFS_LINK ? x->tino : x->st.ino);
      if (rc < 0) return rc;
      if (rc == 0) {
        x->recursive = 1;
        continue;
      }
    }
    if ((rc = tree_read(s, x)) < 0) return rc;
    for (i = x->nkids; i-- > 0;) {
      tree_node *k = x->kids[i];
      if (!k->isdir || (k->st.kind == VFS_LINK && !s->follow)) continue;
      if (s->maxlevel > 0 && k->depth >= s->maxlevel) continue;
      if (n == cap) {
        tree_node **ns = arena_alloc(s->c->a, cap * 2 * sizeof *ns);
        if (!ns) return MSB_ENOMEM;
        memcpy(ns, stack, n * sizeof *ns);
        stack = ns;
        cap *= 2;
      }
      stack[n++] = k;
    }
  }
  return 0;
}

/* --prune: a directory stays if it has a surviving child (post-order via
 * an explicit stack). */
static int tree_prune(tree_state *s, tree_node *root) {
  tree_node **stack;
  size_t n = 0, cap = 64, i;
  stack = arena_alloc(s->c->a, cap * sizeof *stack);
  if (!stack) return MSB_ENOMEM;
  stack[n++] = root;
  /* Collect nodes in pre-order, then resolve in reverse (children first). */
  for (i = 0; i < n; i++) {
    size_t j;
    tree_node *x = stack[i];
    for (j = 0; j < x->nkids; j++) {
      if (n == cap) {
        tree_node **ns = arena_alloc(s->c->a, cap * 2 * sizeof *ns);
        if (!ns) return MSB_ENOMEM;
        memcpy(ns, stack, n * sizeof *ns);
        stack = ns;
        cap *= 2;
      }
      stack[n++] = x->kids[j];
    }
  }
  for (i = n; i-- > 0;) {
    tree_node *x = stack[i];
    size_t j, k = 0;
    if (!x->isdir || (x->st.kind == VFS_LINK && !s->follow)) {
      x->keep = !x->isdir || x->st.kind == VFS_LINK;
      continue;
    }
    for (j = 0; j < x->nkids; j++)
      if (x->kids[j]->keep) x->kids[k++] = x->kids[j];
    x->nkids = k;
    x->keep = k > 0;
  }
  return 0;
}

static void tree_line(tree_state *s, buf *o, const tree_node *x, int root) {
  char tmp[32];
  if (s->perms || s->size) {
    buf_putc(o, '[');
    if (s->perms) {
      char m[11];
      cmd_mode_str(x->st.kind, x->st.mode, m);
      buf_puts(o, m);
      if (s->size) buf_putc(o, ' ');
    }
    if (s->size) {
      if (s->human)
        cmd_human(cmd_size(&x->st), 0, tmp);
      else
        snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)cmd_size(&x->st));
      buf_printf(o, s->human ? "%4s" : "%11s", tmp);
    }
    buf_puts(o, "]  ");
  }
  buf_puts(o, (s->full || root) ? x->path : x->name);
  if (x->st.kind == VFS_LINK) {
    buf_puts(o, " -> ");
    buf_puts(o, x->target ? x->target : "");
    if (s->classify && x->isdir)
      buf_putc(o, '/');
    else if (s->classify && x->target) {
      struct vfs_stat t;
      if (vfs_stat(s->c->fs, x->abs, 1, &t) == 0 && (t.mode & 0111))
        buf_putc(o, '*');
    }
    if (x->recursive) buf_puts(o, "  [recursive, not followed]");
  } else if (s->classify) {
    if (x->isdir)
      buf_putc(o, '/');
    else if (x->st.mode & 0111)
      buf_putc(o, '*');
  }
  if (x->err) buf_puts(o, "  [error opening dir]");
  buf_putc(o, '\n');
}

/* Draws the tree under root (which is already printed). */
static int tree_draw(tree_state *s, tree_node *root) {
  typedef struct {
    tree_node *n;
    size_t i, prelen; /* prefix length before this level's cell */
  } frame;
  frame *st;
  size_t n = 0, cap = 64;
  buf pre;
  buf *o = s->c->out;
  int rc = 0;
  st = arena_alloc(s->c->a, cap * sizeof *st);
  if (!st) return MSB_ENOMEM;
  buf_init(&pre, s->c->m);
  st[n].n = root;
  st[n].prelen = 0;
  st[n++].i = 0;
  while (n) {
    frame *f = &st[n - 1];
    tree_node *x;
    int last;
    if (f->i >= f->n->nkids) {
      buf_truncate(&pre, f->prelen);
      n--;
      continue;
    }
    x = f->n->kids[f->i++];
    last = f->i == f->n->nkids;
    if (!s->noindent) {
      buf_put(o, buf_str(&pre), pre.len);
      if (s->utf8)
        buf_puts(o, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                         : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
      else
        buf_puts(o, last ? "`-- " : "|-- ");
    }
    tree_line(s, o, x, 0);
    if (x->isdir)
      s->ndirs++;
    else
      s->nfiles++;
    if (o->err) {
      rc = o->err;
      break;
    }
    if (s->c->out_max && o->len > s->c->out_max) {
      rc = MSB_ELIMIT;
      break;
    }
    if (x->nkids) {
      if (n == cap) {
        frame *ns = arena_alloc(s->c->a, cap * 2 * sizeof *ns);
        if (!ns) {
          rc = MSB_ENOMEM;
          break;
        }
        memcpy(ns, st, n * sizeof *ns);
        st = ns;
        cap *= 2;
      }
      st[n].prelen = pre.len;
      buf_puts(&pre, last ? "    " : s->utf8 ? "\xe2\x94\x82   " : "|   ");
      st[n].n = x;
      st[n++].i = 0;
    }
  }
  buf_finish(&pre);
  return rc;
}

/* tree: draw each directory operand as a tree. */
int cmd_tree(cmd_ctx *c) {
  static char *dot[] = {(char *)".", 0};
  tree_state s;
  int i, status = 0, rc, nops = 0, endopts = 0;
  char **ops;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.utf8 = tree_utf8(c);
  ops = arena_zalloc(c->a, (size_t)(c->argc + 1) * sizeof *ops);
  if (!ops) return MSB_ENOMEM;
  /* tree's own parser: single-letter clusters, a few long options. */
  for (i = 1; i < c->argc; i++) {
    const char *a = c->argv[i];
    if (endopts || a[0] != '-' || !a[1]) {
      ops[nops++] = c->argv[i];
      continue;
    }
    if (!strcmp(a, "--")) {
      endopts = 1;
    } else if (!strcmp(a, "--noreport")) {
      s.noreport = 1;
    } else if (!strcmp(a, "--dirsfirst")) {
      s.dirsfirst = 1;
    } else if (!strcmp(a, "--prune")) {
      s.prune = 1;
    } else if (!strcmp(a, "--help")) {
      buf_puts(c->out, cold_get(tree_usage));
      return 0;
    } else if (!strcmp(a, "--version")) {
      buf_printf(c->out, "tree (memsandbox) %s\n", MSB_VERSION);
      return 0;
    } else if (a[1] == '-') {
      cmd_err(c, "Invalid argument `%s'.", a);
      buf_puts(c->err, cold_get(tree_usage));
      return 1;
    } else {
      const char *p;
      for (p = a + 1; *p; p++) {
        switch (*p) {
        case 'a': s.all = 1; break;
        case 'd': s.dirs = 1; break;
        case 'f': s.full = 1; break;
        case 'F': s.classify = 1; break;
        case 'i': s.noindent = 1; break;
        case 'l': s.follow = 1; break;
        case 'n':
        case 'N':
        case 'U':
        case 'x': break;
        case 'p': s.perms = 1; break;
        case 's': s.size = 1; break;
        case 'h': s.size = s.human = 1; break;
        case 'r': s.reverse = 1; break;
        case 'L':
        case 'I':
        case 'P': {
          const char *v;
          if (p[1]) {
            cmd_err(c, "Missing argument to -%c option.", *p);
            return 1;
          }
          if (i + 1 >= c->argc) {
            cmd_err(c, "Missing argument to -%c option.", *p);
            return 1;
          }
          v = c->argv[++i];
          if (*p == 'L') {
            int64_t lv;
            if (cmd_parse_int(v, &lv) < 0 || lv < 1 || lv > 100000) {
              cmd_err(c, "Invalid level, must be greater than 0.");
              return 1;
            }
            s.maxlevel = (int)lv;
          } else if (*p == 'I') {
            s.ipat = v;
          } else {
            s.ppat = v;
          }
          break;
        }
        default:
          cmd_err(c, "Invalid argument -`%c'.", *p);
          buf_puts(c->err, cold_get(tree_usage));
          return 1;
        }
        if (*p == 'L' || *p == 'I' || *p == 'P') break;
      }
    }
  }
  if (!nops) {
    ops = dot;
    nops = 1;
  }
  for (i = 0; i < nops; i++) {
    tree_node *root = arena_zalloc(c->a, sizeof *root);
    const char *abs = cmd_path(c, ops[i]);
    if (!root || !abs) return MSB_ENOMEM;
    root->name = root->path = ops[i];
    root->abs = abs;
    rc = vfs_stat(c->fs, abs, 1, &root->st);
    if (rc < 0 || root->st.kind != VFS_DIR) {
      buf_printf(c->out, "%s  [error opening dir]\n", ops[i]);
      if (rc < 0)
        status = 2;
      else
        s.nfiles++;
      continue;
    }
    root->isdir = 1;
    tree_line(&s, c->out, root, 1);
    if ((rc = tree_build(&s, root)) < 0) return rc;
    if (s.prune && (rc = tree_prune(&s, root)) < 0) return rc;
    if (root->nkids) s.ndirs++;
    if ((rc = tree_draw(&s, root)) < 0) return rc;
  }
  if (!s.noreport) {
    buf_putc(c->out, '\n');
    if (s.dirs)
      buf_printf(c->out, "%llu director%s\n", (unsigned long long)s.ndirs,
                 s.ndirs == 1 ? "y" : "ies");
    else
      buf_printf(c->out, "%llu director%s, %llu file%s\n",
                 (unsigned long long)s.ndirs, s.ndirs == 1 ? "y" : "ies",
                 (unsigned long long)s.nfiles, s.nfiles == 1 ? "" : "s");
  }
  return s.unreadable ? 2 : status;
}
