// budget.test.mjs - the step limit bounds work, whatever the work is: a
// regex that backtracks, an expansion or a copy of a large value, a brace
// expansion that explodes. Each script here would run for minutes (or
// forever) without its budget; it must stop on the named limit.
// Runs against build/npm like the other suites (MSB_WASM picks the module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from '../../build/npm/node.js';

// A string of n a's followed by b: the back-reference patterns below try
// every way of splitting the a's, 2^n of them.
const AS = (n) => `s=$(printf '%*s' ${n} '' | tr ' ' a)b`;

// Without its charge each script would run on until the test's timeout;
// reaching the limit proves the work is paid for. How soon (wall time) is
// measured by bench/bombs.mjs, not asserted here.
async function stopsOn(sb, script, limit) {
  const r = await sb.execute(script);
  assert.equal(r.limit, limit, `${script}\n${r.stderr}`);
  assert.equal(r.exitCode, 124, script);
  return r;
}

test('budget-1.1 every regex use charges its backtracking to max_steps', async () => {
  const sb = await Sandbox.create({ limits: { max_steps: 100000 } });
  const uses = [
    `${AS(40)}; re='^(a|a)*\\1$'; [[ $s =~ $re ]]; echo not reached`,
    `${AS(40)}; expr "$s" : '\\(a*\\)*\\1$'`,
    `${AS(40)}; mkdir -p d; touch "d/$s"; find d -regex '.*/\\(a*\\)*\\1$'`,
    `${AS(40)}; echo "$s" | grep -E '^(a|a)*\\1$'`,
    `${AS(40)}; echo "$s" | sed -E 's/^(a|a)*\\1$//'`,
    `${AS(40)}; echo "$s" | nl -bp'\\(a*\\)*\\1$'`,
    `${AS(40)}; echo "$s" | tac -rs '\\(a*\\)*\\1$'`,
  ];
  for (const script of uses) {
    const r = await stopsOn(sb, script, 'max_steps');
    assert.match(r.stderr, /step limit exceeded \(max_steps=100000\)/);
  }
  // the budget is the step limit: the same search in a fresh call finishes
  // when it is short enough
  const r = await sb.execute(`${AS(8)}; re='^(a|a)*\\1$'; [[ $s =~ $re ]]; echo $?`);
  assert.equal(r.stdout, '1\n');
  await sb.close();
});

test('budget-1.2 bytes moved cost steps: big copies and substitutions stop on max_steps', async () => {
  const strict = await Sandbox.create({ profile: 'strict' });
  await stopsOn(strict, "s=$(printf '%1000000s'); while :; do x=${s//x/y}; done",
    'max_steps');
  await stopsOn(strict, "s=$(printf '%1000000s'); while :; do x=${s// /y}; done",
    'max_steps');
  await strict.close();
  const sb = await Sandbox.create({ limits: { max_steps: 20000 } });
  await stopsOn(sb, "s=$(printf '%4000000s'); while :; do t=$s; done", 'max_steps');
  await stopsOn(sb, "printf '%4000000s' > f; while :; do cat f; done > /dev/null",
    'max_steps');
  await stopsOn(sb, "s=$(printf '%4000000s'); while :; do echo \"$s\"; done | wc -c",
    'max_steps');
  // ordinary work stays far inside the budget
  const r = await sb.execute("s=$(printf '%100000s'); t=${s// /ab}; echo ${#t}");
  assert.equal(r.stdout, '200000\n');
  await sb.close();
});

test('budget-1.3 brace bombs stop at once, in little memory', async () => {
  const sb = await Sandbox.create({ limits: { max_memory_bytes: 256 << 20 } });
  const wide = await stopsOn(sb, `echo ${'{a,b}'.repeat(30)} | wc -c`, 'max_glob_work');
  assert.match(wide.stderr, /glob work limit exceeded/);
  const deep = await stopsOn(sb, `echo ${'{a,'.repeat(3000)}b${'}'.repeat(3000)} | wc -c`,
    'max_call_depth');
  assert.match(deep.stderr, /nesting too deep for the native stack/);
  assert.equal((await sb.execute('echo {a,b}{1..3}')).stdout, 'a1 a2 a3 b1 b2 b3\n');
  await sb.close();
});

test('budget-1.4 printf fields and file writes name the limit they pass', async () => {
  const sb = await Sandbox.create({ profile: 'strict' });
  let r = await sb.execute("printf '%*s' 999999999 x | wc -c");
  assert.equal(r.limit, 'max_string_bytes');
  assert.match(r.stderr, /string size limit exceeded \(max_string_bytes=1048576\)/);
  r = await sb.execute("printf '%900000s' > a; cat a a a a a > b; echo rc=$?; cat a a a > c; wc -c < c");
  assert.equal(r.limit, null);
  assert.equal(r.stdout, 'rc=1\n2700000\n');
  assert.equal(r.stderr, 'cat: write error: File too large\n');
  await sb.close();
});

