// cold.mjs - makes the module's cold data segment passive (see src/cold.h).
//
// Usage: node wasm/cold.mjs IN.wasm OUT.wasm
// wasm-ld gathers the MSB_COLD objects into one active data segment, which
// every instance would copy into its memory at creation. This rewrites the
// data section so that segment is passive and first (index 0, the index
// src/cold.c's memory.init names; no instruction names the active ones),
// and adds the DataCount section memory.init needs. The segment is the one
// holding cold.c's mark; anything else (no mark, two marks, a module that
// already has passive segments or a DataCount) fails the build.
import { readFileSync, writeFileSync } from 'node:fs';

const MARK = new TextEncoder().encode('\0msb_cold segment\0');
const SEC_CODE = 10, SEC_DATA = 11, SEC_DATACOUNT = 12;

function leb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function reader(bytes, pos) {
  return {
    get pos() { return pos; },
    u8: () => bytes[pos++],
    leb() {
      let r = 0, s = 0, b;
      do {
        b = bytes[pos++];
        r += (b & 0x7f) * 2 ** s;
        s += 7;
      } while (b & 0x80);
      return r;
    },
    skip(n) { pos += n; },
  };
}

function sections(bytes) {
  const out = [];
  const r = reader(bytes, 8);
  while (r.pos < bytes.length) {
    const id = r.u8();
    const size = r.leb();
    out.push({ id, body: bytes.subarray(r.pos, r.pos + size) });
    r.skip(size);
  }
  return out;
}

function includes(hay, needle) {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

// Active segments of memory 0 with an i32.const offset, as wasm-ld writes.
function segments(body) {
  const r = reader(body, 0);
  const segs = [];
  for (let n = r.leb(); n > 0; n--) {
    const start = r.pos;
    if (r.u8() !== 0) throw new Error('cold.mjs: expected only active segments');
    if (r.u8() !== 0x41) throw new Error('cold.mjs: segment offset is not i32.const');
    r.leb();
    if (r.u8() !== 0x0b) throw new Error('cold.mjs: segment offset is not one constant');
    const len = r.leb();
    const data = body.subarray(r.pos, r.pos + len);
    r.skip(len);
    segs.push({ raw: body.subarray(start, r.pos), data });
  }
  return segs;
}

function section(id, content) {
  return Uint8Array.from([id, ...leb(content.length), ...content]);
}

function main([inPath, outPath]) {
  const bytes = readFileSync(inPath);
  const secs = sections(bytes);
  if (secs.some((s) => s.id === SEC_DATACOUNT)) throw new Error('cold.mjs: DataCount present');
  const data = secs.find((s) => s.id === SEC_DATA);
  if (!data) throw new Error('cold.mjs: no data section');
  const segs = segments(data.body);
  const cold = segs.filter((s) => includes(s.data, MARK));
  if (cold.length !== 1) throw new Error(`cold.mjs: ${cold.length} segments hold the mark`);
  const passive = [1, ...leb(cold[0].data.length), ...cold[0].data];
  const rest = segs.filter((s) => s !== cold[0]).flatMap((s) => [...s.raw]);
  const newData = section(SEC_DATA, [...leb(segs.length), ...passive, ...rest]);
  const parts = [bytes.subarray(0, 8)];
  for (const s of secs) {
    if (s.id === SEC_CODE) parts.push(section(SEC_DATACOUNT, leb(segs.length)));
    parts.push(s.id === SEC_DATA ? newData : section(s.id, s.body));
  }
  writeFileSync(outPath, Buffer.concat(parts));
  console.log(`cold.mjs: ${cold[0].data.length} bytes of cold data made passive`);
}

main(process.argv.slice(2));
