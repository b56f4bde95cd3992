// agent.js - a tool loop over an OpenAI-compatible endpoint, in the page:
// Chat Completions or Responses, streamed, with the sandbox's own tool
// definitions. No SDK: each turn is one fetch whose server-sent events are
// read as they arrive; tool calls run in the sandbox worker and their
// results go back to the model until it answers without calling a tool.
// The AbortSignal stops the model call; the caller also cancels the
// running command.

/**
 * @typedef {{ name: string, description: string, parameters: Record<string, unknown> }} ToolDef
 * @typedef {{ id: string, name: string, arguments: string }} ToolCall
 * @typedef {{ type: 'text', delta: string }
 *   | { type: 'tool_call', call: ToolCall }
 *   | { type: 'tool_result', call: ToolCall, text: string, ok: boolean }
 *   | { type: 'turn', n: number }
 *   | { type: 'done', text: string }} AgentEvent
 * @typedef {{ baseUrl: string, model: string, apiKey: string,
 *   api: 'chat' | 'responses', task: string, system?: string, tools: ToolDef[],
 *   callTool: (call: ToolCall) => Promise<{ text: string, ok: boolean }>,
 *   onEvent: (e: AgentEvent) => void, signal: AbortSignal,
 *   maxTurns?: number, fetch?: typeof fetch }} AgentOptions
 */

const SYSTEM = 'You work in a bash-compatible sandbox whose files live in memory; ' +
  'your working directory is /workspace. Use the tools to inspect and change files ' +
  'and to run commands, then answer briefly.';

/**
 * Reads a server-sent event stream, calling onData with each event's
 * parsed JSON data (the [DONE] sentinel ends it).
 * @param {Response} res @param {(data: any) => void} onData
 */
export async function readEvents(res, onData) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let cut;
    while ((cut = buf.search(/\r?\n\r?\n/)) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (!data) continue;
      if (data === '[DONE]') return;
      onData(JSON.parse(data));
    }
  }
}

/** @param {AgentOptions} o @param {string} path @param {object} body */
async function post(o, path, body) {
  const headers = { 'content-type': 'application/json' };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  const res = await (o.fetch ?? fetch)(`${o.baseUrl.replace(/\/+$/, '')}${path}`, {
    method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }), signal: o.signal,
  });
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  }
  return res;
}

/** @param {AgentOptions} o @param {ToolCall} call */
async function runTool(o, call) {
  o.onEvent({ type: 'tool_call', call });
  const r = await o.callTool(call);
  o.onEvent({ type: 'tool_result', call, ...r });
  return r.text;
}

/**
 * One Chat Completions turn: streams the reply, assembling tool calls from
 * their indexed deltas.
 * @param {AgentOptions} o @param {any[]} messages
 */
async function chatTurn(o, messages) {
  const res = await post(o, '/chat/completions', {
    model: o.model, messages,
    tools: o.tools.map((t) => ({ type: 'function', function: { ...t, strict: true } })),
  });
  let text = '';
  /** @type {ToolCall[]} */
  const calls = [];
  await readEvents(res, (chunk) => {
    const delta = chunk.choices?.[0]?.delta ?? {};
    if (delta.content) {
      text += delta.content;
      o.onEvent({ type: 'text', delta: delta.content });
    }
    for (const tc of delta.tool_calls ?? []) {
      const c = calls[tc.index ?? 0] ??= { id: '', name: '', arguments: '' };
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.name += tc.function.name;
      if (tc.function?.arguments) c.arguments += tc.function.arguments;
    }
  });
  return { text, calls: calls.filter(Boolean) };
}

/** @param {AgentOptions} o */
async function chatLoop(o) {
  const messages = [{ role: 'system', content: o.system ?? SYSTEM }, { role: 'user', content: o.task }];
  for (let n = 1; n <= (o.maxTurns ?? 20); n++) {
    o.onEvent({ type: 'turn', n });
    const { text, calls } = await chatTurn(o, messages);
    if (!calls.length) return text;
    messages.push({ role: 'assistant', content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function',
        function: { name: c.name, arguments: c.arguments } })) });
    for (const c of calls) {
      o.signal.throwIfAborted();
      messages.push({ role: 'tool', tool_call_id: c.id, content: await runTool(o, c) });
    }
  }
  throw new Error('the agent used every turn without finishing');
}

/**
 * One Responses turn: streams the reply; function calls arrive as output
 * items whose arguments stream separately.
 * @param {AgentOptions} o @param {any[]} input
 */
async function responsesTurn(o, input) {
  const res = await post(o, '/responses', {
    model: o.model, input, instructions: o.system ?? SYSTEM, store: false,
    tools: o.tools.map((t) => ({ type: 'function', ...t, strict: true })),
  });
  let text = '';
  /** @type {any[]} */
  const items = [];
  await readEvents(res, (ev) => {
    if (ev.type === 'response.output_text.delta') {
      text += ev.delta;
      o.onEvent({ type: 'text', delta: ev.delta });
    } else if (ev.type === 'response.output_item.done') {
      items.push(ev.item);
    } else if (ev.type === 'response.failed' || ev.type === 'error') {
      throw new Error(ev.response?.error?.message ?? ev.message ?? 'the response failed');
    }
  });
  return { text, items };
}

/** @param {AgentOptions} o */
async function responsesLoop(o) {
  const input = /** @type {any[]} */ ([{ role: 'user', content: o.task }]);
  for (let n = 1; n <= (o.maxTurns ?? 20); n++) {
    o.onEvent({ type: 'turn', n });
    const { text, items } = await responsesTurn(o, input);
    const calls = items.filter((i) => i.type === 'function_call');
    if (!calls.length) return text;
    input.push(...items.filter((i) => i.type !== 'message' || i.role === 'assistant'));
    for (const c of calls) {
      o.signal.throwIfAborted();
      const out = await runTool(o, { id: c.call_id, name: c.name, arguments: c.arguments });
      input.push({ type: 'function_call_output', call_id: c.call_id, output: out });
    }
  }
  throw new Error('the agent used every turn without finishing');
}

/**
 * Runs the task to its end; resolves to the model's last text.
 * @param {AgentOptions} o
 */
export async function runAgent(o) {
  const text = o.api === 'responses' ? await responsesLoop(o) : await chatLoop(o);
  o.onEvent({ type: 'done', text });
  return text;
}
