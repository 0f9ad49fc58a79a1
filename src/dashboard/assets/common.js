'use strict';
// Shared by the dashboard's pages. Everything is written with textContent, never as
// HTML, so nothing from the server can become markup or script.

window.dash = (() => {
  const $ = (id) => document.getElementById(id);

  function when(iso) {
    if (!iso) return 'never';
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  }

  function cell(row, text, className) {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }

  // A machine's row: name, id (as given: masked for customers), first and last seen.
  // An offline machine never heartbeats: its file's end is what matters, so that end
  // takes the last-seen column (docs/offline.md).
  function machineRow(machine, id) {
    const row = document.createElement('tr');
    cell(row, machine.name || '(unnamed)');
    cell(row, id, 'mono');
    cell(row, when(machine.activatedAt));
    cell(row, machine.offline ? offlineText(machine)
                              : when(machine.lastSeenAt) + (machine.stale ? ' (inactive)' : ''));
    return row;
  }

  // "offline until <end>", or, once its deactivation file came with offlineRelease
  // "expiry", that the slot stays counted until that end.
  function offlineText(machine) {
    return machine.deactivatedAt ? 'deactivated; slot counted until ' + when(machine.offlineUntil)
                                 : 'offline until ' + when(machine.offlineUntil);
  }

  // A small button in its own cell of `row`; `label` is what a screen reader announces.
  function rowButton(row, text, label, className, onClick) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = className;
    button.textContent = text;
    button.setAttribute('aria-label', label);
    button.addEventListener('click', onClick);
    cell(row, '').appendChild(button);
    return button;
  }

  function show(el, visible) { el.hidden = !visible; }

  function badge(el, status) {
    el.textContent = status;
    el.className = 'badge badge-' + String(status).toLowerCase();
  }

  // The confirmation dialog, made once per page: a title, a text, Cancel and the action.
  function confirmElement() {
    let dialog = $('confirm');
    if (dialog) return dialog;
    dialog = document.createElement('dialog');
    dialog.id = 'confirm';
    dialog.setAttribute('aria-labelledby', 'confirm-title');
    dialog.setAttribute('aria-describedby', 'confirm-text');
    const title = document.createElement('h2');
    title.id = 'confirm-title';
    const text = document.createElement('p');
    text.id = 'confirm-text';
    const actions = document.createElement('div');
    actions.className = 'actions';
    for (const [id, label, className] of [['confirm-cancel', 'Cancel', 'quiet'],
                                          ['confirm-ok', '', 'danger']]) {
      const b = document.createElement('button');
      b.type = 'button';
      b.id = id;
      b.className = className;
      b.textContent = label;
      actions.appendChild(b);
    }
    dialog.append(title, text, actions);
    document.body.appendChild(dialog);
    return dialog;
  }

  // Asks in a modal <dialog> (Esc cancels, focus starts on Cancel and stays inside);
  // resolves true when `action` is chosen.
  function confirmDialog(title, text, action) {
    const dialog = confirmElement();
    $('confirm-title').textContent = title;
    setParts($('confirm-text'), text);  // a string, or parts with user text in <bdi>
    $('confirm-ok').textContent = action;
    return new Promise((resolve) => {
      const done = (answer) => {
        $('confirm-ok').removeEventListener('click', ok);
        $('confirm-cancel').removeEventListener('click', cancel);
        dialog.removeEventListener('cancel', cancel);
        if (dialog.open) dialog.close();
        resolve(answer);
      };
      const ok = () => done(true);
      const cancel = (e) => { if (e) e.preventDefault(); done(false); };
      $('confirm-ok').addEventListener('click', ok);
      $('confirm-cancel').addEventListener('click', cancel);
      dialog.addEventListener('cancel', cancel);
      dialog.showModal();
      $('confirm-cancel').focus();
    });
  }

  async function json(res) {
    try { return await res.json(); } catch { return {}; }
  }

  function message(body, fallback) {
    return (body && body.message) ? body.message : fallback;
  }

  // ---- Added for the customer page (issue 23); usable by any page. ----

  // Text a user wrote (a machine's name or id) as a <bdi>: isolated for bidirectional
  // text, so a right-to-left override inside it cannot reorder the words around it.
  function user(text) {
    const bdi = document.createElement('bdi');
    bdi.textContent = text;
    return bdi;
  }

  // Replaces `el`'s content with `parts`: a string, or an array of strings and nodes
  // (user(...) for text from users). Still never HTML.
  function setParts(el, parts) {
    el.replaceChildren(...(Array.isArray(parts) ? parts : [String(parts)]));
  }

  // A date and time with its time zone ("Nov 21, 2026, 9:30 AM UTC"), so a customer
  // comparing times with support or a plugin's log knows which clock they are on.
  function zoned(iso) {
    if (!iso) return 'never';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return iso;
    // (dateStyle and timeStyle cannot be combined with timeZoneName.)
    return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric',
                                         hour: 'numeric', minute: '2-digit',
                                         timeZoneName: 'short' });
  }

  // The vendor's name, logo and support link (--dashboard-brand), from
  // /dashboard/api/brand, into #brand-name, #brand-logo and #support-link where the page
  // has them. Without a brand, or when it cannot be read, the page keeps its defaults.
  async function brand() {
    let b = null;
    try {
      const res = await fetch('/dashboard/api/brand', { headers: { 'Accept': 'application/json' } });
      if (res.ok) b = await res.json();
    } catch { return; }
    if (!b) return;
    if (b.name && $('brand-name')) {
      $('brand-name').textContent = b.name;
      document.title = document.title + ' \u2013 ' + b.name;
    }
    if (b.logo && $('brand-logo')) {
      $('brand-logo').src = b.logo;
      show($('brand-logo'), true);
    }
    if (b.support && $('support-link')) {
      $('support-link').href = b.support;
      show($('support-link'), true);
    }
  }

  return { $, when, cell, machineRow, rowButton, show, badge, confirmDialog, json, message,
           user, setParts, zoned, brand };
})();
