/* fuzz_exec.c - libFuzzer target: arbitrary bytes as a shell script.
 *
 * Each input runs in a fresh sandbox with the strict profile and a small
 * step budget, so every input ends quickly; the sanitizers catch memory
 * errors and undefined behaviour, and the checks below catch a broken
 * contract: exec returns MSB_OK for any script (syntax errors and limit
 * stops are results), the result is consistent, and closing the sandbox
 * returns every byte to the allocator. Built by `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memsandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int ok) {
  if (!ok) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msb_limits lim;
  msb_config cfg;
  msb_sandbox *sb = NULL;
  msb_result res;
  int rc;
  msb_limits_init(&lim, MSB_PROFILE_STRICT);
  lim.max_steps = 2000;
  lim.max_memory_bytes = 16u << 20;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  cfg.clock_ns = 1700000000000000000LL;
  cfg.seed = 42;
  fuzz_check(msb_open(&cfg, &sb) == MSB_OK);
  memset(&res, 0, sizeof res);
  rc = msb_exec(sb, (const char *)data, size, NULL, &res);
  fuzz_check(rc == MSB_OK || rc == MSB_ENOMEM || rc == MSB_ELIMIT);
  if (rc == MSB_OK) {
    fuzz_check(res.exit_code >= 0 && res.exit_code <= 255);
    fuzz_check(res.out_len <= lim.max_output_bytes);
    fuzz_check(res.err_len <= lim.max_output_bytes);
    fuzz_check(res.cwd && res.cwd[0] == '/');
    msb_result_finish(sb, &res);
  }
  msb_close(sb);
  return 0;
}
