/* vfs.h - the virtual filesystem: persistent, reference-counted nodes.
 *
 * Nodes are shared between versions of the tree (checkpoints, forks, copies).
 * A node whose reference count is 1 belongs to one tree only and is changed
 * in place; a shared node is copied first (copy-on-write), so a mutation
 * costs O(path depth + size of the change) and a checkpoint is one reference.
 * Each directory caches its subtree totals (bytes, nodes) incrementally and
 * its hash lazily; file contents are shared blobs with a lazily cached hash.
 *
 * All paths here are absolute and NUL-terminated; callers resolve relative
 * paths against their cwd first (vfs_abspath). Every mutation validates and
 * allocates first and then commits, so a failure (quota, memory, missing
 * parent) changes nothing. Functions return 0 or a negative MSB_E* code. */
#ifndef MSB_VFS_H
#define MSB_VFS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"
#include "memsandbox.h"

enum { VFS_FILE = MSB_FILE, VFS_DIR = MSB_DIR, VFS_LINK = MSB_LINK };

typedef struct vfs vfs;
typedef struct vnode vnode;

typedef struct vfs_limits {
  uint64_t max_total_bytes, max_file_bytes, max_nodes;
  uint32_t max_path_bytes, max_segment_bytes, max_depth;
} vfs_limits;

/* Node metadata. Always written `struct vfs_stat` (vfs_stat is the
 * function). */
struct vfs_stat {
  int kind;
  uint32_t mode;
  uint64_t size;    /* file bytes; link target length; 0 for directories */
  int64_t mtime_ns;
  uint64_t nodes;   /* subtree nodes, itself included */
  uint64_t bytes;   /* subtree file bytes */
  uint32_t nlink;   /* as Linux reports: files 1, dirs 2 + subdirectories */
  uint64_t ino;     /* stable per node identity for ls -i / find -samefile */
  unsigned prog;    /* files: the command the file is (vfs_set_prog), 0 */
  uint32_t links;   /* directories: names of multi-name files below (such
                       a file can change through a name elsewhere) */
  uint32_t rdev;    /* devices: VFS_DEV_* */
};

/* Creates a filesystem holding "/", "/workspace" and "/tmp" (mode 1777). */
vfs *vfs_create(mem *m, const vfs_limits *lim, int64_t clock_ns);
void vfs_destroy(vfs *v);
void vfs_set_clock(vfs *v, int64_t clock_ns);
int64_t vfs_clock(const vfs *v);
/* Makes the filesystem read (and vfs_set_clock write) the clock through
 * clock_ns, so a sandbox clock advanced by `sleep` stamps new mtimes.
 * NULL returns to the filesystem's own clock. */
void vfs_bind_clock(vfs *v, int64_t *clock_ns);
const vfs_limits *vfs_get_limits(const vfs *v);
/* The allocator the filesystem's nodes, contents and slots come from. */
mem *vfs_mem(const vfs *v);

/* Joins path onto cwd when relative and normalises "." / ".." / "//"
 * lexically (no symlinks). Appends to out. */
int vfs_abspath(const char *cwd, const char *path, buf *out);
/* vfs_abspath for a path the kernel would resolve (every command's
 * operand): a ".." after a component that is a symlink leaves the link's
 * target, not the directory holding the link (cat link/../f). The shell's
 * cd keeps its logical PWD with vfs_abspath. */
int vfs_abspath_phys(vfs *v, const char *cwd, const char *path, buf *out);

/* Canonical path with symlinks resolved (realpath). missing_ok: 0 all
 * components must exist (-e); 1 all but the last (default realpath);
 * 2 none need exist (-m). */
int vfs_realpath(vfs *v, const char *path, int missing_ok, buf *out);

int vfs_stat(vfs *v, const char *path, int follow, struct vfs_stat *st);
/* Borrowed view of a file's bytes, valid until the next mutation. Follows
 * symlinks. MSB_EISDIR for a directory. */
int vfs_read(vfs *v, const char *path, const uint8_t **data, size_t *len);
/* vfs_read that also gives the contents' slot for derived data: one block
 * from the filesystem's allocator (mem_alloc), kept while the bytes stay
 * the same - shared with every copy and checkpoint holding them - and
 * freed with them. Snapshots keep the compressed contents there. */
int vfs_read_slot(vfs *v, const char *path, const uint8_t **data, size_t *len,
                  void ***slot);
int vfs_readlink(vfs *v, const char *path, buf *out);

/* Write flags. */
#define VFS_APPEND 1u      /* append instead of replacing */
#define VFS_EXCL 2u        /* must not exist */
#define VFS_PARENTS 4u     /* create missing parent directories (0755) */
#define VFS_HASH_EQ 8u     /* current content hash must equal expect */
#define VFS_KEEP_MODE 16u  /* mode argument ignored for existing files */
/* A new file takes the name, as renaming a temporary file over it does
 * (sed -i, patch): another name of the old file keeps the old contents. */
