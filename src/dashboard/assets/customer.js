'use strict';
// The customer dashboard: sign in with the license key (a session cookie the script
// cannot read), see the license, free a slot. Changes carry the session's CSRF token.
// The history comes newest first, a page at a time: "Show older" follows the cursor.
// Offline activation: a request file pasted, uploaded, or carried in the address as
// #request=<armoured text, URL-encoded> (a phone scanning the plugin's QR code) is sent
// for the signed-in license and answered with activation.lic, downloaded as a Blob; an
// offline machine is freed only with its deactivation file.
(() => {
  const { $, when, cell, machineRow, rowButton, show, badge, confirmDialog, json, message } = window.dash;
  let csrfToken = '';
  let olderCursor = null;  // the history page's nextCursor; null: nothing older
  let activationUrl = null;  // the object URL of the last activation.lic, revoked when replaced

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
      if (m.offline) {
        // An offline slot comes back only with its deactivation file (or at its end).
        cell(row, m.deactivatedAt ? '' : 'Needs its deactivation file', 'muted small-text');
      } else {
        rowButton(row, 'Deactivate', 'Deactivate ' + (m.name || m.machineId), 'danger small',
                  () => deactivate(m));
      }
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
      cell(row, r.action.replace(/^license\./, '') + (r.refresh ? ' (again)' : '') +
                (r.offline ? ' (offline)' : ''));
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

  // Offers the armoured activation file as a download named activation.lic.
  function download(text) {
    if (activationUrl) URL.revokeObjectURL(activationUrl);
    activationUrl = URL.createObjectURL(new Blob([text], { type: 'application/octet-stream' }));
    const link = $('offline-download');
    link.href = activationUrl;
    link.click();
  }

  async function readInto(input, textarea) {
    const file = input.files && input.files[0];
    if (!file) return;
    // Request files are under 4 KiB; anything much larger is not one.
    textarea.value = file.size > 16384 ? '' : await file.text();
    input.value = '';
    textarea.focus();
  }

  // Sends a pasted file to `path`; `done(body)` once it succeeded and the list is redrawn.
  async function submitFile(path, textarea, error, fallback, done) {
    error.textContent = '';
    const text = textarea.value.trim();
    if (!text) {
      error.textContent = 'Paste the file\'s text or choose the file first.';
      return textarea.focus();
    }
    const res = await call('POST', path, { request: text });
    if (res.status === 401) return signedOut('Your session ended; sign in again.');
    const body = await json(res);
    if (!res.ok) {
      error.textContent = refusal(res, body, 'Too many requests; wait a moment.', fallback);
      return;
    }
    textarea.value = '';
    await load();
    done(body);
  }

  $('offline-form').addEventListener('submit', (e) => {
    e.preventDefault();
    show($('offline-result'), false);
    submitFile('/dashboard/api/offline-activate', $('offline-request'), $('offline-error'),
               'The request was refused.', (body) => {
      download(body.activationFile);
      const machine = body.machine.name || body.machine.machineId;
      $('offline-result-text').textContent =
          'Activated ' + machine + ' until ' + when(body.expiresAt) +
          '. activation.lic was downloaded: copy it to that computer and install it in the plugin.';
      show($('offline-result'), true);
    });
  });

  $('offline-deactivate-form').addEventListener('submit', (e) => {
    e.preventDefault();
    submitFile('/dashboard/api/offline-deactivate', $('deactivation-request'),
               $('deactivation-error'), 'The deactivation file was refused.', (body) => {
      $('notice').textContent = 'The offline machine is deactivated (' + body.activations +
                                ' of ' + body.max + ' in use).';
      $('notice').focus();
    });
  });

  $('offline-request-file').addEventListener(
      'change', () => readInto($('offline-request-file'), $('offline-request')));
  $('deactivation-request-file').addEventListener(
      'change', () => readInto($('deactivation-request-file'), $('deactivation-request')));

  // #request=...: the text a phone brought from the plugin's QR code, taken out of the
  // address at once (it stays in the form, signed in or not).
  function requestFromAddress() {
    const prefix = '#request=';
    if (!location.hash.startsWith(prefix)) return;
    let text = '';
    try { text = decodeURIComponent(location.hash.slice(prefix.length)); } catch { return; }
    history.replaceState(null, '', location.pathname + location.search);
    $('offline-request').value = text;
    $('offline-error').textContent = '';
    $('offline-request-help').textContent =
        'The request from the link is filled in: press Activate.';
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
  requestFromAddress();
  load();
})();
