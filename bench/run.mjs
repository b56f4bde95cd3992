// run.mjs - side-by-side benchmarks (`make bench`): MemSandbox's wasm module
// through the npm package (build/npm), just-bash (npm, pinned in
// bench/package.json) and, where the workload is plain shell, real bash and
// GNU tools spawned in a temp directory holding the same files.
//
// Approach: one Node process, one pass. Every input is generated from a
// seeded PRNG so every run and every implementation sees the same bytes.
// Each measurement warms up once, then repeats until it has at least
// MIN_RUNS runs and MIN_MS of samples (capped); every run's output is
// checked against an answer computed here in JS, and a wrong answer is
// reported as WRONG instead of a time. Prints a table (median, min, max
// per implementation, ratios MemSandbox/just-bash and MemSandbox/native)
// and writes the same data to build/bench/results.json.
//
// Usage: node --expose-gc bench/run.mjs [--quick] [--only=substring]
//   --quick   fewer repetitions (1 run after warm-up), for smoke-testing
//   --table   re-print the table of build/bench/results.json
//   MSB_NPM   directory of the built package (default build/npm)

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM_DIR = path.resolve(process.env.MSB_NPM || path.join(ROOT, 'build/npm'));
const OUT_DIR = path.join(ROOT, 'build/bench');
const ARGS = process.argv.slice(2);
const QUICK = ARGS.includes('--quick');
const ONLY = (ARGS.find((a) => a.startsWith('--only=')) || '').slice(7);
const MIN_RUNS = QUICK ? 1 : 5;
const MIN_MS = QUICK ? 0 : 1000;
const MAX_RUNS = 50;
// A measurement that has spent this long stops at 3 runs instead of 5.
const BUDGET_MS = 20000;
// A first run slower than this is reported alone (runs: 1).
const SLOW_MS = 10000;
// Batch sizes: the brief's 1,000 calls per batch; creations and native
// spawns (a few ms each) in smaller batches so a whole run fits in about
// 5 minutes on a busy 2-core machine. Every run is a full batch.
const CREATE_BATCH = 50;
const EXEC_CALLS = 1000;
const NATIVE_CALLS = 50;
const IDLE_SANDBOXES = 1000;

// Node exposes gc only with --expose-gc; the flag can still be set late.
function benchGc() {
  if (typeof globalThis.gc !== 'function') {
    v8.setFlagsFromString('--expose-gc');
    globalThis.gc = vm.runInNewContext('gc');
  }
  globalThis.gc();
}

// ---- deterministic inputs -------------------------------------------------

// mulberry32: tiny, fast and good enough to make inputs irregular.
function benchPrng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('alpha bravo charlie delta echo foxtrot golf hotel india ' +
  'juliet kilo lima mike november oscar papa quebec romeo sierra tango ' +
  'uniform victor whiskey xray yankee zulu foo bar baz qux').split(' ');

// 20 dirs x 100 files of ~2 KiB text (~4 KiB for the state operations'
// 8 MB workspace); about one line in 40 holds "needle".
function benchTree(fileBytes = 2048) {
  const rnd = benchPrng(7);
  const files = {};
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 100; f++) {
      const lines = [];
      let size = 0;
      while (size < fileBytes) {
        const n = 4 + Math.floor(rnd() * 8);
        const w = [];
        for (let i = 0; i < n; i++) w.push(WORDS[Math.floor(rnd() * WORDS.length)]);
        if (rnd() < 0.025) w.splice(Math.floor(rnd() * n), 0, 'needle');
        const line = w.join(' ');
        lines.push(line);
        size += line.length + 1;
      }
      const name = `d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`;
      files[name] = lines.join('\n') + '\n';
    }
  }
  return files;
}

// Lines of random words up to `bytes` bytes, as a Buffer.
function benchText(seed, bytes, lineFn) {
  const rnd = benchPrng(seed);
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const line = lineFn(rnd) + '\n';
    parts.push(line);
    size += line.length;
  }
  return Buffer.from(parts.join(''), 'latin1');
}

function benchWordsLine(rnd, min, spread) {
  const n = min + Math.floor(rnd() * spread);
  const w = [];
  for (let i = 0; i < n; i++) w.push(WORDS[Math.floor(rnd() * WORDS.length)]);
  return w.join(' ');
}

// jq inputs: compact JSON as JSON.stringify writes it, ASCII strings and
// integer numbers only, so jq 1.6, jq 1.7 and every implementation print
// the same bytes and the answers below are computed exactly in JS.
function benchJqItem(rnd, i) {
  return { id: i, name: `${WORDS[Math.floor(rnd() * WORDS.length)]}-${i}`,
           price: Math.floor(rnd() * 100000), qty: Math.floor(rnd() * 50),
           tags: [WORDS[Math.floor(rnd() * WORDS.length)],
                  WORDS[Math.floor(rnd() * WORDS.length)]] };
}

// {"items":[...]} of about `bytes` bytes, and the sum of its prices.
function benchJqDoc(bytes) {
  const rnd = benchPrng(37);
  const parts = [];
  let size = 0;
  let sum = 0;
  for (let i = 0; size < bytes; i++) {
    const it = benchJqItem(rnd, i);
    const s = JSON.stringify(it);
    parts.push(s);
    size += s.length + 1;
    sum += it.price;
  }
  return { data: Buffer.from(`{"items":[${parts.join(',')}]}\n`, 'latin1'), sum };
}

// `n` NDJSON log records, about one in ten at level "error".
function benchJqLog(n) {
  const rnd = benchPrng(41);
  const levels = ['debug', 'info', 'info', 'info', 'warn', 'info', 'debug', 'info', 'warn',
                  'error'];
  const lines = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ ts: 1700000000 + i, level: levels[Math.floor(rnd() * 10)],
                                svc: WORDS[Math.floor(rnd() * WORDS.length)],
                                msg: benchWordsLine(rnd, 2, 6), req: Math.floor(rnd() * 1e6) }));
  }
  return lines.join('\n') + '\n';
}

