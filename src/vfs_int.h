/* vfs_int.h - the filesystem's internal layout, shared by vfs.c (objects,
 * path resolution, queries, clones) and vfs_mut.c (mutations). Nothing
 * outside src/vfs*.c includes it. */
#ifndef MSB_VFS_INT_H
#define MSB_VFS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "vfs.h"

#define VFS_MAXLINKS 40
#define VFS_INL 16

typedef struct vblob {
  uint32_t ref;
  uint8_t hash_ok;
  uint8_t hash[32];
  size_t len, cap;
  uint8_t *data;
  void *derived;     /* see vfs_read_slot; freed when the bytes change */
  struct vblob *fwd; /* clone forwarding, NULL outside vfs_clone */
} vblob;

typedef struct vname {
  uint32_t ref;
  uint32_t len;
  char s[]; /* NUL-terminated */
} vname;

typedef struct vent {
  vname *nm;
  vnode *n;
} vent;

/* Directory entries live in refcounted chunks of up to VFS_CHUNK, so a
 * copy-on-write copy of a directory copies only the chunk pointers and a
 * mutation copies one shared chunk: O(entries / VFS_CHUNK + VFS_CHUNK)
 * instead of O(entries). Chunks are never empty. An entry's position is
 * encoded as chunk * VFS_CHUNK + index. */
#define VFS_CHUNK 64

typedef struct vchunk {
  uint32_t ref;
  uint16_t n, cap; /* a chunk grows 4, 8, ... VFS_CHUNK, then splits */
  vent e[];
} vchunk;

#define VFS_CHUNK_SIZE(cap) (sizeof(vchunk) + (size_t)(cap) * sizeof(vent))

struct vnode {
  uint32_t ref;
  uint8_t kind;
  uint8_t hash_ok;  /* directories: hash is current */
  uint16_t prog;    /* files: the command this file is (vfs_set_prog) */
  uint32_t mode;    /* permission bits, VFS_CHR, VFS_HL, VFS_TAB */
  uint32_t links;   /* dirs: hard-link names below; table files: names;
                       devices: the device number (VFS_DEV_*) */
  int64_t mtime;
  uint64_t ino;
  uint8_t hash[32];
  vblob *b;         /* file contents or link target */
  vchunk **ch;      /* directory entries, sorted by name bytes */
  size_t nch, capch;
  size_t n;         /* directories: entries */
  uint64_t bytes;   /* directories: subtree file bytes */
  uint64_t nodes;   /* directories: subtree nodes, itself included */
  uint64_t ndirs;   /* directories: direct subdirectories */
  vnode *next;      /* free list while freeing */
  vnode *fwd;       /* clone forwarding, NULL outside vfs_clone */
};

#define VFS_NOW(v) (*(v)->clockp)

/* Hard links. A file with several names lives once, in the link table: a
 * hidden directory under "/" whose entry name is empty (no path can name
 * it) and whose entries, keyed by vfs_tab_key, are the files themselves
 * (marked VFS_TAB, links = their name count). Each name is a stub: an
 * empty file marked VFS_HL with the same inode number. The table is part
 * of the tree, so checkpoints, forks and clones keep the sharing, and a
 * write through any name copies on write the table's path only. Stubs
 * count one node and no bytes; table files count their bytes and no node,
 * so quotas see the bytes once. Directories count the stubs below them
 * (links), so a copy knows when it must turn names back into files. */
#define VFS_HL 0x40000000u
#define VFS_TAB 0x20000000u
#define VFS_INTERNAL (VFS_HL | VFS_TAB)
#define VFS_TAB_KEY 16

static inline int vfs_is_stub(const vnode *n) {
  return (n->mode & VFS_HL) != 0;
}

typedef struct vfs_frame {
  vnode *d;
  size_t i;
} vfs_frame;

struct vfs {
  mem *m;
  vfs_limits lim;
  int64_t clock;
  int64_t *clockp; /* &clock, or the sandbox's clock (vfs_bind_clock) */
  vnode *root;
  uint64_t rev;
  uint64_t next_ino;
  int batch;
  int dirty;
  uint64_t muts; /* mutations ever (vfs_undo tells whether others came) */
  uint64_t sys_nodes; /* the sandbox's own nodes, which quotas do not count */
  vfs_frame *fr; /* scratch stack for iterative walks */
  size_t frcap;
  vchunk *spare; /* a full-size chunk set aside by vfs_ins_prep (split) */
  vchunk *spare1; /* a small chunk set aside for a first entry */
  policy *pol;    /* the host's policy (borrowed); NULL = no rules */
  int sys_ro;     /* /usr/bin and /bin are read-only (vfs_set_system_ro) */
  vfs_prog_name_fn prog_name; /* vfs_set_prog_names */
  vfs_prog_id_fn prog_id;
  const struct secret_set *guard; /* secrets no write may contain */
  struct secret_window *gwin;     /* the tail of what the guard let in */
};

