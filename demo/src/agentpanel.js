// agentpanel.js - the agent form and transcript. The endpoint settings
// persist in sessionStorage (this tab only, never written to disk by the
// page); the key is never put anywhere else but the Authorization header.
import { runAgent } from './agent.js';
import { h } from './files.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
const KEY = 'memsandbox.agent';
const FIELDS = ['url', 'model', 'key', 'api'];

/**
 * @param {ReturnType<typeof import('./protocol.js').createClient>} client
 * @param {{ note: (s: string) => void, interrupt: () => Promise<string> }} page
 */
export function createAgentPanel(client, page) {
  const form = $('agent-form');
  const log = $('agent-log');
  /** @type {AbortController | null} */
  let controller = null;

  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? '{}');
    for (const f of FIELDS) if (saved[f]) form.elements[f].value = saved[f];
  } catch { /* nothing saved */ }

  /** @param {string} cls @param {...(Node | string)} kids */
  const entry = (cls, ...kids) => {
    const li = h('li', { class: cls }, ...kids);
    log.append(li);
    li.scrollIntoView?.({ block: 'nearest' });
    return li;
  };
  /** @type {HTMLElement | null} */
  let textEntry = null;
  /** @type {Map<string, HTMLElement>} */
  const callEntries = new Map();

  /** @param {import('./agent.js').AgentEvent} e */
  function onEvent(e) {
    if (e.type === 'text') {
      textEntry ??= entry('text');
      textEntry.textContent += e.delta;
    } else if (e.type === 'turn') {
      textEntry = null;
    } else if (e.type === 'tool_call') {
      textEntry = null;
      const li = entry('tool', h('div', { class: 'call' }, `${e.call.name} `,
        h('code', {}, e.call.arguments)), h('pre', { class: 'result pending' }, 'running…'));
      callEntries.set(e.call.id, li);
    } else if (e.type === 'tool_result') {
      const pre = callEntries.get(e.call.id)?.querySelector('pre');
      if (pre) {
        pre.textContent = e.text;
        pre.className = `result ${e.ok ? 'ok' : 'failed'}`;
      }
    } else if (e.type === 'done') {
      entry('done', 'Done.');
    }
  }

  /** @param {boolean} running */
  function setRunning(running) {
    $('agent-run').disabled = running;
    $('agent-stop').disabled = !running;
  }

  form.addEventListener('submit', async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    const v = Object.fromEntries(FIELDS.map((f) => [f, form.elements[f].value]));
    sessionStorage.setItem(KEY, JSON.stringify(v));
    const task = form.elements.task.value;
    log.replaceChildren();
    entry('task', `Task: ${task}`);
    textEntry = null;
    controller = new AbortController();
    setRunning(true);
    try {
      await runAgent({
        baseUrl: v.url, model: v.model, apiKey: v.key, api: v.api, task,
        tools: await client.request('tools', {}), signal: controller.signal, onEvent,
        callTool: (call) => {
          let args;
          try {
            args = JSON.parse(call.arguments || '{}');
          } catch {
            args = call.arguments; // the tool reports the bad input to the model
          }
          return client.request('callTool', { name: call.name, args,
            label: `agent: ${call.name} ${String(args?.command ?? args?.path ?? '').slice(0, 60)}` });
        },
      });
    } catch (e) {
      if (controller.signal.aborted) entry('stopped', 'Stopped.');
      else entry('error', `Error: ${e.message}`);
    } finally {
      controller = null;
      setRunning(false);
    }
  });

  $('agent-stop').addEventListener('click', () => {
    if (!controller) return;
    controller.abort();
    page.interrupt().then((how) => {
      if (how === 'restarted') page.note('agent stopped; the workspace is as it was before its last call');
    });
  });
}
