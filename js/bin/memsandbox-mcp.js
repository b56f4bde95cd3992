#!/usr/bin/env node
// memsandbox-mcp - an MCP server over stdio (newline-delimited JSON-RPC)
// exposing execute, read_file, write_file and apply_patch on one in-memory
// sandbox. Nothing of the host is reachable from the tools: --seed copies
// a host directory into /workspace once, at start.
//
// Usage: memsandbox-mcp [--seed DIR] [--profile normal|strict] [--help]
// (also `memsandbox mcp ...`).
// stdout carries protocol messages only; diagnostics go to stderr.
import { readFileSync, readdirSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from '../node.js';
import { createMcpServer, serveLines } from '../mcp.js';

const USAGE = `Usage: memsandbox-mcp [--seed DIR] [--profile normal|strict]

An MCP server on stdin/stdout with the tools execute, read_file, write_file
and apply_patch over one in-memory sandbox.

  --seed DIR       copy the files under DIR into /workspace at start
  --profile NAME   limits profile: normal (default) or strict
  -h, --help       show this help
`;

function fail(msg) {
  process.stderr.write(`memsandbox-mcp: ${msg}\nTry 'memsandbox-mcp --help' for more information.\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { seed: null, profile: /** @type {'normal' | 'strict'} */ ('normal') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const key = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const value = () => {
      if (key !== a) return a.slice(eq + 1);
      if (i + 1 >= argv.length) fail(`option '${a}' requires an argument`);
      return argv[++i];
    };
    if (key === '-h' || key === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (key === '--seed') o.seed = value();
    else if (key === '--profile') o.profile = value();
    else fail(`unrecognized option '${a}'`);
  }
  if (o.profile !== 'normal' && o.profile !== 'strict') fail(`unknown profile '${o.profile}'`);
  return o;
}

// Files under dir as [{ path, content, mode }] and directories as paths,
// relative to it; symlinks and special files are skipped (the sandbox
// never sees host links).
function collect(dir, rel = '', out = { files: [], directories: [] }) {
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(dir, r));
    if (st.isDirectory()) {
      out.directories.push(r);
      collect(dir, r, out);
    } else if (st.isFile()) {
      out.files.push({ path: r, content: readFileSync(join(dir, r)), mode: st.mode & 0o777 });
    }
  }
  return out;
}

const opts = parseArgs(process.argv.slice(2));
let seed = { files: [], directories: [] };
if (opts.seed !== null) {
  try {
    seed = collect(opts.seed);
  } catch (e) {
    fail(`cannot read ${opts.seed}: ${e.message}`);
  }
}
let sandbox;
try {
  sandbox = await Sandbox.create({ profile: opts.profile, ...seed });
} catch (e) {
  process.stderr.write(`memsandbox-mcp: ${e.message}\n`);
  process.exit(1);
}
const server = createMcpServer(sandbox);
process.stdout.on('error', () => process.exit(0));
await serveLines(server, process.stdin, (line) => new Promise((resolve) => {
  if (process.stdout.write(line)) resolve();
  else process.stdout.once('drain', resolve);
}));
await sandbox.close();
