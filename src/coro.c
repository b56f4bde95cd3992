/* coro.c - coroutines (see coro.h): ucontext natively, Asyncify in wasm.
 *
 * In wasm the scheduler is plain C inside the module. binaryen turns the
 * imports from module "asyncify" into calls to the functions its pass
 * creates, and leaves the functions that call them (coro_yield,
 * coro_resume) uninstrumented, as a runtime must be. coro_yield records
 * the coroutine's shadow stack pointer and starts an unwind: every
 * instrumented frame above it saves its locals into the coroutine's
 * Asyncify buffer and returns, down to the call in coro_resume, which
 * stops the unwind and puts the caller's stack pointer back. Resuming
 * sets the coroutine's stack pointer, starts a rewind and calls the same
 * function again; the frames come back and the rewind reaches the call
 * to coro_yield, which stops it and returns into the coroutine.
 *
 * One allocation holds the struct, the Asyncify buffer and the stack, in
 * that order: the stack grows down to the buffer's end (its floor, which
 * bounds jq's recursion as address 0 bounds it on the module's own
 * stack), and the buffer up to the same point, where Asyncify's own check
 * traps. */
#include "coro.h"

#include <stdint.h>
#include <string.h>

#if defined(__wasm__)
#include <stdlib.h>
#else
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif
#ifdef CORO_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* The default stack. Natively 8 MiB, like a main thread's (only the pages
 * touched are committed); in wasm 1 MiB for the shadow stack, as the
 * module's main stack, plus CORO_ASYNC_BYTES for the frames Asyncify saves (their
 * locals; the interpreter's depth is bounded by SH_STACK_MAX). */
#if defined(__wasm__)
#define CORO_STACK_DEFAULT ((size_t)1 << 20)
#define CORO_ASYNC_BYTES ((size_t)512 << 10)
#else
#define CORO_STACK_DEFAULT ((size_t)8 << 20)
#endif

#if defined(__wasm__)

/* Asyncify's buffer header: where the next saved frame goes, and the end
 * it may not pass. */
typedef struct coro_async {
  uintptr_t cur, end;
} coro_async;

struct coro {
  coro_fn *fn;
  void *arg;
  size_t bytes;     /* the whole allocation */
  uintptr_t base;   /* the Asyncify buffer starts here */
  uintptr_t floor;  /* its end: as far as the stack may grow down */
  uintptr_t top;    /* the stack's top (it grows down) */
  uintptr_t sp;     /* the coroutine's stack pointer while suspended */
  int suspended;    /* between a coro_yield and the next resume */
  int rewinding;    /* resumed, and the rewind has not reached coro_yield */
  coro_async async; /* the header Asyncify reads and writes */
};

__attribute__((import_module("asyncify"), import_name("start_unwind"))) void
coro_async_start_unwind(coro_async *data);
__attribute__((import_module("asyncify"), import_name("stop_unwind"))) void
coro_async_stop_unwind(void);
__attribute__((import_module("asyncify"), import_name("start_rewind"))) void
coro_async_start_rewind(coro_async *data);
__attribute__((import_module("asyncify"), import_name("stop_rewind"))) void
coro_async_stop_rewind(void);

/* The C stack pointer is the wasm global __stack_pointer, out of C's
 * reach: two instructions of assembly read and set it. */
static uintptr_t coro_sp_get(void) {
  uintptr_t sp;
  __asm__ volatile(
      ".globaltype __stack_pointer, i32\n\t"
      "global.get __stack_pointer\n\t"
      "local.set %0"
      : "=r"(sp));
  return sp;
}

static void coro_sp_set(uintptr_t sp) {
  __asm__ volatile(
      ".globaltype __stack_pointer, i32\n\t"
      "local.get %0\n\t"
      "global.set __stack_pointer"
      :
      : "r"(sp));
}

coro *coro_create(size_t stack_bytes) {
  size_t stack = stack_bytes ? stack_bytes : CORO_STACK_DEFAULT;
  size_t n = (sizeof(coro) + CORO_ASYNC_BYTES + stack + 63) & ~(size_t)15;
  coro *co = aligned_alloc(16, n);
  if (!co) return NULL;
  memset(co, 0, sizeof *co);
  co->bytes = n;
  co->base = ((uintptr_t)(co + 1) + 15) & ~(uintptr_t)15;
  co->top = ((uintptr_t)co + n) & ~(uintptr_t)15;
  co->floor = (co->top - stack) & ~(uintptr_t)15;
  return co;
}

void coro_start(coro *co, coro_fn *fn, void *arg) {
  co->fn = fn;
  co->arg = arg;
  co->suspended = co->rewinding = 0;
}

