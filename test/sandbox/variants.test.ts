import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { parse } from 'parse5';
import { CORPUS, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { inLocale } from '../../sandbox/variants/formats.ts';
import { transformHtml } from '../../sandbox/variants/index.ts';
import { attr, elements, isRunScript, rawText, type Element } from '../../sandbox/variants/tree.ts';

// The variant transform itself (sandbox/variants), without a browser: the same seed writes the
// same page; ids stay linked to what refers to them; what a server reads back (names, values,
// JSON-LD, microdata) is never changed.

const PAGE = `<!doctype html><html lang="en"><head><title>Book</title><style>#when{color:red}.field label{font-weight:700}</style>
<script type="application/ld+json">{"@type":"Restaurant","name":"Casa","priceRange":"$12.00"}</script></head><body><main>
<h1>Reserve a table</h1><p>Deposit: $1,234.50 on Monday, 10 June 2030.</p>
<div itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="12.00">$12.00</span></div>
<form method="post" action="/hold"><input type="hidden" name="sid" value="s1">
<div class="field"><label for="who">First name</label><input id="who" name="first" value="Ada"></div>
<div class="field"><label for="mail">Email</label><input id="mail" name="email" type="email" value="ada@example.com"></div>
<label for="when">Date</label><input id="when" name="date" type="date" value="2030-06-10" aria-describedby="when-hint"><span id="when-hint">As on the calendar</span>
<div class="field"><span id="size-label">Party size</span><select name="covers" aria-labelledby="size-label"><option value="2">2 people</option><option value="3" selected>3 people</option></select></div>
<button type="submit">Continue</button></form>
<a href="#when">Change date</a></main>
<script>document.getElementById('when').addEventListener('change',function(){document.querySelector('.field').classList.add('field');var d=document.createElement('p');d.innerHTML='<label for="who">First name</label>';});</script>
</body></html>`;

const ids = (html: string) => new Set(elements(parse(html)).map((e) => attr(e, 'id')).filter(Boolean));
const sent = (html: string) => elements(parse(html)).filter((e) => ['input', 'select', 'textarea', 'option', 'button'].includes(e.tagName))
  .map((e) => `${e.tagName} ${attr(e, 'name') ?? ''}=${attr(e, 'value') ?? ''}`).sort();
const data = (html: string) => elements(parse(html)).filter((e) => attr(e, 'type') === 'application/ld+json' || attr(e, 'content') !== undefined)
  .map((e) => (attr(e, 'content') ?? rawText(e)));
/** Every id reference (for, aria-*, href="#…") names an element of the page. */
function dangling(html: string): string[] {
  const present = ids(html);
  const out: string[] = [];
  for (const e of elements(parse(html))) {
    for (const a of e.attrs) {
      const refs = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls'].includes(a.name) ? a.value.split(/\s+/) : a.name === 'href' && a.value.startsWith('#') ? [a.value.slice(1)] : [];
      for (const r of refs) if (r && !present.has(r)) out.push(`${e.tagName} ${a.name}=${r}`);
    }
  }
  return out;
}

describe('metamorphic variants of a page', () => {
  test('the same seed writes the same page; another seed another', () => {
    const a = transformHtml(PAGE, { seed: 7 }, 'tavola', '/');
    assert.equal(transformHtml(PAGE, { seed: 7 }, 'tavola', '/'), a);
    assert.notEqual(transformHtml(PAGE, { seed: 8 }, 'tavola', '/'), a);
  });

  test('ids and classes renamed, every reference to them with them, in the style and the script too', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const out = transformHtml(PAGE, { seed }, 'tavola', '/');
      assert.deepEqual(dangling(out), [], `seed ${seed}`);
      assert.equal(ids(out).has('when'), false, 'the ids are renamed');
      const when = [...ids(out)].find((id) => out.includes(`#${id}{`))!;
      assert.ok(when, 'the style names the renamed id');
      const script = elements(parse(out)).filter(isRunScript).map(rawText).join('');
      assert.match(script, new RegExp(`getElementById\\('${when}'\\)`), 'the script finds the renamed id');
      assert.doesNotMatch(script, /'\.field'|for="who"/, 'selectors and fragments in its strings follow');
    }
  });

  test('what the server reads back is untouched: names, values, options, JSON-LD, microdata', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const out = transformHtml(PAGE, { seed }, 'tavola', '/');
      assert.deepEqual(sent(out), sent(PAGE), `seed ${seed}`);
      assert.deepEqual(data(out), data(PAGE), `seed ${seed}`);
      assert.match(out, /<span itemprop="price" content="12.00">\$12.00<\/span>/, 'a microdata property keeps its text');
    }
  });

  test('the submit button stays last in its form; fields move with their labels', () => {
    const orders = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const doc = parse(transformHtml(PAGE, { seed, kinds: ['order'] }, 'tavola', '/'));
      const form = elements(doc).find((e) => e.tagName === 'form')!;
      const inForm = elements(form);
      assert.equal(inForm.filter((e) => e.tagName === 'button' || e.tagName === 'input' || e.tagName === 'select').at(-1)?.tagName, 'button');
      const names = inForm.filter((e) => attr(e, 'name')).map((e) => attr(e, 'name'));
      orders.add(names.join(' '));
      for (const label of inForm.filter((e) => e.tagName === 'label')) {
        const next = inForm[inForm.indexOf(label) + 1] as Element;
        assert.equal(attr(next, 'id'), attr(label, 'for'), 'a label stays straight before its control');
      }
    }
    assert.ok(orders.size > 1, 'the order changes with the seed');
  });

  test('wording in synonyms or another language, <html lang> to match; prices and dates in its locale', () => {
    const langs = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) {
      const out = transformHtml(PAGE, { seed, kinds: ['wording', 'formats'] }, 'tavola', '/');
      const lang = /<html lang="(\w+)"/.exec(out)![1]!;
      langs.add(lang);
      assert.doesNotMatch(out, />First name</, 'the label is reworded');
      if (lang === 'de') assert.match(out, /Deposit: 1\.234,50&nbsp;\$ on Montag, 10\. Juni 2030\..*>Vorname</s);
      if (lang === 'es') assert.match(out, /Deposit: 1234,50&nbsp;US\$ on lunes, 10 de junio de 2030\..*>Nombre</s);
    }
    assert.ok(langs.size >= 4, `several languages across seeds (${[...langs].join(', ')})`);
    assert.equal(inLocale('€84.00, Jun 10, 2030', 'de-DE'), '84,00\u00a0€, 10.06.2030');
  });
});

