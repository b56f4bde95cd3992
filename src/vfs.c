/* vfs.c - the virtual filesystem: a persistent tree of reference-counted
 * nodes with copy-on-write along the mutated path.
 *
 * Approach. A directory holds its entries sorted by name bytes in
 * refcounted chunks of 64 (binary search over chunks, then inside one; an
 * insert is a memmove of at most 64 entries plus, on a split, of the chunk
 * pointers). Names are small refcounted strings and file contents
 * refcounted blobs, so a copy-on-write copy of a directory copies its
 * chunk pointers only, and a change then unshares the one chunk it
 * touches. A node counts as unshared only when its own count is 1 and the
 * chunk holding its entry is unshared. A mutation first resolves its path
 * read-only and validates everything (existence, kinds, name limits,
 * quotas), then allocates what it needs: copies of shared directories along
 * the path (a copy is logically identical, so a failure here changes
 * nothing visible), new nodes, names, blobs and entry room. Only then does
 * it commit, and the commit cannot fail: insert or remove entries, add the
 * byte/node deltas to every ancestor and invalidate their cached hashes.
 *
 * Each directory caches its subtree bytes, node count (itself included) and
 * direct subdirectory count (for nlink), all kept exact incrementally, and
 * its hash, recomputed lazily. A file's hash is cached on its blob.
 * Everything that walks a subtree (hashing, freeing, deep copies, clones)
 * is iterative with an explicit stack, because renames can build trees
 * deeper than any C stack.
 *
 * Symlinks resolve inside the virtual root: relative targets against the
 * link's directory, ".." never above "/", MSB_ELOOP after 40 links. Removing
 * or renaming "/", "/workspace" or "/tmp" is MSB_EPERM.
 *
 * The mutations live in vfs_mut.c and the shared layout in vfs_int.h.
 *
 * Inode numbers come from a per-filesystem counter; a copy-on-write copy
 * keeps its number (it is the same file in a new version). vfs_copy gives
 * every copied node a new number except below a directory copied with
 * VFS_CP_KEEP_META, which is shared in O(1) and keeps the numbers below its
 * top. */
#include "vfs.h"

#include <string.h>

#include "sha256.h"
#include "vfs_int.h"

/* ---- small objects ---------------------------------------------------- */

/* A refcounted copy of a name (NULL when out of memory). */
vname *vfs_name_new(vfs *v, const char *s, size_t len) {
  vname *nm;
  if (len > UINT32_MAX) return NULL;
  nm = mem_alloc(v->m, sizeof *nm + len + 1);
  if (!nm) return NULL;
  nm->ref = 1;
  nm->len = (uint32_t)len;
  memcpy(nm->s, s, len);
  nm->s[len] = 0;
  return nm;
}

/* Drops a name reference; NULL accepted. */
void vfs_name_unref(vfs *v, vname *nm) {
  if (nm && --nm->ref == 0) mem_free(v->m, nm);
}

/* A blob holding a followed by b (either may be empty). */
vblob *vfs_blob_new(vfs *v, const void *a, size_t alen, const void *b,
                    size_t blen) {
  vblob *bl;
  if (alen > SIZE_MAX - blen) return NULL;
  bl = mem_zalloc(v->m, sizeof *bl);
  if (!bl) return NULL;
  bl->ref = 1;
  if (alen + blen) {
    bl->data = mem_alloc(v->m, alen + blen);
    if (!bl->data) {
      mem_free(v->m, bl);
      return NULL;
    }
    if (alen) memcpy(bl->data, a, alen);
    if (blen) memcpy(bl->data + alen, b, blen);
  }
  bl->len = bl->cap = alen + blen;
  return bl;
}

/* Drops a blob reference; NULL accepted. */
void vfs_blob_unref(vfs *v, vblob *bl) {
  if (!bl || --bl->ref) return;
  mem_free(v->m, bl->derived);
  mem_free(v->m, bl->data);
  mem_free(v->m, bl);
}

/* Forgets what was computed from a blob's bytes after they changed. */
void vfs_blob_changed(vfs *v, vblob *bl) {
  bl->hash_ok = 0;
  mem_free(v->m, bl->derived);
  bl->derived = NULL;
}

/* The blob's SHA-256, computed once and cached. */
const uint8_t *vfs_blob_hash(vblob *bl) {
  if (!bl->hash_ok) {
    sha256_digest(bl->data, bl->len, bl->hash);
    bl->hash_ok = 1;
  }
  return bl->hash;
}

/* A fresh node with a new inode number, stamped with the clock. */
vnode *vfs_node_new(vfs *v, int kind, uint32_t mode) {
  vnode *n = mem_zalloc(v->m, sizeof *n);
  if (!n) return NULL;
  n->ref = 1;
  n->kind = (uint8_t)kind;
  n->mode = mode & 07777;
  n->mtime = VFS_NOW(v);
  n->ino = v->next_ino++;
  n->nodes = 1;
  return n;
}

/* A fresh empty directory. */
vnode *vfs_dir_new(vfs *v, uint32_t mode) {
  return vfs_node_new(v, VFS_DIR, mode);
}

/* Frees nodes whose count drops to zero, iteratively (trees can be deeper
 * than the C stack). Never allocates. */
void vfs_unref(vfs *v, vnode *n) {
  vnode *list;
  if (!n || --n->ref) return;
  n->next = NULL;
  list = n;
  while (list) {
    vnode *x = list;
    size_t i, k;
    list = x->next;
    for (k = 0; k < x->nch; k++) {
      vchunk *ck = x->ch[k];
      if (--ck->ref) continue;
      for (i = 0; i < ck->n; i++) {
        vnode *c = ck->e[i].n;
        vfs_name_unref(v, ck->e[i].nm);
        if (c && --c->ref == 0) {
          c->next = list;
          list = c;
        }
      }
      mem_free(v->m, ck);
    }
    mem_free(v->m, x->ch);
    vfs_blob_unref(v, x->b);
    mem_free(v->m, x);
  }
}

void vnode_unref(vfs *v, vnode *n) { vfs_unref(v, n); }

/* File bytes a node accounts for (subtree for directories). */
uint64_t vfs_nbytes(const vnode *n) {
  if (n->kind == VFS_DIR) return n->bytes;
  return n->kind == VFS_FILE ? n->b->len : 0;
}

/* Nodes a node accounts for (subtree for directories); a file in the
 * link table counts through its names. */
