/* abi.h - memory layouts of the records the WebAssembly ABI exchanges.
 *
 * JavaScript talks to the module with 32-bit integers only: pointers into
 * linear memory, lengths, codes and flags. Anything wider or structured goes
 * through a record at a pointer the host allocated (MSB_WASM_OP_ALLOC), laid
 * out here with explicit byte offsets (little-endian, as wasm memory is).
 * 64-bit values sit at 8-byte aligned offsets. The build turns every
 * MSB_WASM_* macro below into build/wasm/constants.json, so the JS package
 * repeats no number from this file. */
#ifndef MSB_WASM_ABI_H
#define MSB_WASM_ABI_H

/* Linear memory the module declares as its minimum (64 KiB pages); the
 * Makefile links both builds with it and the loader creates each memory with
 * this much. The 1 MiB stack (16 pages), the static data (4) and an idle
 * sandbox's heap, with the room a fork's first commands use (state-1.6
 * checks a fork does not grow), fit; less committed memory makes a new
 * WebAssembly.Memory cheaper (V8 charges it to the GC). */
#define MSB_WASM_INITIAL_PAGES 22

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
 * MSB_WASM_OP_SB_FREE), its length, and an item count where one applies. */
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
#define MSB_WASM_OPTS_ARG0 36 /* 0 = "bash" */
#define MSB_WASM_OPTS_SIZE 40

/* Exec result record. OUT, ERR and CWD are sandbox buffers released by
 * MSB_WASM_OP_RESULT_FINISH; LIMIT is a static string or 0. REVISION is the
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
#define MSB_WASM_RES_FAILURE 64
#define MSB_WASM_RES_SIZE 72

/* The one exported call besides the reactor's _initialize:
 *
 *   int32_t msb_wasm_call(int32_t op, int32_t a, b, c, d, e, f, g, h)
 *
 * Engines build a JS wrapper for every exported function each time a
 * module is instantiated (about 1.5 us per export in V8, measured), and
 * every sandbox is a fresh instance, so the operations share one export.
 * op is an MSB_WASM_OP_* below; a..h are its arguments in the order shown
 * (missing ones read as 0). sb is a handle from OPEN; strings are
 * NUL-terminated; the result is 0 or a negative MSB_E* code unless said
 * otherwise. Blob records hold buffers the sandbox owns: release them with
 * SB_FREE. */
