// sandbox.js - Sandbox: one workspace and shell session in a private
// WebAssembly instance.
//
// Every sandbox lives in its own instance with its own WebAssembly.Memory,
// whose maximum comes from limits.max_memory_bytes, so a runaway sandbox
// (or a bug in the C core) cannot touch another one or the host. A trap or
// an exit inside the module marks that sandbox FAILED; others are
// untouched.
import constants from './constants.js';
import { MemSandboxError, errorFromCode, invalid } from './errors.js';
import {
  dec, envStrings, fromHex, hex, randomHandle, randomSeed, shellQuote, toBytes, toNs,
} from './encoding.js';
import { loadModule } from './loader.js';
import { Instance, K, OP, Scope } from './instance.js';
import { PROFILES, memoryPages, normaliseLimits, policyText, profileLimits } from './options.js';
import { checkGuardedPatch, normalisePath, patchChanges, patchError, patchGuards } from './patch.js';
import { collectPieces, exportState, importRecords } from './state.js';

/** @import * as T from './index.js' */

const UNSET = 0xffffffffffffffffn;
const KINDS = { [K.MSB_FILE]: 'file', [K.MSB_DIR]: 'directory', [K.MSB_LINK]: 'symlink' };

const DEFAULT_SLICE_MS = 4;
const MIN_SLICE_STEPS = 64;
const MAX_SLICE_STEPS = 1 << 30;
const FIRST_SLICE_STEPS = 2000;

function now() {
  return globalThis.performance?.now?.() ?? Date.now();
}

function elapsedSince(started) {
  return Math.max(0, Math.round((now() - started) * 1000) / 1000);
}

