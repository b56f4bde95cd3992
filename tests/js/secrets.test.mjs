// secrets.test.mjs - execute(cmd, { secrets }) over the real module: values
// expand like env for one call, every occurrence in stdout and stderr
// becomes [REDACTED], files never receive them, and nothing of them stays
// in the session. Runs once per wasm build (MSB_WASM), like execute.test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import constants from '../../build/npm/constants.js';
import { Sandbox, MemSandboxError, createTools } from '../../build/npm/node.js';

const K = constants.constants;
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
  let r = await sb.execute('echo "$TOKEN" > f; echo "status $?"; test -e f; echo $?', { secrets });
  assert.equal(r.stdout, 'status 1\n1\n', 'the file the redirection made goes too');
  assert.equal(r.stderr, 'bash: line 1: echo: write error: Refusing to write a secret value\n');
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

// ---- what a call leaves behind (issue 21 items 2, 3, 12, 15; issue 22 bug 1)

const GHP = 'ghp_Zq9xK2mW7pL4vR8t';

// Every place the value could be kept: the snapshot, env(), the shell's own
// listings, and the raw linear memory (which a memory fork copies).
async function assertForgotten(sb, value) {
  const snap = gunzipSync(await sb.snapshot());
  assert.equal(Buffer.from(snap).includes(value), false, 'snapshot');
  assert.equal(JSON.stringify(await sb.env()).includes(value), false, 'env()');
  const r = await sb.execute('set; declare -p; declare -F; alias; trap -p; env; dirs');
  assert.equal(r.stdout.includes(value), false, 'listings');
  const child = await sb.fork();
  assert.equal(Buffer.from(child._inst.memory.buffer).includes(value), false, 'fork memory');
  await child.close();
}

test('secret-js-2.1 an EXIT trap stopped by a limit is neither run nor kept', async () => {
  const sb = await open({ limits: { max_steps: 5000 } });
  let r = await sb.execute('trap "echo LEAK:$TOKEN" EXIT; while :; do :; done',
    { secrets: { TOKEN: GHP } });
  assert.equal(r.limit, 'max_steps');
  assert.equal(r.stderr, 'bash: memsandbox: step limit exceeded (max_steps=5000)\n' +
    'bash: memsandbox: EXIT trap not run: the call stopped at a limit\n');
  r = await sb.execute('echo next');
  assert.equal(r.stdout, 'next\n');
  await assertForgotten(sb, GHP);
  await sb.close();
});

test('secret-js-2.2 a value in a variable name is not kept', async () => {
  const sb = await open();
  const tools = createTools(sb, { secrets: { T: GHP } });
  const exec = tools.find((t) => t.name === 'execute');
  const res = await exec.execute({ command:
    'read "$T" <<< hi; printf -v "v_$T" x; getopts a "g_$T" -a; mapfile "M_$T" <<< x; ' +
    'eval "for $T in 1; do :; done"; let "l_$T=1"; (( m_$T = 2 )); declare -A "A_$T"; ' +
    'declare -a "a_$T"; declare -i "i_$T"=1; declare -n "n_$T"=HOME; declare -r "r_$T"=1; ' +
    'declare -x "x_$T"=1; export "e_$T=1"; declare -A h; h[k_$T]=1; alias "al_$T=echo"; ' +
    'eval "f_$T() { :; }"', timeout_seconds: null, max_output_bytes: null });
  assert.equal(res.ok, true);
  assert.deepEqual(res.result.environment_changes, []);
  assert.equal(JSON.stringify(res).includes(GHP), false);
  assert.match(res.result.stderr, /x_\[REDACTED\]: variable not kept after this call/);
  await assertForgotten(sb, GHP);
  await sb.close();
});

test('secret-js-2.3 a refused write leaves its target exactly as it was', async () => {
  const sb = await open();
  await sb.execute('echo old > f; chmod 600 f; touch -d @1000 f; mkdir d; touch -d @2000 d');
  const before = await sb.stat('f');
  const dir = await sb.stat('d');
  const rev = sb.revision;
  for (const cmd of ['echo $T > f', 'echo $T >> f', 'echo $T | tee f', 'echo $T | tee -a f',
    'sed -i "s/old/$T/" f', 'cp f "d/$T"',
    'printf "%s\\n" "--- a/f" "+++ b/f" "@@ -1 +1 @@" -old "+$T" | patch f',
    '{ echo first; echo $T; } > f', 'echo $T > d/new; echo $T >> d/new2']) {
    const r = await sb.execute(cmd, { secrets: { T: GHP } });
    assert.match(r.stderr, /Refusing to write a secret value/, cmd);
    assert.deepEqual(await sb.stat('f'), before, cmd);
    assert.equal(await sb.readFile('f'), 'old\n', cmd);
    assert.deepEqual(await sb.list('d'), [], cmd);
    assert.deepEqual(await sb.stat('d'), dir, cmd);
    assert.equal(sb.revision, rev, cmd);
  }
  await sb.close();
});

test('secret-js-2.4 a value written in consecutive pieces to several files', async () => {
  const sb = await open();
  let r = await sb.execute('echo "$T" | split -b 4 - part_; echo $?; ls',
    { secrets: { T: 'ghp_abc123' } });
  assert.equal(r.stdout, '1\npart_aa\npart_ab\n');
  assert.equal(r.stderr, 'split: part_ac: Refusing to write a secret value\n');
  // documented as not caught: pieces written out of order
  r = await sb.execute('printf %s "${T:5}" > b; printf %s "${T:0:5}" > a; cat a b',
    { secrets: { T: 'ghp_abc123' } });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '[REDACTED]');
  await sb.close();
});

test('secret-js-2.5 no value stays in linear memory after a call', async () => {
  const sb = await open();
  // the heap is clean when the call returns; the dead stack is wiped only
  // before a copy (what a memory fork does first)
  const wipe = () => sb._inst.call(K.MSB_WASM_OP_WIPE_STACK);
  const mem = () => (wipe(), Buffer.from(sb._inst.memory.buffer));
  const scripts = [
    'echo "$T"; X=$T; printf -v "v_$T" x; echo $T > f; echo "$T" | tee g',
    'a=$(echo $T | tr a b | cat); echo "$T$T" | sed p | sort | uniq -c; eval "g() { echo hi; }; Y=$T"',
    'trap "echo $T" EXIT; declare -A m; m[$T]=1; s=; for i in $(seq 200); do s+=$T; done; echo ${#s}',
    'nosuchcmd_$T; cat <<< "$T" | grep -c x; echo "${T//Z/z}" | base64',
    'f() { local l=$T; echo $l; }; f; set -- "$T"; pushd /tmp; cd "$OLDPWD"',
  ];
  for (const script of scripts) {
    const r = await sb.execute(script, { secrets: { T: GHP } });
    assert.equal(r.stdout.includes(GHP) || r.stderr.includes(GHP), false, script);
    assert.equal(mem().includes(GHP), false, `heap after: ${script}`);
  }
  // without the explicit wipe: fork wipes the stack itself
  await sb.execute('nosuchcmd_$T', { secrets: { T: GHP } });
  const child = await sb.fork();
  assert.equal(Buffer.from(child._inst.memory.buffer).includes(GHP), false, 'the fork');
  assert.equal((await child.execute('g')).stdout, 'hi\n');
  await child.close();
  await sb.close();
});
