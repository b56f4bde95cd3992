/* sha256.c - SHA-256 (FIPS 180-4), streaming.
 *
 * The block function runs its 64 rounds as straight-line code over a
 * 16-word schedule ring; whole blocks are compressed straight from the
 * caller's data, only the tail is buffered. */
#include "sha256.h"

#include <string.h>

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t sha256_rotr(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

static uint32_t sha256_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

/* One round with the eight working variables renamed instead of shifted:
 * the new e lands in d and the new a in h, so the next round is the same
 * macro with the names rotated by one (no register moves). */
#define SHA256_S0(x) \
  (sha256_rotr(x, 2) ^ sha256_rotr(x, 13) ^ sha256_rotr(x, 22))
#define SHA256_S1(x) \
  (sha256_rotr(x, 6) ^ sha256_rotr(x, 11) ^ sha256_rotr(x, 25))
#define SHA256_R(a, b, c, d, e, f, g, h, j)                                 \
  do {                                                                      \
    uint32_t t_ =                                                           \
        h + SHA256_S1(e) + (g ^ (e & (f ^ g))) + sha256_k[j] + w[(j) & 15]; \
    d += t_;                                                                \
    h = t_ + SHA256_S0(a) + ((a & b) | (c & (a | b)));                      \
  } while (0)
/* The message schedule kept as a 16-word ring, extended in place. */
#define SHA256_W(j)                                                           \
  do {                                                                        \
    uint32_t x_ = w[((j) - 15) & 15], y_ = w[((j) - 2) & 15];                 \
    w[(j) & 15] += (sha256_rotr(y_, 17) ^ sha256_rotr(y_, 19) ^ (y_ >> 10)) + \
                   w[((j) - 7) & 15] +                                        \
                   (sha256_rotr(x_, 7) ^ sha256_rotr(x_, 18) ^ (x_ >> 3));    \
  } while (0)
#define SHA256_R8(j, W)                      \
  do {                                       \
    W(j);                                    \
    SHA256_R(a, b, c, d, e, f, g, h, j);     \
    W(j + 1);                                \
    SHA256_R(h, a, b, c, d, e, f, g, j + 1); \
    W(j + 2);                                \
    SHA256_R(g, h, a, b, c, d, e, f, j + 2); \
    W(j + 3);                                \
    SHA256_R(f, g, h, a, b, c, d, e, j + 3); \
    W(j + 4);                                \
    SHA256_R(e, f, g, h, a, b, c, d, j + 4); \
    W(j + 5);                                \
    SHA256_R(d, e, f, g, h, a, b, c, j + 5); \
    W(j + 6);                                \
    SHA256_R(c, d, e, f, g, h, a, b, j + 6); \
    W(j + 7);                                \
    SHA256_R(b, c, d, e, f, g, h, a, j + 7); \
  } while (0)
#define SHA256_NOW(j) ((void)0)

/* Straight-line rounds: hashing file contents dominates restore (the root
 * hash check) and seeding, and in WebAssembly the unrolled form runs
 * markedly faster than a loop that shifts eight variables per round. */
static void sha256_block(uint32_t st[8], const uint8_t *p) {
  uint32_t w[16], a, b, c, d, e, f, g, h;
  int i;
  for (i = 0; i < 16; i++) w[i] = sha256_be32(p + 4 * i);
  a = st[0], b = st[1], c = st[2], d = st[3];
  e = st[4], f = st[5], g = st[6], h = st[7];
  SHA256_R8(0, SHA256_NOW);
  SHA256_R8(8, SHA256_NOW);
  for (i = 16; i < 64; i += 8) SHA256_R8(i, SHA256_W);
  st[0] += a, st[1] += b, st[2] += c, st[3] += d;
  st[4] += e, st[5] += f, st[6] += g, st[7] += h;
}

void sha256_init(sha256_ctx *c) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, iv, sizeof iv);
  c->total = 0;
  c->n = 0;
}

void sha256_update(sha256_ctx *c, const void *data, size_t len) {
  const uint8_t *p = data;
  c->total += len;
  if (c->n) {
    size_t k = 64 - c->n;
    if (k > len) k = len;
    memcpy(c->blk + c->n, p, k);
    c->n += k, p += k, len -= k;
    if (c->n < 64) return;
    sha256_block(c->h, c->blk);
    c->n = 0;
  }
  for (; len >= 64; p += 64, len -= 64) sha256_block(c->h, p);
  if (len) memcpy(c->blk, p, len);
  c->n = len;
}

void sha256_final(sha256_ctx *c, uint8_t out[32]) {
  uint64_t bits = c->total * 8;
  int i;
  c->blk[c->n++] = 0x80;
  if (c->n > 56) {
    memset(c->blk + c->n, 0, 64 - c->n);
    sha256_block(c->h, c->blk);
    c->n = 0;
  }
  memset(c->blk + c->n, 0, 56 - c->n);
  for (i = 0; i < 8; i++) c->blk[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  sha256_block(c->h, c->blk);
  for (i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(c->h[i] >> 24);
    out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
    out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
    out[4 * i + 3] = (uint8_t)c->h[i];
  }
}

void sha256_digest(const void *data, size_t len, uint8_t out[32]) {
  sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, data, len);
  sha256_final(&c, out);
}

/* Starts a directory digest: the prefix with its NUL. */
void sha256_dir_init(sha256_ctx *c) {
  static const char pre[] = "mem-sandbox-directory-v1";
  sha256_init(c);
  sha256_update(c, pre, sizeof pre);
}

/* One entry's kind and name (its digest follows from the caller). */
void sha256_dir_entry(sha256_ctx *c, int kind, const void *name, uint32_t nl) {
  uint8_t hd[5];
  hd[0] = (uint8_t)kind;
  hd[1] = (uint8_t)(nl >> 24);
  hd[2] = (uint8_t)(nl >> 16);
  hd[3] = (uint8_t)(nl >> 8);
  hd[4] = (uint8_t)nl;
  sha256_update(c, hd, 5);
  sha256_update(c, name, nl);
}
