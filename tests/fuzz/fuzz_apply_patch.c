/* fuzz_apply_patch.c - libFuzzer target for msb_apply_patch (the public
 * entry the agent tools use): the patch engine plus the change list.
 *
 * Input layout: byte 0 picks flags (exact, dry run) and, in its high bits,
 * an allocation to fail (0 = none), so out-of-memory paths are explored
 * too; the rest up to the first 0xff byte is the content of "f" (also
 * seeded as "a/f" and "d/g"), the remainder is the patch, unified or V4A.
 * A failed call must leave the root hash and revision as they were and
 * return no list; a successful one must return count well-formed records
 * (five NUL-terminated fields, a known operation, hashes of 0 or 64 hex
 * digits) and bump the revision at most once. Closing must free every
 * byte. Build: make fuzz (see the Makefile). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/memsandbox.h"
#include "../../src/sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_hexlen_ok(const char *s) {
  size_t n = strlen(s), i;
  if (n != 0 && n != 64) return 0;
  for (i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

/* Checks the change list; aborts on anything malformed. */
static void fz_check_list(const char *p, size_t len, size_t count) {
  const char *e = p + len;
  size_t i, k;
  for (i = 0; i < count; i++) {
    const char *f[5];
    for (k = 0; k < 5; k++) {
      const char *z = memchr(p, 0, (size_t)(e - p));
      if (!z) abort();
      f[k] = p;
      p = z + 1;
    }
    if (strcmp(f[0], "add") && strcmp(f[0], "update") &&
        strcmp(f[0], "delete") && strcmp(f[0], "move"))
      abort();
    if (f[1][0] != '/') abort();
    if (!strcmp(f[0], "move") != (f[2][0] != 0)) abort();
    if (!fz_hexlen_ok(f[3]) || !fz_hexlen_ok(f[4])) abort();
  }
  if (p != e) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  const uint8_t *file, *sep, *pt;
  size_t flen, plen, clen = 0, count = 0;
  unsigned flags;
  uint8_t h0[32], h1[32];
  uint64_t rev;
  char *ch = NULL;
  int rc;
  if (size < 1) return 0;
  flags = data[0] & 3u;
  file = data + 1;
  sep = memchr(file, 0xff, size - 1);
  flen = sep ? (size_t)(sep - file) : 0;
  pt = sep ? sep + 1 : file;
  plen = size - (size_t)(pt - data);
  if (msb_limits_init(&lim, MSB_PROFILE_STRICT)) abort();
  lim.max_file_bytes = 1u << 18;
  lim.max_total_bytes = 1u << 20;
  lim.max_nodes = 300; /* room for /usr/bin is not needed: no exec here */
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  if (msb_open(&cfg, &sb)) return 0;
  msb_write(sb, "f", file, flen, MSB_WRITE_ANY, NULL, 0, 0);
  msb_write(sb, "a/f", file, flen, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
  msb_write(sb, "d/g", file, flen, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
  if (msb_root_hash(sb, h0)) abort();
  rev = msb_revision(sb);
  if (data[0] >> 2) sb->m.fail_after = (long)(data[0] >> 2) * 3;
  rc = msb_apply_patch(sb, (const char *)pt, plen, NULL, flags, &ch, &clen,
                       &count);
  sb->m.fail_after = -1;
  if (rc) {
    if (ch || count || clen) abort();
    if (msb_root_hash(sb, h1) || memcmp(h0, h1, 32)) abort();
    if (msb_revision(sb) != rev) abort();
  } else {
    fz_check_list(ch ? ch : "", clen, count);
    if (msb_revision(sb) > rev + 1) abort();
    if ((flags & MSB_PATCH_DRY_RUN) && msb_revision(sb) != rev) abort();
  }
  msb_free(sb, ch);
  if (api_close(sb) != 0) abort();
  return 0;
}
