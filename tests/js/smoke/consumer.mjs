// consumer.mjs - a throwaway project that depends on memsandbox the way a
// user's does: node_modules/memsandbox is a copy of the built package (or
// an installed tarball), beside the agent SDKs the tests pin, so type
// checkers resolve the adapters' SDK imports from the package as they would
// in an application.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const deps = here('../node_modules/');
const npm = here('../../../build/npm/');

/**
 * Makes the project; returns { dir, pkg (the package's folder, with a
 * trailing slash), remove() }. install(dir) may put the package in place
 * itself (e.g. from a tarball); by default build/npm is copied.
 */
export function consumer(install = (at) => cpSync(npm, at, { recursive: true })) {
  const dir = mkdtempSync(join(tmpdir(), 'msb-consumer-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(deps)) {
    if (name !== '.bin' && name !== 'memsandbox') symlinkSync(join(deps, name), join(modules, name));
  }
  const pkg = join(modules, 'memsandbox');
  install(pkg);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'consumer', private: true, type: 'module',
    dependencies: { memsandbox: '*', '@openai/agents': '*', ai: '*', '@ai-sdk/harness': '*',
      deepagents: '*', '@anthropic-ai/sdk': '*', zod: '*' },
  }));
  return { dir, pkg: pkg + '/', remove: () => rmSync(dir, { recursive: true, force: true }) };
}