// Application log: ERROR lines draw from a skewed set of messages.
function benchLog() {
  const comps = ['db', 'web', 'auth', 'cache', 'queue'];
  return benchText(11, 10 * 1024 * 1024, (rnd) => {
    const r = rnd();
    const c = comps[Math.floor(rnd() * rnd() * comps.length)];
    if (r < 0.05) return `ERROR ${c}: timeout on shard ${Math.floor(rnd() * rnd() * 8)}`;
    if (r < 0.15) return `WARN ${c}: slow request id=${Math.floor(rnd() * 1e6)}`;
    return `INFO ${c}: request served id=${Math.floor(rnd() * 1e6)} ` +
      benchWordsLine(rnd, 1, 4);
  });
}

// Zipf-ish single words for sort | uniq -c.
function benchSortInput() {
  return benchText(13, 10 * 1024 * 1024, (rnd) => {
    const k = Math.floor(Math.pow(rnd(), 2) * 2000);
    return `${WORDS[k % WORDS.length]}${k}`;
  });
}

// 32 MB of printable lines (content does not matter to cat | wc -c).
function benchBig() {
  const rnd = benchPrng(17);
  const b = Buffer.alloc(32 * 1024 * 1024);
  for (let i = 0; i < b.length; i++) b[i] = i % 64 === 63 ? 10 : 97 + Math.floor(rnd() * 26);
  return b;
}

// ---- expected answers, computed independently of any shell ---------------

function benchLines(buf) {
  const s = typeof buf === 'string' ? buf : buf.toString('latin1');
  const a = s.split('\n');
  if (a[a.length - 1] === '') a.pop();
  return a;
}

function benchCmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// `sort | uniq -c | sort -rn | head -n`: counts descending; on equal counts
// GNU sort's last-resort whole-line comparison, reversed by -r.
function benchUniqCount(lines, n) {
  const m = new Map();
  for (const l of lines) m.set(l, (m.get(l) || 0) + 1);
  const rows = [...m].map(([l, c]) => `${String(c).padStart(7)} ${l}`);
  rows.sort((x, y) => (parseInt(y, 10) - parseInt(x, 10)) || benchCmp(y, x));
  return rows.slice(0, n).join('\n') + '\n';
}

function benchSha(s) {
  return createHash('sha256').update(s).digest('hex').slice(0, 12);
}

// ---- implementations ------------------------------------------------------

let Sandbox = null;
let Bash = null;

async function benchLoad() {
  const notes = [];
  try {
    ({ Sandbox } = await import(pathToFileURL(path.join(NPM_DIR, 'node.js')).href));
  } catch (e) {
    notes.push(`memsandbox: package not loadable from ${NPM_DIR}: ${e.message}`);
  }
  try {
    ({ Bash } = await import('just-bash'));
  } catch (e) {
    notes.push(`just-bash: not installed (run make bench): ${e.message}`);
  }
  return notes;
}

function benchAbs(files, prefix) {
  const out = {};
  for (const [k, v] of Object.entries(files)) out[`${prefix}/${k}`] = v;
  return out;
}

// Each implementation offers: open(files) -> handle; exec(handle, cmd) ->
// {stdout, stderr, exitCode, limit}; close(handle).
const IMPL = {
  memsandbox: {
    label: 'MemSandbox (wasm)',
    ok: () => !!Sandbox,
    async open(files) {
      return Sandbox.create({ files: benchAbs(files || {}, '/workspace') });
    },
    async exec(h, cmd) {
      const r = await h.execute(cmd);
      return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, limit: r.limit };
    },
    async close(h) {
      await h.close();
    },
  },
  justbash: {
    label: 'just-bash',
    ok: () => !!Bash,
    async open(files) {
      const f = {};
      for (const [k, v] of Object.entries(files || {}))
        f[`/workspace/${k}`] = typeof v === 'string' ? v : Buffer.from(v).toString('latin1');
      return new Bash({ files: f, cwd: '/workspace' });
    },
    async exec(h, cmd) {
      const r = await h.exec(cmd);
      return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, limit: null };
    },
    async close() {},
  },
  native: {
    label: 'bash + GNU (native)',
    ok: () => true,
    async open(files) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-'));
      for (const [k, v] of Object.entries(files || {})) {
        const p = path.join(dir, k);
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, v);
      }
      return dir;
    },
    async exec(dir, cmd) {
      const r = spawnSync('bash', ['-c', cmd], {
        cwd: dir, encoding: 'latin1', maxBuffer: 256 * 1024 * 1024,
        env: { LC_ALL: 'C', PATH: process.env.PATH, HOME: dir },
      });
      return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status, limit: null };
    },
    async close(dir) {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  },
};
const IMPL_NAMES = Object.keys(IMPL);

// ---- measurement ----------------------------------------------------------

function benchNow() {
  return performance.now();
}

