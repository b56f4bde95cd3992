// slice.test.mjs - execute in slices (issue 17): signal, timeoutMs,
// sliceMs, onStdout, onStderr. The run yields to the event loop between
// slices, so timers fire during `while :; do :; done`; results do not
// depend on the slicing; cancellation leaves the sandbox usable (and an
// atomic run rolled back); output streams redacted. Runs once per wasm
// build (MSB_WASM). No assertion is about time: a timer that aborts the
// run can only do so if the loop let it run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, MemSandboxError } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || undefined;
const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, wasm: WASM, ...opts });

const SCRIPT = 'i=0; s=; while [ $i -lt 3000 ]; do i=$((i+1)); s=$s$((i%7)); done\n' +
  'f() { echo "f $1"; }; for w in a b c; do f $w; done | tr a-z A-Z\n' +
  'echo $RANDOM ${#s} ${s:2990}; echo err >&2; x=$(echo sub); echo $x; cd /tmp; y=1';

test('slice-1.1 a run sliced any way gives the unsliced result and state', async () => {
  const whole = await open({ sliceMs: Infinity });
  const want = await whole.execute(SCRIPT);
  const wantState = await whole.execute('echo $y $PWD $RANDOM');
  for (const sliceMs of [0.001, 0.5, 4, 50]) {
    const sb = await open();
    const r = await sb.execute(SCRIPT, { sliceMs });
    assert.equal(r.stdout, want.stdout, `sliceMs ${sliceMs}`);
    assert.equal(r.stderr, 'err\n');
    assert.equal(r.exitCode, 0);
    assert.equal(r.cwd, '/tmp');
    assert.equal((await sb.execute('echo $y $PWD $RANDOM')).stdout, wantState.stdout);
    await sb.close();
  }
  assert.match(want.stdout, /^F A\nF B\nF C\n\d+ 3000 2345601234\nsub\n$/);
  await whole.close();
});

test('slice-1.2 timers fire during an endless loop; abort ends it with 130', async () => {
  const sb = await open();
  const ac = new AbortController();
  let ticks = 0;
  const timer = setInterval(() => {
    if (++ticks === 3) ac.abort();
  }, 1);
  const r = await sb.execute('echo started > f; while :; do :; done', { signal: ac.signal });
  clearInterval(timer);
  assert.equal(ticks >= 3, true);
  assert.equal(r.exitCode, 130);
  assert.equal(r.limit, 'cancelled');
  assert.equal(r.stderr, '');
  // not atomic: what the run did before the abort stays; the sandbox works
  assert.equal(await sb.readFile('f'), 'started\n');
  assert.equal((await sb.execute('echo again')).stdout, 'again\n');
  await sb.close();
});

test('slice-1.3 an atomic run cancelled is rolled back whole', async () => {
  const sb = await open();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 5);
  const r = await sb.execute('echo x > g; v=1; cd /tmp; while :; do :; done',
    { signal: ac.signal, atomic: true });
  assert.equal(r.exitCode, 130);
  assert.equal(r.rolledBack, true);
  assert.equal(await sb.exists('g'), false);
  assert.equal((await sb.execute('echo "[$v]" $PWD')).stdout, '[] /workspace\n');
  await sb.close();
});

test('slice-1.4 timeoutMs ends a run with 124 and limit timeout', async () => {
  const sb = await open();
  const r = await sb.execute('while :; do :; done', { timeoutMs: 20 });
  assert.equal(r.exitCode, 124);
  assert.equal(r.limit, 'timeout');
  assert.equal(r.stderr, 'bash: memsandbox: time limit exceeded (timeout)\n');
  // a run that ends in time is untouched by its timeout
  const ok = await sb.execute('echo fine', { timeoutMs: 60000 });
  assert.equal(ok.stdout, 'fine\n');
  assert.equal(ok.limit, null);
  await sb.close();
});