uint64_t vfs_nnodes(const vnode *n) {
  if (n->kind == VFS_DIR) return n->nodes;
  return (n->mode & VFS_TAB) ? 0 : 1;
}

/* Hard-link names a node accounts for (subtree for directories). */
uint64_t vfs_nlinks(const vnode *n) {
  if (n->kind == VFS_DIR) return n->links;
  return vfs_is_stub(n) ? 1 : 0;
}

/* Fixed-width hexadecimal, so keys sort as numbers. */
void vfs_tab_key(uint64_t ino, char key[VFS_TAB_KEY]) {
  static const char hex[] = "0123456789abcdef";
  int i;
  for (i = VFS_TAB_KEY - 1; i >= 0; i--, ino >>= 4) key[i] = hex[ino & 15];
}

/* The link table: the root's entry with the empty name, which sorts
 * first. */
vnode *vfs_tab(const vfs *v, size_t *pos) {
  const vnode *r = v->root;
  vent *e;
  if (!r->nch) return NULL;
  e = vfs_at(r, 0);
  if (e->nm->len) return NULL;
  if (pos) *pos = 0;
  return e->n;
}

/* The file a stub names. */
vnode *vfs_tab_file(const vfs *v, const vnode *stub) {
  char key[VFS_TAB_KEY];
  vnode *t = vfs_tab(v, NULL);
  size_t pos;
  if (!t) return NULL;
  vfs_tab_key(stub->ino, key);
  if (!vfs_find(t, key, VFS_TAB_KEY, &pos)) return NULL;
  return vfs_at(t, pos)->n;
}

/* Makes the chunk holding pos unshared (d itself must be unshared). */
int vfs_chunk_own(vfs *v, vnode *d, size_t pos) {
  vchunk *k = d->ch[pos / VFS_CHUNK], *o;
  uint32_t i;
  uint16_t cap;
  if (k->ref == 1) return 0;
  /* room for the insertion that usually follows */
  cap = (uint16_t)(k->n < VFS_CHUNK ? k->n + 1 : VFS_CHUNK);
  o = mem_alloc(v->m, VFS_CHUNK_SIZE(cap));
  if (!o) return MSB_ENOMEM;
  memcpy(o, k, VFS_CHUNK_SIZE(k->n));
  o->ref = 1;
  o->cap = cap;
  for (i = 0; i < o->n; i++) {
    o->e[i].nm->ref++;
    o->e[i].n->ref++;
  }
  k->ref--;
  d->ch[pos / VFS_CHUNK] = o;
  return 0;
}

/* Doubles the capacity of chunk c of d (unshared, below VFS_CHUNK). */
static int vfs_chunk_grow(vfs *v, vnode *d, size_t c) {
  vchunk *k = d->ch[c];
  uint16_t cap = (uint16_t)(k->cap * 2 < VFS_CHUNK ? k->cap * 2 : VFS_CHUNK);
  k = mem_realloc(v->m, k, VFS_CHUNK_SIZE(cap));
  if (!k) return MSB_ENOMEM;
  k->cap = cap;
  d->ch[c] = k;
  return 0;
}

static int vfs_ch_room(vfs *v, vnode *d) {
  vchunk **ch;
  size_t cap;
  if (d->nch < d->capch) return 0;
  cap = d->capch ? d->capch * 2 : 2;
  if (cap > SIZE_MAX / sizeof *ch) return MSB_ENOMEM;
  ch = mem_realloc(v->m, d->ch, cap * sizeof *ch);
  if (!ch) return MSB_ENOMEM;
  d->ch = ch;
  d->capch = cap;
  return 0;
}

/* Appends an entry that sorts after every other (building new
 * directories). Takes the references nm and n on success only. */
int vfs_append(vfs *v, vnode *d, vname *nm, vnode *n) {
  vchunk *k = d->nch ? d->ch[d->nch - 1] : NULL;
  if (k && k->n == k->cap && k->cap < VFS_CHUNK) {
    if (vfs_chunk_grow(v, d, d->nch - 1)) return MSB_ENOMEM;
    k = d->ch[d->nch - 1];
  }
  if (!k || k->n == VFS_CHUNK) {
    if (vfs_ch_room(v, d)) return MSB_ENOMEM;
    k = mem_alloc(v->m, VFS_CHUNK_SIZE(4));
    if (!k) return MSB_ENOMEM;
    k->ref = 1;
    k->n = 0;
    k->cap = 4;
    d->ch[d->nch++] = k;
  }
  k->e[k->n].nm = nm;
  k->e[k->n++].n = n;
  d->n++;
  if (n->kind == VFS_DIR) d->ndirs++;
  return 0;
}

static int vfs_find2(const vnode *d, const char *s, size_t len, size_t *pc,
                     size_t *pi);

/* Prepares inserting s into d (unshared): unshares the target chunk and
 * sets aside what a split needs, so vfs_ins_put cannot fail. */
int vfs_ins_prep(vfs *v, vnode *d, const char *s, size_t len) {
  size_t c, i;
  vfs_find2(d, s, len, &c, &i);
  if (d->nch) {
    vchunk *k;
    if (vfs_chunk_own(v, d, c * VFS_CHUNK)) return MSB_ENOMEM;
    k = d->ch[c];
    if (k->n < k->cap) return 0;
    if (k->cap < VFS_CHUNK) return vfs_chunk_grow(v, d, c);
  }
  if (vfs_ch_room(v, d)) return MSB_ENOMEM;
  if (!d->nch) {
    if (!v->spare1 && !(v->spare1 = mem_alloc(v->m, VFS_CHUNK_SIZE(4))))
      return MSB_ENOMEM;
    return 0;
  }
  if (!v->spare && !(v->spare = mem_alloc(v->m, VFS_CHUNK_SIZE(VFS_CHUNK))))
    return MSB_ENOMEM;
  return 0;
}