#define MSB_WASM_OP_ALLOC 1       /* (n) -> host buffer, 0 when exhausted */
#define MSB_WASM_OP_FREE 2        /* (p); 0 is accepted */
#define MSB_WASM_OP_LIMITS_GET 3  /* (profile, u64 slots[]) -> slot count */
#define MSB_WASM_OP_OPEN 4        /* (open record, u32 *handle) */
#define MSB_WASM_OP_CLOSE 5       /* (sb) */
#define MSB_WASM_OP_ERRMSG 6      /* (sb) -> borrowed message */
#define MSB_WASM_OP_CODE_NAME 7   /* (code) -> static name */
#define MSB_WASM_OP_STRERROR 8    /* (code) -> static description */
#define MSB_WASM_OP_SB_FREE 9     /* (sb, p): a buffer the sandbox returned */
#define MSB_WASM_OP_SET_CLOCK 10  /* (sb, i64 *ns) */
#define MSB_WASM_OP_CLOCK 11      /* (sb, i64 *ns) */
#define MSB_WASM_OP_MEMORY_USED 12 /* (sb, u64 *bytes) */
#define MSB_WASM_OP_REVISION 13   /* (sb, u64 *revision) */
#define MSB_WASM_OP_READ 14       /* (sb, path, blob) */
/* (sb, path, data, len, cond, hash, mode, flags) */
#define MSB_WASM_OP_WRITE 15
#define MSB_WASM_OP_APPEND 16     /* (sb, path, data, len, flags) */
#define MSB_WASM_OP_STAT 17       /* (sb, path, flags, stat record) */
#define MSB_WASM_OP_LIST 18       /* (sb, path, blob) */
#define MSB_WASM_OP_MKDIR 19      /* (sb, path, mode, flags) */
#define MSB_WASM_OP_REMOVE 20     /* (sb, path, flags) */
#define MSB_WASM_OP_COPY 21       /* (sb, src, dst, flags) */
#define MSB_WASM_OP_MOVE 22       /* (sb, src, dst, flags) */
#define MSB_WASM_OP_SYMLINK 23    /* (sb, target, linkpath) */
#define MSB_WASM_OP_READLINK 24   /* (sb, path, blob) */
#define MSB_WASM_OP_CHMOD 25      /* (sb, path, mode) */
#define MSB_WASM_OP_HASH 26       /* (sb, path, u8 out[32]) */
#define MSB_WASM_OP_ROOT_HASH 27  /* (sb, u8 out[32]) */
#define MSB_WASM_OP_EXEC 28       /* (sb, script, len, options, result) */
#define MSB_WASM_OP_RESULT_FINISH 29 /* (sb, result) */
#define MSB_WASM_OP_PARSE_CHECK 30 /* (sb, script, len) */
#define MSB_WASM_OP_APPLY_PATCH 31 /* (sb, text, len, cwd, flags, blob) */
#define MSB_WASM_OP_SESSION_CWD 32 /* (sb) -> borrowed cwd */
#define MSB_WASM_OP_SESSION_ENV 33 /* (sb, blob) */
#define MSB_WASM_OP_CHECKPOINT 34 /* (sb, u32 *id) */
#define MSB_WASM_OP_ROLLBACK 35   /* (sb, id) */
#define MSB_WASM_OP_RELEASE 36    /* (sb, id) */
#define MSB_WASM_OP_SNAPSHOT 37   /* (sb, level, blob) */
#define MSB_WASM_OP_RESTORE 38    /* (sb, data, len) */
#define MSB_WASM_OP_FORK 39       /* (sb, u32 *handle) */
#define MSB_WASM_OP_SET_POLICY 40 /* (sb, text, len) */
#define MSB_WASM_OP_EVENTS_TAKE 41 /* (sb, blob) */
/* () before the host copies the memory (a memory fork): zeroes the part of
 * the stack below the caller when a call with secrets ran since the last
 * time, so no value travels with the copy */
#define MSB_WASM_OP_WIPE_STACK 42
#define MSB_WASM_OP_OP_OPEN 43  /* (sb, operation, path) */
#define MSB_WASM_OP_OP_CLOSE 44 /* (sb) */
#define MSB_WASM_OP_STATE_EXPORT 45 /* (sb, flags, blob) */
#define MSB_WASM_OP_STATE_IMPORT 46 /* (sb, data, len) */
#define MSB_WASM_OP_OP_ID 47          /* (sb) -> the open operation's id */
#define MSB_WASM_OP_OP_FAIL 48        /* (sb, rc) */
#define MSB_WASM_OP_ENV_CHANGES 49    /* (sb, blob) */
/* Incremental runs (msb_exec_start and the rest): start gives a run
 * handle; step runs up to `steps` more steps (0: to the end) and returns
 * MSB_PAUSED, or ends the run as OP_EXEC does, filling res; cancel takes
 * MSB_CANCEL_ABORT or MSB_CANCEL_TIMEOUT. */
#define MSB_WASM_OP_EXEC_START 50  /* (sb, script, len, opts, u32 *run) */
#define MSB_WASM_OP_EXEC_STEP 51   /* (run, steps, res) */
#define MSB_WASM_OP_EXEC_CANCEL 52 /* (run, why) */
#define MSB_WASM_OP_EXEC_OUTPUT 53 /* (run, fd, blob): borrowed bytes */
#define MSB_WASM_OP_OP_RECORD 54 /* (sb, operation) */

#include <stdint.h>

int32_t msb_wasm_call(int32_t op, int32_t a, int32_t b, int32_t c, int32_t d,
                      int32_t e, int32_t f, int32_t g, int32_t h);

#endif
