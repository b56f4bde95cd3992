/* trap.h - the trap builtin: EXIT, ERR, RETURN and the signals.
 *
 * Signals never reach the sandbox, so a signal's trap is only recorded:
 * `trap -p` lists it exactly as bash does, and scripts that install
 * cleanup handlers run unchanged. EXIT, ERR and RETURN run (interp_exec.c). */
#ifndef MSB_TRAP_H
#define MSB_TRAP_H

#include "interp.h"

/* The highest signal number (SIGRTMAX on Linux). */
#define TRAP_NSIG 64

/* trap [-lp] [[action] spec ...] once bi_trap has checked the options. */
int trap_builtin(shell *sh, int argc, char **argv);
/* kill: -l/-L list or translate signals; a finished job's pid is gone
 * and %N names no job (no job control); other pids are refused. */
int trap_kill(shell *sh, int argc, char **argv);
/* Frees every signal trap of sh. */
void trap_free_signals(shell *sh);
/* Gives c (a copy of sh) the signal traps of sh: 0 or MSB_ENOMEM. */
int trap_copy_signals(shell *c, const shell *sh);

#endif
