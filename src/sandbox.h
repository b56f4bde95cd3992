/* sandbox.h - the internal layout of a sandbox (struct msb_sandbox) and
 * what the API layer's files (api*.c) share.
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

#include "buf.h"
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

/* One operation in progress (api_op_begin .. api_op_end). */
typedef struct api_op {
  int op;
  uint64_t id;
  buf path[2]; /* normalised path arguments */
  size_t npaths;
  uint64_t dpaths, dcmds; /* the policy's denial counters at the start */
  policy *suspended;      /* path rules set aside for a whole-state op */
  int step; /* a step of the open msb_op_open operation: no events of its
               own but denials and limits, under that operation's id */
} api_op;

#define API_ERRMSG_MAX 1024

struct msb_sandbox {
  mem m;            /* every allocation of this sandbox, the struct too */
  msb_limits lim;   /* borrowed by the shell */
  int64_t clock;    /* borrowed by the shell and the filesystem */
  uint64_t seed;
  vfs *fs;
  shell *sh;
  struct cas_cache *cas; /* directories of the last state export (cas.h) */
  api_checkpoint *cps; /* sorted by id */
  size_t ncps, capcps;
  uint32_t next_cp;
  policy *pol; /* host policy; NULL = everything allowed */
  events ev;   /* pending events (api.c) */
  unsigned admitted; /* open msb_op_open calls: their steps' kinds are not
                        checked again */
  api_op outer;      /* the outermost msb_op_open: the one operation its
                        steps report under */
  int outer_rc;      /* msb_op_fail's code: the terminal event's outcome */
  events_ev outer_x; /* a step's terminal fields (exec's exit code, bytes) */
  const struct secret_set *secrets; /* bound during msb_exec: messages are
                                       redacted while set */
  struct coro *co; /* runs execs (api_exec.c); made at the first */
  msb_run *run;     /* the exec in progress, or NULL */
  char errmsg[API_ERRMSG_MAX];
  char errname[64]; /* scratch for api_quota_name */
};

/* Closes a sandbox like msb_close and reports what its allocator still
 * held after everything was freed: leaked bytes plus leaked blocks, so 0
 * means nothing leaked. The debug check the unit tests read. */
size_t api_close(msb_sandbox *sb);

/* An exec in progress (api_exec.c): msb_exec_start to the last
 * msb_exec_step. The script and options are borrowed until then. */
struct msb_run {
  msb_sandbox *sb;
  const char *script;
  size_t len;
  msb_exec_opts opts;
  int has_opts;
  shell_pace pace;
  msb_result res;
  int rc;      /* msb_exec's return, once the run is done */
  int started; /* its first step came */
  int paused;  /* suspended between two steps */
};

/* Cancels and finishes the exec in progress, if any, dropping its result
 * (msb_close). */
void api_run_abandon(msb_sandbox *sb);

/* ---- the API layer's shared parts (api.c) --------------------------- */

#define API_CHECK(sb)              \
  do {                             \
    if (!(sb)) return MSB_EMISUSE; \
  } while (0)

/* Records a one-line message for msb_errmsg (redacted while secrets are
 * bound) and returns rc. */
int api_fail(msb_sandbox *sb, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clears msb_errmsg and returns 0. */
int api_ok(msb_sandbox *sb);
/* MSB_ENOMEM with the message naming max_memory_bytes. */
int api_oom(msb_sandbox *sb);
unsigned long long api_ull(uint64_t x);
/* Message for a filesystem error on disp (a normalised absolute path).
 * creating: the operation creates disp, so a missing parent is named. */
int api_vfs_err(msb_sandbox *sb, int rc, const char *disp, int creating);
/* Quota messages for a failed growth of add_* (else api_vfs_err). */
int api_quota_err(msb_sandbox *sb, int rc, uint64_t file_size,
                  uint64_t add_bytes, uint64_t add_nodes, const char *disp,
                  int creating);
/* " (max_nodes=N)" for a quota's failure code, "" for other codes;
 * borrowed until the next call. */
const char *api_quota_name(msb_sandbox *sb, int rc);

/* A path argument: abs receives the absolute path handed to the
 * filesystem, disp its normalised form for messages. */
typedef struct api_path {
  buf abs, disp;
} api_path;

/* Resolves path against /workspace (MSB_EINVAL for NULL or ""); the
 * caller finishes p whatever the result. */
int api_path_init(msb_sandbox *sb, api_path *p, const char *path);
void api_path_finish(api_path *p);

/* One operation in flight (see api.c). */

/* Starts operation op (POLICY_OP_*) on paths p1, p2 (either may be NULL):
 * "operation.started" and the admission check (MSB_EPOLICY when denied;
 * MSB_EMISUSE for a NULL sb). whole: suspend path rules while it runs.
 * api_op_end must follow, whatever the result. */
int api_op_begin(msb_sandbox *sb, api_op *o, int op, const char *p1,
                 const char *p2, int whole);
/* Ends it with result rc: denials seen, limits, the terminal event, whose
 * extra fields (exit code, bytes, limit) x holds (NULL: none). Returns rc
 * (at once for a NULL sb). */
int api_op_end(msb_sandbox *sb, api_op *o, int rc, const events_ev *x);
/* Fills ev as an event of kind with o's id, name and paths (o may be
 * NULL). */
void api_ev_init(events_ev *ev, const char *kind, const api_op *o);
/* Zeroes a set of terminal event fields. */
void api_x(events_ev *x);
/* Queues an event of kind with no operation fields. */
void api_event(msb_sandbox *sb, const char *kind, uint64_t op);

#endif
