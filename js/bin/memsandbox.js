#!/usr/bin/env node
// memsandbox - the command-line sandbox: a REPL, `-c SCRIPT`, a script file,
// or a script on stdin, run in one in-memory sandbox over the wasm module.
//
// Nothing of the host is visible inside; --seed DIR copies a host directory
// into /workspace first, --load/--save move the whole state as a snapshot
// (tar.gz). The REPL prompt shows the sandbox's working directory, edits
// lines with node:readline (history included) and asks for continuation
// lines while the shell's parser reports incomplete input. Exit status is
// the last command's, like bash.
import { readFileSync, writeFileSync, readdirSync, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox, MemSandboxError } from '../node.js';

const USAGE = `Usage: memsandbox [OPTION]... [-c SCRIPT | FILE]
Run bash-compatible commands in an in-memory sandbox. With no SCRIPT or
FILE, read commands interactively (or from standard input when it is not a
terminal).

  -c SCRIPT          run SCRIPT and exit
      --seed DIR     copy host directory DIR into /workspace first
      --load FILE    start from a snapshot (.tar.gz) or any tar archive
      --save FILE    write a snapshot of the final state to FILE
      --json         print each result as one JSON object instead of output
      --profile NAME limits profile: normal (default) or strict
      --limits SPEC  limits as JSON or name=value[,name=value]...
      --wasm FILE    use this WebAssembly module
  -h, --help         display this help and exit
      --version      output version information and exit
`;

function die(msg, code = 2) {
  process.stderr.write(`memsandbox: ${msg}\n`);
  if (code === 2) process.stderr.write("Try 'memsandbox --help' for more information.\n");
  process.exit(code);
}

