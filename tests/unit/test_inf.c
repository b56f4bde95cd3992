/* test_inf.c - unit tests for src/inf.c.
 *
 * Streams are hand-built with a small bit writer (stored, fixed and
 * dynamic blocks, and every way to break one) or made by zlib's deflate.
 * Every decode is checked twice: against what the case expects and against
 * zlib's raw inflate, which must reach the same verdict with the same
 * (partial) output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/inf.h"
#include "memsandbox.h"
#include "test.h"
#include "zlib.h"

/* ---- zlib as the reference ------------------------------------------- */

/* zlib's raw inflate of p[0..n) into *out (malloc'd): 0, INF_TRUNCATED or
 * INF_INVALID; *used on success. */
static int ti_zlib(const uint8_t *p, size_t n, uint8_t **out, size_t *len,
                   size_t *used) {
  z_stream z;
  size_t cap = 1 << 16;
  int zr;
  *out = malloc(cap);
  *len = 0;
  memset(&z, 0, sizeof z);
  if (!*out || inflateInit2(&z, -15) != Z_OK) return -1;
  z.next_in = (Bytef *)(uintptr_t)p;
  z.avail_in = (uInt)n;
  for (;;) {
    z.next_out = *out + *len;
    z.avail_out = (uInt)(cap - *len);
    zr = inflate(&z, Z_NO_FLUSH);
    *len = cap - z.avail_out;
    if (zr != Z_OK || z.avail_out) break;
    cap *= 2;
    *out = realloc(*out, cap);
    if (!*out) return -1;
  }
  *used = (size_t)(z.next_in - p);
  inflateEnd(&z);
  return zr == Z_STREAM_END   ? 0
         : zr == Z_DATA_ERROR ? INF_INVALID
                              : INF_TRUNCATED;
}

/* Decodes p[0..n) with inf_raw (no cap) and checks the verdict is want
 * (0 or INF_*) and that zlib agrees on it, on the output and on the bytes
 * used. Returns the bytes used (0 on failure). */
static size_t ti_check(const uint8_t *p, size_t n, int want) {
  mem m;
  buf b;
  uint8_t *ref;
  size_t reflen, refused = 0, used = 0;
  int why = 0, rc, zw;
  mem_init(&m, 0);
  buf_init(&b, &m);
  rc = inf_raw(p, n, &b, (size_t)-1, &used, &why);
  CHECK(rc == (want ? MSB_ECORRUPT : 0));
  if (rc) CHECK(why == want);
  zw = ti_zlib(p, n, &ref, &reflen, &refused);
  CHECK(zw == want);
  CHECK(b.len == reflen && (!reflen || !memcmp(b.p, ref, reflen)));
  if (!rc && !zw) CHECK(used == refused);
  free(ref);
  buf_finish(&b);
  CHECK(m.used == 0 && m.blocks == 0);
  return rc ? 0 : used;
}

/* zlib's raw deflate of p[0..n) into b. */
static void ti_deflate(const void *p, size_t n, int level, int strategy,
                       buf *b) {
  z_stream z;
  uLong bound;
  memset(&z, 0, sizeof z);
  REQUIRE(deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy) == Z_OK);
  bound = deflateBound(&z, (uLong)n);
  buf_reserve(b, bound);
  REQUIRE(!b->err);
  z.next_in = (Bytef *)(uintptr_t)p;
  z.avail_in = (uInt)n;
  z.next_out = (Bytef *)b->p + b->len;
  z.avail_out = (uInt)bound;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  b->len += bound - z.avail_out;
  deflateEnd(&z);
}

/* Text of random words, like the benchmarks' trees. */
static void ti_text(buf *b, size_t n, uint32_t seed) {
  static const char *const words[] = {"alpha", "bravo",   "charlie", "delta",
                                      "echo",  "foxtrot", "golf",    "hotel"};
  while (b->len < n) {
    seed = seed * 1103515245 + 12345;
    buf_puts(b, words[(seed >> 16) & 7]);
    buf_putc(b, (seed >> 20) % 7 ? ' ' : '\n');
  }
  buf_truncate(b, n);
}

/* ---- a bit writer ----------------------------------------------------- */

typedef struct tw {
  buf b;
  uint32_t acc;
  int n;
} tw;

static void tw_init(tw *w, mem *m) {
  buf_init(&w->b, m);
  w->acc = 0;
  w->n = 0;
}

/* k bits of v, lowest first (deflate's header fields and extra bits). */
static void tw_bits(tw *w, uint32_t v, int k) {
  while (k--) {
    w->acc |= (v & 1) << w->n;
    v >>= 1;
    if (++w->n == 8) {
      buf_putc(&w->b, (int)w->acc);
      w->acc = 0;
      w->n = 0;
    }
  }
}

/* A Huffman code, top bit first. */
static void tw_code(tw *w, uint32_t code, int len) {
  while (len--) tw_bits(w, code >> len, 1);
}