/* Inserts an entry prepared by vfs_ins_prep; takes nm and n. */
void vfs_ins_put(vfs *v, vnode *d, vname *nm, vnode *n) {
  size_t c, i;
  vchunk *k;
  vfs_find2(d, nm->s, nm->len, &c, &i);
  if (!d->nch) {
    k = v->spare1;
    v->spare1 = NULL;
    k->ref = 1;
    k->n = 0;
    k->cap = 4;
    d->ch[d->nch++] = k;
  }
  k = d->ch[c];
  if (k->n == VFS_CHUNK) { /* split: the upper half moves to the spare */
    vchunk *nk = v->spare;
    v->spare = NULL;
    nk->ref = 1;
    nk->cap = VFS_CHUNK;
    nk->n = VFS_CHUNK / 2;
    memcpy(nk->e, k->e + VFS_CHUNK / 2, (VFS_CHUNK / 2) * sizeof *k->e);
    k->n = VFS_CHUNK / 2;
    memmove(d->ch + c + 2, d->ch + c + 1, (d->nch - c - 1) * sizeof *d->ch);
    d->ch[c + 1] = nk;
    d->nch++;
    if (i > VFS_CHUNK / 2) {
      k = nk;
      i -= VFS_CHUNK / 2;
    }
  }
  memmove(k->e + i + 1, k->e + i, (k->n - i) * sizeof *k->e);
  k->e[i].nm = nm;
  k->e[i].n = n;
  k->n++;
  d->n++;
  if (n->kind == VFS_DIR) d->ndirs++;
}

/* Removes the entry named s from d (its chunk unshared by the caller) and
 * returns its node, whose reference the caller now owns. */
vnode *vfs_del_put(vfs *v, vnode *d, const char *s, size_t len) {
  size_t c, i;
  vchunk *k;
  vnode *n;
  vfs_find2(d, s, len, &c, &i);
  k = d->ch[c];
  n = k->e[i].n;
  vfs_name_unref(v, k->e[i].nm);
  memmove(k->e + i, k->e + i + 1, (k->n - i - 1) * sizeof *k->e);
  k->n--;
  d->n--;
  if (n->kind == VFS_DIR) d->ndirs--;
  if (!k->n) {
    mem_free(v->m, k);
    memmove(d->ch + c, d->ch + c + 1, (d->nch - c - 1) * sizeof *d->ch);
    d->nch--;
  }
  return n;
}

/* A copy of n sharing its children, names and blob (copy-on-write); keeps
 * the inode number and the cached hash. */
vnode *vfs_node_dup(vfs *v, const vnode *n) {
  vnode *c = mem_alloc(v->m, sizeof *c);
  size_t i;
  if (!c) return NULL;
  *c = *n;
  c->ref = 1;
  c->ch = NULL;
  c->nch = c->capch = 0;
  c->next = c->fwd = NULL;
  if (n->nch) {
    c->ch = mem_alloc(v->m, (n->nch + 1) * sizeof *c->ch);
    if (!c->ch) {
      mem_free(v->m, c);
      return NULL;
    }
    c->capch = n->nch + 1;
    c->nch = n->nch;
    memcpy(c->ch, n->ch, n->nch * sizeof *c->ch);
    for (i = 0; i < n->nch; i++) c->ch[i]->ref++;
  }
  if (c->b) c->b->ref++;
  return c;
}

static int vfs_namecmp(const vname *a, const char *s, size_t len) {
  size_t k = a->len < len ? a->len : len;
  int c = memcmp(a->s, s, k);
  if (c) return c;
  return a->len < len ? -1 : a->len > len;
}

/* Chunk and index where s is, or where it would be inserted. */
static int vfs_find2(const vnode *d, const char *s, size_t len, size_t *pc,
                     size_t *pi) {
  size_t lo = 0, hi = d->nch, c;
  const vchunk *k;
  /* the first chunk whose last name is >= s; else append to the last */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    k = d->ch[mid];
    if (vfs_namecmp(k->e[k->n - 1].nm, s, len) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == d->nch) {
    *pc = d->nch ? d->nch - 1 : 0;
    *pi = d->nch ? d->ch[*pc]->n : 0;
    return 0;
  }
  c = lo;
  k = d->ch[c];
  lo = 0;
  hi = k->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int r = vfs_namecmp(k->e[mid].nm, s, len);
    if (!r) {
      *pc = c;
      *pi = mid;
      return 1;
    }
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *pc = c;
  *pi = lo;
  return 0;
}

/* Binary search of a directory: 1 and the entry's position when name
 * exists, else 0. */
int vfs_find(const vnode *d, const char *s, size_t len, size_t *pos) {
  size_t c, i;
  int r = vfs_find2(d, s, len, &c, &i);
  *pos = c * VFS_CHUNK + i;
  return r;
}

/* Grows the scratch stack to need frames. */
int vfs_frames(vfs *v, size_t need) {
  vfs_frame *f;
  size_t cap;
  if (need <= v->frcap) return 0;
  cap = v->frcap ? v->frcap * 2 : 64;
  if (cap < need) cap = need;
  if (cap > SIZE_MAX / sizeof *f) return MSB_ENOMEM;
  f = mem_realloc(v->m, v->fr, cap * sizeof *f);
  if (!f) return MSB_ENOMEM;
  v->fr = f;
  v->frcap = cap;
  return 0;
}

/* Records a successful mutation (revision now, or at batch end). */
void vfs_changed(vfs *v) {
  v->muts++;
  if (v->batch)
    v->dirty = 1;
  else
    v->rev++;
}

/* ---- creation and simple accessors ------------------------------------ */

static const vfs_limits vfs_default_limits = {256u << 20, 64u << 20, 100000,
                                              4096,       255,       256};

/* Creates a filesystem holding "/", "/workspace" and "/tmp". */
vfs *vfs_create(mem *m, const vfs_limits *lim, int64_t clock_ns) {
  vfs *v = mem_zalloc(m, sizeof *v);
  vnode *ws, *tmp;
  vname *nm = NULL;
  if (!v) return NULL;
  v->m = m;
  v->lim = lim ? *lim : vfs_default_limits;
  v->clock = clock_ns;
  v->clockp = &v->clock;
  v->next_ino = 1;
  v->root = vfs_dir_new(v, 0755);
  ws = vfs_dir_new(v, 0755);
  tmp = vfs_dir_new(v, 01777);
  if (!v->root || !ws || !tmp) goto fail;
  nm = vfs_name_new(v, "tmp", 3);
  if (!nm || vfs_append(v, v->root, nm, tmp)) goto fail;
  tmp = NULL;
  nm = vfs_name_new(v, "workspace", 9);
  if (!nm || vfs_append(v, v->root, nm, ws)) goto fail;
  ws = NULL;
  v->root->nodes = 3;
  v->sys_nodes =
      2; /* "/" and /tmp; /workspace counts, as the reference's root */
  return v;
fail:
  vfs_name_unref(v, nm);
  vfs_unref(v, ws);
  vfs_unref(v, tmp);
  vfs_unref(v, v->root);
  mem_free(m, v);
  return NULL;
}