// Runs `once` (which returns {ms, err}) after one warm-up; err non-null
// means a wrong answer. Returns {status, median, min, max, runs, detail}.
async function benchMeasure(once, opts = {}) {
  const minRuns = opts.minRuns ?? MIN_RUNS;
  const warm = opts.warmup ?? true;
  const times = [];
  const t0 = benchNow();
  try {
    if (warm) {
      const w = await once();
      if (w.err) return { status: 'WRONG', detail: w.err, wrongMs: w.ms };
      // A run this slow is its own answer: repeating it would take minutes.
      if (w.ms > SLOW_MS)
        return { status: 'ok', median: w.ms, min: w.ms, max: w.ms, runs: 1,
                 detail: 'one run (the first took over 10 s)' };
    }
    for (;;) {
      const spent = benchNow() - t0;
      const need = spent > BUDGET_MS ? Math.min(minRuns, 3) : minRuns;
      if (times.length >= need &&
          (opts.noExtra || spent >= MIN_MS || times.length >= MAX_RUNS)) break;
      const r = await once();
      if (r.err) return { status: 'WRONG', detail: r.err, wrongMs: r.ms };
      times.push(r.ms);
    }
  } catch (e) {
    return { status: 'WRONG', detail: `threw: ${e.message}` };
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  return { status: 'ok', median, min: times[0], max: times[times.length - 1],
           runs: times.length, detail: opts.detail };
}

// Checks one result; `want` is a string (exact stdout) or a function
// returning an error string or null. Exit status must be `status`.
function benchCheck(r, want, status = 0) {
  if (typeof want === 'function') return want(r);
  if (r.exitCode !== status)
    return `exit ${r.exitCode}, want ${status}; stderr: ${String(r.stderr).slice(0, 120)}`;
  if (r.stdout !== want)
    return `stdout ${JSON.stringify(String(r.stdout).slice(0, 80))} (sha ${benchSha(r.stdout)}), ` +
      `want ${JSON.stringify(want.slice(0, 80))} (sha ${benchSha(want)})`;
  return null;
}

// A workload that seeds `files` once per implementation and times `cmd`.
function benchShell(name, files, cmd, want, opts = {}) {
  return {
    name, unit: 'ms', impls: opts.impls || IMPL_NAMES,
    cmd: (impl) => (opts.cmdFor && opts.cmdFor[impl]) || cmd,
    async run(impl) {
      const I = IMPL[impl];
      const h = await I.open(files());
      try {
        const c = this.cmd(impl);
        return await benchMeasure(async () => {
          const t = benchNow();
          const r = await I.exec(h, c);
          const ms = benchNow() - t;
          return { ms, err: benchCheck(r, want, opts.status ?? 0) };
        }, opts);
      } finally {
        await I.close(h);
      }
    },
  };
}

// A jq workload: the native column is Debian's jq 1.6 (/usr/bin/jq, make
// tools-bench), and the MemSandbox column also reports the sandbox's wasm
// memory, loaded and at its peak (linear memory only grows), beside the
// input's size: issue 15's target is a peak under 4x the input.
function benchJq(name, files, cmd, want) {
  const w = benchShell(name, files, cmd, want, { cmdFor: { native: `/usr/bin/${cmd}` } });
  const input = () => Object.values(files()).reduce((n, v) => n + v.length, 0);
  return {
    ...w,
    async run(impl) {
      if (impl !== 'memsandbox') return w.run.call(this, impl);
      const open = IMPL.memsandbox.open;
      let memory = null;
      let loaded = 0;
      IMPL.memsandbox.open = async (f) => {
        const h = await open(f);
        memory = h._inst.memory;
        loaded = memory.buffer.byteLength;
        return h;
      };
      try {
        const r = await w.run.call(this, impl);
        const peak = memory.buffer.byteLength;
        const mib = (b) => (b / 2 ** 20).toFixed(1);
        r.detail = `wasm memory ${mib(loaded)} MiB loaded, ${mib(peak)} MiB peak ` +
          `(${(peak / input()).toFixed(1)}x the ${mib(input())} MiB input)`;
        console.log(`  ${name}: ${r.detail}`);
        return r;
      } finally {
        IMPL.memsandbox.open = open;
      }
    },
  };
}

// ---- workloads ------------------------------------------------------------

function benchWorkloads() {
  const lazy = (fn) => { let v; return () => (v ??= fn()); };
  const tree = lazy(benchTree);
  const log = lazy(benchLog);
  const big = lazy(benchBig);
  const sedIn = lazy(() => benchText(19, 5 * 1024 * 1024, (r) => benchWordsLine(r, 3, 10)));
  const sortIn = lazy(benchSortInput);
  const awkNums = lazy(() => Buffer.from(Array.from({ length: 1000000 }, (_, i) =>
    `${i} ${(i * 7919) % 1000} w${i % 97}\n`).join(''), 'latin1'));
  const awkCsv = lazy(() => benchText(29, 20 * 1024 * 1024, (r) =>
    `${Math.floor(r() * 1e6)},name${Math.floor(r() * 5000)},cat${Math.floor(r() * 50)},` +
    `${Math.floor(r() * 100000)}`));
  const awkWords = lazy(() => benchText(31, 20 * 1024 * 1024, (r) => benchWordsLine(r, 2, 10)));
  const jqDoc = lazy(() => benchJqDoc(20 * 1024 * 1024));
  const jqLog = lazy(() => benchJqLog(200000));
  const jqObjs = lazy(() => {
    const rnd = benchPrng(43);
    return Array.from({ length: 100000 }, (_, i) => benchJqItem(rnd, i));
  });
  const jqArr = lazy(() => Buffer.from(JSON.stringify(jqObjs()) + '\n', 'latin1'));

  const small = () => {
    const f = {};
    for (let i = 0; i < 10; i++) f[`note${i}.txt`] = `small file ${i}\n`;
    return f;
  };

  const treeAll = () => Object.entries(tree());
  const needleLines = lazy(() => treeAll().reduce(
    (n, [, v]) => n + benchLines(v).filter((l) => l.includes('needle')).length, 0));
  const needleFiles = lazy(() => treeAll().filter(([, v]) => v.includes('needle'))
    .map(([k]) => `./${k}`).sort(benchCmp).slice(0, 5).join('\n') + '\n');
  const W = [];

  // -- lifecycle
  W.push({
    name: 'create + close (per creation)', unit: 'ms', target: 'create',
    impls: ['memsandbox', 'justbash'],
    async run(impl) {
      const I = IMPL[impl];
      const N = CREATE_BATCH * 4;
      return benchMeasure(async () => {
        const t = benchNow();
        for (let i = 0; i < N; i++) await I.close(await I.open(null));
        return { ms: (benchNow() - t) / N, err: null };
      }, { noExtra: true });
    },
    note: `batches of ${CREATE_BATCH * 4}: a closed sandbox's memory serves the next`,
  });

  W.push({
    name: `create, ${IDLE_SANDBOXES} kept open (per creation)`, unit: 'ms',
    target: 'create', impls: ['memsandbox', 'justbash'],
    async run(impl) {
      const I = IMPL[impl];
      return benchMeasure(async () => {
        const hs = [];
        const t = benchNow();
        for (let i = 0; i < IDLE_SANDBOXES; i++) hs.push(await I.open(null));
        const ms = (benchNow() - t) / IDLE_SANDBOXES;
        const err = benchCheck(await I.exec(hs[hs.length - 1], 'echo hi'), 'hi\n');
        for (const h of hs) await I.close(h);
        return { ms, err };
      }, { minRuns: 3, noExtra: true });
    },
    note: 'every sandbox a fresh instance and memory',
  });

  W.push({
    name: 'create + echo hi + close (per creation)', unit: 'ms',
    impls: IMPL_NAMES,
    async run(impl) {
      const I = IMPL[impl];
      const N = CREATE_BATCH;
      return benchMeasure(async () => {
        const t = benchNow();
        let err = null;
        for (let i = 0; i < N && !err; i++) {
          const h = await I.open(null);
          err = benchCheck(await I.exec(h, 'echo hi'), 'hi\n');
          await I.close(h);
        }
        return { ms: (benchNow() - t) / N, err };
      }, { noExtra: true });
    },
    note: `batches of ${CREATE_BATCH}; native: mkdtemp + spawn bash -c + rm`,
  });

  W.push({
    name: 'memory per idle sandbox (10 small files, 1000 alive)', unit: 'KiB',
    target: 'idle',
    impls: ['memsandbox', 'justbash'],
    async run(impl) {
      const I = IMPL[impl];
      const N = IDLE_SANDBOXES;
      const hs = [];
      benchGc();
      const m0 = process.memoryUsage();
      let err = null;
      for (let i = 0; i < N; i++) hs.push(await I.open(small()));
      for (const h of hs.slice(0, 3)) {
        err = err || benchCheck(await I.exec(h, 'cat note3.txt'), 'small file 3\n');
      }
      benchGc();
      const m1 = process.memoryUsage();
      for (const h of hs) await I.close(h);
      hs.length = 0;
      benchGc();
      if (err) return { status: 'WRONG', detail: err };
      const rss = (m1.rss - m0.rss) / N / 1024;
      const heap = (m1.heapUsed + m1.external + m1.arrayBuffers -
                    m0.heapUsed - m0.external - m0.arrayBuffers) / N / 1024;
      return { status: 'ok', median: rss, min: rss, max: rss, runs: 1,
               extra: { rssKiB: rss, heapExternalKiB: heap } };
    },
    note: 'process RSS delta / 1000 (heap+external delta in JSON)',
  });

  // #21's soak: in a child process, so the thousand sandboxes neither
  // weigh on the rows after it nor are weighed on by the rows before.
  W.push({
    name: 'soak: 1000 sandboxes x 100 executes, 10000 create/close (bench/soak.mjs)',
    unit: 'µs', impls: ['memsandbox'],
    async run() {
      const soak = path.join(ROOT, 'bench/soak.mjs');
      // --quick keeps the 10,000 cycles: RSS reaches its plateau in the first thousands
      const size = QUICK ? ['--sandboxes=100', '--ops=20', '--warm=20'] : [];
      const p = spawnSync(process.execPath, ['--expose-gc', soak, '--json', ...size],
        { encoding: 'utf8', env: { ...process.env, MSB_NPM: NPM_DIR } });
      let r;
      try { r = JSON.parse(p.stdout.trim().split('\n').pop()); } catch {
        return { status: 'WRONG', detail: p.stderr.slice(-300) };
      }
      const us = 1e6 / r.live.perSec;
      const rss = (x) => `${x.rssStartMiB.toFixed(0)} -> ${x.rssEndMiB.toFixed(0)} MiB`;
      const detail = `live ${rss(r.live)}, cycles ${rss(r.cycles)} ` +
        `(${Math.round(r.cycles.perSec)}/s)${r.flat ? '' : ': RSS GREW past 5%'}`;
      return { status: r.flat ? 'ok' : 'WRONG', median: us, min: us, max: us, runs: 1,
               detail, extra: r };
    },
    note: 'per execute with 1000 alive; RSS after a warm-up and at the end ' +
      '(must stay within 5%)',
  });

  W.push({
    name: 'sequential execute `echo >> file` (per execute)', unit: 'ms',
    impls: IMPL_NAMES,
    async run(impl) {
      const I = IMPL[impl];
      const N = impl === 'native' ? NATIVE_CALLS : EXEC_CALLS;
      const h = await I.open({});
      try {
        return await benchMeasure(async () => {
          await I.exec(h, 'rm -f log.txt');
          const t = benchNow();
          let err = null;
          for (let i = 0; i < N && !err; i++) {
            const r = await I.exec(h, `echo line ${i} >> log.txt`);
            if (r.exitCode !== 0) err = `exit ${r.exitCode}: ${r.stderr}`;
          }
          const ms = (benchNow() - t) / N;
          err = err || benchCheck(await I.exec(h, 'wc -l < log.txt; tail -n 1 log.txt'),
            `${N}\nline ${N - 1}\n`);
          return { ms, err };
        }, { noExtra: true });
      } finally {
        await I.close(h);
      }
    },
    note: `${EXEC_CALLS} calls per batch (native: ${NATIVE_CALLS}, one bash spawn each)`,
  });

  W.push({
    name: 'execute `true` (per call)', unit: 'ms', impls: IMPL_NAMES, target: 'true',
    async run(impl) {
      const I = IMPL[impl];
      const N = impl === 'native' ? NATIVE_CALLS : EXEC_CALLS;
      const h = await I.open({});
      try {
        return await benchMeasure(async () => {
          const t = benchNow();
          let err = null;
          for (let i = 0; i < N && !err; i++) {
            const r = await I.exec(h, 'true');
            if (r.exitCode !== 0 || r.stdout !== '') err = `exit ${r.exitCode}`;
          }
          return { ms: (benchNow() - t) / N, err };
        }, { noExtra: true });
      } finally {
        await I.close(h);
      }
    },
    note: `${EXEC_CALLS} calls per batch (native: ${NATIVE_CALLS}, one bash spawn each)`,
  });

  // -- text processing over the 2,000-file tree and big files
  W.push(benchShell('grep -rn needle . | wc -l (2000 files)', tree,
    'grep -rn needle . | wc -l', (r) => benchCheck(r, `${needleLines()}\n`)));
  W.push(benchShell('grep -rl needle . | sort | head -5', tree,
    'grep -rl needle . | sort | head -5', (r) => benchCheck(r, needleFiles())));
  W.push(benchShell("find -name '*.txt' | wc -l (2000 files)", tree,
    "find / -name '*.txt' | wc -l", (r) => benchCheck(r, '2000\n'),
    { cmdFor: { native: "find . -name '*.txt' | wc -l" } }));
  W.push(benchShell('grep ERROR | sort | uniq -c | sort -rn | head -3 (10 MB log)',
    () => ({ 'app.log': log() }),
    'grep ERROR app.log | sort | uniq -c | sort -rn | head -3',
    (r) => benchCheck(r, benchUniqCount(
      benchLines(log()).filter((l) => l.includes('ERROR')), 3))));
  W.push(benchShell('cat big | wc -c (32 MB)', () => ({ big: big() }),
    'cat big | wc -c', (r) => benchCheck(r, `${big().length}\n`)));
  W.push(benchShell("sed 's/foo/bar/g' f | wc -l (5 MB)", () => ({ f: sedIn() }),
    "sed 's/foo/bar/g' f | wc -l",
    (r) => benchCheck(r, `${benchLines(sedIn()).length}\n`)));
  W.push(benchShell("sed 's/foo/bar/g' f | md5sum (5 MB)",
    () => ({ f: sedIn() }), "sed 's/foo/bar/g' f | md5sum",
    (r) => benchCheck(r, createHash('md5').update(
      sedIn().toString('latin1').replace(/foo/g, 'bar'), 'latin1').digest('hex') + '  -\n'),
    { impls: ['memsandbox', 'native'] }));
  // -- awk: a sum, a group-by, a column pick and a pipe, as agents write them
  W.push(benchShell("awk '{s+=$2} END {print s}' (1,000,000 lines)",
    () => ({ f: awkNums() }), "awk '{s+=$2} END {print s}' f",
    (r) => benchCheck(r, `${benchLines(awkNums()).reduce(
      (n, l) => n + Number(l.split(' ')[1]), 0)}\n`)));
  W.push(benchShell("awk -F, '{c[$3]++} END {for (k in c) ...}' (20 MB CSV)",
    () => ({ f: awkCsv() }),
    "awk -F, '{c[$3]++} END {for (k in c) print k, c[k]}' f",
    (r) => benchCheck({ ...r, stdout: benchLines(r.stdout).sort(benchCmp).join('\n') + '\n' },
      benchUniqCount(benchLines(awkCsv()).map((l) => l.split(',')[2]), 1e9)
        .split('\n').filter(Boolean).map((l) => l.trim().replace(/^(\d+) (.*)$/, '$2 $1'))
        .sort(benchCmp).join('\n') + '\n')));
  W.push(benchShell("awk '{print $1, $NF}' (20 MB)", () => ({ f: awkWords() }),
    "awk '{print $1, $NF}' f | md5sum",
    (r) => benchCheck(r, createHash('md5').update(benchLines(awkWords()).map((l) => {
      const w = l.split(' ');
      return `${w[0]} ${w[w.length - 1]}\n`;
    }).join(''), 'latin1').digest('hex') + '  -\n')));
  W.push(benchShell("sed 's/foo/bar/g' f | awk '{s+=length($0)} END {print s}' (5 MB)",
    () => ({ f: sedIn() }), "sed 's/foo/bar/g' f | awk '{s+=length($0)} END {print s}'",
    (r) => benchCheck(r, `${sedIn().length - benchLines(sedIn()).length}\n`)));
  W.push(benchShell('sort f | uniq -c | sort -rn | head (10 MB)', () => ({ f: sortIn() }),
    'sort f | uniq -c | sort -rn | head',
    (r) => benchCheck(r, benchUniqCount(benchLines(sortIn()), 10))));

  // -- jq: a reduction over one big document, a filter over NDJSON and a
  // table out of an array, as agents write them (native: Debian's jq 1.6)
  W.push(benchJq("jq '.items | map(.price) | add' (20 MB document)",
    () => ({ f: jqDoc().data }), "jq '.items | map(.price) | add' f",
    (r) => benchCheck(r, `${jqDoc().sum}\n`)));
  W.push(benchJq("jq -c 'select(.level == \"error\")' (200,000 NDJSON lines)",
    () => ({ f: jqLog() }), "jq -c 'select(.level == \"error\")' f",
    (r) => benchCheck(r, benchLines(jqLog()).filter((l) => l.includes('"level":"error"'))
      .map((l) => l + '\n').join(''))));
  W.push(benchJq("jq -r '.[] | [.id, .name] | @tsv' (100,000 objects)",
    () => ({ f: jqArr() }), "jq -r '.[] | [.id, .name] | @tsv' f",
    (r) => benchCheck(r, jqObjs().map((o) => `${o.id}\t${o.name}\n`).join(''))));

  // -- interpreter
  W.push(benchShell('for ((i<10000)) x=$((x+i)); f (function call)', () => ({}),
    'f() { :; }; x=0; for ((i=0;i<10000;i++)); do x=$((x+i)); f; done; echo $x',
    (r) => benchCheck(r, '49995000\n')));
  W.push(benchShell('recursive fib(18) (shell functions, no subshells)', () => ({}),
    'fib() { local n=$1 a; if ((n < 2)); then r=$n; return; fi; ' +
    'fib $((n-1)); a=$r; fib $((n-2)); r=$((a+r)); }; fib 18; echo $r',
    (r) => benchCheck(r, '2584\n')));

  // -- workspace state operations (MemSandbox API only) on 2,000 files /
  // 8 MB; targets from the design brief, bashkit's published figures beside
  const tree8 = lazy(() => benchTree(4096));
  for (const [op, label] of STATE_OPS) {
    W.push({
      name: `${label} (2000 files, 8 MB)`, unit: 'ms', state: op,
      impls: ['memsandbox', 'justbash'],
      async run(impl) {
        if (impl === 'justbash') return { status: 'unsupported' };
        return benchWorkspaceOp(op, tree8());
      },
    });
  }

  // -- pathological inputs: time to a correct stop
  const patho = () => ({ p: 'a'.repeat(30000) + '!\n' });
  W.push(benchShell("grep -E '(a+)+$' on 30000 a's + '!'", patho,
    "grep -E '(a+)+$' p", (r) => benchCheck(r, '', 1), { minRuns: 3, noExtra: true }));
  W.push({
    name: 'while true; do :; done (default limits)', unit: 'ms',
    impls: ['memsandbox', 'justbash', 'native'],
    async run(impl) {
      if (impl === 'native') return { status: 'n/a', detail: 'no default limit' };
      const I = IMPL[impl];
      const h = await I.open({});
      try {
        return await benchMeasure(async () => {
          const t = benchNow();
          const r = await I.exec(h, 'while true; do :; done');
          const ms = benchNow() - t;
          let err = null;
          if (r.exitCode === 0) err = 'exit 0';
          else if (impl === 'memsandbox' && r.limit !== 'max_steps')
            err = `limit ${r.limit}, stderr ${r.stderr}`;
          else if (impl === 'justbash' && !/too many|limit/i.test(r.stderr))
            err = `stderr ${r.stderr}`;
          return { ms, err };
        }, { minRuns: 1, warmup: false, noExtra: true });
      } finally {
        await I.close(h);
      }
    },
    note: 'one run each (a run takes seconds)',
  });

  // -- a host that never freezes (issue 17): a 0 ms timer chain runs beside
  // the loop; its longest gap is the longest the event loop stood still
  W.push({
    name: 'longest event-loop stall, 2 s of while true (sliceMs 4)', unit: 'ms',
    target: 'stall', impls: ['memsandbox', 'justbash'],
    async run(impl) {
      const h = impl === 'memsandbox'
        ? await Sandbox.create({ limits: { max_steps: 1e12 } }) : await IMPL[impl].open({});
      const loop = 'while true; do :; done';
      try {
        return await benchMeasure(async () => {
          const gaps = await benchTimerGaps(() => (impl === 'memsandbox'
            ? h.execute(loop, { timeoutMs: 2000, sliceMs: 4 }) : IMPL[impl].exec(h, loop)));
          return { ms: gaps[gaps.length - 1], err: null };
        }, { minRuns: 3, warmup: false, noExtra: true });
      } finally {
        await IMPL[impl].close(h);
      }
    },
    note: 'median of 3 runs of the longest gap between 0 ms timers (just-bash: until its own loop limit)',
  });

  W.push({
    name: 'cancellation latency (abort during while true, to the result)', unit: 'ms',
    target: 'cancel', impls: ['memsandbox'],
    async run() {
      const h = await Sandbox.create({ limits: { max_steps: 1e12 } });
      try {
        return await benchMeasure(async () => {
          const ac = new AbortController();
          let aborted = 0;
          setTimeout(() => { aborted = benchNow(); ac.abort(); }, 20 + Math.random() * 10);
          const r = await h.execute('while true; do :; done', { signal: ac.signal });
          const ms = benchNow() - aborted;
          return { ms, err: r.exitCode === 130 && r.limit === 'cancelled' ? null
            : `exit ${r.exitCode}, limit ${r.limit}` };
        }, { minRuns: 20, noExtra: true });
      } finally {
        await h.close();
      }
    },
    note: '20 aborts at 20-30 ms into the run',
  });
  return W;
}

// Runs start() while a chain of 0 ms timers ticks; the gaps between ticks
// (from the start to the run's end), sorted.
async function benchTimerGaps(start) {
  const gaps = [];
  let last = benchNow();
  let on = true;
  const tick = () => {
    const t = benchNow();
    gaps.push(t - last);
    last = t;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  await start();
  on = false;
  gaps.push(benchNow() - last);
  return gaps.sort((a, b) => a - b);
}

// Targets of the package's lifecycle rows (row.target keys).
const PACKAGE_TARGETS = { create: '<= 0.2 ms', idle: '<= 256 KiB', true: '<= 0.02 ms',
  stall: '<= 10 ms', cancel: '<= 10 ms' };

// The state operations: key, row label, target (ms) and the comparison.
const STATE_OPS = [
  ['checkpoint', 'checkpoint'],
  ['rollback', 'rollback'],
  ['checkpoint-exec', 'execute `true` right after a checkpoint'],
  ['snapshot-cold', 'first snapshot (tar.gz, default level)'],
  ['snapshot', 'snapshot again (tar.gz; file pieces kept)'],
  ['snapshot-changed', 'snapshot after one file changed'],
  ['restore', 'restore (into a fresh sandbox)'],
  ['fork', 'fork (memory copy)'],
  ['fork-kept', 'fork (memory copy, children kept open)'],
  ['fork-serialize', 'fork (serialize)'],
  ['memcopy', "copying the sandbox's memory alone (JS, no instance)"],
];
const STATE_TARGETS = {
  checkpoint: ['< 0.01 ms', 'n/a'], rollback: ['< 0.01 ms', 'n/a'],
  'checkpoint-exec': [null, 'the first change after a checkpoint copies the shell session'],
  memcopy: [null, "the floor of a fork by memory copy on this machine"],
  snapshot: ['< 20 ms', 'bashkit (published): a 200-file workspace commits in 16 ms'],
  'snapshot-cold': ['< 20 ms', 'every file compressed'],
  'snapshot-changed': ['< 20 ms', 'one file compressed'],
  restore: ['< 20 ms', 'bashkit (published): a 200-file workspace restores in 18 ms'],
  fork: ['< 2 ms', 'n/a'], 'fork-kept': ['< 2 ms', 'n/a'],
  'fork-serialize': ['< 2 ms', 'n/a'],
};

// checkpoint / rollback / snapshot / restore / fork on a seeded
// MemSandbox; each run checks the result by root hash (or archive size).
async function benchWorkspaceOp(op, files) {
  if (!Sandbox) return { status: 'n/a', detail: 'package not loadable' };
  const s = await Sandbox.create({ files: benchAbs(files, '/workspace') });
  const hash = await s.rootHash();
  let archive = null;
  try {
    if (op === 'checkpoint-exec') {
      return await benchMeasure(async () => {
        const id = await s.checkpoint();
        const t = benchNow();
        const r = await s.execute('true');
        const ms = benchNow() - t;
        await s.release(id);
        return { ms, err: r.exitCode === 0 ? null : `exit ${r.exitCode}` };
      }, { minRuns: 20 });
    }
    if (op !== 'memcopy' && typeof s[op.replace(/-.*/, '')] !== 'function')
      return { status: 'n/a' };
    if (op === 'snapshot-cold') {
      // a fresh sandbox each run (outside the timed region): nothing kept
      return await benchMeasure(async () => {
        const f = await Sandbox.create({ files: benchAbs(files, '/workspace') });
        try {
          await f.rootHash();
          const t = benchNow();
          const a = await f.snapshot();
          const ms = benchNow() - t;
          return { ms, err: a.length > 0 ? null : 'empty archive' };
        } finally {
          await f.close();
        }
      }, { minRuns: 3, noExtra: true });
    }
    archive = await s.snapshot();
    if (op === 'memcopy') {
      // the bytes a fork copies (after a snapshot, as there), between two
      // warm buffers; the bench reads the instance's memory size, which
      // the API does not expose
      const size = s._inst.memory.buffer.byteLength;
      const from = new Uint8Array(size).fill(1), to = new Uint8Array(size);
      return await benchMeasure(async () => {
        const t = benchNow();
        to.set(from);
        const ms = benchNow() - t;
        return { ms, err: to[size - 1] === 1 ? null : 'copy incomplete' };
      }, { detail: `${size} bytes` });
    }
    if (op === 'snapshot-changed') {
      let i = 0;
      return await benchMeasure(async () => {
        await s.writeFile('/workspace/d07/f042.txt', `changed ${i++}\n`);
        await s.rootHash();
        const t = benchNow();
        const a = await s.snapshot();
        const ms = benchNow() - t;
        return { ms, err: a.length > 0 ? null : 'empty archive' };
      });
    }
    if (op === 'snapshot') {
      return await benchMeasure(async () => {
        const t = benchNow();
        const a = await s.snapshot();
        const ms = benchNow() - t;
        return { ms, err: a.length === archive.length ? null : 'archive size changed' };
      }, { detail: `${archive.length} bytes` });
    }
    if (op === 'restore') {
      const d = await Sandbox.create();
      try {
        return await benchMeasure(async () => {
          const t = benchNow();
          await d.restore(archive);
          const ms = benchNow() - t;
          const h2 = await d.rootHash();
          return { ms, err: h2 === hash ? null : `root hash ${h2} != ${hash}` };
        });
      } finally {
        await d.close();
      }
    }
    if (op === 'checkpoint' || op === 'rollback') {
      // one call each through the JS API (its own overhead included)
      return await benchMeasure(async () => {
        let t = benchNow();
        const id = await s.checkpoint();
        let ms = benchNow() - t;
        await s.writeFile('/workspace/d00/extra.txt', 'x\n');
        t = benchNow();
        await s.rollback(id);
        if (op === 'rollback') ms = benchNow() - t;
        await s.release(id);
        const h2 = await s.rootHash();
        return { ms, err: h2 === hash ? null : 'rollback changed the root hash' };
      }, { minRuns: 20 });
    }
    const mode = op === 'fork-serialize' ? 'serialize' : 'memory';
    if (op === 'fork-kept') {
      // every child stays open, so no fork reuses a closed one's memory
      // (the first fork's cost: a page fault per 4 KiB copied)
      const kept = [];
      try {
        return await benchMeasure(async () => {
          const t = benchNow();
          const f = await s.fork({ mode });
          const ms = benchNow() - t;
          kept.push(f);
          const h2 = await f.rootHash();
          return { ms, err: h2 === hash ? null : 'fork root hash differs' };
        }, { noExtra: true });
      } finally {
        for (const f of kept) await f.close();
      }
    }
    return await benchMeasure(async () => {
      const t = benchNow();
      const f = await s.fork({ mode });
      const ms = benchNow() - t;
      const h2 = await f.rootHash();
      await f.close();
      return { ms, err: h2 === hash ? null : 'fork root hash differs' };
    });
  } finally {
    await s.close();
  }
}

// ---- module size, seeding benchmark, machine ------------------------------

function benchSizes() {
  const out = {};
  const wasm = path.join(NPM_DIR, 'memsandbox.wasm');
  if (fs.existsSync(wasm)) {
    const b = fs.readFileSync(wasm);
    out.memsandbox = { file: path.relative(ROOT, wasm), raw: b.length,
                       gzip: zlib.gzipSync(b, { level: 9 }).length };
  }
  const jb = path.join(ROOT, 'bench/node_modules/just-bash/dist/bundle');
  if (fs.existsSync(jb)) {
    let raw = 0;
    let gz = 0;
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(m?js|wasm)$/.test(e.name) && !/browser|\.cjs$/.test(p)) {
          const b = fs.readFileSync(p);
          raw += b.length;
          gz += zlib.gzipSync(b, { level: 9 }).length;
        }
      }
    };
    walk(jb);
    out.justbash = { file: 'just-bash dist/bundle (ESM, node, without dependencies)',
                     raw, gzip: gz };
  }
  return out;
}

