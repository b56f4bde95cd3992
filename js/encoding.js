// encoding.js - the small conversions every layer of the package needs:
// content to bytes, hex, environment lists, clocks and host entropy.
import { invalid } from './errors.js';

export const enc = new TextEncoder();
export const dec = new TextDecoder('utf-8', { fatal: false });

/** Content given as a string (UTF-8) or any kind of bytes, as a Uint8Array. */
export function toBytes(content, what = 'content') {
  if (typeof content === 'string') return enc.encode(content);
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  if (ArrayBuffer.isView(content)) {
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  }
  throw invalid(`${what} must be a string or bytes`);
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Lower-case hex of bytes. */
export function hex(bytes) {
  let s = '';
  for (const b of bytes) s += HEX[b];
  return s;
}

/** The 32 bytes of a SHA-256 given as 64 hex digits. */
export function fromHex(s) {
  if (typeof s !== 'string' || !/^[0-9a-fA-F]{64}$/.test(s)) {
    throw invalid('a content hash is 64 hexadecimal digits (SHA-256)');
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** {NAME: value} as checked "NAME=value" strings. */
export function envStrings(env, what) {
  if (env === undefined || env === null) return [];
  if (typeof env !== 'object') throw invalid(`${what} must be an object`);
  return Object.entries(env).map(([k, v]) => {
    if (!ENV_NAME.test(k)) throw invalid(`${what}: invalid variable name "${k}"`);
    if (typeof v !== 'string') throw invalid(`${what}: ${k} must be a string`);
    if (v.includes('\0')) throw invalid(`${what}: ${k} contains a NUL byte`);
    return `${k}=${v}`;
  });
}

/** s as one single-quoted shell word. */
export function shellQuote(s) {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

/** A clock given as a Date, milliseconds or BigInt ns, in BigInt ns. */
export function toNs(clock) {
  if (typeof clock === 'bigint') return clock;
  if (clock instanceof Date) return BigInt(clock.getTime()) * 1000000n;
  if (typeof clock === 'number' && Number.isFinite(clock)) {
    return BigInt(Math.trunc(clock)) * 1000000n;
  }
  throw invalid('clock must be "system", a Date, milliseconds, or BigInt ns');
}

// Host entropy for seeds and handles, fetched in batches: one
// getRandomValues call costs about 20 us in Node, more than the rest of
// creating a pooled sandbox.
const entropy = { bytes: new Uint8Array(4096), used: 4096 };

function randomBytes(n) {
  if (entropy.used + n > entropy.bytes.length) {
    globalThis.crypto.getRandomValues(entropy.bytes);
    entropy.used = 0;
  }
  entropy.used += n;
  return entropy.bytes.subarray(entropy.used - n, entropy.used);
}

/** A random 64-bit seed. */
export function randomSeed() {
  const b = randomBytes(8);
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
}

/** A random opaque handle: 32 hex digits. */
export function randomHandle() {
  return hex(randomBytes(16));
}

/** Bytes as base64 text. */
export function toBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** Base64 text as bytes. */
export function fromBase64(text) {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
