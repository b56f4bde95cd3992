/* coro.h - coroutines: a function that runs on its own stack and can
 * suspend itself (coro_yield) back to whoever resumed it.
 *
 * The one primitive behind suspendable execution (issue 17): a run of the
 * shell is a coroutine, so the host can run it a slice at a time, cancel it
 * between slices and read its output as it comes, while the interpreter
 * stays ordinary recursive C. Natively a coroutine is a ucontext; in wasm,
 * where code cannot switch stacks, it is binaryen's Asyncify transform
 * (the build runs `wasm-opt --asyncify`): coro_yield unwinds the wasm
 * call stack into a buffer and coro_resume rewinds it, while each
 * coroutine keeps its own shadow stack (the C stack in linear memory).
 *
 * A coroutine's stack is the machine's, as the main stack is, not the
 * script's data: it comes from the system (mmap natively; in wasm the
 * module's own stack, copied to the libc heap while suspended), not from a
 * sandbox's mem, so memory limits mean the same with and without a run in
 * progress. Resuming nests one level only: a coroutine never resumes
 * another. */
#ifndef MSB_CORO_H
#define MSB_CORO_H

#include <stddef.h>
#include <stdint.h>

typedef struct coro coro;
typedef void coro_fn(void *arg);

/* A coroutine with a stack of about stack_bytes (0: the default, enough
 * for the interpreter at its deepest; wasm ignores it), not yet started;
 * NULL when the system refuses the memory. */
coro *coro_create(size_t stack_bytes);
/* Arms co to run fn(arg) from its start at the next coro_resume. co must
 * not be suspended inside an earlier function (run that to its end). */
void coro_start(coro *co, coro_fn *fn, void *arg);
/* Runs co until its function yields (returns 0) or returns (returns 1;
 * co can then be started again). Called from outside any coroutine. */
int coro_resume(coro *co);
/* From inside co's function: suspends co; returns when it is resumed,
 * or at once when there is no memory to suspend (the run goes on). */
void coro_yield(coro *co);
/* The lowest address co's C stack may reach (its stack grows down). */
uintptr_t coro_stack_floor(const coro *co);
/* Zeroes the stack (a run that held secrets leaves no copy behind). */
void coro_wipe(coro *co);
/* Frees co (NULL is accepted); it must not be suspended mid-function. */
void coro_destroy(coro *co);

#endif
