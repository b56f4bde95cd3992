/* fuzz_gzw.c - libFuzzer target: the piecewise gzip writer of snapshots.
 *
 * The input scripts a member: its first byte picks the level, then each
 * op byte adds header blocks (made from the next input bytes, or near
 * copies of earlier blocks, so the header encoder's references and runs
 * get exercised), a new piece of the next input bytes, or the last piece
 * again. The member must gunzip to exactly the bytes it was given, and
 * nothing may leak. */
#include <stdint.h>
#include <string.h>

#include "../../src/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m;
  buf out, plain, got, lastplain;
  arc_gzw *w = NULL;
  arc_piece *last = NULL;
  uint8_t blk[512];
  const char *why = "";
  size_t p = 1;
  int rc = 0;
  if (size < 1) return 0;
  mem_init(&m, 0);
  buf_init(&out, &m);
  buf_init(&plain, &m);
  buf_init(&got, &m);
  buf_init(&lastplain, &m);
  if (arc_gzw_begin(&m, data[0] % 10, &out, &w)) __builtin_trap();
  while (!rc && p < size) {
    int op = data[p++] % 4;
    size_t n = p < size ? data[p++] : 0;
    if (n > size - p) n = size - p;
    if (op <= 1) { /* one block: input bytes at random offsets, or a copy */
      size_t i;
      size_t back = 512 * (1 + n % 4);
      if (back > plain.len) back = plain.len / 512 * 512;
      if (op == 1 && back)
        memcpy(blk, plain.p + plain.len - back, 512);
      else
        memset(blk, 0, sizeof blk);
      for (i = 0; i + 1 < n; i += 2)
        blk[data[p + i] * 2 % 512] = data[p + i + 1];
      p += n;
      buf_put(&plain, blk, 512);
      rc = arc_gzw_headers(w, blk, 512);
    } else if (op == 2 || !last) { /* a piece of n * 37 repeated input bytes */
      size_t len = n * 37, i, pad = arc_tar_pad(len);
      uint8_t *d = mem_alloc(&m, len + pad + 1);
      arc_piece *pc = NULL;
      if (!d) __builtin_trap();
      for (i = 0; i < len; i++) d[i] = n ? data[p + i % n] : 0;
      memset(d + len, 0, pad);
      p += n;
      rc = arc_gzw_piece_make(w, d, len, pad, &pc);
      if (!rc) rc = arc_gzw_piece(w, pc);
      buf_put(&plain, d, len + pad);
      buf_clear(&lastplain);
      buf_put(&lastplain, d, len + pad);
      mem_free(&m, d);
      mem_free(&m, last);
      last = pc;
    } else { /* the last piece again */
      buf_put(&plain, lastplain.p, lastplain.len);
      rc = arc_gzw_piece(w, last);
    }
  }
  if (rc) __builtin_trap();
  memset(blk, 0, sizeof blk);
  buf_put(&plain, blk, 512);
  if (arc_gzw_finish(w, blk, 512) || plain.err) __builtin_trap();
  if (arc_gunzip((const uint8_t *)out.p, out.len, NULL, &got, NULL, &why))
    __builtin_trap();
  if (got.len != plain.len || memcmp(got.p, plain.p, plain.len))
    __builtin_trap();
  mem_free(&m, last);
  buf_finish(&out);
  buf_finish(&plain);
  buf_finish(&got);
  buf_finish(&lastplain);
  if (m.used || m.blocks) __builtin_trap();
  return 0;
}
