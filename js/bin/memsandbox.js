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
import { Sandbox, constants } from '../node.js';

const USAGE = `Usage: memsandbox [OPTIONS] -c SCRIPT [ARG0 [ARGS...]]
       memsandbox [OPTIONS] FILE [ARGS...]
       memsandbox [OPTIONS]            (interactive on a terminal, else the
                                        script is read from stdin)
Run bash-compatible scripts in an in-memory sandbox.

  -c SCRIPT          run SCRIPT
  --seed DIR         copy host directory DIR into /workspace first
  --profile P        limits profile: normal (default) or strict
  --limits K=V,...   set limits by field name, e.g. max_steps=1000
  --clock NS         sandbox clock, ns since the epoch (default: now)
  --rng-seed N       random seed (default 0)
  --policy FILE      set the host policy from FILE (after --seed)
  --events FILE      write the events as JSON lines to FILE at exit
  --json             print the result as one JSON object
  --load FILE        start from a snapshot (.tar.gz) or any tar archive
  --save FILE        write a snapshot of the final state to FILE
  --wasm FILE        use this WebAssembly module
  --help             show this help
  --version          show the version

REPL commands (a line starting with one; the shell never sees it):
  .save FILE         write a snapshot of the sandbox to the host file FILE
  .load FILE         replace the sandbox's state with a snapshot or tar archive
  .help              list these commands

\`memsandbox mcp [--seed DIR] [--profile P]\` serves the agent tools over MCP
(stdio); see memsandbox-mcp --help.
`;

const REPL_HELP = USAGE.slice(USAGE.indexOf('REPL commands'));

// The sandbox itself failed (not a script status); build/msb uses the same.
const CLI_FAIL = 125;

function die(msg, code = 2, hint = false) {
  process.stderr.write(`memsandbox: ${msg}\n`);
  if (hint) process.stderr.write("Try 'memsandbox --help' for more information.\n");
  process.exit(code);
}

// A host file's error as build/msb words it (strerror), not Node's text.
const HOST_ERRORS = { ENOENT: 'No such file or directory', ENOTDIR: 'Not a directory',
  EACCES: 'Permission denied', EISDIR: 'Is a directory', EEXIST: 'File exists' };

function hostError(path, e) {
  return `${path}: ${HOST_ERRORS[e.code] ?? e.message}`;
}

function parseLimits(spec) {
  const out = {};
  for (const tok of spec.split(',').filter(Boolean)) {
    const eq = tok.indexOf('=');
    if (eq < 0) die(`--limits: expected NAME=VALUE, got '${tok}'`);
    const name = tok.slice(0, eq), value = tok.slice(eq + 1);
    const field = constants.limitFields.find((f) => f.name === name);
    if (!field) die(`--limits: unknown limit '${name}'`);
    const max = field.bits === 32 ? 2 ** 32 - 1 : Number.MAX_SAFE_INTEGER;
    if (!/^\d+$/.test(value) || Number(value) > max) {
      die(`--limits: bad value for ${name}: '${value}'`);
    }
    const { min } = constants.limits.find((l) => l.name === name);
    if (Number(value) < min) die(`--limits: ${name} must be at least ${min}`);
    out[name] = Number(value);
  }
  return out;
}

