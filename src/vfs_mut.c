/* vfs_mut.c - filesystem mutations: write, mkdir, remove, copy, rename,
 * symlink, chmod, utime.
 *
 * Each one resolves its path(s) read-only, validates everything (kinds,
 * protected nodes, name limits, quotas), allocates what it needs (copies
 * of shared directories along the path, new nodes, names, blobs, entry
 * room), and only then commits; the commit cannot fail. A failure before
 * the commit leaves the tree logically unchanged: copies made for
 * copy-on-write equal what they replaced. See vfs.c for the data layout. */
#include <string.h>

#include "secret.h"
#include "vfs.h"
#include "vfs_int.h"

static int vfs_protected(const vfs_walk *w) {
  if (w->isroot) return 1;
  if (w->n != 1 || !w->found) return 0;
  return (w->nlen == 9 && !memcmp(w->name, "workspace", 9)) ||
         (w->nlen == 3 && !memcmp(w->name, "tmp", 3));
}

/* Both walks name the same canonical path. */
static int vfs_samepath(const vfs_walk *a, const vfs_walk *b) {
  size_t i;
  if (a->isroot || b->isroot) return a->isroot == b->isroot;
  if (a->n != b->n || a->nlen != b->nlen) return 0;
  if (memcmp(a->name, b->name, a->nlen)) return 0;
  for (i = 1; i < a->n; i++)
    if (a->lv[i].nlen != b->lv[i].nlen ||
        memcmp(a->lv[i].name, b->lv[i].name, a->lv[i].nlen))
      return 0;
  return 1;
}

/* The parent of b's final component lies inside (or is) a's final one. */
static int vfs_inside(const vfs_walk *a, const vfs_walk *b) {
  size_t i;
  if (a->isroot) return 1;
  if (b->isroot || b->n <= a->n) return 0;
  for (i = 1; i < a->n; i++)
    if (a->lv[i].nlen != b->lv[i].nlen ||
        memcmp(a->lv[i].name, b->lv[i].name, a->lv[i].nlen))
      return 0;
  return b->lv[a->n].nlen == a->nlen &&
         !memcmp(b->lv[a->n].name, a->name, a->nlen);
}

/* Makes every directory on the walked path unshared (copy-on-write). On
 * failure the copies made so far stay: they equal the originals. A node
 * is unshared when its count is 1 and the chunk holding its entry is
 * unshared too (a shared chunk is one reference for several parents), so
 * each chunk on the path is made unshared before its child is looked at. */
static int vfs_cow(vfs *v, vfs_walk *w) {
  size_t i;
  for (i = 0; i < w->n; i++) {
    vnode **slot = &v->root, *d, *c;
    if (i) {
      if (vfs_chunk_own(v, w->lv[i - 1].d, w->lv[i].idx)) return MSB_ENOMEM;
      slot = &vfs_at(w->lv[i - 1].d, w->lv[i].idx)->n;
    }
    d = *slot;
    if (d->ref == 1) {
      w->lv[i].d = d;
      continue;
    }
    c = vfs_node_dup(v, d);
    if (!c) return MSB_ENOMEM;
    *slot = c;
    d->ref--;
    w->lv[i].d = c;
  }
  return 0;
}

/* Makes the (found) final node unshared; call after vfs_cow. */
static int vfs_cow_final(vfs *v, vfs_walk *w) {
  vnode **slot = &v->root, *c;
  if (!w->isroot) {
    if (vfs_chunk_own(v, w->lv[w->n - 1].d, w->idx)) return MSB_ENOMEM;
    slot = &vfs_at(w->lv[w->n - 1].d, w->idx)->n;
  }
  if ((*slot)->ref > 1) {
    c = vfs_node_dup(v, *slot);
    if (!c) return MSB_ENOMEM;
    (*slot)->ref--;
    *slot = c;
  }
  w->node = *slot;
  return 0;
}

/* Adds (sign > 0) or subtracts subtree totals along the walked path and
 * invalidates the cached hashes there. Cannot fail. */
static void vfs_path_add(vfs_walk *w, uint64_t nodes, uint64_t bytes,
                         int sign) {
  size_t i;
  for (i = 0; i < w->n; i++) {
    vnode *d = w->lv[i].d;
    if (sign > 0) {
      d->nodes += nodes;
      d->bytes += bytes;
    } else {
      d->nodes -= nodes;
      d->bytes -= bytes;
    }
    d->hash_ok = 0;
  }
}

/* Adds or subtracts hard-link names below every directory on the path. */
static void vfs_path_links(vfs_walk *w, uint64_t k, int sign) {
  size_t i;
  for (i = 0; k && i < w->n; i++) {
    if (sign > 0)
      w->lv[i].d->links += (uint32_t)k;
    else
      w->lv[i].d->links -= (uint32_t)k;
  }
}

/* Adds or subtracts everything node n accounts for along the path. */
static void vfs_path_node(vfs_walk *w, const vnode *n, int sign) {
  vfs_path_add(w, vfs_nnodes(n), vfs_nbytes(n), sign);
  vfs_path_links(w, vfs_nlinks(n), sign);
}

static int vfs_quota(vfs *v, uint64_t add_nodes, uint64_t rm_nodes,
                     uint64_t add_bytes, uint64_t rm_bytes) {
  uint64_t tb = v->root->bytes, tn = vfs_counted_nodes(v);
  uint64_t mb = v->lim.max_total_bytes, mn = v->lim.max_nodes;
  if (add_bytes > rm_bytes && (tb > mb || add_bytes - rm_bytes > mb - tb))
    return MSB_ENOSPC;
  if (add_nodes > rm_nodes && (tn > mn || add_nodes - rm_nodes > mn - tn))
    return MSB_EDQUOT;
  return 0;
}

/* ---- creating nodes at a walked position ------------------------------ */

/* What a creation inserts into the final component's parent: the new node,
 * or a chain of new parent directories ending in it. */
typedef struct vfs_plan {
  vnode *top;
  vname *nm;
  uint64_t nodes, bytes, links;
} vfs_plan;

static void vfs_plan_drop(vfs *v, vfs_plan *pl) {
  vfs_unref(v, pl->top);
  vfs_name_unref(v, pl->nm);
  pl->top = NULL;
  pl->nm = NULL;
}

/* Next component of a missing remainder ("." and empty ones skipped);
 * 0 at the end, -1 for "..". */
