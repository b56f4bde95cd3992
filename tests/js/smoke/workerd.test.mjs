// workerd.test.mjs - the package in Cloudflare's workerd (npm's `workerd`),
// through its "workerd" export (edge.js): the worker imports the .wasm as a
// compiled module, as Wrangler does, and passes it in; compiling from bytes
// and import.meta.url are unavailable there, so this also proves the edge
// path needs neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, copyFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const workerd = here('../node_modules/.bin/workerd');
const npm = here('../../../build/npm/');

test('smoke-workerd-1 the edge entry runs in workerd with a precompiled module', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-workerd-'));
  try {
    // every module of the package, as a bundler would include them
    const modules = readdirSync(npm).filter((f) => f.endsWith('.js'));
    for (const f of modules) copyFileSync(join(npm, f), join(dir, f));
    copyFileSync(process.env.MSB_WASM || join(npm, 'memsandbox.wasm'), join(dir, 'memsandbox.wasm'));
    copyFileSync(here('probe.mjs'), join(dir, 'probe.js'));
    writeFileSync(join(dir, 'worker.js'), `
      import wasm from './memsandbox.wasm';
      import * as pkg from './edge.js';
      import { probe, expected } from './probe.js';
      export default {
        async test() {
          const got = await probe(pkg, wasm);
          const a = JSON.stringify(got), b = JSON.stringify(expected);
          if (a !== b) throw new Error('probe mismatch: ' + a + ' != ' + b);
          console.log('probe ok');
        },
      };`);
    writeFileSync(join(dir, 'config.capnp'), `
      using Workerd = import "/workerd/workerd.capnp";
      const config :Workerd.Config = (
        services = [ (name = "main", worker = .w) ],
      );
      const w :Workerd.Worker = (
        modules = [
          (name = "worker.js", esModule = embed "worker.js"),
${modules.map((f) => `          (name = "${f}", esModule = embed "${f}"),\n`).join('')}          (name = "probe.js", esModule = embed "probe.js"),
          (name = "memsandbox.wasm", wasm = embed "memsandbox.wasm"),
        ],
        compatibilityDate = "2025-01-01",
      );`);
    const r = spawnSync(workerd, ['test', join(dir, 'config.capnp')], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 });
    const out = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, `workerd failed:\n${out}`);
    assert.match(out, /\[ PASS \] main/);
    assert.doesNotMatch(out, /\[ FAIL \]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
