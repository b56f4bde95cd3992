// tools.js - the four model-facing tools (execute, read_file, write_file,
// apply_patch) over one Sandbox, with the reference product's argument
// names, defaults, limits and JSON envelopes.
//
// Each tool is { name, description, parameters, execute(args) }, where
// parameters is a strict JSON Schema (every property listed in required,
// optional ones nullable, additionalProperties false: the shape OpenAI's
// strict mode demands) and execute resolves to an envelope, never throws:
// { ok: true, result } or { ok: false, error: { category, code, message,
// correctable, retryable } }. Arguments are checked against the same
// schema objects the model sees, so the two cannot drift apart.
// toolResultText() renders an envelope the way the reference does: compact
// JSON with sorted keys and ASCII escapes.
//
// Improvements over the reference (stated in the descriptions too):
// read_file on a range past the line or byte limit returns what fits with
// truncated: true and next_start_line instead of failing; apply_patch takes
// unified diffs (with offsets, creates and deletes) and V4A patches, and
// reports the operation per file.
//
// Runtime-neutral: no node: imports; works wherever core.js does.
//
// Types: tools.d.ts (the directive below points Deno at it).
// @ts-self-types="./tools.d.ts"
import { MemSandboxError, normalisePath } from './core.js';
import { EXTRA_TOOLS } from './tools-extra.js';
import { patchedSize, referencePatch } from './patch.js';

const enc = new TextEncoder();
const strictDec = new TextDecoder('utf-8', { fatal: true });
const dec = new TextDecoder('utf-8');

/** The reference product's defaults (memsandbox-spec §1.10, §4). */
export const TOOL_LIMITS = Object.freeze({
  maxReadLines: 2000,
  maxReadBytes: 262144,
  maxPatchBytes: 1048576,
  maxOutputBytes: 262144,
});

const HASH = '^[0-9a-f]{64}$';

const SCHEMAS = {
  execute: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1,
        description: 'The command line (bash syntax: pipes, &&, redirection, loops).' },
      timeout_seconds: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 30,
        description: 'At most 30. Runs are also bounded by a deterministic step limit. Null for the default.' },
      max_output_bytes: { type: ['integer', 'null'], minimum: 1, maximum: 262144,
        description: 'Cap for stdout and for stderr, each (default 262144).' },
    },
    required: ['command', 'timeout_seconds', 'max_output_bytes'],
    additionalProperties: false,
  },
  read_file: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1,
        description: 'File path; relative paths resolve against the current directory.' },
      start_line: { type: ['integer', 'null'], minimum: 1,
        description: 'First line to return, 1-based (default 1).' },
      end_line: { type: ['integer', 'null'], minimum: 1,
        description: 'Last line to return, inclusive (default: the end of the file).' },
    },
    required: ['path', 'start_line', 'end_line'],
    additionalProperties: false,
  },
  write_file: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1,
        description: 'File path; relative paths resolve against the current directory.' },
      content: { type: 'string', description: 'The whole new content (UTF-8 text).' },
      write_condition: {
        type: 'string',
        enum: ['any_current_state', 'path_must_not_exist', 'content_hash_must_equal'],
        description: 'any_current_state: create or replace; path_must_not_exist: create only; ' +
          'content_hash_must_equal: replace only if the file still has expected_hash.',
      },
      expected_hash: { type: ['string', 'null'], pattern: HASH,
        description: 'SHA-256 (64 lowercase hex digits) from read_file or an earlier write; ' +
          'required with content_hash_must_equal, null otherwise.' },
      create_parents: { type: ['boolean', 'null'],
        description: 'Create missing parent directories (default false).' },
    },
    required: ['path', 'content', 'write_condition', 'expected_hash', 'create_parents'],
    additionalProperties: false,
  },
  apply_patch: {
    type: 'object',
    properties: {
      patch: { type: 'string',
        description: 'A unified diff or a V4A patch (*** Begin Patch ... *** End Patch).' },
      expected_hashes: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          properties: {
            path: { type: 'string', minLength: 1 },
            content_hash: { type: 'string', pattern: HASH },
          },
          required: ['path', 'content_hash'],
          additionalProperties: false,
        },
        description: 'Optional guards: each listed file must still have content_hash (default none).',
      },
    },
    required: ['patch', 'expected_hashes'],
    additionalProperties: false,
  },
};