#define VFS_REPLACE 32u
/* Writes a file (follows a final symlink; creates with mode if new). */
int vfs_write(vfs *v, const char *path, const void *data, size_t len,
              unsigned flags, uint32_t mode, const uint8_t *expect);

/* Mode bit of the character devices: empty file nodes. What vfs_write and
 * vfs_copy put into one is discarded, except /dev/full's (MSB_ENOSPC);
 * vfs_read gives /dev/null's nothing and refuses the endless ones
 * (MSB_ENOTSUP): their bytes come from the reader (cmd_input). */
#define VFS_CHR 0020000u
/* Device numbers (major << 8 | minor), as Linux numbers them. */
enum {
  VFS_DEV_NULL = 0x103,
  VFS_DEV_ZERO = 0x105,
  VFS_DEV_FULL = 0x107,
  VFS_DEV_RANDOM = 0x108,
  VFS_DEV_URANDOM = 0x109
};
/* Creates path as device rdev (VFS_DEV_*, mode 0666 | VFS_CHR). */
int vfs_mkdev(vfs *v, const char *path, uint32_t rdev);
/* Creates path as the null device. */
int vfs_mknull(vfs *v, const char *path);

#define VFS_MK_PARENTS 1u
#define VFS_MK_EXIST_OK 2u
int vfs_mkdir(vfs *v, const char *path, uint32_t mode, unsigned flags);

#define VFS_RM_RECURSIVE 1u /* non-empty directories too */
#define VFS_RM_DIR 2u       /* directories allowed (empty unless recursive) */
#define VFS_RM_NODIR 4u     /* refuse directories (MSB_EISDIR): rm, unlink */
int vfs_remove(vfs *v, const char *path, unsigned flags);

#define VFS_CP_OVERWRITE 1u
#define VFS_CP_NOFOLLOW 2u  /* copy a symlink itself, not its target */
#define VFS_CP_PARENTS 4u
#define VFS_CP_KEEP_META 8u /* keep mode and mtime (cp -p/-a) */
/* Copies a node (whole subtree for a directory, O(1) by sharing). */
int vfs_copy(vfs *v, const char *src, const char *dst, unsigned flags);
/* Renames a node (like rename(2); a directory may replace only an empty
 * directory unless VFS_CP_OVERWRITE). */
int vfs_rename(vfs *v, const char *src, const char *dst, unsigned flags);
int vfs_symlink(vfs *v, const char *target, const char *linkpath);
/* Creates a hard link: dst becomes another name of the file src names (a
 * final symlink not followed), as link(2). Both then stand for one file
 * (contents, mode, mtime, inode number; nlink counts the names) until
 * the last is removed. MSB_EPERM for a directory, MSB_EEXIST when dst
 * exists. A symlink or device gets a copy instead (one name each). */
int vfs_link(vfs *v, const char *src, const char *dst);
int vfs_chmod(vfs *v, const char *path, uint32_t mode);
/* Marks a file as the command numbered prog (0: none), as a multi-call
 * binary is that command: copies and moves keep the mark, writing new
 * contents drops it, and bytes alone never carry it. The numbers are the
 * shell's (cmd_prog_id); the filesystem only keeps them. */
int vfs_set_prog(vfs *v, const char *path, unsigned prog);
/* The names of command numbers, for snapshots and archives: the shell's
 * table answers (cmd_prog_name / cmd_prog_id); without them files carry
 * no mark out of memory. vfs_prog_name: NULL when unknown; vfs_prog_id: 0
 * when unknown. */
typedef const char *(*vfs_prog_name_fn)(unsigned prog);
typedef unsigned (*vfs_prog_id_fn)(const char *name);
void vfs_set_prog_names(vfs *v, vfs_prog_name_fn name, vfs_prog_id_fn id);
const char *vfs_prog_name(const vfs *v, unsigned prog);
unsigned vfs_prog_id(const vfs *v, const char *name);
/* Makes /usr/bin (all below it, and /usr as a whole) and the /bin link
 * read-only, as the system's own files are (MSB_EROFS, "Read-only file
 * system"), unless the policy has a `path /usr/bin read-write` rule.
 * Returns the previous setting. */
int vfs_set_system_ro(vfs *v, int on);
/* Sets mtime (touch); does not follow a final symlink when nofollow. */
int vfs_utime(vfs *v, const char *path, int64_t mtime_ns, int nofollow);

/* SHA-256 of a node (see memsandbox.h "Hashes"), 32 bytes. */
int vfs_hash(vfs *v, const char *path, int follow, uint8_t out[32]);

/* Directory iteration over a pinned version: the directory node is
 * referenced while open, so mutations during iteration are safe (they copy)
 * and do not affect the listing. Entries come sorted bytewise. */
typedef struct vfs_dir {
  vfs *v;
  vnode *dir;
  size_t i; /* opaque position; 0 rewinds */
} vfs_dir;
int vfs_opendir(vfs *v, const char *path, vfs_dir *d);
/* Next entry: 1 and *name (borrowed while open) or 0 at the end. st may be
 * NULL; it describes the entry itself (symlinks not followed). */