/* Frees the filesystem and every node no checkpoint still holds. */
void vfs_destroy(vfs *v) {
  if (!v) return;
  vfs_unref(v, v->root);
  mem_free(v->m, v->fr);
  mem_free(v->m, v->spare);
  mem_free(v->m, v->spare1);
  mem_free(v->m, v);
}

/* Sets the clock used for new mtimes. */
void vfs_set_clock(vfs *v, int64_t clock_ns) { VFS_NOW(v) = clock_ns; }
/* Reads the clock through clock_ns from now on (NULL: back to our own). */
void vfs_bind_clock(vfs *v, int64_t *clock_ns) {
  v->clock = VFS_NOW(v);
  v->clockp = clock_ns ? clock_ns : &v->clock;
}
/* The clock used for new mtimes. */
int64_t vfs_clock(const vfs *v) { return VFS_NOW(v); }
/* The quotas in force (borrowed). */
const vfs_limits *vfs_get_limits(const vfs *v) { return &v->lim; }
/* The allocator everything in the filesystem comes from. */
mem *vfs_mem(const vfs *v) { return v->m; }
/* Replaces the quotas; existing content above them stays. */
void vfs_set_limits(vfs *v, const vfs_limits *lim) { v->lim = *lim; }
/* Sets or clears the secret write guard. */
void vfs_set_guard(vfs *v, const struct secret_set *s,
                   struct secret_window *w) {
  v->guard = s;
  v->gwin = s ? w : NULL;
}
/* The current revision. */
uint64_t vfs_revision(const vfs *v) { return v->rev; }
/* Sets the revision (rollback, restore). */
void vfs_set_revision(vfs *v, uint64_t rev) { v->rev = rev; }
/* Opens a batch; batches nest. */
void vfs_batch_begin(vfs *v) { v->batch++; }

/* Closes a batch; the outermost one bumps the revision once if anything
 * changed inside. */
void vfs_batch_end(vfs *v) {
  if (v->batch > 0 && --v->batch == 0 && v->dirty) {
    v->dirty = 0;
    v->rev++;
  }
}

/* Opens a unit: one command's mutations, one revision. Changes pending
 * in an enclosing unit are counted first, so a unit nested in another
 * (a command run by a function, eval or $(...)) counts on its own. */
void vfs_unit_begin(vfs *v) {
  if (v->batch && v->dirty) {
    v->dirty = 0;
    v->rev++;
  }
  v->batch++;
}

/* Closes a unit: +1 if anything changed since it opened (or since its
 * last nested unit). */
void vfs_unit_end(vfs *v) {
  if (v->batch > 0) v->batch--;
  if (v->dirty) {
    v->dirty = 0;
    v->rev++;
  }
}

/* A new reference to the current root. */
vnode *vfs_root_get(vfs *v) {
  v->root->ref++;
  return v->root;
}

/* Makes root the current tree (adds a reference). */
void vfs_root_set(vfs *v, vnode *root) {
  vnode *old = v->root;
  if (!root || root == old) return;
  root->ref++;
  v->root = root;
  vfs_unref(v, old);
}

/* Sum of file bytes in the whole tree. */
uint64_t vfs_total_bytes(const vfs *v) { return v->root->bytes; }
/* Nodes in the whole tree, "/" included. */
uint64_t vfs_total_nodes(const vfs *v) { return v->root->nodes; }
/* Nodes the max_nodes quota counts: the tree without the sandbox's own
 * nodes (an empty workspace is 1, as in the reference). A script that
 * removes some of those gains at most their number. */
uint64_t vfs_counted_nodes(const vfs *v) {
  uint64_t n = v->root->nodes;
  return n > v->sys_nodes ? n - v->sys_nodes : 0;
}
/* Declares how many built-in nodes (/usr/bin and its entries, /bin, /dev)
 * the sandbox installed besides "/" and /tmp. */
void vfs_set_builtin_nodes(vfs *v, uint64_t n) { v->sys_nodes = 2 + n; }

/* ---- paths ------------------------------------------------------------ */

/* Joins path onto cwd when relative and normalises it lexically. */

/* Before a ".." of vfs_abspath_phys: when the path so far (out from base)
 * names a symlink, it becomes where the link leads, so that ".." leaves
 * that directory, as the kernel resolves it. 1 when the link leads
 * nowhere: the rest of the path then stays as written, for the walk to
 * fail on as the kernel would. */
static int vfs_dotdot(vfs *v, buf *out, size_t base) {
  struct vfs_stat st;
  const char *p;
  buf r;
  int rc;
  if (out->len == base || out->err) return out->err;
  p = buf_str(out) + base;
  if (vfs_stat(v, p, 0, &st) || st.kind != VFS_LINK) return 0;
  buf_init(&r, out->m);
  rc = vfs_realpath(v, p, 0, &r);
  if (!rc) {
    buf_truncate(out, base);
    if (r.len > 1) buf_put(out, r.p, r.len);
  }
  buf_finish(&r);
  if (rc == MSB_ENOMEM) return rc;
  return rc ? 1 : out->err;
}

/* Joins and normalises as vfs_abspath; with v, ".." after a symlink
 * leaves the link's target (vfs_dotdot). */
static int vfs_abspath_v(vfs *v, const char *cwd, const char *path, buf *out) {
  size_t base = out->len, pass;
  int rc, raw = 0;
  if (!path || !*path) return MSB_ENOENT;
  if (!cwd || path[0] == '/') cwd = "/";
  for (pass = 0; pass < 2; pass++) {
    const char *p = pass ? path : cwd;
    while (*p) {
      const char *c;
      size_t cl;
      while (*p == '/') p++;
      c = p;
      while (*p && *p != '/') p++;
      cl = (size_t)(p - c);
      if (!cl || (cl == 1 && c[0] == '.')) continue;
      if (cl == 2 && c[0] == '.' && c[1] == '.' && !raw) {
        size_t k;
        if (v && (rc = vfs_dotdot(v, out, base)) < 0) return rc;
        if (v && rc == 1) {
          raw = 1;
        } else {
          k = out->len;
          while (k > base && out->p[k - 1] != '/') k--;
          if (k > base) k--;
          buf_truncate(out, k);
          continue;
        }
      }
      buf_putc(out, '/');
      buf_put(out, c, cl);
    }
  }
  if (out->len == base) buf_putc(out, '/');
  return out->err;
}