test('slice-1.5 an already aborted signal runs nothing', async () => {
  const sb = await open();
  const r = await sb.execute('echo x > h', { signal: AbortSignal.abort() });
  assert.equal(r.exitCode, 130);
  assert.equal(await sb.exists('h'), false);
  await sb.close();
});

test('slice-1.6 output streams in chunks, redacted across chunk boundaries', async () => {
  const sb = await open();
  const out = [];
  const err = [];
  // "ab" is printed a long loop before "cdef": it may be the secret's
  // start, so it is held back until the rest arrives
  const script = 'echo -n ab; for ((i=0;i<20000;i++)); do :; done; echo cdef; ' +
    'for ((i=0;i<3000;i++)); do echo line $i; done; echo e >&2';
  const r = await sb.execute(script, {
    sliceMs: 0.001,
    secrets: { TOKEN: 'abcdef' },
    onStdout: (c) => out.push(c),
    onStderr: (c) => err.push(c),
  });
  assert.equal(r.exitCode, 0);
  assert.equal(out.length > 1, true, 'more than one chunk');
  assert.equal(out.join(''), r.stdout);
  assert.equal(out[0].startsWith('[REDACTED]\n'), true);
  assert.equal(out.some((c) => c.includes('ab')), false);
  assert.equal(err.join(''), 'e\n');
  // bytes, and a multi-byte character split across chunks decodes whole
  const bytes = [];
  const rb = await sb.execute('for ((i=0;i<3000;i++)); do echo -n é; done',
    { sliceMs: 0.001, encoding: 'bytes', onStdout: (c) => bytes.push(c) });
  assert.equal(bytes.every((c) => c instanceof Uint8Array), true);
  assert.equal(Buffer.concat(bytes).toString(), 'é'.repeat(3000));
  assert.equal(Buffer.from(rb.stdout).toString(), 'é'.repeat(3000));
  await sb.close();
});

test('slice-1.7 while a run is paused other operations wait their turn, in call order', async () => {
  const sb = await open();
  await sb.writeFile('x', 'data');
  const order = [];
  let during = null;
  const r = sb.execute('for ((i=0;i<20000;i++)); do echo $i; done; echo end > x', {
    sliceMs: 0.001,
    onStdout: () => {
      if (during) return;
      // a getter answers at once; the operations wait for the run
      during = { revision: sb.revision, parse: sb.parseCheck('echo') };
      sb.readFile('x').then((v) => order.push(`read ${v.trim()}`));
      sb.execute('echo two').then((v) => order.push(`exec ${v.stdout.trim()}`));
      sb.writeFile('x', 'later').then(() => order.push('write'));
    },
  }).then((v) => { order.push('run'); return v; });
  assert.equal((await r).exitCode, 0);
  assert.deepEqual(during, { revision: 1, parse: 'complete' });
  await sb.execute('true');
  assert.deepEqual(order, ['run', 'read end', 'exec two', 'write']);
  assert.equal(await sb.readFile('x'), 'later');
  await sb.close();
});

test('slice-1.10 a plain execute slices: a timer fires during a long loop', async () => {
  const sb = await open();
  let fired = false;
  setTimeout(() => { fired = true; }, 0);
  const r = await sb.execute('i=0; while ((i < 100000)); do ((i++)); done; echo $i');
  assert.equal(r.stdout, '100000\n');
  assert.equal(fired, true);
  // sliceMs: Infinity runs the script whole, as one call into the module
  const whole = await open({ sliceMs: Infinity });
  fired = false;
  setTimeout(() => { fired = true; }, 0);
  assert.equal((await whole.execute('i=0; while ((i < 20000)); do ((i++)); done; echo $i')).stdout,
    '20000\n');
  assert.equal(fired, false);
  await assert.rejects(open({ sliceMs: 0 }), (e) => e.code === 'invalid_argument');
  await assert.rejects(sb.execute('true', { sliceMs: -1 }), (e) => e.code === 'invalid_argument');
  await sb.close();
  await whole.close();
});

