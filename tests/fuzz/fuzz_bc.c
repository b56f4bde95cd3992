/* fuzz_bc.c - libFuzzer target: arbitrary bytes as a bc program.
 *
 * The input up to its first NUL byte is the program, written to a file
 * and run as `bc FILE` and `bc -l FILE`; the bytes after it are what bc
 * reads from stdin after the file (more program). Each run gets a fresh
 * sandbox with the strict profile and small step and memory budgets, so
 * every program ends quickly (runaway loops and huge powers stop at the
 * step limit, huge scales at the memory limit). The sanitizers catch
 * memory errors and undefined behaviour in the lexer, parser, number
 * library and interpreter; the checks below catch a broken contract: exec
 * returns
 * MSB_OK for any program (syntax errors and limit stops are results), and
 * closing the sandbox returns every byte to the allocator. Built by
 * `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memsandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int ok) {
  if (!ok) abort();
}

static const char fuzz_script[] = "bc /p.bc < /in.txt; bc -l /p.bc < /in.txt";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
  fuzz_check(msb_write(sb, "/p.bc", data, plen, 0, NULL, 0, 0) == MSB_OK);
  rc = nul ? msb_write(sb, "/in.txt", nul + 1, size - plen - 1, 0, NULL, 0, 0)
           : msb_write(sb, "/in.txt", "1+2\nscale=3;1/7\n", 16, 0, NULL, 0, 0);
  fuzz_check(rc == MSB_OK);
  memset(&res, 0, sizeof res);
  rc = msb_exec(sb, fuzz_script, sizeof fuzz_script - 1, NULL, &res);
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
