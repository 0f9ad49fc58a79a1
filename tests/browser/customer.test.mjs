// Browser tests of the customer dashboard on a phone and in each of its states (issue 23):
// machines as cards at 390 x 844, keys as people paste them, the one-time sign-in link of
// a 1705, pending and failed changes, bidirectional text, dark mode, security headers.
// Each state is checked with axe-core (harness.mjs), which fails on any serious or
// critical violation. harness.mjs starts the server and chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  adminJson, base, browser, expectNoSeriousAxeViolations, licenseApi, licensectl,
  licensectlBinary, dir, newLicense, newPage, screenshot, signIn, useServer,
} from './harness.mjs';
import { join } from 'node:path';

useServer();

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

// A license of `max` machines, all in use, and the 1705 of one more: its answer's body.
async function fullLicense(max, refusedId, refusedName) {
  const key = newLicense(max);
  for (let i = 0; i < max; i++) {
    const r = await licenseApi('activate', { licenseKey: key, machineId: `machine-${i}-0123456789`,
                                             machineName: `Machine ${i}` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const refused = await licenseApi('activate', { licenseKey: key, machineId: refusedId,
                                                 machineName: refusedName });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 1705);
  return { key, refused: refused.body };
}

// Whether `box` lies within a 390 px wide viewport.
function fitsThePhone(box) {
  return box !== null && box.x >= 0 && box.x + box.width <= 390;
}

test('on a 390 x 844 phone, a refused activation\'s link opens the dashboard signed in, ' +
     'suggests the machine seen least recently, and real taps free it', async () => {
  const { key, refused } = await fullLicense(2, 'ci-runner-7f3a9c21', 'CI runner');
  // Machine 1 was seen just now; machine 0 is the one to suggest.
  await licenseApi('heartbeat', { licenseKey: key, machineId: 'machine-1-0123456789' });
  const url = new URL(refused.dashboardUrl);
  assert.equal(url.pathname, '/dashboard');
  assert.match(url.hash, /^#signin=[A-Za-z0-9_-]{43}$/, 'a one-time token, not the key');
  assert.ok(!refused.dashboardUrl.includes(key));

  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  await page.goto(base + url.pathname + url.hash);
  const banner = page.locator('#refused');
  await banner.waitFor();
  assert.equal(new URL(page.url()).hash, '', 'the token leaves the address at once');
  assert.match(await banner.textContent(), /CI runner \(ci-r\u20269c21\) could not be activated/);
  assert.match(await banner.textContent(), /Now activate again in your plugin/);
  const suggested = page.locator('#machines tr.suggested');
  assert.equal(await suggested.count(), 1);
  assert.match(await suggested.textContent(), /Machine 0/);
  await expectNoSeriousAxeViolations(page, 'phone, signed in from a link');
  await screenshot(page, 'dashboard-phone-link.png');

  // Cards: nothing scrolls sideways, every Deactivate button is on screen.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width}px wide`);
  const button = suggested.getByRole('button', { name: 'Deactivate Machine 0' });
  await button.scrollIntoViewIfNeeded();
  assert.ok(fitsThePhone(await button.boundingBox()), 'the Deactivate button is on screen');
  await button.tap();
  const dialog = page.locator('dialog#confirm');
  await dialog.waitFor({ state: 'visible' });
  assert.ok(fitsThePhone(await dialog.boundingBox()), 'the dialog fits the phone');
  const confirm = page.locator('#confirm-ok');
  assert.ok(fitsThePhone(await confirm.boundingBox()), 'the confirm button is on screen');
  await expectNoSeriousAxeViolations(page, 'phone, confirmation dialog');
  await screenshot(page, 'dashboard-phone-confirm.png');
  await confirm.tap();
  await page.locator('#notice', { hasText: 'now activate again in your plugin' }).waitFor();
  assert.equal(await page.locator('#usage').textContent(), '1 of 2 in use');
  assert.ok(await banner.isHidden());

  const again = await licenseApi('activate', { licenseKey: key, machineId: 'ci-runner-7f3a9c21' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const freed = adminJson('audit', key).filter((r) => r.action === 'license.deactivate');
  assert.equal(freed.length, 1);
  assert.equal(freed[0].machineId, 'machine-0-0123456789');
  assert.equal(freed[0].actor, 'customer');

  // The link signs in once: opened again (another browser), it is refused.
  const other = await browser.newContext(PHONE);
  const second = await other.newPage();
  await second.goto(base + url.pathname + url.hash);
  await second.locator('#sign-in-error', { hasText: 'used already' }).waitFor();
  assert.deepEqual(await other.cookies(), []);
  await expectNoSeriousAxeViolations(second, 'phone, spent link');
  await other.close();
  await context.close();
});

test('keys pasted with spaces, line breaks, quotes and in upper case sign in', async () => {
  const key = newLicense(1);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + '/dashboard');
  const field = page.getByLabel('License key');
  assert.equal(await field.getAttribute('maxlength'), null, 'nothing cuts a pasted key');
  for (const pasted of [' ' + key, `"${key}"\n`, `\u201c${key.toUpperCase()}\u201d`,
                        `  '${key.slice(0, 19)}\n${key.slice(19)}'  `]) {
    await page.goto(base + '/dashboard');
    await page.evaluate((text) => {
      // A paste, as a browser delivers it: the text goes into the field whole.
      const input = document.getElementById('license-key');
      input.value = text;
    }, pasted);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#usage').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await field.waitFor();
  }
  // The server cleans a key up too, for a client without the page's script.
  const res = await fetch(base + '/dashboard/api/session', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ licenseKey: `\t\u00ab ${key.toUpperCase()} \u00bb\r\n` }),
  });
  assert.equal(res.status, 200, await res.text());
  await context.close();
});

test('a machine being freed is busy, a second click sends nothing, and a refusal is red ' +
     'in a customer\'s words', async () => {
  const key = newLicense(2);
  await licenseApi('activate', { licenseKey: key, machineId: 'studio-0123456789', machineName: 'Studio' });
  await licenseApi('activate', { licenseKey: key, machineId: 'laptop-0123456789', machineName: 'Laptop' });
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, key);
  await page.locator('#machines tr').first().waitFor();

  // Hold the free-slot request until the test lets it go, counting what is sent.
  let sent = 0;
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/dashboard/api/free-slot', async (route) => {
    sent += 1;
    await held;
    await route.continue();
  });
  const row = page.locator('#machines tr', { hasText: 'Laptop' });
  const button = row.getByRole('button');
  await button.click();
  await page.locator('#confirm-ok').click();
  await page.locator('#machines tr.pending').waitFor();
  assert.equal(await row.getAttribute('aria-busy'), 'true');
  assert.ok(await button.isDisabled());
  assert.equal(await button.textContent(), 'Deactivating\u2026');
  assert.equal(await button.getAttribute('aria-label'), 'Deactivating Laptop');
  await button.click({ force: true });  // disabled: the click lands on nothing
  await expectNoSeriousAxeViolations(page, 'deactivation pending');
  await screenshot(page, 'dashboard-pending.png');
  release();
  await page.locator('#notice', { hasText: 'The slot is free' }).waitFor();
  assert.equal(sent, 1, 'one request for one machine');
  await page.unroute('**/dashboard/api/free-slot');

  // Freed meanwhile elsewhere (support): the refusal is red, role=alert, the customer's words.
  const studioButton = page.getByRole('button', { name: 'Deactivate Studio' });
  await licenseApi('deactivate', { licenseKey: key, machineId: 'studio-0123456789' });
  await studioButton.click();
  await page.locator('#confirm-ok').click();
  const error = page.locator('#error');
  await error.filter({ hasText: /./ }).waitFor();
  assert.equal(await error.getAttribute('role'), 'alert');
  const said = await error.textContent();
  assert.equal(said, 'That machine is no longer activated on this license.');
  assert.doesNotMatch(said, /call activate/i);
  const color = await error.evaluate((el) => getComputedStyle(el).color);
  assert.equal(color, 'rgb(179, 38, 30)', 'red (--danger)');
  await expectNoSeriousAxeViolations(page, 'refusal shown');
  await context.close();
});

