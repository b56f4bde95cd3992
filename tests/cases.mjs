#!/usr/bin/env node
// cases.mjs - the data-driven case runner for tests/shell, tests/cmd and
// tests/diff (*.cases files).
//
// Usage:
//   node tests/cases.mjs [--native [MSB]] [--filter PREFIX] PATH...
//   node tests/cases.mjs --bash [--filter PREFIX] PATH...
//   node tests/cases.mjs --diff [--native MSB] [--filter PREFIX] PATH...
//   node tests/cases.mjs --record [--filter PREFIX] PATH...
//
//   --native [MSB]  (default mode) run every case through
//                   `MSB --seed DIR -c SCRIPT` (MSB defaults to build/msb)
//                   and compare with the case's expectations.
//   --bash          run every case in real bash (`bash --norc --noprofile
//                   -c SCRIPT` in a fresh temp dir, LC_ALL=C, HOME=the temp
//                   dir, PATH=/usr/bin:/bin, the temp dir's path replaced by
//                   /workspace in the output) to check that the
//                   expectations are true; sandbox-only cases are skipped.
//   --diff          for cases without expectations (tests/diff): run real
//                   bash and the sandbox and compare stdout, stderr, exit.
//                   A case marked "recorded" is compared with its recorded
//                   answer instead: real bash is not asked again.
//   --record        asks real bash again for every case marked "recorded"
//                   (without the 30 s limit) and rewrites the case's
//                   stdout, stderr and exit sections with the answer; prints
//                   what changed. Re-record deliberately, and review.
//   --filter P      only cases whose id starts with P.
//   --jobs N        parallel workers (default: number of CPUs).
//   PATH            .cases files or directories (searched recursively).
//
// Real bash runs with umask 022, the sandbox's, whatever the caller's: the
// modes of the files it creates and the `umask` it prints never depend on
// the host.
//
// Files: shell cases are filed by bash-manual topic, the file named by its
// chapter (syntax-, commands-, parameters-, expansions-, redirections-,
// executing-, builtins-, conditionals-, arithmetic, aliases, arrays, jobs-);
// command cases by command (tests/cmd/sort.cases, tests/diff/bc.cases).
//
// Differences between real bash and the sandbox that are accepted live in
// tests/diff/accepted.txt as "ID reason" lines; in every mode a
// listed case that differs counts as accepted, one that agrees is reported
// as stale. The last line printed is "N passed, M failed"; the exit status
// is 1 when anything failed.
//
// Case file format (see the project notes): a case starts with
// "=== ID description"; an ID is words of letters and digits joined by
// single '-' or '.' (ID_GRAMMAR: "diff-pipes-28", "cat-1.2"), unique across
// every file of a run. Sections are "--- NAME [ARGS]" lines followed by
// body lines: file PATH [noeol] [mode=NNN] [repeat=N], dir PATH, link PATH
// TARGET, stdin [noeol] [repeat=N], cmd, stdout [noeol], stderr [noeol],
// exit N,
// sandbox-only REASON, policy (the body is a host policy in memsandbox.h's
// text form, set after seeding; such a case is sandbox-only), recorded
// REASON (real bash's answer is racy or depends on the host, its speed or
// its login shell: the case's stdout, stderr and exit sections hold that
// answer, written by --record). repeat=N makes the runner generate a large
// input instead of the file holding it: the body, N times over (after
// noeol is applied to each copy). Lines before the first "===" are
// comments. Bodies are bytes; escapes are not interpreted.
//
// Library use (ESM): parseCases(text, file) parses one file; runCases(files,
// executor, opts) runs cases with any executor(case) -> Promise<{stdout:
// Buffer, stderr: Buffer, exit: number}> (the wasm runner plugs in here);
// bashExecutor and nativeExecutor(path) are the two built-in executors.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SECTIONS = new Set(['file', 'dir', 'link', 'stdin', 'cmd', 'stdout',
  'stderr', 'exit', 'sandbox-only', 'recorded', 'policy']);
