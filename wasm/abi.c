/* abi.c - the WebAssembly ABI: msb_wasm_call, one entry point dispatching
 * to the public C API.
 *
 * The JS loader passes 32-bit integers only (pointers, lengths, codes,
 * flags); 64-bit values and structs travel through the records
 * described in abi.h, copied field by field so the JS side never depends on
 * C struct padding. Nothing here checks what the public API checks
 * already: the API validates handles and arguments itself.
 *
 * One module instance hosts one sandbox (the host's WebAssembly.Memory is
 * that sandbox's cap), so the allocator for host buffers below and whether
 * the stack needs a wipe are per-instance state; they live here, outside
 * the library, which has no mutable globals. */
#include "abi.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../src/mem.h"
#include "memsandbox.h"

_Static_assert(sizeof(void *) == 4,
               "the wasm ABI records hold 32-bit "
               "pointers; abi.c is for wasm32 only");

/* Host buffers (arguments the JS side places in memory). Unlimited: the
 * module memory's maximum bounds them. */
static mem abi_mem;
static int abi_mem_ready;
/* A call with secrets ran since the stack was last wiped. */
static int abi_stack_dirty;

static mem *abi_host_mem(void) {
  if (!abi_mem_ready) {
    mem_init(&abi_mem, 0);
    abi_mem_ready = 1;
  }
  return &abi_mem;
}

#ifdef __wasi__
/* malloc's sbrk, in place of wasi-libc's: that one grows the memory by
 * exactly what malloc asks, 64 KiB at a time for small blocks, and V8
 * answers every memory.grow with a full garbage collection of the host's
 * heap (a 20 MB jq document: over 600 of them, 90% of the run). Growing
 * by at least an eighth of the memory makes that a few dozen; the break
 * malloc sees still moves by exactly what it asked. The exact size is
 * tried again when the larger one would pass the memory's maximum. */
#define ABI_PAGE 65536u
static uintptr_t abi_brk; /* malloc's break; the memory may reach past it */

void *sbrk(intptr_t increment);
void *sbrk(intptr_t increment) {
  uintptr_t have = __builtin_wasm_memory_size(0) * ABI_PAGE, old;
  if (!abi_brk) abi_brk = have;
  if (increment < 0 || increment % ABI_PAGE) __builtin_trap();
  if (increment > 0 && (uintptr_t)increment > have - abi_brk) {
    size_t need = (abi_brk + increment - have) / ABI_PAGE;
    size_t more = have / ABI_PAGE / 8;
    if (__builtin_wasm_memory_grow(0, need + more) == SIZE_MAX &&
        __builtin_wasm_memory_grow(0, need) == SIZE_MAX) {
      errno = ENOMEM;
      return (void *)-1;
    }
  }
  old = abi_brk;
  abi_brk += increment;
  return (void *)old;
}
#endif

static void abi_put32(uint8_t *rec, size_t off, uint32_t v) {
  memcpy(rec + off, &v, 4);
}

static void abi_put64(uint8_t *rec, size_t off, uint64_t v) {
  memcpy(rec + off, &v, 8);
}

static uint32_t abi_get32(const uint8_t *rec, size_t off) {
  uint32_t v;
  memcpy(&v, rec + off, 4);
  return v;
}

/* msb_limits fields in declaration order (limits.def); the constants
 * generator reads the same table and the JS suite checks the two agree. */
typedef struct abi_field {
  size_t off;
  size_t size;
} abi_field;

#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  {offsetof(msb_limits, field), sizeof(type)},
static const abi_field abi_limit_fields[] = {
#include "../src/limits.def"
};
#undef LIMIT
#define ABI_NLIMITS (sizeof abi_limit_fields / sizeof abi_limit_fields[0])
_Static_assert(ABI_NLIMITS == MSB_WASM_OPEN_SLOTS - MSB_WASM_OPEN_LIMITS,
               "open record slot count");