int vfs_abspath(const char *cwd, const char *path, buf *out) {
  return vfs_abspath_v(NULL, cwd, path, out);
}

int vfs_abspath_phys(vfs *v, const char *cwd, const char *path, buf *out) {
  return vfs_abspath_v(v, cwd, path, out);
}

/* Frees what a walk allocated; safe after any vfs_walk_run result. */
void vfs_walk_finish(vfs_walk *w) {
  int i;
  for (i = 0; i < w->nown; i++) mem_free(w->v->m, w->own[i]);
  w->nown = 0;
  if (w->lv != w->inl) mem_free(w->v->m, w->lv);
  w->lv = w->inl;
}

static int vfs_walk_push(vfs_walk *w, vnode *d, const char *name, size_t nlen,
                         size_t idx) {
  if (w->n == w->cap) {
    size_t cap = w->cap * 2;
    vfs_lvl *lv;
    if (cap > SIZE_MAX / sizeof *lv) return MSB_ENOMEM;
    if (w->lv == w->inl) {
      lv = mem_alloc(w->v->m, cap * sizeof *lv);
      if (lv) memcpy(lv, w->inl, sizeof w->inl);
    } else {
      lv = mem_realloc(w->v->m, w->lv, cap * sizeof *lv);
    }
    if (!lv) return MSB_ENOMEM;
    w->lv = lv;
    w->cap = cap;
  }
  w->lv[w->n].d = d;
  w->lv[w->n].name = name;
  w->lv[w->n].nlen = nlen;
  w->lv[w->n].idx = idx;
  w->n++;
  return 0;
}

/* The resolved path of a walk: the directories lv[1..nlev-1], then the
 * final (or first missing) component when final is set. Written into
 * out (cap bytes) when it fits, else into b; NULL when out of memory. */
static const char *vfs_walk_path(const vfs_walk *w, size_t nlev, int final,
                                 char *out, size_t cap, buf *b, size_t *len) {
  size_t i, n = 0, need = 1;
  char *p = out;
  int last = final && !w->isroot && w->name;
  for (i = 1; i < nlev; i++) need += 1 + w->lv[i].nlen;
  if (last) need += 1 + w->nlen;
  if (need > cap) {
    if (buf_reserve(b, need)) return NULL;
    p = b->p;
  }
  for (i = 1; i < nlev; i++) {
    p[n++] = '/';
    memcpy(p + n, w->lv[i].name, w->lv[i].nlen);
    n += w->lv[i].nlen;
  }
  if (last) {
    p[n++] = '/';
    memcpy(p + n, w->name, w->nlen);
    n += w->nlen;
  }
  if (!n) p[n++] = '/';
  *len = n;
  return p;
}

/* The walk's resolved component i (0: below "/"), of k in all. */
static int vfs_walk_comp(const vfs_walk *w, size_t i, const char *s) {
  size_t dirs = w->n ? w->n - 1 : 0, len = strlen(s);
  if (i < dirs)
    return w->lv[i + 1].nlen == len && !memcmp(w->lv[i + 1].name, s, len);
  return i == dirs && w->name && w->nlen == len && !memcmp(w->name, s, len);
}

/* Whether the walk's resolved path is one of the system's read-only
 * places (vfs_set_system_ro): /usr/bin or below it, the /bin link, and
 * with tree (removing or moving it whole) /usr too. */
static int vfs_walk_system(const vfs_walk *w, int tree) {
  size_t k;
  if (w->isroot) return 0;
  k = (w->n ? w->n - 1 : 0) + (w->name ? 1 : 0);
  if (k >= 2 && vfs_walk_comp(w, 0, "usr") && vfs_walk_comp(w, 1, "bin"))
    return 1;
  return k == 1 &&
         (vfs_walk_comp(w, 0, "bin") || (tree && vfs_walk_comp(w, 0, "usr")));
}

/* 1 when the directory the walk stands in is invisible (policy "none"),
 * 0 when not, MSB_ENOMEM. */
static int vfs_walk_hidden(vfs_walk *w) {
  char tmp[512];
  const char *p;
  size_t n;
  buf b;
  int rc;
  buf_init(&b, w->v->m);
  p = vfs_walk_path(w, w->n, 0, tmp, sizeof tmp, &b, &n);
  rc = !p ? MSB_ENOMEM : policy_path_mode(w->v->pol, p, n) == POLICY_NONE;
  buf_finish(&b);
  return rc;
}

/* Resolves an absolute path. On success lv[0..n-1] are the directories
 * from "/" to the final component's parent and found/node/name/idx describe
 * the final component (or isroot). Intermediate symlinks are always
 * followed, the final one when follow is set or the path ends in '/'.
 * vfs_walk_finish must be called whatever the result. */