/**
 * The tool names, in the order createTools returns them.
 * @type {readonly import('./tools.js').ToolName[]}
 */
export const TOOL_NAMES = Object.freeze(/** @type {any[]} */ (Object.keys(SCHEMAS)));

const DESCRIPTIONS = {
  execute: 'Execute one command line in the MemSandbox shell (bash syntax; GNU-style ' +
    'ls, cat, grep, sed, find, sort, cut, diff, patch, tar and more: run `help` for the ' +
    'list) inside an in-memory ' +
    'workspace at /workspace. This is not a host shell: no network, no host files, no ' +
    'processes. Shell state (cwd, variables, functions) persists between calls. A ' +
    'non-zero exit is still ok: true; read exit_code, stdout and stderr.',
  read_file: 'Read UTF-8 text from the in-memory workspace: lines start_line..end_line ' +
    '(1-based, inclusive) with the total line count and the SHA-256 content_hash of ' +
    'the whole file (use it as expected_hash). At most 2000 lines or 262144 bytes come ' +
    'back per call; a longer range returns the first part with truncated: true and ' +
    'next_start_line to continue from.',
  write_file: 'Write UTF-8 text with an explicit concurrency precondition ' +
    '(write_condition). Replaces the whole file atomically and returns the previous ' +
    'and current SHA-256 hashes for optimistic concurrency.',
  apply_patch: 'Atomically apply a patch to workspace files: either a unified diff ' +
    '(--- a/path, +++ b/path, @@ hunks; /dev/null creates or deletes) or a V4A patch ' +
    '(*** Begin Patch, *** Add File: / *** Update File: [*** Move to:] / *** Delete ' +
    'File:, @@ context anchors, *** End Patch). Paths are relative to /workspace. ' +
    'Context lines must match the file; if any file or hunk fails, nothing changes ' +
    'and the error names the failing file and hunk.',
};

// ---- envelopes -------------------------------------------------------------

const CORRECTABLE = new Set(['invalid_request', 'not_found', 'conflict',
  'quota_exceeded', 'timeout']);

