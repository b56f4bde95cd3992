/* sha256.h - SHA-256 (FIPS 180-4), streaming.
 *
 * Used for file and directory hashes (vfs), sha256sum and anything else
 * that needs a content digest. No allocation; the context lives on the
 * caller's stack. */
#ifndef MSB_SHA256_H
#define MSB_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
  uint32_t h[8];
  uint64_t total; /* bytes hashed so far */
  uint8_t blk[64];
  size_t n;       /* bytes waiting in blk */
} sha256_ctx;

/* Starts a new digest. */
void sha256_init(sha256_ctx *c);
/* Feeds len bytes (data may be NULL when len is 0). */
void sha256_update(sha256_ctx *c, const void *data, size_t len);
/* Finishes and writes the 32-byte digest; c must be re-initialised to be
 * used again. */
void sha256_final(sha256_ctx *c, uint8_t out[32]);
/* One-shot digest of a byte range. */
void sha256_digest(const void *data, size_t len, uint8_t out[32]);

/* A directory's digest, the reference product's construction: after
 * sha256_dir_init, per entry in byte order of names sha256_dir_entry
 * (kind 'F', 'D' or 'L', the name) then the entry's own 32-byte digest
 * through sha256_update; sha256_final ends it. The filesystem's hashes and
 * the checks of content-addressed state (cas.c) share it. */
void sha256_dir_init(sha256_ctx *c);
void sha256_dir_entry(sha256_ctx *c, int kind, const void *name, uint32_t nl);

#endif