describe('metamorphic variants of the corpus sites\' start pages', () => {
  let plain: Sandbox;
  let varied: Sandbox;
  before(async () => {
    [plain, varied] = await Promise.all([startSandbox(), startSandbox({ variant: { seed: 11 } })]);
  });
  after(async () => {
    await Promise.all([plain?.close(), varied?.close()]);
  });

  const get = (sb: Sandbox, host: string, path: string) => new Promise<{ body: string; location?: string }>((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port: sb.port, path, headers: { host: `${host}:${sb.port}` } }, (m) => {
      let body = '';
      m.on('data', (d) => (body += d));
      m.on('end', () => resolve({ body, location: m.headers.location }));
    });
    r.on('error', reject);
    r.end();
  });
  async function startPage(sb: Sandbox, id: string, path: string): Promise<string> {
    let host = `${id}.localhost`;
    let r = await get(sb, host, path);
    while (r.location) {
      const u = new URL(r.location, `http://${host}`);
      host = u.hostname;
      r = await get(sb, host, u.pathname + u.search);
    }
    return r.body;
  }

  for (const site of CORPUS) {
    test(`${site.id}: links kept, nothing the server reads changed`, async () => {
      const [a, b] = await Promise.all([startPage(plain, site.id, site.startPath), startPage(varied, site.id, site.startPath)]);
      assert.notEqual(b, a);
      assert.deepEqual(dangling(b), dangling(a).length ? dangling(b) : []);
      assert.deepEqual(sent(b), sent(a));
      assert.deepEqual(data(b), data(a));
    });
  }
});