// The sections --record rewrites.
const ANSWER = ['stdout', 'stderr', 'exit'];
const TIMEOUT_MS = 30000;
// What a case id may be (see the format above).
export const ID_GRAMMAR = /^[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*$/;
// The most copies repeat=N may ask for: generated inputs stay test-sized.
const MAX_REPEAT = 1000000;
const RECORD_TIMEOUT_MS = 3600000;

/** Parses the text of a .cases file (a string or Buffer) into case objects:
 * { id, desc, file, line, files: [{path, data: Buffer, mode}], dirs: [],
 *   links: [{path, target}], stdin: Buffer|null, cmd: string,
 *   stdout: Buffer|null, stderr: Buffer|null, exit: number|null,
 *   sandboxOnly: string|null, recorded: string|null, policy: Buffer|null }.
 * null expectations mean "not given" (the runner treats them as empty / 0).
 * Throws on malformed input, naming file and line. */
export function parseCases(text, file = '<input>') {
  // Work on a byte-preserving string: latin1 maps each byte to one char.
  const src = Buffer.isBuffer(text) ? text.toString('latin1')
    : Buffer.from(text, 'utf8').toString('latin1');
  const lines = src.split('\n');
  // A trailing newline leaves an empty last element that is not a line.
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const cases = [];
  let cur = null;
  let sec = null;
  const fail = (ln, msg) => {
    throw new Error(`${file}:${ln}: ${msg}`);
  };
  const closeSection = () => {
    if (!cur || !sec) return;
    let body = sec.lines.map((l) => l + '\n').join('');
    if (sec.noeol && body.endsWith('\n')) body = body.slice(0, -1);
    const data = Buffer.from(body.repeat(sec.repeat), 'latin1');
    switch (sec.name) {
      case 'file':
        cur.files.push({ path: sec.path, data, mode: sec.mode });
        break;
      case 'stdin': cur.stdin = data; break;
      case 'cmd': cur.cmd = data.toString('utf8'); break;
      case 'stdout': cur.stdout = data; break;
      case 'stderr': cur.stderr = data; break;
      case 'policy': cur.policy = data; break;
      default:
        if (sec.lines.length && sec.lines.some((l) => l.trim() !== ''))
          fail(sec.line, `section '${sec.name}' takes no body`);
    }
    sec = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const ln = i + 1;
    if (line.startsWith('=== ')) {
      closeSection();
      const m = /^=== (\S+)\s*(.*)$/.exec(line);
      if (!m) fail(ln, 'case header needs an id');
      if (!ID_GRAMMAR.test(m[1]))
        fail(ln, `malformed case id '${m[1]}' (words of letters and digits `
          + "joined by '-' or '.')");
      cur = {
        id: m[1], desc: m[2], file, line: ln, files: [], dirs: [],
        links: [], stdin: null, cmd: null, stdout: null, stderr: null,
        exit: null, sandboxOnly: null, recorded: null, policy: null,
      };
      cases.push(cur);
      continue;
    }
    const hm = /^--- (\S+)(?: (.*))?$/.exec(line);
    if (cur && hm && SECTIONS.has(hm[1])) {
      closeSection();
      const name = hm[1];
      const args = (hm[2] || '').split(' ').filter((a) => a !== '');
      sec = { name, lines: [], line: ln, noeol: false, repeat: 1 };
      const repeat = (a) => {
        const n = /^repeat=([1-9]\d*)$/.exec(a);
        if (!n || Number(n[1]) > MAX_REPEAT)
          fail(ln, `repeat needs a count from 1 to ${MAX_REPEAT}`);
        sec.repeat = Number(n[1]);
      };
      const seen = (k) => {
        if (k !== 'file' && k !== 'dir' && k !== 'link' && cur['_' + k])
          fail(ln, `duplicate section '${k}' in case ${cur.id}`);
        cur['_' + k] = true;
      };
      seen(name);
      switch (name) {
        case 'file':
          if (!args.length) fail(ln, 'file needs a path');
          sec.path = args[0];
          for (const a of args.slice(1)) {
            if (a === 'noeol') sec.noeol = true;
            else if (/^mode=[0-7]{3,4}$/.test(a)) sec.mode = parseInt(a.slice(5), 8);
            else if (a.startsWith('repeat=')) repeat(a);
            else fail(ln, `unknown file option '${a}'`);
          }
          break;
        case 'dir':
          if (args.length !== 1) fail(ln, 'dir needs one path');
          cur.dirs.push(args[0]);
          break;
        case 'link':
          if (args.length !== 2) fail(ln, 'link needs PATH TARGET');
          cur.links.push({ path: args[0], target: args[1] });
          break;
        case 'stdin': case 'stdout': case 'stderr':
          for (const a of args) {
            if (a === 'noeol') sec.noeol = true;
            else if (name === 'stdin' && a.startsWith('repeat=')) repeat(a);
            else fail(ln, `unknown option '${a}' for ${name}`);
          }
          break;
        case 'cmd': case 'policy':
          if (args.length) fail(ln, `${name} takes no arguments`);
          break;
        case 'exit':
          if (args.length !== 1 || !/^\d+$/.test(args[0]))
            fail(ln, 'exit needs a number');
          cur.exit = Number(args[0]);
          break;
        case 'sandbox-only':
          cur.sandboxOnly = args.join(' ') || 'sandbox-only';
          break;
        case 'recorded':
          if (!args.length) fail(ln, 'recorded needs a reason');
          cur.recorded = args.join(' ');
          break;
      }
      continue;
    }
    if (sec) sec.lines.push(line);
    else if (cur && line.trim() !== '')
      fail(ln, `text outside a section in case ${cur.id}`);
  }
  closeSection();
  for (const c of cases) {
    if (c.cmd === null) fail(c.line, `case ${c.id} has no cmd section`);
    if (c.policy !== null && !c.sandboxOnly) c.sandboxOnly = 'host policy';
    if (c.recorded && c.sandboxOnly)
      fail(c.line, `case ${c.id} is sandbox-only: no bash answer to record`);
    for (const k of Object.keys(c)) if (k.startsWith('_')) delete c[k];
  }
  return cases;
}

/** True when the case states any expectation (stdout, stderr or exit). */
export function hasExpectations(c) {
  return c.stdout !== null || c.stderr !== null || c.exit !== null;
}

/** Collects .cases files from files and directories, sorted. */
export function findCaseFiles(paths) {
  const out = [];
  const walk = (p) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p).sort()) {
        if (e === 'node_modules') continue;
        const q = path.join(p, e);
        if (fs.statSync(q).isDirectory() || e.endsWith('.cases')) walk(q);
      }
    } else {
      out.push(p);
    }
  };
  for (const p of paths) walk(p);
  return out;
}

