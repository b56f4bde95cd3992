/* fuzz_patch.c - libFuzzer target for the patch engine (src/patch.c).
 *
 * Input layout: byte 0 selects options (reverse, exact, fuzz 0-2, strip
 * -1/0/1); the rest up to the first 0xff byte is the content of the file
 * "f" (also seeded as "a/f" and "b"), the remainder is the patch text,
 * unified or V4A. The parser runs alone and then through patch_apply on
 * a small filesystem with tight quotas; a failed apply must leave the tree
 * unchanged (same revision), and every byte must come back at the end.
 * Build:
 *   clang-19 -g -fsanitize=fuzzer,address,undefined -Iinclude \
 *     src/mem.c src/buf.c src/err.c src/vfs.c src/vfs_mut.c src/hash.c \
 *     src/sha256.c src/patch.c tests/fuzz/fuzz_patch.c -o build/fuzz_patch */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/memsandbox.h"
#include "../../src/buf.h"
#include "../../src/mem.h"
#include "../../src/patch.h"
#include "../../src/vfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *sep, *file, *pt;
  size_t flen, plen;
  patch_opts o;
  patch_set *ps = NULL;
  vfs_limits lim;
  mem m;
  buf rep;
  vfs *v;
  uint64_t rev;
  int rc;
  if (size < 1) return 0;
  memset(&o, 0, sizeof o);
  o.reverse = data[0] & 1;
  o.exact = (data[0] >> 1) & 1;
  o.max_fuzz = (data[0] >> 2) % 3;
  o.strip = (int)((data[0] >> 4) % 3) - 1;
  o.dry_run = (data[0] >> 6) & 1;
  file = data + 1;
  sep = memchr(file, 0xff, size - 1);
  flen = sep ? (size_t)(sep - file) : 0;
  pt = sep ? sep + 1 : file;
  plen = size - (size_t)(pt - data);
  mem_init(&m, 64u << 20);
  buf_init(&rep, &m);
  rc = patch_parse(&m, (const char *)pt, plen, &ps, &rep);
  if (rc == 0 && !ps) abort();
  patch_free(ps);
  buf_clear(&rep);
  memset(&lim, 0, sizeof lim);
  lim.max_total_bytes = 1u << 20;
  lim.max_file_bytes = 1u << 18;
  lim.max_nodes = 200;
  lim.max_path_bytes = 4096;
  lim.max_segment_bytes = 255;
  lim.max_depth = 32;
  v = vfs_create(&m, &lim, 0);
  if (v) {
    vfs_write(v, "/workspace/f", file, flen, 0, 0644, NULL);
    vfs_write(v, "/workspace/b", file, flen, 0, 0644, NULL);
    vfs_write(v, "/workspace/a/f", file, flen, VFS_PARENTS, 0644, NULL);
    rev = vfs_revision(v);
    rc = patch_apply(v, "/workspace", (const char *)pt, plen, &o, &rep);
    if (rc != 0 && vfs_revision(v) != rev) abort();
    vfs_destroy(v);
  }
  buf_finish(&rep);
  if (m.used != 0 || m.blocks != 0) abort();
  return 0;
}
