// readme-types.test.mjs - every TypeScript example in README.md (each
// ```ts block, extracted here rather than copied) compiles as its own
// module under `tsc --strict` with TypeScript 5.9 and 7, against the
// installed SDKs' types, in a project where memsandbox sits beside them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consumer } from './consumer.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const COMPILERS = { '5.9': here('../node_modules/typescript/bin/tsc'), 7: here('../node_modules/typescript7/bin/tsc') };
const README = readFileSync(here('../../../README.md'), 'utf8');
const EXAMPLES = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

function compile(project, version, sources) {
  const files = sources.map((src, i) => {
    writeFileSync(join(project.dir, `example${i}.ts`), src);
    return `example${i}.ts`;
  });
  writeFileSync(join(project.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2023', 'esnext.disposable', 'dom'], types: [], skipLibCheck: true,
    },
    files,
  }));
  return spawnSync(process.execPath, [COMPILERS[version], '-p', project.dir], { encoding: 'utf8', timeout: 300000 });
}

test('readme-types-1 the README has TypeScript examples without casts to any', () => {
  assert.ok(EXAMPLES.length >= 5, `${EXAMPLES.length} examples`);
  for (const src of EXAMPLES) assert.doesNotMatch(src, /\bany\b/);
});

for (const [i, version] of Object.keys(COMPILERS).entries()) {
  test(`readme-types-2.${i + 1} the README's examples compile with TypeScript ${version} --strict`, () => {
    const project = consumer();
    try {
      const r = compile(project, version, EXAMPLES);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      // the check can fail: a misspelt import does not compile
      const openai = EXAMPLES.find((src) => src.includes('MemSandboxClient,'));
      const bad = compile(project, version, [openai.replace('MemSandboxClient,', 'MemSandboxClients,')]);
      assert.notEqual(bad.status, 0);
    } finally {
      project.remove();
    }
  });
}
