// scale-state.test.mjs - content-addressed state (issue 20 item 1):
// exportState / importState round trips, pieces shared and written once,
// and a corpus of hostile manifests and pieces, each rejected by name with
// no sandbox left behind. Runs against build/npm (MSB_WASM picks the module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Sandbox, dirEntries } from '../../build/npm/node.js';

const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });
const sha = (b) => createHash('sha256').update(b).digest('hex');
const enc = new TextEncoder();
const REPORT = 'declare -p x; declare -f f; pwd; alias; echo "$# $*"; ' +
  'ls -l --time-style=+%s /workspace; ls -la --time-style=+%s /workspace/d; readlink /workspace/l; cat /tmp/t';

async function setup() {
  const sb = await open();
  const r = await sb.execute("mkdir -p d/e && echo one > d/f && printf 'x\\0y' > d/e/bin && " +
    "ln -s d/f l && chmod 640 d/f && echo t > /tmp/t && touch -d @1000 d/e && x=1; f(){ echo hi; }; " +
    "alias ll='ls -l'; set -- a 'b c'; cd d");
  assert.equal(r.exitCode, 0, r.stderr);
  return sb;
}

// A directory piece from entries { kind, mode, mtime, key, name }.
function dirPiece(entries) {
  const parts = [enc.encode('msb-dir-1\n')];
  for (const e of entries) {
    const name = typeof e.name === 'string' ? enc.encode(e.name) : e.name;
    const b = new Uint8Array(49 + name.length);
    const dv = new DataView(b.buffer);
    b[0] = { file: 0x46, directory: 0x44, symlink: 0x4c, command: 0x58 }[e.kind] ?? e.kind;
    dv.setUint32(1, e.mode);
    dv.setBigInt64(5, BigInt(e.mtime));
    b.set(Buffer.from(e.key, 'hex'), 13);
    dv.setUint32(45, name.length);
    b.set(name, 49);
    parts.push(b);
  }
  return new Uint8Array(Buffer.concat(parts));
}

test('scale-1.1 importState rebuilds files, modes, mtimes, links, session and revision', async () => {
  const a = await setup();
  const { manifest, pieces, keys } = await a.exportState();
  assert.equal(manifest.rootHash, await a.rootHash());
  assert.equal(manifest.revision, String(a.revision));
  assert.equal(manifest.cwd, '/workspace/d');
  for (const [k, p] of pieces) assert.equal(sha(p), k, 'pieces are named by their SHA-256');
  assert.deepEqual(new Set(pieces.keys()), keys);
  // JSON-safe: a manifest travels as text
  const b = await Sandbox.importState(JSON.parse(JSON.stringify(manifest)), (k) => pieces.get(k));
  assert.equal(await b.rootHash(), await a.rootHash());
  assert.equal(b.revision, a.revision);
  assert.equal((await b.execute(REPORT)).stdout, (await a.execute(REPORT)).stdout);
  assert.deepEqual(await b.readFile('/workspace/d/e/bin', { encoding: 'bytes' }), enc.encode('x\0y'));
  await a.close();
  await b.close();
});

test('scale-1.2 equal states name equal pieces: a second sandbox adds nothing', async () => {
  const a = await setup();
  const b = await setup();
  const ea = await a.exportState();
  const eb = await b.exportState({ since: ea.keys });
  assert.deepEqual(eb.manifest, ea.manifest);
  assert.equal(eb.pieces.size, 0);
  await a.close();
  await b.close();
});

