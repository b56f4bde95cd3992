/* abi.h - memory layouts of the records the WebAssembly ABI exchanges.
 *
 * JavaScript talks to the module with 32-bit integers only: pointers into
 * linear memory, lengths, codes and flags. Anything wider or structured goes
 * through a record at a pointer the host allocated with msb_wasm_alloc, laid
 * out here with explicit byte offsets (little-endian, as wasm memory is).
 * 64-bit values sit at 8-byte aligned offsets. The build turns every
 * MSB_WASM_* macro below into build/wasm/constants.json, so the JS package
 * repeats no number from this file. */
#ifndef MSB_WASM_ABI_H
#define MSB_WASM_ABI_H

/* Linear memory the module declares as its minimum (64 KiB pages); the
 * Makefile links both builds with it and the loader creates each memory with
 * at least this much. */
#define MSB_WASM_INITIAL_PAGES 32

/* Open record: 64-bit slots. Slot PROFILE picks the base limits, CLOCK is the
 * sandbox clock in ns, SEED seeds randomness, and from slot LIMITS on, one
 * slot per msb_limits field in declaration order; a slot holding all ones
 * (-1) keeps the profile's value. */
#define MSB_WASM_OPEN_PROFILE 0
#define MSB_WASM_OPEN_CLOCK 1
#define MSB_WASM_OPEN_SEED 2
#define MSB_WASM_OPEN_LIMITS 3
#define MSB_WASM_OPEN_SLOTS 17

/* Blob record: a buffer the sandbox returned (caller frees with
 * msb_wasm_sb_free), its length, and an item count where one applies. */
#define MSB_WASM_BLOB_PTR 0
#define MSB_WASM_BLOB_LEN 4
#define MSB_WASM_BLOB_COUNT 8
#define MSB_WASM_BLOB_SIZE 12

/* Stat record. */
#define MSB_WASM_STAT_KIND 0   /* i32 */
#define MSB_WASM_STAT_MODE 4   /* u32 */
#define MSB_WASM_STAT_SIZE 8   /* u64 */
#define MSB_WASM_STAT_MTIME 16 /* i64, ns */
#define MSB_WASM_STAT_NODES 24 /* u64 */
#define MSB_WASM_STAT_BYTES 32 /* u64 */
#define MSB_WASM_STAT_RECORD 40

/* Exec options record: u32 fields. ENV and SECRETS point at arrays of
 * pointers to NUL-terminated "NAME=value" strings. */
#define MSB_WASM_OPTS_STDIN 0
#define MSB_WASM_OPTS_STDIN_LEN 4
#define MSB_WASM_OPTS_CWD 8 /* 0 = the session's cwd */
#define MSB_WASM_OPTS_FRESH 12
#define MSB_WASM_OPTS_ATOMIC 16
#define MSB_WASM_OPTS_ENV 20
#define MSB_WASM_OPTS_ENV_COUNT 24
#define MSB_WASM_OPTS_SECRETS 28
#define MSB_WASM_OPTS_SECRET_COUNT 32
#define MSB_WASM_OPTS_SIZE 36

/* Exec result record. OUT, ERR and CWD are sandbox buffers released by
 * msb_wasm_result_finish; LIMIT is a static string or 0. REVISION is the
 * workspace revision after the run. */
#define MSB_WASM_RES_EXIT 0
#define MSB_WASM_RES_OUT 4
#define MSB_WASM_RES_OUT_LEN 8
#define MSB_WASM_RES_ERR 12
#define MSB_WASM_RES_ERR_LEN 16
#define MSB_WASM_RES_OUT_TRUNC 20
#define MSB_WASM_RES_ERR_TRUNC 24
#define MSB_WASM_RES_CWD 28
#define MSB_WASM_RES_LIMIT 32
#define MSB_WASM_RES_ROLLED_BACK 36
#define MSB_WASM_RES_OUT_TOTAL 40 /* u64 */
#define MSB_WASM_RES_ERR_TOTAL 48 /* u64 */
#define MSB_WASM_RES_REVISION 56  /* u64 */
#define MSB_WASM_RES_SIZE 64