function randomId() {
  const a = new Uint8Array(16);
  globalThis.crypto.getRandomValues(a);
  a[6] = (a[6] & 0x0f) | 0x40; // a version 4 UUID
  a[8] = (a[8] & 0x3f) | 0x80;
  const h = Array.from(a, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

class ToolInputError extends Error {
  constructor(detail) {
    super(detail);
    this.detail = detail;
  }
}

// The Sandbox prefixes some messages with the operation and path
// ("write /workspace/a: file contains ..."); the model gets the reference
// product's wording, which names the path itself where it matters.
function plainMessage(message) {
  return message.replace(/^(?:read|write|stat|hash) \/[^:]*: /, '');
}

// Our codes where the reference has its own (§1.3, §3): the envelope uses
// the reference's unless createTools({ errorCodes: 'memsandbox' }).
const REFERENCE_CODES = { policy_denied: 'session_policy_denied', path_too_long: 'invalid_path',
  sandbox_closed: 'session_closed' };

// The reference's form of a policy denial: "policy denied <kind>: <reason>".
function referenceError(tool, error) {
  const code = REFERENCE_CODES[error.code];
  if (!code) return error;
  if (code === 'session_policy_denied') {
    const reason = /path rules/.test(error.message) ? 'path_denied' : 'operation_denied';
    return { ...error, code, message: `policy denied ${tool}: ${reason}` };
  }
  return { ...error, code };
}

function errorEnvelope(tool, e, operationId, ours = false) {
  if (e instanceof ToolInputError) {
    return { ok: false, error: { category: 'invalid_request', code: 'invalid_tool_input',
      message: `Invalid input for ${tool}`, correctable: true, retryable: false } };
  }
  if (e instanceof MemSandboxError && e.category !== 'internal') {
    const error = { category: e.category, code: e.code, message: plainMessage(e.message),
      correctable: CORRECTABLE.has(e.category), retryable: e.category === 'timeout' };
    // only errors of an operation that was created carry its id
    if (operationId !== undefined) error.operation_id = operationId;
    return { ok: false, error: ours ? error : referenceError(tool, error) };
  }
  return { ok: false, error: { category: 'internal', code: 'internal_error',
    message: 'The sandbox operation failed unexpectedly', correctable: false,
    retryable: false, correlation_id: randomId() } };
}

function domainError(code, category, message) {
  return new MemSandboxError(code, category, message);
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

/**
 * The envelope without what a model has no use for: the result's metadata
 * (session and operation ids, timestamps) and an error's operation_id.
 */
export function compactEnvelope(envelope) {
  if (envelope.ok) {
    const { metadata: _, ...result } = envelope.result;
    return { ok: true, result };
  }
  const { operation_id: _, ...error } = envelope.error;
  return { ok: false, error };
}

/**
 * The envelope as the reference product returns it to the model: compact
 * JSON, keys sorted, non-ASCII escaped as \uXXXX.
 */
export function toolResultText(envelope) {
  return JSON.stringify(sortKeys(envelope)).replace(/[\u007f-\uffff]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

// ---- argument checking -------------------------------------------------------

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(want, have) {
  return want === have || (want === 'number' && have === 'integer');
}

// Checks v against the subset of JSON Schema the tool schemas use.
function check(schema, v, where) {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const have = typeOf(v);
  if (have === 'number' && !Number.isFinite(v)) throw new ToolInputError(`${where} must be a finite number`);
  if (!types.some((t) => typeMatches(t, have))) {
    throw new ToolInputError(`${where} must be ${types.join(' or ')}, not ${have}`);
  }
  if (v === null) return;
  if (schema.enum && !schema.enum.includes(v)) {
    throw new ToolInputError(`${where} must be one of ${schema.enum.join(', ')}`);
  }
  if (typeof v === 'string') {
    if (schema.minLength !== undefined && v.length < schema.minLength) {
      throw new ToolInputError(`${where} must not be empty`);
    }
    if (schema.pattern && !new RegExp(schema.pattern).test(v)) {
      throw new ToolInputError(`${where} must match ${schema.pattern}`);
    }
  }
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) {
      throw new ToolInputError(`${where} must be at least ${schema.minimum}`);
    }
    if (schema.exclusiveMinimum !== undefined && v <= schema.exclusiveMinimum) {
      throw new ToolInputError(`${where} must be greater than ${schema.exclusiveMinimum}`);
    }
    if (schema.maximum !== undefined && v > schema.maximum) {
      throw new ToolInputError(`${where} must be at most ${schema.maximum}`);
    }
  }
  if (have === 'array') v.forEach((item, i) => check(schema.items, item, `${where}[${i}]`));
  if (have === 'object') checkObject(schema, v, where);
}

function checkObject(schema, v, where) {
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) throw new ToolInputError(`${where} must be a plain object`);
  for (const k of Object.keys(v)) {
    if (!Object.hasOwn(schema.properties, k)) throw new ToolInputError(`unknown field ${where === 'arguments' ? '' : where + '.'}${k}`);
  }
  for (const [k, sub] of Object.entries(schema.properties)) {
    const name = where === 'arguments' ? k : `${where}.${k}`;
    if (!Object.hasOwn(v, k) || v[k] === undefined) {
      const nullable = Array.isArray(sub.type) && sub.type.includes('null');
      if (!nullable) throw new ToolInputError(`${name} is required`);
      continue;
    }
    check(sub, v[k], name);
  }
}

function parseArgs(schema, args) {
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      throw new ToolInputError('arguments are not valid JSON');
    }
  }
  if (typeOf(args) !== 'object') throw new ToolInputError('arguments must be an object');
  check(schema, args, 'arguments');
  const out = {};
  for (const k of Object.keys(schema.properties)) out[k] = args[k] ?? null;
  return out;
}

