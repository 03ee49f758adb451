// pbdiff tests — the HTML report in Debian's chromium (run.sh makes the
// pages in WORKDIR): each check opens a page from disk (file://) and says
// `ok NAME` or `not ok NAME: why`; the last line is `browser: N passed,
// M failed`.  Usage: node report.mjs WORKDIR ROOT NPM_PREFIX
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [work, root, npm] = process.argv.slice(2);
const require = createRequire(path.join(npm, 'package.json'));
const { chromium } = require('playwright-core');

const kArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const requests = []; // every request any page made
let passed = 0, failed = 0;

// A browser of its own, with a fresh profile (options: javaScriptEnabled...).
async function browser(options = {}) {
  const profile = fs.mkdtempSync(path.join(work, 'profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: kArgs,
    viewport: { width: 1100, height: 800 }, ...options });
  context.on('request', (r) => requests.push(r.url()));
  // anything but the page itself is refused, and counted above
  await context.route('**/*', (route) =>
    route.request().url().startsWith('file://') ? route.continue() : route.abort());
  return context;
}

async function open(context, file) {
  const page = context.pages()[0] || await context.newPage();
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.goto('file://' + path.join(work, file), { waitUntil: 'load', timeout: 60000 });
  page.dialogs = dialogs;
  return page;
}

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log('ok ' + name);
  } catch (e) {
    failed++;
    console.log('not ok ' + name + ': ' + (e && e.message ? e.message : e));
  }
}

const focused = (page) => page.evaluate(() => document.activeElement && document.activeElement.id);
const boxIds = (page) => page.$$eval('.d', (els) => els.map((e) => e.id));
const lines = (file) => fs.readFileSync(path.join(work, file), 'utf8').split('\n').filter(Boolean);

const js = await browser();
const nojs = await browser({ javaScriptEnabled: false });

await check('n and p move the focus to the next and previous difference', async () => {
  const page = await open(js, 'kinds.html');
  const ids = await boxIds(page);
  assert.equal(ids.length, 7);
  await page.keyboard.press('n');
  assert.equal(await focused(page), ids[0]);
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  assert.equal(await focused(page), ids[2]);
  await page.keyboard.press('p');
  assert.equal(await focused(page), ids[1]);
  assert.equal(await page.textContent('#pos'), '2 / 7');
  assert.equal(await page.textContent('#where'), 'u32');
  await page.click('#next');
  assert.equal(await focused(page), ids[2]);
  await page.click('#prev');
  assert.equal(await focused(page), ids[1]);
  // a difference inside folded branches: n opens them
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = false; }));
  assert.equal(await page.isVisible('#' + ids[2]), false);
  await page.keyboard.press('n');
  assert.equal(await focused(page), ids[2]);
  assert.equal(await page.isVisible('#' + ids[2]), true);
  // the last one stays the last
  for (let i = 0; i < 10; i++) await page.keyboard.press('n');
  assert.equal(await focused(page), ids[6]);
});

await check('unchanged siblings are folded into counts, branches show path and type', async () => {
  const page = await open(js, 'kinds.html');
  const folds = await page.$$eval('.fold', (els) => els.map((e) => e.textContent));
  assert.deepEqual(folds, ['... 3 unchanged fields', '... 1 unchanged field',
                           '... 1 unchanged entry', '... 1 unchanged field']);
  const branches = await page.$$eval('details.b > summary', (els) => els.map((e) => e.textContent));
  assert.ok(branches.includes('inner.child sem3.Inner'), branches.join('|'));
  assert.ok(branches.includes('ms map<string, int32> (2 in LEFT, 2 in RIGHT)'), branches.join('|'));
  // a path is selected whole by one click, to copy
  await page.click('#d1 .path');
  assert.equal(await page.evaluate(() => String(window.getSelection())), 'u32');
});

await check('without JavaScript every difference is shown, in open <details>', async () => {
  const page = await open(nojs, 'kinds.html');
  const ids = await boxIds(page);
  assert.equal(ids.length, 7);
  for (const id of ids) assert.ok(await page.isVisible('#' + id), id + ' hidden');
  assert.equal(await page.isVisible('#nav'), false); // the buttons need the script
  // folding still works: a click on a summary closes its branch
  await page.click('details.b > summary >> nth=0');
  assert.equal(await page.isVisible('#d2'), false);
});

