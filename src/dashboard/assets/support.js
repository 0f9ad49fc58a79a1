'use strict';
// The support console: an admin token, kept in sessionStorage (this tab only), sent as a
// bearer token to the admin API. No cookie authenticates anything here, so another
// site cannot make the browser change data (no CSRF); every change is audited by the
// admin API with actor admin, the token's name and the request id.
// Views by URL fragment: #search, #license=KEY (reload, back and a shared link open that
// license), #overview (the vendor overview, charts drawn as inline SVG from the
// /api/v1/admin/stats/ figures). Every text is set with textContent. A license with a
// seat cap (maxConcurrent) lists its live leases, each released with a confirmation
// (DELETE .../leases/{machineId}/{sessionId}, audited license.checkin with actor admin).
(() => {
  const { $, when, cell, machineRow, rowButton, show, badge, confirmDialog, json, message } =
      window.dash;
  const TOKEN = 'licensed.adminToken';
  const SVG = 'http://www.w3.org/2000/svg';
  let current = null;     // the license shown
  let readOnly = false;   // the token may only read: write controls are hidden
  let cursors = [];       // the cursor of each page shown so far ('' for the first)
  let query = null;       // the search being paged
  let shown = null;       // the license as last read, so a save sends only what changed
  let plans = [];         // the plans of the shown license's product
  const planHint = $('edit-plan-hint').textContent;

  const api = (method, path, body) => fetch('/api/v1/admin' + path, {
    method,
    headers: Object.assign({ 'Authorization': 'Bearer ' + sessionStorage.getItem(TOKEN) },
                           body === undefined ? {} : { 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
  });

  const views = ['search-view', 'license-view', 'overview-view'];
  function showView(id) { for (const v of views) show($(v), v === id); }

  function signedOut(text) {
    sessionStorage.removeItem(TOKEN);
    showView(null);
    show($('support-nav'), false);
    show($('sign-in-view'), true);
    $('sign-in-error').textContent = text || '';
    $('admin-token').focus();
  }

  // The token's name and rights: a read-only token sees no write control.
  async function signedIn() {
    show($('sign-in-view'), false);
    show($('support-nav'), true);
    const res = await api('GET', '/token');
    const t = await answer(res);
    if (!t) return false;
    readOnly = !!t.readOnly;
    document.body.classList.toggle('read-only', readOnly);
    $('token-name').textContent = t.name + (readOnly ? ' (read only)' : '');
    return true;
  }

  async function answer(res) {
    if (res.status === 401) { signedOut('The token was refused; sign in again.'); return null; }
    return json(res);
  }

  // "Name <email>", or whichever of them the store sent.
  function customerText(c) {
    if (!c) return '';
    if (c.name && c.email) return c.name + ' <' + c.email + '>';
    return c.email || c.name || '';
  }

  // ---- search ------------------------------------------------------------------------

  function searchQuery() {
    const q = new URLSearchParams({ limit: '50' });
    const fields = [['search-key', 'key'], ['search-email', 'email'], ['search-order', 'orderId'],
                    ['search-machine', 'machine'], ['search-product', 'product']];
    for (const [id, name] of fields) {
      const v = $(id).value.trim();
      if (v) q.set(name, v);
    }
    if ($('search-status').value) q.set('status', $('search-status').value);
    if ($('search-deleted').value === 'true') q.set('deleted', 'true');
    return q;
  }

  // Stale results never stay beside an error: the table is emptied first.
  function clearResults() {
    $('results').replaceChildren();
    show($('results-table'), false);
    show($('pager'), false);
  }

  async function showPage(page) {
    const q = new URLSearchParams(query);
    if (cursors[page]) q.set('cursor', cursors[page]);
    $('search-message').textContent = 'Searching…';
    $('search-error').textContent = '';
    let res;
    try { res = await api('GET', '/licenses?' + q); } catch {
      clearResults();
      $('search-message').textContent = '';
      $('search-error').textContent = 'The server could not be reached. Try again.';
      return;
    }
    const body = await answer(res);
    if (!body) return;
    clearResults();
    if (!res.ok) {
      $('search-message').textContent = '';
      $('search-error').textContent = message(body, 'The search failed.');
      return;
    }
    for (const l of body.items) $('results').appendChild(resultRow(l));
    show($('results-table'), body.items.length > 0);
    cursors[page + 1] = body.nextCursor;
    const limit = Number(query.get('limit'));
    const first = page * limit + 1;
    $('search-message').textContent =
        body.total === 1 ? '1 license found.' : body.total + ' licenses found.';
    $('page-text').textContent = body.items.length
        ? 'Showing ' + first + '–' + (first + body.items.length - 1) + ' of ' + body.total : '';
    $('page-prev').disabled = page === 0;
    $('page-next').disabled = !body.nextCursor;
    $('page-prev').onclick = () => showPage(page - 1);
    $('page-next').onclick = () => showPage(page + 1);
    show($('pager'), body.total > body.items.length);
  }

  function resultRow(l) {
    const row = document.createElement('tr');
    cell(row, l.licenseKey, 'mono');
    cell(row, l.product.name + ' (' + l.product.slug + ')');
    badge(cell(row, '').appendChild(document.createElement('span')), l.status);
    cell(row, String(l.max));
    cell(row, customerText(l.customer)).dir = 'auto';
    rowButton(row, 'Open', 'Open license ' + l.licenseKey, 'small', () => go(l.licenseKey));
    return row;
  }

  function search() {
    query = searchQuery();
    cursors = [''];
    return showPage(0);
  }

  // ---- one license -------------------------------------------------------------------

  const refusalText = {
    1705: 'all machine slots taken (1705)',
    1710: 'all seats taken (1710)',
    1711: 'deactivation limit reached (1711)',
    1712: 'the email already had a trial (1712)',
  };

  function go(key) {
    const hash = '#license=' + encodeURIComponent(key);
    if (location.hash === hash) return route();
    location.hash = hash;  // hashchange routes; back returns to where support was
  }

  function ttlText(seconds) {
    if (seconds === null || seconds === undefined) return 'never';
    if (seconds % 86400 === 0) return seconds / 86400 + ' d';
    if (seconds % 3600 === 0) return seconds / 3600 + ' h';
    return seconds + ' s';
  }

  function entitlementsText(list) {
    return (list || []).map((e) => e.code + (e.expiresAt ? ' until ' + e.expiresAt.slice(0, 10) : ''))
        .join(', ');
  }

  // The text field has no room for values: a code keeps the value the license (or, after
  // a plan was chosen, that plan) gives it.
  function entitlementsBody(text) {
    const values = new Map();
    const chosen = plans.find((p) => p.code === $('edit-plan').value);
    for (const e of [...(chosen ? chosen.entitlements : []), ...(shown.entitlements || [])]) {
      if (e.value !== undefined && !values.has(e.code)) values.set(e.code, e.value);
    }
    return text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      const m = /^(\S+)\s+until\s+(\d{4}-\d{2}-\d{2})$/.exec(s);
      const e = m ? { code: m[1], expiresAt: m[2] + 'T23:59:59Z' } : { code: s };
      if (values.has(e.code)) e.value = values.get(e.code);
      return e;
    });
  }

  // ---- plans (docs/protocol.md §20) ---------------------------------------------------

  // A plan's DURATION ("365d", "12h", "90m", "45s") in seconds; null for never.
  function durationSeconds(text) {
    const m = /^(\d+)([smhd])$/.exec(text || '');
    return m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2]] : null;
  }

  // The day `validFor` from today ends, as the date inputs write it; '' for never.
  function dayAfter(validFor) {
    const seconds = durationSeconds(validFor);
    return seconds === null ? '' : new Date(Date.now() + seconds * 1000).toISOString().slice(0, 10);
  }

  // The product's plans in the select, the license's own selected; a code the product no
  // longer has stays listed, so saving other changes never clears it.
  async function showPlans(l) {
    plans = [];
    if (!readOnly && !l.deletedAt) {
      const res = await api('GET', '/products/' + encodeURIComponent(l.product.slug) + '/plans');
      const body = await answer(res);
      if (body && res.ok) plans = body.items || [];
    }
    const select = $('edit-plan');
    select.replaceChildren(new Option('No plan', ''));
    for (const p of plans) select.appendChild(new Option(p.name + ' (' + p.code + ')', p.code));
    if (l.plan && !plans.some((p) => p.code === l.plan)) {
      select.appendChild(new Option(l.plan + ' (no longer a plan of ' + l.product.slug + ')', l.plan));
    }
    select.value = l.plan || '';
  }

  // Choosing a plan fills in what it gives; support sees it all before saving, and the
  // history then shows each member that changed.
  function planChosen() {
    const p = plans.find((x) => x.code === $('edit-plan').value);
    if (!p) return;
    if (p.max !== null && p.max !== undefined) $('edit-max').value = String(p.max);
    $('edit-expires').value = dayAfter(p.validFor);
    $('edit-ttl').value = p.machineTtl === null || p.machineTtl === undefined ? '' : String(p.machineTtl);
    $('edit-entitlements').value = (p.entitlements || [])
        .map((e) => e.code + (e.validFor ? ' until ' + dayAfter(e.validFor) : '')).join(', ');
    $('edit-plan-hint').textContent = 'Filled in from plan ' + p.name + ': max, expiry, ' +
        'machine TTL and entitlements. Change any of them before saving.';
  }

  function showFacts(l) {
    shown = l;
    $('l-key').textContent = l.licenseKey;
    $('l-product').textContent = l.product.name;
    $('l-plan').textContent = l.plan || 'none';
    badge($('l-status'), l.deletedAt ? 'DELETED' : l.status);
    $('l-usage').textContent = l.activationCount + ' of ' + l.max;
    $('l-expires').textContent = l.expiresAt ? when(l.expiresAt) : 'never';
    $('l-ttl').textContent = ttlText(l.machineTtl);
    $('l-entitlements').textContent = (l.entitlements || [])
        .map((e) => e.code + (e.expiresAt ? ' (until ' + when(e.expiresAt) + ')' : '') +
                    (e.active ? '' : ' (expired)'))
        .join(', ') || 'none';
    $('l-customer').textContent = customerText(l.customer) || 'none';
    $('l-source').textContent = l.source
        ? l.source.provider + ' store ' + l.source.storeId + ', order ' + l.source.orderId
        : 'created by hand';
    $('new-status').value = l.storedStatus;
    $('edit-max').value = String(l.max);
    $('edit-expires').value = l.expiresAt ? l.expiresAt.slice(0, 10) : '';
    $('edit-ttl').value = l.machineTtl === null || l.machineTtl === undefined ? '' : l.machineTtl;
    $('edit-entitlements').value = entitlementsText(l.entitlements);
    $('edit-reason').value = '';
    $('edit-plan').value = l.plan || '';
    $('edit-plan-hint').textContent = planHint;
    const deleted = !!l.deletedAt;
    for (const el of document.querySelectorAll('#status-form, #edit-form')) {
      show(el, !readOnly && !deleted);
    }
    show($('delete-license'), !readOnly && !deleted);
    show($('restore-license'), !readOnly && deleted);
    show(document.querySelector('.danger-zone'), !readOnly);
  }

  function showActivations(l) {
    const acts = $('activations');
    acts.replaceChildren();
    for (const a of l.activations) {
      const row = machineRow(a, a.id);
      row.cells[0].dir = 'auto';
      if (!readOnly && !l.deletedAt) {
        rowButton(row, 'Deactivate', 'Deactivate ' + (a.name || a.id), 'danger small',
                  () => freeSlot(l.licenseKey, a));
      } else {
        cell(row, '');
      }
      acts.appendChild(row);
    }
  }

  // The machine holding a lease: its name when it is activated and named, else its id.
  function leaseMachine(l, lease) {
    const a = l.activations.find((m) => m.id === lease.machineId && !m.deactivatedAt);
    return a && a.name ? a.name : lease.machineId;
  }

  // The live leases of a license with maxConcurrent (hidden without a seat cap); the
  // list is read again after every change, so a released seat is gone from it at once.
  async function showSeats(l) {
    const capped = l.maxConcurrent !== null && l.maxConcurrent !== undefined;
    show($('seats'), capped);
    show($('l-seats-fact'), capped);
    const list = $('seats-list');
    list.replaceChildren();
    if (!capped) return;
    const res = await api('GET', '/licenses/' + encodeURIComponent(l.licenseKey) + '/leases');
    const body = await answer(res);
    if (!body) return;
    if (!res.ok) {
      $('seats-usage').textContent = message(body, 'The seats could not be read.');
      return;
    }
    const leases = body.items || [];
    const usage = leases.length + ' of ' + l.maxConcurrent + ' seats in use';
    $('seats-usage').textContent = usage;
    $('l-seats').textContent = usage;
    for (const lease of leases) {
      const row = document.createElement('tr');
      const machine = leaseMachine(l, lease);
      cell(row, machine, machine === lease.machineId ? 'mono' : '').dir = 'auto';
      cell(row, lease.sessionId, 'mono').dir = 'auto';
      cell(row, when(lease.expiresAt));
      cell(row, lease.borrowed ? 'yes' : 'no');
      if (!readOnly && !l.deletedAt) {
        rowButton(row, 'Release', 'Release the seat of ' + machine + ', session ' + lease.sessionId,
                  'danger small', () => releaseSeat(l.licenseKey, lease, machine));
      } else {
        cell(row, '');
      }
      list.appendChild(row);
    }
    show($('no-seats'), leases.length === 0);
    show($('seats-table'), leases.length > 0);
  }

  // {"max": {"from": 1, "to": 3}} -> "max 1 → 3".
  function changesText(changes) {
    if (!changes) return '';
    const v = (x) => (x === null || x === undefined ? 'none'
                                                    : typeof x === 'object' ? JSON.stringify(x)
                                                                            : String(x));
    return Object.entries(changes).map(([f, c]) => f + ' ' + v(c.from) + ' → ' + v(c.to))
        .join('; ');
  }

  async function showHistory(key) {
    const path = '/licenses/' + encodeURIComponent(key);
    const [ares, rres] = await Promise.all([api('GET', path + '/audit?limit=500'),
                                            api('GET', path + '/refusals?limit=100')]);
    const audit = await answer(ares);
    const refusals = await answer(rres);
    if (!audit || !refusals) return;
    const rows = $('audit');
    rows.replaceChildren();
    for (const r of (audit.items || []).slice().reverse()) {
      const row = document.createElement('tr');
      cell(row, when(r.at));
      cell(row, r.action + (r.offline ? ' (offline)' : ''));
      cell(row, r.machineId || '', 'mono').dir = 'auto';
      cell(row, r.actor + (r.actorName ? ' (' + r.actorName + ')' : ''));
      cell(row, changesText(r.changes) + (r.reason ? (r.changes ? '; ' : '') + 'reason: ' + r.reason : ''))
          .dir = 'auto';
      cell(row, [r.ip, r.keyId, r.requestId].filter(Boolean).join(' · '), 'small-text');
      rows.appendChild(row);
    }
    const list = $('refusals');
    list.replaceChildren();
    for (const r of refusals.items || []) {
      const row = document.createElement('tr');
      cell(row, when(r.at));
      cell(row, refusalText[r.code] || String(r.code));
      cell(row, (r.machineName ? r.machineName + ' · ' : '') + (r.machineId || ''), 'mono').dir = 'auto';
      cell(row, [r.ip, r.keyId].filter(Boolean).join(' · '));
      cell(row, r.requestId || '', 'mono small-text');
      list.appendChild(row);
    }
    const none = !(refusals.items || []).length;
    show($('refusals-empty'), none);
    show($('refusals-table'), !none);
  }

  async function openLicense(key) {
    showView('license-view');
    $('license-error').textContent = '';
    let res;
    try { res = await api('GET', '/licenses/' + encodeURIComponent(key)); } catch {
      $('license-error').textContent = 'The server could not be reached. Reload to try again.';
      return;
    }
    const l = await answer(res);
    if (!l) return;
    if (!res.ok) {
      current = null;
      $('license-title').textContent = 'License';
      $('license-error').textContent = message(l, 'Could not open it.');
      for (const id of ['activations', 'seats-list', 'audit', 'refusals']) $(id).replaceChildren();
      show($('seats'), false);
      return;
    }
    current = l.licenseKey;
    $('license-title').textContent = 'License ' + l.licenseKey;
    await showPlans(l);
    showFacts(l);
    showActivations(l);
    await showSeats(l);
    await showHistory(l.licenseKey);
  }

  async function reload(text) {
    await openLicense(current);
    $('license-message').textContent = text;
  }

  // A modal asking for a reason; resolves to it, or null when cancelled.
  function askReason(title, text, action) {
    const dialog = $('reason-dialog');
    $('reason-title').textContent = title;
    $('reason-text').textContent = text;
    $('reason-ok').textContent = action;
    $('reason-input').value = '';
    return new Promise((resolve) => {
      const done = (value) => {
        $('reason-form').removeEventListener('submit', ok);
        $('reason-cancel').removeEventListener('click', cancel);
        dialog.removeEventListener('cancel', cancel);
        if (dialog.open) dialog.close();
        resolve(value);
      };
      const ok = (e) => { e.preventDefault(); done($('reason-input').value.trim()); };
      const cancel = (e) => { if (e) e.preventDefault(); done(null); };
      $('reason-form').addEventListener('submit', ok);
      $('reason-cancel').addEventListener('click', cancel);
      dialog.addEventListener('cancel', cancel);
      dialog.showModal();
      $('reason-input').focus();
    });
  }

  async function patch(body, done) {
    const res = await api('PATCH', '/licenses/' + encodeURIComponent(current), body);
    const out = await answer(res);
    if (!out) return;
    await reload(res.ok ? done : '');
    if (!res.ok) $('license-error').textContent = message(out, 'The change was refused.');
  }

  // Suspending, refunding and revoking stop the customer's plugin: confirmed, with a reason.
  async function changeStatus() {
    const status = $('new-status').value;
    let reason;
    if (status !== 'ACTIVE') {
      reason = await askReason('Change the status to ' + status + '?',
                               'The plugin stops working on every machine of license ' + current +
                                   ' at its next check.',
                               'Change to ' + status);
      if (reason === null) return;
    }
    await patch(reason ? { status, reason } : { status }, 'Status changed to ' + status + '.');
  }

  // Only what support changed, so the history shows exactly that.
  function editBody() {
    const body = {};
    const plan = $('edit-plan').value;
    if (plan !== (shown.plan || '')) body.plan = plan || null;
    const max = $('edit-max').value.trim();
    if (max !== '' && Number(max) !== shown.max) body.max = Number(max);
    const expires = $('edit-expires').value;
    if (expires !== (shown.expiresAt ? shown.expiresAt.slice(0, 10) : '')) {
      body.expiresAt = expires ? expires + 'T23:59:59Z' : null;
    }
    const ttl = $('edit-ttl').value.trim();
    const oldTtl = shown.machineTtl === null || shown.machineTtl === undefined ? '' : String(shown.machineTtl);
    if (ttl !== oldTtl) body.machineTtl = ttl === '' ? null : Number(ttl);
    if ($('edit-entitlements').value.trim() !== entitlementsText(shown.entitlements)) {
      body.entitlements = entitlementsBody($('edit-entitlements').value);
    }
    const reason = $('edit-reason').value.trim();
    if (Object.keys(body).length && reason) body.reason = reason;
    return body;
  }

  async function freeSlot(key, machine) {
    // Support may free any slot, an offline one too (docs/offline.md): the confirmation
    // says that an offline machine's file keeps working there until its end.
    const offlineWarning = machine.offline && !machine.deactivatedAt
        ? ' It is offline: its activation file keeps working on that machine until ' +
              when(machine.offlineUntil) + '.'
        : '';
    if (!await confirmDialog('Free this slot?',
                             'The slot of ' + (machine.name || machine.id) + ' (' + machine.id +
                             ') on license ' + key + ' is freed.' + offlineWarning,
                             'Deactivate')) {
      return;
    }
    const res = await api('DELETE', '/licenses/' + encodeURIComponent(key) + '/activations/' +
                                    encodeURIComponent(machine.id));
    const body = await answer(res);
    if (!body) return;
    await reload(res.ok ? 'Freed the slot of ' + machine.id + '.' : '');
    if (!res.ok) $('license-error').textContent = message(body, 'Could not free the slot.');
  }

  // Frees a seat at once, a borrowed one too: its lease file still runs offline on that
  // machine until its end, which the confirmation says.
  async function releaseSeat(key, lease, machine) {
    const borrowedWarning = lease.borrowed
        ? ' It is borrowed: its lease file keeps working offline on that machine until ' +
              when(lease.expiresAt) + '.'
        : '';
    if (!await confirmDialog('Release this seat?',
                             'The seat of ' + machine + ' (session ' + lease.sessionId +
                             ') on license ' + key + ' is freed now.' + borrowedWarning,
                             'Release')) {
      return;
    }
    const res = await api('DELETE', '/licenses/' + encodeURIComponent(key) + '/leases/' +
                                    encodeURIComponent(lease.machineId) + '/' +
                                    encodeURIComponent(lease.sessionId));
    const body = await answer(res);
    if (!body) return;
    await reload(res.ok ? 'Released the seat of ' + machine + ' (session ' + lease.sessionId + ').'
                        : '');
    if (!res.ok) $('license-error').textContent = message(body, 'Could not release the seat.');
    // The button pressed is gone with its row: focus goes to the list read again.
    $('seats-title').focus();
  }

  async function deleteOrRestore(restore) {
    const key = current;
    if (!restore && !await confirmDialog('Delete this license?',
                                         'License ' + key + ' stops working everywhere and ' +
                                             'answers as unknown; it can be restored.',
                                         'Delete')) {
      return;
    }
    const res = restore ? await api('POST', '/licenses/' + encodeURIComponent(key) + '/restore')
                        : await api('DELETE', '/licenses/' + encodeURIComponent(key));
    const body = await answer(res);
    if (!body) return;
    await reload(res.ok ? (restore ? 'Restored.' : 'Deleted; it can be restored.') : '');
    if (!res.ok) $('license-error').textContent = message(body, 'The change was refused.');
  }

  // ---- overview ----------------------------------------------------------------------

  function svg(name, attrs, text) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    return el;
  }

  // Bars, one group per label, one bar per series; each bar has its value as a <title>,
  // and the figure a text summary for screen readers.
  function barChart(figure, labels, series, summary) {
    figure.querySelector('svg')?.remove();
    figure.querySelector('.chart-legend')?.remove();
    const W = 600, H = 220, left = 36, bottom = 24, top = 10;
    const max = Math.max(1, ...series.flatMap((s) => s.values));
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary });
    chart.appendChild(svg('title', {}, summary));
    const plotH = H - bottom - top;
    for (const frac of [0, 0.5, 1]) {
      const y = top + plotH * (1 - frac);
      chart.appendChild(svg('line', { x1: left, x2: W, y1: y, y2: y, class: 'grid' }));
      chart.appendChild(svg('text', { x: left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis' },
                            String(Math.round(max * frac))));
    }
    const group = (W - left) / labels.length;
    const bar = Math.max(1, (group * 0.8) / series.length);
    labels.forEach((label, i) => {
      series.forEach((s, j) => {
        const h = (s.values[i] / max) * plotH;
        const rect = svg('rect', { x: left + i * group + group * 0.1 + j * bar, y: top + plotH - h,
                                   width: bar, height: h, class: 'bar ' + s.className });
        rect.appendChild(svg('title', {}, label + ': ' + s.values[i] + ' ' + s.name));
        chart.appendChild(rect);
      });
      const every = Math.ceil(labels.length / 8);
      if (i % every === 0) {
        chart.appendChild(svg('text', { x: left + i * group + group / 2, y: H - 6,
                                        'text-anchor': 'middle', class: 'axis' }, label));
      }
    });
    figure.appendChild(chart);
    if (series.length > 1) {
      const legend = document.createElement('p');
      legend.className = 'chart-legend';
      for (const s of series) {
        const key = document.createElement('span');
        key.className = 'legend ' + s.className;
        key.textContent = s.name + ': ' + s.values.reduce((a, b) => a + b, 0);
        legend.appendChild(key);
      }
      figure.appendChild(legend);
    }
  }

  const dayLabel = (d) => d.day.slice(5);

  async function showOverview() {
    showView('overview-view');
    $('overview-error').textContent = '';
    const paths = ['/stats/licenses', '/stats/activations', '/stats/refusals', '/stats/trials',
                   '/stats/nearest-cap?limit=10'];
    let bodies;
    try {
      const answers = await Promise.all(paths.map((p) => api('GET', p)));
      bodies = [];
      for (const res of answers) {
        const b = await answer(res);
        if (!b) return;
        if (!res.ok) throw new Error(message(b, 'The figures could not be read.'));
        bodies.push(b);
      }
    } catch (e) {
      $('overview-error').textContent = e.message || 'The server could not be reached.';
      return;
    }
    const [statuses, activations, refusals, trials, cap] = bodies;
    const names = Object.keys(statuses.statuses);
    barChart($('chart-statuses'), names,
             [{ name: 'licenses', className: 's0', values: names.map((n) => statuses.statuses[n]) }],
             statuses.total + ' live licenses: ' +
                 names.map((n) => statuses.statuses[n] + ' ' + n).join(', '));
    const days = activations.days.map(dayLabel);
    const sum = (list, k) => list.reduce((a, d) => a + d[k], 0);
    barChart($('chart-activations'), days,
             [{ name: 'activations', className: 's0', values: activations.days.map((d) => d.activations) }],
             sum(activations.days, 'activations') + ' new activations in ' + days.length + ' days');
    barChart($('chart-refusals'), refusals.days.map(dayLabel),
             [{ name: '1705', className: 's1', values: refusals.days.map((d) => d['1705']) },
              { name: '1710', className: 's2', values: refusals.days.map((d) => d['1710']) }],
             sum(refusals.days, '1705') + ' refusals for the machine cap and ' +
                 sum(refusals.days, '1710') + ' for the seat cap in ' + refusals.days.length + ' days');
    barChart($('chart-trials'), trials.days.map(dayLabel),
             [{ name: 'started', className: 's0', values: trials.days.map((d) => d.started) },
              { name: 'converted', className: 's3', values: trials.days.map((d) => d.converted) }],
             trials.started + ' trials started, ' + trials.converted + ' converted');
    const rows = $('nearest-cap');
    rows.replaceChildren();
    for (const c of cap.items) {
      const row = document.createElement('tr');
      cell(row, c.licenseKey, 'mono');
      cell(row, c.product);
      const usage = cell(row, c.used + ' of ' + c.max);
      const meter = document.createElement('meter');
      meter.min = 0; meter.max = c.max; meter.value = c.used;
      meter.setAttribute('aria-label', c.used + ' of ' + c.max + ' machines');
      usage.prepend(meter);
      rowButton(row, 'Open', 'Open license ' + c.licenseKey, 'small', () => go(c.licenseKey));
      rows.appendChild(row);
    }
    $('overview-title').focus();
  }

  // ---- routing -----------------------------------------------------------------------

  function route() {
    if (!sessionStorage.getItem(TOKEN)) return;
    $('license-message').textContent = '';
    const m = /^#license=(.+)$/.exec(location.hash);
    if (m) return openLicense(decodeURIComponent(m[1])).then(() => $('license-title').focus());
    if (location.hash === '#overview') return showOverview();
    showView('search-view');
  }

  $('sign-in-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN, $('admin-token').value.trim());
    $('admin-token').value = '';
    const res = await api('GET', '/token');
    if (!res.ok) {
      return signedOut(res.status === 429 ? 'Too many wrong tokens; wait a minute.'
                                          : 'That token was refused.');
    }
    if (!await signedIn()) return;
    await route();
    if (!location.hash || location.hash === '#search') $('search-key').focus();
  });

  $('search-form').addEventListener('submit', (e) => { e.preventDefault(); search(); });
  $('status-form').addEventListener('submit', (e) => { e.preventDefault(); changeStatus(); });
  $('edit-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const body = editBody();
    if (!Object.keys(body).length) {
      $('license-message').textContent = 'Nothing was changed.';
      return;
    }
    patch(body, 'Saved.');
  });
  $('edit-plan').addEventListener('change', planChosen);
  $('delete-license').addEventListener('click', () => deleteOrRestore(false));
  $('restore-license').addEventListener('click', () => deleteOrRestore(true));
  $('sign-out').addEventListener('click', () => signedOut());
  window.addEventListener('hashchange', route);

  if (sessionStorage.getItem(TOKEN)) {
    signedIn().then((ok) => { if (ok) route(); });
  } else {
    signedOut();
  }
})();