/* Pads to a byte boundary and returns the stream. */
static buf *tw_end(tw *w) {
  if (w->n) tw_bits(w, 0, 8 - w->n);
  return &w->b;
}

/* Canonical codes for lengths lens[0..n) (RFC 1951 3.2.2). */
static void tw_canon(const uint8_t *lens, int n, uint16_t *codes) {
  int count[16] = {0}, next[16], i, len, code = 0;
  for (i = 0; i < n; i++) count[lens[i]]++;
  count[0] = 0;
  for (len = 1; len < 16; len++) {
    code = (code + count[len - 1]) << 1;
    next[len] = code;
  }
  for (i = 0; i < n; i++)
    if (lens[i]) codes[i] = (uint16_t)next[lens[i]]++;
}

/* RFC 1951 3.2.5 */
static const uint16_t tw_lbase[29] = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint16_t tw_dbase[30] = {
    1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};

static int tw_lext(int i) { return i < 8 || i == 28 ? 0 : (i - 4) / 4; }
static int tw_dext(int i) { return i < 4 ? 0 : (i - 2) / 2; }

/* The fixed code's symbol sym (RFC 1951 3.2.6). */
static void tw_fsym(tw *w, int sym) {
  if (sym < 144)
    tw_code(w, 0x30 + (uint32_t)sym, 8);
  else if (sym < 256)
    tw_code(w, 0x190 + (uint32_t)sym - 144, 9);
  else if (sym < 280)
    tw_code(w, (uint32_t)sym - 256, 7);
  else
    tw_code(w, 0xc0 + (uint32_t)sym - 280, 8);
}

/* A length/distance pair in the fixed code. */
static void tw_fmatch(tw *w, int len, int dist) {
  int i = 28, j = 29;
  while (tw_lbase[i] > len) i--;
  while (tw_dbase[j] > dist) j--;
  tw_fsym(w, 257 + i);
  tw_bits(w, (uint32_t)(len - tw_lbase[i]), tw_lext(i));
  tw_code(w, (uint32_t)j, 5);
  tw_bits(w, (uint32_t)(dist - tw_dbase[j]), tw_dext(j));
}

/* The code-length code used by tw_dynamic: 0-12 in 4 bits, 13-18 in 5. */
static const uint8_t tw_cl[19] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                  4, 4, 4, 5, 5, 5, 5, 5, 5};
static const uint8_t tw_order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};

static void tw_clsym(tw *w, int sym) {
  uint16_t codes[19];
  tw_canon(tw_cl, 19, codes);
  tw_code(w, codes[sym], tw_cl[sym]);
}

/* A dynamic block header whose code-length code has lengths cl[0..19)
 * (all 19 sent), without the lengths themselves. */
static void tw_dhead(tw *w, int final, int nlen, int ndist, const uint8_t *cl) {
  int i;
  tw_bits(w, (uint32_t) final, 1);
  tw_bits(w, 2, 2);
  tw_bits(w, (uint32_t)(nlen - 257), 5);
  tw_bits(w, (uint32_t)(ndist - 1), 5);
  tw_bits(w, 15, 4);
  for (i = 0; i < 19; i++) tw_bits(w, cl[tw_order[i]], 3);
}

/* A whole dynamic block header for literal/length lengths ll[0..nlen) and
 * distance lengths dl[0..ndist), each length sent as itself. */
static void tw_dynamic(tw *w, int final, const uint8_t *ll, int nlen,
                       const uint8_t *dl, int ndist) {
  int i;
  tw_dhead(w, final, nlen, ndist, tw_cl);
  for (i = 0; i < nlen; i++) tw_clsym(w, ll[i]);
  for (i = 0; i < ndist; i++) tw_clsym(w, dl[i]);
}

/* A complete literal/length code over 0..257 (254 codes of 8 bits, 4 of
 * 9) and a complete distance code over 0..29 (2 of 4 bits, 28 of 5). */
static void tw_plain(uint8_t *ll, uint8_t *dl) {
  int i;
  for (i = 0; i < 258; i++) ll[i] = i < 254 ? 8 : 9;
  for (i = 0; i < 30; i++) dl[i] = i < 2 ? 4 : 5;
}

/* ---- basics ----------------------------------------------------------- */

/* Ends w's stream and frees it: whether the decoder refused it. */
static int tw_refused(tw *w) {
  int ok;
  tw_end(w);
  ok = ti_check((uint8_t *)w->b.p, w->b.len, INF_INVALID) == 0;
  buf_finish(&w->b);
  return ok;
}

TEST("inf-1.1") { /* stored blocks; bytes after the stream are not used */
  static const uint8_t s[] = {0x00, 3, 0,    0xfc, 0xff, 'a', 'b', 'c', 0x01,
                              2,    0, 0xfd, 0xff, 'd',  'e', 'X', 'Y', 'Z'};
  static const uint8_t empty[] = {0x01, 0, 0, 0xff, 0xff};
  CHECK(ti_check(s, sizeof s, 0) == 15);
  CHECK(ti_check(empty, sizeof empty, 0) == 5);
}

