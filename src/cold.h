/* cold.h - read-only data kept out of each sandbox's memory until used.
 *
 * Every sandbox is a wasm instance with its own linear memory, and a
 * module's data segments are copied into each one at creation: 270 KB, most
 * of what an idle sandbox costs. Text that few runs ever read (usage texts
 * printed by --help) is marked MSB_COLD instead: the linker gathers it into
 * one segment, which wasm/cold.mjs makes passive, so it stays in the module
 * (shared by every instance) and its pages of linear memory stay untouched.
 * cold_load() copies it to its linked address the first time a sandbox
 * needs it; code reads it through ordinary pointers afterwards.
 *
 * Natively, and in the Emscripten build (whose own optimiser runs before
 * any post-link step could make the segment passive), MSB_COLD is nothing
 * and cold_load() does nothing: the data is where it always was. */
#ifndef MSB_COLD_H
#define MSB_COLD_H

#if defined(__wasm__) && !defined(__EMSCRIPTEN__)
#define MSB_COLD __attribute__((section("msb_cold"), aligned(1)))
#else
#define MSB_COLD
#endif

/* Makes every MSB_COLD object readable in this sandbox; cheap after the
 * first call. */
void cold_load(void);
/* p, once the cold data is loaded: wraps every read of a cold object. */
const char *cold_get(const char *p);

#endif
