// build.mjs - bundles the playground into a static site: node build.mjs
// OUTDIR [NPMDIR]. The page (main.js, main.css) and the worker (worker.js)
// are separate bundles; the package comes from NPMDIR (default
// build/npm), and its memsandbox.wasm is copied beside worker.js, where
// the package's web entry looks for it. Prints the gzipped size of each
// file and the total a first visit transfers.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = fileURLToPath(new URL('.', import.meta.url));
const out = resolve(process.argv[2] ?? join(here, '../build/demo'));
const npm = resolve(process.argv[3] ?? join(here, '../build/npm'));

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: { main: join(here, 'src/main.js'), worker: join(here, 'src/worker.js') },
  outdir: out, bundle: true, format: 'esm', minify: true, sourcemap: false,
  target: ['chrome111', 'firefox114', 'safari16.4'], alias: { memsandbox: join(npm, 'index.js') },
  logLevel: 'warning', legalComments: 'eof',
});
await copyFile(join(here, 'index.html'), join(out, 'index.html'));
await copyFile(join(npm, 'memsandbox.wasm'), join(out, 'memsandbox.wasm'));

let total = 0;
for (const name of (await readdir(out)).sort()) {
  const gz = gzipSync(await readFile(join(out, name)), { level: 9 }).length;
  total += gz;
  console.log(`${name.padEnd(18)} ${(gz / 1024).toFixed(1).padStart(7)} KB gzipped`);
}
console.log(`${'total'.padEnd(18)} ${(total / 1024).toFixed(1).padStart(7)} KB gzipped`);
