// state.mjs - content-addressed state benchmarks (issue 20): in a 2,000-file,
// 8 MB workspace, what an execute that changes one file costs to persist
// (bytes written and the time of exportState + saveState), a cold restore
// from the store, and a fork through the store (a new sandbox from the
// same manifest: nothing written); and SandboxService({ workers: n }) on
// n = 1 and n = the machine's cores running SANDBOXES sandboxes, a script
// each, for the throughput scaling. `make bench` runs it after run.mjs.
//
// Usage: node bench/state.mjs [--quick]
//   MSB_NPM   directory of the built package (default build/npm)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM_DIR = path.resolve(process.env.MSB_NPM || path.join(ROOT, 'build/npm'));
const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 3 : 21;

const SANDBOXES = QUICK ? 100 : 1000;
const { Sandbox, SandboxService, MemoryStore, saveState, loadManifest, pieceReader } =
  await import(pathToFileURL(path.join(NPM_DIR, 'node.js')).href);

// 2,000 files of 4 KiB in 20 directories: 8,192,000 bytes, seeded.
function stateTree() {
  let x = 12345;
  const files = {};
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 100; f++) {
      const b = Buffer.alloc(4096);
      for (let i = 0; i < b.length; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        b[i] = 97 + ((x >>> 16) % 26);
      }
      files[`src/d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`] = b;
    }
  }
  return files;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

async function main() {
  const sb = await Sandbox.create({ files: stateTree(), limits: { max_memory_bytes: 256 << 20 } });
  const store = new MemoryStore();
  let t = performance.now();
  let prev = await sb.exportState();
  const first = await saveState(store, 'sb', prev);
  const firstMs = performance.now() - t;

  const persist = [];
  const written = [];
  const listing = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await sb.execute(`echo "change ${i}" >> src/d07/f042.txt`);
    if (r.exitCode !== 0) throw new Error(r.stderr);
    t = performance.now();
    const e = await sb.exportState({ since: prev });
    const w = await saveState(store, 'sb', e);
    persist.push(performance.now() - t);
    const file = (await sb.readFile('src/d07/f042.txt', { encoding: 'bytes' })).length;
    written.push(w.bytes);
    listing.push(w.bytes - file);
    prev = e;
  }

  // cold restore, pieces hashed against their keys, and trusted (the
  // host's own store: the root hash check alone)
  const hash = await sb.rootHash();
  const restoreRuns = async (trustPieces) => {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      t = performance.now();
      const c = await Sandbox.importState(await loadManifest(store, 'sb'), pieceReader(store),
        { limits: { max_memory_bytes: 256 << 20 }, trustPieces });
      times.push(performance.now() - t);
      if ((await c.rootHash()) !== hash) throw new Error('restore: root hash differs');
      await c.close();
    }
    return times;
  };
  const restore = await restoreRuns(false);
  const restoreTrusted = await restoreRuns(true);

  // a fork through the store: the child's manifest is the parent's, so
  // saving it writes the manifest alone
  const fork = [];
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    const w = await saveState(store, `fork${i}`, { manifest: prev.manifest, pieces: new Map() });
    fork.push(performance.now() - t);
    if (w.pieces !== 0) throw new Error('fork wrote pieces');
  }

  // the pool: SANDBOXES sandboxes, each created and running one script
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const poolRun = async (workers) => {
    const svc = new SandboxService({ workers });
    try {
      const t0 = performance.now();
      await Promise.all(Array.from({ length: SANDBOXES }, async (_, i) => {
        const { sandbox } = await svc.create();
        const r = await sandbox.execute(`for i in $(seq 300); do echo $i; done | wc -l; echo ${i}`);
        if (r.stdout !== `300\n${i}\n`) throw new Error(`pool: ${r.stdout}`);
      }));
      return performance.now() - t0;
    } finally {
      await svc.close();
    }
  };
  const pool1 = await poolRun(1);
  const poolN = cores > 1 ? await poolRun(cores) : pool1;

  const rows = [
    ['first save (8 MB, 2,000 files)', `${first.bytes} B`, `${firstMs.toFixed(1)} ms`],
    ['execute changing one file: written', `${median(written)} B (listings + manifest ${median(listing)} B)`,
      `${median(persist).toFixed(2)} ms`],
    ['cold restore from the store, pieces hashed', '', `${median(restore).toFixed(1)} ms`],
    ['cold restore from the store, trusted', '', `${median(restoreTrusted).toFixed(1)} ms`],
    ['fork through the store (manifest only)', '', `${median(fork).toFixed(3)} ms`],
    [`pool: ${SANDBOXES} sandboxes, 1 worker`, '', `${pool1.toFixed(0)} ms`],
    [`pool: ${SANDBOXES} sandboxes, ${cores} workers`, `scaling ${(pool1 / poolN).toFixed(2)} of ${cores}`,
      `${poolN.toFixed(0)} ms`],
  ];
  for (const r of rows) console.log(r.join(' | '));
  fs.mkdirSync(path.join(ROOT, 'build/bench'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'build/bench/state.json'), JSON.stringify({
    firstBytes: first.bytes, firstMs, writtenBytes: median(written), listingBytes: median(listing),
    persistMs: median(persist), restoreMs: median(restore), restoreTrustedMs: median(restoreTrusted),
    pool: { sandboxes: SANDBOXES, cores, oneWorkerMs: pool1, allWorkersMs: poolN }, forkMs: median(fork), runs: RUNS,
  }, null, 2));
  await sb.close();
}

await main();
