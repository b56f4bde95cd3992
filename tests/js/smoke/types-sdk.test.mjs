// types-sdk.test.mjs - the adapters' declarations against the agent SDKs'
// own types: a program handing each adapter to its SDK (SandboxAgent's
// run, generateText's experimental_sandbox, a harness provider, a
// deepagents backend, the Anthropic tool runner) compiles under
// `tsc --strict` with TypeScript 5.9 and 7, without any cast, in a project
// where memsandbox sits beside the SDKs; a wrong use does not compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consumer } from './consumer.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const COMPILERS = { '5.9': here('../node_modules/typescript/bin/tsc'), 7: here('../node_modules/typescript7/bin/tsc') };

export const USE = `import { Sandbox } from 'memsandbox';
import { MemSandboxClient, MemSandboxSession } from 'memsandbox/openai';
import { aiSandboxSession, memsandboxProvider } from 'memsandbox/ai';
import { MemSandboxBackend } from 'memsandbox/langchain';
import { anthropicTools } from 'memsandbox/anthropic';
import { run } from '@openai/agents';
import { SandboxAgent, Manifest, file, type SandboxClient, type SandboxSession } from '@openai/agents/sandbox';
import { generateText, type Experimental_SandboxSession, type LanguageModel } from 'ai';
import type { HarnessV1SandboxProvider } from '@ai-sdk/harness';
import { createDeepAgent, type SandboxBackendProtocolV2 } from 'deepagents';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';

export async function main(model: LanguageModel): Promise<void> {
  const sb = await Sandbox.create();
  const client: SandboxClient = new MemSandboxClient({ limits: { max_steps: 1000000 } });
  const agent = new SandboxAgent({ name: 'a', defaultManifest: new Manifest({ entries: { 'a.txt': file({ content: 'x' }) } }) });
  await run(agent, 'hi', { sandbox: { client: new MemSandboxClient() } });
  const own: SandboxSession = new MemSandboxSession(sb);
  const session: Experimental_SandboxSession = aiSandboxSession(sb, { baseDirectory: '/workspace' });
  await generateText({ model, prompt: 'hi', experimental_sandbox: session });
  const provider: HarnessV1SandboxProvider = memsandboxProvider();
  const backend: SandboxBackendProtocolV2 = new MemSandboxBackend(sb);
  createDeepAgent({ backend });
  const tools = anthropicTools(sb, { maxCharacters: 1000 });
  await new Anthropic({ apiKey: 'k' }).beta.messages.toolRunner({ model: 'm', max_tokens: 1,
    messages: [], tools: [tools.textEditor, tools.bash, betaMemoryTool(tools.memoryHandlers)] });
  const text: string = await tools.textEditor.run({ command: 'view', path: '/workspace' });
  console.log(client.backendId, own.state, provider.providerId, text);
}
`;

function compile(project, version, source) {
  writeFileSync(join(project.dir, 'use.ts'), source);
  writeFileSync(join(project.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2023', 'esnext.disposable', 'dom'], types: [], skipLibCheck: true,
    },
    files: ['use.ts'],
  }));
  return spawnSync(process.execPath, [COMPILERS[version], '-p', project.dir],
    { encoding: 'utf8', timeout: 300000 });
}

for (const [i, version] of Object.keys(COMPILERS).entries()) {
  test(`types-sdk-1.${i + 1} TypeScript ${version} --strict: the adapters are what the SDKs take`, () => {
    const project = consumer();
    try {
      const ok = compile(project, version, USE);
      assert.equal(ok.status, 0, ok.stdout + ok.stderr);
      const bad = compile(project, version, USE +
        "export const wrong: SandboxBackendProtocolV2 = aiSandboxSession(new Sandbox() as never);\n");
      assert.notEqual(bad.status, 0);
      assert.match(bad.stdout, /TS2\d{3}/);
    } finally {
      project.remove();
    }
  });
}
