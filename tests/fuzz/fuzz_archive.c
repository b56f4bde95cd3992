/* fuzz_archive.c - libFuzzer target: restore arbitrary bytes into a
 * sandbox holding a few files.
 *
 * Every input must either load or be rejected with the tree, root hash and
 * revision unchanged, and closing the sandbox must find nothing leaked. A
 * loaded archive must snapshot and restore again. The same bytes then go
 * through the tar command (list, extract, extract again over the result
 * with --strip-components and -k), which must neither crash nor leak.
 * Strict limits keep each run small. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  uint8_t h0[32], h1[32], *snap = NULL;
  size_t n = 0;
  uint64_t rev;
  int rc;
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
  rc = msb_restore(sb, data, size);
  if (rc) {
    /* the message first: every later call replaces it */
    if (!msb_errmsg(sb)[0]) __builtin_trap();
    if (msb_revision(sb) != rev) __builtin_trap();
    if (msb_root_hash(sb, h1) || memcmp(h0, h1, 32)) __builtin_trap();
  } else {
    if (msb_snapshot(sb, 1, &snap, &n)) __builtin_trap();
    msb_root_hash(sb, h0);
    if (msb_restore(sb, snap, n)) __builtin_trap();
    if (msb_root_hash(sb, h1) || memcmp(h0, h1, 32)) __builtin_trap();
    msb_free(sb, snap);
  }
  if (!msb_write(sb, "/tmp/a.tar", data, size, MSB_WRITE_ANY, NULL, 0, 0)) {
    static const char script[] =
        "mkdir -p /tmp/x; tar -tvf /tmp/a.tar; tar -xf /tmp/a.tar -C /tmp/x; "
        "tar -xkf /tmp/a.tar -C /tmp/x --strip-components=1";
    msb_result r;
    if (msb_exec(sb, script, sizeof script - 1, NULL, &r) == 0)
      msb_result_finish(sb, &r);
  }
  if (api_close(sb) != 0) __builtin_trap();
  return 0;
}
