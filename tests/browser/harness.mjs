// What every browser test file shares: Debian's chromium, driven by playwright-core,
// against the real licensed binary (started on port 0, its address read from the ready
// line), with licenses made by `licensed admin`. A test file calls useServer() once at
// its top; the bindings below (base, dir, store) are live and set by then.
// LICENSED_BINARY names the binary, LICENSECTL_BINARY licensectl (flows that need it are
// skipped without it); LICENSED_SCREENSHOT_DIR, when set, receives the screenshots
// docs/ shows. expectNoSeriousAxeViolations(page, label) runs axe-core (npm, from the lock
// file) on the page as it stands and fails on any violation of impact serious or critical.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const binary = process.env.LICENSED_BINARY;
assert.ok(binary, 'set LICENSED_BINARY to the licensed binary');
export const licensectlBinary = process.env.LICENSECTL_BINARY;
export const shots = process.env.LICENSED_SCREENSHOT_DIR;
export const KEY_ID = 'browser-test';
export const SECRET = randomBytes(24).toString('hex');
export const DASHBOARD_URL = 'http://licenses.example.test/dashboard';

export let dir, store, server, base, browser;

// licensed refuses LICENSED_* variables it does not know (docs/configuration.md); the
// harness's own (LICENSED_BINARY, LICENSED_SCREENSHOT_DIR) are not for it.
const licensedEnv = Object.fromEntries(Object.entries(process.env)
                                           .filter(([name]) => !name.startsWith('LICENSED_')));

export function admin(...args) {
  return execFileSync(binary, ['admin', '--store', store, ...args],
                      { encoding: 'utf8', env: licensedEnv });
}
export const adminJson = (...args) => JSON.parse(admin(...args, '--json'));

export function startServer() {
  return new Promise((resolve, reject) => {
    server = spawn(binary, ['serve', '--store', store, '--listen', '127.0.0.1:0',
                            '--admin-listen', 'off', '--signing-key', `${KEY_ID}=${SECRET}`,
                            '--dashboard-url', DASHBOARD_URL],
                   { stdio: ['ignore', 'pipe', 'pipe'], env: licensedEnv });
    let log = '';
    const onData = (chunk) => {
      log += chunk;
      const m = /licensed ready: listening on (\d+\.\d+\.\d+\.\d+:\d+)/.exec(log);
      if (m) resolve(`http://${m[1]}`);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`licensed exited (${code}):\n${log}`)));
  });
}

// A License API request signed as a plugin signs it (docs/protocol.md §3).
export async function licenseApi(endpoint, body) {
  const path = `/api/v1/license/${endpoint}`;
  const text = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const hash = createHash('sha256').update(text).digest('hex');
  const sig = createHmac('sha256', SECRET)
                  .update(['v1', 'POST', path, KEY_ID, ts, nonce, hash].join('\n'))
                  .digest('hex');
  const res = await fetch(base + path, {
    method: 'POST', body: text,
    headers: { 'Content-Type': 'application/json', 'X-License-Key-Id': KEY_ID,
               'X-License-Timestamp': ts, 'X-License-Nonce': nonce,
               'X-License-Signature': `v1=${sig}` },
  });
  return { status: res.status, body: await res.json() };
}

export function newLicense(max) {
  return adminJson('license', 'create', '--product', 'reverb', '--max', String(max)).licenseKey;
}

export async function newPage() {
  const context = await browser.newContext();
  return context.newPage();
}

export async function signIn(page, key) {
  await page.goto(base + '/dashboard');
  await page.getByLabel('License key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

// licensectl on a machine of its own: its own machine id and per-user directories, so
// nothing it writes or reads is this computer's. Returns { status, stdout, stderr }.
export function licensectl(machineDir, args) {
  mkdirSync(machineDir, { recursive: true });
  try {
    const stdout = execFileSync(licensectlBinary, ['--key-id', KEY_ID, ...args], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LICENSE_SECRET: SECRET, XDG_CACHE_HOME: join(machineDir, 'cache'),
             XDG_DATA_HOME: join(machineDir, 'data'), XDG_CONFIG_HOME: join(machineDir, 'config') },
    });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    return { status: e.status, stdout: String(e.stdout), stderr: String(e.stderr) };
  }
}

// The server's Ed25519 response key, as a plugin pins it.
export async function responseKey() {
  const res = await fetch(base + '/api/v1/license/public-keys');
  const keys = (await res.json()).keys;
  return keys.find((k) => k.alg === 'Ed25519').publicKey;
}

// Store changes the admin CLI does not make yet (offlineRelease), as the server's tests do.
export function storeSql(sql) {
  execFileSync('sqlite3', [join(dir, 'licensed.db'), sql]);
}

// axe-core's script, read once; injected into each page checked (the pages' CSP does not
// apply to scripts Playwright evaluates).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// Runs axe-core on `page` as it stands (WCAG 2.x A and AA rules and axe's best practices)
// and fails, naming `label` (the state checked), on any violation of impact serious or
// critical, listing each with the elements it found.
export async function expectNoSeriousAxeViolations(page, label) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) {
    await page.evaluate(axeSource);
  }
  const results = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  }));
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const described = serious.map((v) => `${v.impact} ${v.id}: ${v.help}\n` +
      v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary}`).join('\n'));
  assert.deepEqual(described, [], `axe found serious violations in "${label}":\n` +
                   described.join('\n'));
}

export async function screenshot(page, name) {
  if (shots) await page.screenshot({ path: join(shots, name), fullPage: true });
}

// Registers the file's before and after hooks: a fresh store with the product `reverb`, the
// server on it, chromium.
export function useServer() {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'licensed-browser-'));
    store = `sqlite:${join(dir, 'licensed.db')}`;
    execFileSync(binary, ['init', '--store', store], { encoding: 'utf8', env: licensedEnv });
    admin('product', 'create', '--slug', 'reverb', '--name', 'Reverb Pro');
    base = await startServer();
    // launch() gives chromium a fresh temporary --user-data-dir of its own.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    if (browser) await browser.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
