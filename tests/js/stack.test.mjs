// stack.test.mjs - no script can overflow the native stack: in wasm it is
// V8's (984 KB by default under Node) and overflowing it inside the module
// would fail the whole sandbox, so deep nesting must end in a clean result
// (a nesting error or a limit stop) with the sandbox still usable. Runs the
// scripts in a child Node started with --no-liftoff (V8's optimizing tier
// only: its wasm frames are the largest, and long-lived sandboxes end up
// there) and --stack-size=834, as if the host's own frames took 150 KB.
// Like the other suites it runs once per wasm build (MSB_WASM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const rep = (s, n) => s.repeat(n);

// Recursion with some work at the bottom: run at several depths, so one of
// them has that work at the deepest point the limits allow.
const rec = (leaf, step = 'f $(( $1 - 1 ))') =>
  `f() { if (( $1 > 0 )); then ${step}; else ${leaf}; fi; }; f`;

// [id, script prefix, depths] - the script is prefix + ' ' + depth when
// depths are given, else run as is.
const SCRIPTS = [
  ['if', `${rep('if true; then ', 990)}echo x; ${rep('fi; ', 990)}`],
  ['group', `${rep('{ ', 990)}echo x; ${rep('}; ', 990)}`],
  ['nest-2000', rep('if ( { while for x in $( "${a:-$(( [[ ( ', 2000)],
  ['cmdsub-500', `x=${rep('$(', 500)}echo x${rep(')', 500)}`],
  ['cmdsub-arg', `echo ${rep('"$(echo ', 800)}x${rep(')"', 800)}`],
  ['funcdef', `${rep('f() { ', 1500)}echo x; ${rep('}; ', 1500)}f`],
  ['and-chain', `${rep('true && ', 100000)}echo ok`],
  ['cond-chain', `[[ ${rep('a && ', 100000)}a ]] && echo ok`],
  ['brace', `echo ${rep('{a,', 4000)}z${rep('}', 4000)} | wc -w`],
  ['test-chain', `a=(); for ((i=0;i<20000;i++)); do a+=(x -a); done; test "\${a[@]}" x`],
  ['expr', "expr $(printf '( %.0s' {1..20000}) 1 $(printf ') %.0s' {1..20000})"],
  ['func', rec('echo bottom'), [990, 1500, 2500, 5000]],
  ['eval', rec('echo bottom', 'eval "f $(( $1 - 1 ))"'), [490, 800, 2000]],
  ['cmdsub', rec('echo bottom', 'echo $(f $(( $1 - 1 )))'), [300, 600, 2000]],
  ['loops', rec('echo bottom', 'for i in 1; do while :; do case x in x) f $(( $1 - 1 ));; esac; break; done; done'), [300, 700, 2000]],
  ['pipe', rec('echo bottom', 'f $(( $1 - 1 )) | cat'), [500, 1000, 2000]],
  ['source', `printf 'n=$((n-1)); if ((n>0)); then source s.sh; fi\\n' > s.sh; n=3000; source s.sh`],
  ['bash', `printf 'n=$(($1-1)); if (($n>0)); then bash s.sh $n; fi\\n' > s.sh; bash s.sh`, [500, 1000, 3000]],
  ['timeout', `printf 'n=$(($1-1)); if (($n>0)); then timeout 100 bash s.sh $n; fi\\n' > s.sh; bash s.sh`, [200, 400, 1000]],
  ['find-exec', `printf 'n=$(($1-1)); if (($n>0)); then find . -maxdepth 0 -exec bash s.sh $n \\\\; ; fi\\n' > s.sh; bash s.sh`, [200, 400, 1000]],
  ['leaf-arith', rec(`echo $(( ${rep('(', 250)}1${rep(')', 250)} ))`), [100, 600, 1200, 1800]],
  ['leaf-brace', rec(`echo ${rep('{a,', 1500)}z${rep('}', 1500)} | wc -w`), [100, 300, 480, 600]],
  ['leaf-eval', rec(`eval "${rep('if true; then ', 900)}echo x; ${rep('fi; ', 900)}"`), [100, 200, 400]],
  ['leaf-declare', `g() { ${rep('if true; then ', 900)}echo x; ${rep('fi; ', 900)}}; ${rec('declare -f g | wc -l')}`, [100, 390, 600]],
  ['leaf-subst', rec(`echo ${rep('$(echo ', 400)}x${rep(')', 400)}`), [100, 500, 780, 1000]],
];

// The child: runs every script, max_call_depth raised so that only the
// native stack bounds the recursion, and reports what each ended in.
async function child() {
  const out = [];
  for (const [id, script, depths] of SCRIPTS) {
    const sb = await Sandbox.create({ wasm: WASM, limits: { max_call_depth: 1000000 } });
    for (const d of depths ?? [null]) {
      const label = d === null ? id : `${id} ${d}`;
      try {
        const r = await sb.execute(d === null ? script : `${script} ${d}`);
        const alive = await sb.execute('echo alive');
        out.push({ label, exit: r.exitCode, limit: r.limit, alive: alive.stdout,
          err: r.stderr.slice(0, 160) });
      } catch (e) {
        out.push({ label, thrown: e.message });
        break;
      }
    }
    await sb.close().catch(() => {});
  }
  process.stdout.write(JSON.stringify(out));
}

if (process.env.MSB_STACK_CHILD) {
  await child();
} else {
  test('stack-1.1 deep nesting ends cleanly in the optimizing tier with 150 KB less stack', () => {
    const r = spawnSync(process.execPath,
      ['--no-liftoff', '--stack-size=834', fileURLToPath(import.meta.url)],
      { env: { ...process.env, MSB_STACK_CHILD: '1' }, encoding: 'utf8',
        maxBuffer: 1 << 24 });
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(r.stdout);
    assert.equal(res.length, SCRIPTS.reduce((n, s) => n + (s[2] ? s[2].length : 1), 0));
    for (const x of res) {
      assert.equal(x.thrown, undefined, `${x.label}: ${x.thrown}`);
      assert.equal(x.alive, 'alive\n', x.label);
      // a clean end: success, a shell error, or a named limit
      assert.ok(x.limit === null || x.limit === 'max_call_depth' ||
        x.limit === 'max_glob_work', `${x.label}: ${x.limit}`);
    }
  });

  test('stack-1.2 the deep scripts bash runs, the sandbox runs too (default limits)', async () => {
    const sb = await Sandbox.create({ wasm: WASM });
    const script = (id) => SCRIPTS.find((s) => s[0] === id)[1];
    const cases = [
      [script('if'), 'x\n', 0],
      [script('group'), 'x\n', 0],
      ['e() { if (( $1 > 0 )); then eval "e $(( $1 - 1 ))"; fi; }; e 490; echo done', 'done\n', 0],
      [`${rec('echo bottom')} 990`, 'bottom\n', 0],
      // $( ) may pause (Asyncify's larger frames), so 350 levels, not bash's 500+
      [`x=${rep('$(', 350)}echo x${rep(')', 350)}; echo "rc=$?"`, 'rc=127\n', 0],
    ];
    for (const [script, stdout, exit] of cases) {
      const r = await sb.execute(script);
      assert.equal(r.stdout, stdout, script.slice(0, 60));
      assert.equal(r.exitCode, exit, script.slice(0, 60));
    }
    // recursion past the limits stops the run, and the session goes on
    const r = await sb.execute('f() { f; }; f');
    assert.equal(r.limit, 'max_call_depth');
    assert.equal((await sb.execute('echo alive')).stdout, 'alive\n');
    await sb.close();
  });
}
