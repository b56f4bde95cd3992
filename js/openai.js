// openai.js - the four tools for the OpenAI Agents SDK for JavaScript
// (@openai/agents), without depending on it.
//
// The SDK's tool() helper takes { name, description, parameters, strict,
// execute }; parameters may be raw JSON Schema. openaiToolDefinitions()
// produces exactly those option objects, and openaiTools() passes each
// through the tool() function the caller hands in (import { tool } from
// '@openai/agents'), so this package stays dependency-free. execute
// returns the reference product's compact JSON envelope as a string, which
// the SDK gives the model verbatim. openaiShell() and openaiEditor() serve
// the SDK's built-in shellTool and applyPatchTool from the same sandbox.
//
// Types: openai.d.ts (the directive below points Deno at it).
// @ts-self-types="./openai.d.ts"
import { createTools, toolResultText } from './tools.js';

// Keywords OpenAI's strict mode has not always accepted; the handlers
// still enforce them.
const STRIP = new Set(['minLength']);

function strictSchema(schema) {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!STRIP.has(k)) out[k] = strictSchema(v);
  }
  return out;
}

/**
 * The tool() option objects: { name, description, parameters, strict:
 * true, execute(input) -> JSON string }. Options as for createTools.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {import('./tools.js').ToolOptions} [options]
 * @returns {import('./openai.js').OpenAIToolDefinition[]}
 */
export function openaiToolDefinitions(sandbox, options = {}) {
  return createTools(sandbox, options).map((t) => ({
    name: t.name,
    description: t.description,
    parameters: strictSchema(t.parameters),
    strict: true,
    execute: async (input) => toolResultText(await t.execute(input)),
  }));
}

/**
 * The four tools as SDK FunctionTools: pass the SDK's helper,
 * openaiTools(sandbox, { tool }). Without it, the plain definitions.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {import('./tools.js').ToolOptions & {tool?: (def: import('./openai.js').OpenAIToolDefinition) => any}} [options]
 * @returns {any[]}
 */
export function openaiTools(sandbox, options = {}) {
  const { tool, ...rest } = options ?? {};
  if (tool !== undefined && typeof tool !== 'function') {
    throw new TypeError("tool must be the tool() function from '@openai/agents'");
  }
  const defs = openaiToolDefinitions(sandbox, rest);
  return tool ? defs.map((d) => tool(d)) : defs;
}

// ---- the SDK's built-in execution tools -------------------------------------
// shellTool({ shell }) and applyPatchTool({ editor }) let the host do the
// work of OpenAI's native shell and apply_patch tools; these objects do it
// in the sandbox.

function cutChars(s, max) {
  return max !== undefined && s.length > max ? s.slice(0, max) : s;
}

/**
 * A Shell for shellTool({ shell }): run({ commands, maxOutputLength })
 * runs each command in the sandbox's session, in order, and reports
 * { stdout, stderr, outcome: { type: 'exit', exitCode } } per command.
 * action.timeoutMs bounds each command's run (outcome { type: 'timeout' }),
 * as does the sandbox's step limit.
 * @param {import('./index.js').Sandbox} sandbox
 * @returns {ReturnType<typeof import('./openai.js').openaiShell>}
 */
export function openaiShell(sandbox) {
  return {
    async run(action) {
      const commands = action?.commands;
      if (!Array.isArray(commands) || !commands.every((c) => typeof c === 'string')) {
        throw new TypeError('action.commands must be an array of strings');
      }
      const max = Number.isSafeInteger(action.maxOutputLength) && action.maxOutputLength >= 0
        ? action.maxOutputLength : undefined;
      const timeoutMs = typeof action.timeoutMs === 'number' && action.timeoutMs > 0
        ? action.timeoutMs : undefined;
      const output = [];
      for (const command of commands) {
        const r = await sandbox.execute(command, timeoutMs === undefined ? {} : { timeoutMs });
        const timedOut = timeoutMs !== undefined && r.limit === 'timeout' && r.exitCode === 124;
        output.push({ stdout: cutChars(r.stdout, max), stderr: cutChars(r.stderr, max),
          outcome: timedOut ? { type: /** @type {const} */ ('timeout') }
            : { type: /** @type {const} */ ('exit'), exitCode: r.exitCode } });
      }
      return max === undefined ? { output } : { output, maxOutputLength: max };
    },
  };
}

function headerPath(p) {
  if (typeof p !== 'string' || p === '' || /[\r\n\0]/.test(p)) {
    throw new TypeError('operation path must be a one-line, non-empty string');
  }
  return p;
}

function body(diff) {
  if (typeof diff !== 'string') throw new TypeError('operation diff must be a string');
  return diff === '' || diff.endsWith('\n') ? diff : diff + '\n';
}

/**
 * An Editor for applyPatchTool({ editor }): each operation (create_file,
 * update_file with optional moveTo, delete_file; headerless V4A diffs) is
 * wrapped into a "*** Begin Patch" envelope and applied atomically.
 * Resolves to { status: 'completed' | 'failed', output }; paths are
 * relative to /workspace and, as in createTools, may not leave it.
 * @param {import('./index.js').Sandbox} sandbox
 * @returns {ReturnType<typeof import('./openai.js').openaiEditor>}
 */
export function openaiEditor(sandbox) {
  const apply = async (header, text, verb, path) => {
    try {
      await sandbox.applyPatch(`*** Begin Patch\n${header}${text}*** End Patch\n`,
        { workspaceOnly: true });
      return { status: 'completed', output: `${verb} ${path}` };
    } catch (e) {
      return { status: 'failed', output: e instanceof Error ? e.message : String(e) };
    }
  };
  const guard = async (fn) => {
    try {
      return await fn();
    } catch (e) {
      return { status: 'failed', output: e.message };
    }
  };
  return {
    createFile: (op) => guard(() => {
      const path = headerPath(op?.path);
      return apply(`*** Add File: ${path}\n`, body(op.diff), 'Created', path);
    }),
    updateFile: (op) => guard(() => {
      const path = headerPath(op?.path);
      const move = op.moveTo === undefined || op.moveTo === null ? ''
        : `*** Move to: ${headerPath(op.moveTo)}\n`;
      return apply(`*** Update File: ${path}\n${move}`, body(op.diff), 'Updated',
        move ? op.moveTo : path);
    }),
    deleteFile: (op) => guard(() => {
      const path = headerPath(op?.path);
      return apply(`*** Delete File: ${path}\n`, '', 'Deleted', path);
    }),
  };
}

export { MemSandboxClient, MemSandboxSession } from './openai-sandbox.js';
