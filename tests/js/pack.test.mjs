// pack.test.mjs - the package as users get it: `npm pack` of build/npm,
// installed from the tarball into an empty project (offline: the package has
// no dependencies), then a short script using Sandbox and createTools
// through the package name, under Node and Deno; the subpaths (core with
// the module the memsandbox.wasm subpath names) and the
// memsandbox-mcp bin resolve from node_modules too. Packaging does not
// depend on the wasm build, so the Emscripten pass (MSB_WASM set) skips it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const npmDir = here('../../build/npm');
const deno = here('node_modules/.bin/deno');
const skip = process.env.MSB_WASM ? 'packaging is tested once, with the default module' : false;

const SCRIPT = `import { Sandbox, createTools } from 'memsandbox';
const sb = await Sandbox.create({ files: { 'a.txt': 'hi\\n' } });
const [execute, readFile] = createTools(sb);
const r = await execute.execute({ command: 'cat a.txt | tr a-z A-Z', timeout_seconds: null, max_output_bytes: null });
console.log(JSON.stringify([r.result.stdout, (await readFile.execute({ path: 'a.txt', start_line: null, end_line: null })).result.content]));
`;

function run(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', timeout: 180000,
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false',
      npm_config_update_notifier: 'false', DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
}

test('pack-1 npm pack, install offline, run under Node and Deno', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-pack-'));
  try {
    const packed = JSON.parse(run('npm', ['pack', npmDir, '--json', '--pack-destination', dir], dir));
    const tgz = packed[0].filename;
    const names = packed[0].files.map((f) => f.path).sort();
    const modules = readdirSync(npmDir).filter((f) => /\.(js|d\.ts)$/.test(f));
    for (const f of ['package.json', ...modules, 'memsandbox.wasm', 'bin/memsandbox.js',
      'bin/memsandbox-mcp.js', 'LICENSE', 'README.md', 'memsandbox.wasm.d.ts']) {
      assert.ok(names.includes(f), `tarball lacks ${f}: ${names.join(' ')}`);
    }
    const proj = join(dir, 'proj');
    run('mkdir', ['-p', proj], dir);
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'p', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, tgz)], proj);
    const pkg = JSON.parse(readFileSync(join(proj, 'node_modules/memsandbox/package.json'), 'utf8'));
    assert.deepEqual(pkg.dependencies ?? {}, {});
    writeFileSync(join(proj, 'use.mjs'), SCRIPT);
    assert.equal(run(process.execPath, ['use.mjs'], proj).trim(), '["HI\\n","hi"]');
    // subpaths through the exports map
    writeFileSync(join(proj, 'sub.mjs'), `
      import { createTools } from 'memsandbox/tools';
      import { openaiTools } from 'memsandbox/openai';
      import { aiTools } from 'memsandbox/ai';
      import { aiTools as aiTools2 } from 'memsandbox/ai-sdk';
      import { createMcpServer } from 'memsandbox/mcp';
      import { Sandbox } from 'memsandbox';
      import { Sandbox as CoreSandbox } from 'memsandbox/core';
      import { readFileSync } from 'node:fs';
      import { createRequire } from 'node:module';
      const sb = await Sandbox.create();
      // the runtime-neutral entry, given the module the wasm subpath names
      const core = await CoreSandbox.create({
        wasm: readFileSync(createRequire(import.meta.url).resolve('memsandbox/memsandbox.wasm')) });
      console.log([createTools(sb).length, openaiTools(sb).length, Object.keys(aiTools(sb)).length,
        aiTools === aiTools2, createMcpServer(sb).tools.length, (await core.execute('echo F')).stdout.trim()].join(' '));`);
    assert.equal(run(process.execPath, ['sub.mjs'], proj).trim(), '4 4 4 true 4 F');
    // the framework adapters load and work without their SDKs installed
    writeFileSync(join(proj, 'adapters.mjs'), `
      import { MemSandboxClient } from 'memsandbox/openai';
      import { aiSandboxSession } from 'memsandbox/ai';
      import { MemSandboxBackend } from 'memsandbox/langchain';
      import { anthropicTools } from 'memsandbox/anthropic';
      import { Bash } from 'memsandbox/just-bash';
      import { Sandbox } from 'memsandbox';
      const s = await new MemSandboxClient().create({ manifest: { root: '/workspace', entries: { 'a.txt': { type: 'file', content: 'A' } } } });
      const sb = await Sandbox.create({ files: { 'b.txt': 'B' } });
      console.log([(await s.exec({ cmd: 'cat a.txt' })).stdout,
        (await aiSandboxSession(sb).run({ command: 'cat b.txt' })).stdout,
        (await new MemSandboxBackend(sb).execute('echo C')).output.trim(),
        (await anthropicTools(sb).bash.run({ command: 'echo D' })).trim(),
        (await new Bash().exec('echo E')).stdout.trim()].join(''));`);
    assert.equal(run(process.execPath, ['adapters.mjs'], proj).trim(), 'ABCDE');
    // the README's MCP configuration, spawned as written (npx finds the installed bin)
    const readme = readFileSync(here('../../README.md'), 'utf8');
    const config = JSON.parse(/^```json\n(\{ "mcpServers"[^\n]*)\n```$/m.exec(readme)[1]).mcpServers.sandbox;
    run('mkdir', ['-p', join(proj, 'project')], proj);
    writeFileSync(join(proj, 'project', 'seed.txt'), 'seeded');
    const viaNpx = spawnSync(config.command, config.args, { cwd: proj, encoding: 'utf8', timeout: 120000,
      env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      input: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":' +
        '{"command":"cat seed.txt","timeout_seconds":null,"max_output_bytes":null}}}\n' });
    assert.match(viaNpx.stdout, /seeded/, viaNpx.stderr);
    // the bins are linked
    assert.ok(existsSync(join(proj, 'node_modules/.bin/memsandbox-mcp')));
    const mcp = spawnSync(join(proj, 'node_modules/.bin/memsandbox-mcp'), [], { encoding: 'utf8',
      input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n', timeout: 60000 });
    assert.equal(mcp.stdout, '{"jsonrpc":"2.0","id":1,"result":{}}\n', mcp.stderr);
    // Deno, from the same node_modules (its "deno" condition: index.js)
    if (existsSync(deno)) {
      writeFileSync(join(proj, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual' }));
      const out = run(deno, ['run', '--quiet', '--allow-read', 'use.mjs'], proj);
      assert.equal(out.trim(), '["HI\\n","hi"]');
      // the adapters reach the package through its own name, in Deno too
      assert.equal(run(deno, ['run', '--quiet', '--allow-read', 'adapters.mjs'], proj).trim(), 'ABCDE');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
