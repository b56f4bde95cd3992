// A Worker serving sandboxes, one Durable Object each (memsandbox/cloudflare).
//
//   POST   /sandbox/NAME/create            {"limits": {...}} (optional)
//   POST   /sandbox/NAME/execute           {"script": "ls -la"}
//   GET    /sandbox/NAME/file?path=P       PUT (body = bytes), DELETE
//   GET    /sandbox/NAME/info              root hash, revision, cwd
//   POST   /sandbox/NAME/snapshot?name=S   the manifest, kept under S
//   POST   /sandbox/NAME/fork?to=OTHER     OTHER starts as a copy of NAME
//   DELETE /sandbox/NAME/
//
// Send an Idempotency-Key header with a mutating request to make a retry
// safe: the object applies each key once and answers a retry with the
// first result. Add authentication before deploying: any caller who can
// reach this Worker can run scripts in any sandbox.
import { SandboxObject } from 'memsandbox/cloudflare';

export { SandboxObject };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const m = /^\/sandbox\/([A-Za-z0-9_-]{1,64})(\/.*)?$/.exec(url.pathname);
    if (!m) return Response.json({ error: { code: 'route_not_found' } }, { status: 404 });
    const stub = env.SANDBOX.get(env.SANDBOX.idFromName(m[1]));
    const rest = m[2] ?? '/';
    if (request.method === 'POST' && rest === '/fork') {
      const to = url.searchParams.get('to') ?? '';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(to)) return Response.json({ error: { code: 'invalid_argument' } }, { status: 400 });
      const child = env.SANDBOX.get(env.SANDBOX.idFromName(to));
      // the child takes the manifest now and the pieces from its parent
      return Response.json(await child.forkFrom(await stub.snapshot(), stub));
    }
    const inner = new URL(rest, url);
    inner.search = url.search;
    return stub.fetch(new Request(inner, request));
  },
};