int vfs_walk_run(vfs *v, vfs_walk *w, const char *path, int follow,
                 int lexical) {
  const char *p = path;
  size_t len;
  memset(w, 0, sizeof *w);
  w->v = v;
  w->lv = w->inl;
  w->cap = VFS_INL;
  w->lexical = lexical;
  w->n = 1;
  w->lv[0].d = v->root;
  w->lv[0].name = "";
  if (!path) return MSB_EINVAL;
  len = strlen(path);
  if (!len) return MSB_ENOENT;
  if (len > v->lim.max_path_bytes) return MSB_ENAMETOOLONG;
  if (p[0] != '/') return MSB_EINVAL;
  for (;;) {
    const char *c, *after;
    size_t cl, alen, k, idx;
    int last = 1, trail, rc;
    vnode *dir, *child;
    while (len && *p == '/') p++, len--;
    if (!len) {
      /* the path ends at the current directory ("/", "x/.", "x/..") */
      if (w->n == 1) {
        w->isroot = w->found = 1;
        w->node = v->root;
        return 0;
      }
      w->n--;
      w->node = w->lv[w->n].d;
      w->found = w->node != NULL;
      w->name = w->lv[w->n].name;
      w->nlen = w->lv[w->n].nlen;
      w->idx = w->lv[w->n].idx;
      return 0;
    }
    c = p;
    for (cl = 0; cl < len && c[cl] != '/'; cl++) {
    }
    after = c + cl;
    alen = len - cl;
    for (k = 0; k < alen; k++)
      if (after[k] != '/') {
        last = 0;
        break;
      }
    trail = last && alen > 0;
    p = after;
    len = alen;
    if (cl == 1 && c[0] == '.') {
      w->dotlast = last;
      continue;
    }
    if (cl == 2 && c[0] == '.' && c[1] == '.') {
      /* leaving a directory through ".." must not reveal what is in it */
      if (w->n > 1 && v->pol && v->pol->has_none && !w->denied &&
          (rc = vfs_walk_hidden(w)) != 0) {
        if (rc < 0) return rc;
        w->denied = 1;
      }
      if (w->n > 1) w->n--;
      w->dotlast = last;
      continue;
    }
    w->dotlast = 0;
    if (cl > v->lim.max_segment_bytes) return MSB_ENAMETOOLONG;
    dir = w->lv[w->n - 1].d;
    if (!dir) {
      /* lexical mode below a missing component */
      if (!last) {
        if ((rc = vfs_walk_push(w, NULL, c, cl, 0))) return rc;
        continue;
      }
      w->name = c;
      w->nlen = cl;
      w->trail = trail;
      return 0;
    }
    if (!vfs_find(dir, c, cl, &idx)) {
      w->name = c;
      w->nlen = cl;
      w->idx = idx;
      if (last) {
        w->trail = trail;
        return 0;
      }
      if (lexical) {
        if ((rc = vfs_walk_push(w, NULL, c, cl, 0))) return rc;
        continue;
      }
      w->missing = 1;
      w->rest = p;
      w->restlen = len;
      return MSB_ENOENT;
    }
    child = vfs_at(dir, idx)->n;
    if (child->kind == VFS_LINK && (!last || follow || trail)) {
      size_t tl = child->b->len;
      char *np;
      if (++w->links > VFS_MAXLINKS) return MSB_ELOOP;
      if (!tl) return MSB_ENOENT;
      np = mem_alloc(v->m, tl + alen + 1);
      if (!np) return MSB_ENOMEM;
      memcpy(np, child->b->data, tl);
      memcpy(np + tl, after, alen);
      np[tl + alen] = 0;
      w->own[w->nown++] = np;
      if (np[0] == '/') w->n = 1;
      p = np;
      len = tl + alen;
      if (last) w->followed = 1;
      continue;
    }
    if (last) {
      w->found = 1;
      w->node = child;
      if (vfs_is_stub(child)) {
        w->stub = child;
        w->node = vfs_tab_file(v, child);
        if (!w->node) return MSB_ECORRUPT;
      }
      w->name = vfs_at(dir, idx)->nm->s;
      w->nlen = cl;
      w->idx = idx;
      w->trail = trail;
      if (trail && child->kind != VFS_DIR) return MSB_ENOTDIR;
      return 0;
    }
    if (child->kind != VFS_DIR) {
      if (lexical) {
        if ((rc = vfs_walk_push(w, NULL, c, cl, 0))) return rc;
        continue;
      }
      return MSB_ENOTDIR;
    }
    rc = vfs_walk_push(w, child, vfs_at(dir, idx)->nm->s, cl, idx);
    if (rc) return rc;
  }
}

/* Resolves a path and applies the policy (see vfs_int.h). Without a
 * policy this is vfs_walk_run plus one pointer check; with one, the
 * resolved path is built once (on the stack when short) for one
 * longest-prefix lookup. */
int vfs_walk_acc(vfs *v, vfs_walk *w, const char *path, int follow, int lexical,
                 int acc) {
  int rc = vfs_walk_run(v, w, path, follow, lexical), ok, mode;
  policy *p = v->pol;
  char tmp[512];
  const char *rp;
  size_t n;
  buf b;
  if (rc && rc != MSB_ENOENT && rc != MSB_ENOTDIR) return rc;
  if (v->sys_ro && (acc == VFS_ACC_WRITE || acc == VFS_ACC_TREE_WRITE) &&
      vfs_walk_system(w, acc == VFS_ACC_TREE_WRITE) &&
      policy_rule_mode(p, "/usr/bin", 8) != POLICY_RW)
    return MSB_EROFS;
  if (!p || !p->nrules) return rc;
  if (w->denied) {
    p->denied_paths++;
    return MSB_EPOLICY;
  }
  buf_init(&b, v->m);
  if (acc == VFS_ACC_STAT) {
    /* metadata needs the parent only, like search permission */
    rp = vfs_walk_path(w, w->isroot ? 1 : w->n, 0, tmp, sizeof tmp, &b, &n);
    ok = rp && policy_path_mode(p, rp, n) != POLICY_NONE;
  } else {
    int below = POLICY_RW;
    rp = vfs_walk_path(w, w->n, 1, tmp, sizeof tmp, &b, &n);
    mode = rp ? policy_path_mode(p, rp, n) : POLICY_NONE;
    if (rp && (acc == VFS_ACC_TREE_READ || acc == VFS_ACC_TREE_WRITE ||
               (acc == VFS_ACC_WRITE && rc == MSB_ENOENT && w->missing)))
      below = policy_below_mode(p, rp, n);
    if (acc == VFS_ACC_READ)
      ok = mode != POLICY_NONE;
    else if (acc == VFS_ACC_TREE_READ)
      ok = mode != POLICY_NONE && below != POLICY_NONE;
    else
      ok = mode == POLICY_RW && below == POLICY_RW;
  }
  buf_finish(&b);
  if (!rp) return MSB_ENOMEM;
  if (ok) return rc;
  p->denied_paths++;
  return MSB_EPOLICY;
}

/* Sets who names command numbers. */
void vfs_set_prog_names(vfs *v, vfs_prog_name_fn name, vfs_prog_id_fn id) {
  v->prog_name = name;
  v->prog_id = id;
}

/* The name of a command number, or NULL. */
const char *vfs_prog_name(const vfs *v, unsigned prog) {
  return prog && v->prog_name ? v->prog_name(prog) : NULL;
}

/* The number of a command name, or 0. */
unsigned vfs_prog_id(const vfs *v, const char *name) {
  return v->prog_id ? v->prog_id(name) : 0;
}

/* Makes the system's command directory read-only (or not). */
int vfs_set_system_ro(vfs *v, int on) {
  int old = v->sys_ro;
  v->sys_ro = on;
  return old;
}