int vfs_readdir(vfs_dir *d, const char **name, size_t *namelen,
                struct vfs_stat *st);
void vfs_closedir(vfs_dir *d);

/* Revision: bumped once per successful mutation, or once per batch. */
uint64_t vfs_revision(const vfs *v);
void vfs_set_revision(vfs *v, uint64_t rev);
/* Batches group mutations (one exec) into one revision bump at the end if
 * anything changed. Batches nest. */
void vfs_batch_begin(vfs *v);
void vfs_batch_end(vfs *v);
/* Units count a run's mutations as the reference does: each command that
 * changed something (its redirections included) is one revision, a run
 * that changed nothing none. Units nest (see vfs_unit_begin); they are
 * not used inside a batch. */
void vfs_unit_begin(vfs *v);
void vfs_unit_end(vfs *v);

/* Versions: the whole tree as one shared reference (checkpoints, forks). */
vnode *vfs_root_get(vfs *v);          /* new reference to the root */
void vfs_root_set(vfs *v, vnode *root); /* takes a reference (adds one) */
void vnode_unref(vfs *v, vnode *n);
/* Totals of the current tree. */
uint64_t vfs_total_bytes(const vfs *v);
uint64_t vfs_total_nodes(const vfs *v);
/* Quotas count the workspace the user sees: not "/", /tmp itself or the
 * built-in nodes declared with vfs_set_builtin_nodes. Bytes need no such
 * rule (the built-in files are empty). */
uint64_t vfs_counted_nodes(const vfs *v);
void vfs_set_builtin_nodes(vfs *v, uint64_t n);

/* Write guard: while set, every write whose bytes, link target or new
 * entry names contain one of the set's values fails with MSB_ESECRET and
 * changes nothing. The bytes are searched after the tail of all the file
 * contents written since the guard was set (kept in w, which must start
 * empty), so a value written in consecutive pieces, to one file or
 * several, is refused at its last piece; an append is also searched after
 * its file's old tail. s and w are borrowed; s NULL removes the guard.
 * Not carried by vfs_clone. */
struct secret_set;
struct secret_window;
void vfs_set_guard(vfs *v, const struct secret_set *s, struct secret_window *w);

/* Undo of the writes through one open file (a redirection whose write is
 * refused for a secret value must leave its target as it was): begin
 * records what path (final symlink followed) names - a reference to its
 * file, or that there is none - before the open truncates or creates it;
 * mine is called after the open and after each write through it, to say
 * that the change just made was the open's own; apply makes path name that
 * file again, or removes the file the open created. When nothing but the
 * open's own changes happened since begin, the parent's mtime and the
 * revision go back too, so the open leaves no trace. apply returns 0 or
 * MSB_ENOMEM; finish drops the reference (a zeroed undo is accepted). */
typedef struct vfs_undo {
  vnode *node;     /* the file before the open (a reference), or NULL */
  int64_t pmtime;  /* its directory's mtime before the open */
  uint64_t rev;    /* revision state before the open */
  int dirty;
  uint64_t muts;   /* mutation count after the open's last own change */
} vfs_undo;
void vfs_undo_begin(vfs *v, const char *path, vfs_undo *u);
void vfs_undo_mine(vfs *v, vfs_undo *u);
int vfs_undo_apply(vfs *v, const char *path, vfs_undo *u);
void vfs_undo_finish(vfs *v, vfs_undo *u);

/* Replaces the quotas; content already above them stays, only growth is
 * refused. */
void vfs_set_limits(vfs *v, const vfs_limits *lim);
/* Path access kinds checked against the policy (vfs_access). */
#define VFS_ACC_STAT 1       /* metadata: the parent must be visible */
#define VFS_ACC_READ 2       /* contents or listing: visible */
#define VFS_ACC_WRITE 3      /* create or change the node: read-write */
#define VFS_ACC_TREE_READ 4  /* read a whole subtree (copy source, hash) */
#define VFS_ACC_TREE_WRITE 5 /* remove or move a whole subtree */
struct policy;
/* Makes every path operation obey pol's path rules (borrowed; NULL for
 * none). Returns the previous policy so a caller can suspend it. */
struct policy *vfs_set_policy(vfs *v, struct policy *pol);
/* The policy in force (borrowed), or NULL. */
struct policy *vfs_get_policy(const vfs *v);
/* 0 when path exists and may be accessed as acc, MSB_EPOLICY when the
 * policy denies it, else the resolution error (cd's check). */
int vfs_access(vfs *v, const char *path, int acc);

/* Deep copy of the current tree, limits, clock and revision into another
 * allocator (forks); sharing inside the tree is kept. NULL when out of
 * memory. O(distinct nodes + bytes). */
vfs *vfs_clone(vfs *v, mem *m);

#endif
