// anthropic.js - handlers for Anthropic's client tools over a Sandbox,
// without depending on @anthropic-ai/sdk: the text editor
// (text_editor_20250728, named str_replace_based_edit_tool), bash
// (bash_20250124) and memory (memory_20250818, on /memories).
//
// Each tool is the definition the Messages API takes plus run(input) and
// parse(input), the shape of the SDK's BetaRunnableTool, so the tools go
// straight into client.beta.messages.toolRunner({ tools }); run resolves to
// the text the model reads and throws an Error whose message the model
// reads (the runner sends it as an is_error result). handle(toolUse) does
// the same for a hand-written loop and returns the tool_result block.
// Texts follow Anthropic's reference implementations, which models are
// trained on: `cat -n` style numbering (six columns and a tab), the same
// error sentences for missing paths, ambiguous or absent old_str and bad
// ranges.
//
// Types: anthropic.d.ts (the directive below points Deno at it).
// @ts-self-types="./anthropic.d.ts"
import { normalisePath } from './core.js';
import { isNotFound } from './walk.js';
import { shellQuote } from './encoding.js';

const CLIPPED = '<response clipped><NOTE>To save on context only part of this file has been ' +
  'shown to you. You should retry this tool after you have searched inside the file with ' +
  '`grep -n` in order to find the line numbers of what you are looking for.</NOTE>';
const SNIPPET_LINES = 4;

class ToolError extends Error {}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  throw new ToolError(message);
}

/** Lines of text as `cat -n` numbers them, from line start on. */
function numbered(text, start = 1) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((l, i) => `${String(i + start).padStart(6)}\t${l}`).join('\n') + '\n';
}

function formatSize(bytes) {
  if (bytes === 0) return '0B';
  const i = Math.min(3, Math.floor(Math.log(bytes) / Math.log(1024)));
  const size = bytes / 1024 ** i;
  return (size % 1 === 0 ? String(size) : size.toFixed(1)) + 'BKMG'[i];
}

/** @returns {string} */
function str(input, key) {
  const v = input?.[key];
  if (v === undefined || v === null) fail(`Parameter \`${key}\` is required`);
  return typeof v === 'string' ? v : fail(`Parameter \`${key}\` must be a string`);
}

/** Line numbers (1-based) where each occurrence of needle starts. */
function occurrences(text, needle) {
  const lines = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    lines.push(text.slice(0, at).split('\n').length);
  }
  return lines;
}

/**
 * The editing commands shared by the text editor and the memory tool.
 * within(path) resolves and checks a path (throws for one outside).
 */
