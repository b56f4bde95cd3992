// just-bash.test.mjs - memsandbox/just-bash: the just-bash API (Bash,
// exec, fs) over a sandbox, with just-bash's per-exec isolation (files
// persist, shell state does not) and the keepState option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bash } from '../../build/npm/just-bash.js';

test('just-bash-1.1 exec: files persist, shell state resets, options per call', async () => {
  const bash = new Bash({ files: { '/data/a.txt': 'hello\n', 'rel.txt': 'r', '/lazy.txt': () => 'lazy' },
    env: { NAME: 'world' } });
  let r = await bash.exec('cat /data/a.txt; echo "$NAME"; pwd; cat rel.txt /lazy.txt');
  assert.deepEqual({ ...r, env: undefined }, { stdout: 'hello\nworld\n/home/user\nrlazy', stderr: '', exitCode: 0, env: undefined });
  assert.equal(r.env.NAME, 'world');
  await bash.exec('X=1; f() { :; }; cd /data; echo new > b.txt');
  r = await bash.exec('echo "[$X]"; type f >/dev/null 2>&1 || echo nof; pwd; cat /data/b.txt');
  assert.equal(r.stdout, '[]\nnof\n/home/user\nnew\n');
  r = await bash.exec('echo "$NAME $MORE"; pwd; tr a-z A-Z', { env: { MORE: 'x' }, cwd: '/data', stdin: 'abc\n' });
  assert.equal(r.stdout, 'world x\n/data\nABC\n');
  r = await bash.exec('echo "[$NAME]"', { env: { A: '1' }, replaceEnv: true });
  assert.equal(r.stdout, '[]\n');
  r = await bash.exec('ls /nope');
  assert.equal(r.exitCode, 2);
  assert.equal(r.stderr, "ls: cannot access '/nope': No such file or directory\n");
  assert.equal(await bash.readFile('rel.txt'), 'r');
  await bash.writeFile('/w/x.txt', 'x');
  assert.equal((await bash.exec('cat /w/x.txt')).stdout, 'x');
  await bash.close();
});

test('just-bash-1.2 keepState keeps the shell session; bash.fs methods', async () => {
  const bash = new Bash({ keepState: true, cwd: '/app' });
  await bash.exec('export X=1; cd /tmp');
  const r = await bash.exec('echo $X; pwd');
  assert.equal(r.stdout, '1\n/tmp\n');
  assert.equal(r.env.X, '1');
  assert.equal(bash.getCwd(), '/tmp');
  const fs = bash.fs;
  await fs.mkdir('/app/d/e', { recursive: true });
  await fs.writeFile('/app/d/e/f.txt', 'abc');
  await fs.appendFile('/app/d/e/f.txt', 'def');
  assert.equal(await fs.readFile('/app/d/e/f.txt'), 'abcdef');
  assert.equal(await fs.readFile('/app/d/e/f.txt', 'base64'), 'YWJjZGVm');
  assert.deepEqual([...await fs.readFileBuffer('/app/d/e/f.txt')].length, 6);
  assert.equal(await fs.exists('/app/d'), true);
  const st = await fs.stat('/app/d/e/f.txt');
  assert.equal(st.isFile, true);
  assert.equal(st.size, 6);
  await fs.symlink('e/f.txt', '/app/d/link');
  assert.equal((await fs.lstat('/app/d/link')).isSymbolicLink, true);
  assert.equal(await fs.readlink('/app/d/link'), 'e/f.txt');
  assert.equal(await fs.realpath('/app/d/link'), '/app/d/e/f.txt');
  assert.deepEqual(await fs.readdir('/app/d'), ['e', 'link']);
  assert.deepEqual((await fs.readdirWithFileTypes('/app/d')).map((d) => [d.name, d.isDirectory]), [['e', true], ['link', false]]);
  await fs.cp('/app/d', '/app/c', { recursive: true });
  await fs.mv('/app/c', '/app/m');
  assert.equal(await fs.readFile('/app/m/e/f.txt'), 'abcdef');
  await fs.rm('/app/m', { recursive: true });
  await fs.rm('/app/none', { force: true });
  await assert.rejects(fs.rm('/app/none'), /not_found|No such|does not exist/i);
  assert.throws(() => new Bash({ python: true }), /does not support: python/);
  await bash.close();
});