static uint64_t abi_limit_get(const msb_limits *lim, size_t i) {
  const uint8_t *p = (const uint8_t *)lim + abi_limit_fields[i].off;
  uint32_t v32;
  uint64_t v64;
  if (abi_limit_fields[i].size == 4) {
    memcpy(&v32, p, 4);
    return v32;
  }
  memcpy(&v64, p, 8);
  return v64;
}

/* Stores v, refusing a value the field cannot hold. */
static int abi_limit_set(msb_limits *lim, size_t i, uint64_t v) {
  uint8_t *p = (uint8_t *)lim + abi_limit_fields[i].off;
  uint32_t v32;
  if (abi_limit_fields[i].size == 4) {
    if (v > UINT32_MAX) return MSB_EINVAL;
    v32 = (uint32_t)v;
    memcpy(p, &v32, 4);
    return 0;
  }
  memcpy(p, &v, 8);
  return 0;
}

/* A profile's limits as 64-bit slots, for JS defaults. */
static int abi_limits_get(int profile, uint64_t *slots) {
  msb_limits lim;
  size_t i;
  int rc = msb_limits_init(&lim, profile);
  if (rc) return rc;
  for (i = 0; i < ABI_NLIMITS; i++) slots[i] = abi_limit_get(&lim, i);
  return (int)ABI_NLIMITS;
}

/* Opens a sandbox from an open record (see abi.h). */
static int abi_open(const uint64_t *rec, msb_sandbox **out) {
  msb_limits lim;
  msb_config cfg;
  size_t i;
  int rc;
  uint64_t v;
  *out = NULL;
  if (rec[MSB_WASM_OPEN_PROFILE] > 255) return MSB_EINVAL;
  rc = msb_limits_init(&lim, (int)rec[MSB_WASM_OPEN_PROFILE]);
  if (rc) return rc;
  for (i = 0; i < ABI_NLIMITS; i++) {
    v = rec[MSB_WASM_OPEN_LIMITS + i];
    if (v == UINT64_MAX) continue;
    rc = abi_limit_set(&lim, i, v);
    if (rc) return rc;
  }
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  cfg.clock_ns = (int64_t)rec[MSB_WASM_OPEN_CLOCK];
  cfg.seed = rec[MSB_WASM_OPEN_SEED];
  return msb_open(&cfg, out);
}

/* Sets the clock from the i64 at ns. */
static int abi_set_clock(msb_sandbox *sb, const int64_t *ns) {
  return msb_set_clock(sb, *ns);
}

/* Stores the clock at ns. */
static int abi_clock(msb_sandbox *sb, int64_t *ns) {
  if (!sb) return MSB_EMISUSE;
  *ns = msb_clock(sb);
  return 0;
}

/* Stores the allocator's bytes in use at out. */
static int abi_memory_used(msb_sandbox *sb, uint64_t *out) {
  if (!sb) return MSB_EMISUSE;
  *out = msb_memory_used(sb);
  return 0;
}

/* Stores the revision at out. */
static int abi_revision(msb_sandbox *sb, uint64_t *out) {
  if (!sb) return MSB_EMISUSE;
  *out = msb_revision(sb);
  return 0;
}

static void abi_blob(uint8_t *blob, const void *p, size_t len, size_t count) {
  abi_put32(blob, MSB_WASM_BLOB_PTR, (uint32_t)(uintptr_t)p);
  abi_put32(blob, MSB_WASM_BLOB_LEN, (uint32_t)len);
  abi_put32(blob, MSB_WASM_BLOB_COUNT, (uint32_t)count);
}

/* Reads a whole file into a blob record. */
static int abi_read(msb_sandbox *sb, const char *path, uint8_t *blob) {
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = msb_read(sb, path, &data, &len);
  abi_blob(blob, rc ? NULL : data, rc ? 0 : len, 0);
  return rc;
}