test('scale-1.3 after one change, since gives the file, the listings above it and nothing else', async () => {
  const sb = await open();
  // 2,000 files in 20 directories
  const r = await sb.execute('for d in $(seq 20); do mkdir -p src/$d; for f in $(seq 100); do echo "$d $f" > src/$d/$f.txt; done; done');
  assert.equal(r.exitCode, 0, r.stderr);
  const first = await sb.exportState();
  assert.equal(first.pieces.size, 2000 + 24); // files, 23 listings (/tmp too), session
  await sb.execute('echo changed >> src/7/42.txt');
  const next = await sb.exportState({ since: first });
  const got = [...next.pieces.keys()];
  const file = await sb.readFile('/workspace/src/7/42.txt', { encoding: 'bytes' });
  assert.ok(got.includes(sha(file)));
  // the file, src/7, src, /workspace: the session did not change
  assert.equal(got.length, 4);
  const listing = [...next.pieces.values()].reduce((n, p) => n + p.length, 0) - file.length;
  assert.ok(listing < 8 * 1024, `${listing} listing bytes`);
  const store = new Map([...first.pieces, ...next.pieces]);
  const c = await Sandbox.importState(next.manifest, (k) => store.get(k));
  assert.equal(await c.rootHash(), await sb.rootHash());
  await sb.close();
  await c.close();
});

test('scale-1.4 async getPiece and shared directory pieces are fetched once each', async () => {
  const sb = await open();
  await sb.execute('mkdir -p a/x b/x && echo same > a/x/f && echo same > b/x/f && touch -d @5 a/x b/x a b');
  const { manifest, pieces } = await sb.exportState();
  const asked = [];
  const c = await Sandbox.importState(manifest, async (k) => {
    asked.push(k);
    return pieces.get(k);
  });
  assert.equal(asked.length, new Set(asked).size);
  assert.equal(asked.length, pieces.size);
  assert.equal((await c.execute('cat a/x/f b/x/f')).stdout, 'same\nsame\n');
  await sb.close();
  await c.close();
});

