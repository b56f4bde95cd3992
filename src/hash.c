/* hash.c - MD5, SHA-1, SHA-224, SHA-384, SHA-512, BLAKE2b and the POSIX
 * cksum CRC.
 *
 * All one-shot over a byte range: commands hold whole inputs in memory
 * (files are zero-copy views), so no streaming state is needed. Each
 * digest processes full blocks straight from the input and pads the tail
 * in a local block. */
#include "hash.h"

#include <string.h>

#include "sha256.h"

static uint32_t hash_rol32(uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}

static uint64_t hash_ror64(uint64_t x, int n) {
  return (x >> n) | (x << (64 - n));
}

/* Builds the padded tail: the remaining bytes, 0x80, zeros and the bit
 * length (big- or little-endian, 8 or 16 bytes). Returns its block count. */
static size_t hash_tail(const uint8_t *p, size_t rem, uint64_t len, size_t blk,
                        int big, uint8_t *tail) {
  size_t n = rem + 1 + (blk == 128 ? 16 : 8);
  size_t total = (n + blk - 1) / blk * blk;
  uint64_t bits = len * 8;
  int i;
  memset(tail, 0, total);
  memcpy(tail, p, rem);
  tail[rem] = 0x80;
  for (i = 0; i < 8; i++) {
    if (big)
      tail[total - 1 - i] = (uint8_t)(bits >> (8 * i));
    else
      tail[total - 8 + i] = (uint8_t)(bits >> (8 * i));
  }
  return total / blk;
}

/* ---- MD5 ---- */

static const uint32_t hash_md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
static const int hash_md5_r[16] = {7, 12, 17, 22, 5, 9,  14, 20,
                                   4, 11, 16, 23, 6, 10, 15, 21};