function benchSeed() {
  const bin = path.join(ROOT, 'build/bench-seed');
  if (!fs.existsSync(bin)) return { status: 'n/a', detail: 'build/bench-seed not built' };
  const r = spawnSync(bin, [], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) return { status: 'WRONG', detail: (r.stderr || '').trim() };
  const rows = r.stdout.trim().split('\n').map((line) => {
    const m = line.match(new RegExp('^(\\S+)\\s+(\\d+) files: ([\\d.]+) ms; ' +
      'per file at 1k ([\\d.]+) us, at 10k ([\\d.]+) us, ratio ([\\d.]+)'));
    return m ? { layout: m[1], files: +m[2], totalMs: +m[3], us1k: +m[4],
                 us10k: +m[5], ratio: +m[6], line } : { line };
  });
  return { status: 'ok', rows };
}

function benchMachine() {
  let cpu = 'unknown';
  try {
    const m = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m);
    if (m) cpu = m[1];
  } catch { /* not Linux */ }
  return { cpu, cores: os.cpus().length, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
           node: process.version, platform: `${os.platform()} ${os.release()}`,
           date: new Date().toISOString() };
}

// ---- report ---------------------------------------------------------------

function benchFmt(x, unit) {
  if (x === undefined || x === null) return '';
  if (unit === 'KiB') return x.toFixed(0);
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  if (x >= 1) return x.toFixed(2);
  return x.toFixed(3);
}

