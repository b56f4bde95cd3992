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

#include "mem.h"
#include "memsandbox.h"
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
  char errmsg[API_ERRMSG_MAX];
};

/* Closes a sandbox like msb_close and reports what its allocator still
 * held after everything was freed: leaked bytes plus leaked blocks, so 0
 * means nothing leaked. The debug check the unit tests read. */
size_t api_close(msb_sandbox *sb);

/* msb_fork's copy (api_snap.c): a new sandbox with sb's limits, clock and
 * seed, then sb's files and session handed over as an uncompressed
 * snapshot. 0 with *out set, or an error recorded on sb. */
int api_snap_fork(msb_sandbox *sb, msb_sandbox **out);

#endif
