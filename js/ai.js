// ai.js - the four tools for the Vercel AI SDK (`ai`, v5 and later),
// without depending on it.
//
// The SDK takes tools as an object map whose keys are the names the model
// sees: { execute: tool({ description, inputSchema, execute }), ... }.
// inputSchema must be an AI SDK schema: pass { tool, jsonSchema } from
// 'ai' and they are used; otherwise the same shape jsonSchema() returns is
// produced here (the schema marker, the JSON Schema, and a validate that
// accepts everything, because the handlers check arguments themselves and
// answer with an ok:false envelope the model can read rather than an
// exception). execute resolves to the envelope object, which the SDK
// sends to the model as JSON.
//
// Types: ai.d.ts (the directive below points Deno at it).
// @ts-self-types="./ai.d.ts"
import { compactEnvelope, createTools } from './tools.js';

const SCHEMA_MARK = Symbol.for('vercel.ai.schema');

function plainSchema(schema) {
  return {
    [SCHEMA_MARK]: true,
    _type: undefined,
    jsonSchema: schema,
    validate: (value) => ({ success: true, value }),
  };
}

/**
 * { execute, read_file, write_file, apply_patch } for generateText /
 * streamText / agents. Options: tool and jsonSchema (from 'ai', both
 * optional), and the createTools options.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {import('./ai.js').AiToolOptions} [options]
 * @returns {ReturnType<typeof import('./ai.js').aiTools>}
 */
export function aiTools(sandbox, options = {}) {
  const { tool, jsonSchema, ...rest } = options ?? {};
  if (tool !== undefined && typeof tool !== 'function') throw new TypeError("tool must be tool() from 'ai'");
  if (jsonSchema !== undefined && typeof jsonSchema !== 'function') {
    throw new TypeError("jsonSchema must be jsonSchema() from 'ai'");
  }
  const out = /** @type {Record<import('./tools.js').ToolName | import('./tools.js').ExtraToolName, any>} */ ({});
  for (const t of createTools(sandbox, rest)) {
    const def = {
      description: t.description,
      inputSchema: jsonSchema ? jsonSchema(t.parameters) : plainSchema(t.parameters),
      execute: (input, opts) => {
        const signal = opts?.abortSignal;
        if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
        return t.execute(input, { signal });
      },
      // The model gets the envelope without ids and timestamps; the
      // application's result keeps them. ai 7 passes { output, ... }.
      toModelOutput: (arg) => ({ type: 'json',
        value: compactEnvelope(arg && 'toolCallId' in arg ? arg.output : arg) }),
    };
    out[t.name] = tool ? tool(def) : def;
  }
  return out;
}

export { aiSandboxSession, memsandboxProvider } from './ai-session.js';