int coro_resume(coro *co) {
  uintptr_t sp = coro_sp_get();
  if (co->suspended) {
    co->rewinding = 1;
    coro_sp_set(co->sp);
    coro_async_start_rewind(&co->async);
  } else {
    coro_sp_set(co->top);
  }
  co->suspended = 0;
  co->fn(co->arg);
  coro_sp_set(sp);
  if (co->suspended) {
    coro_async_stop_unwind();
    return 0;
  }
  co->fn = NULL;
  return 1;
}

void coro_yield(coro *co) {
  if (co->rewinding) { /* the rewind is back here: carry on */
    co->rewinding = 0;
    coro_async_stop_rewind();
    return;
  }
  co->sp = coro_sp_get();
  co->suspended = 1;
  co->async.cur = co->base;
  co->async.end = co->floor;
  coro_async_start_unwind(&co->async);
}

uintptr_t coro_stack_floor(const coro *co) { return co->floor; }

void coro_wipe(coro *co) { memset((void *)co->base, 0, co->top - co->base); }

void coro_destroy(coro *co) { free(co); }

#else /* native: ucontext */

struct coro {
  coro_fn *fn;
  void *arg;
  void *map; /* the mapping: a guard page, then the stack */
  size_t bytes;
  int done;
  ucontext_t self, caller;
#ifdef CORO_ASAN
  void *fake; /* ASan's fake stack of the side being left */
  const void *caller_bottom;
  size_t caller_size;
#endif
};

coro *coro_create(size_t stack_bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t n = stack_bytes ? stack_bytes : CORO_STACK_DEFAULT;
  size_t bytes = ((n + page - 1) & ~(page - 1)) + page;
  void *map;
  coro *co;
  map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return NULL;
  /* a guard page turns an overflow into a fault, not a corruption */
  if (mprotect(map, page, PROT_NONE)) {
    munmap(map, bytes);
    return NULL;
  }
  /* the struct sits at the top of the mapping, the stack below it */
  co = (coro *)(((uintptr_t)map + bytes - sizeof(coro)) & ~(uintptr_t)63);
  memset(co, 0, sizeof *co);
  co->map = map;
  co->bytes = bytes;
  co->done = 1;
  return co;
}

/* The stack makecontext gets: between the guard page and the struct. */
static void coro_stack(coro *co, char **lo, size_t *n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  *lo = (char *)co->map + page;
  *n = (size_t)(((uintptr_t)co & ~(uintptr_t)15) - (uintptr_t)*lo);
}

/* makecontext passes ints: the pointer travels in two halves. */
static void coro_main(unsigned hi, unsigned lo) {
  coro *co = (coro *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo);
#ifdef CORO_ASAN
  __sanitizer_finish_switch_fiber(NULL, &co->caller_bottom, &co->caller_size);
#endif
  co->fn(co->arg);
  co->done = 1;
#ifdef CORO_ASAN
  /* the fiber ends: NULL lets ASan free its fake stack */
  __sanitizer_start_switch_fiber(NULL, co->caller_bottom, co->caller_size);
#endif
  setcontext(&co->caller);
}

void coro_start(coro *co, coro_fn *fn, void *arg) {
  uintptr_t p = (uintptr_t)co;
  char *lo;
  size_t n;
  co->fn = fn;
  co->arg = arg;
  co->done = 0;
  coro_stack(co, &lo, &n);
  getcontext(&co->self);
  co->self.uc_stack.ss_sp = lo;
  co->self.uc_stack.ss_size = n;
  co->self.uc_link = NULL;
  makecontext(&co->self, (void (*)(void))coro_main, 2,
              (unsigned)(p >> 16 >> 16), (unsigned)(p & 0xffffffffu));
}

int coro_resume(coro *co) {
#ifdef CORO_ASAN
  char *lo;
  size_t n;
  coro_stack(co, &lo, &n);
  __sanitizer_start_switch_fiber(&co->fake, lo, n);
#endif
  swapcontext(&co->caller, &co->self);
#ifdef CORO_ASAN
  __sanitizer_finish_switch_fiber(co->fake, NULL, NULL);
#endif
  return co->done;
}

void coro_yield(coro *co) {
#ifdef CORO_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, co->caller_bottom, co->caller_size);
#endif
  swapcontext(&co->self, &co->caller);
#ifdef CORO_ASAN
  __sanitizer_finish_switch_fiber(fake, &co->caller_bottom, &co->caller_size);
#endif
}

uintptr_t coro_stack_floor(const coro *co) {
  return (uintptr_t)co->map + (uintptr_t)sysconf(_SC_PAGESIZE);
}

/* Natively no one copies the stack's memory (a wasm fork copies the
 * whole linear memory), and zeroing would commit every page. */
void coro_wipe(coro *co) { (void)co; }

void coro_destroy(coro *co) {
  if (co) munmap(co->map, co->bytes);
}

#endif
