/* global document, location, history, fetch, sessionStorage, URLSearchParams, Node, setTimeout, setInterval */
// toolgate inspector page: reads GET /v1/toolgate/requests and /v1/toolgate/requests/{id} only.
// Filters live in the URL (shareable); new requests appear by polling; every value from the API
// is written with textContent (records can hold client text).
'use strict';

(() => {
  const API = '/v1/toolgate/requests';
  const FILTERS = ['model', 'provider', 'outcome', 'has-repairs', 'has-fallback', 'text-calls', 'since'];
  const POLL_MS = 2000;
  const $ = (id) => document.getElementById(id);
  const form = $('filters');
  const rows = $('rows');
  const detail = $('detail');
  const known = new Map(); // id -> row
  let nextCursor = null;
  let selected = new URLSearchParams(location.search).get('id');
  let generation = 0;

  const keyInput = $('key');
  keyInput.value = sessionStorage.getItem('toolgate.inspector.key') || '';
  keyInput.addEventListener('change', () => {
    sessionStorage.setItem('toolgate.inspector.key', keyInput.value);
    reload();
  });

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') node.className = value;
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  async function api(path) {
    const headers = { accept: 'application/json' };
    if (keyInput.value) headers.authorization = `Bearer ${keyInput.value}`;
    const response = await fetch(path, { headers, cache: 'no-store' });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((body.error && body.error.message) || `HTTP ${response.status}`);
    return body;
  }

  // ---- filters <-> URL ----------------------------------------------------------------------
  function filtersFromUrl() {
    const params = new URLSearchParams(location.search);
    for (const name of FILTERS) if (form.elements[name]) form.elements[name].value = params.get(name) || '';
  }
  function filterQuery() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    }
    return params;
  }
  function syncUrl() {
    const params = filterQuery();
    if (selected) params.set('id', selected);
    const query = params.toString();
    history.replaceState(null, '', query ? `?${query}` : location.pathname);
  }

  // ---- list -----------------------------------------------------------------------------------
  const ms = (value) => (value === undefined || value === null ? '' : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`);
  const time = (iso) => {
    const date = new Date(iso);
    const today = date.toDateString() === new Date().toDateString();
    return `${today ? '' : `${date.toLocaleDateString()} `}${date.toLocaleTimeString()}`;
  };
  const ENDPOINTS = { chat_completions: 'chat', responses: 'responses' };

  function rowOf(record, fresh) {
    const canonical = record.provider ? `${record.provider}/${record.upstreamModel || ''}` : '';
    const served = canonical && canonical !== record.model ? canonical : '';
    const row = el('tr', { 'data-id': record.id, class: fresh ? 'new' : undefined },
      el('td', { title: record.id }, time(record.time)),
      el('td', {}, ENDPOINTS[record.endpoint] || record.endpoint, record.stream ? el('span', { class: 'badge' }, 'stream') : null),
      el('td', { class: 'model', title: `${record.model || ''}${served ? ` → ${served}` : ''}` }, record.model || '', served ? el('span', { class: 'muted' }, ` → ${served}`) : null),
      el('td', { class: `o-${record.outcome}`, title: record.outcome }, record.status, record.outcome === 'success' ? '' : ` ${record.outcome}`),
      el('td', { title: record.ttfbMs !== undefined ? `first token ${ms(record.ttfbMs)}` : '' }, ms(record.latencyMs)),
      el('td', {}, record.totalTokens ?? ''),
      el('td', {}, record.repairs ? el('span', { class: 'badge on' }, record.repairs) : ''),
      el('td', {}, record.textCalls ? el('span', { class: 'badge on' }, record.textCalls) : ''),
      el('td', {}, record.attempts, record.fallback ? el('span', { class: 'badge on' }, 'fallback') : null),
    );
    row.addEventListener('click', () => select(record.id));
    if (record.id === selected) row.classList.add('selected');
    return row;
  }

  function add(records, where) {
    const fragment = document.createDocumentFragment();
    for (const record of records) {
      if (known.has(record.id)) continue;
      const row = rowOf(record, where === 'top');
      known.set(record.id, row);
      fragment.append(row);
    }
    if (where === 'top') rows.prepend(fragment);
    else rows.append(fragment);
    $('empty').hidden = known.size > 0;
  }

  async function reload() {
    const mine = ++generation;
    known.clear();
    rows.replaceChildren();
    const params = filterQuery();
    params.set('limit', '200');
    try {
      const page = await api(`${API}?${params}`);
      if (mine !== generation) return;
      add(page.data, 'bottom');
      nextCursor = page.next_cursor;
      $('more').hidden = !page.has_more;
      status(`${known.size} shown`);
      if (selected) select(selected);
    } catch (error) {
      status(error.message, true);
    }
  }

  async function older() {
    if (!nextCursor) return;
    const params = filterQuery();
    params.set('limit', '200');
    params.set('cursor', nextCursor);
    try {
      const page = await api(`${API}?${params}`);
      add(page.data, 'bottom');
      nextCursor = page.next_cursor;
      $('more').hidden = !page.has_more;
      status(`${known.size} shown`);
    } catch (error) {
      status(error.message, true);
    }
  }

  async function poll() {
    if (!$('live').checked || document.hidden) return;
    const mine = generation;
    const params = filterQuery();
    params.set('limit', '100');
    try {
      const page = await api(`${API}?${params}`);
      if (mine !== generation) return;
      add(page.data.filter((record) => !known.has(record.id)), 'top');
      status(`${known.size} shown · live`);
    } catch (error) {
      status(error.message, true);
    }
  }

  function status(text, bad) {
    $('status').textContent = text;
    $('status').classList.toggle('bad', Boolean(bad));
  }

  // ---- detail ---------------------------------------------------------------------------------
  async function select(id) {
    selected = id;
    syncUrl();
    for (const [other, row] of known) row.classList.toggle('selected', other === id);
    let record;
    try {
      record = await api(`${API}/${encodeURIComponent(id)}`);
    } catch (error) {
      detail.hidden = false;
      detail.replaceChildren(el('p', { class: 'o-gateway_error' }, error.message));
      return;
    }
    if (selected !== id) return;
    detail.hidden = false;
    detail.replaceChildren(...renderRecord(record));
  }

  function renderRecord(r) {
    const facts = [
      ['id', r.id], ['time', new Date(r.time).toISOString()], ['endpoint', `${r.method} ${r.path}${r.stream ? ' (stream)' : ''}`],
      ['model', r.model], ['served by', r.provider ? `${r.provider}/${r.upstreamModel}${r.fallback ? ' (fallback)' : ''}` : undefined],
      ['gateway key', r.keyName], ['status', `${r.status} ${r.outcome}`], ['error', r.error],
      ['latency', `${ms(r.latencyMs)}${r.ttfbMs !== undefined ? ` · first token ${ms(r.ttfbMs)}` : ''}`],
      ['tokens', r.usage ? `${r.usage.prompt_tokens ?? 0} in · ${r.usage.completion_tokens ?? 0} out` : undefined],
      ['cost', r.costUsd !== undefined ? `$${r.costUsd.toFixed(6)}` : undefined],
      ['LLM calls', `${r.llmCalls}${r.taskLlmCalls !== undefined ? ` (task so far: ${r.taskLlmCalls})` : ''}`],
      ['tool calls', r.toolMode], ['x-toolgate-repairs', r.repairsHeader], ['truncated', r.truncated ? 'yes: inspector.maxRecordBytes' : undefined],
    ].filter(([, value]) => value !== undefined && value !== '');
    const out = [el('h2', {}, 'Request'), el('dl', { class: 'facts' }, facts.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]))];
    if (r.warnings && r.warnings.length) out.push(el('h3', {}, 'Warnings'), el('ul', { class: 'warnings' }, r.warnings.map((w) => el('li', {}, w))));
    if (r.findings.length) {
      out.push(el('h3', {}, `Repairs and findings (${r.findings.length})`));
      out.push(el('table', { class: 'findings' }, el('thead', {}, el('tr', {}, el('th', {}, 'kind'), el('th', {}, 'where'), el('th', {}, 'why'))),
        el('tbody', {}, r.findings.map((f) => el('tr', {}, el('td', {}, f.kind, f.advisory ? el('span', { class: 'muted' }, ' (advisory)') : null), el('td', {}, f.index < 0 ? 'request' : `${f.target}[${f.index}]`), el('td', {}, f.detail))))));
    }
    for (const diff of r.diffs) out.push(...renderDiff(diff));
    if (r.textCallsDetail) out.push(...renderTextCalls(r.textCallsDetail));
    if (r.reasoning) out.push(el('h3', {}, `Reasoning (${r.reasoning.length} chars)`), el('pre', { class: 'raw' }, r.reasoning.text || '(not kept)'));
    if (r.aliasing && r.aliasing.length) out.push(el('h3', {}, 'Name aliasing'), el('ul', {}, r.aliasing.map((a) => el('li', {}, `${a.from} → ${a.to} (${a.how})`))));
    if (r.attemptsDetail && r.attemptsDetail.length) out.push(...renderAttempts(r.attemptsDetail));
    if (r.contract && r.contract.length) out.push(...renderContract(r.contract));
    return out;
  }

  function renderDiff(diff) {
    const out = [el('h3', {}, `Before → after (${diff.target}: ${diff.beforeCount} → ${diff.afterCount})${diff.truncated ? ' · cut' : ''}`)];
    for (const hunk of diff.hunks) {
      const before = JSON.stringify(hunk.before, null, 2).split('\n');
      const after = JSON.stringify(hunk.after, null, 2).split('\n');
      out.push(el('div', { class: 'hunk diff' },
        el('div', { class: 'side before' }, el('h4', {}, `before · ${diff.target}[${hunk.beforeIndex}…]`), pre(before, after, 'del')),
        el('div', { class: 'side after' }, el('h4', {}, `after · ${diff.target}[${hunk.afterIndex}…]`), pre(after, before, 'ins')),
      ));
    }
    return out;
  }

  /** Lines of `lines` missing from `other` are marked (a multiset difference: linear, enough for a few messages). */
  function pre(lines, other, mark) {
    const bare = (line) => line.replace(/,$/, ''); // a comma added after a line is no change of it
    const counts = new Map();
    for (const line of other) counts.set(bare(line), (counts.get(bare(line)) || 0) + 1);
    return el('pre', {}, lines.map((line) => {
      const left = counts.get(bare(line)) || 0;
      if (left > 0) counts.set(bare(line), left - 1);
      return el('span', { class: left > 0 ? 'same' : mark }, line);
    }));
  }

  function renderTextCalls(text) {
    const calls = text.calls.map((call) => `${call.name}(${call.arguments.keys ? call.arguments.keys.join(', ') : ''})\n${call.arguments.text}`).join('\n\n');
    return [
      el('h3', {}, `Tool calls read from text · format ${text.format}`),
      el('div', { class: 'textcall' },
        el('div', {}, el('h4', { class: 'muted' }, `raw text span${text.rawLength !== undefined ? ` (${text.rawLength} chars)` : ''}`), el('pre', { class: 'raw' }, text.raw ?? '(not kept)')),
        el('div', { class: 'arrow' }, '→'),
        el('div', {}, el('h4', { class: 'muted' }, 'tool_calls'), el('pre', { class: 'calls' }, calls || '(none)')),
      ),
      text.content !== undefined ? el('p', { class: 'muted' }, 'content left for the client: ', text.content === '' || /^‹0 chars/.test(text.content) ? '(none)' : text.content) : null,
    ].filter(Boolean);
  }

  function renderAttempts(attempts) {
    const chain = [];
    attempts.forEach((a, index) => {
      if (index > 0) chain.push(el('span', { class: 'arrow' }, '→'));
      const ok = a.outcome === 'success';
      chain.push(el('div', { class: `step ${ok ? 'success' : 'fail'}` },
        el('div', {}, `${a.provider}/${a.model} #${a.attempt}`),
        el('div', { class: 'muted' }, `${a.outcome}${a.status ? ` · ${a.status}` : ''}${a.errorKind ? ` · ${a.errorKind}` : ''} · ${ms(a.durationMs)}`),
        a.error ? el('div', { class: 'muted', title: a.error }, a.error.slice(0, 80)) : null));
    });
    return [el('h3', {}, `Upstream attempts (${attempts.length})`), el('div', { class: 'chain attempts' }, chain)];
  }

  /** Each answer that broke the request's tool contract: which one (0 = the first, then each re-ask's), what it broke, what came of it. */
  function renderContract(notes) {
    return [el('h3', {}, `Tool contract (${notes.length})`),
      el('table', { class: 'findings' }, el('thead', {}, el('tr', {}, el('th', {}, 'answer'), el('th', {}, 'outcome'), el('th', {}, 'violations'))),
        el('tbody', {}, notes.map((n) => el('tr', {},
          el('td', {}, `${n.reask === 0 ? 'first' : `re-ask ${n.reask}`} · ${n.provider}/${n.model}`),
          el('td', {}, n.outcome),
          el('td', {}, n.violations.length ? el('ul', {}, n.violations.map((v) => el('li', {}, `${v.kind}: ${v.message}`))) : '—')))))];
  }

  // ---- wiring ---------------------------------------------------------------------------------
  form.addEventListener('change', () => {
    syncUrl();
    reload();
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('reset', () => setTimeout(() => {
    syncUrl();
    reload();
  }));
  $('more').addEventListener('click', older);
  filtersFromUrl();
  reload();
  setInterval(poll, POLL_MS);
})();
