// wasi.js - the tiny deterministic WASI stub each instance imports.
//
// The C core uses no files, clock or randomness of the host; wasi-libc may
// still link a few preview1 functions (stdio teardown, the clock behind
// libc's time functions). Each is answered without touching the host:
// output to fds is discarded, the clock reads the sandbox's own value,
// "random" bytes come from a seeded generator, and anything else returns
// ENOSYS. proc_exit throws, which fails that sandbox only.

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_NOSYS = 52;

/** Thrown by proc_exit: the module tried to exit the "process". */
export class WasiExit extends Error {
  constructor(code) {
    super(`module called proc_exit(${code})`);
    this.code = code;
  }
}

/**
 * Builds the wasi_snapshot_preview1 import object for one instance, given
 * the names of the functions the module imports from it (usually none).
 * `state.memory` is read on every call (growth detaches old views);
 * `state.clockNs()` returns a BigInt; `state.seed` seeds random_get.
 * Every import the module declares gets a function, so an unexpected one
 * answers ENOSYS instead of failing instantiation.
 */
export function wasiImports(names, state) {
  const out = {};
  if (names.length === 0) return out;
  const impl = wasiFunctions(state);
  for (const name of names) out[name] = impl[name] ?? (() => ERRNO_NOSYS);
  return out;
}

function wasiFunctions(state) {
  let rng = BigInt.asUintN(64, BigInt(state.seed ?? 0) ^ 0x9e3779b97f4a7c15n);
  const view = () => new DataView(state.memory.buffer);
  const impl = {
    fd_write(fd, iovs, iovsLen, nwritten) {
      const dv = view();
      let n = 0;
      for (let i = 0; i < iovsLen; i++) n += dv.getUint32(iovs + i * 8 + 4, true);
      dv.setUint32(nwritten, n, true);
      return fd === 1 || fd === 2 ? ERRNO_SUCCESS : ERRNO_BADF;
    },
    fd_close: () => ERRNO_BADF,
    fd_seek: () => ERRNO_BADF,
    fd_read: () => ERRNO_BADF,
    fd_fdstat_get: () => ERRNO_BADF,
    fd_prestat_get: () => ERRNO_BADF,
    fd_prestat_dir_name: () => ERRNO_BADF,
    environ_sizes_get(count, size) {
      const dv = view();
      dv.setUint32(count, 0, true);
      dv.setUint32(size, 0, true);
      return ERRNO_SUCCESS;
    },
    environ_get: () => ERRNO_SUCCESS,
    args_sizes_get(count, size) {
      const dv = view();
      dv.setUint32(count, 0, true);
      dv.setUint32(size, 0, true);
      return ERRNO_SUCCESS;
    },
    args_get: () => ERRNO_SUCCESS,
    clock_res_get(id, out) {
      view().setBigUint64(out, 1n, true);
      return ERRNO_SUCCESS;
    },
    clock_time_get(id, precision, out) {
      view().setBigUint64(out, BigInt.asUintN(64, state.clockNs()), true);
      return ERRNO_SUCCESS;
    },
    random_get(buf, len) {
      const bytes = new Uint8Array(state.memory.buffer, buf, len);
      for (let i = 0; i < len; i++) {
        // xorshift64*: deterministic per seed, never the host's entropy.
        rng ^= rng >> 12n;
        rng ^= BigInt.asUintN(64, rng << 25n);
        rng ^= rng >> 27n;
        bytes[i] = Number(BigInt.asUintN(64, rng * 0x2545f4914f6cdd1dn) >> 56n);
      }
      return ERRNO_SUCCESS;
    },
    sched_yield: () => ERRNO_SUCCESS,
    proc_exit(code) {
      throw new WasiExit(code);
    },
  };
  return impl;
}