/* The exported functions. `sb` is a handle from msb_wasm_open; strings are
 * NUL-terminated; every int return is 0 or a negative MSB_E* code unless
 * said otherwise. The list in wasm/exports.list must match. */
#include <stddef.h>
#include <stdint.h>

#include "memsandbox.h"

/* Host buffers: JS places arguments here. 0 when memory is exhausted. */
void *msb_wasm_alloc(size_t n);
void msb_wasm_free(void *p);
/* Fills slots (MSB_WASM_OPEN_SLOTS - MSB_WASM_OPEN_LIMITS of them) with a
 * profile's limits; returns the number of limit slots or MSB_EINVAL. */
int msb_wasm_limits_get(int profile, uint64_t *slots);
int msb_wasm_open(const uint64_t *rec, msb_sandbox **out);
void msb_wasm_close(msb_sandbox *sb);
const char *msb_wasm_errmsg(msb_sandbox *sb);
const char *msb_wasm_code_name(int code);
const char *msb_wasm_strerror(int code);
/* Frees a buffer the sandbox returned (blob records, readlink). */
void msb_wasm_sb_free(msb_sandbox *sb, void *p);
int msb_wasm_set_clock(msb_sandbox *sb, const int64_t *ns);
int msb_wasm_clock(msb_sandbox *sb, int64_t *ns);
int msb_wasm_memory_used(msb_sandbox *sb, uint64_t *out);
int msb_wasm_revision(msb_sandbox *sb, uint64_t *out);
int msb_wasm_read(msb_sandbox *sb, const char *path, uint8_t *blob);
int msb_wasm_write(msb_sandbox *sb, const char *path, const void *data,
                   size_t len, int cond, const uint8_t *hash, uint32_t mode,
                   unsigned flags);
int msb_wasm_append(msb_sandbox *sb, const char *path, const void *data,
                    size_t len, unsigned flags);
int msb_wasm_stat(msb_sandbox *sb, const char *path, unsigned flags,
                  uint8_t *rec);
int msb_wasm_list(msb_sandbox *sb, const char *path, uint8_t *blob);
int msb_wasm_mkdir(msb_sandbox *sb, const char *path, uint32_t mode,
                   unsigned flags);
int msb_wasm_remove(msb_sandbox *sb, const char *path, unsigned flags);
int msb_wasm_copy(msb_sandbox *sb, const char *src, const char *dst,
                  unsigned flags);
int msb_wasm_move(msb_sandbox *sb, const char *src, const char *dst,
                  unsigned flags);
int msb_wasm_symlink(msb_sandbox *sb, const char *target, const char *linkpath);
int msb_wasm_readlink(msb_sandbox *sb, const char *path, uint8_t *blob);
int msb_wasm_chmod(msb_sandbox *sb, const char *path, uint32_t mode);
int msb_wasm_hash(msb_sandbox *sb, const char *path, uint8_t *out32);
int msb_wasm_root_hash(msb_sandbox *sb, uint8_t *out32);
int msb_wasm_exec(msb_sandbox *sb, const char *script, size_t len,
                  const uint8_t *opts, uint8_t *res);
void msb_wasm_result_finish(msb_sandbox *sb, uint8_t *res);
int msb_wasm_parse_check(msb_sandbox *sb, const char *script, size_t len);
int msb_wasm_apply_patch(msb_sandbox *sb, const char *text, size_t len,
                         const char *cwd, unsigned flags, uint8_t *blob);
const char *msb_wasm_session_cwd(msb_sandbox *sb);
int msb_wasm_session_env(msb_sandbox *sb, uint8_t *blob);
int msb_wasm_checkpoint(msb_sandbox *sb, uint32_t *id);
int msb_wasm_rollback(msb_sandbox *sb, uint32_t id);
int msb_wasm_release(msb_sandbox *sb, uint32_t id);
int msb_wasm_snapshot(msb_sandbox *sb, int level, uint8_t *blob);
int msb_wasm_restore(msb_sandbox *sb, const uint8_t *data, size_t len);
int msb_wasm_fork(msb_sandbox *sb, msb_sandbox **out);
int msb_wasm_set_policy(msb_sandbox *sb, const char *text, size_t len);
int msb_wasm_events_take(msb_sandbox *sb, uint8_t *blob);

#endif