// Gives the host's event loop a turn: timers, I/O and (in a browser) a
// frame can run. setImmediate where there is one (Node, Bun, Deno), else
// a MessageChannel message, which browsers do not clamp as they clamp
// nested setTimeout calls to 4 ms.
function yieldToHost() {
  if (typeof globalThis.setImmediate === 'function') {
    return new Promise((resolve) => globalThis.setImmediate(resolve));
  }
  if (typeof globalThis.MessageChannel === 'function') {
    return new Promise((resolve) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        ch.port1.close();
        resolve(undefined);
      };
      ch.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// One of a sliced run's output streams: passes on what grew since the
// last pause (the core holds back a possible secret's start, so every
// chunk is already redacted), decoding UTF-8 across chunk boundaries.
class OutputStream {
  constructor(fd, fn, encoding) {
    this.fd = fd;
    this.fn = fn;
    this.sent = 0;
    this.text = encoding !== 'bytes';
    this.dec = this.text ? new TextDecoder() : null;
  }

  emit(bytes) {
    if (!bytes.length) return;
    this.fn(this.text ? this.dec.decode(bytes, { stream: true }) : bytes);
  }

  pump(inst, run, blob) {
    if (!this.fn) return;
    inst.call(OP.exec_output, run, this.fd, blob);
    const dv = inst.dv();
    const len = dv.getUint32(blob + K.MSB_WASM_BLOB_LEN, true);
    if (len <= this.sent) return;
    const ptr = dv.getUint32(blob + K.MSB_WASM_BLOB_PTR, true);
    const chunk = inst.bytes(ptr + this.sent, len - this.sent);
    this.sent = len;
    this.emit(chunk);
  }

  // The rest of the output, from the result's bytes.
  finish(all) {
    if (!this.fn) return;
    if (all.length > this.sent) this.emit(all.subarray(this.sent));
    if (this.text) {
      const tail = this.dec.decode();
      if (tail) this.fn(tail);
    }
  }
}

// sliceMs: a positive number of milliseconds; Infinity runs a script whole.
function checkSliceMs(ms) {
  if (typeof ms !== 'number' || !(ms > 0)) throw invalid('sliceMs must be a positive number');
  return ms;
}

// A synchronous call (a getter, parseCheck) that the core refused because
// an execute is paused between two slices.
function busy(what) {
  return new MemSandboxError('sandbox_busy', 'conflict',
    `${what}: an execute is running in this sandbox; await it first`, { operation: what });
}

function flag(cond, bit) {
  return cond ? bit : 0;
}

export const SandboxState = Object.freeze({
  CREATED: 'CREATED', RUNNING: 'RUNNING', CLOSED: 'CLOSED', FAILED: 'FAILED',
});

/**
 * One sandbox: a workspace and a shell session in a private instance.
 * Create with `await Sandbox.create(options)`.
 * @implements {T.Sandbox}
 */
export class Sandbox {
  /** @private Use Sandbox.create. */
  constructor(inst, handle, info) {
    this._inst = inst;
    this._sb = handle;
    this._info = info;
    /** @type {T.SandboxState} */
    this._state = SandboxState.CREATED;
    this._failure = null;
    this._onEvent = info.onEvent;
    this._pendingCwd = null;
    this._running = false; // a sliced execute is between two slices
    this._runEnded = null; // settles when that execute ends
    this._runRec = 0; // the result and blob records of execute's runs
    this._stepsPerSlice = FIRST_SLICE_STEPS;
    this._seq = 0; // the last event's seq (see _emit)
    this._seqShift = 0;
    /** Opaque id carried by every event as `sandbox`. */
    this.id = randomHandle();
  }

  /**
   * Creates a sandbox. Options: files ({path: content} or [{path, content,
   * mode}]), directories ([path]), cwd, env ({NAME: value}), profile
   * ('normal' | 'strict'), limits ({max_memory_bytes: n, ...}), clock
   * ('system', a Date, ms, or BigInt ns), seed (number | BigInt), onEvent
   * (function), policy (see setPolicy; set after files and directories
   * are seeded), sliceMs (execute's default, 4), wasm (Module | bytes | URL).
   * @param {T.CreateOptions} [options]
   * @returns {Promise<Sandbox>}
   */
  static async create(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalid('options must be an object');
    }
    const module = await loadModule(options.wasm);
    const profileName = options.profile ?? 'normal';
    if (!Object.hasOwn(PROFILES, profileName)) {
      throw invalid(`unknown profile "${profileName}" (normal or strict)`);
    }
    const profile = PROFILES[profileName];
    const limits = { ...profileLimits(module, profile), ...normaliseLimits(options.limits) };
    const clock = options.clock ?? 'system';
    const systemClock = clock === 'system';
    const clockNs = systemClock ? toNs(Date.now()) : toNs(clock);
    let seed = options.seed ?? randomSeed();
    if (typeof seed === 'number') {
      if (!Number.isSafeInteger(seed)) throw invalid('seed must be an integer');
      seed = BigInt(seed);
    }
    if (typeof seed !== 'bigint') throw invalid('seed must be a number or BigInt');
    seed = BigInt.asUintN(64, seed);
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
      throw invalid('onEvent must be a function');
    }
    const sliceMs = checkSliceMs(options.sliceMs ?? DEFAULT_SLICE_MS);
    const policy = options.policy === undefined ? null : policyText(options.policy);
    const maxPages = memoryPages(limits.max_memory_bytes);
    const info = { module, maxPages, seed, systemClock, clockNs, onEvent: options.onEvent,
      limits, profile: profileName, sliceMs };
    let sbClock = () => 0n;
    const inst = new Instance(module, maxPages, seed, () => sbClock());
    const rec = new Scope(inst);
    let handle = 0;
    try {
      inst.start();
      const r = rec.alloc(8 * K.MSB_WASM_OPEN_SLOTS);
      const dv = inst.dv();
      for (let i = 0; i < K.MSB_WASM_OPEN_SLOTS; i++) dv.setBigUint64(r + 8 * i, UNSET, true);
      dv.setBigUint64(r + 8 * K.MSB_WASM_OPEN_PROFILE, BigInt(profile), true);
      dv.setBigInt64(r + 8 * K.MSB_WASM_OPEN_CLOCK, clockNs, true);
      dv.setBigUint64(r + 8 * K.MSB_WASM_OPEN_SEED, seed, true);
      constants.limitFields.forEach((f, i) => {
        dv.setBigUint64(r + 8 * (K.MSB_WASM_OPEN_LIMITS + i), BigInt(limits[f.name]), true);
      });
      const out = inst.outRec;
      const rc = inst.call(OP.open, r, out);
      if (rc < 0) {
        // The limits passed normaliseLimits: only their sum can be wrong.
        throw errorFromCode(rc, `cannot open a sandbox: ${rc === K.MSB_EINVAL
          ? 'max_file_bytes exceeds max_total_bytes' : inst.strerror(rc)}`);
      }
      handle = inst.dv().getUint32(out, true);
    } finally {
      rec.free();
    }
    const sb = new Sandbox(inst, handle, info);
    sbClock = () => sb._clockNow();
    try {
      await sb._seed(options);
      if (policy !== null) await sb.setPolicy(policy);
    } catch (e) {
      sb._destroy();
      throw e;
    }
    sb._state = SandboxState.RUNNING;
    sb._flushEvents();
    sb._emit({ kind: 'sandbox.started' }); // the reference's lifecycle
    return sb;
  }

  async _seed(options) {
    for (const d of options.directories ?? []) {
      this._call('mkdir', (s) => this._inst.call(OP.mkdir, this._sb, s.str(d), 0,
        K.MSB_PARENTS | K.MSB_EXIST_OK), d);
    }
    let files = options.files ?? [];
    if (!Array.isArray(files)) {
      if (typeof files !== 'object') throw invalid('files must be an object or array');
      files = Object.entries(files).map(([path, content]) => ({ path, content }));
    }
    const seen = new Set();
    for (const f of files) {
      if (!f || typeof f.path !== 'string') throw invalid('each file needs a path');
      if (seen.has(f.path)) throw invalid(`files contain duplicate path "${f.path}"`);
      seen.add(f.path);
      this._writeFile(f.path, f.content ?? '', { parents: true, mode: f.mode });
    }
    if (options.cwd !== undefined) {
      if (typeof options.cwd !== 'string') throw invalid('cwd must be a string');
      const st = this._stat(options.cwd, {});
      if (st.kind !== 'directory') {
        throw new MemSandboxError('not_a_directory', 'conflict', `${options.cwd}: Not a directory`);
      }
      this._pendingCwd = options.cwd;
    }
    const env = envStrings(options.env, 'env');
    if (env.length) {
      const script = env.map((kv) => {
        const i = kv.indexOf('=');
        return `export ${kv.slice(0, i)}=${shellQuote(kv.slice(i + 1))}`;
      }).join('\n');
      const r = this._execute(script, {});
      if (r.exitCode !== 0) {
        throw new MemSandboxError('invalid_argument', 'invalid_request',
          `cannot set env: ${r.stderr.trim()}`);
      }
    }
  }

  // The WASI clock import reads this; the core keeps its own clock, which
  // the host sets before each call when the clock is 'system'.
  _clockNow() {
    return this._info.systemClock ? toNs(Date.now()) : this._info.clockNs;
  }

  /**
   * CREATED, RUNNING, CLOSED or FAILED.
   * @returns {T.SandboxState}
   */
  get state() {
    return this._state;
  }

  /** The limits in force (C field names). */
  get limits() {
    return { ...this._info.limits };
  }

  _check() {
    if (this._state === SandboxState.CLOSED) {
      throw new MemSandboxError('sandbox_closed', 'invalid_request', 'the sandbox is closed');
    }
    if (this._state === SandboxState.FAILED) {
      throw new MemSandboxError('sandbox_failed', 'internal',
        `the sandbox failed earlier: ${this._failure}`);
    }
  }

  // Runs fn with a call scope; converts a negative code into an error and
  // a trap into the FAILED state.
  _call(what, fn, path) {
    this._check();
    const scope = new Scope(this._inst);
    let rc;
    try {
      if (this._info.systemClock) this._syncClock();
      rc = fn(scope);
    } catch (e) {
      if (e instanceof MemSandboxError) throw e;
      this._fail(e);
    } finally {
      if (this._state !== SandboxState.FAILED) scope.free();
    }
    if (typeof rc === 'number' && rc < 0) {
      const msg = this._inst.cstring(this._inst.call(OP.errmsg, this._sb)) ||
        this._inst.strerror(rc);
      this._flushEvents();
      if (this._running && rc === K.MSB_EMISUSE) throw busy(what);
      const where = path === undefined ? { operation: what } : { operation: what, path };
      throw errorFromCode(rc, path !== undefined && !msg.includes(String(path))
        ? `${what} ${path}: ${msg}` : msg, where);
    }
    this._flushEvents();
    return rc;
  }

  _syncClock() {
    const p = this._inst.clockRec;
    this._inst.dv().setBigInt64(p, toNs(Date.now()), true);
    this._inst.call(OP.set_clock, this._sb, p);
  }

  _fail(e) {
    this._state = SandboxState.FAILED;
    this._failure = e instanceof Error ? e.message : String(e);
    this._emit({ kind: 'sandbox.failed', message: this._failure });
    throw new MemSandboxError('sandbox_failed', 'internal',
      `the sandbox failed: ${this._failure}`);
  }

  // One sequence per sandbox (the reference's §1.11): an event made here
  // (lifecycle) takes the next number, and the core's numbers move up past
  // it, so seq stays strictly increasing with the core's gaps kept.
  _emit(event) {
    if (typeof event.seq === 'number') {
      this._seq = event.seq + this._seqShift;
    } else {
      this._seq++;
      this._seqShift++;
    }
    if (!this._onEvent) return;
    try {
      this._onEvent({ ...event, seq: this._seq, sandbox: this.id });
    } catch {
      // A subscriber's exception must not break the sandbox.
    }
  }

  _flushEvents() {
    if (!this._onEvent || this._state === SandboxState.FAILED) return;
    const blob = this._inst.outRec;
    if (this._inst.call(OP.events_take, this._sb, blob) < 0) return;
    const text = dec.decode(this._inst.takeBlob(this._sb, blob).data);
    for (const line of text.split('\n')) {
      if (!line) continue;
      let ev;
      try {
        ev = JSON.parse(line);
      } catch {
        ev = { kind: 'event.malformed' };
      }
      this._emit(ev);
    }
  }

  /**
   * Runs a script in the session's shell. Options: stdin (string | bytes),
   * cwd, env ({NAME: value}, this call only), secrets ({NAME: value}: bound
   * like env and redacted from output), fresh (fresh shell state), atomic
   * (roll back on a non-zero exit), encoding ('utf8' | 'bytes').
   * Resolves to {exitCode, stdout, stderr, stdoutTruncated,
   * stderrTruncated, cwd, revision, durationMs, limit, rolledBack}.
   * @param {string | Uint8Array} script
   * @param {T.ExecuteOptions} [options]
   * @returns {Promise<T.ExecuteResult<any>>}
   */
  async execute(script, options = {}) {
    if (options === null || typeof options !== 'object') throw invalid('options must be an object');
    // one run at a time: a call made while another runs waits its turn
    while (this._running) await this._runEnded;
    if ((options.sliceMs ?? this._info.sliceMs) === Infinity) {
      this._check();
      return this._execute(script, options);
    }
    return this._executeSliced(script, options);
  }

  /**
   * @param {string | Uint8Array} script
   * @param {T.ExecuteOptions} options
   * @returns {T.ExecuteResult<any>}
   */
  _execute(script, options) {
    const started = globalThis.performance?.now?.() ?? Date.now();
    const call = this._execCall(script, options);
    const inst = this._inst;
    /** @type {T.ExecuteResult<any>} */
    let result = null;
    this._call('execute', (s) => {
      const { code, len, opts } = call.write(s);
      const res = inst.outRec;
      const rc = inst.call(OP.exec, this._sb, code, len, opts, res);
      if (rc < 0) return rc;
      result = this._execResult(res, options).result;
      return 0;
    });
    call.done();
    result.durationMs = elapsedSince(started);
    return result;
  }

  // Checks execute's arguments; write(scope) puts the script and the
  // options record into the instance, done() ends the call's cwd override.
  _execCall(script, options) {
    if (typeof script !== 'string' && !(script instanceof Uint8Array)) {
      throw invalid('the command must be a string');
    }
    if (options === null || typeof options !== 'object') throw invalid('options must be an object');
    const env = envStrings(options.env, 'env');
    const secrets = envStrings(options.secrets, 'secrets');
    let cwd = options.cwd;
    if (cwd === undefined && this._pendingCwd !== null) cwd = this._pendingCwd;
    const inst = this._inst;
    const write = (s) => {
      const text = toBytes(script, 'command');
      const code = s.bytes(text);
      const opts = inst.optsRec;
      const stdin = options.stdin === undefined ? null : toBytes(options.stdin, 'stdin');
      const stdinPtr = stdin ? s.bytes(stdin) : 0;
      const list = (items) => {
        if (!items.length) return 0;
        const arr = s.alloc(4 * items.length);
        items.forEach((kv, i) => {
          const p = s.str(kv, 'environment entry');
          inst.dv().setUint32(arr + 4 * i, p, true);
        });
        return arr;
      };
      const envPtr = list(env);
      const secPtr = list(secrets);
      const cwdPtr = cwd === undefined ? 0 : s.str(cwd, 'cwd');
      const arg0Ptr = options.arg0 === undefined ? 0 : s.str(options.arg0, 'arg0');
      const dv = inst.dv();
      const set = (off, v) => dv.setUint32(opts + off, v, true);
      set(K.MSB_WASM_OPTS_STDIN, stdinPtr);
      set(K.MSB_WASM_OPTS_STDIN_LEN, stdin ? stdin.length : 0);
      set(K.MSB_WASM_OPTS_CWD, cwdPtr);
      set(K.MSB_WASM_OPTS_ARG0, arg0Ptr);
      set(K.MSB_WASM_OPTS_FRESH, options.fresh ? 1 : 0);
      set(K.MSB_WASM_OPTS_ATOMIC, options.atomic ? 1 : 0);
      set(K.MSB_WASM_OPTS_ENV, envPtr);
      set(K.MSB_WASM_OPTS_ENV_COUNT, env.length);
      set(K.MSB_WASM_OPTS_SECRETS, secPtr);
      set(K.MSB_WASM_OPTS_SECRET_COUNT, secrets.length);
      return { code, len: text.length, opts };
    };
    const done = () => {
      if (cwd !== undefined && options.cwd === undefined) this._pendingCwd = null;
    };
    return { write, done };
  }

  // Decodes a filled result record and frees its buffers; out and err are
  // the output's bytes.
  _execResult(res, options) {
    const inst = this._inst;
    const rv = inst.dv();
    const u32 = (off) => rv.getUint32(res + off, true);
    const out = inst.bytes(u32(K.MSB_WASM_RES_OUT), u32(K.MSB_WASM_RES_OUT_LEN));
    const err = inst.bytes(u32(K.MSB_WASM_RES_ERR), u32(K.MSB_WASM_RES_ERR_LEN));
    const asText = options.encoding !== 'bytes';
    /** @type {T.ExecuteResult<any>} */
    const result = {
      exitCode: rv.getInt32(res + K.MSB_WASM_RES_EXIT, true),
      stdout: asText ? dec.decode(out) : out,
      stderr: asText ? dec.decode(err) : err,
      stdoutTruncated: u32(K.MSB_WASM_RES_OUT_TRUNC) !== 0,
      stderrTruncated: u32(K.MSB_WASM_RES_ERR_TRUNC) !== 0,
      stdoutBytes: Number(rv.getBigUint64(res + K.MSB_WASM_RES_OUT_TOTAL, true)),
      stderrBytes: Number(rv.getBigUint64(res + K.MSB_WASM_RES_ERR_TOTAL, true)),
      cwd: inst.cstring(u32(K.MSB_WASM_RES_CWD)),
      revision: Number(rv.getBigUint64(res + K.MSB_WASM_RES_REVISION, true)),
      limit: inst.cstring(u32(K.MSB_WASM_RES_LIMIT)),
      failure: inst.cstring(u32(K.MSB_WASM_RES_FAILURE)),
      rolledBack: u32(K.MSB_WASM_RES_ROLLED_BACK) !== 0,
      durationMs: 0,
    };
    inst.call(OP.result_finish, this._sb, res);
    return { result, out, err };
  }

  // execute's usual path: the run goes a slice of steps at a time
  // (msb_exec_step), giving the event loop a turn after each, so timers
  // fire and the signal is seen while a script runs. A run that ends
  // within its first slice never pauses. Where a run pauses depends on its
  // steps only, so the result is the same whatever the slicing; the steps
  // per slice adapt to the time a slice took, aiming at sliceMs.
  async _executeSliced(script, options) {
    const started = globalThis.performance?.now?.() ?? Date.now();
    const sliceMs = checkSliceMs(options.sliceMs ?? this._info.sliceMs);
    const { timeoutMs, signal } = options;
    if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs >= 0))) {
      throw invalid('timeoutMs must be a non-negative number');
    }
    if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean')) {
      throw invalid('signal must be an AbortSignal');
    }
    for (const k of ['onStdout', 'onStderr']) {
      if (options[k] !== undefined && typeof options[k] !== 'function') throw invalid(`${k} must be a function`);
    }
    const call = this._execCall(script, options);
    const inst = this._inst;
    const scope = new Scope(inst);
    const streams = [];
    if (options.onStdout) streams.push(new OutputStream(1, options.onStdout, options.encoding));
    if (options.onStderr) streams.push(new OutputStream(2, options.onStderr, options.encoding));
    let run = 0;
    /** @type {(() => void) | undefined} resolves _runEnded once the run has paused */
    let ended;
    // the sandbox's own records (one run at a time): other calls may use
    // the instance's scratch records between slices
    this._runRec ||= inst.alloc(K.MSB_WASM_RES_SIZE + K.MSB_WASM_BLOB_SIZE + 8);
    const res = this._runRec;
    const blob = res + ((K.MSB_WASM_RES_SIZE + 7) & ~7);
    try {
      this._call('execute', () => {
        const { code, len, opts } = call.write(scope);
        const rc = inst.call(OP.exec_start, this._sb, code, len, opts, blob);
        run = inst.dv().getUint32(blob, true);
        return rc;
      });
      const deadline = timeoutMs === undefined ? Infinity : started + timeoutMs;
      let cancelled = false;
      const cancelIfDue = () => {
        if (cancelled) return;
        const why = signal?.aborted ? K.MSB_CANCEL_ABORT
          : now() >= deadline ? K.MSB_CANCEL_TIMEOUT : 0;
        if (!why) return;
        inst.call(OP.exec_cancel, run, why);
        cancelled = true;
      };
      let steps = this._stepsPerSlice;
      for (;;) {
        cancelIfDue();
        const t0 = now();
        const rc = this._guard(() => inst.call(OP.exec_step, run, steps, res));
        const took = now() - t0;
        if (rc !== K.MSB_PAUSED) {
          run = 0;
          const { result, out, err } = this._execEnd(rc, res, options);
          for (const st of streams) st.finish(st.fd === 1 ? out : err);
          call.done();
          result.durationMs = elapsedSince(started);
          return result;
        }
        // aim the next slice at sliceMs from what this one cost
        const scaled = Math.round(steps * sliceMs / Math.max(took, 0.01));
        steps = Math.min(MAX_SLICE_STEPS, Math.max(MIN_SLICE_STEPS, Math.min(scaled, steps * 4)));
        this._stepsPerSlice = steps;
        if (!ended) { // the first pause: calls made from now on wait
          this._running = true;
          this._runEnded = new Promise((resolve) => { ended = () => resolve(undefined); });
        }
        for (const st of streams) st.pump(inst, run, blob);
        await yieldToHost();
        if (this._state === SandboxState.CLOSED) run = 0; // close() ended the run
        this._check();
      }
    } finally {
      if (run && this._state !== SandboxState.FAILED) { // a callback threw: end the run
        inst.call(OP.exec_cancel, run, K.MSB_CANCEL_ABORT);
        if (inst.call(OP.exec_step, run, 0, res) === 0) inst.call(OP.result_finish, this._sb, res);
      }
      this._running = false;
      ended?.();
      if (this._state !== SandboxState.FAILED && this._state !== SandboxState.CLOSED) {
        scope.free();
        this._flushEvents();
      }
    }
  }

  // A trap inside the module fails the sandbox, as _call does.
  _guard(fn) {
    try {
      return fn();
    } catch (e) {
      if (e instanceof MemSandboxError) throw e;
      return this._fail(e);
    }
  }

  // A sliced run's end: its result, or the error msb_exec would give.
  _execEnd(rc, res, options) {
    if (rc < 0) {
      const msg = this._inst.cstring(this._inst.call(OP.errmsg, this._sb)) || this._inst.strerror(rc);
      this._flushEvents();
      throw errorFromCode(rc, msg, { operation: 'execute' });
    }
    return this._execResult(res, options);
  }

  /**
   * Whether a script is 'complete', 'incomplete' (a REPL should read
   * another line) or a syntax 'error'.
   * @param {string | Uint8Array} script
   * @returns {"complete" | "incomplete" | "error"}
   */
  parseCheck(script) {
    this._check();
    const s = new Scope(this._inst);
    try {
      const data = toBytes(script, 'script');
      const rc = this._inst.call(OP.parse_check, this._sb, s.bytes(data), data.length);
      if (rc === 0) return 'complete';
      if (rc === K.MSB_EINCOMPLETE) return 'incomplete';
      if (rc === K.MSB_ESYNTAX) return 'error';
      throw errorFromCode(rc, this._inst.cstring(this._inst.call(OP.errmsg, this._sb)));
    } finally {
      s.free();
    }
  }

  /**
   * Reads a file: a string (UTF-8), or bytes with { encoding: 'bytes' }.
   * @param {string} path
   * @param {{encoding?: "utf8" | "bytes"}} [options]
   * @returns {Promise<any>}
   */
  async readFile(path, options = {}) {
    const { data } = this._readBytes(path);
    return options.encoding === 'bytes' ? data : dec.decode(data);
  }

  _readBytes(path) {
    let blob = null;
    this._call('read', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.read, this._sb, s.str(path), b);
      if (rc >= 0) blob = this._inst.takeBlob(this._sb, b);
      return rc;
    }, path);
    return blob;
  }

  /**
   * Writes a whole file. Options: parents (create missing directories),
   * mustNotExist (fail with path_already_exists), expectHash (hex SHA-256
   * the current content must have: compare-and-swap), mode.
   * Resolves to { revision, hash }.
   * @param {string} path
   * @param {T.Content} content
   * @param {{parents?: boolean, mustNotExist?: boolean, expectHash?: string, mode?: number}} [options]
   */
  async writeFile(path, content, options = {}) {
    return this._operation('write', 'write_file', path, () => {
      this._writeFile(path, content, options);
      return { revision: this.revision, hash: this._hash(path) };
    });
  }

  // Runs fn as one host operation of several calls (msb_op_open): the
  // policy's operation rules are checked once, for op, before anything
  // changes, and fn's calls are its steps, so a step's kind (the hash a
  // write reports) is no policy decision of its own. fn is synchronous:
  // no other caller's call can run while the operation is open.
  // The outermost one is one operation in the events: fn gets its id, the
  // one its events carry.
  _operation(what, op, path, fn) {
    const id = this._opOpen(what, op, path);
    try {
      return fn(id);
    } catch (e) {
      this._opFail(e);
      throw e;
    } finally {
      this._opClose();
    }
  }

  // _operation for a tool call that awaits between its steps (execute,
  // apply_patch): the tools run one call at a time per sandbox, and a host
  // call made meanwhile would count as a step.
  async _operationAsync(what, op, path, fn) {
    const id = this._opOpen(what, op, path);
    try {
      return await fn(id);
    } catch (e) {
      this._opFail(e);
      throw e;
    } finally {
      this._opClose();
    }
  }

  _opOpen(what, op, path) {
    try {
      this._call(what, (s) => this._inst.call(OP.op_open, this._sb, s.str(op, 'operation'),
        typeof path === 'string' ? s.str(path, 'path') : 0), path);
    } catch (e) {
      // a denied operation was created all the same; its events carry this id
      if (e instanceof MemSandboxError && e.errno === K.MSB_EPOLICY) {
        Object.assign(e, { operationId: this._inst.call(OP.op_id, this._sb) >>> 0 });
      }
      throw e;
    }
    return this._inst.call(OP.op_id, this._sb) >>> 0;
  }

  _opFail(e) {
    if (this._state === SandboxState.FAILED) return;
    this._inst.call(OP.op_fail, this._sb, e instanceof MemSandboxError && e.errno ? e.errno : K.MSB_EINVAL);
  }

  _opClose() {
    if (this._state === SandboxState.FAILED) return;
    this._inst.call(OP.op_close, this._sb);
    this._flushEvents();
  }

  // The file a path names after following final symbolic links (up to 40,
  // like Linux), so hashes describe content: a link hashes as its target
  // text. A missing path is returned as is (to be created); a loop is left
  // for the caller's read or write to report.
  _contentPath(path) {
    for (let i = 0; i < 40; i++) {
      let st;
      try {
        st = this._stat(path, { followSymlinks: false });
      } catch (e) {
        if (e instanceof MemSandboxError && e.category === 'not_found') return path;
        throw e;
      }
      if (st.kind !== 'symlink') return path;
      const target = this._readlink(path);
      path = normalisePath(path.slice(0, path.lastIndexOf('/')) || '/', target);
    }
    return path;
  }

  // The read_file tool's one operation: the bytes and their hash.
  _toolRead(path) {
    return this._operation('read', 'read_file', path, () => {
      const { data } = this._readBytes(path);
      return { data, hash: this._hash(this._contentPath(path)) };
    });
  }

  // The write_file tool's one operation: the previous content's hash
  // (null when no file was there), the write, the new hash.
  _toolWrite(path, content, options) {
    return this._operation('write', 'write_file', path, () => {
      let previousHash = null;
      let target = path;
      try {
        target = this._contentPath(path);
        if (this._stat(target, {}).kind === 'file') previousHash = this._hash(target);
      } catch (e) {
        if (!(e instanceof MemSandboxError) ||
            (e.category !== 'not_found' && e.code !== 'not_a_directory')) throw e;
      }
      this._writeFile(path, content, options);
      return { previousHash, hash: this._hash(target) };
    });
  }

  _writeFile(path, content, options) {
    if (options.mustNotExist && options.expectHash !== undefined) {
      throw invalid('mustNotExist and expectHash cannot be combined');
    }
    const mode = options.mode ?? 0;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw invalid('mode must be 0..0o7777');
    const data = toBytes(content);
    const hash = options.expectHash === undefined ? null : fromHex(options.expectHash);
    const cond = hash ? K.MSB_WRITE_HASH_EQUALS
      : options.mustNotExist ? K.MSB_WRITE_MUST_NOT_EXIST : K.MSB_WRITE_ANY;
    this._call('write', (s) => this._inst.call(OP.write, this._sb, s.str(path),
      s.bytes(data), data.length, cond, hash ? s.bytes(hash) : 0, mode,
      flag(options.parents, K.MSB_PARENTS)), path);
  }

  /**
   * Appends to a file, creating it if absent.
   * @param {string} path
   * @param {T.Content} content
   * @param {{parents?: boolean}} [options]
   */
  async appendFile(path, content, options = {}) {
    const data = toBytes(content);
    this._call('append', (s) => this._inst.call(OP.append, this._sb, s.str(path),
      s.bytes(data), data.length, flag(options.parents, K.MSB_PARENTS)), path);
    return { revision: this.revision };
  }

  /**
   * Stats a path: { kind: 'file' | 'directory' | 'symlink', mode, size,
   * mtimeMs, nodes, bytes }. Follows a final symlink unless
   * { followSymlinks: false }.
   * @param {string} path
   * @param {{followSymlinks?: boolean}} [options]
   * @returns {Promise<T.Stat>}
   */
  async stat(path, options = {}) {
    return this._stat(path, options);
  }

  /**
   * @param {string} path
   * @param {{followSymlinks?: boolean}} options
   * @returns {T.Stat}
   */
  _stat(path, options) {
    let st = null;
    this._call('stat', (s) => {
      const rec = this._inst.outRec;
      const rc = this._inst.call(OP.stat, this._sb, s.str(path),
        flag(options.followSymlinks === false, K.MSB_NOFOLLOW), rec);
      if (rc < 0) return rc;
      const dv = this._inst.dv();
      st = {
        kind: KINDS[dv.getInt32(rec + K.MSB_WASM_STAT_KIND, true)] ?? 'unknown',
        mode: dv.getUint32(rec + K.MSB_WASM_STAT_MODE, true),
        size: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_SIZE, true)),
        mtimeMs: Number(dv.getBigInt64(rec + K.MSB_WASM_STAT_MTIME, true) / 1000000n),
        nodes: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_NODES, true)),
        bytes: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_BYTES, true)),
      };
      return 0;
    }, path);
    return st;
  }

  /** Whether a path exists (following symlinks). */
  async exists(path) {
    try {
      this._stat(path, {});
      return true;
    } catch (e) {
      if (e instanceof MemSandboxError && e.category === 'not_found') return false;
      throw e;
    }
  }

  /**
   * Entry names of a directory, sorted bytewise; with encoding 'bytes',
   * as Uint8Array, exact for names that are not UTF-8 (a path argument
   * may be bytes too).
   */
  async list(path = '.', options = {}) {
    let names = [];
    this._call('list', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.list, this._sb, s.str(path), b);
      if (rc >= 0) {
        const { data, count } = this._inst.takeBlob(this._sb, b);
        names = [];
        for (let i = 0, at = 0; names.length < count && i <= data.length; i++) {
          if (i < data.length && data[i] !== 0) continue;
          const name = data.slice(at, i);
          names.push(options.encoding === 'bytes' ? name : dec.decode(name));
          at = i + 1;
        }
      }
      return rc;
    }, path);
    return names;
  }

  /**
   * Creates a directory. Options: parents, existOk, mode.
   * @param {string} path
   * @param {{parents?: boolean, existOk?: boolean, mode?: number}} [options]
   */
  async mkdir(path, options = {}) {
    this._call('mkdir', (s) => this._inst.call(OP.mkdir, this._sb, s.str(path),
      options.mode ?? 0, flag(options.parents, K.MSB_PARENTS) |
      flag(options.existOk ?? options.parents, K.MSB_EXIST_OK)), path);
    return { revision: this.revision };
  }

  /**
   * Removes a path. Options: recursive, missingOk.
   * @param {string} path
   * @param {{recursive?: boolean, missingOk?: boolean}} [options]
   */
  async remove(path, options = {}) {
    this._call('remove', (s) => this._inst.call(OP.remove, this._sb, s.str(path),
      flag(options.recursive, K.MSB_RECURSIVE) | flag(options.missingOk, K.MSB_MISSING_OK)),
    path);
    return { revision: this.revision };
  }

  /**
   * Copies a path. Options: recursive, overwrite, parents.
   * @param {string} src
   * @param {string} dst
   * @param {{recursive?: boolean, overwrite?: boolean, parents?: boolean}} [options]
   */
  async copy(src, dst, options = {}) {
    this._call('copy', (s) => this._inst.call(OP.copy, this._sb, s.str(src), s.str(dst),
      flag(options.recursive, K.MSB_RECURSIVE) | flag(options.overwrite, K.MSB_OVERWRITE) |
      flag(options.parents, K.MSB_PARENTS)), src);
    return { revision: this.revision };
  }

  /**
   * Moves a path atomically. Options: overwrite, parents.
   * @param {string} src
   * @param {string} dst
   * @param {{overwrite?: boolean, parents?: boolean}} [options]
   */
  async move(src, dst, options = {}) {
    this._call('move', (s) => this._inst.call(OP.move, this._sb, s.str(src), s.str(dst),
      flag(options.overwrite, K.MSB_OVERWRITE) | flag(options.parents, K.MSB_PARENTS)), src);
    return { revision: this.revision };
  }

  /** Creates a symbolic link at linkPath pointing to target. */
  async symlink(target, linkPath) {
    this._call('symlink', (s) => this._inst.call(OP.symlink, this._sb,
      s.str(target, 'target'), s.str(linkPath)), linkPath);
    return { revision: this.revision };
  }

  /** A symbolic link's target. */
  async readlink(path) {
    return this._readlink(path);
  }

  _readlink(path) {
    let target = null;
    this._call('readlink', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.readlink, this._sb, s.str(path), b);
      if (rc >= 0) target = dec.decode(this._inst.takeBlob(this._sb, b).data);
      return rc;
    }, path);
    return target;
  }

  /** Sets permission bits. */
  async chmod(path, mode) {
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw invalid('mode must be 0..0o7777');
    this._call('chmod', (s) => this._inst.call(OP.chmod, this._sb, s.str(path), mode), path);
    return { revision: this.revision };
  }

  /** SHA-256 of a path (file, directory or link) as hex. */
  async hash(path) {
    return this._hash(path);
  }

  _hash(path) {
    let out = null;
    this._call('hash', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.hash, this._sb, s.str(path), p);
      if (rc >= 0) out = hex(this._inst.bytes(p, 32));
      return rc;
    }, path);
    return out;
  }

  /** Hash of /workspace as hex (the reference product's construction). */
  async rootHash() {
    let out = null;
    this._call('rootHash', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.root_hash, this._sb, p);
      if (rc >= 0) out = hex(this._inst.bytes(p, 32));
      return rc;
    });
    return out;
  }

  /**
   * Applies a patch atomically: a unified diff (diff -u / git diff, with
   * /dev/null for created and deleted files) or an OpenAI V4A patch
   * ("*** Begin Patch" with Add / Update [+ Move to] / Delete File).
   * Options: cwd (where relative patch paths resolve; default
   * /workspace), exact (unified hunks only at their stated lines),
   * dryRun (check and report, change nothing), workspaceOnly (refuse any
   * path with a ".." component or outside /workspace, as the reference
   * product does for a model's patches), expectedHashes ({path: hex} or
   * [{path, hash}]: compare-and-swap guards on the files the patch
   * touches, checked before anything changes). Resolves to { files: [{
   * path, op: 'add' | 'update' | 'delete' | 'move', from (moves),
   * previousHash, currentHash }], revision }.
   * @param {T.Content} patch
   * @param {T.ApplyPatchOptions} [options]
   * @returns {Promise<T.ApplyPatchResult>}
   */
  async applyPatch(patch, options = {}) {
    // one operation, its guard's dry run a step (#22 item 7)
    return this._operation('applyPatch', 'apply_patch', undefined, () => this._applyPatch(patch, options));
  }

  _applyPatch(patch, options) {
    if (options === null || typeof options !== 'object') throw invalid('options must be an object');
    const data = toBytes(patch, 'patch');
    const guards = patchGuards(options.expectedHashes);
    const flags = flag(options.exact, K.MSB_PATCH_EXACT) |
      flag(options.workspaceOnly, K.MSB_PATCH_WORKSPACE);
    const run = (dry) => {
      let files = [];
      this._call('applyPatch', (s) => {
        const b = this._inst.outRec;
        const cwd = options.cwd === undefined ? 0 : s.str(options.cwd, 'cwd');
        const rc = this._inst.call(OP.apply_patch, this._sb, s.bytes(data), data.length,
          cwd, flags | flag(dry, K.MSB_PATCH_DRY_RUN), b);
        if (rc >= 0) files = patchChanges(this._inst.takeBlob(this._sb, b));
        return rc;
      });
      return files;
    };
    try {
      if (guards.size) checkGuardedPatch(guards, options.cwd ?? '/workspace', () => run(true), (p) => this._hash(p));
      const files = run(Boolean(options.dryRun));
      return { files, revision: this.revision };
    } catch (e) {
      throw patchError(e);
    }
  }

  /** The shell session's exported variables as { NAME: value }. */
  async env() {
    return this._sessionEnv();
  }

  // The last execute's environment changes, in order: [{ name, value }],
  // value null for an unset.
  _envChanges() {
    const out = [];
    this._call('env', () => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.env_changes, this._sb, b);
      if (rc >= 0) {
        const { data, count } = this._inst.takeBlob(this._sb, b);
        for (const rec of dec.decode(data).split('\0').slice(0, count)) {
          const i = rec.indexOf('=');
          out.push(rec[0] === 'U' ? { name: rec.slice(1), value: null }
            : { name: rec.slice(1, i), value: rec.slice(i + 1) });
        }
      }
      return rc;
    });
    return out;
  }

  _sessionEnv() {
    /** @type {Record<string, string>} */
    const out = {};
    this._call('env', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.session_env, this._sb, b);
      if (rc >= 0) {
        const { data, count } = this._inst.takeBlob(this._sb, b);
        for (const kv of dec.decode(data).split('\0').slice(0, count)) {
          const i = kv.indexOf('=');
          out[kv.slice(0, i)] = kv.slice(i + 1);
        }
      }
      return rc;
    });
    return out;
  }

  /** The shell session's working directory (where relative paths resolve). */
  get cwd() {
    if (this._pendingCwd !== null) return normalisePath('/workspace', this._pendingCwd);
    let out = '/workspace';
    this._call('cwd', () => {
      out = this._inst.cstring(this._inst.call(OP.session_cwd, this._sb)) || out;
      return 0;
    });
    return out;
  }

  /** The workspace revision: +1 per successful mutation. */
  get revision() {
    let v = 0;
    this._call('revision', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.revision, this._sb, p);
      v = this._inst.u64(p);
      return rc;
    });
    return v;
  }

  /** Bytes the sandbox's allocator holds. */
  get memoryUsed() {
    let v = 0;
    this._call('memoryUsed', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.memory_used, this._sb, p);
      v = this._inst.u64(p);
      return rc;
    });
    return v;
  }

  /** Takes an O(1) checkpoint; resolves to its id. */
  async checkpoint() {
    let id = 0;
    this._call('checkpoint', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.checkpoint, this._sb, p);
      id = this._inst.dv().getUint32(p, true);
      return rc;
    });
    return id;
  }

  /** Returns to a checkpoint (it stays valid). */
  async rollback(id) {
    this._call('rollback', () => this._inst.call(OP.rollback, this._sb, id >>> 0));
  }

  /** Releases a checkpoint. */
  async release(id) {
    this._call('release', () => this._inst.call(OP.release, this._sb, id >>> 0));
  }

  /**
   * The whole state as a deterministic tar.gz (Uint8Array).
   * @param {{level?: number}} [options]
   * @returns {Promise<Uint8Array>}
   */
  async snapshot(options = {}) {
    const level = options.level ?? -1;
    if (!Number.isInteger(level) || level < -1 || level > 9) throw invalid('level must be -1..9');
    return this._snapshotBytes(level);
  }

  _snapshotBytes(level) {
    let data = null;
    this._call('snapshot', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.snapshot, this._sb, level, b);
      if (rc >= 0) data = this._inst.takeBlob(this._sb, b).data;
      return rc;
    });
    return data;
  }

  /**
   * Replaces the whole state (files, shell session, revision) with a
   * snapshot, or with any .tar / .tar.gz (files into /workspace, fresh
   * shell session). All or nothing.
   */
  async restore(archive) {
    const data = toBytes(archive, 'archive');
    this._call('restore', (s) => this._inst.call(OP.restore, this._sb,
      s.bytes(data), data.length));
    // the snapshot's working directory replaces a pending create({cwd})
    this._pendingCwd = null;
    return { revision: this.revision };
  }

  /**
   * A new sandbox holding a snapshot's state (or any .tar / .tar.gz).
   * options are Sandbox.create's: limits, profile, clock, seed, onEvent and
   * wasm apply to the new sandbox; files, directories, cwd and env are
   * applied on top of the restored state.
   * @param {T.Content} archive
   * @param {T.CreateOptions} [options]
   * @returns {Promise<Sandbox>}
   */
  static async fromSnapshot(archive, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalid('options must be an object');
    }
    const data = toBytes(archive, 'archive');
    const { files, directories, cwd, env, ...base } = options;
    const sb = await Sandbox.create(base);
    try {
      await sb.restore(data);
      await sb._seed({ files, directories, cwd, env });
    } catch (e) {
      await sb.close();
      throw e;
    }
    return sb;
  }

  /**
   * The state as content-addressed pieces (state.js): resolves to
   * { manifest, pieces, keys, index } where pieces holds only what
   * options.since (an earlier export, or a set with has(key)) lacks.
   * @param {{since?: any}} [options]
   */
  async exportState(options = {}) {
    return exportState(this, options);
  }

  _stateRecords(sinceLast = false) {
    let data = null;
    this._call('exportState', () => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.state_export, this._sb,
        sinceLast ? K.MSB_STATE_SINCE_LAST : 0, b);
      if (rc >= 0) data = this._inst.takeBlob(this._sb, b).data;
      return rc;
    });
    return data;
  }

  /**
   * A new sandbox from a manifest, fetching pieces with getPiece(key)
   * (sync or async; bytes, or undefined when missing). Validated as
   * restore validates a snapshot; nothing is half-built. options are
   * Sandbox.create's, and trustPieces: the pieces come from the host's
   * own store, so they are not hashed against their keys (the root hash
   * is still checked).
   * @param {any} manifest
   * @param {(key: string) => any} getPiece
   * @param {T.CreateOptions & {trustPieces?: boolean}} [options]
   * @returns {Promise<Sandbox>}
   */
  static async importState(manifest, getPiece, options = {}) {
    if (typeof getPiece !== 'function') throw invalid('getPiece must be a function');
    const { trustPieces = false, ...create } = options;
    const pieces = await collectPieces(manifest, getPiece);
    const sb = await Sandbox.create(create);
    try {
      sb._call('importState', (s) => {
        let ptr = 0;
        const data = importRecords(manifest, pieces, (n) => {
          ptr = s.alloc(n);
          return sb._inst.u8().subarray(ptr, ptr + n);
        }, trustPieces === true);
        return sb._inst.call(OP.state_import, sb._sb, ptr, data.length);
      });
    } catch (e) {
      await sb.close();
      throw e;
    }
    sb._pendingCwd = null;
    return sb;
  }

  /**
   * Replaces the policy, atomically: the text form of memsandbox.h, or
   * { allowCommands, denyCommands, paths: { PREFIX: 'none' | 'read-only' |
   * 'read-write' }, allowOperations, denyOperations }. An empty policy
   * allows everything. A denial later is an MSB_EPOLICY error
   * (category 'policy_denied') for host operations, and status 126 with
   * "NAME: command denied by policy" for commands.
   * @param {T.Policy | string} policy
   */
  async setPolicy(policy) {
    const text = policyText(policy);
    const data = toBytes(text, 'policy');
    this._call('setPolicy', (s) => this._inst.call(OP.set_policy, this._sb,
      s.bytes(data), data.length));
    this._policyText = text; // a serialize fork sets it again
  }

  /**
   * An independent sandbox with identical state. mode 'memory' (default):
   * a new instance whose memory is a copy of this one's, as fast as copying
   * memory; everything travels, checkpoints included. mode 'serialize': a
   * new sandbox with the same options restored from an uncompressed
   * snapshot (files under /tmp and /workspace, the shell session); slower,
   * but its memory holds only the state.
   * @param {T.ForkOptions} [options]
   * @returns {Promise<Sandbox>}
   */
  async fork(options = {}) {
    this._check();
    // a copy of the memory would hold a run stopped half way
    if (this._running) throw invalid('cannot fork while an execute is running');
    const mode = options.mode ?? 'memory';
    if (mode !== 'memory' && mode !== 'serialize') {
      throw invalid(`unknown fork mode "${mode}" (memory or serialize)`);
    }
    const info = { ...this._info, onEvent: options.onEvent ?? this._info.onEvent };
    if (mode === 'serialize') {
      // one fork operation (its rule, its events); the snapshot is a step
      // of it, not a create_snapshot of its own
      const archive = this._operation('fork', 'fork', undefined, () => this._snapshotBytes(0));
      const child = await Sandbox.fromSnapshot(archive, { wasm: info.module,
        limits: info.limits, profile: info.profile, seed: info.seed,
        onEvent: info.onEvent, clock: info.systemClock ? 'system' : info.clockNs });
      try {
        if (this._policyText) await child.setPolicy(this._policyText);
      } catch (e) {
        await child.close();
        throw e;
      }
      child._pendingCwd = this._pendingCwd;
      return child;
    }
    let sbClock = () => 0n;
    // no secret value left on the stack by an earlier call travels along
    // (first: the wipe is owed by the last call that bound secrets)
    this._inst.call(OP.wipe_stack);
    // the policy's fork rule and the fork's events: a memory copy never
    // reaches the core's msb_fork
    this._call('fork', (s) => this._inst.call(OP.op_record, this._sb, s.str('fork', 'operation')));
    const src = this._inst.memory;
    const inst = new Instance(info.module, info.maxPages, info.seed, () => sbClock(), src);
    // Instantiation wrote the data segments; the copy replaces them with
    // this instance's current data, heap and stack (its scratch records
    // included).
    new Uint8Array(inst.memory.buffer).set(new Uint8Array(src.buffer));
    inst.scratch = this._inst.scratch;
    const child = new Sandbox(inst, this._sb, info);
    sbClock = () => child._clockNow();
    child._pendingCwd = this._pendingCwd;
    child._runRec = this._runRec; // copied along with the memory
    child._state = SandboxState.RUNNING;
    // the copy carries the policy (C memory); the events are the child's own
    child._emit({ kind: 'sandbox.created', forkedFrom: this.id });
    child._emit({ kind: 'sandbox.started' });
    return child;
  }

  _destroy() {
    let closed = false;
    try {
      if (this._state !== SandboxState.FAILED) {
        this._inst.call(OP.close, this._sb);
        closed = true;
      }
    } catch {
      // Closing a broken instance: dropping it frees everything anyway.
    }
    // wasm calls are synchronous and this instance is unreachable from
    // here on, so nothing writes the memory another instance takes over
    if (closed) this._inst.release();
    this._inst = null;
  }

  /** `await using sb = await Sandbox.create()` closes it at scope exit. */
  async [Symbol.asyncDispose]() {
    await this.close();
  }

  /** Closes the sandbox; idempotent. */
  async close() {
    if (this._state === SandboxState.CLOSED) return;
    if (this._inst && this._state !== SandboxState.FAILED) this._flushEvents();
    this._emit({ kind: 'sandbox.closing' });
    if (this._inst) this._destroy();
    this._state = SandboxState.CLOSED;
    this._emit({ kind: 'sandbox.closed' });
  }
}

// The asynchronous operations wait for an execute in progress (paused
// between two slices) to end, then run in the order they were called;
// execute queues itself the same way. Only the synchronous members
// (getters, parseCheck) cannot wait: the core refuses them (busy()).
for (const name of ['readFile', 'writeFile', 'appendFile', 'stat', 'exists', 'list', 'mkdir',
  'remove', 'copy', 'move', 'symlink', 'readlink', 'chmod', 'hash', 'rootHash', 'applyPatch',
  'env', 'checkpoint', 'rollback', 'release', 'snapshot', 'restore', 'exportState',
  'setPolicy', 'fork']) {
  const op = Sandbox.prototype[name];
  Object.defineProperty(Sandbox.prototype, name, {
    configurable: true, writable: true,
    value: async function afterRun(...args) {
      while (this._running) await this._runEnded;
      return op.apply(this, args);
    },
  });
}

/** Shorthand for Sandbox.create. */
export function createSandbox(options) {
  return Sandbox.create(options);
}