static int vfs_rest_next(const char **p, size_t *len, const char **c,
                         size_t *cl) {
  for (;;) {
    while (*len && **p == '/') (*p)++, (*len)--;
    if (!*len) return 0;
    *c = *p;
    for (*cl = 0; *cl < *len && (*c)[*cl] != '/'; (*cl)++) {
    }
    *p += *cl;
    *len -= *cl;
    if (*cl == 1 && (*c)[0] == '.') continue;
    if (*cl == 2 && (*c)[0] == '.' && (*c)[1] == '.') return -1;
    return 1;
  }
}

/* Validates and allocates the creation of leaf at the walk's missing final
 * component (or, with parents, below its first missing directory). moved:
 * leaf already counts in the totals (rename). leaf is not consumed. */
static int vfs_plan_new(vfs *v, vfs_walk *w, vnode *leaf, int parents,
                        int moved, vfs_plan *pl) {
  const char *p = w->rest, *c;
  size_t len = w->restlen, cl, k = 1, plen = 0, i;
  vnode *prev = NULL;
  int r, rc;
  memset(pl, 0, sizeof *pl);
  if (w->missing && !parents) return MSB_ENOENT;
  if (w->lexical || w->isroot || w->found) return MSB_EINVAL;
  /* new names are data too: a secret never becomes a file name */
  if (v->guard &&
      (secret_find(v->guard, w->name, w->nlen, NULL, 0) ||
       (w->missing && secret_find(v->guard, w->rest, w->restlen, NULL, 0))))
    return MSB_ESECRET;
  for (i = 1; i < w->n; i++) plen += w->lv[i].nlen + 1;
  plen += w->nlen + 1;
  if (w->missing) {
    while ((r = vfs_rest_next(&p, &len, &c, &cl)) != 0) {
      if (r < 0) return MSB_ENOENT;
      if (cl > v->lim.max_segment_bytes) return MSB_ENAMETOOLONG;
      plen += cl + 1;
      k++;
    }
  }
  if (w->n - 1 + k > v->lim.max_depth || plen > v->lim.max_path_bytes)
    return MSB_ENAMETOOLONG;
  pl->nodes = (k - 1) + vfs_nnodes(leaf);
  pl->bytes = vfs_nbytes(leaf);
  pl->links = vfs_nlinks(leaf);
  rc = moved ? vfs_quota(v, k - 1, 0, 0, 0)
             : vfs_quota(v, pl->nodes, 0, pl->bytes, 0);
  if (rc) return rc;
  pl->nm = vfs_name_new(v, w->name, w->nlen);
  if (!pl->nm) return MSB_ENOMEM;
  p = w->rest;
  len = w->restlen;
  for (i = 0; i < k; i++) {
    vnode *node;
    vname *nm = NULL;
    if (i > 0) {
      vfs_rest_next(&p, &len, &c, &cl);
      nm = vfs_name_new(v, c, cl);
      if (!nm) goto oom;
    }
    if (i == k - 1) {
      node = leaf;
      leaf->ref++;
    } else {
      node = vfs_dir_new(v, 0755);
      if (!node) {
        vfs_name_unref(v, nm);
        goto oom;
      }
    }
    if (i == 0) {
      pl->top = node;
    } else if (vfs_append(v, prev, nm, node)) {
      vfs_unref(v, node);
      vfs_name_unref(v, nm);
      goto oom;
    }
    prev = node;
  }
  /* chain totals, top down */
  for (prev = pl->top, i = 0; i + 1 < k; i++, prev = vfs_at(prev, 0)->n) {
    prev->nodes = (k - 1 - i) + vfs_nnodes(leaf);
    prev->bytes = vfs_nbytes(leaf);
    prev->links = (uint32_t)vfs_nlinks(leaf);
  }
  return 0;
oom:
  vfs_plan_drop(v, pl);
  return MSB_ENOMEM;
}

/* Copy-on-write along the path and room for one entry in the parent. */
static int vfs_plan_prep(vfs *v, vfs_walk *w) {
  int rc = vfs_cow(v, w);
  if (!rc) rc = vfs_ins_prep(v, w->lv[w->n - 1].d, w->name, w->nlen);
  return rc;
}

/* Inserts a prepared plan (cannot fail). */
static void vfs_plan_put(vfs *v, vfs_walk *w, vfs_plan *pl) {
  vnode *d = w->lv[w->n - 1].d;
  vfs_ins_put(v, d, pl->nm, pl->top);
  d->mtime = VFS_NOW(v);
  vfs_path_add(w, pl->nodes, pl->bytes, 1);
  vfs_path_links(w, pl->links, 1);
  pl->top = NULL;
  pl->nm = NULL;
}

/* Creates leaf at a walk position that ended missing: validate, allocate,
 * commit. leaf is not consumed. */
static int vfs_create_at(vfs *v, vfs_walk *w, vnode *leaf, int parents) {
  vfs_plan pl;
  int rc = vfs_plan_new(v, w, leaf, parents, 0, &pl);
  if (rc) return rc;
  rc = vfs_plan_prep(v, w);
  if (rc) {
    vfs_plan_drop(v, &pl);
    return rc;
  }
  vfs_plan_put(v, w, &pl);
  vfs_changed(v);
  return 0;
}

/* ---- the link table (see vfs_int.h) ----------------------------------- */

static int vfs_entry_prep(vfs *v, vfs_walk *w);

/* A walk to the table's entry for ino, shaped as vfs_walk_run shapes one
 * for a path: lv[0] "/", lv[1] the table (when there is one), the entry
 * as the final component (found when present). */
static void vfs_tab_walk(vfs *v, uint64_t ino, vfs_walk *tw) {
  vnode *t;
  size_t pos;
  memset(tw, 0, sizeof *tw);
  tw->v = v;
  tw->lv = tw->inl;
  tw->cap = VFS_INL;
  tw->n = 1;
  tw->lv[0].d = v->root;
  tw->lv[0].name = "";
  vfs_tab_key(ino, tw->key);
  tw->name = tw->key;
  tw->nlen = VFS_TAB_KEY;
  if (!(t = vfs_tab(v, &pos))) return;
  tw->lv[1].d = t;
  tw->lv[1].name = "";
  tw->lv[1].idx = pos;
  tw->n = 2;
  if (vfs_find(t, tw->key, VFS_TAB_KEY, &tw->idx)) {
    tw->found = 1;
    tw->node = vfs_at(t, tw->idx)->n;
  }
}

/* Makes the table's entry for ino (which must exist) unshared. */
static int vfs_tab_own(vfs *v, uint64_t ino, vfs_walk *tw) {
  int rc;
  vfs_tab_walk(v, ino, tw);
  if (!tw->found) return MSB_ECORRUPT;
  rc = vfs_cow(v, tw);
  return rc ? rc : vfs_cow_final(v, tw);
}