function benchCell(r, unit) {
  if (!r) return '-';
  if (r.status !== 'ok') return r.status;
  if (unit === 'KiB') return benchFmt(r.median, unit);
  if (r.runs === 1) return `${benchFmt(r.median)} (1 run)`;
  return `${benchFmt(r.median)} (${benchFmt(r.min)}-${benchFmt(r.max)}, ${r.runs})`;
}

function benchRatio(a, b) {
  if (!a || !b || a.status !== 'ok' || b.status !== 'ok' || !b.median) return null;
  return a.median / b.median;
}

// Two significant digits, so 0.0042 does not print as 0.00.
function benchRatioText(r) {
  if (r == null) return '';
  return r >= 1 ? r.toFixed(2) : r.toPrecision(2);
}

// A markdown table (pipes inside cells escaped).
function benchTable(rows) {
  const head = ['workload', 'unit', 'MemSandbox', 'just-bash', 'native',
                'MSB/just-bash', 'MSB/native'];
  const body = rows.map((w) => [
    w.name.replace(/\|/g, '\\|'), w.unit, benchCell(w.results.memsandbox, w.unit),
    benchCell(w.results.justbash, w.unit), benchCell(w.results.native, w.unit),
    benchRatioText(w.ratios.justbash), benchRatioText(w.ratios.native)]);
  const all = [head, ...body];
  const width = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => '| ' + r.map((c, i) => c.padEnd(width[i])).join(' | ') + ' |';
  return [line(head), '|' + width.map((n) => '-'.repeat(n + 2)).join('|') + '|',
          ...body.map(line)].join('\n');
}

