// walk.js - tree walks and glob patterns over a Sandbox's files, shared by
// the adapters whose interfaces list, glob and grep from the host side
// (langchain.js) rather than through a command.
import { MemSandboxError, normalisePath } from './core.js';

/**
 * A glob as a RegExp over slash-separated relative paths: `*` and `?` stay
 * within one segment, `**` spans segments (`**∕` also matches nothing),
 * `[...]` and `[!...]` are character classes, `{a,b}` alternatives.
 * @param {string} pattern
 */
export function globRegex(pattern) {
  let re = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (body[0] === '!') body = '^' + body.slice(1);
      re += `[${body}]`;
      i = end;
    } else if (c === '{') {
      re += '(?:';
      depth++;
    } else if (c === '}' && depth > 0) {
      re += ')';
      depth--;
    } else if (c === ',' && depth > 0) re += '|';
    else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re + ')'.repeat(depth)}$`);
}

/**
 * Every path under root, depth first in name order, with its stat
 * (symbolic links are reported, not followed, so a cycle cannot loop).
 * Stops after max entries and reports whether it did.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {string} root
 * @param {number} [max]
 */
export async function walk(sandbox, root, max = Infinity) {
  const out = [];
  const visit = async (dir) => {
    for (const name of await sandbox.list(dir)) {
      if (out.length >= max) return true;
      const path = normalisePath(dir, name);
      const stat = await sandbox.stat(path, { followSymlinks: false });
      out.push({ path, stat });
      if (stat.kind === 'directory' && await visit(path)) return true;
    }
    return false;
  };
  const truncated = await visit(root);
  return { entries: out, truncated };
}

/** Whether e is the sandbox's not-found error. */
export function isNotFound(e) {
  return e instanceof MemSandboxError && e.category === 'not_found';
}