/* Stats a path into a stat record. */
static int abi_stat(msb_sandbox *sb, const char *path, unsigned flags,
                    uint8_t *rec) {
  msb_stat st;
  int rc;
  memset(&st, 0, sizeof st);
  rc = msb_stat_path(sb, path, flags, &st);
  if (rc) return rc;
  abi_put32(rec, MSB_WASM_STAT_KIND, (uint32_t)st.kind);
  abi_put32(rec, MSB_WASM_STAT_MODE, st.mode);
  abi_put64(rec, MSB_WASM_STAT_SIZE, st.size);
  abi_put64(rec, MSB_WASM_STAT_MTIME, (uint64_t)st.mtime_ns);
  abi_put64(rec, MSB_WASM_STAT_NODES, st.nodes);
  abi_put64(rec, MSB_WASM_STAT_BYTES, st.bytes);
  return 0;
}

/* Lists a directory: NUL-separated names in a blob record. */
static int abi_list(msb_sandbox *sb, const char *path, uint8_t *blob) {
  char *names = NULL;
  size_t len = 0, count = 0;
  int rc = msb_list(sb, path, &names, &len, &count);
  if (rc) {
    abi_blob(blob, NULL, 0, 0);
    return rc;
  }
  abi_blob(blob, names, len, count);
  return 0;
}

/* Reads a link target into a blob record (length without the NUL). */
static int abi_readlink(msb_sandbox *sb, const char *path, uint8_t *blob) {
  char *target = NULL;
  int rc = msb_readlink(sb, path, &target);
  if (rc) {
    abi_blob(blob, NULL, 0, 0);
    return rc;
  }
  abi_blob(blob, target, strlen(target), 0);
  return 0;
}

#ifdef __EMSCRIPTEN__
/* Emscripten's wasm-ld 14 has no __stack_low, and its stack limits assume
 * the stack above the data. Linked with --stack-first, the stack spans
 * [0, __global_base): the floor is read through a volatile so that the
 * compiler sees no null pointer, and abi_wipe_stack checks the layout. */
extern char __global_base;
static const volatile uintptr_t abi_stack_floor = 0;
#define ABI_STACK_LOW() abi_stack_floor
#define ABI_STACK_TOP() ((uintptr_t)&__global_base)
#else
extern char __stack_low, __stack_high; /* wasm-ld: the stack's bounds */
#define ABI_STACK_LOW() ((uintptr_t)&__stack_low)
#define ABI_STACK_TOP() ((uintptr_t)&__stack_high)
#endif

/* Zeroes the stack below the caller's frame, where the frames of the call
 * that just ended left their bytes (a memory fork copies them). Only pages
 * holding something are written, so pages the stack never reached stay
 * untouched (and unpaid for). */
__attribute__((noinline)) static void abi_wipe_stack(void) {
  volatile uint64_t mark = 0; /* our frame: everything below it is dead */
  uintptr_t lo = (ABI_STACK_LOW() + 7) & ~(uintptr_t)7;
  uintptr_t hi = (uintptr_t)&mark & ~(uintptr_t)7, a, e;
  if (hi > ABI_STACK_TOP()) return; /* not the layout this assumes */
  for (a = lo; a < hi; a = e) {
    const uint64_t *w = (const uint64_t *)a;
    uint64_t any = 0;
    e = (a | 4095) + 1 < hi ? (a | 4095) + 1 : hi;
    for (; (uintptr_t)(w + 8) <= e; w += 8) /* unrolled: 4x faster in V8 */
      any |= w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7];
    for (; (uintptr_t)w < e; w++) any |= *w;
    if (any) memset((void *)a, 0, e - a);
  }
  (void)mark;
}

/* A call with secrets ends: the value strings the host placed are zeroed
 * now (the library zeroes the heap blocks it frees itself); the stack is
 * zeroed before the memory is copied (MSB_WASM_OP_WIPE_STACK), which
 * keeps the ~80 us its scan takes off every call. */
