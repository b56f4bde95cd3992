/* fuzz_inf.c - libFuzzer target: src/inf.c against zlib's inflate.
 *
 * The first byte picks a mode; the rest is the data.
 *   mode 0     the data as a raw deflate stream, decoded by both decoders:
 *              they must agree on the outcome (success, truncation, format
 *              error, output cap), on the output (also the partial output
 *              of a failure) and on the bytes consumed
 *   mode 1     the same into a pre-sized buffer already holding bytes,
 *              which no distance may reach
 *   mode 2     the same with a small output cap taken from the first byte,
 *              into a buffer larger than the cap when its bit 2 is set
 *   mode 3     the data deflated by zlib at a level and strategy taken from
 *              the first byte, with junk after the stream: it must decode
 *              to the data and consume exactly the stream
 * In modes 0 and 2 bit 2 also decodes under a watcher called every few
 * bytes (from the first byte) that lets go of all it may: what went and
 * what stayed must be zlib's output, with the same verdict.
 * Any disagreement traps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/inf.h"
#include "memsandbox.h"
#include "zlib.h"

#define FZ_CAP ((size_t)1 << 18)
#define FZ_PREFIX 300

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* zlib's verdict, in inf_raw's terms: 0 or an INF_* reason. */
static int fz_zlib(const uint8_t *in, size_t n, size_t cap, uint8_t *out,
                   size_t *outlen, size_t *used) {
  z_stream z;
  int zr;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK) __builtin_trap();
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap + 1; /* one byte more shows the cap was passed */
  do {
    zr = inflate(&z, Z_NO_FLUSH);
  } while (zr == Z_OK && z.avail_in && z.avail_out);
  *outlen = (size_t)(z.next_out - out);
  *used = (size_t)(z.next_in - in);
  inflateEnd(&z);
  if (*outlen > cap) return INF_CAPPED;
  if (zr == Z_STREAM_END) return 0;
  if (zr == Z_DATA_ERROR) return INF_INVALID;
  if (zr != Z_OK && zr != Z_BUF_ERROR) __builtin_trap();
  return INF_TRUNCATED;
}

/* A watcher keeping whatever goes in a side buffer. */
static int fz_watch(void *ctx, inf_look *l) {
  buf *gone = ctx;
  size_t d = l->out->len > INF_WINDOW ? l->out->len - INF_WINDOW : 0;
  buf_put(gone, l->out->p, d);
  l->drop = d;
  return 0;
}

/* Decodes under fz_watch, every bytes apart, and checks the whole output
 * and the verdict against zlib's. */
static void fz_watched(const uint8_t *in, size_t n, size_t cap, size_t every) {
  mem m;
  buf b, gone;
  inf_watch w;
  uint8_t *ref = malloc(cap + 1);
  size_t reflen, refused, used = 0, len;
  int why = 0, rc, want;
  if (!ref) return;
  mem_init(&m, 0);
  buf_init(&b, &m);
  buf_init(&gone, &m);
  memset(&w, 0, sizeof w);
  w.fn = fz_watch;
  w.ctx = &gone;
  w.first = w.every = every;
  want = fz_zlib(in, n, cap, ref, &reflen, &refused);
  rc = inf_raw_watch(in, n, &b, cap, &w, &used, &why);
  if (rc == MSB_ENOMEM || gone.err) __builtin_trap();
  if (rc ? rc != MSB_ECORRUPT || why != want : want != 0) __builtin_trap();
  buf_put(&gone, b.p, b.len);
  len = gone.len;
  if (want == INF_CAPPED ? len > cap || (len && memcmp(gone.p, ref, len))
                         : len != reflen || (len && memcmp(gone.p, ref, len)))
    __builtin_trap();
  if (!rc && used != refused) __builtin_trap();
  buf_finish(&b);
  buf_finish(&gone);
  if (m.used || m.blocks) __builtin_trap();
  free(ref);
}

static void fz_raw(const uint8_t *in, size_t n, size_t cap, size_t pre,
                   size_t room) {
  mem m;
  buf b;
  uint8_t *ref = malloc(cap + 1);
  size_t reflen, refused, used = 0;
  int why = 0, rc, want;
  if (!ref) return;
  mem_init(&m, 0);
  buf_init(&b, &m);
  while (b.len < pre) buf_putc(&b, 'x');
  if (room) buf_reserve(&b, room);
  want = fz_zlib(in, n, cap, ref, &reflen, &refused);
  rc = inf_raw(in, n, &b, cap, &used, &why);
  if (rc == MSB_ENOMEM) __builtin_trap();
  if (rc ? rc != MSB_ECORRUPT || why != want : want != 0) __builtin_trap();
  if (b.err || b.len < pre || (pre && memcmp(b.p, "xxxxxxxx", 8)))
    __builtin_trap();
  if (want == INF_CAPPED) {
    /* we stop before the symbol that passes the cap, zlib inside it */
    if (b.len - pre > cap ||
        (b.len > pre && memcmp(b.p + pre, ref, b.len - pre)))
      __builtin_trap();
  } else {
    if (b.len - pre != reflen || (reflen && memcmp(b.p + pre, ref, reflen)))
      __builtin_trap();
  }
  if (!rc && used != refused) __builtin_trap();
  buf_finish(&b);
  if (m.used || m.blocks) __builtin_trap();
  free(ref);
}

static void fz_round_trip(const uint8_t *in, size_t n, int sel) {
  static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED,
                                   Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
  z_stream z;
  mem m;
  buf b;
  uLong bound;
  uint8_t *c;
  size_t clen, used = 0;
  int why = 0;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, sel % 10, Z_DEFLATED, -15, 8, strategies[sel / 10 % 5]))
    __builtin_trap();
  bound = deflateBound(&z, (uLong)n) + 16;
  c = malloc(bound);
  if (!c) {
    deflateEnd(&z);
    return;
  }
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  z.next_out = c;
  z.avail_out = (uInt)bound;
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) __builtin_trap();
  clen = (size_t)(z.next_out - c);
  deflateEnd(&z);
  memcpy(c + clen, "junk after stream", 16);
  mem_init(&m, 0);
  buf_init(&b, &m);
  if (inf_raw(c, clen + 16, &b, n, &used, &why) != 0) __builtin_trap();
  if (used != clen || b.len != n || (n && memcmp(b.p, in, n))) __builtin_trap();
  buf_finish(&b);
  if (m.used || m.blocks) __builtin_trap();
  free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] & 3) {
  case 0:
    fz_raw(data + 1, size - 1, FZ_CAP, 0, 0);
    if (data[0] & 4)
      fz_watched(data + 1, size - 1, FZ_CAP, 1 + (size_t)(data[0] >> 3) * 37);
    break;
  case 1: fz_raw(data + 1, size - 1, FZ_CAP, FZ_PREFIX, 70000); break;
  case 2:
    fz_raw(data + 1, size - 1, (size_t)(data[0] >> 3) * 97, 0,
           data[0] & 4 ? 8192 : 0);
    if (data[0] & 4)
      fz_watched(data + 1, size - 1, (size_t)(data[0] >> 3) * 97, 1000);
    break;
  default: fz_round_trip(data + 1, size - 1, data[0] >> 2); break;
  }
  return 0;
}