// WCAG's contrast ratio of two computed colours ("rgb(r, g, b)").
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/\d+/g).slice(0, 3).map((x) => {
      const v = Number(x) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

await check('text is readable in light and dark mode (contrast 4.5:1 at least)', async () => {
  const page = await open(js, 'kinds.html');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    // each piece of text against the background it is drawn on
    const pairs = await page.evaluate(() => {
      const bg = (el) => {
        for (; el; el = el.parentElement) {
          const c = getComputedStyle(el).backgroundColor;
          if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
        }
        return 'rgb(255, 255, 255)';
      };
      const sel = ['body', 'h1', '.k', '.path', '.t', '.side', '.v', '.fold', '.none', 'a', '#nav button'];
      const out = [];
      for (const s of sel)
        for (const el of document.querySelectorAll(s))
          out.push([s, getComputedStyle(el).color, bg(el)]);
      return out;
    });
    assert.ok(pairs.length > 50, pairs.length + ' pieces of text');
    for (const [sel, fg, bg] of pairs)
      assert.ok(contrast(fg, bg) >= 4.5, `${scheme}: ${sel} ${fg} on ${bg}: ${contrast(fg, bg).toFixed(2)}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

await check('dark mode has colours of its own', async () => {
  const page = await open(js, 'kinds.html');
  const colours = () => page.evaluate(() => {
    const s = (sel, p) => getComputedStyle(document.querySelector(sel))[p];
    return [s('body', 'backgroundColor'), s('body', 'color'), s('.sbs > .l', 'backgroundColor'),
            s('.sbs > .r', 'backgroundColor')];
  });
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await colours();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours();
  assert.equal(light[0], 'rgb(255, 255, 255)');
  for (let i = 0; i < light.length; i++) assert.notEqual(light[i], dark[i], 'colour ' + i);
  await page.emulateMedia({ colorScheme: 'light' });
});

await check('markup in values and names stays text', async () => {
  const page = await open(js, 'inject.html');
  await page.waitForTimeout(300);
  assert.deepEqual(page.dialogs, []);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.$$eval('script', (s) => s.length), 1);
  assert.equal(await page.$$eval('img, svg', (s) => s.length), 0);
  const text = await page.textContent('main');
  assert.ok(text.includes('"</code></div><script>window.pwned=1;alert(1)</script>"'), text);
  assert.ok(text.includes('ms["\\"><img src=x onerror=alert(2)>"]'), text);
  assert.ok((await page.textContent('header')).includes('<script>alert(5)</script>'));
});

await check('a million differences: the first 2000 render, the rest are counted', async () => {
  const size = fs.statSync(path.join(work, 'big.html')).size;
  assert.ok(size < 9 * 1024 * 1024, size + ' bytes');
  const started = Date.now();
  const page = await open(js, 'big.html');
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 20, 'loaded in ' + seconds + ' s');
  assert.equal(await page.$$eval('.d', (els) => els.length), 2000);
  const more = await page.textContent('.more');
  assert.ok(more.replace(/\s/g, ' ').includes('998 000 more differences not shown'), more);
  assert.ok((await page.textContent('.kinds')).replace(/\s/g, ' ').includes('1 000 000 changed'));
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  assert.equal(await focused(page), 'd1');
  assert.equal(await page.textContent('#where'), 'ms["k1"]');
  console.log('# big.html: ' + size + ' bytes, loaded in ' + seconds + ' s');
});

// Every path the paths format lists is a difference on the page.
async function allPaths(file, pathsFile, dirs) {
  const page = await open(js, file);
  const shown = new Set(await page.$$eval('.d .dh .path', (els) => els.map((e) => e.textContent)));
  const sections = await page.$$eval('section.file h2 .path', (els) => els.map((e) => e.textContent));
  let n = 0;
  for (const line of lines(pathsFile)) {
    let rest = line;
    if (dirs) {
      const [rel, what] = line.split('\t');
      if (what === 'only-left' || what === 'only-right') continue;
      assert.ok(sections.includes(rel), 'no section for ' + rel);
      rest = what;
    }
    const p = rest.slice(rest.indexOf(' ') + 1);
    // a long numeric field's elements are summed up in one box for the field
    const field = p.replace(/\[\d+\]$/, '');
    assert.ok(shown.has(p) || shown.has(field), 'missing ' + p);
    n++;
  }
  assert.ok(n > 0, 'no differences in ' + pathsFile);
  return page;
}

await check('two ONNX models: every difference on the page', async () => {
  const page = await allPaths('onnx.html', 'onnx.paths', false);
  await page.screenshot({ path: path.join(work, 'report.png'), fullPage: false });
});

await check('descriptor sets with edits: every difference on the page', async () => {
  await allPaths('desc.html', 'desc.paths', false);
});

await check('-r: a section per differing file, linked from the list, n across them', async () => {
  const page = await allPaths('dirs.html', 'dirs.paths', true);
  const links = await page.$$eval('body > header table.counts a', (as) => as.map((a) => a.getAttribute('href')));
  assert.equal(links.length, 3);
  await page.click('body > header table.counts a >> nth=1');
  assert.equal(await page.evaluate(() => location.hash), links[1]);
  const ids = await boxIds(page);
  for (let i = 0; i < ids.length; i++) await page.keyboard.press('n');
  assert.equal(await focused(page), ids[ids.length - 1]);
  assert.ok((await page.textContent('header')).includes('only in'), 'only_left.pb not listed');
});

await check('no request leaves the page', async () => {
  assert.ok(requests.length >= 9, requests.length + ' requests');
  const out = requests.filter((u) => !u.startsWith('file://'));
  assert.deepEqual(out, []);
});

await js.close();
await nojs.close();
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
