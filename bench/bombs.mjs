// bombs.mjs - time to the limit: adversarial one-liners that cost far more
// than their step count suggests, each run in the wasm module through the
// npm package, in a child process killed after a deadline (a run that
// never yields cannot be stopped from its own thread). Prints, per script,
// the wall time and the child's CPU time (on a loaded machine the wall
// time says more about the neighbours), the exit status and the limit
// that stopped it, or "killed" when the deadline passed first.
//
// Usage: node bench/bombs.mjs [--deadline=SECONDS] [--only=substring]
//   MSB_NPM   directory of the built package (default build/npm)

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM = path.resolve(process.env.MSB_NPM ?? path.join(ROOT, 'build/npm'));

const MB60 = "s=$(yes aaaaaaa | head -c 60000000 | tr -d '\\n')";
const BOMBS = [
  ['loop (baseline)', 'normal', 'while :; do :; done'],
  ['loop (baseline)', 'strict', 'while :; do :; done'],
  ['[[ =~ ]] back-reference, 40 a', 'normal',
    "re='^(a|a)*\\1$'; s=$(printf '%*s' 40 '' | tr ' ' a)b; [[ $s =~ $re ]]"],
  ['${s//x/y} on 1 MB in a loop', 'strict',
    "s=$(printf '%1000000s'); while :; do x=${s//x/y}; done"],
  ['${s//x/y} on 1 MB in a loop', 'normal',
    "s=$(printf '%1000000s'); while :; do x=${s//x/y}; done"],
  ['t=$s on 60 MB in a loop', 'normal', `${MB60}; while :; do t=$s; done`],
  [': "$s" on 60 MB in a loop', 'normal', `${MB60}; while :; do : "$s"; done`],
  [': $s on 60 MB in a loop', 'normal', `${MB60}; while :; do : $s; done`],
  [': ${#s} on 60 MB in a loop', 'normal', `${MB60}; while :; do : \${#s}; done`],
  ['echo $s > f on 60 MB in a loop', 'normal',
    `${MB60}; while :; do echo "$s" > f; done`],
  ['cat 60 MB file in a loop', 'normal',
    `${MB60}; echo "$s" > f; unset s; while :; do cat f > /dev/null; done`],
  ["printf '%*s' 999999999 x", 'normal', "printf '%*s' 999999999 x | wc -c"],
  ['{a,b} x 30', 'normal', `echo ${'{a,b}'.repeat(30)} | wc -c`],
  ['3000-deep nested braces', 'normal',
    `echo ${'{a,'.repeat(3000)}b${'}'.repeat(3000)} | wc -c`],
];

// Commands over a 1 MB file in a loop, run to a tenth of the
// normal budget (max_steps 1,000,000) and scaled by 10: the time the whole
// budget would take, without waiting for it. Each command's byte charge
// (CMD_COST_* in src/cmd/cmd.h) is what keeps this within a few seconds.
const MB1 = `printf '%1000000s' | tr ' ' a | fold -w 100 > f; ` +
  `printf '{"a":[%s1]}' "$(printf '1,%.0s' $(seq 150000))" > j.json`;
const SCALED = 10;
const COMMANDS = [
  ['md5sum 1 MB', 'md5sum f'],
  ['sha256sum 1 MB', 'sha256sum f'],
  ['sha512sum 1 MB', 'sha512sum f'],
  ['base64 1 MB', 'base64 f'],
  ['base64 -d 1.3 MB', 'base64 f > f64; while :; do base64 -d f64; done', true],
  ["sed -n '$p' 1 MB", "sed -n '$p' f"],
  ["sed s/a/b/g 1 MB", 'sed s/a/b/g f'],
  ["awk '{n+=length}' 1 MB", "awk '{n+=length} END{print n}' f"],
  ['awk 1 1 MB', 'awk 1 f'],
  ['jq . 1 MB of JSON', 'jq -c . j.json'],
  ['jq -R 1 MB', 'jq -R . f'],
  ['gzip -c 1 MB', 'gzip -c f'],
  ['jq -n 1 (its start)', 'jq -n 1'],
];

function runOne(profile, script, deadline, setup = '') {
  const limits = profile === 'scaled' ? `limits: { max_steps: ${1e7 / SCALED} }` : `profile: ${JSON.stringify(profile)}`;
  const child = `
    const { Sandbox } = await import(${JSON.stringify(pathToFileURL(path.join(NPM, 'node.js')).href)});
    const sb = await Sandbox.create({ ${limits} });
    await sb.execute(${JSON.stringify(setup)});
    const t = performance.now();
    const c = process.cpuUsage();
    const r = await sb.execute(${JSON.stringify(script)});
    const ms = performance.now() - t;
    const u = process.cpuUsage(c);
    console.log(JSON.stringify({ ms, cpu: (u.user + u.system) / 1000, exit: r.exitCode, limit: r.limit,
      err: r.stderr.slice(-120), turns: (await sb.execute('echo $n')).stdout.trim() }));`;
  const t = performance.now();
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', child], {
    encoding: 'utf8', timeout: deadline * 1000, killSignal: 'SIGKILL',
  });
  if (p.error || p.signal) return { ms: performance.now() - t, killed: true };
  try {
    return JSON.parse(p.stdout.trim().split('\n').pop());
  } catch {
    return { ms: performance.now() - t, err: p.stderr.slice(-200) };
  }
}

const arg = (name, dflt) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
};
const deadline = Number(arg('deadline', '60'));
const only = arg('only', '');
for (const [name, profile, script] of BOMBS) {
  if (only && !name.includes(only)) continue;
  const r = runOne(profile, script, deadline);
  const what = r.killed ? `killed after ${deadline} s`
    : `exit ${r.exit}, limit ${r.limit ?? '-'}: ${(r.err ?? '').trim().split('\n').pop()}`;
  const cpu = r.cpu === undefined ? '' : ` (CPU ${(r.cpu / 1000).toFixed(2)} s)`;
  console.log(`${(r.ms / 1000).toFixed(2).padStart(7)} s${cpu}  ${profile.padEnd(6)} ${name}: ${what}`);
}
for (const [name, cmd, whole] of COMMANDS) {
  if (only && !name.includes(only)) continue;
  const loop = whole ? cmd : `while :; do ${cmd}; done`;
  const r = runOne('scaled', `n=0; ${loop.replace('; do ', '; do n=$((n+1)); ')} > /dev/null`,
    deadline, MB1);
  if (r.killed) {
    console.log(`killed after ${deadline} s  ${name}`);
    continue;
  }
  const est = (r.cpu * SCALED / 1000).toFixed(1);
  console.log(`${(r.ms / 1000).toFixed(2).padStart(7)} s (CPU ${(r.cpu / 1000).toFixed(2)} s)  ` +
    `${name}: ${r.turns} turns per ${1e7 / SCALED} steps, ` +
    `est. CPU ${est} s to the normal budget (limit ${r.limit ?? '-'})`);
}