/* Makes w's found final file unshared, whether the walk names it or a
 * hard-link name of it; *at is the walk its totals change along. The
 * directories of a name stay as they are: they do not change when the
 * file does. */
static int vfs_own_file(vfs *v, vfs_walk *w, vfs_walk *tw, vfs_walk **at) {
  int rc;
  *at = w;
  if (!w->stub) {
    rc = vfs_cow(v, w);
    return rc ? rc : vfs_cow_final(v, w);
  }
  *at = tw;
  rc = vfs_tab_own(v, w->stub->ino, tw);
  if (!rc) w->node = tw->node;
  return rc;
}

/* Puts file f into the table as ino's entry, creating the table when
 * there is none. Root must be unshared. Commits on success: f's bytes
 * count from now on. */
static int vfs_tab_put(vfs *v, uint64_t ino, vnode *f) {
  vfs_walk tw;
  vname *nm;
  vnode *t;
  int rc;
  if (!vfs_tab(v, NULL)) {
    if (!(t = vfs_dir_new(v, 0))) return MSB_ENOMEM;
    t->nodes = 0; /* nobody's name: counts as no node */
    if (!(nm = vfs_name_new(v, "", 0)) || vfs_ins_prep(v, v->root, "", 0)) {
      vfs_name_unref(v, nm);
      vfs_unref(v, t);
      return MSB_ENOMEM;
    }
    vfs_ins_put(v, v->root, nm, t);
    v->root->ndirs--; /* not a subdirectory anyone sees */
  }
  vfs_tab_walk(v, ino, &tw);
  if (tw.found) return MSB_EEXIST;
  if ((rc = vfs_cow(v, &tw))) return rc;
  if (!(nm = vfs_name_new(v, tw.key, VFS_TAB_KEY))) return MSB_ENOMEM;
  if (vfs_ins_prep(v, tw.lv[1].d, tw.key, VFS_TAB_KEY)) {
    vfs_name_unref(v, nm);
    return MSB_ENOMEM;
  }
  f->ref++;
  vfs_ins_put(v, tw.lv[1].d, nm, f);
  vfs_path_add(&tw, 0, vfs_nbytes(f), 1);
  return 0;
}

/* Removes the (unshared, walked) entry tw from the table, and the table
 * once empty. Cannot fail. */
static void vfs_tab_del(vfs *v, vfs_walk *tw) {
  vnode *t = tw->lv[1].d, *f = vfs_del_put(v, t, tw->key, VFS_TAB_KEY);
  vfs_path_add(tw, 0, vfs_nbytes(f), -1);
  vfs_unref(v, f);
  if (t->n) return;
  vfs_unref(v, vfs_del_put(v, v->root, "", 0));
  v->root->ndirs++; /* vfs_del_put counted it as a subdirectory */
}

/* A name of ino's file is gone: one fewer, and the file leaves with its
 * last name. */
static int vfs_tab_unlink(vfs *v, uint64_t ino) {
  vfs_walk tw;
  int rc = vfs_tab_own(v, ino, &tw);
  if (rc) return rc;
  if (--tw.node->links == 0) vfs_tab_del(v, &tw);
  return 0;
}

/* The names below a node that left the tree leave the table. Best effort
 * after a commit: when memory runs out midway, the files left keep a count
 * too high, which only keeps them in the table longer. */
static void vfs_drop_names(vfs *v, vnode *n) {
  size_t sp = 0, i;
  if (!vfs_nlinks(n)) return;
  if (vfs_is_stub(n)) {
    vfs_tab_unlink(v, n->ino);
    return;
  }
  if (vfs_frames(v, 1)) return;
  v->fr[sp++].d = n;
  while (sp) {
    vnode *d = v->fr[--sp].d;
    for (i = 0; !vfs_end(d, i); i = vfs_next(d, i)) {
      vnode *c = vfs_at(d, i)->n;
      if (vfs_is_stub(c)) {
        vfs_tab_unlink(v, c->ino);
      } else if (c->kind == VFS_DIR && c->links) {
        if (vfs_frames(v, sp + 1)) return;
        v->fr[sp++].d = c;
      }
    }
  }
}

/* A new hard-link name for inode ino: an empty file marked VFS_HL. */
static vnode *vfs_stub_new(vfs *v, uint64_t ino) {
  vnode *s = vfs_node_new(v, VFS_FILE, 0);
  if (!s) return NULL;
  s->mode = VFS_HL;
  s->ino = ino;
  v->next_ino--; /* vfs_node_new took a number the stub does not use */
  if (!(s->b = vfs_blob_new(v, NULL, 0, NULL, 0))) {
    vfs_unref(v, s);
    return NULL;
  }
  return s;
}

/* Turns the found final file of ws (path unshared by vfs_entry_prep)
 * into its hard-link name stub; the file is in the table by now. A name
 * that changes what it stands for changes no directory's mtime. */
static void vfs_to_stub(vfs_walk *ws, vnode *stub) {
  vnode *d = ws->lv[ws->n - 1].d, *old;
  size_t pos;
  vfs_find(d, ws->name, ws->nlen, &pos);
  old = vfs_at(d, pos)->n;
  vfs_at(d, pos)->n = stub;
  vfs_path_node(ws, old, -1);
  vfs_path_node(ws, stub, 1);
  vfs_unref(ws->v, old);
}

/* Creates a hard link: validate, move the file into the table when this
 * is its second name (the table entry can be taken back), unshare, then
 * commit. */
