// probe.mjs - the runtime-neutral check every smoke test runs: create a
// sandbox, use the filesystem and the shell, and return what came back.
// The caller passes the package's exports (imported per runtime).
export async function probe({ Sandbox, MemSandboxError }, wasm) {
  const sb = await Sandbox.create({ clock: 0, seed: 1, wasm,
    files: { 'hello.txt': 'hello from the sandbox\n' } });
  const out = {};
  out.read = await sb.readFile('hello.txt');
  await sb.writeFile('dir/x.txt', 'abc', { parents: true });
  out.list = await sb.list('/workspace');
  out.hash = await sb.hash('dir/x.txt');
  out.revision = sb.revision;
  try {
    await sb.readFile('missing');
  } catch (e) {
    out.error = { isClass: e instanceof MemSandboxError, code: e.code, category: e.category };
  }
  const r = await sb.execute('echo hi; cat hello.txt');
  out.exec = { exitCode: r.exitCode, stdout: r.stdout };
  const child = await sb.fork();
  await child.writeFile('only-child', '1');
  out.forkIndependent = !(await sb.exists('only-child'));
  await sb.close();
  out.state = sb.state;
  return out;
}

// What every runtime must report.
export const expected = {
  read: 'hello from the sandbox\n',
  list: ['dir', 'hello.txt'],
  hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  revision: 2,
  error: { isClass: true, code: 'path_not_found', category: 'not_found' },
  exec: { exitCode: 0, stdout: 'hi\nhello from the sandbox\n' },
  forkIndependent: true,
  state: 'CLOSED',
};