async function benchMain() {
  if (ARGS.includes('--table')) { // re-print the table of the last run
    const old = JSON.parse(fs.readFileSync(path.join(OUT_DIR, 'results.json'), 'utf8'));
    console.log(benchTable(old.rows));
    return;
  }
  const started = benchNow();
  const notes = await benchLoad();
  for (const n of notes) console.log(`note: ${n}`);
  const machine = benchMachine();
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ` +
              `node ${machine.node}, ${machine.date}`);
  const rows = [];
  for (const w of benchWorkloads()) {
    if (ONLY && !w.name.includes(ONLY)) continue;
    const results = {};
    for (const impl of IMPL_NAMES) {
      if (!w.impls.includes(impl)) { results[impl] = { status: 'n/a' }; continue; }
      if (!IMPL[impl].ok()) { results[impl] = { status: 'n/a', detail: 'not loadable' }; continue; }
      const t = benchNow();
      results[impl] = await w.run(impl);
      results[impl].wallMs = Math.round(benchNow() - t);
      process.stderr.write(`  [${(results[impl].wallMs / 1000).toFixed(1)} s] ` +
                           `${impl}: ${w.name}\n`);
      if (results[impl].status === 'WRONG')
        console.log(`  WRONG ${IMPL[impl].label}: ${w.name}: ${results[impl].detail}`);
    }
    const row = { name: w.name, unit: w.unit, note: w.note || null, state: w.state,
                  target: w.target, results,
                  ratios: { justbash: benchRatio(results.memsandbox, results.justbash),
                            native: benchRatio(results.memsandbox, results.native) } };
    rows.push(row);
    console.log(`${w.name}: ` + IMPL_NAMES.map((i) =>
      `${i} ${benchCell(results[i], w.unit)}`).join(', '));
  }
  const sizes = benchSizes();
  const seed = ONLY ? { status: 'skipped' } : benchSeed();
  const out = { machine, quick: QUICK, minRuns: MIN_RUNS, minMs: MIN_MS, rows, sizes, seed,
                totalSeconds: +((benchNow() - started) / 1000).toFixed(1) };
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(path.join(OUT_DIR, 'results.json'), JSON.stringify(out, null, 2) + '\n');

  console.log('\nTimes in ms: median (min-max, runs); ratio < 1: MemSandbox is faster.\n');
  console.log(benchTable(rows));
  const stateRows = rows.filter((r) => r.state);
  if (stateRows.length) {
    console.log('\nState operations (MemSandbox, 2000 files / 8 MB) against the targets:');
    for (const r of stateRows) {
      const [target, other] = STATE_TARGETS[r.state];
      const d = r.results.memsandbox?.detail;
      console.log(`  ${r.name}: ${benchCell(r.results.memsandbox, r.unit)} ms` +
                  `${d ? ` (${d})` : ''}; ${target ? `target ${target}; ` : ''}${other}`);
    }
  }
  const targetRows = rows.filter((r) => r.target);
  if (targetRows.length) {
    console.log('\nThe package against its targets (MemSandbox beside just-bash):');
    for (const r of targetRows) {
      console.log(`  ${r.name}: ${benchCell(r.results.memsandbox, r.unit)} ${r.unit}; ` +
                  `target ${PACKAGE_TARGETS[r.target]}; just-bash ` +
                  `${benchCell(r.results.justbash, r.unit)}`);
    }
  }
  console.log('\nModule size (target: memsandbox.wasm <= 400 KB gzipped):');
  for (const [k, v] of Object.entries(sizes))
    console.log(`  ${k}: ${v.raw} bytes raw, ${v.gzip} bytes gzip -9 (${v.file})`);
  console.log('\nNative seeding (bench/seed.c, build/libmemsandbox.a):');
  if (seed.rows) for (const r of seed.rows) console.log(`  ${r.line}`);
  else console.log(`  ${seed.status}${seed.detail ? `: ${seed.detail}` : ''}`);
  console.log(`\ntotal ${out.totalSeconds} s; wrote ${path.relative(ROOT, OUT_DIR)}/results.json`);
  const wrong = rows.filter((r) => Object.values(r.results).some((x) => x.status === 'WRONG'));
  if (wrong.length) console.log(`${wrong.length} workload(s) with a WRONG answer`);
}

await benchMain();