// ---- the tools -----------------------------------------------------------------

// Lone UTF-16 surrogates have no UTF-8 form; encoding would silently
// replace them.
function wellFormed(s) {
  return typeof s.isWellFormed !== 'function' || s.isWellFormed();
}

// A model's path by the reference product's rules (its spec, section 3):
// no NUL, valid UTF-8, no ".." component even when it would stay inside,
// and the result, resolved against cwd, under /workspace.
function toolPath(cwd, path, limits) {
  const bad = (code, message) => domainError(code, 'invalid_request', message);
  if (path === '') throw bad('invalid_path', 'path must not be empty');
  if (path.includes('\0')) throw bad('invalid_path', 'path must not contain NUL');
  if (!wellFormed(path)) throw bad('invalid_path', 'path must be valid UTF-8 text');
  if (path.split('/').includes('..')) throw bad('invalid_path', 'parent traversal is not allowed');
  const abs = normalisePath(cwd, path);
  if (abs !== '/workspace' && !abs.startsWith('/workspace/')) {
    throw bad('path_outside_workspace', 'path must be contained by /workspace');
  }
  // the reference's length rules, on the normalised path (§3)
  if (limits && utf8Length(abs) > limits.max_path_bytes) {
    throw bad('invalid_path', `path exceeds ${limits.max_path_bytes} UTF-8 bytes`);
  }
  if (limits && abs.split('/').some((seg) => utf8Length(seg) > limits.max_segment_bytes)) {
    throw bad('invalid_path', `path segment exceeds ${limits.max_segment_bytes} UTF-8 bytes`);
  }
  return abs;
}

