/* sandbox.h - the internal layout of a sandbox (struct msb_sandbox).
 *
 * Owned by api.c. A sandbox is one allocator (mem) that every other part
 * allocates from, the filesystem, the shell session, the limits and clock
 * the shell borrows, the checkpoints, and the last error message. The
 * struct itself is allocated from its own mem, so closing it checks that
 * only that one block is left. */
#ifndef MSB_SANDBOX_H
#define MSB_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "mem.h"
#include "memsandbox.h"
#include "policy.h"
#include "shell.h"
#include "vfs.h"

/* One checkpoint: a reference to a whole tree, its revision, and a copy of
 * the shell session. */
typedef struct api_checkpoint {
  uint32_t id;
  vnode *root;
  uint64_t rev;
  shell *sh;
} api_checkpoint;

#define API_ERRMSG_MAX 1024

struct msb_sandbox {
  mem m;            /* every allocation of this sandbox, the struct too */
  msb_limits lim;   /* borrowed by the shell */
  int64_t clock;    /* borrowed by the shell and the filesystem */
  uint64_t seed;
  vfs *fs;
  shell *sh;
  api_checkpoint *cps; /* sorted by id */
  size_t ncps, capcps;
  uint32_t next_cp;
  policy *pol; /* host policy; NULL = everything allowed */
  events ev;   /* pending events (api_host.c) */
  const struct secret_set *secrets; /* bound during msb_exec: messages are
                                       redacted while set */
  char errmsg[API_ERRMSG_MAX];
  char errname[64]; /* scratch for api_quota_name */
};

/* Closes a sandbox like msb_close and reports what its allocator still
 * held after everything was freed: leaked bytes plus leaked blocks, so 0
 * means nothing leaked. The debug check the unit tests read. */
size_t api_close(msb_sandbox *sb);

/* The bodies of the public operations (api.c, api_snap.c). The msb_*
 * entry points in api_host.c wrap each in the policy's admission check
 * and its events. */
int api_read_run(msb_sandbox *sb, const char *path, uint8_t **data,
                 size_t *len);
int api_write_run(msb_sandbox *sb, const char *path, const void *data,
                  size_t len, int cond, const uint8_t *expect_hash,
                  uint32_t mode, unsigned flags);
int api_append_run(msb_sandbox *sb, const char *path, const void *data,
                   size_t len, unsigned flags);
int api_stat_path_run(msb_sandbox *sb, const char *path, unsigned flags,
                      msb_stat *st);
int api_list_run(msb_sandbox *sb, const char *path, char **names, size_t *len,
                 size_t *count);
int api_mkdir_run(msb_sandbox *sb, const char *path, uint32_t mode,
                  unsigned flags);
int api_remove_run(msb_sandbox *sb, const char *path, unsigned flags);
int api_copy_run(msb_sandbox *sb, const char *src, const char *dst,
                 unsigned flags);
int api_move_run(msb_sandbox *sb, const char *src, const char *dst,
                 unsigned flags);
int api_symlink_run(msb_sandbox *sb, const char *target, const char *linkpath);
int api_readlink_run(msb_sandbox *sb, const char *path, char **target);
int api_chmod_run(msb_sandbox *sb, const char *path, uint32_t mode);
int api_hash_run(msb_sandbox *sb, const char *path, uint8_t out[32]);
int api_root_hash_run(msb_sandbox *sb, uint8_t out[32]);
int api_exec_run(msb_sandbox *sb, const char *script, size_t len,
                 const msb_exec_opts *opts, msb_result *res);
int api_checkpoint_run(msb_sandbox *sb, uint32_t *id);
int api_rollback_run(msb_sandbox *sb, uint32_t id);
int api_release_run(msb_sandbox *sb, uint32_t id);
int api_snapshot_run(msb_sandbox *sb, int level, uint8_t **data, size_t *len);
int api_restore_run(msb_sandbox *sb, const uint8_t *data, size_t len);
int api_fork_run(msb_sandbox *sb, msb_sandbox **out);
int api_apply_patch_run(msb_sandbox *sb, const char *text, size_t len,
                        const char *cwd, unsigned flags, char **changes,
                        size_t *changes_len, size_t *count);
/* Queues an event of kind with no operation fields (api_host.c). */
void api_event(msb_sandbox *sb, const char *kind, uint64_t op);
/* msb_fork's copy (api_snap.c): a new sandbox with sb's limits, clock and
 * seed, then sb's files and session handed over as an uncompressed
 * snapshot. 0 with *out set, or an error recorded on sb. */
int api_snap_fork(msb_sandbox *sb, msb_sandbox **out);

#endif
