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
 * A wasm coroutine has no stack of its own: it runs on the module's main
 * stack, CORO_GAP below the frame that first resumed it, as a plain call
 * would, and a suspension copies out only what it uses (stack copying).
 * Asyncify saves the frames' locals into the free stack below the run
 * (or, for a run nested deep, a heap buffer); once the unwind is done,
 * the run's frames and that data go to one heap block of their size, and
 * the next resume puts them back at the same addresses before rewinding.
 * So a sandbox that slices costs no memory while idle and a few KiB while
 * paused, where a stack per coroutine (1.5 MiB in every instance, copied
 * by each fork) cost density; the copies cost microseconds per pause. A
 * run must be resumed from a frame no deeper than the one that started it
 * (msb_exec_step always is). */
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

/* Natively a coroutine's stack is 8 MiB, like a main thread's (only the
 * pages touched are committed). */
#define CORO_STACK_DEFAULT ((size_t)8 << 20)

#if defined(__wasm__)

/* The room coro_resume keeps for itself and its callees (memcpy, malloc)
 * above the run's stack, so saving and restoring never touch the run's
 * frames. */
#define CORO_GAP ((uintptr_t)4096)
/* Where the Asyncify buffer may start: the module's main stack comes first
 * in memory (--stack-first), so its floor is address 0. */
#define CORO_ASYNC_LOW ((uintptr_t)64)
/* What the buffer leaves free below a suspended run's stack pointer. */
#define CORO_ASYNC_MARGIN ((uintptr_t)256)
/* The room Asyncify gets for a run whose frames take n bytes of stack: it
 * saves the frames' wasm locals, measured at 0.29 n for the deepest
 * recursion the interpreter allows (docs/ARCHITECTURE.md); more would
 * trap the module. */
#define CORO_ASYNC_NEED(n) ((n) / 2 + ((uintptr_t)32 << 10))

/* Asyncify's buffer header: where the next saved frame goes, and the end
 * it may not pass. */
typedef struct coro_async {
  uintptr_t cur, end;
} coro_async;

struct coro {
  coro_fn *fn;
  void *arg;
  uintptr_t top;    /* the run's stack starts here, below CORO_GAP */
  uintptr_t sp;     /* the coroutine's stack pointer while suspended */
  uint8_t *saved;   /* a suspended run's stack, then its Asyncify data */
  size_t saved_len; /* both together */
  uint8_t *abuf;    /* the Asyncify data when the stack had no room */
  size_t abuf_len;
  int suspended;    /* between a coro_yield and the next resume */
  int rewinding;    /* resumed, and the rewind has not reached coro_yield */
  int pinned;       /* saving failed (no memory): the run goes on unpaused */
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
  coro *co = malloc(sizeof *co);
  (void)stack_bytes; /* the run uses the module's own stack */
  if (co) memset(co, 0, sizeof *co);
  return co;
}

void coro_start(coro *co, coro_fn *fn, void *arg) {
  co->fn = fn;
  co->arg = arg;
  co->suspended = co->rewinding = co->pinned = 0;
}

/* After an unwind: copies the run's frames [sp, top) and the Asyncify data
 * beneath them out of the module's stack, which other calls use while the
 * run is suspended. 0 when there is no memory for the copy. */
static int coro_save(coro *co) {
  size_t stack = co->top - co->sp;
  size_t async = co->abuf ? 0 : co->async.cur - CORO_ASYNC_LOW;
  co->saved = malloc(stack + async);
  if (!co->saved) return 0;
  memcpy(co->saved, (void *)co->sp, stack);
  memcpy(co->saved + stack, (void *)CORO_ASYNC_LOW, async);
  co->saved_len = stack + async;
  return 1;
}

/* Puts a suspended run's frames and Asyncify data back where they were. */
static void coro_restore(coro *co) {
  size_t stack = co->top - co->sp;
  memcpy((void *)co->sp, co->saved, stack);
  memcpy((void *)CORO_ASYNC_LOW, co->saved + stack, co->saved_len - stack);
  memset(co->saved, 0, co->saved_len); /* it may hold secret values */
  free(co->saved);
  co->saved = NULL;
  co->saved_len = 0;
}

/* Rewinds a suspended run's frames: its next call of fn comes back to its
 * coro_yield. */
static void coro_rewind(coro *co) {
  co->suspended = 0;
  co->rewinding = 1;
  coro_sp_set(co->sp);
  coro_async_start_rewind(&co->async);
}

int coro_resume(coro *co) {
  uintptr_t sp = coro_sp_get();
  if (co->suspended) {
    /* the run's stack lies below the caller's: resumed from as deep a
     * frame as it was started, its frames would be overwritten */
    if (sp < co->top + CORO_GAP / 2) __builtin_trap();
    coro_restore(co);
    coro_rewind(co);
  } else {
    co->top = (sp - CORO_GAP) & ~(uintptr_t)15;
    coro_sp_set(co->top);
  }
  for (;;) {
    co->fn(co->arg);
    coro_sp_set(sp);
    if (!co->suspended) break;
    coro_async_stop_unwind();
    if (coro_save(co)) return 0;
    co->pinned = 1; /* no memory to pause: carry on to the end */
    coro_rewind(co);
  }
  co->fn = NULL;
  return 1;
}

void coro_yield(coro *co) {
  uintptr_t need;
  if (co->rewinding) { /* the rewind is back here: carry on */
    co->rewinding = 0;
    coro_async_stop_rewind();
    if (co->abuf) { /* it may hold secret values */
      memset(co->abuf, 0, co->abuf_len);
      free(co->abuf);
      co->abuf = NULL;
    }
    return;
  }
  if (co->pinned) return;
  co->sp = coro_sp_get();
  need = CORO_ASYNC_NEED(co->top - co->sp);
  if (co->sp - CORO_ASYNC_MARGIN - CORO_ASYNC_LOW >= need) {
    co->async.cur = CORO_ASYNC_LOW; /* the free stack below the run */
    co->async.end = co->sp - CORO_ASYNC_MARGIN;
  } else if ((co->abuf = malloc(need))) { /* a run nested deep */
    co->abuf_len = need;
    co->async.cur = (uintptr_t)co->abuf;
    co->async.end = co->async.cur + need;
  } else {
    return; /* no room to pause: the run goes on */
  }
  co->suspended = 1;
  coro_async_start_unwind(&co->async);
}

uintptr_t coro_stack_floor(const coro *co) {
  (void)co;
  return 0;
}

/* The run's frames are dead stack once it ended: zero them and whatever
 * Asyncify left below. */
void coro_wipe(coro *co) {
  if (co->top) memset((void *)CORO_ASYNC_LOW, 0, co->top - CORO_ASYNC_LOW);
}

void coro_destroy(coro *co) {
  if (co) {
    free(co->saved);
    free(co->abuf);
  }
  free(co);
}

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