function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length &&
             (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// The first max bytes of data, cut back to a UTF-8 character boundary.
function cutUtf8(data, max) {
  if (data.length <= max) return data;
  let end = max;
  while (end > 0 && (data[end] & 0xc0) === 0x80) end--;
  return data.subarray(0, end);
}

// What failed, as the failing command or the shell recorded it (the core's
// msb_result.failure); null for a 0 exit.
function failureCode(r) {
  if (r.exitCode === 0) return null;
  return r.failure ?? 'nonzero_exit';
}

// Tool calls on one sandbox run one at a time, in arrival order: SDKs run
// a model's parallel tool calls concurrently, and a call's reads (hash
// before a write, environment around a run) must see its own step only.
const queues = new WeakMap();

function serialise(sandbox, fn) {
  const prev = queues.get(sandbox) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  queues.set(sandbox, next.then(() => {}, () => {}));
  return next;
}

// options.secrets: { NAME: value } bound to every execute call (its output
// is redacted by the core); write_file and apply_patch refuse content that
// holds a value. Checked here so a bad value fails at creation.
function toolSecrets(secrets) {
  if (secrets === undefined || secrets === null) return undefined;
  if (typeof secrets !== 'object' || Array.isArray(secrets)) {
    throw new TypeError('secrets must be an object of NAME: value strings');
  }
  for (const [k, v] of Object.entries(secrets)) {
    if (typeof v !== 'string' || v === '') {
      throw new TypeError(`secret ${k} must be a non-empty string`);
    }
  }
  return { ...secrets };
}

// The policy operation an optional tool's call is (its steps are not
// decisions of their own).
const EXTRA_OPS = { edit_file: 'write_file', list_directory: 'list_entries', glob: 'list_entries',
  grep: 'read_file' };

/**
 * The four tools over one sandbox. Options: sessionId (reported in
 * metadata; default a random id), maxReadLines, maxReadBytes,
 * maxPatchBytes, maxOutputBytes (defaults: TOOL_LIMITS), secrets.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {import('./tools.js').ToolOptions} [options]
 * @returns {import('./tools.js').Tool[]}
 */
export function createTools(sandbox, options = {}) {
  if (!sandbox || typeof sandbox.execute !== 'function' || typeof sandbox.applyPatch !== 'function') {
    throw new TypeError('createTools needs a Sandbox');
  }
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  // The class behind the public type: its internal steps make a tool call
  // one operation.
  const own = /** @type {import('./sandbox.js').Sandbox} */ (/** @type {unknown} */ (sandbox));
  const lim = { ...TOOL_LIMITS };
  for (const k of Object.keys(TOOL_LIMITS)) {
    if (options[k] === undefined) continue;
    if (!Number.isSafeInteger(options[k]) || options[k] < 1) {
      throw new TypeError(`${k} must be a positive integer`);
    }
    lim[k] = options[k];
  }
  // The sandbox's id, as the reference reports its session's (the same
  // for every createTools over one sandbox).
  const sessionId = options.sessionId ?? sandbox.id;
  const secrets = toolSecrets(options.secrets);
  const include = options.include ?? [];
  if (!Array.isArray(include) || include.some((n) => !Object.hasOwn(EXTRA_TOOLS, n))) {
    throw new TypeError(`include must list tools among ${Object.keys(EXTRA_TOOLS).join(', ')}`);
  }
  if (![undefined, 'reference', 'compact'].includes(options.envelope)) {
    throw new TypeError("envelope must be 'reference' or 'compact'");
  }
  // Tool writes are host writes: no exec binds the secrets there, so the
  // tools refuse a secret value themselves, with the reference's error.
  const refuseSecrets = (tool, text) => {
    for (const v of Object.values(secrets ?? {})) {
      if (text.includes(v)) {
        throw domainError('protected_value_rejected', 'policy_denied',
          `${tool}: protected values cannot be persisted`);
      }
    }
  };

  const meta = (operationId, startedAt) => ({
    session_id: sessionId,
    operation_id: operationId,
    workspace_revision: sandbox.revision,
    started_at: startedAt,
    completed_at: new Date().toISOString(),
  });

  const resolve = (path) => toolPath(sandbox.cwd, path, sandbox.limits);

  const handlers = {
    async execute(a, operationId, startedAt, signal) {
      const max = Math.min(a.max_output_bytes ?? lim.maxOutputBytes, lim.maxOutputBytes);
      // timeout_seconds and the caller's signal stop the run between slices
      const options = { encoding: 'bytes', secrets };
      if (a.timeout_seconds !== null) options.timeoutMs = a.timeout_seconds * 1000;
      if (signal) options.signal = signal;
      const r = await sandbox.execute(a.command, /** @type {any} */ (options));
      const out = cutUtf8(r.stdout, max);
      const err = cutUtf8(r.stderr, max);
      return {
        metadata: meta(operationId, startedAt),
        exit_code: r.exitCode,
        failure_code: failureCode(r),
        stdout: dec.decode(out),
        stderr: dec.decode(err),
        stdout_original_bytes: r.stdoutBytes,
        stderr_original_bytes: r.stderrBytes,
        stdout_truncated: r.stdoutTruncated || out.length < r.stdout.length,
        stderr_truncated: r.stderrTruncated || err.length < r.stderr.length,
        duration_ms: r.durationMs,
        resulting_cwd: r.cwd,
        environment_changes: own._envChanges(),
        limit: r.limit ?? null,
      };
    },

    async read_file(a, operationId, startedAt) {
      const path = resolve(a.path);
      const start = a.start_line ?? 1;
      if (a.end_line !== null && a.end_line < start) {
        throw new ToolInputError('end_line must not be less than start_line');
      }
      // One operation: the hash is a step of the read, not a policy decision.
      const { data, hash } = own._toolRead(path);
      let text;
      try {
        text = strictDec.decode(data);
      } catch {
        throw domainError('file_encoding_error', 'invalid_request', `${path} is not valid UTF-8`);
      }
      const lines = text === '' ? [] : text.replace(/\r\n?/g, '\n').split('\n');
      if (lines.length && lines[lines.length - 1] === '' && /[\r\n]$/.test(text)) lines.pop();
      const total = lines.length;
      // content joins lines without their ends: final_newline says whether
      // the file's last line has one, so a model can write it back exactly
      const result = { metadata: null, path, content: '', start_line: 1, end_line: 0,
        total_lines: total, content_hash: hash, truncated: false, next_start_line: null,
        final_newline: /[\r\n]$/.test(text) };
      if (total === 0) {
        if (start > 1) {
          throw domainError('invalid_range', 'invalid_request', `start line ${start} is outside a 0-line file`);
        }
        result.metadata = meta(operationId, startedAt);
        return result;
      }
      if (start > total) {
        throw domainError('invalid_range', 'invalid_request',
          `start line ${start} is outside a ${total}-line file`);
      }
      const last = Math.min(a.end_line ?? total, total);
      let end = Math.min(last, start + lim.maxReadLines - 1);
      let bytes = 0;
      const parts = [];
      let cutLine = false;
      for (let i = start; i <= end; i++) {
        const line = lines[i - 1];
        const n = utf8Length(line) + (i > start ? 1 : 0);
        if (bytes + n > lim.maxReadBytes) {
          if (i === start) {
            // One line longer than the budget: its first part, cut back to
            // a character boundary.
            parts.push(dec.decode(cutUtf8(enc.encode(line), lim.maxReadBytes)));
            cutLine = true;
            end = i;
          } else {
            end = i - 1;
          }
          break;
        }
        bytes += n;
        parts.push(line);
      }
      result.content = parts.join('\n');
      result.start_line = start;
      result.end_line = end;
      if (end < last || cutLine) {
        result.truncated = true;
        result.next_start_line = end < total ? end + 1 : null;
        if (cutLine) result.line_truncated = true;
      }
      result.metadata = meta(operationId, startedAt);
      return result;
    },

    async write_file(a, operationId, startedAt) {
      const cond = a.write_condition;
      if (cond === 'content_hash_must_equal' && a.expected_hash === null) {
        throw new ToolInputError('expected_hash is required with content_hash_must_equal');
      }
      if (cond !== 'content_hash_must_equal' && a.expected_hash !== null) {
        throw new ToolInputError(`expected_hash must be null with ${cond}`);
      }
      if (!wellFormed(a.content)) throw new ToolInputError('content must be valid UTF-8 text');
      refuseSecrets('write_file', a.content);
      const path = resolve(a.path);
      // One operation: the hashes and stats are its steps.
      const w = own._toolWrite(path, a.content, {
        parents: a.create_parents === true,
        mustNotExist: cond === 'path_must_not_exist',
        expectHash: cond === 'content_hash_must_equal' ? a.expected_hash : undefined,
      });
      return { metadata: meta(operationId, startedAt), path, created: w.previousHash === null,
        changed: true, previous_hash: w.previousHash, current_hash: w.hash };
    },

    async apply_patch(a, operationId, startedAt) {
      const size = utf8Length(a.patch);
      if (size > lim.maxPatchBytes) {
        throw domainError('invalid_patch', 'invalid_request',
          `patch contains ${size} bytes; limit is ${lim.maxPatchBytes} bytes`);
      }
      if (!wellFormed(a.patch)) throw new ToolInputError('patch must be valid UTF-8 text');
      if (a.patch.includes('\0')) {
        throw domainError('invalid_patch', 'invalid_request', 'patch contains a NUL byte');
      }
      refuseSecrets('apply_patch', a.patch);
      const cwd = sandbox.cwd;
      const guards = [];
      const seen = new Set();
      for (const g of a.expected_hashes ?? []) {
        const abs = toolPath(cwd, g.path);
        if (seen.has(abs)) throw new ToolInputError(`expected_hashes name ${abs} twice`);
        seen.add(abs);
        guards.push({ path: abs, hash: g.content_hash });
      }
      const text = referencePatch(a.patch, (path) => {
        try {
          return own._readBytes(path).data;
        } catch {
          return null; // missing or not a file: the engine says so
        }
      });
      let r;
      try {
        r = await sandbox.applyPatch(text, { expectedHashes: guards, workspaceOnly: true });
      } catch (e) {
        // the reference's numbers: "file contains N bytes; limit is M bytes"
        const m = e instanceof MemSandboxError && e.code === 'file_size_limit_exceeded' &&
          /^(\/.*): File too large$/.exec(e.message);
        if (!m) throw e;
        let old = 0;
        try {
          old = own._readBytes(m[1]).data.length;
        } catch {
          // a new file
        }
        throw domainError('file_size_limit_exceeded', 'quota_exceeded',
          `file contains ${patchedSize(text, m[1], old)} bytes; limit is ${sandbox.limits.max_file_bytes} bytes`);
      }
      return {
        metadata: meta(operationId, startedAt),
        files: r.files.map((f) => ({
          path: f.path, op: f.op, moved_from: f.op === 'move' ? f.from : undefined,
          previous_hash: f.previousHash, current_hash: f.currentHash,
        })),
      };
    },
  };

  // What the optional tools share with the four.
  const ctx = {
    sandbox, resolve, refuseSecrets,
    hashOf: async (path) => sandbox.hash(own._contentPath(path)),
    fail: (code, message) => {
      throw domainError(code, 'invalid_request', message);
    },
  };
  const table = [
    ...TOOL_NAMES.map((name) => ({ name, description: DESCRIPTIONS[name], schema: SCHEMAS[name],
      run: handlers[name], op: name })),
    ...include.map((name) => ({ name, description: EXTRA_TOOLS[name].description,
      schema: EXTRA_TOOLS[name].schema, op: EXTRA_OPS[name],
      run: async (a, operationId, startedAt) => {
        const r = await EXTRA_TOOLS[name].run(a, ctx);
        return { metadata: meta(operationId, startedAt), ...r };
      } })),
  ];
  // 'compact' leaves out the ids and timestamps a model has no use for.
  const compact = options.envelope === 'compact';
  if (![undefined, 'reference', 'memsandbox'].includes(options.errorCodes)) {
    throw new TypeError("errorCodes must be 'reference' or 'memsandbox'");
  }
  const ourCodes = options.errorCodes === 'memsandbox';

  return table.map(({ name, description, schema, run, op }) => ({
    name,
    description,
    parameters: structuredClone(schema),
    // opts.signal (an AbortSignal) cancels an execute call's run
    execute: (args, opts) => serialise(sandbox, async () => {
      let operationId;
      const startedAt = new Date().toISOString();
      try {
        let a;
        try {
          a = parseArgs(schema, args);
        } catch (e) {
          // Proxies and getters can throw anything: still the caller's input.
          throw e instanceof ToolInputError ? e : new ToolInputError('arguments could not be read');
        }
        // As in the reference, a bad path fails before any operation.
        if (typeof a.path === 'string') resolve(a.path);
        // One tool call is one operation: its steps report under its id.
        const result = await own._operationAsync(name, op, a.path, (id) => {
          operationId = String(id);
          return run(a, operationId, startedAt, opts?.signal);
        });
        const env = { ok: true, result };
        return compact ? compactEnvelope(env) : env;
      } catch (e) {
        // a policy denial's operation was created before the decision
        const denied = /** @type {any} */ (e)?.operationId;
        const id = operationId ?? (denied === undefined ? undefined : String(denied));
        const env = errorEnvelope(name, e, id, ourCodes);
        return compact ? compactEnvelope(env) : env;
      }
    }),
  }));
}