int vfs_link(vfs *v, const char *src, const char *dst) {
  vfs_walk ws, wd, tw;
  vfs_plan pl;
  vnode *f, *leaf = NULL, *srcstub = NULL, *tf = NULL;
  uint64_t ino;
  int rc, put = 0;
  memset(&pl, 0, sizeof pl);
  wd.v = v;
  wd.lv = wd.inl;
  wd.nown = 0;
  rc = vfs_walk_acc(v, &ws, src, 0, 0, VFS_ACC_WRITE);
  if (!rc && !ws.found) rc = MSB_ENOENT;
  if (rc) goto out;
  f = ws.node;
  ino = f->ino;
  rc = MSB_EPERM;
  if (f->kind == VFS_DIR || ws.isroot) goto out;
  if (f->kind != VFS_FILE || (f->mode & VFS_CHR)) {
    /* a symlink or device gets a copy of its own (stat counts 1) */
    vfs_walk_finish(&ws);
    return vfs_copy(v, src, dst, VFS_CP_NOFOLLOW | VFS_CP_KEEP_META);
  }
  rc = vfs_walk_acc(v, &wd, dst, 0, 0, VFS_ACC_WRITE);
  if (rc) goto out;
  rc = MSB_EEXIST;
  if (wd.found) goto out;
  rc = MSB_ENOENT;
  if (wd.trail) goto out;
  rc = MSB_ENOMEM;
  if (!(leaf = vfs_stub_new(v, ino))) goto out;
  if ((rc = vfs_plan_new(v, &wd, leaf, 0, 0, &pl))) goto out;
  if (!ws.stub) {
    /* the file moves into the table; its name becomes a stub */
    rc = MSB_ENOMEM;
    if (!(srcstub = vfs_stub_new(v, ino)) || !(tf = vfs_node_dup(v, f)))
      goto out;
    tf->mode |= VFS_TAB;
    tf->links = 1;
    if ((rc = vfs_entry_prep(v, &ws)) || (rc = vfs_tab_put(v, ino, tf)))
      goto out;
    put = 1;
  }
  /* the source's unsharing may have replaced directories the first walk
   * of the destination saw */
  vfs_walk_finish(&wd);
  if ((rc = vfs_walk_run(v, &wd, dst, 0, 0)) || (rc = vfs_plan_prep(v, &wd)) ||
      (rc = vfs_tab_own(v, ino, &tw)))
    goto out;
  if (srcstub) {
    vfs_to_stub(&ws, srcstub);
    srcstub = NULL;
  }
  tw.node->links++;
  vfs_plan_put(v, &wd, &pl);
  vfs_changed(v);
  put = 0;
out:
  if (put) { /* take the table entry back: the tree is as it was */
    vfs_tab_walk(v, ino, &tw);
    vfs_tab_del(v, &tw);
  }
  vfs_plan_drop(v, &pl);
  vfs_unref(v, leaf);
  vfs_unref(v, srcstub);
  vfs_unref(v, tf);
  vfs_walk_finish(&ws);
  vfs_walk_finish(&wd);
  return rc;
}

/* ---- mutations ------------------------------------------------------- */

/* What writing len bytes into device n gives (0 for a file). Opening
 * /dev/full (the empty write that truncates) succeeds, as on Linux. */
static int vfs_dev_write(const vnode *n, size_t len) {
  return (n->mode & VFS_CHR) && n->links == VFS_DEV_FULL && len ? MSB_ENOSPC
                                                                : 0;
}

/* Whether writing data (into old, NULL for a new file) would store a
 * secret value: the new bytes are searched after the tail of what the
 * guard let in before and, for an append, after the file's old tail, so
 * writing in pieces stays linear. */
static int vfs_guard_hit(vfs *v, const vblob *old, const void *data, size_t len,
                         unsigned flags) {
  const secret_window *w = v->gwin;
  size_t keep = v->guard->maxlen - 1;
  if (secret_find(v->guard, w ? w->p : NULL, w ? w->len : 0, data, len))
    return 1;
  if (!old || !(flags & VFS_APPEND)) return 0;
  if (keep > old->len) keep = old->len;
  return keep &&
         secret_find(v->guard, old->data + old->len - keep, keep, data, len);
}

/* The guard let data in: it is now part of what the call wrote. */
static void vfs_guard_put(vfs *v, const void *data, size_t len) {
  if (v->gwin) secret_window_put(v->gwin, data, len);
}

static vnode *vfs_replace(vfs *v, vfs_walk *w, vnode *n);

/* vfs_write with VFS_REPLACE over a hard-link name: a new file takes the
 * name and the old one keeps its other names. */
static int vfs_write_new(vfs *v, vfs_walk *w, const void *data, size_t len,
                         unsigned flags, uint32_t mode) {
  vnode *leaf, *old;
  int rc = vfs_quota(v, 0, 0, len, 0);
  if (rc) return rc;
  if (flags & VFS_KEEP_MODE) mode = w->node->mode;
  if (!(leaf = vfs_node_new(v, VFS_FILE, mode & 07777))) return MSB_ENOMEM;
  if (!(leaf->b = vfs_blob_new(v, data, len, NULL, 0)) ||
      (rc = vfs_entry_prep(v, w))) {
    vfs_unref(v, leaf);
    return rc ? rc : MSB_ENOMEM;
  }
  old = vfs_replace(v, w, leaf);
  vfs_drop_names(v, old);
  vfs_unref(v, old);
  vfs_changed(v);
  return 0;
}