TEST("inf-1.2") { /* fixed blocks, by hand and by zlib */
  mem m;
  tw w;
  buf t, z;
  mem_init(&m, 0);
  tw_init(&w, &m);
  tw_bits(&w, 1, 1);
  tw_bits(&w, 1, 2);
  tw_fsym(&w, 'a');
  tw_fsym(&w, 0xe9); /* a 9-bit literal */
  tw_fmatch(&w, 10, 2);
  tw_fsym(&w, 256);
  tw_end(&w);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  buf_finish(&w.b);
  buf_init(&t, &m);
  buf_init(&z, &m);
  ti_text(&t, 5000, 1);
  ti_deflate(t.p, t.len, 6, Z_FIXED, &z);
  CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

TEST("inf-1.3") { /* dynamic blocks at every level, text and binary */
  mem m;
  buf t, z;
  int level, i;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  ti_text(&t, 200000, 2);
  for (i = 0; i < 20000; i++) buf_putc(&t, (int)((i * 7919u) >> 3));
  for (level = 0; level <= 9; level++) {
    buf_clear(&z);
    ti_deflate(t.p, t.len, level, Z_DEFAULT_STRATEGY, &z);
    CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  }
  buf_clear(&z);
  ti_deflate(t.p, t.len, 6, Z_HUFFMAN_ONLY, &z);
  CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  buf_clear(&z);
  ti_deflate(t.p, t.len, 6, Z_RLE, &z);
  CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  buf_finish(&t);
  buf_finish(&z);
}

TEST("inf-1.4") { /* zero-length streams */
  static const uint8_t fixed[] = {0x03, 0x00};
  mem m;
  buf z, o;
  size_t used = 0;
  int why = 0;
  mem_init(&m, 0);
  buf_init(&z, &m);
  buf_init(&o, &m);
  CHECK(ti_check(fixed, sizeof fixed, 0) == 2);
  ti_deflate("", 0, 6, Z_DEFAULT_STRATEGY, &z);
  CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  /* no output at all: a cap of 0 is enough and nothing is allocated */
  CHECK(inf_raw((uint8_t *)z.p, z.len, &o, 0, &used, &why) == 0);
  CHECK(o.len == 0 && used == z.len && m.blocks == 1);
  buf_finish(&z);
  CHECK(m.used == 0);
}

TEST("inf-1.5") { /* the final block after many non-final ones */
  mem m;
  tw w;
  buf t, z;
  z_stream zs;
  int i;
  mem_init(&m, 0);
  tw_init(&w, &m);
  for (i = 0; i < 3000; i++) {
    if (i % 3 == 0) { /* empty stored */
      tw_bits(&w, 0, 3);
      tw_end(&w);
      buf_put(&w.b, "\0\0\xff\xff", 4);
    } else if (i % 3 == 1) {
      tw_bits(&w, 0, 1);
      tw_bits(&w, 1, 2);
      tw_fsym(&w, 'a' + i % 26);
      tw_fsym(&w, 256);
    } else {
      uint8_t ll[258], dl[30];
      tw_plain(ll, dl);
      tw_dynamic(&w, 0, ll, 258, dl, 30);
      tw_code(&w, (uint32_t)('A' + i % 26), 8); /* the canonical codes */
      tw_code(&w, 0x1fe, 9);                   /* 256 */
    }
  }
  tw_bits(&w, 1, 1);
  tw_bits(&w, 1, 2);
  tw_fsym(&w, 256);
  tw_end(&w);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  buf_finish(&w.b);
  /* zlib's flushes make the same shape */
  buf_init(&t, &m);
  buf_init(&z, &m);
  ti_text(&t, 30000, 3);
  memset(&zs, 0, sizeof zs);
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  buf_reserve(&z, 200000);
  zs.next_out = (Bytef *)z.p;
  zs.avail_out = 200000;
  for (i = 0; i < 300; i++) {
    zs.next_in = (Bytef *)t.p + i * 100;
    zs.avail_in = 100;
    deflate(&zs, i == 299 ? Z_FINISH : i % 2 ? Z_FULL_FLUSH : Z_SYNC_FLUSH);
  }
  z.len = 200000 - zs.avail_out;
  deflateEnd(&zs);
  CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len);
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

/* ---- invalid data ----------------------------------------------------- */

TEST("inf-2.1") { /* block type 3; a stored length without its complement */
  static const uint8_t bt3[] = {0x07, 0, 0, 0};
  static const uint8_t nlen[] = {0x01, 5,   0,   0xfa, 0xfe,
                                 'h',  'e', 'l', 'l',  'o'};
  CHECK(ti_check(bt3, sizeof bt3, INF_INVALID) == 0);
  CHECK(ti_check(nlen, sizeof nlen, INF_INVALID) == 0);
}

TEST("inf-2.2") { /* literal/length 286, 287 and distance 30, 31 */
  mem m;
  tw w;
  int sym;
  mem_init(&m, 0);
  for (sym = 286; sym <= 287; sym++) {
    tw_init(&w, &m);
    tw_bits(&w, 3, 3);
    tw_fsym(&w, 'x');
    tw_fsym(&w, sym);
    CHECK(tw_refused(&w));
  }
  for (sym = 30; sym <= 31; sym++) {
    tw_init(&w, &m);
    tw_bits(&w, 3, 3);
    tw_fsym(&w, 'x');
    tw_fsym(&w, 257);
    tw_code(&w, (uint32_t)sym, 5);
    tw_bits(&w, 0, 16);
    CHECK(tw_refused(&w));
  }
}

TEST("inf-2.3") { /* distances reach back to the stream's first byte only */
  mem m;
  tw w;
  buf o;
  size_t used;
  int why = 0, dist;
  mem_init(&m, 0);
  for (dist = 1; dist <= 3; dist++) {
    tw_init(&w, &m);
    tw_bits(&w, 3, 3);
    tw_fsym(&w, 'a');
    tw_fsym(&w, 'b');
    tw_fmatch(&w, 5, dist);
    tw_fsym(&w, 256);
    tw_end(&w);
    CHECK(ti_check((uint8_t *)w.b.p, w.b.len, dist <= 2 ? 0 : INF_INVALID) ==
          (dist <= 2 ? w.b.len : 0));
    /* bytes the buffer held before do not count */
    buf_init(&o, &m);
    buf_puts(&o, "xyz");
    CHECK(inf_raw((uint8_t *)w.b.p, w.b.len, &o, 100, &used, &why) ==
          (dist <= 2 ? 0 : MSB_ECORRUPT));
    CHECK_STR(o.p, dist == 1   ? "xyzabbbbbb"
                   : dist == 2 ? "xyzabababa"
                               : "xyzab");
    buf_finish(&o);
    buf_finish(&w.b);
  }
  /* the same through the fast loop: 300 literals, then 300 or 301 back */
  for (dist = 300; dist <= 301; dist++) {
    int i;
    tw_init(&w, &m);
    tw_bits(&w, 3, 3);
    for (i = 0; i < 300; i++) tw_fsym(&w, 'a' + i % 26);
    tw_fmatch(&w, 200, dist);
    tw_fsym(&w, 256);
    tw_bits(&w, 0, 128);
    tw_end(&w);
    buf_init(&o, &m);
    buf_puts(&o, "xyz");
    CHECK(inf_raw((uint8_t *)w.b.p, w.b.len, &o, 1000, &used, &why) ==
          (dist == 300 ? 0 : MSB_ECORRUPT));
    CHECK(o.len == (dist == 300 ? 503 : 303));
    buf_finish(&o);
    CHECK(ti_check((uint8_t *)w.b.p, w.b.len, dist == 300 ? 0 : INF_INVALID) ==
          (dist == 300 ? w.b.len - 16 : 0));
    buf_finish(&w.b);
  }
  CHECK(m.used == 0);
}

TEST("inf-2.4") { /* too many length or distance codes */
  mem m;
  tw w;
  uint8_t ll[288], dl[32];
  mem_init(&m, 0);
  tw_plain(ll, dl);
  memset(ll + 258, 0, 30);
  memset(dl + 30, 0, 2);
  tw_init(&w, &m);
  tw_dynamic(&w, 1, ll, 287, dl, 30);
  CHECK(tw_refused(&w));
  tw_init(&w, &m);
  tw_dynamic(&w, 1, ll, 286, dl, 31);
  CHECK(tw_refused(&w));
  tw_init(&w, &m); /* the largest counts are fine */
  tw_dynamic(&w, 1, ll, 286, dl, 30);
  tw_code(&w, 0x1fe, 9);
  tw_end(&w);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  buf_finish(&w.b);
}

/* Code lengths 256 zeros (138 and 118 by code 18), then one 1. */
static void tw_zeros_one(tw *w) {
  tw_clsym(w, 18);
  tw_bits(w, 127, 7);
  tw_clsym(w, 18);
  tw_bits(w, 107, 7);
  tw_clsym(w, 1);
}

TEST("inf-2.5") { /* code-length repeats */
  mem m;
  tw w;
  mem_init(&m, 0);
  /* 16 with no previous length */
  tw_init(&w, &m);
  tw_dhead(&w, 1, 257, 1, tw_cl);
  tw_clsym(&w, 16);
  tw_bits(&w, 0, 2);
  tw_bits(&w, 0, 32);
  CHECK(tw_refused(&w));
  /* a repeat past the last length: 257 + 1 lengths, 18 x 138 twice */
  tw_init(&w, &m);
  tw_dhead(&w, 1, 257, 1, tw_cl);
  tw_clsym(&w, 18);
  tw_bits(&w, 127, 7);
  tw_clsym(&w, 18);
  tw_bits(&w, 127, 7);
  tw_bits(&w, 0, 32);
  CHECK(tw_refused(&w));
  /* 256 zeros, 256 gets 1, then 16 x3: one past the 259 lengths */
  tw_init(&w, &m);
  tw_dhead(&w, 1, 258, 1, tw_cl);
  tw_zeros_one(&w);
  tw_clsym(&w, 16);
  tw_bits(&w, 0, 2);
  tw_bits(&w, 0, 16);
  CHECK(tw_refused(&w));
  /* the same repeat ending exactly at the end, across into the
   * distances: 256 and 257 get 1 bit, and so do distances 0 and 1 */
  tw_init(&w, &m);
  tw_dhead(&w, 1, 258, 2, tw_cl);
  tw_zeros_one(&w);
  tw_clsym(&w, 16);
  tw_bits(&w, 0, 2);
  tw_bits(&w, 0, 1); /* end-of-block */
  tw_end(&w);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  buf_finish(&w.b);
  CHECK(m.used == 0);
}

/* Whether the decoder refuses a final dynamic block, followed by zeros,
 * whose code-length code is cl (lengths then never read), or else whose
 * lengths are ll[0..258) and dl[0..30). */
static int ti_refused(mem *m, const uint8_t *ll, const uint8_t *dl,
                      const uint8_t *cl) {
  tw w;
  tw_init(&w, m);
  if (cl)
    tw_dhead(&w, 1, 257, 1, cl);
  else
    tw_dynamic(&w, 1, ll, 258, dl, 30);
  tw_bits(&w, 0, 32);
  return tw_refused(&w);
}

TEST("inf-2.6") { /* bad codes: over-subscribed, incomplete, no end code */
  mem m;
  uint8_t ll[258], dl[30], cl[19];
  mem_init(&m, 0);
  /* code-length code over-subscribed, incomplete, a single 1-bit code */
  memset(cl, 0, sizeof cl);
  cl[0] = cl[1] = cl[2] = 1;
  CHECK(ti_refused(&m, NULL, NULL, cl));
  cl[2] = 0;
  cl[1] = 2;
  CHECK(ti_refused(&m, NULL, NULL, cl));
  cl[1] = 0;
  CHECK(ti_refused(&m, NULL, NULL, cl));
  /* literal/length code over-subscribed, incomplete; no end-of-block */
  tw_plain(ll, dl);
  ll[0] = 7;
  CHECK(ti_refused(&m, ll, dl, NULL));
  ll[0] = 9;
  CHECK(ti_refused(&m, ll, dl, NULL));
  tw_plain(ll, dl);
  ll[256] = 0;
  ll[257] = 8;
  ll[255] = 8;
  CHECK(ti_refused(&m, ll, dl, NULL));
  /* distance code over-subscribed, incomplete with two codes */
  tw_plain(ll, dl);
  dl[2] = 4;
  CHECK(ti_refused(&m, ll, dl, NULL));
  memset(dl, 0, sizeof dl);
  dl[0] = 1;
  dl[1] = 2;
  CHECK(ti_refused(&m, ll, dl, NULL));
  CHECK(m.used == 0);
}

TEST("inf-2.7") { /* incomplete codes zlib allows, until their gap is met */
  mem m;
  tw w;
  uint8_t ll[258], dl[30];
  int gap;
  mem_init(&m, 0);
  /* a literal/length code of just the end-of-block code, in 1 bit */
  memset(ll, 0, sizeof ll);
  memset(dl, 0, sizeof dl);
  ll[256] = 1;
  for (gap = 0; gap <= 1; gap++) {
    tw_init(&w, &m);
    tw_dynamic(&w, 1, ll, 257, dl, 1);
    tw_bits(&w, (uint32_t)gap, 1);
    tw_end(&w);
    CHECK(ti_check((uint8_t *)w.b.p, w.b.len, gap ? INF_INVALID : 0) ==
          (gap ? 0 : w.b.len));
    buf_finish(&w.b);
  }
  /* one 1-bit distance code (distance 1), then an empty distance code:
   * literals are fine, a match is not */
  tw_plain(ll, dl);
  memset(dl, 0, sizeof dl);
  dl[0] = 1;
  for (gap = 0; gap <= 2; gap++) {
    uint16_t codes[258];
    tw_canon(ll, 258, codes);
    if (gap == 2) dl[0] = 0;
    tw_init(&w, &m);
    tw_dynamic(&w, 1, ll, 258, dl, 1);
    tw_code(&w, codes['q'], 8);
    tw_code(&w, codes[257], 9); /* length 3 */
    tw_bits(&w, gap ? 1 : 0, 1);
    tw_code(&w, codes[256], 9);
    tw_end(&w);
    CHECK(ti_check((uint8_t *)w.b.p, w.b.len, gap ? INF_INVALID : 0) ==
          (gap ? 0 : w.b.len));
    buf_finish(&w.b);
    /* literals only under an empty distance code */
    if (gap == 2) {
      tw_init(&w, &m);
      tw_dynamic(&w, 1, ll, 258, dl, 1);
      tw_code(&w, codes['q'], 8);
      tw_code(&w, codes[256], 9);
      tw_end(&w);
      CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
      buf_finish(&w.b);
    }
  }
  CHECK(m.used == 0);
}

TEST("inf-2.8") { /* an empty code-length code reads lengths of 0, 1 bit each */
  mem m;
  tw w;
  uint8_t cl[19];
  size_t i, full;
  mem_init(&m, 0);
  memset(cl, 0, sizeof cl);
  tw_init(&w, &m);
  tw_dhead(&w, 1, 257, 1, cl);
  tw_bits(&w, 0, 258); /* exactly the 258 bits: a missing end code */
  tw_end(&w);
  full = w.b.len;
  CHECK(ti_check((uint8_t *)w.b.p, full, INF_INVALID) == 0);
  for (i = 0; i < full; i++)
    CHECK(ti_check((uint8_t *)w.b.p, i, INF_TRUNCATED) == 0);
  buf_finish(&w.b);
}

/* ---- truncation, the cap, growth, memory ------------------------------ */

TEST("inf-3.1") { /* truncated at every byte */
  mem m;
  tw w;
  buf t, z;
  size_t i;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  ti_text(&t, 3000, 4);
  ti_deflate(t.p, 700, 6, Z_DEFAULT_STRATEGY, &z); /* dynamic */
  for (i = 0; i < z.len; i++)
    CHECK(ti_check((uint8_t *)z.p, i, INF_TRUNCATED) == 0);
  buf_clear(&z);
  ti_deflate(t.p, 300, 6, Z_FIXED, &z);
  for (i = 0; i < z.len; i++)
    CHECK(ti_check((uint8_t *)z.p, i, INF_TRUNCATED) == 0);
  buf_clear(&z);
  ti_deflate(t.p, 200, 0, Z_DEFAULT_STRATEGY, &z); /* stored */
  for (i = 0; i < z.len; i++)
    CHECK(ti_check((uint8_t *)z.p, i, INF_TRUNCATED) == 0);
  /* a fault after the cut is still truncation */
  tw_init(&w, &m);
  tw_bits(&w, 3, 3);
  tw_fsym(&w, 'a');
  tw_fmatch(&w, 3, 9000); /* too far back, but only once it is all read */
  tw_end(&w);
  for (i = 0; i < w.b.len; i++)
    CHECK(ti_check((uint8_t *)w.b.p, i, INF_TRUNCATED) == 0);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, INF_INVALID) == 0);
  buf_finish(&w.b);
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