test('while the session is checked the page says so; without a network it says so and ' +
     'retries', async () => {
  const key = newLicense(1);
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, key);
  await page.locator('#usage').waitFor();

  // The session check held: a neutral loading view, no sign-in form.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/dashboard/api/license', async (route) => { await held; await route.continue(); });
  await page.reload();
  await page.locator('#loading-view').waitFor();
  assert.ok(await page.locator('#sign-in-view').isHidden());
  assert.match(await page.locator('#loading-view').textContent(), /Checking your\s+session/);
  await expectNoSeriousAxeViolations(page, 'checking the session');
  await screenshot(page, 'dashboard-loading.png');
  release();
  await page.locator('#usage').waitFor();
  await page.unroute('**/dashboard/api/license');

  // The network gone: said so, with Try again, which works once it is back.
  await page.route('**/dashboard/api/license', (route) => route.abort('internetdisconnected'));
  await page.reload();
  await page.locator('#network-view').waitFor();
  assert.match(await page.locator('#network-error').textContent(), /could not be reached/);
  assert.equal(await page.locator('#network-error').getAttribute('role'), 'alert');
  await expectNoSeriousAxeViolations(page, 'no connection');
  await screenshot(page, 'dashboard-offline.png');
  await page.unroute('**/dashboard/api/license');
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.locator('#usage').waitFor();
  await context.close();
});

