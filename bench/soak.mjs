// soak.mjs - many sandboxes, many calls, and memory that stays flat (#21).
// Two phases through the npm package:
//   live:   SANDBOXES sandboxes alive at once, each given OPS executes
//           (round-robin: files written, read, piped, variables kept);
//           RSS after a warm-up (each kind of operation once, then --warm
//           calls of `true`) and after the last.
//   cycles: CYCLES create / execute / close cycles, one sandbox at a time;
//           RSS after the first 40% (the process's own heap and the
//           instance pool reach their plateau over the first few
//           thousand: 40,000 cycles end below the 4,000th) and at the end.
// Each phase reports throughput, RSS at start and end, and whether the end
// is within 5% of the start (the "flat"). Outputs are checked, so
// a fast wrong answer fails. Not timed in `make test`: `make bench` runs it
// as a row (bench/run.mjs), or run it alone.
//
// Usage: node --expose-gc bench/soak.mjs [--sandboxes=1000] [--ops=100]
//          [--cycles=10000] [--warm=100] [--json]
//   MSB_NPM   directory of the built package (default build/npm)

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM = path.resolve(process.env.MSB_NPM ?? path.join(ROOT, 'build/npm'));
const { Sandbox } = await import(pathToFileURL(path.join(NPM, 'node.js')).href);

const arg = (name, dflt) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : dflt;
};
const SANDBOXES = arg('sandboxes', 1000);
const OPS = arg('ops', 100);
const CYCLES = arg('cycles', 10000);
const WARM = arg('warm', 100);
const FLAT = 0.05;

// The operations a sandbox takes in turn, each with its expected output:
// state that lasts (files, variables) and state that is dropped (pipes).
// Operation i is STEPS[i % 4] in the (i / 4)-th round, whose line count
// and counter are round + 1.
const round = (i) => `${Math.floor(i / 4) + 1}\n`;
const STEPS = [
  ['n=$((${n:-0}+1)); echo "line $n" >> log.txt; echo $n', round],
  ['wc -l < log.txt', round],
  ['seq 50 | sort -rn | head -1', () => '50\n'],
  ['x=$(cat log.txt | tail -1); echo "${x#line }"', round],
];

const gc = () => { if (globalThis.gc) { globalThis.gc(); globalThis.gc(); } };
const rssMiB = () => { gc(); return process.memoryUsage().rss / 1048576; };

async function step(sb, i) {
  const [script, want] = STEPS[i % STEPS.length];
  const r = await sb.execute(script);
  const expect = want(i);
  if (r.stdout !== expect || r.exitCode !== 0)
    throw new Error(`op ${i}: ${JSON.stringify(r.stdout)} (exit ${r.exitCode}), want ` +
                    `${JSON.stringify(expect)}: ${r.stderr}`);
}

async function live() {
  const rss0 = rssMiB();
  const sbs = [];
  const tc = performance.now();
  for (let s = 0; s < SANDBOXES; s++) sbs.push(await Sandbox.create());
  const createMs = performance.now() - tc;
  // The warm-up runs every kind of operation once, then WARM executes of
  // `true`: a sandbox's own bookkeeping grows over its first 100 or so
  // calls (its allocator holds 30 KiB after 2 calls of `true`, 62 KiB from
  // the 100th on, 5,000 calls alike) and must not grow after.
  for (let i = 0; i < STEPS.length; i++) for (const sb of sbs) await step(sb, i);
  const round1 = rssMiB();
  for (let i = 0; i < WARM; i++) for (const sb of sbs) await sb.execute('true');
  const start = rssMiB();
  const t = performance.now();
  for (let i = STEPS.length; i < OPS; i++) for (const sb of sbs) await step(sb, i);
  const ms = performance.now() - t;
  const n = SANDBOXES * (OPS - STEPS.length);
  const end = rssMiB();
  let used = 0;
  for (const sb of sbs) used += sb.memoryUsed;
  for (const sb of sbs) await sb.close();
  return { sandboxes: SANDBOXES, ops: OPS, executes: n, perSec: n / (ms / 1000),
           createMs: createMs / SANDBOXES,
           rssBeforeMiB: rss0, rssRound1MiB: round1, rssStartMiB: start, rssEndMiB: end,
           usedKiBPerSandbox: used / SANDBOXES / 1024, after: rssMiB() };
}

async function cycles() {
  let start = 0;
  const t = performance.now();
  for (let c = 0; c < CYCLES; c++) {
    if (c === Math.floor(CYCLES * 0.4)) start = rssMiB();
    const sb = await Sandbox.create();
    await step(sb, 0);
    await sb.close();
  }
  const ms = performance.now() - t;
  return { cycles: CYCLES, perSec: CYCLES / (ms / 1000), rssStartMiB: start, rssEndMiB: rssMiB() };
}

const flat = (a, b) => b <= a * (1 + FLAT);
const L = await live();
const C = await cycles();
const out = { live: L, cycles: C, flat: flat(L.rssStartMiB, L.rssEndMiB) &&
  flat(C.rssStartMiB, C.rssEndMiB) };
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(out));
} else {
  const f = (x) => x.toFixed(1);
  console.log(`live: ${L.sandboxes} sandboxes x ${L.ops} executes: ${Math.round(L.perSec)} ` +
    `executes/s, create ${L.createMs.toFixed(2)} ms each; RSS ${f(L.rssBeforeMiB)} MiB before, ` +
    `${f(L.rssRound1MiB)} after a round, ${f(L.rssStartMiB)} after ${WARM} more, ` +
    `${f(L.rssEndMiB)} after the last ` +
    `(${flat(L.rssStartMiB, L.rssEndMiB) ? 'flat' : 'GREW'}); allocator ` +
    `${f(L.usedKiBPerSandbox)} KiB a sandbox; ${f(L.after)} MiB once closed`);
  console.log(`cycles: ${C.cycles} create/execute/close: ${Math.round(C.perSec)}/s; RSS ` +
    `${f(C.rssStartMiB)} MiB after ${C.cycles * 0.4}, ${f(C.rssEndMiB)} at the end ` +
    `(${flat(C.rssStartMiB, C.rssEndMiB) ? 'flat' : 'GREW'})`);
}
process.exitCode = out.flat ? 0 : 1;
