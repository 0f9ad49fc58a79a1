'use strict';
// The customer dashboard: sign in with the license key (a session cookie the script
// cannot read), see the license, free a slot. Changes carry the session's CSRF token.
// The history comes newest first, a page at a time: "Show older" follows the cursor.
(() => {
  const { $, when, cell, machineRow, rowButton, show, badge, confirmDialog, json, message } = window.dash;
  let csrfToken = '';
  let olderCursor = null;  // the history page's nextCursor; null: nothing older

  async function call(method, path, body) {
    const headers = { 'Accept': 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
    return fetch(path, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  // What to tell the customer when a request was refused: a 429 asks them to wait.
  function refusal(res, body, wait, fallback) {
    return res.status === 429 ? wait : message(body, fallback);
  }

  function signedOut(text) {
    csrfToken = '';
    show($('license-view'), false);
    show($('sign-out'), false);
    show($('sign-in-view'), true);
    $('sign-in-error').textContent = text || '';
    $('license-key').focus();
  }

  function render(view) {
    csrfToken = view.csrfToken;
    $('product').textContent = view.product.name;
    badge($('status'), view.status);
    $('expires').textContent = view.expiresAt ? when(view.expiresAt) : 'never';
    $('usage').textContent = view.activationCount + ' of ' + view.max + ' in use';
    $('entitlements').textContent = (view.entitlements || [])
        .map((e) => e.code + (e.expiresAt ? ' (until ' + when(e.expiresAt) + ')' : '') +
                    (e.active ? '' : ' (expired)'))
        .join(', ') || 'none';

    const machines = $('machines');
    machines.replaceChildren();
    for (const m of view.activations) {
      const row = machineRow(m, m.machineId);
      rowButton(row, 'Deactivate', 'Deactivate ' + (m.name || m.machineId), 'danger small',
                () => deactivate(m));
      machines.appendChild(row);
    }
    show($('no-machines'), view.activations.length === 0);

    $('history').replaceChildren();
    appendHistory(view.audit);
    show($('sign-in-view'), false);
    show($('license-view'), true);
    show($('sign-out'), true);
  }

  // Adds a page of history (newest first) below the rows shown.
  function appendHistory(page) {
    const history = $('history');
    for (const r of page.items) {
      const row = document.createElement('tr');
      cell(row, when(r.at));
      cell(row, r.action.replace(/^license\./, '') + (r.refresh ? ' (again)' : ''));
      cell(row, r.machineId || '', 'mono');
      cell(row, r.actor);
      history.appendChild(row);
    }
    olderCursor = page.nextCursor;
    show($('show-older'), olderCursor !== null);
    $('history-error').textContent = '';
  }

  async function showOlder() {
    const res = await call('GET', '/dashboard/api/audit?cursor=' + encodeURIComponent(olderCursor));
    if (res.status === 401) return signedOut('Your session ended; sign in again.');
    const body = await json(res);
    if (!res.ok) {
      $('history-error').textContent = refusal(res, body, 'Too many requests; wait a moment.',
                                               'Could not load older history.');
      return;
    }
    appendHistory(body);
  }

  async function load() {
    const res = await call('GET', '/dashboard/api/license');
    if (res.status === 401) return signedOut();
    const body = await json(res);
    if (!res.ok) return signedOut(message(body, 'Something went wrong; try again.'));
    render(body);
  }

  async function deactivate(machine) {
    const label = machine.name ? machine.name + ' (' + machine.machineId + ')' : machine.machineId;
    if (!await confirmDialog('Deactivate this machine?',
                             'The slot used by ' + label + ' is freed. The plugin on that ' +
                             'machine stops working until it is activated again.',
                             'Deactivate')) {
      return;
    }
    const res = await call('POST', '/dashboard/api/free-slot', { machine: machine.handle });
    const body = await json(res);
    if (res.status === 401) return signedOut('Your session ended; sign in again.');
    // Told once the list shows it, so the notice never describes a list not yet redrawn.
    await load();
    $('notice').textContent = res.ok ? 'Deactivated ' + label + '. The slot is free.'
                                     : message(body, 'Could not deactivate the machine.');
    $('notice').focus();
  }

  $('sign-in-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('sign-in-error').textContent = '';
    const res = await call('POST', '/dashboard/api/session',
                           { licenseKey: $('license-key').value.trim() });
    const body = await json(res);
    if (!res.ok) {
      $('sign-in-error').textContent = refusal(res, body,
                                               'Too many attempts; wait a minute and try again.',
                                               'Sign-in failed.');
      return;
    }
    $('license-key').value = '';
    csrfToken = body.csrfToken;
    await load();
    $('license-title').focus();
  });

  $('show-older').addEventListener('click', showOlder);

  $('sign-out').addEventListener('click', async () => {
    await call('DELETE', '/dashboard/api/session');
    signedOut();
  });

  $('notice').tabIndex = -1;
  $('license-title').tabIndex = -1;
  load();
})();
