// options.js - the host's options checked and turned into what the core
// takes: profiles and limits, linear memory sizes, and policies.
import constants from './constants.js';
import { MemSandboxError, errorFromCode, invalid } from './errors.js';
import { Instance, K, OP, PAGE } from './instance.js';

const MAX_PAGES = 65536;

export const PROFILES = { normal: K.MSB_PROFILE_NORMAL, strict: K.MSB_PROFILE_STRICT };

// Profile defaults, read once per module from a small probe instance.
const profileCache = new WeakMap();

/** A profile's limits as { field: value }, read from the module. */
export function profileLimits(module, profile) {
  let byProfile = profileCache.get(module);
  if (!byProfile) {
    byProfile = new Map();
    profileCache.set(module, byProfile);
  }
  if (byProfile.has(profile)) return byProfile.get(profile);
  const inst = new Instance(module, K.MSB_WASM_INITIAL_PAGES + 16, 0, () => 0n);
  inst.start();
  const n = constants.limitFields.length;
  const p = inst.alloc(8 * n);
  const rc = inst.call(OP.limits_get, profile, p);
  if (rc < 0) throw errorFromCode(rc, `unknown profile ${profile}`);
  if (rc !== n) {
    throw new MemSandboxError('internal_error', 'internal',
      `module has ${rc} limit fields, constants.js has ${n}`);
  }
  const out = {};
  constants.limitFields.forEach((f, i) => {
    out[f.name] = inst.u64(p + 8 * i);
  });
  byProfile.set(profile, out);
  return out;
}

function snakeCase(key) {
  return key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

/** Checks host limits: keys are the C field names or their camelCase form. */
export function normaliseLimits(limits) {
  const out = {};
  if (limits === undefined || limits === null) return out;
  if (typeof limits !== 'object') throw invalid('limits must be an object');
  const known = new Map(constants.limitFields.map((f) => [f.name, f]));
  for (const [key, value] of Object.entries(limits)) {
    const name = snakeCase(key);
    const f = known.get(name);
    if (!f) throw invalid(`unknown limit "${key}"`);
    const max = f.bits === 32 ? 2 ** 32 - 1 : Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw invalid(`limit ${key} must be an integer from 0 to ${max}`);
    }
    const { min } = constants.limits.find((l) => l.name === name);
    if (value < min) throw invalid(`limit ${key} must be at least ${min}`);
    out[name] = value;
  }
  return out;
}

/**
 * Linear memory pages for a sandbox: its allocator cap plus room for the
 * stack, static data and allocator overhead, so the C allocator reports
 * ENOMEM before the instance itself runs out.
 */
export function memoryPages(maxMemoryBytes) {
  const bytes = maxMemoryBytes * 1.25 + 4 * 1024 * 1024;
  return Math.max(K.MSB_WASM_INITIAL_PAGES,
    Math.min(MAX_PAGES, Math.ceil(bytes / PAGE)));
}

const POLICY_ACCESS = new Set(['none', 'read-only', 'read-write']);
const POLICY_FIELDS = new Set(['allowCommands', 'denyCommands', 'paths', 'allowOperations',
  'denyOperations']);

/**
 * The text form of a policy given as a string or an object (see
 * Sandbox.setPolicy). Names and paths may not hold line breaks; the C
 * parser checks the rest and names the bad line.
 */
export function policyText(policy) {
  if (typeof policy === 'string') return policy;
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw invalid('policy must be a string or an object');
  }
  for (const k of Object.keys(policy)) {
    if (!POLICY_FIELDS.has(k)) throw invalid(`unknown policy field "${k}"`);
  }
  const lines = [];
  const word = (v, what) => {
    if (typeof v !== 'string' || v === '' || /[\r\n]/.test(v)) {
      throw invalid(`${what} must be non-empty strings without line breaks`);
    }
    return v;
  };
  const list = (field, keyword) => {
    const v = policy[field];
    if (v === undefined) return;
    if (!Array.isArray(v)) throw invalid(`policy.${field} must be an array`);
    for (const x of v) lines.push(`${keyword} ${word(x, `policy.${field}`)}`);
  };
  list('allowCommands', 'allow-command');
  list('denyCommands', 'deny-command');
  list('allowOperations', 'allow-op');
  list('denyOperations', 'deny-op');
  if (policy.paths !== undefined) {
    if (policy.paths === null || typeof policy.paths !== 'object' || Array.isArray(policy.paths)) {
      throw invalid('policy.paths must be an object of PREFIX: access');
    }
    for (const [prefix, access] of Object.entries(policy.paths)) {
      if (!POLICY_ACCESS.has(access)) {
        throw invalid(`policy.paths["${prefix}"] must be none, read-only or read-write`);
      }
      lines.push(`path ${word(prefix, 'policy.paths keys')} ${access}`);
    }
  }
  return lines.join('\n');
}
