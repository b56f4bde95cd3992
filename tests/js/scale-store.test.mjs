// scale-store.test.mjs - SnapshotStores (issue 20 item 2): every store
// saves and loads a sandbox's state, writes only new pieces, shares
// pieces across sandboxes, and the garbage collector removes exactly the
// pieces no manifest reaches. Durable Object storage is stood in for by
// a Map with its API here; scale-cloudflare.test.mjs runs the real one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Sandbox, MemoryStore, FileStore, KeyValueStore, DurableObjectStore,
  saveState, loadManifest, pieceReader, collectGarbage,
} from '../../build/npm/node.js';

const open = () => Sandbox.create({ clock: 0, seed: 1 });

// The part of Durable Object storage the store uses, over a Map.
function fakeStorage() {
  const m = new Map();
  const s = {
    m,
    async get(k) {
      if (Array.isArray(k)) return new Map(k.filter((x) => m.has(x)).map((x) => [x, m.get(x)]));
      return m.get(k);
    },
    async put(obj) {
      if (Object.keys(obj).length > 128) throw new Error('too many keys');
      for (const [k, v] of Object.entries(obj)) m.set(k, v);
    },
    async delete(k) {
      for (const x of [].concat(k)) m.delete(x);
    },
    async list({ prefix }) {
      return new Map([...m].filter(([k]) => k.startsWith(prefix)).sort());
    },
    async transaction(fn) {
      const before = new Map(m);
      try {
        return await fn(s);
      } catch (e) {
        m.clear();
        for (const [k, v] of before) m.set(k, v);
        throw e;
      }
    },
  };
  return s;
}

const dirs = [];
const stores = {
  memory: () => new MemoryStore(),
  file: () => {
    const d = mkdtempSync(join(tmpdir(), 'msb-store-'));
    dirs.push(d);
    return new FileStore(d);
  },
  'key-value': () => {
    const m = new Map();
    return new KeyValueStore({
      get: async (k) => m.get(k), put: async (k, v) => void m.set(k, v), delete: async (k) => void m.delete(k),
      list: async (p) => [...m.keys()].filter((k) => k.startsWith(p)),
    }, { prefix: 'tenant1:' });
  },
  'durable-object': () => new DurableObjectStore(fakeStorage()),
};

for (const [kind, make] of Object.entries(stores)) {
  test(`scale-2.1 ${kind}: save, load, save again writes the change only, collect garbage`, async () => {
    const store = make();
    const a = await open();
    // a 300 KiB file spans chunks in Durable Object storage
    await a.writeFile('/workspace/big', 'x'.repeat(307200));
    await a.execute('mkdir src; for i in $(seq 30); do echo "file $i" > src/$i; done; x=1; cd src');
    const e1 = await a.exportState();
    const w1 = await saveState(store, 'a', e1);
    assert.equal(w1.pieces, e1.pieces.size);
    await a.execute('echo changed > 7');
    const e2 = await a.exportState({ since: e1 });
    const w2 = await saveState(store, 'a', e2);
    assert.equal(w2.pieces, 3); // the file, src, /workspace: the session is unchanged
    const b = await Sandbox.importState(await loadManifest(store, 'a'), pieceReader(store));
    assert.equal(await b.rootHash(), await a.rootHash());
    assert.equal((await b.execute('pwd; echo $x; cat 7; wc -c < ../big')).stdout,
      '/workspace/src\n1\nchanged\n307200\n');
    // a second sandbox sharing all but one file, saved under another name
    await b.execute('echo other > 8');
    const eb = await b.exportState({ since: e2 });
    assert.equal(eb.manifest.session, e2.manifest.session);
    await saveState(store, 'b', eb);
    // e1's file 7 and listings are now unreferenced
    const removed = await collectGarbage(store);
    assert.equal(removed, 3); // old 7, old src listing, old /workspace listing
    const c = await Sandbox.importState(await loadManifest(store, 'b'), pieceReader(store));
    assert.equal(await c.rootHash(), await b.rootHash());
    await store.delete('m/b');
    // b's 8, src and /workspace: its session is a's piece
    assert.equal((await loadManifest(store, 'a')).session, e2.manifest.session);
    assert.equal(await collectGarbage(store), 3);
    const d = await Sandbox.importState(await loadManifest(store, 'a'), pieceReader(store));
    assert.equal(await d.rootHash(), await a.rootHash());
    for (const s of [a, b, c, d]) await s.close();
  });
}

test('scale-2.2 a Durable Object save is one transaction: a failing write leaves nothing', async () => {
  const storage = fakeStorage();
  const store = new DurableObjectStore(storage);
  const a = await open();
  await a.execute('echo x > f');
  const e = await a.exportState();
  let n = 0;
  const put = storage.put;
  storage.put = async (obj) => {
    if (++n === 2) throw new Error('storage failed');
    return put(obj);
  };
  // more entries than one storage.put takes
  for (let i = 0; i < 200; i++) e.pieces.set(i.toString(16).padStart(64, '0'), new Uint8Array([i]));
  await assert.rejects(saveState(store, 'a', e), /storage failed/);
  assert.equal(storage.m.size, 0);
  await a.close();
});

test('scale-2.3 stores refuse values that are not bytes', async () => {
  for (const make of Object.values(stores)) {
    await assert.rejects(make().put('p/x', 'text'), (err) => err.code === 'invalid_argument');
  }
});

test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('scale-2.4 the README example runs and prints what its comments say', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const block = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1])
    .find((src) => src.includes('saveState(store'));
  assert.ok(block);
  const entry = new URL('../../build/npm/node.js', import.meta.url).href;
  const dir = mkdtempSync(join(tmpdir(), 'msb-readme-'));
  dirs.push(dir);
  const file = join(dir, 'example.mjs');
  // the one TypeScript-only token is the non-null assertion
  writeFileSync(file, block.replace("from 'memsandbox'", `from '${entry}'`).replace(")!,", "),"));
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const said = [...block.matchAll(/console\.log\(.*\); \/\/ (\S+)/g)].map((m) => m[1].replace(/:$/, '').replace(/^"|"$/g, ''));
  assert.equal(r.stdout, `${said[0]}\n${JSON.parse(`"${said[1]}"`)}\n${said[2]}\n`);
});
