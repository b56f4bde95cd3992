// jq-diff.test.mjs - differential test of the sandbox's jq against real jq
// 1.7.1 (the npm package jq-wasm 1.0.1, a dev dependency of these tests
// only). Every case of tests/cmd/jq*.cases that runs one plain `jq ...`
// command (not sandbox-only) is run twice, through the sandbox and through
// real jq with the same arguments, stdin and files (written into real
// jq's in-memory filesystem under /workspace, its working directory), and
// stdout, stderr and the exit status must be equal. jq-wasm's wrapper trims output and hides the
// exit status, so its Emscripten module is driven directly: its main() is
// called with our argv, stdin is fed byte by byte and both streams are
// captured. Like the other suites it runs once per wasm build (MSB_WASM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseCases } from '../cases.mjs';
import { Sandbox } from '../../build/npm/node.js';

const require = createRequire(import.meta.url);
const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);

/** Loads jq-wasm's Emscripten factory with a hook that runs main() on
 * given bytes and arguments. */
function loadRealJq() {
  const file = require.resolve('jq-wasm/dist/build/jq.js');
  const src = fs.readFileSync(file, 'utf8');
  const anchor = 'raw(jsonString, query, flags = []) {';
  assert.ok(src.includes(anchor), 'jq-wasm 1.0.1 layout changed');
  const hook = 'run2(bytes, args, files) { stdinBuffer = bytes; '
    + 'FS.mkdirTree("/workspace"); for (const f of files) { '
    + 'const p = "/workspace/" + f.path; '
    + 'FS.mkdirTree(p.slice(0, p.lastIndexOf("/"))); FS.writeFile(p, f.data); } '
    + 'FS.chdir("/workspace"); '
    + 'stdoutBuffer = new Uint8Array(0); stderrBuffer = new Uint8Array(0); '
    + 'const code = Module.callMain(args); '
    + 'return { stdout: stdoutBuffer, stderr: stderrBuffer, code }; }, ';
  const patched = src.replace(anchor, hook + anchor)
    .replace(/console\.error\(message\);/, '');
  const m = { exports: {} };
  new Function('module', 'exports', 'require', '__filename', '__dirname',
    patched)(m, m.exports, require, file, '/');
  const b64 = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(patched)[1];
  const wasm = new WebAssembly.Module(Buffer.from(b64, 'base64'));
  return async (args, stdin, files) => {
    const M = await m.exports({
      thisProgram: 'jq', // its messages name argv[0]
      instantiateWasm(imports, done) {
        const inst = new WebAssembly.Instance(wasm, imports);
        done(inst, wasm);
        return inst.exports;
      },
    });
    const saved = process.exitCode;
    const r = M.run2(stdin, args, files);
    process.exitCode = saved;
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exit: r.code };
  };
}

/** Shell words of a simple command line (quotes, no expansions). */
function words(line) {
  const out = [];
  let cur = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === ' ' || ch === '\t') {
      if (cur !== null) out.push(cur);
      cur = null;
    } else if (ch === "'") {
      const j = line.indexOf("'", i + 1);
      cur = (cur ?? '') + line.slice(i + 1, j);
      i = j;
    } else if (ch === '"') {
      let s = '';
      for (i++; line[i] !== '"'; i++) {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1])) i++;
        s += line[i];
      }
      cur = (cur ?? '') + s;
    } else if (ch === '\\') {
      cur = (cur ?? '') + line[++i];
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== null) out.push(cur);
  return out;
}

const cmdDir = fileURLToPath(new URL('../cmd/', import.meta.url));
const cases = fs.readdirSync(cmdDir).filter((f) => /^jq.*\.cases$/.test(f)).sort()
  .flatMap((f) => parseCases(fs.readFileSync(cmdDir + f), cmdDir + f))
  .filter((c) => !c.sandboxOnly && /^jq [^\n]*\n?$/.test(c.cmd) && !/[|;&<>$`]/.test(c.cmd.replace(/'[^']*'/g, '')));

test('jq matches real jq 1.7.1 on every plain jq case', async () => {
  const realJq = loadRealJq();
  assert.ok(cases.length > 1200, `only ${cases.length} cases`);
  const diffs = [];
  for (const c of cases) {
    const argv = words(c.cmd.trim()).slice(1);
    const stdin = c.stdin ?? Buffer.alloc(0);
    const want = await realJq(argv, stdin, c.files);
    const sb = await Sandbox.create({
      seed: 0,
      clock: 1796006400000,
      wasm: WASM,
      files: c.files.map((f) => ({ path: f.path, content: f.data, mode: f.mode })),
    });
    let got;
    try {
      const r = await sb.execute(c.cmd, { stdin: c.stdin ?? undefined, encoding: 'bytes' });
      got = { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exit: r.exitCode };
    } finally {
      await sb.close();
    }
    if (!got.stdout.equals(want.stdout) || !got.stderr.equals(want.stderr) || got.exit !== want.exit)
      diffs.push(`${c.id}: ${c.cmd.trim()}\n  real: ${JSON.stringify(want.stdout.toString())} ${JSON.stringify(want.stderr.toString())} ${want.exit}\n  ours: ${JSON.stringify(got.stdout.toString())} ${JSON.stringify(got.stderr.toString())} ${got.exit}`);
  }
  assert.deepEqual(diffs, [], diffs.join('\n'));
});
