/* hash.h - MD5 (RFC 1321), SHA-1, SHA-224, SHA-384, SHA-512 (FIPS 180-4)
 * and BLAKE2b (RFC 7693),
 * one-shot, for the checksum commands. SHA-256 lives in sha256.h because
 * the filesystem hashes with it. */
#ifndef MSB_HASH_H
#define MSB_HASH_H

#include <stddef.h>
#include <stdint.h>

void hash_md5(const void *data, size_t len, uint8_t out[16]);
void hash_sha1(const void *data, size_t len, uint8_t out[20]);
void hash_sha512(const void *data, size_t len, uint8_t out[64]);
void hash_sha384(const void *data, size_t len, uint8_t out[48]);
void hash_sha224(const void *data, size_t len, uint8_t out[28]);
/* BLAKE2b (RFC 7693) without a key; outlen 1..64 bytes. */
void hash_blake2b(const void *data, size_t len, uint8_t *out, size_t outlen);
/* POSIX cksum CRC (polynomial 0x04C11DB7, length appended). */
uint32_t hash_cksum(const void *data, size_t len);

#endif
