/* fuzz_state.c - libFuzzer target: import arbitrary bytes as content-
 * addressed state records (msb_state_import, src/cas.h) into a sandbox
 * holding a few files.
 *
 * Every input must either load or be rejected with the tree, root hash and
 * revision unchanged, and closing the sandbox must find nothing leaked. A
 * loaded state must export again. A leading 'K' record (keys trusted)
 * lets the fuzzer build trees without finding SHA-256 preimages. Strict
 * limits keep each run small. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  uint8_t h0[32], h1[32], *rec = NULL;
  size_t n = 0;
  uint64_t rev;
  msb_limits_init(&lim, MSB_PROFILE_STRICT);
  lim.max_total_bytes = 1 << 20;
  lim.max_file_bytes = 1 << 20;
  lim.max_nodes = 200;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  if (msb_open(&cfg, &sb)) return 0;
  msb_write(sb, "keep/a.txt", "keep\n", 5, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
  msb_symlink(sb, "/tmp", "keep/l");
  rev = msb_revision(sb);
  msb_root_hash(sb, h0);
  if (msb_state_import(sb, data, size)) {
    /* the message first: every later call replaces it */
    if (!msb_errmsg(sb)[0]) __builtin_trap();
    if (msb_revision(sb) != rev) __builtin_trap();
    if (msb_root_hash(sb, h1) || memcmp(h0, h1, 32)) __builtin_trap();
  } else {
    if (msb_state_export(sb, 0, &rec, &n)) __builtin_trap();
    msb_free(sb, rec);
  }
  if (api_close(sb) != 0) __builtin_trap();
  return 0;
}
