#!/usr/bin/env node
// cases-wasm.mjs - runs the data-driven command and shell cases
// (tests/cmd, tests/shell: the same *.cases files build/msb runs) through
// the wasm module and the JS package, so both builds are held to the same
// expectations as the native one.
//
// Usage: node tests/js/cases-wasm.mjs [--filter PREFIX] [PATH...]
// MSB_WASM picks the module (default: build/npm/memsandbox.wasm). Each case
// gets a fresh sandbox (one instance, the module compiled once) seeded with
// the case's files, directories and links, like `msb --seed DIR -c CMD`
// (rng seed 0, host clock), then given the case's policy, if any. Prints "N passed, M failed" last.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCaseFiles, loadAccepted, runCases } from '../cases.mjs';
import { Sandbox } from '../../build/npm/node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Executor for runCases: one case in a fresh sandbox. */
export async function wasmExecutor(c) {
  const sb = await Sandbox.create({
    seed: 0,
    clock: 1796006400000, /* fixed, like build/msb: cases must not race it */
    directories: c.dirs,
    files: c.files.map((f) => ({ path: f.path, content: f.data, mode: f.mode })),
  });
  try {
    for (const l of c.links) {
      const parent = l.path.includes('/') ? l.path.slice(0, l.path.lastIndexOf('/')) : '';
      if (parent) await sb.mkdir(parent, { parents: true });
      await sb.symlink(l.target, l.path);
    }
    if (c.policy !== null) await sb.setPolicy(c.policy.toString('utf8'));
    const r = await sb.execute(c.cmd, { stdin: c.stdin ?? undefined, encoding: 'bytes' });
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exit: r.exitCode };
  } finally {
    await sb.close();
  }
}

async function main(argv) {
  let filter = '';
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--filter') filter = argv[++i] || '';
    else paths.push(argv[i]);
  }
  if (!paths.length) paths.push(path.join(root, 'tests/shell'), path.join(root, 'tests/cmd'));
  const files = findCaseFiles(paths);
  const label = process.env.MSB_WASM ? path.basename(path.dirname(process.env.MSB_WASM)) : 'wasm';
  const res = await runCases(files, wasmExecutor, {
    filter, jobs: Math.max(1, Math.min(4, os.cpus().length)),
    accepted: loadAccepted(path.join(root, 'tests/diff/accepted.txt')),
    log: (s) => console.log(/^\d+ passed, \d+ failed$/.test(s) ? `cases-${label}: ${s}` : s),
  });
  return res.failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(e);
    console.log('cases-wasm: 0 passed, 1 failed');
    process.exitCode = 1;
  });
}
