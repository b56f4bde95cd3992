// bombs.test.mjs - compressed bombs through the package: restore, tar and
// gunzip stop at the bound they break, in little memory. Each sandbox gets
// a 48 MiB memory cap, far below what the bombs expand to, so a bomb that
// expanded before being judged would fail with out of memory instead of its
// bound's message. No test here is timed: a loaded machine must not fail
// it. Runs against build/npm like the other
// suites (MSB_WASM picks the module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { Sandbox } from '../../build/npm/node.js';

const MIB = 1 << 20;
const CAP = { max_memory_bytes: 48 * MIB };

// A ustar header block for name (type '0' file unless given), announcing
// size bytes of data.
function header(name, size, type = '0') {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write('0001750\0', 108);
  h.write('0001750\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('15000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write('ustar\x0000', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

// head, then n zero bytes, gzipped: a few dozen KiB for 64 MiB of zeros.
const bomb = (head, n) => gzipSync(Buffer.concat([head, Buffer.alloc(n)]),
  { level: 9 });

const BOMBS = {
  zeros: bomb(Buffer.alloc(0), 64 * MIB),
  member: bomb(header('zeros', 4 * 1024 * MIB), 64 * MIB),
  tail: bomb(Buffer.concat([header('a', 0), Buffer.alloc(1024)]), 64 * MIB),
  pax: bomb(header('PaxHeaders/p', 1024 * MIB, 'x'), 64 * MIB),
};

test('bomb-1.1 restore refuses each bomb at its bound, under a 48 MiB cap', async () => {
  const want = {
    zeros: /archive rejected: gzip: compression ratio exceeds the limit/,
    member: /restore failed: member 'zeros': File too large/,
    tail: /archive rejected: gzip: compression ratio exceeds the limit/,
    pax: /archive rejected: pax extended header too large/,
  };
  for (const [id, bytes] of Object.entries(BOMBS)) {
    const sb = await Sandbox.create({ limits: CAP, files: { 'keep.txt': 'k\n' } });
    const before = await sb.hash('/workspace');
    const err = await sb.restore(bytes).then(() => null, (e) => e);
    assert.ok(err, id);
    assert.match(err.message, want[id], id);
    assert.equal(await sb.hash('/workspace'), before, id);
    await sb.close();
  }
});

test('bomb-1.2 tar -x and -t stop at the header or the end marker', async () => {
  const sb = await Sandbox.create({ limits: CAP });
  for (const [id, bytes] of Object.entries(BOMBS)) {
    await sb.writeFile(`/tmp/${id}.tgz`, bytes);
    for (const mode of ['x', 't']) {
      const r = await sb.execute(`mkdir -p /tmp/o; tar -${mode}zf /tmp/${id}.tgz -C /tmp/o`);
      if (id === 'member') {
        assert.equal(r.exitCode, 2);
        assert.match(r.stderr, /gzip: stdin: expanded size exceeds the limit\ntar: Child returned status 1/);
      } else if (id === 'pax') {
        assert.equal(r.exitCode, 2);
        assert.match(r.stderr, /tar: pax extended header too large/);
      } else {
        // GNU tar stops reading at the end-of-archive block
        assert.equal(r.exitCode, 0, `${id}: ${r.stderr}`);
        assert.equal(r.stderr, '');
      }
    }
  }
  await sb.close();
});

test('bomb-1.3 gunzip stops at the file size bound, zcat at the output bound', async () => {
  // the file bound is 4 MiB here; zcat's is the output bound (64 MiB), so
  // its sandbox keeps the profile's memory
  let sb = await Sandbox.create({ limits: { ...CAP, max_file_bytes: 4 * MIB } });
  await sb.writeFile('/tmp/z.gz', BOMBS.zeros);
  let r = await sb.execute('cd /tmp && gunzip z.gz');
  assert.equal(r.exitCode, 1);
  assert.equal(r.stderr, '\ngzip: z.gz: expanded size exceeds the limit\n');
  await sb.close();
  sb = await Sandbox.create();
  await sb.writeFile('/tmp/z.gz', bomb(Buffer.alloc(0), 100 * MIB));
  r = await sb.execute('zcat /tmp/z.gz > /dev/null');
  assert.equal(r.exitCode, 1);
  assert.equal(r.stderr, '\ngzip: /tmp/z.gz: expanded size exceeds the limit\n');
  await sb.close();
});