test('a machine id with U+202E cannot reverse the confirmation sentence, and names are ' +
     'isolated for bidirectional text', async () => {
  const key = newLicense(1);
  // Masked ids keep their first 4 code points: the override is one of them.
  const evil = '\u202eevil.exe-0123456789';
  const r = await licenseApi('activate', { licenseKey: key, machineId: evil, machineName: '\u202eTXT' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, key);
  await page.locator('#machines tr').first().waitFor();
  // Every user text in the row is in a <bdi>.
  assert.equal(await page.locator('#machines tr bdi').count(), 2);
  await page.locator('#machines button').click();
  const text = page.locator('#confirm-text');
  await text.waitFor();
  const structure = await text.evaluate((p) => [...p.childNodes].map(
      (n) => n.nodeType === 3 ? { text: n.textContent } : { bdi: n.textContent, tag: n.tagName }));
  assert.equal(structure[0].text, 'The slot used by ');
  assert.equal(structure[1].tag, 'BDI');
  assert.equal(structure[1].bdi, '\u202eTXT');
  assert.equal(structure[3].bdi, '\u202eevi\u20266789');
  assert.match(structure.at(-1).text, /is freed\. The plugin on that machine stops working/);
  // Rendered, the words after the id still run left to right, after it.
  const boxes = await text.evaluate((p) => {
    const bdi = p.querySelectorAll('bdi')[1];
    const range = document.createRange();
    range.selectNodeContents(p.lastChild);
    return { id: bdi.getBoundingClientRect().right, after: range.getClientRects()[0].left };
  });
  assert.ok(boxes.after >= boxes.id - 1, JSON.stringify(boxes));
  await screenshot(page, 'dashboard-bidi.png');
  await page.keyboard.press('Escape');
  await context.close();
});

test('on a phone, a license with a seat cap shows who holds each seat until when, masked, ' +
     'read-only, and never a seat that has ended', async () => {
  const key = adminJson('license', 'create', '--product', 'reverb', '--max', '3',
                        '--max-concurrent', '3', '--max-borrow', '1h').licenseKey;
  const studio = 'studio-pc-7f3a9c21e5d0';
  const render = 'render-node-0b91d2c4';
  const laptop = 'tour-laptop-5e6f7a8b';
  for (const [machineId, machineName] of [[studio, 'Studio PC'], [render, undefined],
                                          [laptop, 'Tour laptop']]) {
    const r = await licenseApi('activate', { licenseKey: key, machineId, machineName });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const held = await licenseApi('checkout', { licenseKey: key, machineId: studio });
  assert.equal(held.status, 200, JSON.stringify(held.body));
  const borrowed = await licenseApi('checkout', { licenseKey: key, machineId: render,
                                                  sessionId: 'render-borrow-1', borrowFor: '1h' });
  assert.equal(borrowed.status, 200, JSON.stringify(borrowed.body));
  // Borrowed for 2 s: it has ended by the time the customer looks.
  const ended = await licenseApi('checkout', { licenseKey: key, machineId: laptop,
                                               sessionId: 'laptop-session-9', borrowFor: '2s' });
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  assert.equal(ended.body.leases, 3);
  await new Promise((resolve) => setTimeout(resolve, 2500));

  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  await signIn(page, key);
  const rows = page.locator('#seats-list tr');
  await rows.first().waitFor();
  assert.equal(await page.locator('#seats-usage').textContent(), '2 of 3 seats in use');
  assert.equal(await rows.count(), 2, 'the ended seat is not shown');
  const zoned = (iso) => page.evaluate((t) => new Date(t).toLocaleString(undefined, {
    year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit',
    timeZoneName: 'short' }), iso);
  const cells = async (i) => rows.nth(i).locator('td').allTextContents();
  // Earliest end first. A named machine by its name; an unnamed one by its masked id; the
  // default session (the machine id) masked too.
  assert.deepEqual(await cells(0), ['Studio PC', 'stud\u2026e5d0',
                                    await zoned(held.body.lease.expiresAt), 'no']);
  assert.deepEqual(await cells(1), ['rend\u2026d2c4', 'render-borrow-1',
                                    await zoned(borrowed.body.lease.expiresAt), 'yes (offline)']);
  const content = await page.content();
  for (const hidden of [studio, render, laptop, 'laptop-session-9']) {
    assert.ok(!content.includes(hidden), hidden);
  }
  assert.ok(!(await page.locator('#seats-list').textContent()).includes('Tour laptop'));
  assert.equal(await page.locator('#seats').getByRole('button').count(), 0, 'read-only');

  // As cards: nothing scrolls sideways.
  await page.locator('#seats').scrollIntoViewIfNeeded();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width}px wide`);
  await expectNoSeriousAxeViolations(page, 'phone, seats');
  await screenshot(page, 'dashboard-phone-seats.png');
  await context.close();
});

test('a license without a seat cap shows no seats', async () => {
  const key = newLicense(1);
  const page = await newPage();
  await signIn(page, key);
  await page.locator('#usage').waitFor();
  assert.ok(await page.locator('#seats').isHidden());
  assert.ok(await page.locator('#seats-fact').isHidden());
  await page.context().close();
});

test('dark mode keeps the contrast; times show their time zone', async () => {
  const key = newLicense(1);
  await licenseApi('activate', { licenseKey: key, machineId: 'studio-0123456789', machineName: 'Studio' });
  const context = await browser.newContext({ colorScheme: 'dark', timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  await page.goto(base + '/dashboard');
  await page.getByLabel('License key').waitFor();
  await expectNoSeriousAxeViolations(page, 'sign-in, dark');
  await signIn(page, key);
  await page.locator('#machines tr').first().waitFor();
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, 'rgb(21, 24, 29)');
  const lastSeen = await page.locator('#machines td[data-label="Last seen"]').textContent();
  assert.match(lastSeen, /GMT\+1|GMT\+2|CET|CEST/, lastSeen);
  await expectNoSeriousAxeViolations(page, 'signed in, dark');
  await screenshot(page, 'dashboard-dark.png');
  await context.close();
});

test('every answer under /dashboard carries the security headers, errors included', async () => {
  const paths = [['GET', '/dashboard'], ['GET', '/dashboard/assets/app.css'],
                 ['GET', '/dashboard/nothing-here'], ['PUT', '/dashboard/api/license'],
                 ['GET', '/dashboard/api/license'], ['GET', '/dashboard/api/brand'],
                 ['POST', '/dashboard/api/session']];
  for (const [method, path] of paths) {
    const res = await fetch(base + path, { method, headers: { 'Content-Type': 'text/plain' } });
    const where = `${method} ${path} (${res.status})`;
    assert.match(res.headers.get('content-security-policy') || '', /default-src 'self'/, where);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', where);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', where);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', where);
    assert.ok(res.headers.get('cache-control'), where);
  }
});

test('licensectl shows the 1705\'s sign-in link', { skip: !licensectlBinary && 'LICENSECTL_BINARY is not set' },
     async () => {
  const key = newLicense(0);
  const machine = join(dir, 'ctl-machine');
  const out = licensectl(machine, ['--url', base, '--license-key', key, '--machine-id',
                                   'ctl-machine-0123456789', 'activate']);
  assert.equal(out.status, 4, out.stderr);
  assert.match(out.stdout + out.stderr, /free a slot at http:\/\/licenses\.example\.test\/dashboard#signin=[A-Za-z0-9_-]{43}/);
});