static void abi_forget_secrets(const msb_exec_opts *o) {
  size_t i;
  for (i = 0; o->secrets && i < o->secret_count; i++)
    if (o->secrets[i]) memset((void *)o->secrets[i], 0, strlen(o->secrets[i]));
  abi_stack_dirty = 1;
}

/* An exec options record as msb_exec_opts (opts may be NULL). */
static void abi_opts_read(const uint8_t *opts, msb_exec_opts *o) {
  memset(o, 0, sizeof *o);
  if (!opts) return;
  o->stdin_data =
      (const uint8_t *)(uintptr_t)abi_get32(opts, MSB_WASM_OPTS_STDIN);
  o->stdin_len = abi_get32(opts, MSB_WASM_OPTS_STDIN_LEN);
  o->cwd = (const char *)(uintptr_t)abi_get32(opts, MSB_WASM_OPTS_CWD);
  o->fresh_state = abi_get32(opts, MSB_WASM_OPTS_FRESH) != 0;
  o->atomic = abi_get32(opts, MSB_WASM_OPTS_ATOMIC) != 0;
  o->env = (const char *const *)(uintptr_t)abi_get32(opts, MSB_WASM_OPTS_ENV);
  o->env_count = abi_get32(opts, MSB_WASM_OPTS_ENV_COUNT);
  o->secrets =
      (const char *const *)(uintptr_t)abi_get32(opts, MSB_WASM_OPTS_SECRETS);
  o->secret_count = abi_get32(opts, MSB_WASM_OPTS_SECRET_COUNT);
  o->arg0 = (const char *)(uintptr_t)abi_get32(opts, MSB_WASM_OPTS_ARG0);
}

/* A finished run's msb_exec return and result into a result record. */
static int abi_result_put(msb_sandbox *sb, int rc, msb_result *r,
                          uint8_t *res) {
  memset(res, 0, MSB_WASM_RES_SIZE);
  if (rc) {
    msb_result_finish(sb, r);
    return rc;
  }
  abi_put32(res, MSB_WASM_RES_EXIT, (uint32_t)r->exit_code);
  abi_put32(res, MSB_WASM_RES_OUT, (uint32_t)(uintptr_t)r->out);
  abi_put32(res, MSB_WASM_RES_OUT_LEN, (uint32_t)r->out_len);
  abi_put32(res, MSB_WASM_RES_ERR, (uint32_t)(uintptr_t)r->err);
  abi_put32(res, MSB_WASM_RES_ERR_LEN, (uint32_t)r->err_len);
  abi_put32(res, MSB_WASM_RES_OUT_TRUNC, (uint32_t)(r->out_truncated != 0));
  abi_put32(res, MSB_WASM_RES_ERR_TRUNC, (uint32_t)(r->err_truncated != 0));
  abi_put32(res, MSB_WASM_RES_CWD, (uint32_t)(uintptr_t)r->cwd);
  abi_put32(res, MSB_WASM_RES_LIMIT, (uint32_t)(uintptr_t)r->limit);
  abi_put32(res, MSB_WASM_RES_FAILURE, (uint32_t)(uintptr_t)r->failure);
  abi_put32(res, MSB_WASM_RES_ROLLED_BACK, (uint32_t)(r->rolled_back != 0));
  abi_put64(res, MSB_WASM_RES_OUT_TOTAL, r->out_total);
  abi_put64(res, MSB_WASM_RES_ERR_TOTAL, r->err_total);
  abi_put64(res, MSB_WASM_RES_REVISION, msb_revision(sb));
  return 0;
}

/* Runs a script; fills a result record (release it with
 * msb_wasm_result_finish even after a failure: it is zeroed then). */
static int abi_exec(msb_sandbox *sb, const char *script, size_t len,
                    const uint8_t *opts, uint8_t *res) {
  msb_exec_opts o;
  msb_result r;
  int rc;
  abi_opts_read(opts, &o);
  memset(&r, 0, sizeof r);
  rc = msb_exec(sb, script, len, &o, &r);
  if (o.secret_count) abi_forget_secrets(&o);
  return abi_result_put(sb, rc, &r, res);
}