// Same interface as build/msb (src/cli.c), plus --load, --save, --wasm.
function parseArgs(argv) {
  const o = { profile: /** @type {'normal' | 'strict'} */ ('normal'), json: false, script: null, file: null, args: [],
    arg0: /** @type {string | undefined} */ (undefined), clock: undefined, rngSeed: 0n };
  const known = new Set(['--seed', '--profile', '--limits', '--clock', '--rng-seed',
    '--policy', '--events', '--load', '--save', '--wasm']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (a === '--version') {
      process.stdout.write(`memsandbox (MemSandbox) ${constants.version}\n`);
      process.exit(0);
    }
    if (a === '--json') {
      o.json = true;
      continue;
    }
    if (a === '-c') {
      if (i + 1 >= argv.length) die('-c: option requires an argument');
      o.script = argv[++i];
      o.arg0 = argv[i + 1]; // the first word after SCRIPT is $0, as bash
      o.args = argv.slice(i + 2);
      break;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      if (!known.has(name)) die(`unrecognized option '${a}'`, 2, true);
      let val;
      if (eq >= 0) val = a.slice(eq + 1);
      else if (i + 1 < argv.length) val = argv[++i];
      else die(`option '${a}' requires an argument`);
      if (name === '--profile') {
        if (val !== 'normal' && val !== 'strict') die('--profile: expected normal or strict');
        o.profile = val;
      } else if (name === '--limits') {
        o.limits = parseLimits(val);
      } else if (name === '--clock') {
        if (!/^-?\d+$/.test(val)) die(`--clock: bad number '${val}'`);
        o.clock = BigInt(val);
      } else if (name === '--rng-seed') {
        if (!/^\d+$/.test(val) || BigInt(val) >= 2n ** 64n) die(`--rng-seed: bad number '${val}'`);
        o.rngSeed = BigInt(val);
      } else {
        o[name.slice(2)] = val;
      }
      continue;
    }
    if (a[0] === '-' && a.length > 1) die(`invalid option -- '${a.slice(1)}'`, 2, true);
    o.file = a;
    o.arg0 = a;
    o.args = argv.slice(i + 1);
    break;
  }
  return o;
}

function shellWord(s) {
  return "'" + s.replace(/'/g, "'\\''") + "'";
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

const dec = new TextDecoder();

// --json prints build/msb's record, key for key.
function report(r, json) {
  if (json) {
    process.stdout.write(JSON.stringify({
      exit_code: r.exitCode, stdout: dec.decode(r.stdout), stderr: dec.decode(r.stderr),
      cwd: r.cwd ?? '', stdout_truncated: r.stdoutTruncated,
      stderr_truncated: r.stderrTruncated, stdout_total: r.stdoutBytes,
      stderr_total: r.stderrBytes, limit: r.limit }) + '\n');
    return;
  }
  if (r.stdout.length) process.stdout.write(r.stdout);
  if (r.stderr.length) process.stderr.write(r.stderr);
}

// The run in progress: Ctrl-C aborts it (exit status 130, as in bash).
/** @type {AbortController | null} */
let current = null;

// Runs a script; without --json its output streams as it is produced.
async function run(sb, script, json, stdin = undefined, arg0 = undefined) {
  if (json) {
    const r = await sb.execute(script, { encoding: 'bytes', stdin, arg0 });
    report(r, json);
    return r;
  }
  const ac = new AbortController();
  const interrupt = () => ac.abort();
  current = ac;
  process.on('SIGINT', interrupt);
  try {
    return await sb.execute(script, { encoding: 'bytes', stdin, arg0, signal: ac.signal,
      onStdout: (c) => process.stdout.write(c), onStderr: (c) => process.stderr.write(c) });
  } finally {
    process.removeListener('SIGINT', interrupt);
    current = null;
  }
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
    if (current) { // a run in progress ends as if interrupted
      current.abort();
      return;
    }
    // Ctrl-C drops the typed text, as bash does (in every terminal mode,
    // dumb ones included, which have no erase key).
    // (Node's typings call these read-only; the REPL resets them itself)
    const typed = /** @type {{ line: string, cursor: number }} */ (/** @type {unknown} */ (rl));
    typed.line = '';
    typed.cursor = 0;
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
    const dot = /^\s*\.([a-z]\w*)(?:\s+(.*?))?\s*$/.exec(script);
    if (dot) {
      await replCommand(sb, dot[1], dot[2] ?? '');
      try {
        cwd = (await sb.execute('')).cwd || cwd;
      } catch {
        // The prompt keeps the last known directory.
      }
      prompt();
      continue;
    }
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
    // `history` is real but missing from Node's published types
    writeFileSync(histFile, /** @type {any} */ (rl).history.slice().reverse().join('\n') + '\n');
  } catch {
    // History is a convenience; an unwritable home is not an error.
  }
  return status;
}

// .save / .load / .help in the REPL; errors are printed, never fatal.
async function replCommand(sb, name, arg) {
  try {
    if (name === 'help') {
      process.stdout.write(REPL_HELP);
    } else if (name === 'save' || name === 'load') {
      if (!arg) throw new Error(`.${name}: a FILE is required`);
      if (name === 'save') writeFileSync(arg, await sb.snapshot());
      else await sb.restore(readFileSync(arg));
      process.stdout.write(`${name === 'save' ? 'saved' : 'loaded'} ${arg}\n`);
    } else {
      throw new Error(`.${name}: unknown REPL command (try .help)`);
    }
  } catch (e) {
    process.stderr.write(`memsandbox: ${e.code ? hostError(arg, e) : e.message}\n`);
  }
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks);
}

