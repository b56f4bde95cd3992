// openai.js - the four tools for the OpenAI Agents SDK for JavaScript
// (@openai/agents), without depending on it.
//
// The SDK's tool() helper takes { name, description, parameters, strict,
// execute }; parameters may be raw JSON Schema. openaiToolDefinitions()
// produces exactly those option objects, and openaiTools() passes each
// through the tool() function the caller hands in (import { tool } from
// '@openai/agents'), so this package stays dependency-free. execute
// returns the reference product's compact JSON envelope as a string, which
// the SDK gives the model verbatim.
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
 */
export function openaiTools(sandbox, options = {}) {
  const { tool, ...rest } = options ?? {};
  if (tool !== undefined && typeof tool !== 'function') {
    throw new TypeError("tool must be the tool() function from '@openai/agents'");
  }
  const defs = openaiToolDefinitions(sandbox, rest);
  return tool ? defs.map((d) => tool(d)) : defs;
}