/* An incremental run as the host holds it: the run, and the options whose
 * secret values are zeroed when it ends. */
typedef struct abi_run {
  msb_sandbox *sb;
  msb_run *run;
  msb_exec_opts o;
} abi_run;

/* msb_exec_start; *handle is the run's handle for the calls below. */
static int abi_exec_start(msb_sandbox *sb, const char *script, size_t len,
                          const uint8_t *opts, uint8_t *handle) {
  abi_run *r = mem_zalloc(abi_host_mem(), sizeof *r);
  int rc;
  abi_put32(handle, 0, 0);
  if (!r) return MSB_ENOMEM;
  abi_opts_read(opts, &r->o);
  r->sb = sb;
  if ((rc = msb_exec_start(sb, script, len, &r->o, &r->run))) {
    mem_free(abi_host_mem(), r);
    return rc;
  }
  abi_put32(handle, 0, (uint32_t)(uintptr_t)r);
  return 0;
}

/* msb_exec_output into a blob record (data, len). */
static int abi_exec_output(abi_run *r, int fd, uint8_t *blob) {
  const uint8_t *d = NULL;
  size_t n = 0;
  if (r) msb_exec_output(r->run, fd, &d, &n);
  abi_put32(blob, MSB_WASM_BLOB_PTR, (uint32_t)(uintptr_t)d);
  abi_put32(blob, MSB_WASM_BLOB_LEN, (uint32_t)n);
  return 0;
}

static void abi_exec_cancel(abi_run *r, int why) {
  if (r) msb_exec_cancel(r->run, why);
}

/* msb_exec_step: MSB_PAUSED, or the run's end as abi_exec's (the handle
 * is dead then). */
static int abi_exec_step(abi_run *r, uint32_t steps, uint8_t *res) {
  msb_result out;
  int rc;
  memset(&out, 0, sizeof out);
  memset(res, 0, MSB_WASM_RES_SIZE);
  rc = msb_exec_step(r->run, steps, &out);
  if (rc == MSB_PAUSED) return rc;
  if (r->o.secret_count) abi_forget_secrets(&r->o);
  rc = abi_result_put(r->sb, rc, &out, res);
  mem_free(abi_host_mem(), r);
  return rc;
}

/* Frees the buffers a result record names and zeroes them. */
static void abi_result_finish(msb_sandbox *sb, uint8_t *res) {
  msb_result r;
  memset(&r, 0, sizeof r);
  r.out = (uint8_t *)(uintptr_t)abi_get32(res, MSB_WASM_RES_OUT);
  r.err = (uint8_t *)(uintptr_t)abi_get32(res, MSB_WASM_RES_ERR);
  r.cwd = (char *)(uintptr_t)abi_get32(res, MSB_WASM_RES_CWD);
  msb_result_finish(sb, &r);
  abi_put32(res, MSB_WASM_RES_OUT, 0);
  abi_put32(res, MSB_WASM_RES_ERR, 0);
  abi_put32(res, MSB_WASM_RES_CWD, 0);
}

/* Applies a patch (see msb_apply_patch); the change records go to a blob
 * record with their count. cwd 0 = "/workspace". */
static int abi_apply_patch(msb_sandbox *sb, const char *text, size_t len,
                           const char *cwd, unsigned flags, uint8_t *blob) {
  char *changes = NULL;
  size_t clen = 0, count = 0;
  int rc = msb_apply_patch(sb, text, len, cwd, flags, &changes, &clen, &count);
  abi_blob(blob, rc ? NULL : changes, rc ? 0 : clen, rc ? 0 : count);
  return rc;
}

/* The session's exported variables into a blob record (see
 * msb_session_env). */
