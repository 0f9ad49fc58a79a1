'use strict';
// The customer dashboard: sign in with the license key (a session cookie the script
// cannot read), or with the one-time link of a refused activation (#signin=<token>, taken
// out of the address at once), see the license, free a slot. Changes carry the session's
// CSRF token. The history comes newest first, a page at a time: "Show older" follows the
// cursor. Offline activation: a request file pasted, uploaded, or carried in the address
// as #request=<armoured text, URL-encoded> (a phone scanning the plugin's QR code) is sent
// for the signed-in license and answered with activation.lic, downloaded as a Blob; an
// offline machine is freed only with its deactivation file. On a license with a seat cap
// (maxConcurrent) the live leases are listed: machine, session, until when, borrowed or not.
//
// States (docs/dashboard.md): a neutral "checking your session" until the server answered,
// a "no connection" view with Try again when it could not be reached, errors in red in a
// role=alert region worded for a customer, a machine being freed shown busy with its
// button disabled (a second click sends nothing). Text that users wrote (machine names
// and ids) goes into <bdi>, so a right-to-left override in it cannot turn the sentence
// around it.
(() => {
  const { $, when, show, badge, confirmDialog, json, user, setParts, zoned, brand } = window.dash;
  let csrfToken = '';
  let olderCursor = null;  // the history page's nextCursor; null: nothing older
  let activationUrl = null;  // the object URL of the last activation.lic, revoked when replaced
  let refused = null;  // {machineId (masked), name} of a sign-in link's refused machine
  const pending = new Set();  // handles of machines being freed

  // The request, or null when the server could not be reached at all.
  async function call(method, path, body) {
    const headers = { 'Accept': 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
    try {
      return await fetch(path, {
        method, headers, credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return null;
    }
  }

  // One view at a time: loading, no connection, sign-in, or the license.
  function showView(id) {
    for (const view of ['loading-view', 'network-view', 'sign-in-view', 'license-view']) {
      show($(view), view === id);
    }
    show($('sign-out'), id === 'license-view');
  }

  // The server could not be reached: say so, and offer to do `retry` again.
  let retryStep = null;
  function unreachable(retry) {
    retryStep = retry;
    $('network-error').textContent =
        'The license server could not be reached. Check your internet connection, then ' +
        'try again. Nothing was changed.';
    showView('network-view');
    $('retry').focus();
  }

  // A server message as a sentence: capitalised, with its full stop.
  function sentence(text) {
    const t = String(text).trim();
    if (!t) return '';
    return t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
  }

  // What to tell the customer when a request was refused, in their words: never the
  // License API's instructions to a plugin.
  function customerText(res, body, fallback) {
    const code = body && body.code;
    if (res.status === 429) return 'Too many requests. Wait a minute, then try again.';
    if (code === 1711) {
      const hours = Math.max(1, Math.ceil((body.retryAfter || 3600) / 3600));
      return 'This license has freed as many machines as it may for now. Try again in about ' +
             hours + (hours === 1 ? ' hour' : ' hours') + ', or contact support.';
    }
    if (res.status === 503) return 'The license server is busy. Try again in a moment.';
    if (res.status >= 500) {
      return 'Something went wrong on our side. Try again; if it keeps happening, contact support.';
    }
    return sentence(body && body.message) || fallback;
  }

  function showError(text) {
    $('notice').textContent = '';
    $('error').textContent = text;
  }

  function signedOut(text) {
    csrfToken = '';
    refused = null;
    showView('sign-in-view');
    $('sign-in-error').textContent = text || '';
    $('license-key').focus();
  }

  // A cell of a machine's row, labelled for the card it becomes on a phone.
  function labelled(row, label, content, className) {
    const td = document.createElement('td');
    td.dataset.label = label;
    if (className) td.className = className;
    setParts(td, content);
    row.appendChild(td);
    return td;
  }

  // The online machine seen least recently: the one to suggest freeing.
  function leastRecentlySeen(machines) {
    let best = null;
    for (const m of machines) {
      if (m.offline) continue;
      if (!best || String(m.lastSeenAt || '') < String(best.lastSeenAt || '')) best = m;
    }
    return best;
  }

  // "Name (id)" with both in <bdi>, or the id alone.
  function machineLabel(m) {
    return m.name ? [user(m.name), ' (', user(m.machineId), ')'] : [user(m.machineId)];
  }

  function machineRow(m, suggested) {
    const row = document.createElement('tr');
    row.dataset.handle = m.handle;
    const name = [user(m.name || '(unnamed)')];
    if (suggested) {
      const tag = document.createElement('span');
      tag.className = 'tag';
      tag.textContent = 'seen least recently';
      name.push(' ', tag);
      row.classList.add('suggested');
    }
    labelled(row, 'Name', name);
    labelled(row, 'Machine id', [user(m.machineId)], 'mono');
    labelled(row, 'First seen', zoned(m.activatedAt));
    labelled(row, 'Last seen', m.offline ? offlineText(m)
                                         : zoned(m.lastSeenAt) + (m.stale ? ' (inactive)' : ''));
    const actions = labelled(row, 'Action', '', 'action');
    if (m.offline) {
      // An offline slot comes back only with its deactivation file (or at its end).
      actions.textContent = m.deactivatedAt ? '' : 'Needs its deactivation file';
      actions.classList.add('muted', 'small-text');
    } else {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'danger small';
      button.textContent = 'Deactivate';
      button.setAttribute('aria-label', 'Deactivate ' + (m.name || m.machineId));
      button.addEventListener('click', () => deactivate(m, row, button));
      actions.appendChild(button);
    }
    return row;
  }

  function offlineText(m) {
    return m.deactivatedAt ? 'deactivated; slot counted until ' + zoned(m.offlineUntil)
                           : 'offline until ' + zoned(m.offlineUntil);
  }

  // A live lease's row: the machine by its name when it is activated and named, else its
  // (masked) id; the session (masked when it is the machine id); its end; borrowed or not.
  function seatRow(lease) {
    const row = document.createElement('tr');
    labelled(row, 'Machine', [user(lease.name || lease.machineId)], lease.name ? '' : 'mono');
    labelled(row, 'Session', [user(lease.sessionId)], 'mono');
    labelled(row, 'Until', zoned(lease.expiresAt));
    labelled(row, 'Borrowed', lease.borrowed ? 'yes (offline)' : 'no');
    return row;
  }

  // The seats of a license with maxConcurrent; hidden on one without a seat cap.
  function renderSeats(view) {
    const capped = view.maxConcurrent !== null && view.maxConcurrent !== undefined;
    show($('seats'), capped);
    show($('seats-fact'), capped);
    const list = $('seats-list');
    list.replaceChildren();
    if (!capped) return;
    const leases = view.leases || [];
    $('seats-usage').textContent = leases.length + ' of ' + view.maxConcurrent + ' seats in use';
    for (const lease of leases) list.appendChild(seatRow(lease));
    show($('no-seats'), leases.length === 0);
  }

  // The banner of a sign-in link: the machine refused, the one to free, what comes next.
  function renderRefused(view, suggestion) {
    show($('refused'), refused !== null);
    if (!refused) return;
    const who = refused.name ? [user(refused.name), ' (', user(refused.machineId), ')']
                             : [user(refused.machineId)];
    setParts($('refused-text'), [...who, ' could not be activated: all ' + view.max +
                                 ' machines of this license are in use.']);
    setParts($('refused-suggestion'), suggestion
        ? ['Free a machine below. We suggest ', ...machineLabel(suggestion),
           ', seen least recently (' + zoned(suggestion.lastSeenAt) + ').']
        : ['Free a machine below (an offline machine with its deactivation file).']);
  }

  function render(view) {
    csrfToken = view.csrfToken;
    $('product').textContent = view.product.name;
    badge($('status'), view.status);
    $('expires').textContent = view.expiresAt ? zoned(view.expiresAt) : 'never';
    $('usage').textContent = view.activationCount + ' of ' + view.max + ' in use';
    $('entitlements').textContent = (view.entitlements || [])
        .map((e) => e.code + (e.expiresAt ? ' (until ' + zoned(e.expiresAt) + ')' : '') +
                    (e.active ? '' : ' (expired)'))
        .join(', ') || 'none';

    const suggestion = refused ? leastRecentlySeen(view.activations) : null;
    const machines = $('machines');
    machines.replaceChildren();
    for (const m of view.activations) machines.appendChild(machineRow(m, m === suggestion));
    show($('no-machines'), view.activations.length === 0);
    renderRefused(view, suggestion);
    renderSeats(view);

    $('history').replaceChildren();
    appendHistory(view.audit);
    showView('license-view');
  }

  // Adds a page of history (newest first) below the rows shown.
  function appendHistory(page) {
    const history = $('history');
    for (const r of page.items) {
      const row = document.createElement('tr');
      labelled(row, 'When', zoned(r.at));
      labelled(row, 'What', r.action.replace(/^license\./, '') + (r.refresh ? ' (again)' : '') +
                            (r.offline ? ' (offline)' : ''));
      labelled(row, 'Machine', r.machineId ? [user(r.machineId)] : '', 'mono');
      labelled(row, 'By', r.actor);
      history.appendChild(row);
    }
    olderCursor = page.nextCursor;
    show($('show-older'), olderCursor !== null);
    $('history-error').textContent = '';
  }

  async function showOlder() {
    const res = await call('GET', '/dashboard/api/audit?cursor=' + encodeURIComponent(olderCursor));
    if (!res) return unreachable(async () => { await load(); await showOlder(); });
    if (res.status === 401) return signedOut('Your session ended. Sign in again.');
    const body = await json(res);
    if (!res.ok) {
      $('history-error').textContent = customerText(res, body, 'Could not load older history.');
      return;
    }
    appendHistory(body);
  }

  async function load() {
    const res = await call('GET', '/dashboard/api/license');
    if (!res) return unreachable(load);
    if (res.status === 401) return signedOut();
    const body = await json(res);
    if (!res.ok) return signedOut(customerText(res, body, 'Something went wrong. Try again.'));
    render(body);
  }

  async function deactivate(machine, row, button) {
    if (pending.has(machine.handle)) return;  // a second click sends nothing
    if (!await confirmDialog('Deactivate this machine?',
                             ['The slot used by ', ...machineLabel(machine), ' is freed. The ' +
                              'plugin on that machine stops working until it is activated ' +
                              'again.'],
                             'Deactivate')) {
      return;
    }
    if (pending.has(machine.handle)) return;
    pending.add(machine.handle);
    row.classList.add('pending');
    row.setAttribute('aria-busy', 'true');
    button.disabled = true;
    button.textContent = 'Deactivating\u2026';
    button.setAttribute('aria-label', 'Deactivating ' + (machine.name || machine.machineId));
    $('error').textContent = '';
    $('notice').textContent = 'Deactivating ' + (machine.name || machine.machineId) + '\u2026';
    await sendDeactivation(machine);
  }

  async function sendDeactivation(machine) {
    const res = await call('POST', '/dashboard/api/free-slot', { machine: machine.handle });
    pending.delete(machine.handle);
    if (!res) return unreachable(load);
    const body = await json(res);
    if (res.status === 401) return signedOut('Your session ended. Sign in again.');
    // Told once the list shows it, so the notice never describes a list not yet redrawn.
    const wasRefused = refused !== null;
    if (res.ok) refused = null;
    await load();
    if (!res.ok) {
      showError(customerText(res, body, 'The machine could not be deactivated. Try again.'));
      return;
    }
    $('error').textContent = '';
    setParts($('notice'), ['Deactivated ', ...machineLabel(machine), '. The slot is free: ' +
                           (wasRefused ? 'now activate again in your plugin.'
                                       : 'a machine can be activated in its place.')]);
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
    if (!res) {
      error.textContent = 'The license server could not be reached. Check your connection ' +
                          'and press the button again.';
      return;
    }
    if (res.status === 401) return signedOut('Your session ended. Sign in again.');
    const body = await json(res);
    if (!res.ok) {
      error.textContent = customerText(res, body, fallback);
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
      setParts($('offline-result-text'), [
        'Activated ', user(body.machine.name || body.machine.machineId), ' until ' +
        zoned(body.expiresAt) + '. activation.lic was downloaded: copy it to that computer ' +
        'and install it in the plugin.']);
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

  // #signin=<token>: a refused activation's one-time link. Out of the address before
  // anything else, so it is neither kept in the history nor shared by a copied address.
  function linkFromAddress() {
    const prefix = '#signin=';
    if (!location.hash.startsWith(prefix)) return null;
    const token = location.hash.slice(prefix.length);
    history.replaceState(null, '', location.pathname + location.search);
    return token;
  }

  async function signInWithLink(token) {
    const res = await call('POST', '/dashboard/api/session', { link: token });
    if (!res) return unreachable(() => signInWithLink(token));
    const body = await json(res);
    if (!res.ok) {
      return signedOut(res.status === 401
          ? 'This sign-in link was used already or is more than 10 minutes old. Sign in with ' +
            'your license key instead.'
          : customerText(res, body, 'Sign-in failed. Try again.'));
    }
    csrfToken = body.csrfToken;
    refused = body.refused || null;
    await load();
    $('license-title').focus();
  }

  // A key as people paste it (docs/dashboard.md): whitespace and quotes anywhere dropped,
  // typographic dashes read as '-', lower case. The server does the same again.
  function normalizeKey(text) {
    return text.replace(/[\s\u00a0\u2007\u202f\u200b-\u200d\u2060\ufeff\u3000"'`<>\u201c-\u201e\u2018-\u201a\u00ab\u00bb\u2039\u203a]/g, '')
               .replace(/[\u2010-\u2014\u2212]/g, '-')
               .replace(/[A-Z]/g, (c) => c.toLowerCase());
  }

  async function signInWithKey() {
    $('sign-in-error').textContent = '';
    const key = normalizeKey($('license-key').value);
    if (!key) {
      $('sign-in-error').textContent = 'Enter the license key from your purchase email.';
      return $('license-key').focus();
    }
    const res = await call('POST', '/dashboard/api/session', { licenseKey: key });
    if (!res) {
      $('sign-in-error').textContent = 'The license server could not be reached. Check your ' +
                                       'internet connection, then press Sign in again.';
      return;
    }
    const body = await json(res);
    if (!res.ok) {
      $('sign-in-error').textContent =
          res.status === 401 ? 'That license key is not known. Check it against your purchase ' +
                               'email; it looks like xxxxxxxx-xxxx-4xxx-xxxx-xxxxxxxxxxxx.'
                             : customerText(res, body, 'Sign-in failed. Try again.');
      return;
    }
    $('license-key').value = '';
    csrfToken = body.csrfToken;
    refused = null;
    await load();
    $('license-title').focus();
  }

  $('sign-in-form').addEventListener('submit', (e) => {
    e.preventDefault();
    signInWithKey();
  });

  $('show-older').addEventListener('click', showOlder);

  $('retry').addEventListener('click', () => {
    const step = retryStep || load;
    retryStep = null;
    showView('loading-view');
    step();
  });

  $('sign-out').addEventListener('click', async () => {
    await call('DELETE', '/dashboard/api/session');
    signedOut();
  });

  $('notice').tabIndex = -1;
  $('license-title').tabIndex = -1;
  brand();
  requestFromAddress();
  const link = linkFromAddress();
  if (link) signInWithLink(link); else load();
})();