test('slice-1.11 a run paused deep in recursion resumes intact', async () => {
  // the deepest nesting the default limits allow pauses with its Asyncify
  // data in the heap; a shallow one with it in the free stack
  const f = (d) => 'f() { local a=$1; if ((a > 0)); then f $((a - 1)); echo -n "$a "; ' +
    `else i=0; while ((i < 300)); do ((i++)); done; echo; fi; }; f ${d}; echo $i`;
  const sb = await open();
  let deepest = 0;
  for (let lo = 100, hi = 2000; hi - lo > 1;) {
    const m = (lo + hi) >> 1;
    if ((await sb.execute(f(m), { sliceMs: Infinity })).exitCode === 0) lo = deepest = m; else hi = m;
  }
  assert.ok(deepest > 100);
  for (const d of [10, deepest]) {
    const want = await sb.execute(f(d), { sliceMs: Infinity });
    const got = await sb.execute(f(d), { sliceMs: 0.001 });
    assert.equal(got.exitCode, 0);
    assert.equal(got.stdout, want.stdout);
  }
  await sb.close();
});

test('slice-1.12 long commands and $( ) pause inside: an abort stops them', async () => {
  const sb = await open();
  const script = 'seq 1 30000 | grep 7 | sed s/7/x/ | tail -2; yes ab | head -c 50000 | cat -n | tail -1';
  const want = await sb.execute(script, { sliceMs: Infinity });
  assert.equal(want.stdout, '2998x\n2999x\n 16667\tab');
  assert.equal((await sb.execute(script, { sliceMs: 0.001 })).stdout, want.stdout);
  // run whole, seq would fill the string limit long before it returned
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 0);
  const r = await sb.execute('seq 1 1000000000 > /dev/null', { signal: ac.signal });
  assert.equal(r.exitCode, 130);
  assert.equal(r.limit, 'cancelled');
  assert.equal((await sb.execute('echo ok')).stdout, 'ok\n');
  // and inside $( ), which ran whole within a slice before
  const ac2 = new AbortController();
  setTimeout(() => ac2.abort(), 0);
  const r2 = await sb.execute('x=$(while :; do :; done); echo no', { signal: ac2.signal });
  assert.equal(r2.exitCode, 130);
  assert.equal(r2.stdout, '');
  await sb.close();
});

test('slice-2.1 the execute tool: timeout_seconds and a signal stop the run', async () => {
  const { createTools } = await import('../../build/npm/tools.js');
  const sb = await open();
  const exec = createTools(sb).find((t) => t.name === 'execute');
  const timed = await exec.execute({ command: 'while :; do :; done', timeout_seconds: 0.02,
    max_output_bytes: null });
  assert.equal(timed.ok, true);
  assert.equal(timed.result.exit_code, 124);
  assert.equal(timed.result.limit, 'timeout');
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 5);
  const aborted = await exec.execute({ command: 'while :; do :; done', timeout_seconds: null,
    max_output_bytes: null }, { signal: ac.signal });
  assert.equal(aborted.result.exit_code, 130);
  assert.equal(aborted.result.limit, 'cancelled');
  await sb.close();
});

test('slice-2.2 the OpenAI shell: timeoutMs gives the outcome timeout', async () => {
  const { openaiShell } = await import('../../build/npm/openai.js');
  const sb = await open();
  const r = await openaiShell(sb).run({ commands: ['while :; do :; done', 'echo next'], timeoutMs: 20 });
  assert.deepEqual(r.output.map((o) => o.outcome),
    [{ type: 'timeout' }, { type: 'exit', exitCode: 0 }]);
  assert.equal(r.output[1].stdout, 'next\n');
  await sb.close();
});

