// gen-constants.mjs - turns the C headers' numbers into JSON and an ES module.
//
// Usage: node wasm/gen-constants.mjs include/memsandbox.h wasm/abi.h OUT.json
//        [OUT.js]
// Reads every numeric `#define MSB_*` and every `enum msb_* { ... }` member
// (implicit values counted like C does), the version string, and the limits
// table src/limits.def (checked against `struct msb_limits`), so the JS
// package repeats no number from C. Unparseable values fail the build
// instead of being guessed.
import { readFileSync, writeFileSync } from 'node:fs';
import { defRows } from './def-rows.mjs';

const [memsandboxH, abiH, outJson, outJs] = process.argv.slice(2);
if (!memsandboxH || !abiH || !outJson) {
  console.error('usage: gen-constants.mjs memsandbox.h abi.h out.json [out.js]');
  process.exit(2);
}

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}

function parseNumber(expr, known, where) {
  const e = expr.trim().replace(/^\((.*)\)$/, '$1').trim();
  let m = /^(-?)\s*(0x[0-9a-fA-F]+|\d+)[uUlL]*$/.exec(e);
  if (m) return Number(m[2]) * (m[1] ? -1 : 1);
  if (Object.hasOwn(known, e)) return known[e];
  throw new Error(`${where}: cannot evaluate "${expr}"`);
}

function parseHeader(path, out) {
  const text = stripComments(readFileSync(path, 'utf8'));
  for (const line of text.split('\n')) {
    const m = /^\s*#\s*define\s+(MSB_[A-Z0-9_]+)\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    const [, name, value] = m;
    if (/^".*"$/.test(value)) {
      out.strings[name] = JSON.parse(value);
      continue;
    }
    if (name.endsWith('_H')) continue;
    out.numbers[name] = parseNumber(value, out.numbers, `${path}: ${name}`);
  }
  for (const m of text.matchAll(/enum\s+(msb_\w+)\s*\{([^}]*)\}/g)) {
    let next = 0;
    for (const item of m[2].split(',')) {
      const t = item.trim();
      if (!t) continue;
      const [name, value] = t.split('=').map((s) => s.trim());
      const v = value === undefined ? next
        : parseNumber(value, out.numbers, `${path}: ${name}`);
      out.numbers[name] = v;
      next = v + 1;
    }
  }
  const lim = /typedef\s+struct\s+msb_limits\s*\{([^}]*)\}/.exec(text);
  if (lim) {
    out.limitFields = [];
    for (const decl of lim[1].split(';')) {
      const m2 = /(uint32_t|uint64_t)\s+(\w+)\s*$/.exec(decl.trim());
      if (m2) out.limitFields.push({ name: m2[2], bits: m2[1] === 'uint32_t' ? 32 : 64 });
    }
  }
}

const UNITS = { KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };

// One limit from a LIMIT(...) row of limits.def.
function limitRow([id, name, type, normal, strict, min, code, noun, bounds], numbers) {
  const value = (e) => {
    const m = /^(KiB|MiB|GiB)\((\d+)\)$/.exec(e);
    return m ? Number(m[2]) * UNITS[m[1]] : parseNumber(e, numbers, `limits.def: ${id}`);
  };
  if (type !== 'uint32_t' && type !== 'uint64_t') {
    throw new Error(`limits.def: ${id}: type ${type}`);
  }
  return { name, bits: type === 'uint32_t' ? 32 : 64, normal: value(normal),
    strict: value(strict), min: value(min), noun: JSON.parse(noun),
    bounds: JSON.parse(bounds) };
}

const out = { numbers: {}, strings: {}, limitFields: null };
parseHeader(memsandboxH, out);
parseHeader(abiH, out);
if (!out.limitFields || out.limitFields.length === 0) {
  throw new Error(`${memsandboxH}: struct msb_limits not found`);
}
const limitsDef = new URL('../src/limits.def', import.meta.url);
const limits = defRows(readFileSync(limitsDef, 'utf8'), 'LIMIT')
  .map((r) => limitRow(r, out.numbers));
const declared = JSON.stringify(out.limitFields);
if (JSON.stringify(limits.map(({ name, bits }) => ({ name, bits }))) !== declared) {
  throw new Error(`${memsandboxH}: struct msb_limits differs from src/limits.def`);
}
const slots = out.numbers.MSB_WASM_OPEN_SLOTS - out.numbers.MSB_WASM_OPEN_LIMITS;
if (slots !== out.limitFields.length) {
  throw new Error(`abi.h has ${slots} limit slots, msb_limits has ${out.limitFields.length} fields`);
}

// Result codes: every negative MSB_E* constant, by name and by value, and
// their JS code and category from src/errors.def, which must list the same.
const codes = {};
for (const [name, v] of Object.entries(out.numbers)) {
  if (/^MSB_E[A-Z]+$/.test(name) && v < 0) codes[name] = v;
}
const errorKinds = {};
const errorsDef = new URL('../src/errors.def', import.meta.url);
for (const [name, value, , jsCode, jsCategory] of defRows(readFileSync(errorsDef, 'utf8'), 'ERR')) {
  if (Number(value) === 0) continue;
  if (codes[`MSB_${name}`] !== Number(value)) {
    throw new Error(`src/errors.def: MSB_${name} is ${value}, not ${codes[`MSB_${name}`]} as in ${memsandboxH}`);
  }
  errorKinds[`MSB_${name}`] = [JSON.parse(jsCode), JSON.parse(jsCategory)];
}
if (Object.keys(errorKinds).length !== Object.keys(codes).length) {
  throw new Error(`src/errors.def lacks a code of ${memsandboxH}`);
}
const json = {
  version: out.strings.MSB_VERSION,
  codes,
  errorKinds,
  constants: out.numbers,
  limitFields: out.limitFields,
  limits,
};
const text = JSON.stringify(json, null, 2) + '\n';
writeFileSync(outJson, text);
if (outJs) {
  writeFileSync(outJs, '// Generated from include/memsandbox.h, wasm/abi.h and src/*.def by ' +
    'wasm/gen-constants.mjs; do not edit.\nexport default ' + text.trimEnd() + ';\n');
}
