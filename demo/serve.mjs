// serve.mjs - a static file server on 127.0.0.1 for the built playground:
// node serve.mjs [DIR] [PORT] (defaults: build/demo, 8080; port 0 picks a
// free one). Loopback only; paths outside DIR are refused. Sends wasm as
// application/wasm so the page can compile it while it downloads.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('../build/demo', import.meta.url)));
const port = process.argv[3] === undefined ? 8080 : Number(process.argv[3]);
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png' };

const server = createServer(async (req, res) => {
  let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (!file.startsWith(root + sep)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': 'no-cache' });
    res.end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
});
server.listen(port, '127.0.0.1', () => {
  console.log(`playground: http://127.0.0.1:${server.address().port}/`);
});