/* One resolved directory on a path: lv[0] is "/", lv[i] was reached
 * through the entry at position idx of lv[i-1]. d is NULL below a missing
 * component in lexical (realpath -m) mode. */
typedef struct vfs_lvl {
  vnode *d;
  const char *name;
  size_t nlen;
  size_t idx;
} vfs_lvl;

typedef struct vfs_walk {
  vfs *v;
  vfs_lvl *lv;
  size_t n, cap;
  vfs_lvl inl[VFS_INL];
  char *own[VFS_MAXLINKS + 1]; /* expanded link paths; names point here */
  int nown;
  int links;
  int lexical;
  int isroot;  /* the path names "/" itself */
  int found;   /* the final component exists (node) */
  vnode *node;
  const char *name; /* final (or first missing) component */
  size_t nlen;
  size_t idx;  /* its position in lv[n-1] when found */
  int trail;   /* the path ended in '/' */
  int dotlast; /* the last component was "." or ".." */
  int followed; /* a final symlink was followed */
  int missing; /* MSB_ENOENT at an intermediate component */
  const char *rest; /* what follows the missing component */
  size_t restlen;
  int denied;  /* ".." left a directory the policy makes invisible */
  vnode *stub; /* the final entry is a hard-link name; node is its file */
  char key[VFS_TAB_KEY]; /* a walk into the link table: its entry name */
} vfs_walk;

/* Small objects and tree helpers (vfs.c). */
vname *vfs_name_new(vfs *v, const char *s, size_t len);
void vfs_name_unref(vfs *v, vname *nm);
vblob *vfs_blob_new(vfs *v, const void *a, size_t alen, const void *b,
                    size_t blen);
void vfs_blob_unref(vfs *v, vblob *bl);
void vfs_blob_changed(vfs *v, vblob *bl);
const uint8_t *vfs_blob_hash(vblob *bl);
vnode *vfs_node_new(vfs *v, int kind, uint32_t mode);
vnode *vfs_dir_new(vfs *v, uint32_t mode);
void vfs_unref(vfs *v, vnode *n);
uint64_t vfs_nbytes(const vnode *n);
uint64_t vfs_nnodes(const vnode *n);
uint64_t vfs_nlinks(const vnode *n);
/* The link table's key for inode ino (VFS_TAB_KEY bytes). */
void vfs_tab_key(uint64_t ino, char key[VFS_TAB_KEY]);
/* The table directory (NULL when no file has several names) and the file
 * behind a stub (NULL when the table lacks it, which cannot happen). */
vnode *vfs_tab(const vfs *v, size_t *pos);
vnode *vfs_tab_file(const vfs *v, const vnode *stub);
int vfs_chunk_own(vfs *v, vnode *d, size_t pos);
int vfs_append(vfs *v, vnode *d, vname *nm, vnode *n);
int vfs_ins_prep(vfs *v, vnode *d, const char *s, size_t len);
void vfs_ins_put(vfs *v, vnode *d, vname *nm, vnode *n);
vnode *vfs_del_put(vfs *v, vnode *d, const char *s, size_t len);
vnode *vfs_node_dup(vfs *v, const vnode *n);
int vfs_find(const vnode *d, const char *s, size_t len, size_t *pos);
int vfs_frames(vfs *v, size_t need);
void vfs_changed(vfs *v);
/* Resolves an absolute path (see vfs.c); always vfs_walk_finish after. */
int vfs_walk_run(vfs *v, vfs_walk *w, const char *path, int follow,
                 int lexical);
void vfs_walk_finish(vfs_walk *w);
/* vfs_walk_run followed by the policy's verdict on the resolved path for
 * an access of kind acc (VFS_ACC_*): MSB_EPOLICY when denied. The one seam
 * through which every path operation meets the policy. */
int vfs_walk_acc(vfs *v, vfs_walk *w, const char *path, int follow, int lexical,
                 int acc);

/* The entry at an encoded position. */
static inline vent *vfs_at(const vnode *d, size_t pos) {
  return &d->ch[pos / VFS_CHUNK]->e[pos % VFS_CHUNK];
}

/* Whether pos is past the last entry (iteration starts at 0). */
static inline int vfs_end(const vnode *d, size_t pos) {
  return pos / VFS_CHUNK >= d->nch;
}

/* The position after pos, in name order. */
static inline size_t vfs_next(const vnode *d, size_t pos) {
  size_t c = pos / VFS_CHUNK;
  return pos % VFS_CHUNK + 1 < d->ch[c]->n ? pos + 1 : (c + 1) * VFS_CHUNK;
}

#endif