// The hostile corpus: [id, what to change, expected message].
async function hostile() {
  const a = await setup();
  const { manifest, pieces } = await a.exportState();
  await a.close();
  assert.equal(dirEntries(pieces.get(manifest.workspace.key)).length, 2);
  const fileKey = sha(enc.encode('t\n'));
  const dirKey = manifest.workspace.key;
  const withWs = (entries) => withPiece(dirPiece(entries));
  const withPiece = (p) => {
    const store = new Map(pieces);
    store.set(sha(p), p);
    return [{ ...manifest, workspace: { ...manifest.workspace, key: sha(p) } }, store];
  };
  const f = (name, extra = {}) => ({ kind: 'file', mode: 0o644, mtime: '0', key: fileKey, name, ...extra });
  // a directory whose 64 entries are one shared directory, 4 levels deep
  let bomb = dirPiece([f('leaf')]);
  const bombStore = new Map(pieces);
  for (let i = 0; i < 4; i++) {
    bombStore.set(sha(bomb), bomb);
    const sub = sha(bomb);
    bomb = dirPiece(Array.from({ length: 64 }, (_, j) => ({ kind: 'directory', mode: 0o755, mtime: '0',
      key: sub, name: `d${String(j).padStart(2, '0')}` })));
  }
  bombStore.set(sha(bomb), bomb);
  const linkNul = enc.encode('a\0b');
  return [
    ['format', [{ ...manifest, format: 'x' }, pieces], /manifest\.format must be/],
    ['key', [{ ...manifest, workspace: { ...manifest.workspace, key: 'ab' } }, pieces], /manifest\.workspace\.key must be 64/],
    ['mode', [{ ...manifest, workspace: { ...manifest.workspace, mode: 1e6 } }, pieces], /manifest\.workspace\.mode/],
    ['cwd', [{ ...manifest, cwd: 'rel' }, pieces], /manifest\.cwd must be an absolute path/],
    ['revision', [{ ...manifest, revision: '-1' }, pieces], /manifest\.revision/],
    ['missing', [manifest, new Map([...pieces].filter(([k]) => k !== fileKey))], new RegExp(`missing piece ${fileKey}`)],
    ['swapped', [manifest, new Map([...pieces].map(([k, v]) => [k, k === fileKey ? enc.encode('u\n') : v]))],
      new RegExp(`piece ${fileKey} does not match its key`)],
    ['not-a-listing', [manifest, new Map([...pieces, [dirKey, enc.encode('hello')]])], /is not a directory listing/],
    ['truncated', withPiece(dirPiece([f('abc')]).slice(0, -1)), /is truncated/],
    ['dotdot', withWs([f('..')]), /invalid, unsorted or duplicate name/],
    ['slash', withWs([f('a/b')]), /invalid, unsorted or duplicate name/],
    ['empty-name', withWs([f('')]), /invalid, unsorted or duplicate name/],
    ['duplicate', withWs([f('a'), f('a')]), /invalid, unsorted or duplicate name/],
    ['unsorted', withWs([f('b'), f('a')]), /invalid, unsorted or duplicate name/],
    ['kind', withWs([f('a', { kind: 0x5a })]), /unknown entry kind/],
    ['entry-mode', withWs([f('a', { mode: 0o170000 })]), /invalid mode/],
    ['link-nul', (() => {
      const [m, s] = withWs([f('l', { kind: 'symlink', key: sha(linkNul) })]);
      s.set(sha(linkNul), linkNul);
      return [m, s];
    })(), /invalid link target/],
    // a command file's piece names a command this sandbox has
    // (the root hash the manifest records is the tree's: a command file
    // hashes as its empty contents)
    ...[['c at', /invalid command name in piece/], ['', /invalid command name in piece/],
      ['/bin/cat', /invalid command name in piece/],
      ['nosuch', /member 'workspace\/x' is marked as command 'nosuch'/]].map(([name, re]) => {
      const p = enc.encode(name);
      const [m, s] = withWs([f('x', { kind: 'command', key: sha(p) })]);
      s.set(sha(p), p);
      const rootHash = sha(Buffer.concat([enc.encode('mem-sandbox-directory-v1\0F\0\0\0\x01x'),
        Buffer.from(sha(''), 'hex')]));
      return [`command ${JSON.stringify(name)}`, [{ ...m, rootHash }, s], re];
    }),
    ['bomb', [{ ...manifest, workspace: { ...manifest.workspace, key: sha(bomb) } }, bombStore],
      /more entries than the node quota/],
    ['root-hash', [{ ...manifest, rootHash: '0'.repeat(64) }, pieces], /root hash mismatch/],
    ['session', (() => {
      const bad = enc.encode('12 bogus=1\n');
      const s = new Map(pieces);
      s.set(sha(bad), bad);
      return [{ ...manifest, session: sha(bad) }, s];
    })(), /state rejected|archive rejected/],
  ].filter(([, , re]) => re);
}

test('scale-1.5 hostile manifests and pieces are rejected with named reasons', async () => {
  for (const [id, [m, store], re] of await hostile()) {
    await assert.rejects(Sandbox.importState(m, (k) => store.get(k)), (e) => {
      assert.equal(e.code, 'malformed_input', `${id}: ${e.message}`);
      assert.match(e.message, re, id);
      return true;
    }, id);
  }
});

test('scale-1.6 a manifest past the sandbox quota fails whole, without a sandbox', async () => {
  const a = await open();
  await a.execute('for i in $(seq 50); do echo $i > f$i; done');
  const { manifest, pieces } = await a.exportState();
  await assert.rejects(Sandbox.importState(manifest, (k) => pieces.get(k), { limits: { max_nodes: 20 } }),
    (e) => e.category === 'quota_exceeded' || e.code === 'malformed_input');
  await a.close();
});

test('scale-1.7 trustPieces skips hashing pieces but not the root hash check', async () => {
  const a = await setup();
  const { manifest, pieces } = await a.exportState();
  const b = await Sandbox.importState(manifest, (k) => pieces.get(k), { trustPieces: true });
  assert.equal(await b.rootHash(), manifest.rootHash);
  // a /workspace file: /tmp is outside the root hash
  const fileKey = sha(enc.encode('one\n'));
  assert.ok(pieces.has(fileKey));
  const swapped = new Map(pieces).set(fileKey, enc.encode('two\n'));
  await assert.rejects(Sandbox.importState(manifest, (k) => swapped.get(k), { trustPieces: true }),
    /archive rejected: root hash mismatch|state rejected/);
  await a.close();
  await b.close();
});

