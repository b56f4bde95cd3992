// scale-pool.test.mjs - SandboxService({ workers }) (issue 20 item 4): the
// in-process service's API over worker threads, sandboxes balanced and
// pinned, and a crashed worker's sandboxes restored from their saved
// state (or failing with sandbox_lost without a state directory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxService } from '../../build/npm/node.js';

test('scale-4.1 sandboxes spread over the workers and keep their own state', async () => {
  const svc = new SandboxService({ workers: 2, seed: 1 });
  try {
    const made = await Promise.all([1, 2, 3, 4].map(() => svc.create()));
    const workers = made.map(({ handle }) => svc.where.get(handle).index);
    assert.deepEqual(workers.sort(), [0, 0, 1, 1]);
    await Promise.all(made.map(({ sandbox }, i) => sandbox.execute(`echo ${i} > me; n=${i}`)));
    for (const [i, { handle }] of made.entries()) {
      const r = await svc.get(handle).execute('cat me; echo $n');
      assert.equal(r.stdout, `${i}\n${i}\n`);
    }
    assert.equal(await made[0].sandbox.readFile('/workspace/me'), '0\n');
    const { sandbox: child } = await svc.fork(made[1].handle);
    assert.equal((await child.execute('cat me; echo $n')).stdout, '1\n1\n');
    assert.equal(svc.list().length, 5);
    await svc.delete(made[0].handle);
    await assert.rejects(made[0].sandbox.execute('true'), (e) => e.code === 'sandbox_not_found');
  } finally {
    await svc.close();
  }
});

test('scale-4.2 a crashed worker\'s sandboxes restore from the state directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-pool-'));
  const svc = new SandboxService({ workers: 2, stateDir: dir, seed: 1 });
  try {
    const { handle, sandbox } = await svc.create();
    await sandbox.execute('mkdir src && echo kept > src/f; x=5; cd src');
    const hash = await sandbox.rootHash();
    const w = svc.where.get(handle);
    await assert.rejects(w.send('crash'), (e) => e.code === 'worker_crashed');
    assert.equal(await sandbox.rootHash(), hash);
    assert.equal((await sandbox.execute('pwd; echo $x; cat f')).stdout, '/workspace/src\n5\nkept\n');
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('scale-4.3 without a state directory a crashed worker\'s sandboxes fail by name', async () => {
  const svc = new SandboxService({ workers: 1 });
  try {
    const { handle, sandbox } = await svc.create();
    await assert.rejects(svc.where.get(handle).send('crash'), (e) => e.code === 'worker_crashed');
    await assert.rejects(sandbox.execute('true'), (e) => e.code === 'sandbox_lost');
    // the new worker takes new sandboxes
    const { sandbox: next } = await svc.create();
    assert.equal((await next.execute('echo ok')).stdout, 'ok\n');
  } finally {
    await svc.close();
  }
});

test('scale-4.4 a fork and a restored sandbox keep the policy in force (set at create or later)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-pool-'));
  const svc = new SandboxService({ workers: 2, stateDir: dir, seed: 1 });
  const denied = (r, cmd) => r.exitCode === 126 && r.stderr.includes(`${cmd}: command denied by policy`);
  try {
    const { handle, sandbox } = await svc.create({ policy: { denyCommands: ['rm'] } });
    await sandbox.execute('echo x > f');
    const { sandbox: child } = await svc.fork(handle);
    assert.ok(denied(await child.execute('rm f'), 'rm'));
    await sandbox.setPolicy({ denyCommands: ['cat'], denyOperations: ['restore_snapshot'] });
    const { handle: h2, sandbox: child2 } = await svc.fork(handle);
    assert.ok(denied(await child2.execute('cat f'), 'cat'));
    assert.equal((await child2.execute('rm f && echo gone')).stdout, 'gone\n');
    // a crash: the sandbox comes back from its save with the policy in force
    await assert.rejects(svc.where.get(h2).send('crash'), (e) => e.code === 'worker_crashed');
    assert.ok(denied(await child2.execute('cat f'), 'cat'));
    assert.ok(denied(await sandbox.execute('cat f'), 'cat'));
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