function parseLimits(spec) {
  if (spec.trim().startsWith('{')) {
    try {
      return JSON.parse(spec);
    } catch (e) {
      die(`invalid --limits JSON: ${e.message}`);
    }
  }
  const out = {};
  for (const item of spec.split(',')) {
    const m = /^\s*([A-Za-z_]+)\s*=\s*(\d+)\s*$/.exec(item);
    if (!m) die(`invalid --limits item '${item}' (expected name=value)`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function parseArgs(argv) {
  const o = { profile: 'normal', json: false, script: null, file: null };
  const takes = new Set(['--seed', '--load', '--save', '--profile', '--limits', '--wasm']);
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let value;
    if (a.startsWith('--') && a.includes('=')) {
      value = a.slice(a.indexOf('=') + 1);
      a = a.slice(0, a.indexOf('='));
    }
    const need = () => {
      if (value !== undefined) return value;
      if (i + 1 >= argv.length) die(`option '${a}' requires an argument`);
      return argv[++i];
    };
    if (takes.has(a)) {
      const v = need();
      if (a === '--limits') o.limits = parseLimits(v);
      else o[a.slice(2)] = v;
    } else if (a === '-c') {
      if (i + 1 >= argv.length) die("option requires an argument -- 'c'");
      o.script = argv[++i];
      if (i + 1 < argv.length) die('arguments after -c SCRIPT are not supported');
    } else if (a === '--json') {
      o.json = true;
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (a === '--version') {
      process.stdout.write('memsandbox 0.1.0\n');
      process.exit(0);
    } else if (a === '--') {
      if (i + 1 < argv.length) o.file = argv[++i];
      if (i + 1 < argv.length) die('script arguments are not supported');
    } else if (a.startsWith('--')) {
      die(`unrecognized option '${a}'`);
    } else if (a.startsWith('-') && a !== '-') {
      die(`invalid option -- '${a.slice(1, 2)}'`);
    } else {
      o.file = a;
      if (i + 1 < argv.length) die('script arguments are not supported');
    }
  }
  return o;
}

async function seedFrom(sb, hostDir, inside = '/workspace') {
  for (const name of readdirSync(hostDir).sort()) {
    const host = join(hostDir, name);
    const path = `${inside}/${name}`;
    const st = lstatSync(host);
    if (st.isSymbolicLink()) {
      await sb.symlink(readlinkSync(host), path);
    } else if (st.isDirectory()) {
      await sb.mkdir(path, { existOk: true });
      await seedFrom(sb, host, path);
    } else if (st.isFile()) {
      await sb.writeFile(path, readFileSync(host), { mode: st.mode & 0o7777 });
    }
  }
}

function report(r, json) {
  if (json) {
    process.stdout.write(JSON.stringify({ ...r, stdout: Buffer.from(r.stdout).toString(),
      stderr: Buffer.from(r.stderr).toString() }) + '\n');
    return;
  }
  if (r.stdout.length) process.stdout.write(r.stdout);
  if (r.stderr.length) process.stderr.write(r.stderr);
}

async function run(sb, script, json) {
  const r = await sb.execute(script, { encoding: 'bytes' });
  report(r, json);
  return r;
}

async function repl(sb, opts) {
  const readline = await import('node:readline');
  const os = await import('node:os');
  const histFile = join(os.homedir(), '.memsandbox_history');
  let history = [];
  try {
    history = readFileSync(histFile, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 1000);
  } catch {
    history = [];
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout,
    terminal: true, history, historySize: 1000, removeHistoryDuplicates: true });
  let cwd = '/workspace';
  let status = 0;
  let pending = '';
  const prompt = () => {
    rl.setPrompt(pending ? '> ' : `mem-sandbox:${cwd}> `);
    rl.prompt();
  };
  rl.on('SIGINT', () => {
    pending = '';
    process.stdout.write('^C\n');
    status = 130;
    prompt();
  });
  // The async iterator queues lines typed or pasted while a command runs,
  // so they execute one after another, in order.
  prompt();
  for await (const line of rl) {
    const script = pending ? `${pending}\n${line}` : line;
    let check;
    try {
      check = sb.parseCheck(script);
    } catch {
      check = 'complete';
    }
    if (check === 'incomplete') {
      pending = script;
      prompt();
      continue;
    }
    pending = '';
    const m = /^\s*exit(?:\s+(\d+))?\s*$/.exec(script);
    if (m) {
      if (m[1] !== undefined) status = Number(m[1]) & 255;
      break;
    }
    try {
      const r = await run(sb, script, opts.json);
      status = r.exitCode;
      cwd = r.cwd || cwd;
    } catch (e) {
      process.stderr.write(`memsandbox: ${e.message}\n`);
      status = 1;
      if (sb.state === 'FAILED') break;
    }
    prompt();
  }
  rl.close();
  try {
    writeFileSync(histFile, rl.history.slice().reverse().join('\n') + '\n');
  } catch {
    // History is a convenience; an unwritable home is not an error.
  }
  return status;
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let wasm;
  if (opts.wasm) {
    try {
      wasm = readFileSync(opts.wasm);
    } catch (e) {
      die(`${opts.wasm}: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`, 1);
    }
  }
  let sb;
  try {
    sb = await Sandbox.create({ profile: opts.profile, limits: opts.limits, wasm });
    if (opts.load) await sb.restore(readFileSync(opts.load));
    if (opts.seed) await seedFrom(sb, opts.seed);
  } catch (e) {
    die(e instanceof MemSandboxError || e.code ? e.message : String(e), 1);
  }
  let status = 0;
  try {
    if (opts.script !== null) {
      status = (await run(sb, opts.script, opts.json)).exitCode;
    } else if (opts.file !== null) {
      let text;
      try {
        text = opts.file === '-' ? await readStdin() : readFileSync(opts.file);
      } catch (e) {
        die(`${opts.file}: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`, 127);
      }
      status = (await run(sb, text, opts.json)).exitCode;
    } else if (process.stdin.isTTY) {
      status = await repl(sb, opts);
    } else {
      status = (await run(sb, await readStdin(), opts.json)).exitCode;
    }
    if (opts.save) writeFileSync(opts.save, await sb.snapshot());
  } catch (e) {
    process.stderr.write(`memsandbox: ${e.message}\n`);
    status = status || 1;
  }
  await sb.close();
  process.exitCode = status;
}

main();