/** Reads "ID reason" lines (# comments and blank lines ignored). */
export function loadAccepted(file) {
  const map = new Map();
  if (!fs.existsSync(file)) return map;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const sp = line.search(/\s/);
    const id = sp < 0 ? line : line.slice(0, sp);
    map.set(id, sp < 0 ? '' : line.slice(sp).trim());
  }
  return map;
}

/** Creates a fresh directory holding the case's files; returns its real
 * path. */
export function materialize(c) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'msbcase-')));
  for (const d of c.dirs) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const f of c.files) {
    const p = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.data);
    if (f.mode !== undefined) fs.chmodSync(p, f.mode);
  }
  for (const l of c.links) {
    const p = path.join(dir, l.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.symlinkSync(l.target, p);
  }
  return dir;
}

// Runs a case in its own process group, so a timeout kills the whole
// pipeline (killing bash alone would leave `yes | ...` running and holding
// the output pipes open).
function runProcess(cmd, args, opts, stdin, timeoutMs = TIMEOUT_MS) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.alloc(0), stderr: Buffer.from(String(e) + '\n'),
        exit: -1 });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let exit = code;
      if (code === null) exit = timedOut ? 'timeout' : `signal ${signal}`;
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exit });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(stdin || Buffer.alloc(0));
  });
}

function replaceAll(buf, from, to) {
  if (!from) return buf;
  const s = buf.toString('latin1');
  const f = Buffer.from(from, 'utf8').toString('latin1');
  return Buffer.from(s.split(f).join(to), 'latin1');
}