async function main() {
  if (process.argv[2] === 'mcp') {
    // `memsandbox mcp [--seed DIR] [--profile P]`: the MCP server, as the
    // memsandbox-mcp bin.
    process.argv.splice(2, 1);
    await import('./memsandbox-mcp.js');
    return;
  }
  const opts = parseArgs(process.argv.slice(2));
  let wasm;
  if (opts.wasm) {
    try {
      wasm = readFileSync(opts.wasm);
    } catch (e) {
      die(hostError(opts.wasm, e), CLI_FAIL);
    }
  }
  const events = [];
  const onEvent = opts.events ? (/** @type {any} */ ev) => {
    const { sandbox: _, ...line } = ev;
    events.push(JSON.stringify(line) + '\n');
  } : undefined;
  let sb;
  try {
    sb = await Sandbox.create({ profile: opts.profile, limits: opts.limits, wasm,
      clock: opts.clock ?? 'system', seed: opts.rngSeed, onEvent });
  } catch (e) {
    die(e.message, CLI_FAIL);
  }
  await hostStep(opts.load, async () => sb.restore(readFileSync(opts.load)));
  await hostStep(opts.seed, async () => seedFrom(sb, opts.seed), '--seed: ');
  if (opts.policy) {
    let text = '';
    await hostStep(opts.policy, async () => { text = readFileSync(opts.policy, 'utf8'); });
    try {
      await sb.setPolicy(text);
    } catch (e) {
      die(`--policy: ${e.message}`, CLI_FAIL);
    }
  }
  let status = 0;
  try {
    if (opts.script === null && opts.file === null && process.stdin.isTTY) {
      status = await repl(sb, opts);
    } else {
      // Positional parameters: msb_exec has no argv, so `set -- ARGS; `
      // goes on the script's first line (line numbers stay right).
      let prefix = '';
      if (opts.args.length) prefix = `set -- ${opts.args.map(shellWord).join(' ')}; `;
      let body;
      let stdin;
      if (opts.script !== null) {
        body = Buffer.from(opts.script);
        if (!process.stdin.isTTY) stdin = await readStdin();
      } else if (opts.file !== null) {
        try {
          body = readFileSync(opts.file);
        } catch (e) {
          die(`${opts.file}: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`, 127);
        }
        if (!process.stdin.isTTY) stdin = await readStdin();
      } else {
        body = await readStdin();
      }
      const script = Buffer.concat([Buffer.from(prefix), body]);
      status = (await run(sb, script, opts.json, stdin, opts.arg0)).exitCode;
    }
    if (opts.save) writeFileSync(opts.save, await sb.snapshot());
  } catch (e) {
    process.stderr.write(`memsandbox: ${e.code ? hostError(opts.save, e) : e.message}\n`);
    status = CLI_FAIL;
  }
  await sb.close();
  if (opts.events) {
    try {
      writeFileSync(opts.events, events.join(''));
    } catch (e) {
      process.stderr.write(`memsandbox: ${hostError(opts.events, e)}\n`);
      status = CLI_FAIL;
    }
  }
  process.exitCode = status;
}

// Setup from a host file or directory (--load, --seed, --policy): a host
// error names the path as build/msb does; any other failure is the
// sandbox's.
async function hostStep(path, step, label = '') {
  if (!path) return;
  try {
    await step();
  } catch (e) {
    die(e.code ? `${label}${hostError(path, e)}` : e.message, CLI_FAIL);
  }
}

main();