/* Writes a file. */
int vfs_write(vfs *v, const char *path, const void *data, size_t len,
              unsigned flags, uint32_t mode, const uint8_t *expect) {
  vfs_walk w, tw, *at;
  vnode *n, *leaf;
  vblob *bl;
  uint64_t old, nl;
  int rc;
  if (!data && len) return MSB_EINVAL;
  if ((flags & VFS_HASH_EQ) && !expect) return MSB_EINVAL;
  rc = vfs_walk_acc(v, &w, path, !(flags & VFS_EXCL), 0, VFS_ACC_WRITE);
  if (rc == MSB_ENOENT && w.missing && (flags & VFS_PARENTS) &&
      !(flags & VFS_HASH_EQ))
    rc = 0;
  if (rc) goto out;
  if (!w.found) {
    rc = MSB_ENOENT;
    if (flags & VFS_HASH_EQ) goto out;
    rc = MSB_EISDIR;
    if (w.trail) goto out;
    rc = MSB_ESECRET;
    if (v->guard && vfs_guard_hit(v, NULL, data, len, flags)) goto out;
    rc = MSB_EFBIG;
    if (len > v->lim.max_file_bytes) goto out;
    rc = MSB_ENOMEM;
    leaf = vfs_node_new(v, VFS_FILE, mode);
    if (!leaf) goto out;
    leaf->b = vfs_blob_new(v, data, len, NULL, 0);
    if (leaf->b) rc = vfs_create_at(v, &w, leaf, (flags & VFS_PARENTS) != 0);
    vfs_unref(v, leaf);
    if (!rc) vfs_guard_put(v, data, len);
    goto out;
  }
  n = w.node;
  rc = MSB_EEXIST;
  if (flags & VFS_EXCL) goto out;
  rc = vfs_dev_write(n, len);
  if (n->mode & VFS_CHR) goto out; /* a device swallows it, or is full */
  rc = MSB_EISDIR;
  if (n->kind != VFS_FILE) goto out;
  rc = MSB_ESECRET;
  if (v->guard && vfs_guard_hit(v, n->b, data, len, flags)) goto out;
  rc = MSB_ESTALE;
  if ((flags & VFS_HASH_EQ) && memcmp(vfs_blob_hash(n->b), expect, 32))
    goto out;
  old = n->b->len;
  nl = (flags & VFS_APPEND) ? old + len : len;
  rc = MSB_EFBIG;
  if (nl < old && (flags & VFS_APPEND)) goto out;
  if (nl > v->lim.max_file_bytes) goto out;
  rc = MSB_ENOMEM; /* a 32-bit target cannot hold it whatever the quota */
  if (nl > SIZE_MAX) goto out;
  if ((flags & VFS_REPLACE) && !(flags & VFS_APPEND) && w.stub) {
    rc = vfs_write_new(v, &w, data, len, flags, mode);
    if (!rc) vfs_guard_put(v, data, len);
    goto out;
  }
  if ((rc = vfs_quota(v, 0, 0, nl, old))) goto out;
  if ((rc = vfs_own_file(v, &w, &tw, &at))) goto out;
  n = w.node;
  rc = MSB_ENOMEM;
  bl = n->b;
  if ((flags & VFS_APPEND) && bl->ref == 1) {
    if (bl->cap < nl) {
      size_t cap = bl->cap * 2 > nl ? bl->cap * 2 : (size_t)nl;
      uint8_t *d = mem_realloc(v->m, bl->data, cap);
      if (!d && cap > nl) d = mem_realloc(v->m, bl->data, cap = (size_t)nl);
      if (!d) goto out;
      bl->data = d;
      bl->cap = cap;
    }
    if (len) memcpy(bl->data + bl->len, data, len);
    bl->len = (size_t)nl;
    vfs_blob_changed(v, bl);
  } else {
    bl = (flags & VFS_APPEND)
             ? vfs_blob_new(v, n->b->data, n->b->len, data, len)
             : vfs_blob_new(v, data, len, NULL, 0);
    if (!bl) goto out;
    vfs_blob_unref(v, n->b);
    n->b = bl;
  }
  if (!(flags & VFS_KEEP_MODE)) n->mode = (mode & 07777) | (n->mode & VFS_TAB);
  if (len || !(flags & VFS_APPEND)) n->prog = 0; /* other contents now */
  n->mtime = VFS_NOW(v);
  if (nl >= old)
    vfs_path_add(at, 0, nl - old, 1);
  else
    vfs_path_add(at, 0, old - nl, -1);
  vfs_changed(v);
  vfs_guard_put(v, data, len);
  rc = 0;
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Creates a device node. */
int vfs_mkdev(vfs *v, const char *path, uint32_t rdev) {
  vfs_walk w;
  vnode *leaf;
  int rc = vfs_walk_acc(v, &w, path, 0, 0, VFS_ACC_WRITE);
  if (!rc && w.found) rc = MSB_EEXIST;
  if (rc) goto out;
  rc = MSB_ENOMEM;
  leaf = vfs_node_new(v, VFS_FILE, 0666);
  if (!leaf) goto out;
  leaf->mode |= VFS_CHR; /* vfs_node_new keeps permission bits only */
  leaf->links = rdev;
  leaf->b = vfs_blob_new(v, "", 0, NULL, 0);
  if (leaf->b) rc = vfs_create_at(v, &w, leaf, 0);
  vfs_unref(v, leaf);
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Creates the null device node. */
int vfs_mknull(vfs *v, const char *path) {
  return vfs_mkdev(v, path, VFS_DEV_NULL);
}

/* Creates a directory. */
int vfs_mkdir(vfs *v, const char *path, uint32_t mode, unsigned flags) {
  vfs_walk w;
  vnode *leaf;
  int rc = vfs_walk_acc(v, &w, path, 0, 0, VFS_ACC_WRITE);
  if (rc == MSB_ENOENT && w.missing && (flags & VFS_MK_PARENTS)) rc = 0;
  if (rc) goto out;
  if (w.found) {
    rc = MSB_EEXIST;
    if ((flags & VFS_MK_EXIST_OK) && w.node->kind == VFS_DIR) rc = 0;
    if ((flags & VFS_MK_EXIST_OK) && w.node->kind == VFS_LINK) {
      struct vfs_stat st;
      if (!vfs_stat(v, path, 1, &st) && st.kind == VFS_DIR) rc = 0;
    }
    goto out;
  }
  rc = MSB_ENOMEM;
  leaf = vfs_dir_new(v, mode);
  if (!leaf) goto out;
  rc = vfs_create_at(v, &w, leaf, (flags & VFS_MK_PARENTS) != 0);
  vfs_unref(v, leaf);
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Unshares the path and the chunk holding the final entry, so that
 * vfs_detach or vfs_replace can follow without failing. */
static int vfs_entry_prep(vfs *v, vfs_walk *w) {
  int rc = vfs_cow(v, w);
  if (!rc) rc = vfs_chunk_own(v, w->lv[w->n - 1].d, w->idx);
  return rc;
}

/* Removes an entry from its (unshared) parent and fixes the totals. The
 * caller owns the returned node's reference. */
static vnode *vfs_detach(vfs *v, vfs_walk *w) {
  vnode *d = w->lv[w->n - 1].d, *n;
  n = vfs_del_put(v, d, w->name, w->nlen);
  d->mtime = VFS_NOW(v);
  vfs_path_node(w, n, -1);
  return n;
}

/* Removes a node. */
int vfs_remove(vfs *v, const char *path, unsigned flags) {
  vfs_walk w;
  vnode *n;
  int rc = vfs_walk_acc(v, &w, path, 0, 0, VFS_ACC_TREE_WRITE);
  if (rc) goto out;
  rc = MSB_ENOENT;
  if (!w.found) goto out;
  rc = MSB_EPERM;
  if (vfs_protected(&w)) goto out;
  rc = MSB_EINVAL;
  if (w.dotlast) goto out;
  rc = MSB_ENOTDIR;
  if (w.trail && w.followed) goto out;
  n = w.node;
  if (n->kind == VFS_DIR) {
    rc = MSB_EISDIR;
    if ((flags & VFS_RM_NODIR) || !(flags & (VFS_RM_DIR | VFS_RM_RECURSIVE)))
      goto out;
    rc = MSB_ENOTEMPTY;
    if (n->n && !(flags & VFS_RM_RECURSIVE)) goto out;
  }
  if ((rc = vfs_entry_prep(v, &w))) goto out;
  n = vfs_detach(v, &w);
  vfs_drop_names(v, n);
  vfs_unref(v, n);
  vfs_changed(v);
out:
  vfs_walk_finish(&w);
  return rc;
}

/* A file of its own for a copy of f (a table file loses its names). */
static void vfs_copy_own(vfs *v, vnode *c, int keep_meta) {
  c->ino = v->next_ino++;
  if (!keep_meta) c->mtime = VFS_NOW(v);
  if (!(c->mode & VFS_TAB)) return;
  c->mode &= ~VFS_TAB;
  c->links = 0;
}

/* After vfs_copy_node turned names into files: each directory that had
 * names below it sums its children again, bottom-up. */
static int vfs_copy_totals(vfs *v, vnode *top) {
  size_t sp = 0, i;
  if (vfs_frames(v, 1)) return MSB_ENOMEM;
  v->fr[sp].d = top;
  v->fr[sp++].i = 0;
  while (sp) {
    vnode *d = v->fr[sp - 1].d, *c;
    if (!vfs_end(d, v->fr[sp - 1].i)) {
      c = vfs_at(d, v->fr[sp - 1].i)->n;
      v->fr[sp - 1].i = vfs_next(d, v->fr[sp - 1].i);
      if (c->kind == VFS_DIR && c->links) {
        if (vfs_frames(v, sp + 1)) return MSB_ENOMEM;
        v->fr[sp].d = c;
        v->fr[sp++].i = 0;
      }
      continue;
    }
    d->bytes = 0;
    d->links = 0;
    for (i = 0; !vfs_end(d, i); i = vfs_next(d, i)) {
      c = vfs_at(d, i)->n;
      d->bytes += vfs_nbytes(c);
      d->links += (uint32_t)vfs_nlinks(c);
    }
    sp--;
  }
  return 0;
}

/* Copies a node for vfs_copy: files and links share their blob; a
 * directory is shared below its top with keep_meta, else its structure is
 * copied (new inodes and mtimes) while the blobs stay shared. Hard-link
 * names below become files of their own (as cp without
 * --preserve=links), so the directories holding them are copied even with
 * keep_meta. */
static vnode *vfs_copy_node(vfs *v, vnode *src, int keep_meta) {
  vnode *top = vfs_node_dup(v, src);
  size_t sp = 0, i, ci;
  int links;
  if (!top) return NULL;
  vfs_copy_own(v, top, keep_meta);
  links = top->kind == VFS_DIR && top->links;
  if (top->kind != VFS_DIR || (keep_meta && !links)) return top;
  if (vfs_frames(v, 1)) goto fail;
  v->fr[sp++].d = top;
  while (sp) {
    vnode *d = v->fr[--sp].d;
    for (ci = 0; ci < d->nch; ci++) {
      vchunk *k;
      if (vfs_chunk_own(v, d, ci * VFS_CHUNK)) goto fail;
      k = d->ch[ci];
      for (i = 0; i < k->n; i++) {
        vnode *o = k->e[i].n, *c;
        int stub = vfs_is_stub(o), sub = o->kind == VFS_DIR && o->links;
        if (keep_meta && !stub && !sub) continue; /* stays shared */
        c = stub ? vfs_tab_file(v, o) : o;
        if (!c || !(c = vfs_node_dup(v, c))) goto fail;
        if (stub || !keep_meta) vfs_copy_own(v, c, keep_meta);
        o->ref--;
        k->e[i].n = c;
        if (c->kind == VFS_DIR && (sub || (!keep_meta && c->n))) {
          if (vfs_frames(v, sp + 1)) goto fail;
          v->fr[sp++].d = c;
        }
      }
    }
  }
  if (links && vfs_copy_totals(v, top)) goto fail;
  return top;
fail:
  vfs_unref(v, top);
  return NULL;
}

/* Replaces the found final node of w (path already unshared) by n, which
 * the entry takes over; returns the old node for the caller to unref. */
static vnode *vfs_replace(vfs *v, vfs_walk *w, vnode *n) {
  vnode *d = w->lv[w->n - 1].d, *old;
  size_t pos;
  vfs_find(d, w->name, w->nlen, &pos);
  old = vfs_at(d, pos)->n;
  vfs_at(d, pos)->n = n;
  if (old->kind == VFS_DIR) d->ndirs--;
  if (n->kind == VFS_DIR) d->ndirs++;
  d->mtime = VFS_NOW(v);
  vfs_path_node(w, old, -1);
  vfs_path_node(w, n, 1);
  return old;
}

/* cp onto a hard-link name writes into its file, as cp opens and
 * truncates an existing destination: every name sees the new contents.
 * d is the destination's walk (found, a name); sn the source file. */
static int vfs_copy_into(vfs *v, vfs_walk *d, vnode *sn, unsigned flags) {
  vfs_walk tw, *at;
  vnode *n = d->node;
  uint64_t old = vfs_nbytes(n), nl = vfs_nbytes(sn);
  int rc = vfs_quota(v, 0, 0, nl, old);
  if (rc || (rc = vfs_own_file(v, d, &tw, &at))) return rc;
  n = d->node;
  sn->b->ref++;
  vfs_blob_unref(v, n->b);
  n->b = sn->b;
  n->prog = sn->prog;
  n->mtime = VFS_NOW(v);
  if (flags & VFS_CP_KEEP_META) {
    n->mode = (sn->mode & 07777) | VFS_TAB;
    n->mtime = sn->mtime;
  }
  if (nl >= old)
    vfs_path_add(at, 0, nl - old, 1);
  else
    vfs_path_add(at, 0, old - nl, -1);
  vfs_changed(v);
  return 0;
}

/* Copies src to dst. */
int vfs_copy(vfs *v, const char *src, const char *dst, unsigned flags) {
  vfs_walk ws, wd, wf;
  vfs_walk *d = &wd;
  vnode *sn, *leaf = NULL, *old;
  int rc, rf = -1;
  rc = vfs_walk_acc(v, &ws, src, !(flags & VFS_CP_NOFOLLOW), 0,
                    VFS_ACC_TREE_READ);
  wd.v = wf.v = v;
  wd.lv = wd.inl;
  wf.lv = wf.inl;
  wd.nown = wf.nown = 0;
  if (rc) goto out;
  rc = MSB_ENOENT;
  if (!ws.found) goto out;
  sn = ws.node;
  rc = vfs_walk_acc(v, &wd, dst, 0, 0, VFS_ACC_TREE_WRITE);
  if (rc == MSB_ENOENT && wd.missing && (flags & VFS_CP_PARENTS)) rc = 0;
  if (rc) goto out;
  if (wd.found && wd.node->kind == VFS_LINK && sn->kind != VFS_DIR) {
    /* like cp: write through a link to an existing file */
    rf = vfs_walk_acc(v, &wf, dst, 1, 0, VFS_ACC_TREE_WRITE);
    if (!rf && wf.found && wf.node->kind == VFS_FILE) d = &wf;
  }
  rc = MSB_EPERM;
  if (d->found && vfs_protected(d)) goto out;
  rc = d->found ? vfs_dev_write(d->node, vfs_nbytes(sn)) : 0;
  if (d->found && (d->node->mode & VFS_CHR) && sn->kind == VFS_FILE) goto out;
  rc = MSB_EINVAL;
  if (vfs_samepath(&ws, d) && d->found) goto out;
  if (d->found && d->node == sn) goto out; /* two names of one file */
  if (sn->kind == VFS_DIR && vfs_inside(&ws, d)) goto out;
  if (d->found) {
    rc = MSB_EEXIST;
    if (!(flags & VFS_CP_OVERWRITE)) goto out;
    rc = MSB_ENOTDIR;
    if (sn->kind == VFS_DIR && d->node->kind != VFS_DIR) goto out;
    rc = MSB_EISDIR;
    if (sn->kind != VFS_DIR && d->node->kind == VFS_DIR) goto out;
    if (d->stub && sn->kind == VFS_FILE) {
      rc = vfs_copy_into(v, d, sn, flags);
      goto out;
    }
  }
  rc = MSB_ENOTSUP; /* reading an endless device to its end */
  if ((sn->mode & VFS_CHR) && sn->links != VFS_DEV_NULL &&
      !(flags & VFS_CP_KEEP_META))
    goto out;
  rc = MSB_ENOMEM;
  leaf = vfs_copy_node(v, sn, (flags & VFS_CP_KEEP_META) != 0);
  if (!leaf) goto out;
  if ((leaf->mode & VFS_CHR) && !(flags & VFS_CP_KEEP_META)) {
    leaf->mode &= ~VFS_CHR; /* its contents: a file, empty */
    leaf->links = 0;
  }
  /* the copy's totals, hard-link names turned into files included */
  if (d->found) {
    old = d->stub ? d->stub : d->node;
    rc = vfs_quota(v, vfs_nnodes(leaf), vfs_nnodes(old), vfs_nbytes(leaf),
                   vfs_nbytes(old));
  } else {
    rc = vfs_quota(v, vfs_nnodes(leaf), 0, vfs_nbytes(leaf), 0);
  }
  if (rc) goto out;
  if (d->found) {
    if ((rc = vfs_entry_prep(v, d))) goto out;
    old = vfs_replace(v, d, leaf);
    leaf = NULL;
    vfs_drop_names(v, old);
    vfs_unref(v, old);
    vfs_changed(v);
  } else {
    rc = vfs_create_at(v, d, leaf, (flags & VFS_CP_PARENTS) != 0);
  }
out:
  vfs_unref(v, leaf);
  vfs_walk_finish(&ws);
  vfs_walk_finish(&wd);
  vfs_walk_finish(&wf);
  return rc;
}

/* A node a rename replaced leaves, its hard-link names with it. */
static void vfs_rename_drop(vfs *v, vnode *old) {
  vfs_drop_names(v, old);
  vfs_unref(v, old);
}

/* Renames a node. */
int vfs_rename(vfs *v, const char *src, const char *dst, unsigned flags) {
  vfs_walk ws, wd;
  vfs_plan pl;
  vnode *sn, *n;
  int rc, parents = (flags & VFS_CP_PARENTS) != 0;
  memset(&pl, 0, sizeof pl);
  wd.v = v;
  wd.lv = wd.inl;
  wd.nown = 0;
  rc = vfs_walk_acc(v, &ws, src, 0, 0, VFS_ACC_TREE_WRITE);
  if (rc) goto out;
  rc = MSB_ENOENT;
  if (!ws.found) goto out;
  rc = MSB_EPERM;
  if (vfs_protected(&ws)) goto out;
  rc = MSB_EINVAL;
  if (ws.dotlast) goto out;
  sn = ws.stub ? ws.stub : ws.node; /* a name moves as itself */
  rc = vfs_walk_acc(v, &wd, dst, 0, 0, VFS_ACC_TREE_WRITE);
  if (rc == MSB_ENOENT && wd.missing && parents) rc = 0;
  if (rc) goto out;
  if (wd.found && vfs_samepath(&ws, &wd)) goto out; /* no-op */
  if (wd.found && wd.node == ws.node) goto out; /* names of one file */
  rc = MSB_EPERM;
  if (wd.isroot || vfs_protected(&wd)) goto out;
  rc = MSB_EINVAL;
  if (wd.dotlast || (sn->kind == VFS_DIR && vfs_inside(&ws, &wd))) goto out;
  if (wd.found) {
    vnode *dn = wd.node;
    if (sn->kind == VFS_DIR) {
      rc = MSB_ENOTDIR;
      if (dn->kind != VFS_DIR) goto out;
      rc = MSB_ENOTEMPTY;
      if (dn->n && !(flags & VFS_CP_OVERWRITE)) goto out;
    } else {
      rc = MSB_EISDIR;
      if (dn->kind == VFS_DIR) goto out;
    }
  } else if ((rc = vfs_plan_new(v, &wd, sn, parents, 1, &pl))) {
    goto out;
  }
  /* unshare the source path, then walk the destination again: copies made
   * for the source may have replaced directories the first walk saw */
  if ((rc = vfs_entry_prep(v, &ws))) goto out;
  vfs_walk_finish(&wd);
  rc = vfs_walk_run(v, &wd, dst, 0, 0);
  if (rc == MSB_ENOENT && wd.missing && parents) rc = 0;
  if (rc) goto out;
  rc = wd.found ? vfs_entry_prep(v, &wd) : vfs_plan_prep(v, &wd);
  if (rc) goto out;
  /* commit. Insert first, then detach: in one directory, the entries
   * vfs_*_prep unshared stay where they are. A destination that contains
   * the source is replaced after the detach, so the totals of its old
   * version no longer include the moved node. */
  if (wd.found && vfs_inside(&wd, &ws)) {
    n = vfs_detach(v, &ws);
    vfs_rename_drop(v, vfs_replace(v, &wd, n));
  } else if (wd.found) {
    sn->ref++;
    vfs_rename_drop(v, vfs_replace(v, &wd, sn));
    vfs_unref(v, vfs_detach(v, &ws));
  } else {
    vfs_plan_put(v, &wd, &pl); /* the plan holds its own reference */
    vfs_unref(v, vfs_detach(v, &ws));
  }
  vfs_changed(v);
out:
  vfs_plan_drop(v, &pl);
  vfs_walk_finish(&ws);
  vfs_walk_finish(&wd);
  return rc;
}

/* ---- undo of one open ------------------------------------------------ */

/* Records what path names before an open changes it. */
void vfs_undo_begin(vfs *v, const char *path, vfs_undo *u) {
  vfs_walk w;
  memset(u, 0, sizeof *u);
  u->rev = v->rev;
  u->dirty = v->dirty;
  if (!vfs_walk_run(v, &w, path, 1, 0) && !w.isroot && w.n) {
    u->pmtime = w.lv[w.n - 1].d->mtime;
    if (w.found && w.node->kind == VFS_FILE) {
      u->node = w.node;
      u->node->ref++;
    }
  }
  vfs_walk_finish(&w);
}

/* The mutations so far are the open's own. */
void vfs_undo_mine(vfs *v, vfs_undo *u) { u->muts = v->muts; }

/* Undo through a hard-link name: the file takes back its recorded
 * contents and metadata (its names stay as they are). */
static int vfs_undo_into(vfs *v, vfs_walk *w, vfs_undo *u) {
  vfs_walk tw, *at;
  vnode *n, *o = u->node;
  uint64_t old;
  int rc;
  if (!o) return 0; /* an open never creates a name of a linked file */
  if ((rc = vfs_own_file(v, w, &tw, &at))) return rc;
  n = w->node;
  old = vfs_nbytes(n);
  o->b->ref++;
  vfs_blob_unref(v, n->b);
  n->b = o->b;
  n->mode = (o->mode & 07777) | VFS_TAB;
  n->mtime = o->mtime;
  n->prog = o->prog;
  vfs_path_add(at, 0, old, -1);
  vfs_path_add(at, 0, vfs_nbytes(n), 1);
  if (v->muts == u->muts) {
    v->rev = u->rev;
    v->dirty = u->dirty;
  } else {
    vfs_changed(v);
  }
  return 0;
}

/* Puts back what vfs_undo_begin recorded. */
int vfs_undo_apply(vfs *v, const char *path, vfs_undo *u) {
  vfs_walk w;
  vnode *d, *old;
  int rc = vfs_walk_run(v, &w, path, 1, 0);
  if (rc || !w.found || w.isroot || w.node->kind != VFS_FILE ||
      w.node == u->node) {
    vfs_walk_finish(&w);
    return 0; /* nothing of the open's is there to undo */
  }
  if (w.stub) {
    rc = vfs_undo_into(v, &w, u);
    vfs_walk_finish(&w);
    return rc;
  }
  if ((rc = vfs_entry_prep(v, &w))) {
    vfs_walk_finish(&w);
    return rc;
  }
  d = w.lv[w.n - 1].d;
  if (u->node) {
    vent *e;
    size_t pos;
    vfs_find(d, w.name, w.nlen, &pos);
    e = vfs_at(d, pos);
    old = e->n;
    e->n = u->node; /* the entry takes the undo's reference */
    u->node = NULL;
    vfs_path_add(&w, 0, vfs_nbytes(old), -1);
    vfs_path_add(&w, 0, vfs_nbytes(e->n), 1);
  } else {
    old = vfs_detach(v, &w);
  }
  vfs_unref(v, old);
  if (v->muts == u->muts) {
    d->mtime = u->pmtime;
    v->rev = u->rev;
    v->dirty = u->dirty;
  } else {
    vfs_changed(v);
  }
  vfs_walk_finish(&w);
  return 0;
}

/* Drops the undo's reference. */
void vfs_undo_finish(vfs *v, vfs_undo *u) {
  vfs_unref(v, u->node);
  u->node = NULL;
}

/* Creates a symbolic link. */
int vfs_symlink(vfs *v, const char *target, const char *linkpath) {
  vfs_walk w;
  vnode *leaf;
  size_t tl;
  int rc;
  if (!target) return MSB_EINVAL;
  tl = strlen(target);
  if (!tl) return MSB_ENOENT;
  if (tl > v->lim.max_path_bytes) return MSB_ENAMETOOLONG;
  if (v->guard && secret_find(v->guard, target, tl, NULL, 0))
    return MSB_ESECRET;
  rc = vfs_walk_acc(v, &w, linkpath, 0, 0, VFS_ACC_WRITE);
  if (rc) goto out;
  rc = MSB_EEXIST;
  if (w.found) goto out;
  rc = MSB_ENOENT;
  if (w.trail) goto out;
  rc = MSB_ENOMEM;
  leaf = vfs_node_new(v, VFS_LINK, 0777);
  if (!leaf) goto out;
  leaf->b = vfs_blob_new(v, target, tl, NULL, 0);
  if (leaf->b) rc = vfs_create_at(v, &w, leaf, 0);
  vfs_unref(v, leaf);
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Changes the mode of a node (follows symlinks). */
int vfs_chmod(vfs *v, const char *path, uint32_t mode) {
  vfs_walk w, tw, *at;
  int rc = vfs_walk_acc(v, &w, path, 1, 0, VFS_ACC_WRITE);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (rc) goto out;
  mode = (mode & 07777) | (w.node->mode & (VFS_CHR | VFS_TAB));
  if (w.node->mode == mode) goto out;
  if ((rc = vfs_own_file(v, &w, &tw, &at))) goto out;
  w.node->mode = mode; /* /dev/null stays a device */
  vfs_changed(v);
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Marks a file as a command. */
int vfs_set_prog(vfs *v, const char *path, unsigned prog) {
  vfs_walk w, tw, *at;
  int rc = vfs_walk_acc(v, &w, path, 1, 0, VFS_ACC_WRITE);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc && w.node->kind != VFS_FILE) rc = MSB_EISDIR;
  if (!rc && prog > UINT16_MAX) rc = MSB_EINVAL;
  if (rc || w.node->prog == prog) goto out;
  if ((rc = vfs_own_file(v, &w, &tw, &at))) goto out;
  w.node->prog = (uint16_t)prog;
out:
  vfs_walk_finish(&w);
  return rc;
}

/* Sets a node's mtime. */
int vfs_utime(vfs *v, const char *path, int64_t mtime_ns, int nofollow) {
  vfs_walk w, tw, *at;
  int rc = vfs_walk_acc(v, &w, path, !nofollow, 0, VFS_ACC_WRITE);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (rc) goto out;
  if ((rc = vfs_own_file(v, &w, &tw, &at))) goto out;
  w.node->mtime = mtime_ns;
  vfs_changed(v);
out:
  vfs_walk_finish(&w);
  return rc;
}