static int abi_session_env(msb_sandbox *sb, uint8_t *blob) {
  char *env = NULL;
  size_t len = 0, count = 0;
  int rc = msb_session_env(sb, &env, &len, &count);
  abi_blob(blob, rc ? NULL : env, rc ? 0 : len, rc ? 0 : count);
  return rc;
}

/* The last run's environment changes into a blob record. */
static int abi_env_changes(msb_sandbox *sb, uint8_t *blob) {
  char *out = NULL;
  size_t len = 0, count = 0;
  int rc = msb_env_changes(sb, &out, &len, &count);
  abi_blob(blob, rc ? NULL : out, rc ? 0 : len, rc ? 0 : count);
  return rc;
}

/* Serialises the state as tar.gz into a blob record. */
static int abi_snapshot(msb_sandbox *sb, int level, uint8_t *blob) {
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = msb_snapshot(sb, level, &data, &len);
  abi_blob(blob, rc ? NULL : data, rc ? 0 : len, 0);
  return rc;
}

/* The content-addressed state records into a blob record. */
static int abi_state_export(msb_sandbox *sb, unsigned flags, uint8_t *blob) {
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = msb_state_export(sb, flags, &data, &len);
  abi_blob(blob, rc ? NULL : data, rc ? 0 : len, 0);
  return rc;
}

/* Drains pending events (JSON lines) into a blob record. */
static int abi_events_take(msb_sandbox *sb, uint8_t *blob) {
  char *json = NULL;
  size_t len = 0;
  int rc = msb_events_take(sb, &json, &len);
  abi_blob(blob, rc ? NULL : json, rc ? 0 : len, 0);
  return rc;
}

/* Argument casts: every argument arrives as a 32-bit integer. */
#define P(x) ((void *)(uintptr_t)(uint32_t)(x))
#define S(x) ((msb_sandbox *)P(x))
#define U(x) ((uint32_t)(x))
#define R(p) ((int32_t)(uintptr_t)(p))