TEST("inf-3.2") { /* the cap */
  mem m;
  buf t, z, o;
  size_t used, caps[] = {0, 1, 4095, 9999, 10000, 10001};
  int why, i, room;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  ti_text(&t, 10000, 5);
  ti_deflate(t.p, t.len, 6, Z_DEFAULT_STRATEGY, &z);
  for (room = 0; room <= 1; room++) {
    for (i = 0; i < 6; i++) {
      buf_init(&o, &m);
      if (room) buf_reserve(&o, 50000); /* the cap, not the room, rules */
      why = 0;
      if (caps[i] < 10000) {
        CHECK(inf_raw((uint8_t *)z.p, z.len, &o, caps[i], &used, &why) ==
              MSB_ECORRUPT);
        CHECK(why == INF_CAPPED);
        CHECK(o.len <= caps[i] && !memcmp(o.p ? o.p : "", t.p, o.len));
        if (!room) CHECK(o.cap <= caps[i] + 1);
      } else {
        CHECK(inf_raw((uint8_t *)z.p, z.len, &o, caps[i], &used, &why) == 0);
        CHECK(o.len == 10000 && !memcmp(o.p, t.p, o.len));
        if (!room) CHECK(o.cap <= caps[i] + 1);
      }
      buf_finish(&o);
    }
  }
  /* a bomb: a cap of 1 MiB stops 16 MiB of zeros at once */
  {
    uint8_t *zeros = calloc(1, (size_t)16 << 20);
    REQUIRE(zeros);
    buf_clear(&z);
    ti_deflate(zeros, (size_t)16 << 20, 9, Z_DEFAULT_STRATEGY, &z);
    free(zeros);
    buf_init(&o, &m);
    CHECK(inf_raw((uint8_t *)z.p, z.len, &o, 1 << 20, &used, &why) ==
          MSB_ECORRUPT);
    CHECK(why == INF_CAPPED && o.len <= (1 << 20) && o.cap <= (1 << 20) + 1);
    buf_finish(&o);
  }
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

TEST("inf-3.3") { /* output growth: doubling, or the caller's size kept */
  mem m;
  buf t, z, o;
  size_t used, cap;
  int why;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  buf_init(&o, &m);
  ti_text(&t, 1000000, 6);
  ti_deflate(t.p, t.len, 1, Z_DEFAULT_STRATEGY, &z);
  CHECK(inf_raw((uint8_t *)z.p, z.len, &o, (size_t)-1, &used, &why) == 0);
  CHECK(o.len == t.len && !memcmp(o.p, t.p, t.len) && used == z.len);
  CHECK(o.cap < 2 * t.len + 8192);
  buf_finish(&o);
  /* sized exactly (ISIZE told the truth): never grown */
  buf_init(&o, &m);
  o.p = mem_alloc(&m, t.len + 1);
  REQUIRE(o.p);
  o.cap = t.len + 1;
  CHECK(inf_raw((uint8_t *)z.p, z.len, &o, (size_t)-1, &used, &why) == 0);
  CHECK(o.cap == t.len + 1 && o.len == t.len && !memcmp(o.p, t.p, t.len));
  buf_finish(&o);
  /* sized too small (ISIZE lied): grown */
  buf_init(&o, &m);
  buf_reserve(&o, 1000);
  cap = o.cap;
  CHECK(inf_raw((uint8_t *)z.p, z.len, &o, (size_t)-1, &used, &why) == 0);
  CHECK(o.cap > cap && o.len == t.len && !memcmp(o.p, t.p, t.len));
  buf_finish(&o);
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

TEST("inf-3.4") { /* out of memory at every growth, nothing leaked */
  mem m, mz;
  buf t, z, o;
  size_t used;
  long k;
  int why, rc = MSB_ENOMEM;
  mem_init(&mz, 0);
  buf_init(&t, &mz);
  buf_init(&z, &mz);
  ti_text(&t, 300000, 7);
  ti_deflate(t.p, t.len, 6, Z_DEFAULT_STRATEGY, &z);
  for (k = 0; rc == MSB_ENOMEM && k < 100; k++) {
    mem_init(&m, 0);
    m.fail_after = k;
    buf_init(&o, &m);
    rc = inf_raw((uint8_t *)z.p, z.len, &o, (size_t)-1, &used, &why);
    CHECK(rc == 0 || (rc == MSB_ENOMEM && o.err == MSB_ENOMEM));
    if (!rc) CHECK(o.len == t.len && !memcmp(o.p, t.p, t.len));
    buf_finish(&o);
    CHECK(m.used == 0 && m.blocks == 0);
  }
  CHECK(rc == 0 && k > 3);
  /* a byte limit below the output */
  mem_init(&m, 100000);
  buf_init(&o, &m);
  CHECK(inf_raw((uint8_t *)z.p, z.len, &o, (size_t)-1, &used, &why) ==
        MSB_ENOMEM);
  buf_finish(&o);
  CHECK(m.used == 0);
  buf_finish(&t);
  buf_finish(&z);
}

/* ---- every distance and length; long codes ---------------------------- */

TEST("inf-4.1") { /* distances 1..32768 with lengths 3..258 */
  mem m;
  tw w;
  uint8_t *want;
  size_t n = 0, used;
  buf o;
  int d, why;
  mem_init(&m, 0);
  tw_init(&w, &m);
  want = malloc((size_t)8 << 20);
  REQUIRE(want);
  tw_bits(&w, 3, 3);
  for (d = 0; d < 32768; d++) {
    want[n] = (uint8_t)((d * 2654435761u) >> 24);
    tw_fsym(&w, want[n++]);
  }
  for (d = 1; d <= 32768; d++) {
    int len = 3 + d % 256, i;
    tw_fmatch(&w, len, d);
    for (i = 0; i < len; i++, n++) want[n] = want[n - (size_t)d];
  }
  tw_fsym(&w, 256);
  tw_end(&w);
  buf_init(&o, &m);
  CHECK(inf_raw((uint8_t *)w.b.p, w.b.len, &o, (size_t)-1, &used, &why) == 0);
  CHECK(o.len == n && !memcmp(o.p, want, n) && used == w.b.len);
  buf_finish(&o);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  free(want);
  buf_finish(&w.b);
  CHECK(m.used == 0);
}

TEST("inf-4.2") { /* codes of every length to 15 bits (subtables) */
  mem m;
  tw w;
  uint8_t ll[270], dl[30];
  uint16_t lc[270], dc[30];
  int i, j;
  mem_init(&m, 0);
  /* literals 'a'.. get lengths 1..14, end-of-block and length 3 get 15;
   * distances 0..13 get 1..14, distances 14 and 15 get 15 */
  memset(ll, 0, sizeof ll);
  memset(dl, 0, sizeof dl);
  for (i = 0; i < 14; i++) ll['a' + i] = (uint8_t)(i + 1);
  ll[256] = ll[257] = 15;
  for (i = 0; i < 14; i++) dl[i] = (uint8_t)(i + 1);
  dl[14] = dl[15] = 15;
  tw_canon(ll, 258, lc);
  tw_canon(dl, 16, dc);
  tw_init(&w, &m);
  tw_dynamic(&w, 1, ll, 258, dl, 16);
  for (j = 0; j < 40; j++) {
    for (i = 0; i < 14; i++) tw_code(&w, lc['a' + i], ll['a' + i]);
    tw_code(&w, lc[257], 15);
    tw_code(&w, dc[j % 16], dl[j % 16]);
    tw_bits(&w, 0, j % 16 < 4 ? 0 : (j % 16 - 2) / 2);
  }
  tw_code(&w, lc[256], 15);
  tw_end(&w);
  CHECK(ti_check((uint8_t *)w.b.p, w.b.len, 0) == w.b.len);
  buf_finish(&w.b);
  CHECK(m.used == 0);
}

TEST("inf-4.3") { /* zlib round trips of assorted data */
  mem m;
  buf t, z;
  int i, k;
  uint32_t x = 1;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  for (k = 0; k < 6; k++) {
    buf_clear(&t);
    for (i = 0; i < 100000 * (k + 1); i++) {
      x = x * 1664525 + 1013904223;
      /* from random bytes (k = 0) to long runs (k = 5) */
      buf_putc(&t, (int)(x >> 24) % (k * 60 + 1) < 60 ? (int)(x >> 16) : 'r');
    }
    buf_clear(&z);
    ti_deflate(t.p, t.len, k + 1, Z_DEFAULT_STRATEGY, &z);
    buf_put(&z, "trailer!", 8);
    CHECK(ti_check((uint8_t *)z.p, z.len, 0) == z.len - 8);
  }
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}

/* ---- watchers ---------------------------------------------------------- */

/* A watcher that lets go of everything it may, folding what goes into a
 * CRC-32, and stops once the output passes stop_at (0: never). */
typedef struct ti_watcher {
  uint32_t crc;
  uint64_t gone, calls, stop_at;
} ti_watcher;

static int ti_watch_fn(void *ctx, inf_look *l) {
  ti_watcher *w = ctx;
  size_t d = l->out->len > INF_WINDOW ? l->out->len - INF_WINDOW : 0;
  w->calls++;
  if (w->stop_at && w->gone + l->out->len > w->stop_at) return 1;
  w->crc = (uint32_t)crc32(w->crc, (const Bytef *)l->out->p, (uInt)d);
  w->gone += d;
  l->drop = d;
  return 0;
}

TEST("inf-5.1") { /* a watcher's drops leave every byte decoded right */
  mem m;
  buf t, z, o;
  ti_watcher w;
  inf_watch iw;
  size_t used, i;
  int why, k;
  uint32_t x = 7;
  mem_init(&m, 0);
  buf_init(&t, &m);
  buf_init(&z, &m);
  /* random bytes with copies from far back: matches cross every drop */
  for (i = 0; i < 20000; i++) {
    x = x * 1664525 + 1013904223;
    buf_putc(&t, (int)(x >> 24));
  }
  buf_reserve(&t, (size_t)61 * 20000); /* the copies read t itself */
  for (k = 0; k < 60; k++) buf_put(&t, t.p + (k * 997) % 20000, 20000);
  ti_deflate(t.p, t.len, 6, Z_DEFAULT_STRATEGY, &z);
  for (k = 0; k < 3; k++) {
    memset(&w, 0, sizeof w);
    memset(&iw, 0, sizeof iw);
    iw.fn = ti_watch_fn;
    iw.ctx = &w;
    iw.first = k ? 1 : 100000;
    iw.every = k == 2 ? 1 : 65536;
    buf_init(&o, &m);
    CHECK(inf_raw_watch((uint8_t *)z.p, z.len, &o, (size_t)-1, &iw, &used,
                        &why) == 0);
    CHECK(used == z.len && w.calls > 0);
    CHECK(w.gone + o.len == t.len);
    CHECK((uint32_t)crc32(w.crc, (const Bytef *)o.p, (uInt)o.len) ==
          (uint32_t)crc32(0, (const Bytef *)t.p, (uInt)t.len));
    CHECK(o.cap < t.len / 4); /* the output held a window, not the stream */
    buf_finish(&o);
  }
  /* the cap counts the dropped bytes too */
  memset(&w, 0, sizeof w);
  iw.first = iw.every = 65536;
  buf_init(&o, &m);
  CHECK(inf_raw_watch((uint8_t *)z.p, z.len, &o, t.len - 1, &iw, &used, &why) ==
            MSB_ECORRUPT &&
        why == INF_CAPPED);
  buf_finish(&o);
  /* a watcher stops the stream at once */
  memset(&w, 0, sizeof w);
  w.stop_at = 300000;
  buf_init(&o, &m);
  CHECK(inf_raw_watch((uint8_t *)z.p, z.len, &o, (size_t)-1, &iw, &used,
                      &why) == MSB_ECORRUPT &&
        why == INF_STOPPED);
  CHECK(w.gone + o.len <= w.stop_at + 65536 + 258);
  buf_finish(&o);
  buf_finish(&t);
  buf_finish(&z);
  CHECK(m.used == 0);
}