static void hash_md5_block(uint32_t h[4], const uint8_t *p) {
  uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], f, t;
  int i, g;
  for (i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
           (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
  for (i = 0; i < 64; i++) {
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    t = d;
    d = c;
    c = b;
    b += hash_rol32(a + f + hash_md5_k[i] + w[g],
                    hash_md5_r[(i / 16) * 4 + i % 4]);
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
}

void hash_md5(const void *data, size_t len, uint8_t out[16]) {
  const uint8_t *p = data;
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  uint8_t tail[128];
  size_t i, full = len / 64, n;
  for (i = 0; i < full; i++) hash_md5_block(h, p + 64 * i);
  n = hash_tail(p + 64 * full, len % 64, len, 64, 0, tail);
  for (i = 0; i < n; i++) hash_md5_block(h, tail + 64 * i);
  for (i = 0; i < 16; i++) out[i] = (uint8_t)(h[i / 4] >> (8 * (i % 4)));
}

/* ---- SHA-1 ---- */

static void hash_sha1_block(uint32_t h[5], const uint8_t *p) {
  uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f, k, t;
  int i;
  for (i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
  for (i = 16; i < 80; i++)
    w[i] = hash_rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  for (i = 0; i < 80; i++) {
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5a827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ed9eba1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d;
      k = 0xca62c1d6;
    }
    t = hash_rol32(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = hash_rol32(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

void hash_sha1(const void *data, size_t len, uint8_t out[20]) {
  const uint8_t *p = data;
  uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  uint8_t tail[128];
  size_t i, full = len / 64, n;
  for (i = 0; i < full; i++) hash_sha1_block(h, p + 64 * i);
  n = hash_tail(p + 64 * full, len % 64, len, 64, 1, tail);
  for (i = 0; i < n; i++) hash_sha1_block(h, tail + 64 * i);
  for (i = 0; i < 20; i++) out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
}

/* ---- SHA-512 ---- */

static const uint64_t hash_sha512_k[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
    0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
    0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
    0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
    0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
    0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
    0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
    0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
    0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
    0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
    0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
    0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
    0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
    0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
    0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
    0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
    0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
    0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
    0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
    0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
    0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

static void hash_sha512_block(uint64_t h[8], const uint8_t *p) {
  uint64_t w[80], v[8], s0, s1, t1, t2;
  int i, j;
  for (i = 0; i < 16; i++) {
    w[i] = 0;
    for (j = 0; j < 8; j++) w[i] = w[i] << 8 | p[8 * i + j];
  }
  for (i = 16; i < 80; i++) {
    s0 = hash_ror64(w[i - 15], 1) ^ hash_ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
    s1 = hash_ror64(w[i - 2], 19) ^ hash_ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(v, h, sizeof v);
  for (i = 0; i < 80; i++) {
    s1 = hash_ror64(v[4], 14) ^ hash_ror64(v[4], 18) ^ hash_ror64(v[4], 41);
    t1 = v[7] + s1 + ((v[4] & v[5]) ^ (~v[4] & v[6])) + hash_sha512_k[i] + w[i];
    s0 = hash_ror64(v[0], 28) ^ hash_ror64(v[0], 34) ^ hash_ror64(v[0], 39);
    t2 = s0 + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
    memmove(v + 1, v, 7 * sizeof v[0]);
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (i = 0; i < 8; i++) h[i] += v[i];
}

/* SHA-512 and SHA-384 differ in their start and in how much they keep. */
static void hash_sha512_iv(const void *data, size_t len, const uint64_t iv[8],
                           uint8_t *out, size_t outlen) {
  const uint8_t *p = data;
  uint64_t h[8];
  uint8_t tail[256];
  size_t i, full = len / 128, n;
  memcpy(h, iv, sizeof h);
  for (i = 0; i < full; i++) hash_sha512_block(h, p + 128 * i);
  n = hash_tail(p + 128 * full, len % 128, len, 128, 1, tail);
  for (i = 0; i < n; i++) hash_sha512_block(h, tail + 128 * i);
  for (i = 0; i < outlen; i++)
    out[i] = (uint8_t)(h[i / 8] >> (56 - 8 * (i % 8)));
}

void hash_sha512(const void *data, size_t len, uint8_t out[64]) {
  static const uint64_t iv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                                 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
  hash_sha512_iv(data, len, iv, out, 64);
}

void hash_sha384(const void *data, size_t len, uint8_t out[48]) {
  static const uint64_t iv[8] = {0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL,
                                 0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
                                 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
                                 0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL};
  hash_sha512_iv(data, len, iv, out, 48);
}

void hash_sha224(const void *data, size_t len, uint8_t out[28]) {
  static const uint32_t iv[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17,
                                 0xf70e5939, 0xffc00b31, 0x68581511,
                                 0x64f98fa7, 0xbefa4fa4};
  sha256_ctx c;
  uint8_t full[32];
  sha256_init(&c);
  memcpy(c.h, iv, sizeof iv);
  sha256_update(&c, data, len);
  sha256_final(&c, full);
  memcpy(out, full, 28);
}

/* ---- BLAKE2b (RFC 7693) ---- */

static const uint64_t hash_b2_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
    0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
    0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const uint8_t hash_b2_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static uint64_t hash_rotr64(uint64_t x, int n) {
  return x >> n | x << (64 - n);
}

static void hash_b2_g(uint64_t *v, int a, int b, int c, int d, uint64_t x,
                      uint64_t y) {
  v[a] += v[b] + x;
  v[d] = hash_rotr64(v[d] ^ v[a], 32);
  v[c] += v[d];
  v[b] = hash_rotr64(v[b] ^ v[c], 24);
  v[a] += v[b] + y;
  v[d] = hash_rotr64(v[d] ^ v[a], 16);
  v[c] += v[d];
  v[b] = hash_rotr64(v[b] ^ v[c], 63);
}

/* Compresses one 128-byte block; t is the byte count so far. */
static void hash_b2_block(uint64_t h[8], const uint8_t *p, uint64_t t,
                          int last) {
  uint64_t v[16], m[16];
  int i, r;
  for (i = 0; i < 16; i++) {
    int k;
    m[i] = 0;
    for (k = 7; k >= 0; k--) m[i] = m[i] << 8 | p[8 * i + k];
  }
  memcpy(v, h, 64);
  memcpy(v + 8, hash_b2_iv, 64);
  v[12] ^= t;
  if (last) v[14] = ~v[14];
  for (r = 0; r < 12; r++) {
    const uint8_t *s = hash_b2_sigma[r];
    hash_b2_g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    hash_b2_g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    hash_b2_g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    hash_b2_g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    hash_b2_g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    hash_b2_g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    hash_b2_g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    hash_b2_g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

void hash_blake2b(const void *data, size_t len, uint8_t *out, size_t outlen) {
  const uint8_t *p = data;
  uint64_t h[8];
  uint8_t blk[128];
  size_t i, done = 0;
  memcpy(h, hash_b2_iv, sizeof h);
  h[0] ^= 0x01010000u ^ (uint64_t)outlen;
  while (len - done > 128) {
    hash_b2_block(h, p + done, done + 128, 0);
    done += 128;
  }
  memset(blk, 0, sizeof blk);
  memcpy(blk, p + done, len - done);
  hash_b2_block(h, blk, len, 1);
  for (i = 0; i < outlen; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

/* ---- cksum ---- */

static uint32_t hash_crc_byte(uint32_t crc, uint8_t b) {
  int i;
  crc ^= (uint32_t)b << 24;
  for (i = 0; i < 8; i++)
    crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
  return crc;
}

uint32_t hash_cksum(const void *data, size_t len) {
  const uint8_t *p = data;
  uint32_t crc = 0, table[256];
  uint64_t n;
  size_t i;
  for (i = 0; i < 256; i++) table[i] = hash_crc_byte(0, (uint8_t)i);
  for (i = 0; i < len; i++) crc = crc << 8 ^ table[(crc >> 24) ^ p[i]];
  for (n = len; n; n >>= 8) crc = crc << 8 ^ table[(crc >> 24) ^ (n & 0xff)];
  return ~crc;
}