/** Runs a case in real bash in a fresh temp dir, killed after timeoutMs. */
export async function bashExecutor(c, timeoutMs = TIMEOUT_MS) {
  const dir = materialize(c);
  try {
    const r = await runProcess('bash', ['--norc', '--noprofile', '-c', c.cmd], {
      cwd: dir,
      env: { LC_ALL: 'C', HOME: dir, PATH: '/usr/bin:/bin' },
    }, c.stdin, timeoutMs);
    r.stdout = replaceAll(r.stdout, dir, '/workspace');
    r.stderr = replaceAll(r.stderr, dir, '/workspace');
    return r;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Returns an executor running cases through the native CLI. */
export function nativeExecutor(msb) {
  return async (c) => {
    const dir = materialize(c);
    // the policy file lives outside the seeded tree
    const pol = c.policy === null ? null
      : fs.mkdtempSync(path.join(os.tmpdir(), 'msbpol-'));
    try {
      const args = ['--seed', dir];
      if (pol) {
        fs.writeFileSync(path.join(pol, 'policy'), c.policy);
        args.push('--policy', path.join(pol, 'policy'));
      }
      return await runProcess(msb, [...args, '-c', c.cmd], {
        cwd: dir,
        env: { LC_ALL: 'C', PATH: '/usr/bin:/bin' },
      }, c.stdin);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      if (pol) fs.rmSync(pol, { recursive: true, force: true });
    }
  };
}

function splitLines(b) {
  const s = b.toString('latin1');
  const parts = s.split('\n');
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  else if (s.length) parts[parts.length - 1] += '  (no newline at end)';
  return parts;
}

/** A small line diff (LCS) of two buffers for failure reports. */
export function lineDiff(expected, got) {
  const a = splitLines(expected);
  const b = splitLines(got);
  const show = (s) => Buffer.from(s, 'latin1').toString('utf8');
  if (a.length * b.length > 4e6) {
    return [...a.map((l) => '-' + show(l)), ...b.map((l) => '+' + show(l))];
  }
  const n = a.length;
  const m = b.length;
  const dp = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1
        : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { out.push(' ' + show(a[i])); i++; j++; }
    else if (j < m && (i === n || dp[i][j + 1] >= dp[i + 1][j])) out.push('+' + show(b[j++]));
    else out.push('-' + show(a[i++]));
  }
  return out;
}

/** Compares a result with an expectation ({stdout, stderr, exit}, nulls
 * meaning empty / 0). Returns a list of report lines; empty when equal. */
export function compareResult(want, got) {
  const report = [];
  const ws = want.stdout || Buffer.alloc(0);
  const we = want.stderr || Buffer.alloc(0);
  const wx = want.exit === null || want.exit === undefined ? 0 : want.exit;
  if (!ws.equals(got.stdout)) {
    report.push('stdout (-expected +got):', ...lineDiff(ws, got.stdout).map((l) => '  ' + l));
  }
  if (!we.equals(got.stderr)) {
    report.push('stderr (-expected +got):', ...lineDiff(we, got.stderr).map((l) => '  ' + l));
  }
  if (wx !== got.exit) report.push(`exit: expected ${wx}, got ${got.exit}`);
  return report;
}

async function pool(items, jobs, fn) {
  let next = 0;
  const workers = [];
  for (let w = 0; w < Math.max(1, jobs); w++) {
    workers.push((async () => {
      while (next < items.length) {
        const k = next++;
        await fn(items[k], k);
      }
    })());
  }
  await Promise.all(workers);
}

/** Runs cases from files with an executor and prints a report. Options:
 *   mode: 'expect' (compare with expectations), 'bash' (expectations
 *         against real bash: skips sandbox-only, honours accepted),
 *         'diff' (compare executor with opts.reference, ignoring
 *         expectations; honours accepted)
 *   reference: executor for 'diff' mode (default bashExecutor)
 *   filter: id prefix; jobs: parallelism; accepted: Map id -> reason;
 *   log: function(line) (default console.log).
 * In 'diff' mode a case marked recorded is compared with its own
 * expectations, not with the reference.
 * Resolves to { passed, failed, skipped, accepted, recorded, stale,
 * failures }. */
export async function runCases(files, executor, opts = {}) {
  const mode = opts.mode || 'expect';
  const log = opts.log || ((s) => console.log(s));
  const accepted = opts.accepted || new Map();
  const reference = opts.reference || bashExecutor;
  const jobs = opts.jobs || os.cpus().length;
  const all = [];
  const ids = new Map();
  for (const f of files) {
    const cs = parseCases(fs.readFileSync(f), f);
    for (const c of cs) {
      if (ids.has(c.id)) throw new Error(`${f}:${c.line}: duplicate case id ${c.id} (also ${ids.get(c.id)})`);
      ids.set(c.id, `${f}:${c.line}`);
      if (!opts.filter || c.id.startsWith(opts.filter)) all.push(c);
    }
  }
  const res = { passed: 0, failed: 0, skipped: 0, accepted: 0, recorded: 0,
    stale: [], failures: [] };
  const reports = new Array(all.length);
  await pool(all, jobs, async (c, k) => {
    if ((mode === 'bash' || mode === 'diff') && c.sandboxOnly) {
      res.skipped++;
      return;
    }
    if (mode === 'diff' && c.recorded) res.recorded++;
    let report;
    try {
      if (mode === 'diff') {
        const [want, got] = await Promise.all([c.recorded ? c : reference(c),
          executor(c)]);
        report = compareResult(want, got);
      } else {
        report = compareResult(c, await executor(c));
      }
    } catch (e) {
      report = [`runner error: ${e && e.stack ? e.stack : e}`];
    }
    const isAccepted = accepted.has(c.id);
    if (!report.length) {
      res.passed++;
      if (isAccepted) res.stale.push(c.id);
      return;
    }
    if (isAccepted) {
      res.accepted++;
      return;
    }
    res.failed++;
    res.failures.push(c.id);
    reports[k] = [`FAIL ${c.id} (${c.file}:${c.line})${c.desc ? ' ' + c.desc : ''}`,
      'script:', ...c.cmd.replace(/\n$/, '').split('\n').map((l) => '  | ' + l),
      ...report, ''];
  });
  for (const r of reports) if (r) for (const l of r) log(l);
  for (const id of res.stale) log(`note: ${id} is listed in accepted.txt but now agrees`);
  const extra = [];
  if (res.skipped) extra.push(`${res.skipped} skipped (sandbox-only)`);
  if (res.accepted) extra.push(`${res.accepted} accepted differences`);
  if (res.recorded) extra.push(`${res.recorded} against recorded bash answers`);
  if (extra.length) log(extra.join(', '));
  log(`${res.passed} passed, ${res.failed} failed`);
  return res;
}

// The lines of a section holding data, or none when data is empty (an
// absent section means empty). Throws when a line would read as a header.
function answerSection(name, data) {
  if (!data.length) return [];
  const s = data.toString('latin1');
  const noeol = !s.endsWith('\n');
  const body = (noeol ? s : s.slice(0, -1)).split('\n');
  for (const l of body) {
    const hm = /^--- (\S+)/.exec(l);
    if (l.startsWith('=== ') || (hm && SECTIONS.has(hm[1])))
      throw new Error(`its ${name} has a line a case file cannot hold: ${l}`);
  }
  return [`--- ${name}${noeol ? ' noeol' : ''}`, ...body];
}

// Replaces the answer sections of the case whose header is lines[start]
// (the case ends before lines[end]) with the new ones, at the case's end.
function replaceAnswer(lines, start, end, got) {
  const kept = [lines[start]];
  let dropping = false;
  for (let i = start + 1; i < end; i++) {
    const hm = /^--- (\S+)/.exec(lines[i]);
    if (hm && SECTIONS.has(hm[1])) dropping = ANSWER.includes(hm[1]);
    if (!dropping) kept.push(lines[i]);
  }
  kept.push(...answerSection('stdout', got.stdout),
    ...answerSection('stderr', got.stderr), `--- exit ${got.exit}`);
  lines.splice(start, end - start, ...kept);
}

/** Asks real bash again for every case marked recorded in files (those
 * whose id starts with opts.filter) and rewrites the case's stdout, stderr
 * and exit sections with the answer. A timeout or a signal is an error,
 * never an answer. Logs each case and what changed; resolves to
 * { recorded, changed, failed }. */
export async function recordCases(files, opts = {}) {
  const log = opts.log || ((s) => console.log(s));
  const res = { recorded: 0, changed: 0, failed: 0 };
  for (const f of files) {
    const text = fs.readFileSync(f);
    const cases = parseCases(text, f);
    const lines = text.toString('latin1').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const answers = new Map();
    await pool(cases.filter((c) => c.recorded
      && (!opts.filter || c.id.startsWith(opts.filter))), opts.jobs || 1,
    async (c) => {
      try {
        const got = await bashExecutor(c, RECORD_TIMEOUT_MS);
        if (typeof got.exit !== 'number' || got.exit < 0)
          throw new Error(`bash ended by ${got.exit}`);
        answerSection('stdout', got.stdout);
        answerSection('stderr', got.stderr);
        answers.set(c, got);
      } catch (e) {
        res.failed++;
        log(`FAIL ${c.id} (${f}:${c.line}) not recorded: ${e.message}`);
      }
    });
    const inOrder = [...answers].sort((a, b) => a[0].line - b[0].line);
    for (const [c, got] of inOrder) {
      const report = compareResult(c, got);
      res.recorded++;
      if (report.length) res.changed++;
      log(`${report.length ? 'changed' : 'unchanged'} ${c.id}`);
      for (const l of report) log('  ' + l);
    }
    // Bottom up, so the line numbers of the cases above stay true.
    for (let k = cases.length - 1; k >= 0; k--) {
      const got = answers.get(cases[k]);
      const end = k + 1 < cases.length ? cases[k + 1].line - 1 : lines.length;
      if (got) replaceAnswer(lines, cases[k].line - 1, end, got);
    }
    if (answers.size)
      fs.writeFileSync(f, Buffer.from(lines.join('\n') + '\n', 'latin1'));
  }
  log(`${res.recorded} recorded (${res.changed} changed), `
    + `${res.failed} failed`);
  return res;
}

async function main(argv) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..');
  let mode = 'expect';
  let msb = path.join(root, 'build', 'msb');
  let filter = '';
  let jobs = os.cpus().length;
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--native') {
      if (argv[i + 1] && !argv[i + 1].startsWith('--') && !argv[i + 1].endsWith('.cases')
          && !(fs.existsSync(argv[i + 1]) && fs.statSync(argv[i + 1]).isDirectory())) {
        msb = path.resolve(argv[++i]);
      }
    } else if (a === '--bash') mode = 'bash';
    else if (a === '--diff') mode = 'diff';
    else if (a === '--record') mode = 'record';
    else if (a === '--filter') filter = argv[++i] || '';
    else if (a === '--jobs') jobs = Number(argv[++i]) || jobs;
    else if (a === '-h' || a === '--help') {
      console.log('usage: node tests/cases.mjs [--native [MSB] | --bash | '
        + '--diff | --record] [--filter ID] [--jobs N] PATH...');
      return 0;
    } else if (a.startsWith('--')) {
      console.error(`cases.mjs: unknown option '${a}'`);
      return 2;
    } else paths.push(a);
  }
  if (!paths.length) {
    if (mode === 'diff' || mode === 'record')
      paths.push(path.join(root, 'tests', 'diff'));
    else paths.push(path.join(root, 'tests', 'shell'), path.join(root, 'tests', 'cmd'));
  }
  const files = findCaseFiles(paths.filter((p) => fs.existsSync(p)));
  process.umask(0o022);
  if (mode === 'record') {
    const res = await recordCases(files, { filter, jobs });
    return res.failed ? 1 : 0;
  }
  const accepted = loadAccepted(path.join(root, 'tests', 'diff', 'accepted.txt'));
  let executor;
  if (mode === 'bash') executor = bashExecutor;
  else {
    if (!fs.existsSync(msb)) {
      console.error(`cases.mjs: ${msb}: not found (build it with make, or pass --native PATH)`);
      console.log('0 passed, 1 failed');
      return 1;
    }
    executor = nativeExecutor(msb);
  }
  const res = await runCases(files, executor, { mode, filter, jobs, accepted });
  return res.failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(e && e.stack ? e.stack : String(e));
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
  });
}