test('scale-1.8 exports since the last one skip unchanged directories and agree with full exports', async () => {
  const sb = await open();
  await sb.execute('mkdir -p a/x/y b c && echo 1 > a/x/y/f && echo 2 > b/g && echo 3 > c/h && ln -s b/g c/l');
  const store = new Map();
  let prev = await sb.exportState();
  for (const [k, v] of prev.pieces) store.set(k, v);
  for (const script of ['echo 4 > a/x/y/f', 'echo 5 > b/g', 'mkdir c/d && echo 6 > c/d/i', 'rm -r a', 'chmod 700 b']) {
    await sb.execute(script);
    const next = await sb.exportState({ since: prev });
    const full = await sb.exportState();
    assert.deepEqual(next.manifest, full.manifest, script);
    assert.deepEqual([...next.keys].sort(), [...full.keys].sort(), script);
    for (const [k, v] of next.pieces) store.set(k, v);
    const c = await Sandbox.importState(next.manifest, (k) => store.get(k));
    assert.equal(await c.rootHash(), await sb.rootHash(), script);
    await c.close();
    prev = next;
  }
  await sb.close();
});

test('scale-1.9 command files (copies of /usr/bin files) come back as commands, not empty scripts', async () => {
  const sb = await open();
  let r = await sb.execute('echo data > f && cp /usr/bin/cat mycat && mkdir bin && cp /usr/bin/wc bin/count');
  assert.equal(r.exitCode, 0, r.stderr);
  const first = await sb.exportState();
  const kinds = dirEntries(first.pieces.get(first.manifest.workspace.key)).map((e) => e.kind);
  assert.deepEqual(kinds, ['directory', 'file', 'command']);
  assert.equal(new TextDecoder().decode(first.pieces.get(sha(enc.encode('cat')))), 'cat');
  const store = new Map(first.pieces);
  const check = async (manifest, want) => {
    const c = await Sandbox.importState(JSON.parse(JSON.stringify(manifest)), (k) => store.get(k));
    assert.equal(await c.rootHash(), await sb.rootHash());
    assert.equal((await c.execute('./mycat f; bin/count -c < f; [ -s mycat ] || echo empty')).stdout, want);
    await c.close();
  };
  await check(first.manifest, 'data\n5\nempty\n');
  // a later export since the first: the mark stays in the unchanged listing
  // and in the changed one; a write over a command file makes it a file
  r = await sb.execute('echo more >> f && echo "echo mine" > bin/count');
  const next = await sb.exportState({ since: first });
  for (const [k, v] of next.pieces) store.set(k, v);
  await check(next.manifest, 'data\nmore\nmine\nempty\n');
  await sb.close();
});

test('scale-1.10 hard links survive exportState / importState as hardlink entries (#16 item 10)', async () => {
  const a = await open();
  const r = await a.execute('mkdir x y && echo 1 > x/f && ln x/f y/g && ln x/f h');
  assert.equal(r.exitCode, 0, r.stderr);
  const first = await a.exportState();
  const kinds = [];
  for (const [, p] of first.pieces) {
    if (p.length > 10 && Buffer.from(p.subarray(0, 10)).toString() === 'msb-dir-1\n') {
      for (const e of dirEntries(p)) kinds.push(e.kind);
    }
  }
  assert.equal(kinds.filter((k) => k === 'hardlink').length, 2);
  await a.execute('echo changed > h');
  const { manifest, pieces } = await a.exportState({ since: first });
  const all = new Map([...first.pieces, ...pieces]);
  const b = await Sandbox.importState(manifest, (k) => all.get(k));
  assert.equal((await b.execute('stat -c %h x/f y/g h; cat y/g')).stdout, '3\n3\n3\nchanged\n');
  assert.equal(await b.rootHash(), await a.rootHash());
  await a.close();
  await b.close();
});