test('slice-2.3 MCP: notifications/cancelled stops the tools/call it names', async () => {
  const { createMcpServer, serveLines } = await import('../../build/npm/mcp.js');
  const sb = await open();
  const server = createMcpServer(sb);
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call',
    params: { name: 'execute', arguments: { command: 'while :; do :; done', timeout_seconds: null,
      max_output_bytes: null } } };
  const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
  async function* input() {
    yield JSON.stringify(call) + '\n';
    await new Promise((resolve) => setTimeout(resolve, 10));
    yield JSON.stringify(cancel) + '\n';
    yield JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }) + '\n';
  }
  const out = [];
  await serveLines(server, input(), (line) => out.push(JSON.parse(line)));
  assert.deepEqual(out.map((m) => m.id), [7, 8]);
  assert.equal(out[0].result.structuredContent.result.limit, 'cancelled');
  assert.equal(out[0].result.structuredContent.result.exit_code, 130);
  await sb.close();
});

test('slice-2.4 AI SDK session: spawn streams output and kill() stops the run', async () => {
  const { aiSandboxSession } = await import('../../build/npm/ai.js');
  const sb = await open();
  const s = aiSandboxSession(sb);
  const p = await s.spawn({ command: 'echo first; while :; do :; done' });
  const reader = p.stdout.getReader();
  const first = await reader.read(); // arrives while the loop still runs
  assert.equal(new TextDecoder().decode(first.value), 'first\n');
  await p.kill();
  assert.deepEqual(await p.wait(), { exitCode: 130 });
  assert.equal((await reader.read()).done, true);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 5);
  const r = await s.run({ command: 'while :; do :; done', abortSignal: ac.signal });
  assert.equal(r.exitCode, 130);
  await sb.close();
});

test('slice-1.8 closing the sandbox ends a sliced run and what waits for it', async () => {
  const sb = await open();
  const run = sb.execute('while :; do :; done', { sliceMs: 1 });
  const fork = sb.fork();
  await sb.close();
  await assert.rejects(run, (e) => e instanceof MemSandboxError && e.code === 'sandbox_closed');
  await assert.rejects(fork, (e) => e instanceof MemSandboxError && e.code === 'sandbox_closed');
});

test('slice-1.9 eval, source and bash scripts pause too; their results do not change', async () => {
  const setup = 'printf \'n=0; while [ $n -lt 500 ]; do n=$((n+1)); done; echo "$0 $n $RANDOM"\\n\' > s.sh';
  const script = `${setup}; bash s.sh; source s.sh; eval 'for i in 1 2; do source s.sh; done'; echo $n`;
  const whole = await open();
  const want = await whole.execute(script, { sliceMs: Infinity });
  const sliced = await open();
  const got = await sliced.execute(script, { sliceMs: 0.001 });
  assert.equal(got.stdout, want.stdout);
  assert.match(want.stdout, /^s\.sh 500 \d+\nbash 500 \d+\nbash 500 \d+\nbash 500 \d+\n500\n$/);
  for (const loop of ['eval "while :; do :; done"', 'printf "while :; do :; done\\n" > l.sh; bash l.sh',
    'printf "while :; do :; done\\n" > l.sh; source l.sh']) {
    const ac = new AbortController();
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks === 3) ac.abort();
    }, 1);
    const r = await sliced.execute(loop, { signal: ac.signal });
    clearInterval(timer);
    assert.equal(r.limit, 'cancelled', loop);
  }
  await whole.close();
  await sliced.close();
});

test('slice-3.1 the CLI streams output while a script runs; Ctrl-C ends it with 130', async () => {
  const { spawn } = await import('node:child_process');
  const bin = new URL('../../build/npm/bin/memsandbox.js', import.meta.url);
  const child = spawn(process.execPath, [bin.pathname, ...(WASM ? ['--wasm', WASM] : []),
    '-c', 'echo start; while :; do :; done'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const code = await new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out === 'start\n') child.kill('SIGINT'); // the loop is still running
    });
    child.on('exit', (c) => resolve(c));
  });
  assert.equal(out, 'start\n');
  assert.equal(code, 130);
});