test('budget-1.5 a slow patch stops on the named step limit, unified and V4A', async () => {
  const sb = await Sandbox.create({ limits: { max_steps: 3000 } });
  await sb.execute('seq 200000 > f');
  for (const p of ["--- f\\n+++ f\\n@@ -1,3 +1,3 @@\\n x\\n-y\\n+z\\n w\\n",
    '*** Begin Patch\\n*** Update File: f\\n@@\\n x\\n-y\\n+z\\n w\\n*** End Patch\\n']) {
    const r = await stopsOn(sb, `printf -- '${p}' > p; patch f < p`, 'max_steps');
    assert.match(r.stderr, /step limit exceeded \(max_steps=3000\)/);
  }
  await sb.close();
});

test('budget-1.6 the shell pays for every pass over a value (#21 item 4)', async () => {
  // 1 MB value, 100,000 steps of 256 bytes (SH_BYTES_PER_STEP): an
  // assignment copies the value twice (expansion, variable), an unquoted
  // expansion passes over it twice (IFS scan, copy), so about 12 turns
  // fit; a quoted one, or counting its length, passes once (about 25).
  // Before the charges each ran 97 turns (49 for the write, 19,620 for the
  // length), and to the normal profile's end took a minute or more on a
  // 60 MB value (bench/bombs.mjs).
  const sb = await Sandbox.create({ limits: { max_steps: 100000 } });
  for (const [body, most] of [['t=$s', 13], [': $s', 13], [': "$s"', 26],
    ['echo "$s" > f', 13], [': ${#s}', 26]]) {
    await stopsOn(sb, `s=$(printf '%1000000s' | tr ' ' a); n=0; while :; do ${body}; n=$((n+1)); done`,
      'max_steps');
    const n = Number((await sb.execute('echo $n')).stdout);
    assert.ok(n >= 5 && n <= most, `${body}: ${n} turns`);
  }
  await sb.close();
});

test('budget-1.7 gzip pays for deflating by input byte (#21 item 4)', async () => {
  // 1 MB in, 32 units a byte (GZIP_DEFLATE_COST) against 100,000 steps of
  // 1,024: three turns. Before, 5,684 turns (the input read straight from
  // the filesystem cost nothing), 37 minutes to the normal budget's end.
  const sb = await Sandbox.create({ limits: { max_steps: 100000 } });
  await sb.execute("printf '%1000000s' | tr ' ' a | fold -w 100 > f");
  await stopsOn(sb, 'n=0; while :; do gzip -c f > /dev/null; n=$((n+1)); done', 'max_steps');
  const n = Number((await sb.execute('echo $n')).stdout);
  assert.ok(n >= 1 && n <= 4, `${n} turns`);
  assert.equal((await sb.execute('gzip -c f | gunzip | cmp - f && echo same')).stdout, 'same\n');
  await sb.close();
});

test('budget-1.8 commands pay their cost per byte, not only the read (#21 item 4)', async () => {
  // 1 MB file against 100,000 steps of 1,024 bytes: reading it alone costs
  // about 1,000 steps, so before the cost factors (CMD_COST_* in cmd.h) each
  // loop ran about 100 turns here (16 for base64, 14 to 32 for awk and jq)
  // and 12 to 55 s of CPU to the normal budget's end (bench/bombs.mjs). Now
  // digests pay 24 times a copy, base64 64, sed 12, awk 32, jq 40 per byte
  // and 512 bytes' worth per value; jq 2,048 steps to start.
  const sb = await Sandbox.create({ limits: { max_steps: 100000 } });
  await sb.execute("printf '%1000000s' | tr ' ' a | fold -w 100 > f; " +
    `printf '{"a":[%s1]}' "$(printf '1,%.0s' $(seq 50000))" > j.json`);
  for (const [cmd, most] of [['md5sum f', 5], ['sha256sum f', 5], ['base64 f', 2],
    ["sed -n '$p' f", 9], ["awk '{n+=length}' f", 4], ['jq -R . f', 3],
    ['jq -c . j.json', 4]]) {
    await stopsOn(sb, `n=0; while :; do ${cmd} > /dev/null; n=$((n+1)); done`, 'max_steps');
    const n = Number((await sb.execute('echo $n')).stdout);
    assert.ok(n >= 1 && n <= most, `${cmd}: ${n} turns`);
  }
  await stopsOn(sb, 'n=0; while :; do jq -n 1; n=$((n+1)); done', 'max_steps');
  const n = Number((await sb.execute('echo $n')).stdout);
  assert.ok(n >= 30 && n <= 50, `jq -n 1: ${n} turns`);
  // the charges change no output
  const big = await Sandbox.create();
  await big.execute("printf '%1000000s' | tr ' ' a | fold -w 100 > f; " +
    `printf '{"a":[%s1]}' "$(printf '1,%.0s' $(seq 50000))" > j.json`);
  assert.equal((await big.execute("base64 f | base64 -d | cmp - f && sed -n '$p' f | wc -c && " +
    "awk '{n+=length} END{print n}' f && jq '.a | length' j.json && md5sum < j.json | wc -c"))
    .stdout, '100\n1000000\n50001\n36\n');
  await big.close();
  await sb.close();
});
