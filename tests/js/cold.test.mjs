// cold.test.mjs - usage texts live in the module's passive cold segment
// (src/cold.h): a new sandbox's memory holds none of them until a --help
// needs one, and then every one reads right, in the sandbox and in forks
// made before or after. The Emscripten build keeps them in its ordinary
// data (MSB_WASM): there only the outputs are checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Sandbox } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const CUT = 'Usage: cut OPTION... [FILE]...\n';
const enc = new TextEncoder();

function find(hay, needle) {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

// Whether the module has a passive data segment (the clang build).
function hasPassive(bytes) {
  let pos = 8;
  const leb = () => {
    let r = 0, s = 0, b;
    do { b = bytes[pos++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
    return r;
  };
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const size = leb();
    if (id === 11) {
      leb(); // count
      return bytes[pos] === 1; // cold.mjs puts the passive segment first
    }
    pos += size;
  }
  return false;
}

const memOf = (sb) => new Uint8Array(sb._inst.memory.buffer);

test('cold-1 --help prints the usage text in new sandboxes and forks', async () => {
  const sb = await Sandbox.create({ wasm: WASM });
  const early = await sb.fork();
  const r = await sb.execute('cut --help | head -1; tree --help | head -1');
  assert.equal(r.stdout, `${CUT}usage: tree [-adfFilpsh] [-L level] [-P pattern] [-I pattern]\n`);
  const late = await sb.fork();
  for (const f of [early, late]) {
    assert.equal((await f.execute('cut --help | head -1')).stdout, CUT);
    assert.equal((await f.execute('sed --help | head -1')).stdout,
      'Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n');
  }
});

test('cold-2 a new sandbox holds no usage text until one is needed', async (t) => {
  if (!hasPassive(readFileSync(WASM))) {
    t.skip('this build keeps its usage texts in ordinary data');
    return;
  }
  const sb = await Sandbox.create({ wasm: WASM });
  await sb.execute('echo hi | cut -c1; ls /; find . -name x');
  assert.equal(find(memOf(sb), enc.encode(CUT)), -1);
  await sb.execute('cut --help');
  const at = find(memOf(sb), enc.encode(CUT));
  assert.ok(at > 0);
  const fresh = await Sandbox.create({ wasm: WASM });
  assert.ok(memOf(fresh).subarray(at, at + 4096).every((b) => b === 0));
});