/* Sets the policy path operations obey; returns the previous one. */
struct policy *vfs_set_policy(vfs *v, struct policy *pol) {
  policy *old = v->pol;
  v->pol = pol;
  return old;
}

/* The policy in force. */
struct policy *vfs_get_policy(const vfs *v) { return v->pol; }

/* Whether path exists and may be accessed as acc. */
int vfs_access(vfs *v, const char *path, int acc) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, 1, 0, acc);
  if (!rc && !w.found) rc = MSB_ENOENT;
  vfs_walk_finish(&w);
  return rc;
}

/* ---- queries ------------------------------------------------------------ */

static void vfs_fill(const vnode *n, struct vfs_stat *st) {
  memset(st, 0, sizeof *st);
  st->kind = n->kind;
  st->mode = n->mode & ~VFS_INTERNAL;
  st->mtime_ns = n->mtime;
  st->ino = n->ino;
  st->prog = n->prog;
  st->nodes = vfs_nnodes(n);
  st->bytes = vfs_nbytes(n);
  st->nlink = (n->mode & VFS_TAB) ? n->links : 1;
  if (n->mode & VFS_CHR) st->rdev = n->links;
  if (n->kind == VFS_DIR)
    st->nlink = (uint32_t)(2 + n->ndirs), st->links = n->links;
  else
    st->size = n->b->len;
}

/* Canonical path with symlinks resolved. */
int vfs_realpath(vfs *v, const char *path, int missing_ok, buf *out) {
  vfs_walk w;
  size_t i, base = out->len;
  int rc = vfs_walk_acc(v, &w, path, 1, missing_ok == 2, VFS_ACC_STAT);
  if (!rc && !w.found && !missing_ok) rc = MSB_ENOENT;
  if (!rc && w.trail && !w.found && missing_ok < 2) rc = MSB_ENOENT;
  if (!rc) {
    for (i = 1; i < w.n; i++) {
      buf_putc(out, '/');
      buf_put(out, w.lv[i].name, w.lv[i].nlen);
    }
    if (!w.isroot) {
      buf_putc(out, '/');
      buf_put(out, w.name, w.nlen);
    }
    if (out->len == base) buf_putc(out, '/');
    rc = out->err;
  }
  vfs_walk_finish(&w);
  return rc;
}

/* Describes a node. */
int vfs_stat(vfs *v, const char *path, int follow, struct vfs_stat *st) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, follow, 0, VFS_ACC_STAT);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc && st) vfs_fill(w.node, st);
  vfs_walk_finish(&w);
  return rc;
}

/* Borrowed view of a file's bytes. */
int vfs_read(vfs *v, const char *path, const uint8_t **data, size_t *len) {
  return vfs_read_slot(v, path, data, len, NULL);
}

/* Borrowed view of a file's bytes and their derived-data slot. */
int vfs_read_slot(vfs *v, const char *path, const uint8_t **data, size_t *len,
                  void ***slot) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, 1, 0, VFS_ACC_READ);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc && w.node->kind == VFS_DIR) rc = MSB_EISDIR;
  if (!rc && (w.node->mode & VFS_CHR) && w.node->links != VFS_DEV_NULL)
    rc = MSB_ENOTSUP; /* endless: the reader makes the bytes */
  if (!rc) {
    static const uint8_t empty[1] = {0};
    *data = w.node->b->data ? w.node->b->data : empty;
    *len = w.node->b->len;
    if (slot) *slot = &w.node->b->derived;
  }
  vfs_walk_finish(&w);
  return rc;
}

/* A symlink's target (MSB_EINVAL when not a link). */
int vfs_readlink(vfs *v, const char *path, buf *out) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, 0, 0, VFS_ACC_STAT);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc && w.node->kind != VFS_LINK) rc = MSB_EINVAL;
  if (!rc) rc = buf_put(out, w.node->b->data, w.node->b->len);
  vfs_walk_finish(&w);
  return rc;
}

/* The file whose contents a name hashes as: a stub hashes as its file,
 * so a tree hashes the same whether its equal files are linked or not. */
static const vnode *vfs_hash_file(vfs *v, const vnode *c) {
  const vnode *t = vfs_is_stub(c) ? vfs_tab_file(v, c) : NULL;
  return t ? t : c;
}

/* Digest of a node, computing stale directory hashes bottom-up with an
 * explicit stack. A directory with hard-link names below keeps no cached
 * hash: a write through another name changes its files unseen. The link
 * table (the root's empty name) is left out: its files count through
 * their names. */
static int vfs_node_hash(vfs *v, vnode *n, uint8_t out[32]) {
  size_t sp = 0;
  if (n->kind != VFS_DIR) {
    if (n->kind == VFS_FILE) {
      memcpy(out, vfs_blob_hash(n->b), 32);
    } else {
      sha256_digest(n->b->data, n->b->len, out);
    }
    return 0;
  }
  if (!n->hash_ok) {
    if (vfs_frames(v, 1)) return MSB_ENOMEM;
    v->fr[sp].d = n;
    v->fr[sp++].i = 0;
    while (sp) {
      vfs_frame *f = &v->fr[sp - 1];
      vnode *d = f->d, *c = NULL;
      while (!vfs_end(d, f->i)) {
        c = vfs_at(d, f->i)->n;
        f->i = vfs_next(d, f->i);
        if (!vfs_at(d, 0)->nm->len && c == vfs_at(d, 0)->n) continue;
        if (c->kind == VFS_DIR && !c->hash_ok) break;
        if (c->kind != VFS_DIR) vfs_blob_hash(vfs_hash_file(v, c)->b);
        c = NULL;
      }
      if (c) { /* hash the child first; the final pass reads its hash */
        if (vfs_frames(v, sp + 1)) return MSB_ENOMEM;
        v->fr[sp].d = c;
        v->fr[sp++].i = 0;
        continue;
      }
      {
        sha256_ctx ctx;
        size_t i;
        sha256_dir_init(&ctx);
        for (i = 0; !vfs_end(d, i); i = vfs_next(d, i)) {
          const vnode *e = vfs_at(d, i)->n;
          uint8_t lh[32];
          uint32_t nl = vfs_at(d, i)->nm->len;
          if (!nl) continue; /* the link table */
          sha256_dir_entry(&ctx,
                           e->kind == VFS_DIR    ? 'D'
                           : e->kind == VFS_FILE ? 'F'
                                                 : 'L',
                           vfs_at(d, i)->nm->s, nl);
          if (e->kind == VFS_DIR) {
            sha256_update(&ctx, e->hash, 32);
          } else if (e->kind == VFS_FILE) {
            sha256_update(&ctx, vfs_hash_file(v, e)->b->hash, 32);
          } else {
            sha256_digest(e->b->data, e->b->len, lh);
            sha256_update(&ctx, lh, 32);
          }
        }
        sha256_final(&ctx, d->hash);
        d->hash_ok = d->links == 0;
      }
      sp--;
    }
  }
  memcpy(out, n->hash, 32);
  return 0;
}

