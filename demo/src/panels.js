// panels.js - the side panels but the agent's: tabs, the timeline of
// checkpoints, the host controls (profile, limits, policy, secrets) and
// the event stream.
import { h } from './files.js';

const MAX_EVENTS = 300;
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** Tabs with arrow-key movement (the WAI-ARIA tabs pattern). */
function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  /** @param {Element} tab */
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.setAttribute('tabindex', on ? '0' : '-1');
      $(t.getAttribute('aria-controls')).hidden = !on;
    }
  };
  tabs.forEach((t, i) => {
    t.addEventListener('click', () => select(t));
    t.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
      const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
      if (!d) return;
      const next = /** @type {HTMLElement} */ (tabs[(i + d + tabs.length) % tabs.length]);
      select(next);
      next.focus();
    });
  });
}

/** @param {import('memsandbox').SandboxEvent} ev */
function describeEvent(ev) {
  const parts = [ev.seq !== undefined ? `#${ev.seq}` : '', String(ev.kind)];
  if (ev.op) parts.push(String(ev.op));
  if (ev.revision !== undefined) parts.push(`rev ${ev.revision}`);
  if (ev.exit_code !== undefined) parts.push(`exit ${ev.exit_code}`);
  if (ev.code) parts.push(String(ev.code));
  if (ev.limit) parts.push(`limit ${ev.limit}`);
  if (Array.isArray(ev.paths)) parts.push(ev.paths.join(' '));
  return parts.filter(Boolean).join('  ');
}

/**
 * @param {ReturnType<typeof import('./protocol.js').createClient>} client
 * @param {{ status: (s: string) => void, note: (s: string) => void }} page
 */
export function createPanels(client, page) {
  setupTabs();

  client.on('timeline', ({ checkpoints, current }) => {
    $('timeline').replaceChildren(...checkpoints.slice().reverse().map((c) => {
      const time = new Date(c.time).toLocaleTimeString();
      const isCurrent = c.id === current;
      const btn = h('button', { type: 'button', 'aria-label': `restore checkpoint ${c.id}: ${c.label}` },
        isCurrent ? 'Current' : 'Restore');
      if (isCurrent) btn.setAttribute('disabled', '');
      btn.addEventListener('click', async () => {
        await client.request('rollback', { id: c.id });
        page.note(`rolled back to checkpoint ${c.id} (${c.label})`);
      });
      return h('li', isCurrent ? { 'aria-current': 'step', class: 'current' } : {},
        h('span', { class: 'label' }, `${c.label}`), ' ',
        h('span', { class: 'meta' }, `rev ${c.revision} · ${time}`), ' ', btn);
    }));
  });

  client.on('event', ({ event }) => {
    const list = $('events');
    list.prepend(h('li', {}, describeEvent(event)));
    while (list.children.length > MAX_EVENTS) list.lastChild.remove();
  });

  // Host controls: the worker recreates the sandbox from its snapshot with
  // the new profile and limits, and sets the policy.
  $('host-form').addEventListener('submit', async (/** @type {Event} */ e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.target);
    const data = new FormData(form);
    /** @type {Record<string, number>} */
    const limits = {};
    for (const name of ['max_steps', 'max_total_bytes', 'max_file_bytes', 'max_output_bytes']) {
      const v = String(data.get(name) ?? '').trim();
      if (v) limits[name] = Number(v);
    }
    const settings = { profile: /** @type {any} */ (String(data.get('profile'))), limits,
      policy: String(data.get('policy') ?? '') };
    try {
      await client.request('configure', { settings });
      $('host-status').textContent = 'Applied.';
      page.note(`host settings applied: profile ${settings.profile}` +
        `${Object.keys(limits).length ? `, limits ${JSON.stringify(limits)}` : ''}` +
        `${settings.policy.trim() ? ', policy set' : ''}`);
    } catch (err) {
      $('host-status').textContent = `Not applied: ${err.message}`;
    }
  });

  // Secrets stay in this page's memory and the worker's; only names show.
  /** @type {Record<string, string>} */
  const secrets = {};
  const renderSecrets = () => {
    $('secrets').replaceChildren(...Object.keys(secrets).map((name) => h('li', {},
      `${name} = [REDACTED] `,
      h('button', { type: 'button', 'aria-label': `remove secret ${name}`,
        onclick: () => { delete secrets[name]; void sync(); } }, 'Remove'))));
  };
  const sync = async () => {
    await client.request('setSecrets', { secrets: { ...secrets } });
    renderSecrets();
  };
  $('secret-form').addEventListener('submit', async (/** @type {Event} */ e) => {
    e.preventDefault();
    secrets[$('secret-name').value] = $('secret-value').value;
    $('secret-value').value = '';
    await sync();
  });

  return {
    /** Gives a new worker the secrets. */
    resync: sync,
    /** Fills the host form from the workspace's saved settings. @param {import('./protocol.js').Settings} s */
    showSettings(s) {
      const form = $('host-form');
      form.elements.profile.value = s.profile;
      form.elements.policy.value = s.policy;
      for (const k of ['max_steps', 'max_total_bytes', 'max_file_bytes', 'max_output_bytes']) {
        form.elements[k].value = s.limits[k] === undefined ? '' : String(s.limits[k]);
      }
    },
  };
}
