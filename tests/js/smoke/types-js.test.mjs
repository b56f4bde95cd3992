// types-js.test.mjs - the package's JavaScript agrees with its .d.ts files:
// tsc --checkJs over the built package, where each class names the declared
// class it implements (@implements) and each entry point's JSDoc names its
// declared types, so a method missing or returning the wrong shape fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const tsc = here('../node_modules/typescript/bin/tsc');
const npm = here('../../../build/npm/');

// A copy of the package with a tsconfig that checks every .js file in it;
// edit(dir) may change the copy first.
function check(edit = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'msb-types-js-'));
  try {
    cpSync(npm, dir, { recursive: true });
    edit(dir);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        allowJs: true, checkJs: true, noEmit: true, skipLibCheck: true,
        target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
        lib: ['es2023', 'esnext.disposable', 'dom'],
        types: ['node'], typeRoots: [here('../node_modules/@types')],
      },
      include: ['*.js', 'bin/*.js'],
    }));
    return spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', timeout: 120000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('types-js-1 the JavaScript conforms to its declarations', () => {
  const r = check();
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('types-js-2 a declared method the JavaScript lacks is an error', () => {
  const r = check((dir) => {
    const f = join(dir, 'sandbox.js');
    const src = readFileSync(f, 'utf8');
    const cut = src.replace(/\n  async rootHash\(\) \{/, '\n  async rootHashGone() {');
    assert.notEqual(cut, src);
    writeFileSync(f, cut);
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /rootHash/);
});
