// tools-extra.js - the optional tools createTools adds with { include }:
// edit_file, list_directory, glob and grep, the file tools models know from
// coding agents (unique-match string replacement; paginated listings and
// searches whose truncation says how to continue).
//
// Each entry is { schema, description, run(args, ctx) } in the form of the
// four reference tools (strict JSON Schema, optional fields nullable); ctx
// carries what tools.js shares with them: the sandbox, resolve (a model's
// path by the reference's rules), hashOf, fail (a domain error) and
// refuseSecrets. grep runs the sandbox's own grep in a fresh shell state,
// so its matching is GNU grep's and the session is untouched.
import { normalisePath } from './core.js';
import { globRegex, walk } from './walk.js';
import { shellQuote as quote } from './encoding.js';

const PAGE = { type: ['integer', 'null'], minimum: 1, maximum: 1000,
  description: 'At most this many entries per call (default 200).' };
const OFFSET = { type: ['integer', 'null'], minimum: 0,
  description: 'Skip this many entries: the next_offset of the previous call (default 0).' };
const DIR = { type: ['string', 'null'], minLength: 1,
  description: 'Directory (default: the current directory).' };

function object(properties) {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** One page of items, and how to get the next. */
function page(items, a) {
  const offset = a.offset ?? 0;
  const limit = a.limit ?? 200;
  const shown = items.slice(offset, offset + limit);
  const next = offset + shown.length < items.length ? offset + shown.length : null;
  return { shown, total: items.length, next_offset: next, truncated: next !== null,
    ...(next === null ? {} : { note: `${items.length - next} more; call again with offset ${next}` }) };
}

export const EXTRA_TOOLS = {
  edit_file: {
    description: 'Replace text in a UTF-8 file: old_string must occur exactly once (or set ' +
      'replace_all to replace every occurrence); include enough surrounding lines to make it ' +
      'unique. Returns how many replacements were made and the SHA-256 hashes before and after.',
    schema: object({
      path: { type: 'string', minLength: 1, description: 'File path; relative paths resolve against the current directory.' },
      old_string: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
      new_string: { type: 'string', description: 'The replacement text.' },
      replace_all: { type: ['boolean', 'null'], description: 'Replace every occurrence (default false).' },
    }),
    async run(a, ctx) {
      const path = ctx.resolve(a.path);
      ctx.refuseSecrets('edit_file', a.new_string);
      const text = await ctx.sandbox.readFile(path);
      const parts = text.split(a.old_string);
      const count = parts.length - 1;
      if (count === 0) ctx.fail('edit_no_match', 'old_string does not occur in the file');
      if (count > 1 && a.replace_all !== true) {
        ctx.fail('edit_ambiguous', `old_string occurs ${count} times; add surrounding lines to ` +
          'make it unique, or set replace_all');
      }
      const previous = await ctx.hashOf(path);
      await ctx.sandbox.writeFile(path, parts.join(a.new_string), { expectHash: previous });
      return { path, replacements: count, previous_hash: previous, current_hash: await ctx.hashOf(path) };
    },
  },

  list_directory: {
    description: 'List a directory: name, type (file, directory, symlink) and size of each entry, ' +
      'sorted by name, a page at a time (offset, limit; next_offset continues).',
    schema: object({ path: DIR, offset: OFFSET, limit: PAGE }),
    async run(a, ctx) {
      const path = ctx.resolve(a.path ?? '.');
      const names = await ctx.sandbox.list(path);
      const p = page(names, a);
      const entries = [];
      for (const name of p.shown) {
        const st = await ctx.sandbox.stat(normalisePath(path, name), { followSymlinks: false });
        entries.push({ name, type: st.kind, size: st.size });
      }
      const { shown: _, ...rest } = p;
      return { path, entries, ...rest };
    },
  },

  glob: {
    description: 'Find paths under a directory whose path relative to it matches a glob ' +
      '(* and ? within a name, ** across directories, [abc], {a,b}), sorted, a page at a time.',
    schema: object({
      pattern: { type: 'string', minLength: 1, description: 'For example **/*.py or src/*.{js,ts}.' },
      path: DIR, offset: OFFSET, limit: PAGE,
    }),
    async run(a, ctx) {
      const root = ctx.resolve(a.path ?? '.');
      const re = globRegex(a.pattern);
      const { entries } = await walk(ctx.sandbox, root);
      const cut = root === '/' ? 1 : root.length + 1;
      const hits = entries.map((e) => e.path).filter((p) => re.test(p.slice(cut))).sort();
      const { shown, ...rest } = page(hits, a);
      return { path: root, matches: shown, ...rest };
    },
  },

  grep: {
    description: 'Search file contents under a path with GNU grep (extended regular expressions, ' +
      'or fixed strings): each match as path, line number and line text, a page at a time.',
    schema: object({
      pattern: { type: 'string', minLength: 1, description: 'An extended regular expression (or a literal with fixed_strings).' },
      path: { type: ['string', 'null'], minLength: 1, description: 'File or directory (default: the current directory).' },
      glob: { type: ['string', 'null'], minLength: 1, description: 'Only files whose name matches, e.g. *.py.' },
      fixed_strings: { type: ['boolean', 'null'], description: 'Match the pattern literally (default false).' },
      ignore_case: { type: ['boolean', 'null'], description: 'Ignore case (default false).' },
      offset: OFFSET, limit: PAGE,
    }),
    async run(a, ctx) {
      const path = ctx.resolve(a.path ?? '.');
      const flags = `-rnZ --binary-files=without-match ${a.fixed_strings ? '-F' : '-E'}${a.ignore_case ? ' -i' : ''}`;
      const include = a.glob ? ` --include=${quote(a.glob)}` : '';
      const r = await ctx.sandbox.execute(`grep ${flags}${include} -e ${quote(a.pattern)} -- ${quote(path)}`,
        { fresh: true });
      if (r.exitCode > 1) ctx.fail('invalid_argument', r.stderr.trim() || `grep failed with status ${r.exitCode}`);
      const matches = r.stdout.split('\n').filter(Boolean).map((l) => {
        const [file, rest] = [l.slice(0, l.indexOf('\0')), l.slice(l.indexOf('\0') + 1)];
        const colon = rest.indexOf(':');
        return { path: file, line: Number(rest.slice(0, colon)), text: rest.slice(colon + 1) };
      });
      const { shown, ...rest } = page(matches, a);
      return { path, matches: shown, ...rest, output_truncated: r.stdoutTruncated };
    },
  },
};
