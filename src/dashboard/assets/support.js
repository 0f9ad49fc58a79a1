'use strict';
// The support view: an admin token, kept in sessionStorage (this tab only), sent as a
// bearer token to the admin API. No cookie authenticates anything here, so another
// site cannot make the browser change data (no CSRF); every change is audited by the
// admin API with actor admin and the token's name.
(() => {
  const { $, when, cell, machineRow, rowButton, show, badge, confirmDialog, json, message } =
      window.dash;
  const TOKEN = 'licensed.adminToken';
  let current = null;

  const api = (method, path, body) => fetch('/api/v1/admin' + path, {
    method,
    headers: Object.assign({ 'Authorization': 'Bearer ' + sessionStorage.getItem(TOKEN) },
                           body === undefined ? {} : { 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
  });

  function signedOut(text) {
    sessionStorage.removeItem(TOKEN);
    show($('search-view'), false);
    show($('license-view'), false);
    show($('sign-out'), false);
    show($('sign-in-view'), true);
    $('sign-in-error').textContent = text || '';
    $('admin-token').focus();
  }

  function signedIn() {
    show($('sign-in-view'), false);
    show($('search-view'), true);
    show($('sign-out'), true);
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

  async function search() {
    const key = $('search-key').value.trim();
    const msg = $('search-message');
    msg.textContent = 'Searching…';
    let items = [];
    if (key) {
      const res = await api('GET', '/licenses/' + encodeURIComponent(key));
      const body = await answer(res);
      if (!body) return;
      if (res.ok) items = [body];
    } else {
      const q = new URLSearchParams({ limit: '100' });
      // A sale is found by its buyer's email or the store's order id (docs/protocol.md §22.10).
      if ($('search-email').value.trim()) q.set('email', $('search-email').value.trim());
      if ($('search-order').value.trim()) q.set('orderId', $('search-order').value.trim());
      if ($('search-product').value.trim()) q.set('product', $('search-product').value.trim());
      if ($('search-status').value) q.set('status', $('search-status').value);
      const res = await api('GET', '/licenses?' + q);
      const body = await answer(res);
      if (!body) return;
      if (!res.ok) { msg.textContent = message(body, 'Search failed.'); return; }
      items = body.items;
    }
    const results = $('results');
    results.replaceChildren();
    for (const l of items) {
      const row = document.createElement('tr');
      cell(row, l.licenseKey, 'mono');
      cell(row, l.product.name + ' (' + l.product.slug + ')');
      badge(cell(row, '').appendChild(document.createElement('span')), l.status);
      cell(row, String(l.max));
      cell(row, customerText(l.customer));
      rowButton(row, 'Open', 'Open license ' + l.licenseKey, 'small',
                () => openLicense(l.licenseKey));
      results.appendChild(row);
    }
    show($('results-table'), items.length > 0);
    msg.textContent = items.length === 1 ? '1 license found.' : items.length + ' licenses found.';
  }

  async function openLicense(key) {
    const res = await api('GET', '/licenses/' + encodeURIComponent(key));
    const l = await answer(res);
    if (!l) return;
    if (!res.ok) { $('search-message').textContent = message(l, 'Could not open it.'); return; }
    current = l.licenseKey;
    $('l-key').textContent = l.licenseKey;
    $('l-product').textContent = l.product.name;
    badge($('l-status'), l.status);
    $('l-usage').textContent = l.activationCount + ' of ' + l.max;
    $('l-expires').textContent = l.expiresAt ? when(l.expiresAt) : 'never';
    $('l-entitlements').textContent = (l.entitlements || [])
        .map((e) => e.code + (e.expiresAt ? ' (until ' + when(e.expiresAt) + ')' : '') +
                    (e.active ? '' : ' (expired)'))
        .join(', ') || 'none';
    $('l-customer').textContent = customerText(l.customer) || 'none';
    $('l-source').textContent = l.source
        ? l.source.provider + ' store ' + l.source.storeId + ', order ' + l.source.orderId
        : 'created by hand';
    $('new-status').value = l.storedStatus;
    const acts = $('activations');
    acts.replaceChildren();
    for (const a of l.activations) {
      const row = machineRow(a, a.id);
      rowButton(row, 'Deactivate', 'Deactivate ' + (a.name || a.id), 'danger small',
                () => freeSlot(l.licenseKey, a));
      acts.appendChild(row);
    }
    const ares = await api('GET', '/licenses/' + encodeURIComponent(key) + '/audit?limit=500');
    const audit = await answer(ares);
    if (!audit) return;
    const rows = $('audit');
    rows.replaceChildren();
    for (const r of (audit.items || []).slice().reverse()) {
      const row = document.createElement('tr');
      cell(row, when(r.at));
      cell(row, r.action);
      cell(row, r.machineId || '', 'mono');
      cell(row, r.actor + (r.actorName ? ' (' + r.actorName + ')' : ''));
      cell(row, [r.ip, r.keyId].filter(Boolean).join(' · '));
      rows.appendChild(row);
    }
    show($('license-view'), true);
    $('license-title').focus();
  }

  // Support may free any slot, an offline one too (docs/offline.md): the confirmation
  // says that an offline machine's file keeps working there until its end, since the
  // server cannot reach that machine to take it back.
  async function freeSlot(key, machine) {
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
    await openLicense(key);
    $('license-message').textContent = res.ok ? 'Freed the slot of ' + machine.id + '.'
                                              : message(body, 'Could not free the slot.');
  }

  $('sign-in-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN, $('admin-token').value.trim());
    $('admin-token').value = '';
    // Any read proves the token; products is the smallest list.
    const res = await api('GET', '/products?limit=1');
    if (!res.ok) {
      return signedOut(res.status === 429 ? 'Too many wrong tokens; wait a minute.'
                                          : 'That token was refused.');
    }
    signedIn();
    $('search-key').focus();
  });

  $('search-form').addEventListener('submit', (e) => { e.preventDefault(); search(); });

  $('status-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!current) return;
    const status = $('new-status').value;
    const res = await api('PATCH', '/licenses/' + encodeURIComponent(current), { status });
    const body = await answer(res);
    if (!body) return;
    await openLicense(current);
    $('license-message').textContent = res.ok ? 'Status changed to ' + status + '.'
                                              : message(body, 'Could not change the status.');
  });

  $('sign-out').addEventListener('click', () => signedOut());

  if (sessionStorage.getItem(TOKEN)) signedIn(); else signedOut();
})();
