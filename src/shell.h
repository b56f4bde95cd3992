/* shell.h - the shell session: interpreter state that persists across
 * exec calls of one sandbox (cwd, variables, functions, options, traps).
 *
 * The API layer owns a shell per sandbox and calls shell_exec for msb_exec.
 * The shell reaches the filesystem only through vfs and runs commands
 * through the table in cmd/commands.def. */
#ifndef MSB_SHELL_H
#define MSB_SHELL_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "memsandbox.h"
#include "vfs.h"

typedef struct shell shell;
struct coro;

/* How a run is paced (issue 17): the host runs it on a coroutine a slice
 * of steps at a time. At a statement or a loop's turn once the run's
 * steps reach `until` it yields to the host, which sets the next `until`
 * or `stop` before resuming. The steps alone decide where a run yields,
 * so its results do not depend on the slicing. */
typedef struct shell_pace {
  struct coro *co; /* the run's coroutine */
  uint64_t until;  /* yield once the run's steps reach it; 0 = never */
  uint64_t steps;  /* the run's steps at the last yield */
  int stop;        /* a limit_id: end the run with it when resumed */
  void *run;       /* the run's state while it runs (interp_exec.c) */
} shell_pace;
/* The run's stdout (fd 1) or stderr (fd 2) so far, as the result will hold
 * it (redacted; a secret's possible start is held back until it is known
 * not to be one). Borrowed until the run is resumed. */
void shell_pace_output(const shell_pace *p, int fd, const uint8_t **data,
                       size_t *len);

/* Creates a session with cwd and HOME "/workspace". lim and clock_ns are
 * borrowed for the shell's lifetime (the sandbox owns them). */
shell *shell_create(mem *m, vfs *fs, const msb_limits *lim, uint64_t seed,
                    int64_t *clock_ns);
void shell_destroy(shell *sh);
/* Runs a script; fills res (see msb_exec). */
int shell_exec(shell *sh, const char *script, size_t len,
               const msb_exec_opts *opts, msb_result *res);
/* shell_exec inside pace->co, suspending as pace says (NULL: never). */
int shell_exec_paced(shell *sh, const char *script, size_t len,
                     const msb_exec_opts *opts, shell_pace *pace,
                     msb_result *res);
/* 0 complete, MSB_EINCOMPLETE, or MSB_ESYNTAX. */
int shell_parse_check(shell *sh, const char *script, size_t len);
/* Current working directory (borrowed). */
const char *shell_cwd(const shell *sh);
/* Checkpoints and atomic runs share a session instead of copying it:
 * shell_share takes a reference in O(1) and shell_destroy drops one. A
 * shared session never changes; before changing one, shell_own replaces
 * *sh by a deep copy of its own when others hold it too (so the copy is
 * paid by the first exec after a checkpoint or rollback, and only then).
 * Returns 0 or MSB_ENOMEM (*sh unchanged). */
shell *shell_share(shell *sh);
int shell_own(shell **sh);

#endif