/* SHA-256 of a node. */
int vfs_hash(vfs *v, const char *path, int follow, uint8_t out[32]) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, follow, 0, VFS_ACC_TREE_READ);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc) rc = vfs_node_hash(v, w.node, out);
  vfs_walk_finish(&w);
  return rc;
}

/* Opens a directory for iteration, pinning its current version. */
int vfs_opendir(vfs *v, const char *path, vfs_dir *d) {
  vfs_walk w;
  int rc = vfs_walk_acc(v, &w, path, 1, 0, VFS_ACC_READ);
  memset(d, 0, sizeof *d);
  if (!rc && !w.found) rc = MSB_ENOENT;
  if (!rc && w.node->kind != VFS_DIR) rc = MSB_ENOTDIR;
  if (!rc) {
    d->v = v;
    d->dir = w.node;
    d->dir->ref++;
  }
  vfs_walk_finish(&w);
  return rc;
}

/* Next entry of an open directory. */
int vfs_readdir(vfs_dir *d, const char **name, size_t *namelen,
                struct vfs_stat *st) {
  vent *e;
  const vnode *n;
  if (!d->dir || vfs_end(d->dir, d->i)) return 0;
  e = vfs_at(d->dir, d->i);
  d->i = vfs_next(d->dir, d->i);
  if (!e->nm->len) { /* the link table is nobody's name */
    if (vfs_end(d->dir, d->i)) return 0;
    e = vfs_at(d->dir, d->i);
    d->i = vfs_next(d->dir, d->i);
  }
  *name = e->nm->s;
  if (namelen) *namelen = e->nm->len;
  n = e->n;
  /* a name describes its file as the table holds it now; a file removed
   * since the directory was pinned describes its empty name */
  if (vfs_is_stub(n) && vfs_tab_file(d->v, n)) n = vfs_tab_file(d->v, n);
  if (st) vfs_fill(n, st);
  return 1;
}

/* Releases the pinned directory. */
void vfs_closedir(vfs_dir *d) {
  if (d->dir) vfs_unref(d->v, d->dir);
  d->dir = NULL;
}

/* ---- clones ------------------------------------------------------- */

static vnode *vfs_clone_one(vfs *dv, vnode *s) {
  vnode *c;
  if (s->fwd) {
    s->fwd->ref++;
    return s->fwd;
  }
  c = mem_alloc(dv->m, sizeof *c);
  if (!c) return NULL;
  *c = *s;
  c->ref = 1;
  c->ch = NULL;
  c->n = c->nch = c->capch = 0;
  c->ndirs = 0; /* vfs_append counts them again */
  c->b = NULL;
  c->next = c->fwd = NULL;
  if (s->kind == VFS_DIR) {
    /* entries are appended by vfs_clone */
  } else if (s->b->fwd) {
    c->b = s->b->fwd;
    c->b->ref++;
  } else {
    c->b = vfs_blob_new(dv, s->b->data, s->b->len, NULL, 0);
    if (!c->b) {
      mem_free(dv->m, c);
      return NULL;
    }
    c->b->hash_ok = s->b->hash_ok;
    memcpy(c->b->hash, s->b->hash, 32);
    s->b->fwd = c->b;
  }
  s->fwd = c;
  return c;
}

/* Clears the forwarding pointers vfs_clone left in the source. */
static void vfs_clone_clear(vnode *root) {
  vnode *list = NULL, *x;
  size_t i;
  if (!root->fwd) return;
  root->fwd = NULL;
  root->next = NULL;
  list = root;
  while (list) {
    x = list;
    list = x->next;
    if (x->b) x->b->fwd = NULL;
    for (i = 0; !vfs_end(x, i); i = vfs_next(x, i)) {
      vnode *c = vfs_at(x, i)->n;
      if (c->fwd) {
        c->fwd = NULL;
        c->next = list;
        list = c;
      }
    }
  }
}

/* Deep copy of v (current tree, clock, limits, revision) into another
 * allocator, keeping sharing (each shared node and blob copied once). */
vfs *vfs_clone(vfs *v, mem *m) {
  vfs *dv = mem_zalloc(m, sizeof *dv);
  size_t sp = 0;
  if (!dv) return NULL;
  dv->m = m;
  dv->lim = v->lim;
  dv->clock = VFS_NOW(v);
  dv->clockp = &dv->clock;
  dv->rev = v->rev;
  dv->sys_nodes = v->sys_nodes;
  dv->next_ino = v->next_ino;
  dv->root = vfs_clone_one(dv, v->root);
  if (!dv->root || vfs_frames(dv, 1)) goto fail;
  dv->fr[sp].d = v->root;
  dv->fr[sp++].i = 0;
  while (sp) {
    vfs_frame *f = &dv->fr[sp - 1];
    vnode *s = f->d, *c = s->fwd, *k;
    if (vfs_end(s, f->i)) {
      sp--;
      continue;
    }
    k = vfs_at(s, f->i)->n;
    {
      int fresh = k->fwd == NULL;
      vname *nm =
          vfs_name_new(dv, vfs_at(s, f->i)->nm->s, vfs_at(s, f->i)->nm->len);
      vnode *kc = nm ? vfs_clone_one(dv, k) : NULL;
      if (!kc || vfs_append(dv, c, nm, kc)) {
        vfs_name_unref(dv, nm);
        vfs_unref(dv, kc);
        goto fail;
      }
      f->i = vfs_next(s, f->i);
      if (fresh && k->kind == VFS_DIR && k->n) {
        if (vfs_frames(dv, sp + 1)) goto fail;
        dv->fr[sp].d = k;
        dv->fr[sp++].i = 0;
      }
    }
  }
  vfs_clone_clear(v->root);
  return dv;
fail:
  vfs_clone_clear(v->root);
  vfs_destroy(dv);
  return NULL;
}