/* The module's one entry point (see abi.h). */
int32_t msb_wasm_call(int32_t op, int32_t a, int32_t b, int32_t c, int32_t d,
                      int32_t e, int32_t f, int32_t g, int32_t h) {
  switch (op) {
  case MSB_WASM_OP_WIPE_STACK:
    if (abi_stack_dirty) abi_wipe_stack();
    abi_stack_dirty = 0;
    return 0;
  case MSB_WASM_OP_ALLOC: return R(mem_alloc(abi_host_mem(), U(a)));
  case MSB_WASM_OP_FREE: mem_free(abi_host_mem(), P(a)); return 0;
  case MSB_WASM_OP_LIMITS_GET: return abi_limits_get(a, P(b));
  case MSB_WASM_OP_OPEN: return abi_open(P(a), P(b));
  case MSB_WASM_OP_CLOSE: msb_close(S(a)); return 0;
  case MSB_WASM_OP_ERRMSG: return R(msb_errmsg(S(a)));
  case MSB_WASM_OP_CODE_NAME: return R(msb_code_name(a));
  case MSB_WASM_OP_STRERROR: return R(msb_strerror(a));
  case MSB_WASM_OP_SB_FREE: msb_free(S(a), P(b)); return 0;
  case MSB_WASM_OP_SET_CLOCK: return abi_set_clock(S(a), P(b));
  case MSB_WASM_OP_CLOCK: return abi_clock(S(a), P(b));
  case MSB_WASM_OP_MEMORY_USED: return abi_memory_used(S(a), P(b));
  case MSB_WASM_OP_REVISION: return abi_revision(S(a), P(b));
  case MSB_WASM_OP_READ: return abi_read(S(a), P(b), P(c));
  case MSB_WASM_OP_WRITE:
    return msb_write(S(a), P(b), P(c), U(d), e, P(f), U(g), U(h));
  case MSB_WASM_OP_APPEND: return msb_append(S(a), P(b), P(c), U(d), U(e));
  case MSB_WASM_OP_STAT: return abi_stat(S(a), P(b), U(c), P(d));
  case MSB_WASM_OP_LIST: return abi_list(S(a), P(b), P(c));
  case MSB_WASM_OP_MKDIR: return msb_mkdir(S(a), P(b), U(c), U(d));
  case MSB_WASM_OP_REMOVE: return msb_remove(S(a), P(b), U(c));
  case MSB_WASM_OP_COPY: return msb_copy(S(a), P(b), P(c), U(d));
  case MSB_WASM_OP_MOVE: return msb_move(S(a), P(b), P(c), U(d));
  case MSB_WASM_OP_SYMLINK: return msb_symlink(S(a), P(b), P(c));
  case MSB_WASM_OP_READLINK: return abi_readlink(S(a), P(b), P(c));
  case MSB_WASM_OP_CHMOD: return msb_chmod(S(a), P(b), U(c));
  case MSB_WASM_OP_HASH: return msb_hash(S(a), P(b), P(c));
  case MSB_WASM_OP_ROOT_HASH: return msb_root_hash(S(a), P(b));
  case MSB_WASM_OP_EXEC: return abi_exec(S(a), P(b), U(c), P(d), P(e));
  case MSB_WASM_OP_RESULT_FINISH: abi_result_finish(S(a), P(b)); return 0;
  case MSB_WASM_OP_PARSE_CHECK: return msb_parse_check(S(a), P(b), U(c));
  case MSB_WASM_OP_APPLY_PATCH:
    return abi_apply_patch(S(a), P(b), U(c), P(d), U(e), P(f));
  case MSB_WASM_OP_SESSION_CWD: return R(msb_session_cwd(S(a)));
  case MSB_WASM_OP_SESSION_ENV: return abi_session_env(S(a), P(b));
  case MSB_WASM_OP_CHECKPOINT: return msb_checkpoint(S(a), P(b));
  case MSB_WASM_OP_ROLLBACK: return msb_rollback(S(a), U(b));
  case MSB_WASM_OP_RELEASE: return msb_release(S(a), U(b));
  case MSB_WASM_OP_SNAPSHOT: return abi_snapshot(S(a), b, P(c));
  case MSB_WASM_OP_RESTORE: return msb_restore(S(a), P(b), U(c));
  case MSB_WASM_OP_FORK: return msb_fork(S(a), P(b));
  case MSB_WASM_OP_SET_POLICY: return msb_set_policy(S(a), P(b), U(c));
  case MSB_WASM_OP_EVENTS_TAKE: return abi_events_take(S(a), P(b));
  case MSB_WASM_OP_OP_OPEN: return msb_op_open(S(a), P(b), P(c));
  case MSB_WASM_OP_OP_CLOSE: msb_op_close(S(a)); return 0;
  case MSB_WASM_OP_OP_ID: return (int32_t)msb_op_id(S(a));
  case MSB_WASM_OP_OP_FAIL: msb_op_fail(S(a), (int)b); return 0;
  case MSB_WASM_OP_ENV_CHANGES: return abi_env_changes(S(a), P(b));
  case MSB_WASM_OP_STATE_EXPORT: return abi_state_export(S(a), U(b), P(c));
  case MSB_WASM_OP_STATE_IMPORT: return msb_state_import(S(a), P(b), U(c));
  case MSB_WASM_OP_EXEC_START:
    return abi_exec_start(S(a), P(b), U(c), P(d), P(e));
  case MSB_WASM_OP_EXEC_STEP: return abi_exec_step(P(a), U(b), P(c));
  case MSB_WASM_OP_EXEC_CANCEL: abi_exec_cancel(P(a), b); return 0;
  case MSB_WASM_OP_EXEC_OUTPUT: return abi_exec_output(P(a), b, P(c));
  case MSB_WASM_OP_OP_RECORD: return msb_op_record(S(a), P(b));
  default: return MSB_EINVAL;
  }
}
