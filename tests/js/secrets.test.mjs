// secrets.test.mjs - execute(cmd, { secrets }) over the real module: values
// expand like env for one call, every occurrence in stdout and stderr
// becomes [REDACTED], files never receive them, and nothing of them stays
// in the session. Runs once per wasm build (MSB_WASM), like execute.test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Sandbox, MemSandboxError } from '../../build/npm/node.js';

const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });
const TOKEN = 'tok-9f8e7d6c5b4a';
const secrets = { TOKEN };

test('secret-js-1.1 $TOKEN, printf, env and printenv are redacted', async () => {
  const sb = await open();
  const r = await sb.execute(
    'echo "auth: $TOKEN"; printf "%s\\n" "$TOKEN"; env | grep ^TOKEN; printenv TOKEN; echo "$TOKEN" >&2',
    { secrets });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, 'auth: [REDACTED]\n[REDACTED]\nTOKEN=[REDACTED]\n[REDACTED]\n');
  assert.equal(r.stderr, '[REDACTED]\n');
  assert.equal(r.stdoutBytes, r.stdout.length, 'byte counts describe the redacted stream');
  await sb.close();
});

test('secret-js-1.2 a value split across two writes is still redacted', async () => {
  const sb = await open();
  const r = await sb.execute('printf %s ab; printf %s cd; echo', { secrets: { S: 'abcd' } });
  assert.equal(r.stdout, '[REDACTED]\n');
  const p = await sb.execute('printf %s "$S" | cat | cat', { secrets: { S: 'abcd' } });
  assert.equal(p.stdout, '[REDACTED]', 'the final output of a pipeline');
  await sb.close();
});

test('secret-js-1.3 derived forms are not recognised (documented)', async () => {
  const sb = await open();
  let r = await sb.execute('printf %s "$TOKEN" | base64', { secrets });
  assert.equal(r.stdout, Buffer.from(TOKEN).toString('base64') + '\n');
  r = await sb.execute('cat <<<"$TOKEN" | tr a-z A-Z', { secrets });
  assert.equal(r.stdout, TOKEN.toUpperCase() + '\n');
  r = await sb.execute('cat <<<"$S" | tr a-z A-Z', { secrets: { S: 'ABC' } });
  assert.equal(r.stdout, 'ABC\n'.replace('ABC', '[REDACTED]'), 'unless equal');
  await sb.close();
});

test('secret-js-1.4 writing a value is refused and nothing is written', async () => {
  const sb = await open();
  let r = await sb.execute('echo "$TOKEN" > f; echo "status $?"; wc -c < f', { secrets });
  assert.equal(r.stdout, 'status 1\n0\n');
  assert.equal(r.stderr, 'bash: echo: write error: Refusing to write a secret value\n');
  r = await sb.execute('echo "$TOKEN" | tee out.txt >/dev/null; echo ${PIPESTATUS[1]}', { secrets });
  assert.equal(r.stdout, '1\n');
  assert.equal(r.stderr, 'tee: out.txt: Refusing to write a secret value\n');
  r = await sb.execute('echo x > f2; sed -i "s/x/$TOKEN/" f2; echo $?; cat f2', { secrets });
  assert.equal(r.stdout, '4\nx\n');
  assert.match(r.stderr, /^sed: .*Refusing to write a secret value\n$/);
  r = await sb.execute('touch "$TOKEN"; echo $?', { secrets });
  assert.equal(r.stdout, '1\n');
  assert.equal(r.stderr, "touch: cannot touch '[REDACTED]': Refusing to write a secret value\n");
  assert.equal(await sb.exists('out.txt'), false);
  await sb.close();
});

test('secret-js-1.5 the value is gone after the call', async () => {
  const sb = await open();
  let r = await sb.execute('X=$TOKEN; Y=plain; echo ok', { secrets });
  assert.equal(r.stdout, 'ok\n');
  assert.equal(r.stderr,
    'bash: memsandbox: X: variable not kept after this call: it holds a secret value\n');
  r = await sb.execute('echo "[${TOKEN-}] [${X-}] [$Y]"; declare -p | grep -c tok- || true');
  assert.equal(r.stdout, '[] [] [plain]\n0\n');
  r = await sb.execute('echo "[${TOKEN-}]"', { fresh: true });
  assert.equal(r.stdout, '[]\n');
  const snap = gunzipSync(await sb.snapshot());
  assert.equal(Buffer.from(snap).includes(TOKEN), false, 'a snapshot never holds it');
  await sb.close();
});

test('secret-js-1.6 declare -p, set and env listings are redacted', async () => {
  const sb = await open();
  const r = await sb.execute('declare -p TOKEN; set | grep ^TOKEN=; env | grep -c "^TOKEN="',
    { secrets });
  assert.equal(r.stdout, 'declare -x TOKEN="[REDACTED]"\nTOKEN=[REDACTED]\n1\n');
  await sb.close();
});

test('secret-js-1.7 bad bindings are rejected before anything runs', async () => {
  const sb = await open();
  const bad = async (sec, re, env) => {
    await assert.rejects(sb.execute('touch ran', { secrets: sec, env }), (e) => {
      assert.ok(e instanceof MemSandboxError);
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.message, re);
      assert.equal(e.message.includes('v4lue'), false, 'never quotes a value');
      return true;
    });
  };
  await bad({ PWD: 'v4lue' }, /PWD is reserved/);
  await bad({ A: '' }, /empty value/);
  await bad({ A: 'x'.repeat(4097) }, /at most 4096/);
  await bad({ 'A-B': 'v4lue' }, /invalid variable name/);
  await bad({ A: 'v4\0lue' }, /NUL/);
  await bad({ A: 'v4lue' }, /both as a secret and in env/, { A: 'x' });
  const many = Object.fromEntries([...Array(17).keys()].map((i) => [`S${i}`, 'v']));
  await bad(many, /at most 16/);
  assert.equal(await sb.exists('ran'), false);
  await sb.close();
});

test('secret-js-1.8 atomic runs and checkpoints keep working', async () => {
  const sb = await open();
  let r = await sb.execute('echo data > a; K=$TOKEN; exit 3', { secrets, atomic: true });
  assert.equal(r.rolledBack, true);
  assert.equal(await sb.exists('a'), false);
  r = await sb.execute('echo data > a; echo "$TOKEN"', { secrets, atomic: true });
  assert.equal(r.stdout, '[REDACTED]\n');
  assert.equal(r.rolledBack, false);
  assert.equal((await sb.execute('cat a')).stdout, 'data\n');
  await sb.close();
});