function editor(sandbox, within, texts, maxCharacters) {
  const stat = async (path) => {
    try {
      return await sandbox.stat(path, { followSymlinks: true });
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  };
  const file = async (shown) => {
    const path = within(shown);
    const st = await stat(path);
    if (!st) fail(`The path ${shown} does not exist. Please provide a valid path.`);
    if (st.kind !== 'file') fail(texts.notFile(shown));
    return { path, text: await sandbox.readFile(path) };
  };
  const clip = (out) => maxCharacters && out.length > maxCharacters
    ? out.slice(0, maxCharacters) + CLIPPED : out;
  const snippet = (text, line, count) => {
    const lines = text.split('\n');
    const from = Math.max(0, line - 1 - SNIPPET_LINES);
    const to = Math.min(lines.length, line - 1 + count + SNIPPET_LINES);
    return numbered(lines.slice(from, to).join('\n'), from + 1);
  };
  const listing = async (shown, path) => {
    const rows = [];
    const visit = async (dir, depth) => {
      for (const name of await sandbox.list(dir)) {
        if (name.startsWith('.') || name === 'node_modules') continue;
        const full = normalisePath(dir, name);
        const st = await stat(full);
        if (!st || (st.kind !== 'directory' && st.kind !== 'file')) continue;
        const rel = full.slice(path.length + (path === '/' ? 0 : 1));
        rows.push(`${formatSize(st.size)}\t${shown.replace(/\/$/, '')}/${rel}${st.kind === 'directory' ? '/' : ''}`);
        if (st.kind === 'directory' && depth < 2) await visit(full, depth + 1);
      }
    };
    await visit(path, 1);
    const st = await stat(path);
    return `Here're the files and directories up to 2 levels deep in ${shown}, excluding ` +
      `hidden items and node_modules:\n${formatSize(st.size)}\t${shown}\n${rows.join('\n')}`;
  };
  return {
    async view(input) {
      const shown = str(input, 'path');
      const path = within(shown);
      const st = await stat(path);
      if (!st) fail(`The path ${shown} does not exist. Please provide a valid path.`);
      if (st.kind === 'directory') {
        if (input.view_range != null) fail('The `view_range` parameter is not allowed when `path` points to a directory.');
        return clip(await listing(shown, path));
      }
      const text = await sandbox.readFile(path);
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      let [start, end] = [1, lines.length];
      const range = input.view_range;
      if (range != null) {
        if (!Array.isArray(range) || range.length !== 2 || !range.every(Number.isInteger)) {
          fail('Invalid `view_range`. It should be a list of two integers.');
        }
        [start, end] = range;
        const shownRange = `[${start}, ${end}]`;
        if (start < 1 || start > lines.length) {
          fail(`Invalid \`view_range\`: ${shownRange}. Its first element \`${start}\` should be ` +
            `within the range of lines of the file: [1, ${lines.length}]`);
        }
        if (end === -1) end = lines.length;
        else if (end > lines.length) {
          fail(`Invalid \`view_range\`: ${shownRange}. Its second element \`${end}\` should be ` +
            `smaller than the number of lines in the file: \`${lines.length}\``);
        } else if (end < start) {
          fail(`Invalid \`view_range\`: ${shownRange}. Its second element \`${end}\` should be ` +
            `larger or equal than its first \`${start}\``);
        }
      }
      return clip(texts.view(shown) + numbered(lines.slice(start - 1, end).join('\n'), start));
    },
    async create(input) {
      const shown = str(input, 'path');
      const content = str(input, 'file_text');
      const path = within(shown);
      const st = await stat(path);
      if (st && !texts.overwrite) fail(texts.exists(shown));
      if (st?.kind === 'directory') fail(texts.notFile(shown));
      await sandbox.writeFile(path, content, { parents: true });
      return `File created successfully at: ${shown}`;
    },
    async str_replace(input) {
      const shown = str(input, 'path');
      const oldStr = str(input, 'old_str');
      const newStr = input?.new_str == null ? '' : str(input, 'new_str');
      const { path, text } = await file(shown);
      const hits = oldStr === '' ? [] : occurrences(text, oldStr);
      if (hits.length === 0) {
        fail(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${shown}.`);
      }
      if (hits.length > 1) {
        fail(`No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines ` +
          `${texts.lines(hits)}. Please ensure it is unique`);
      }
      const at = text.indexOf(oldStr);
      const next = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
      await sandbox.writeFile(path, next);
      return texts.edited(shown, snippet(next, hits[0], newStr.split('\n').length));
    },
    async insert(input) {
      const shown = str(input, 'path');
      const line = input?.insert_line;
      const added = str(input, input?.insert_text != null ? 'insert_text' : 'new_str');
      const { path, text } = await file(shown);
      const lines = text.split('\n');
      const trailing = lines.at(-1) === '';
      if (trailing) lines.pop();
      if (!Number.isInteger(line) || line < 0 || line > lines.length) {
        fail(`Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines ` +
          `of the file: [0, ${lines.length}]`);
      }
      const block = added.replace(/\n$/, '').split('\n');
      lines.splice(line, 0, ...block);
      const next = lines.join('\n') + (trailing ? '\n' : '');
      await sandbox.writeFile(path, next);
      return texts.inserted(shown, snippet(next, line + 1, block.length));
    },
  };
}

const EDITOR_TEXTS = {
  overwrite: false,
  view: (p) => `Here's the result of running \`cat -n\` on ${p}:\n`,
  exists: (p) => `File already exists at: ${p}. Cannot overwrite files using command \`create\`.`,
  notFile: (p) => `The path ${p} is a directory and only the \`view\` command can be used on directories`,
  lines: (hits) => `[${hits.join(', ')}]`,
  edited: (p, snip) => `The file ${p} has been edited. Here's the result of running \`cat -n\` on a ` +
    `snippet of ${p}:\n${snip}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
  inserted: (p, snip) => `The file ${p} has been edited. Here's the result of running \`cat -n\` on a ` +
    `snippet of the edited file:\n${snip}Review the changes and make sure they are as expected ` +
    '(correct indentation, no duplicate lines, etc). Edit the file again if necessary.',
};

const MEMORY_TEXTS = {
  ...EDITOR_TEXTS,
  view: (p) => `Here's the content of ${p} with line numbers:\n`,
  exists: (p) => `File ${p} already exists`,
  notFile: (p) => `The path ${p} is not a file.`,
  lines: (hits) => hits.join(', '),
  edited: (_p, snip) => `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snip}`,
  inserted: (p) => `The file ${p} has been edited.`,
};

/** A runnable tool: the API definition plus run and parse. */
function runnable(definition, commands, name) {
  return {
    ...definition,
    parse: (input) => input,
    async run(input) {
      const command = input?.command;
      const fn = typeof command === 'string' && Object.hasOwn(commands, command) ? commands[command] : null;
      if (!fn) fail(`Unrecognized command ${command}. The allowed commands for the ${name} tool are: ${Object.keys(commands).join(', ')}`);
      return fn(input);
    },
  };
}

/** The bash tool's commands, with restart putting the shell back as it was. */
function bashTool(sandbox) {
  let baseline = null;
  const state = async () => {
    const r = await sandbox.execute('set; declare -F; echo "$PWD"');
    return r.stdout;
  };
  const names = (listing) => new Set(listing.split('\n').map((l) => /^([A-Za-z_]\w*)=/.exec(l)?.[1]).filter(Boolean));
  return {
    type: 'bash_20250124',
    name: 'bash',
    parse: (input) => input,
    async run(input) {
      baseline ??= await state();
      if (input?.restart === true) {
        const now = await state();
        const keep = names(baseline);
        const drop = [...names(now)].filter((n) => !keep.has(n));
        const funcs = [...now.matchAll(/^declare -f (\S+)$/gm)].map((m) => m[1]);
        const assigns = baseline.split('\n').filter((l) => /^[A-Za-z_]\w*=/.test(l) && !/^(BASH\w*|EUID|UID|PPID|SHELLOPTS)=/.test(l));
        const cwd = baseline.trimEnd().split('\n').at(-1);
        await sandbox.execute([`unset -f ${funcs.join(' ')}`, 'unalias -a', 'set +e +u +x +o pipefail',
          drop.length ? `unset ${drop.join(' ')}` : ':', ...assigns,
          `cd -- ${shellQuote(cwd)}`].join('\n'));
        return 'tool has been restarted.';
      }
      const command = str(input, 'command');
      const r = await sandbox.execute(command);
      const out = r.stdout + (r.stderr ? (r.stdout && !r.stdout.endsWith('\n') ? '\n' : '') + r.stderr : '');
      return r.exitCode === 0 ? out : `${out}${out && !out.endsWith('\n') ? '\n' : ''}Exit code: ${r.exitCode}`;
    },
  };
}

/**
 * The three tools over one sandbox: { textEditor, bash, memory,
 * memoryHandlers, all, handle(toolUse) }.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {{ maxCharacters?: number, memoryRoot?: string }} [options]
 */
export function anthropicTools(sandbox, options = {}) {
  const memoryRoot = normalisePath('/', options.memoryRoot ?? '/memories');
  const absolute = (p) => {
    if (!p.startsWith('/')) {
      fail(`The path ${p} is not an absolute path, it should start with \`/\`. Maybe you meant ${normalisePath('/workspace', p)}?`);
    }
    return normalisePath('/', p);
  };
  const inMemory = (p) => {
    if (p !== memoryRoot && !p.startsWith(`${memoryRoot}/`)) fail(`Path must start with ${memoryRoot}, got: ${p}`);
    const path = normalisePath('/', p);
    if (path !== memoryRoot && !path.startsWith(`${memoryRoot}/`)) fail(`Path ${p} would escape ${memoryRoot} directory`);
    return path;
  };
  const edit = editor(sandbox, absolute, EDITOR_TEXTS, options.maxCharacters);
  const textEditor = runnable({
    type: 'text_editor_20250728', name: 'str_replace_based_edit_tool',
    ...(options.maxCharacters ? { max_characters: options.maxCharacters } : {}),
  }, edit, 'str_replace_based_edit_tool');
  const mem = editor(sandbox, inMemory, MEMORY_TEXTS);
  const memoryHandlers = {
    view: async (c) => {
      await sandbox.mkdir(memoryRoot, { parents: true, existOk: true });
      return mem.view(c);
    },
    create: mem.create,
    str_replace: mem.str_replace,
    insert: mem.insert,
    async delete(c) {
      const path = inMemory(str(c, 'path'));
      if (path === memoryRoot) fail(`Cannot delete the ${memoryRoot} directory itself`);
      if (!await sandbox.exists(path)) fail(`The path ${c.path} does not exist`);
      await sandbox.remove(path, { recursive: true });
      return `Successfully deleted ${c.path}`;
    },
    async rename(c) {
      const from = inMemory(str(c, 'old_path'));
      const to = inMemory(str(c, 'new_path'));
      if (from === memoryRoot) fail(`Cannot rename the ${memoryRoot} directory itself`);
      if (await sandbox.exists(to)) fail(`The destination ${c.new_path} already exists`);
      if (!await sandbox.exists(from)) fail(`The path ${c.old_path} does not exist`);
      await sandbox.move(from, to, { parents: true });
      return `Successfully renamed ${c.old_path} to ${c.new_path}`;
    },
  };
  const memory = runnable({ type: 'memory_20250818', name: 'memory' }, memoryHandlers, 'memory');
  const bash = bashTool(sandbox);
  const all = [textEditor, bash, memory];
  return {
    textEditor, bash, memory, memoryHandlers, all,
    /** A tool_use block's tool_result block (errors as is_error results). */
    async handle(toolUse) {
      const tool = all.find((t) => t.name === toolUse?.name);
      try {
        if (!tool) fail(`Unknown tool: ${toolUse?.name}`);
        return { type: 'tool_result', tool_use_id: toolUse.id, content: await tool.run(toolUse.input) };
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        return { type: 'tool_result', tool_use_id: toolUse.id, content: e.message, is_error: true };
      }
    },
  };
}
