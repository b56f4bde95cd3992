// check-wasm.mjs - checks each built module's imports and exports.
//
// Usage: node wasm/check-wasm.mjs MODULE.wasm...
// Parses the binary's import and export sections (no wasm tooling needed)
// and fails when a module imports anything outside wasm/imports.allow, when
// its exports differ from wasm/exports.list (plus wasm/exports-emcc.allow,
// helpers Emscripten always adds), or when its memory is not imported.
// Prints one line per check and closes with "check-wasm: N passed, M failed".
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function readList(name) {
  return readFileSync(join(here, name), 'utf8').split('\n')
    .map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
}

// Minimal reader for the parts of the binary format we need.
function parseModule(bytes) {
  let pos = 0;
  const u8 = () => bytes[pos++];
  const leb = () => {
    let result = 0, shift = 0, b;
    do {
      b = u8();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  };
  const name = () => {
    const n = leb();
    const s = new TextDecoder().decode(bytes.subarray(pos, pos + n));
    pos += n;
    return s;
  };
  const limits = () => {
    const flags = u8();
    const min = leb();
    const max = flags & 1 ? leb() : null;
    return { min, max };
  };
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 ||
      bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error('not a wasm module');
  }
  pos = 8;
  const imports = [], exports = [];
  while (pos < bytes.length) {
    const id = u8();
    const size = leb();
    const end = pos + size;
    if (id === 2) {
      for (let n = leb(); n > 0; n--) {
        const mod = name(), field = name(), kind = u8();
        const entry = { module: mod, name: field, kind };
        if (kind === 0) leb();
        else if (kind === 1) { u8(); entry.limits = limits(); }
        else if (kind === 2) entry.limits = limits();
        else if (kind === 3) { u8(); u8(); }
        else throw new Error(`unknown import kind ${kind}`);
        imports.push(entry);
      }
    } else if (id === 7) {
      for (let n = leb(); n > 0; n--) {
        const field = name(), kind = u8();
        leb();
        exports.push({ name: field, kind });
      }
    }
    pos = end;
  }
  return { imports, exports };
}

const allowImports = new Set(readList('imports.allow'));
const initialPages = Number(/#define MSB_WASM_INITIAL_PAGES (\d+)/
  .exec(readFileSync(join(here, 'abi.h'), 'utf8'))[1]);
const wantExports = readList('exports.list');
const emccExtra = new Set([...readList('exports-emcc.allow'),
  ...readList('exports-asyncify.allow')]);
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok' : 'FAIL'} ${what}`);
}

for (const file of process.argv.slice(2)) {
  let mod;
  try {
    mod = parseModule(readFileSync(file));
  } catch (e) {
    check(false, `${file}: ${e.message}`);
    continue;
  }
  const bad = mod.imports.filter((i) => !allowImports.has(`${i.module}.${i.name}`));
  check(bad.length === 0, `${file}: imports within wasm/imports.allow` +
    (bad.length ? ` (unexpected: ${bad.map((i) => `${i.module}.${i.name}`).join(', ')})` : ''));
  const mem = mod.imports.find((i) => i.kind === 2);
  check(mem && mem.module === 'env' && mem.name === 'memory',
    `${file}: memory imported as env.memory`);
  check(mem && mem.limits.min <= initialPages &&
    (mem.limits.max === null || mem.limits.max === 65536),
    `${file}: memory needs at most ${initialPages} pages initially, no maximum below 4 GiB` +
    (mem ? ` (min ${mem.limits.min}, max ${mem.limits.max})` : ''));
  const have = new Set(mod.exports.map((e) => e.name));
  const missing = wantExports.filter((n) => !have.has(n));
  check(missing.length === 0, `${file}: exports every name in wasm/exports.list` +
    (missing.length ? ` (missing: ${missing.join(', ')})` : ''));
  const extra = [...have].filter((n) => !wantExports.includes(n) && !emccExtra.has(n));
  check(extra.length === 0, `${file}: exports nothing else` +
    (extra.length ? ` (extra: ${extra.join(', ')})` : ''));
}
console.log(`check-wasm: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
