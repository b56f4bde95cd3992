/* fuzz_program.h - the harness shared by the targets that fuzz a language
 * run as a command (awk, bc): arbitrary bytes as a program.
 *
 * The input up to its first NUL byte is the program, written to a file;
 * the bytes after it (or a default text without a NUL) go to /in.txt.
 * Each run gets a fresh sandbox with the strict profile and small step and
 * memory budgets, so every program ends quickly: runaway loops stop at the
 * step limit, runaway strings and numbers at the string or memory limit.
 * The sanitizers catch memory errors and undefined behaviour; the checks
 * here catch a broken contract: exec returns MSB_OK for any program
 * (syntax errors and limit stops are results), and closing the sandbox
 * returns every byte to the allocator. */
#ifndef FUZZ_PROGRAM_H
#define FUZZ_PROGRAM_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memsandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int ok) {
  if (!ok) abort();
}

/* Runs script with data's program at path and its input at /in.txt. */
static int fuzz_program(const uint8_t *data, size_t size, const char *path,
                        const char *script, const char *input) {
  msb_limits lim;
  msb_config cfg;
  msb_sandbox *sb = NULL;
  msb_result res;
  const uint8_t *nul = memchr(data, 0, size);
  size_t plen = nul ? (size_t)(nul - data) : size;
  int rc;
  if (size > 1 << 14) return 0;
  msb_limits_init(&lim, MSB_PROFILE_STRICT);
  lim.max_steps = 4000;
  lim.max_memory_bytes = 16u << 20;
  lim.max_string_bytes = 1u << 16;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  cfg.clock_ns = 1700000000000000000LL;
  cfg.seed = 42;
  fuzz_check(msb_open(&cfg, &sb) == MSB_OK);
  fuzz_check(msb_write(sb, path, data, plen, 0, NULL, 0, 0) == MSB_OK);
  rc = nul ? msb_write(sb, "/in.txt", nul + 1, size - plen - 1, 0, NULL, 0, 0)
           : msb_write(sb, "/in.txt", input, strlen(input), 0, NULL, 0, 0);
  fuzz_check(rc == MSB_OK);
  memset(&res, 0, sizeof res);
  rc = msb_exec(sb, script, strlen(script), NULL, &res);
  fuzz_check(rc == MSB_OK || rc == MSB_ENOMEM || rc == MSB_ELIMIT);
  if (rc == MSB_OK) {
    fuzz_check(res.exit_code >= 0 && res.exit_code <= 255);
    fuzz_check(res.out_len <= lim.max_output_bytes);
    fuzz_check(res.err_len <= lim.max_output_bytes);
    msb_result_finish(sb, &res);
  }
  msb_close(sb);
  return 0;
}
#endif
