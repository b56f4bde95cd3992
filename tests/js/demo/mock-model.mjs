// mock-model.mjs - a scripted OpenAI-compatible server on 127.0.0.1 for the
// playground's agent tests: /v1/chat/completions and /v1/responses, both
// streamed as server-sent events, with CORS so a page on another port may
// call it. The script depends on how many tool results the request already
// carries: first an execute call (arguments split over several chunks),
// then a write_file call, then a text answer. A task containing "stall"
// gets one text chunk and then a stream that never ends, and one
// containing "spin" a command that never ends, to test Stop.
import { createServer } from 'node:http';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-allow-methods': 'POST, OPTIONS',
};

/** The tool calls of the script, in order, for a task naming FILE. */
function script(file) {
  if (file === 'spin') {
    return [{ name: 'execute', arguments: JSON.stringify({ command: 'while true; do :; done',
      timeout_seconds: null, max_output_bytes: null }) }];
  }
  return [
    { name: 'execute', arguments: JSON.stringify({ command: `echo from the agent > ${file} && cat ${file}`,
      timeout_seconds: null, max_output_bytes: null }) },
    { name: 'write_file', arguments: JSON.stringify({ path: `${file}.note`, content: 'written by write_file\n',
      write_condition: 'any_current_state', expected_hash: null, create_parents: null }) },
  ];
}

/** Cuts a string into n nearly equal pieces (a streamed argument). */
function pieces(s, n = 3) {
  const size = Math.ceil(s.length / n);
  return Array.from({ length: n }, (_, i) => s.slice(i * size, (i + 1) * size)).filter(Boolean);
}

function chatChunks(step, file) {
  const chunk = (delta, finish = null) => ({ id: 'c1', object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }] });
  const call = script(file)[step];
  if (!call) {
    return [chunk({ role: 'assistant', content: 'All ' }), chunk({ content: 'done.' }), chunk({}, 'stop')];
  }
  const id = `call_${step}`;
  return [
    chunk({ role: 'assistant', content: null,
      tool_calls: [{ index: 0, id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    ...pieces(call.arguments).map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
    chunk({}, 'tool_calls'),
  ];
}

function responseEvents(step, file) {
  const call = script(file)[step];
  if (!call) {
    const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: 'All done.', annotations: [] }] };
    return [
      { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'All ' },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'done.' },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [item] } },
    ];
  }
  const item = { type: 'function_call', id: `fc_${step}`, call_id: `call_${step}`, name: call.name,
    arguments: call.arguments, status: 'completed' };
  return [
    { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } },
    ...pieces(call.arguments).map((delta) => ({ type: 'response.function_call_arguments.delta',
      item_id: item.id, output_index: 0, delta })),
    { type: 'response.function_call_arguments.done', item_id: item.id, output_index: 0, arguments: call.arguments },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [item] } },
  ];
}

/** The task and the number of tool results so far, from either API's body. */
function progress(body) {
  if (body.messages) {
    const task = body.messages.find((m) => m.role === 'user')?.content ?? '';
    return { task, step: body.messages.filter((m) => m.role === 'tool').length };
  }
  const task = body.input.find((m) => m.role === 'user')?.content ?? '';
  return { task, step: body.input.filter((i) => i.type === 'function_call_output').length };
}

export async function startMockModel() {
  const requests = [];
  let aborted = null;
  const abortedOnce = new Promise((resolve) => { aborted = resolve; });
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ path: req.url, headers: req.headers, body });
      const { task, step } = progress(body);
      const file = /\S+\.txt|spin/.exec(task)?.[0] ?? 'agent.txt';
      res.writeHead(200, { ...CORS, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (/stall/.test(task)) {
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Thinking' } }] })}\n\n`);
        res.on('close', () => aborted());
        return; // never ends: the page must abort it
      }
      const events = req.url.endsWith('/chat/completions') ? chatChunks(step, file)
        : responseEvents(step, file);
      for (const e of events) {
        res.write(req.url.endsWith('/responses') ? `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`
          : `data: ${JSON.stringify(e)}\n\n`);
      }
      if (req.url.endsWith('/chat/completions')) res.write('data: [DONE]\n\n');
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    /** Resolves once a stalled stream was closed by the client. */
    waitAborted: () => abortedOnce,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}
