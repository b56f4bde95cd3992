/* cold.c - loading the cold segment (see cold.h).
 *
 * The segment is the passive data segment 0 (wasm/cold.mjs puts it there);
 * memory.init copies it from the module to the addresses the linker gave
 * it, delimited by the __start_/__stop_ symbols wasm-ld defines for a
 * section whose name is a C identifier. The flag lives in linear memory, so
 * a fork (a copy of the memory) inherits the loaded text along with it. */
#include "cold.h"

#if defined(__wasm__) && !defined(__EMSCRIPTEN__)
#include <stddef.h>

extern const char __start_msb_cold[], __stop_msb_cold[];

/* Marks the segment so wasm/cold.mjs can tell it from the others; it is
 * also what keeps the section present when no other cold text is linked. */
__attribute__((used)) static const char cold_mark[] MSB_COLD =
    "\0msb_cold segment";
static int cold_loaded;

__attribute__((target("bulk-memory"))) void cold_load(void) {
  size_t n = (size_t)(__stop_msb_cold - __start_msb_cold);
  if (cold_loaded) return;
  __asm__ volatile(
      "local.get %0\n"
      "i32.const 0\n"
      "local.get %1\n"
      "memory.init 0, 0" ::"r"(__start_msb_cold),
      "r"(n));
  cold_loaded = 1;
}
#else
void cold_load(void) {}
#endif

const char *cold_get(const char *p) {
  cold_load();
  return p;
}
