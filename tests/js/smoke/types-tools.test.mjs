// types-tools.test.mjs - tools.d.ts, openai.d.ts, ai.d.ts and mcp.d.ts
// type-check real usage (deno check), including calls they must reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consumer } from './consumer.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const deno = here('../node_modules/.bin/deno');
// The adapters' declarations import the SDKs' types, so the package sits in
// a project beside them.
const project = consumer();
const npm = project.pkg;
process.on('exit', project.remove);

const USE = (pkg, extra = '') => `// @ts-types="${pkg}index.d.ts"
import { Sandbox, createTools, toolResultText, type Tool, type ToolEnvelope } from '${pkg}index.js';
// @ts-types="${pkg}openai.d.ts"
import { openaiTools } from '${pkg}openai.js';
// @ts-types="${pkg}ai.d.ts"
import { aiTools } from '${pkg}ai.js';
// @ts-types="${pkg}mcp.d.ts"
import { createMcpServer } from '${pkg}mcp.js';
const sb: Sandbox = await Sandbox.create();
const tools: Tool[] = createTools(sb, { sessionId: 's', maxReadLines: 10 });
const env: ToolEnvelope = await tools[0].execute({ command: 'ls' });
const text: string = toolResultText(env);
if (env.ok) console.log(env.result); else console.log(env.error.code, env.error.correctable);
const p = await sb.applyPatch('x', { cwd: '/workspace', exact: true, expectedHashes: { a: 'b' } });
const op: 'add' | 'update' | 'delete' | 'move' = p.files[0].op;
const cwd: string = sb.cwd;
const wrapped: number[] = openaiTools(sb, { tool: (d) => d.name.length });
const plain: string = await openaiTools(sb)[0].execute({});
const ai = aiTools(sb, { sessionId: 'x' });
const e2: ToolEnvelope = await ai.read_file.execute({ path: 'a' });
const server = createMcpServer(sb, { name: 'n' });
const line: string | null = await server.handleLine('{}');
console.log(text, op, cwd, wrapped, plain, e2, line);
${extra}
`;

function check(source) {
  writeFileSync(join(project.dir, 'use.ts'), source);
  return spawnSync(deno, ['check', '--quiet', join(project.dir, 'use.ts')], {
    encoding: 'utf8', cwd: project.dir,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, timeout: 120000 });
}

test('types-tools-1 the tool and adapter types accept real usage', () => {
  const r = check(USE(npm));
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('types-tools-2 they reject wrong calls', () => {
  for (const bad of ["createTools(sb, { maxReadLines: 'many' });",
    "const n: number = (await sb.applyPatch('x')).files[0].path;",
    "aiTools(sb).nope.execute({});"]) {
    const r = check(USE(npm, bad));
    assert.notEqual(r.status, 0, bad);
    assert.match(r.stdout + r.stderr, /TS\d+/, bad);
  }
});
