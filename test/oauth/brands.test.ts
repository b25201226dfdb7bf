import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brandsClaimedBy, DEFAULT_BRANDS, lookalikeProblem, onVerifiedDomain, parseBrandList, protectedBrands, unverifiedBrand } from '../../src/oauth/brands.ts';

// The brand rule's matching, on its own: which names claim which brand.

const claimed = (name: string) => brandsClaimedBy(name, DEFAULT_BRANDS).map((b) => b.name);

describe('protected brand matching', () => {
  test('case, leetspeak, Cyrillic and Greek look-alikes, zero-width characters and separators do not hide a brand', () => {
    const cases: Array<[string, string]> = [
      ['GOOGLE', 'Google'],
      ['g00gle', 'Google'],
      ['Go0g1e', 'Google'],
      ['G o o g l e', 'Google'],
      ['G.o.o.g.l.e', 'Google'],
      ['Goo\u200bgle', 'Google'],
      ['Goo\u00adgle', 'Google'],
      ['G\u043e\u043egle', 'Google'],
      ['ＧＯＯＧＬＥ', 'Google'],
      ['Gòógle', 'Google'],
      ['M1cr0s0ft', 'Microsoft'],
      ['rnicrosoft', 'Microsoft'],
      ['Micro_soft', 'Microsoft'],
      ['\u039c\u0435ta', 'Meta'],
      ['4pple', 'Apple'],
      ['4m4z0n', 'Amazon'],
      ['0pen4I', 'OpenAI'],
      ['Chat-GPT', 'ChatGPT'],
      ['Anthr0p1c', 'Anthropic'],
      ['C|aude', 'Claude'],
      ['Cl4ude', 'Claude'],
      ['Conc1erge', 'Concierge'],
      ['Faceb00k', 'Facebook'],
      ['VS Code', 'VS Code'],
      ['vscode', 'VS Code'],
      ['Visual Studio Code', 'Visual Studio'],
    ];
    for (const [name, brand] of cases) assert.ok(claimed(name).includes(brand), `${name} should claim ${brand}, got ${claimed(name)}`);
  });

  test('a look-alike the table does not know is refused, never dropped: mixed scripts in a word, Latin letters outside a–z', () => {
    // Before: the skeleton dropped these letters, so each of the names below claimed no brand.
    const mixed: Array<[string, RegExp]> = [
      ['G\u0585\u0585gle', /Latin, Armenian/], // Armenian օ
      ['Amaz\u0585n', /Latin, Armenian/],
      ['Go\u2c9fgle', /Latin, Coptic/], // Coptic ⲟ
      ['G\u043e\u043egle', /Latin, Cyrillic/],
      ['G\u03bf\u03bfgle', /Latin, Greek/],
      ['\u039c\u0435ta', /Greek, Cyrillic, Latin/],
      ['G\u0966\u0966gle', /Latin, Devanagari/], // Devanagari digit zero: a digit, not a letter, still counted
      ['G \u0585 \u0585 g l e', /Latin, Armenian/], // spaced single letters are one word
      ['\u{1D406}\u0585\u0585\u{1D420}\u{1D425}\u{1D41E}', /Latin, Armenian/], // mathematical bold is Latin
      ['Trip-\u041c\u043e\u0441\u043a\u0432\u0430', /Latin, Cyrillic/], // punctuation does not split a word
    ];
    for (const [name, scripts] of mixed) {
      const problem = lookalikeProblem(name);
      assert.match(problem ?? '', /^mixes scripts in one word/, name);
      assert.match(problem!, scripts, name);
    }
    for (const [name, letter] of [['\u0262oogle', 'ɢ'], ['\u1d04laude', 'ᴄ'], ['\u1d0dicrosoft', 'ᴍ'], ['\u01e5oogle', 'ǥ'], ['\u0261oogle', 'ɡ'], ['Micr\u1d0fsoft', 'ᴏ'], ['\u0251pple', 'ɑ'], ['\u0138ayak', 'ĸ']] as const) {
      assert.match(lookalikeProblem(name) ?? '', new RegExp(`^contains "${letter}" \\(U\\+[0-9A-F]{4}\\)`), name);
    }
  });

  test('look-alikes in one script, and symbols read as letters, fold to the brand they imitate', () => {
    const cases: Array<[string, string]> = [
      ['G \u0585\u0585 gle', 'Google'], // Armenian, as its own word
      ['\ua4d6\ua4f3\ua4f3\ua4d6\ua4e1\ua4f0', 'Google'], // all Lisu: ꓖꓳꓳꓖꓡꓰ
      ['\u13aa\u13e2\u13e2\u13de\u13ac', 'Apple'], // all Cherokee: ᎪᏢᏢᏞᎬ
      ['\u0410\u0440\u0440\u04cf\u0435', 'Apple'], // all Cyrillic: Аррӏе
      ['\u041c\u0435\u0442\u0430', 'Meta'], // all Cyrillic: Мета
      ['G\u3147\u3147gle', 'Google'], // Hangul ㅇ (Latin with Hangul is an ordinary mix)
      ['G\u25cb\u25cbgle', 'Google'], // white circles
      ['\u{1F1EC}\u{1F1F4}\u{1F1F4}\u{1F1EC}\u{1F1F1}\u{1F1EA}', 'Google'], // regional indicators
    ];
    for (const [name, brand] of cases) {
      assert.equal(lookalikeProblem(name), null, name);
      assert.ok(claimed(name).includes(brand), `${name} should claim ${brand}, got ${claimed(name)}`);
    }
  });

  test('ordinary names in any one script, accented Latin and Japanese or Korean mixes pass both checks', () => {
    const names = [
      'Café Zürich', 'Łódź Tours', 'Øresund Rejser', 'Straße Navigator', 'Þórsmörk Guide', 'Ðakovo Vodič', 'İstanbul Rehberi',
      'Bakı Turları', 'Əla Səyahət', 'Ħal Qormi', 'Œuvre Æsop', 'Sámi Ŋuolga',
      '東京ガイド', 'LINEマンガ', 'Tokyo 東京 Guide', '서울 여행', 'Москва Тур', 'Путеводитель', 'Αθήνα Οδηγός', 'עברית', 'مرحبا', 'हिन्दी यात्रा',
    ];
    for (const name of names) {
      assert.equal(lookalikeProblem(name), null, name);
      assert.deepEqual(claimed(name), [], name);
    }
  });

  test('short brands match whole words only; ordinary names claim nothing', () => {
    for (const name of ['Trip Planner', 'Metadata Explorer', 'Lawsuit Tracker', 'Cloud Desktop', 'Gogol reader', 'Travel Buddy']) assert.deepEqual(claimed(name), [], name);
    assert.deepEqual(claimed('Meta AI'), ['Meta']);
    assert.deepEqual(claimed('my AWS agent'), ['AWS']);
  });

  test('a short brand is a whole word wherever case, digits or symbols mark the word, not only spaces', () => {
    // Each of these once claimed nothing, and registered with any redirect URI.
    const cases: Array<[string, string]> = [
      ['MetaAI Assistant', 'Meta'],
      ['AWSConsole', 'AWS'],
      ['myAWS', 'AWS'],
      ['AWS2', 'AWS'],
      ['Meta4U', 'Meta'],
      ['\uff2d\uff45\uff54\uff41\uff21\uff29', 'Meta'], // full-width ＭｅｔａＡＩ
      ['\u{1D40C}\u{1D41E}\u{1D42D}\u{1D41A}\u{1D400}\u{1D408}', 'Meta'], // mathematical bold 𝐌𝐞𝐭𝐚𝐀𝐈
      ['\u041c\u0435\u0442\u0430\u0410\u0406', 'Meta'], // all Cyrillic МетаАІ
      ['Meta!', 'Meta'],
      ['iMeta', 'Meta'],
      ['AWS-cli', 'AWS'],
      // Leetspeak inside a word still reads as the brand.
      ['M3ta', 'Meta'],
      ['4WS Console', 'AWS'],
    ];
    for (const [name, brand] of cases) assert.deepEqual(claimed(name), [brand], name);
  });

  test('a short brand\'s letters inside a longer word claim nothing, however the word is written', () => {
    const names = [
      'Metallica Fans', 'METALLICA', 'Metabolic Coach', 'Metaphor Writer', 'Betamax', 'Thermometer', 'Ametal',
      'Jaws Trivia', 'Kawasaki Club', 'PAWS Rescue', 'Drawsome', 'AWSome', 'Gawsworth 2', 'Claws2Go', 'Law5 Helper',
      'Web3 Tools', 'Area51 Trips', 'S3 Browser',
    ];
    for (const name of names) assert.deepEqual(claimed(name), [], name);
  });

  test('refused on purpose, although innocent: long brands inside a word, a short brand before a capitalised word', () => {
    // Five letters or more are too distinctive to be an accident (docs/oauth.md: rename, or adjust the list).
    assert.deepEqual(claimed('Amazonian Plants'), ['Amazon']);
    assert.deepEqual(claimed('Pineapple Planner'), ['Apple']);
    // Case marks a word: "MetaMask" reads as Meta Mask, like "MetaAI" as Meta AI.
    assert.deepEqual(claimed('MetaMask'), ['Meta']);
  });

  test('verified domains: https on the domain or a subdomain; look-alike hosts, http and loopback are not', () => {
    const domains = ['claude.ai', 'anthropic.com'];
    assert.equal(onVerifiedDomain('https://claude.ai/api/mcp/auth_callback', domains), true);
    assert.equal(onVerifiedDomain('https://console.anthropic.com/cb', domains), true);
    assert.equal(onVerifiedDomain('http://claude.ai/cb', domains), false);
    assert.equal(onVerifiedDomain('https://claude.ai.evil.example/cb', domains), false);
    assert.equal(onVerifiedDomain('https://evilclaude.ai/cb', domains), false);
    assert.equal(onVerifiedDomain('http://127.0.0.1:33418/', ['vscode.dev', 'microsoft.com']), false);
    assert.equal(unverifiedBrand('Claude', ['https://claude.ai/cb'], DEFAULT_BRANDS), null);
    assert.equal(unverifiedBrand('Claude by Google', ['https://claude.ai/cb'], DEFAULT_BRANDS)?.name, 'Google');
  });

  test('loopback counts for brands that ship native apps, and only for those', () => {
    const vscode = ['https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'];
    assert.equal(unverifiedBrand('Visual Studio Code', vscode, DEFAULT_BRANDS), null);
    assert.equal(unverifiedBrand('Claude Code', ['http://localhost:54212/callback'], DEFAULT_BRANDS), null);
    assert.equal(unverifiedBrand('Gemini CLI MCP Client', ['http://localhost:7777/oauth/callback'], DEFAULT_BRANDS), null);
    // Loopback is not a wildcard: every other URI must still be on the brand's domains.
    assert.equal(unverifiedBrand('Visual Studio Code', [...vscode, 'https://evil.example/cb'], DEFAULT_BRANDS)?.name, 'Visual Studio');
    assert.equal(unverifiedBrand('Claude Code', ['http://localhost:54212/callback', 'https://claude.ai.evil.example/cb'], DEFAULT_BRANDS)?.name, 'Claude');
    // Brands without native MCP clients get no loopback.
    for (const name of ['ChatGPT', 'Apple', 'Amazon', 'Meta AI', 'GitHub']) {
      assert.ok(unverifiedBrand(name, ['http://127.0.0.1:33418/'], DEFAULT_BRANDS), name);
    }
    // The service's own name does: native clients are named after the server they connect to.
    const own = protectedBrands(undefined, 'concierge.example.com');
    assert.equal(unverifiedBrand('Claude Code (concierge)', ['http://localhost:54212/callback'], own), null);
    assert.equal(unverifiedBrand('Claude Code (concierge)', ['http://127.0.0.1:33418'], own), null);
    assert.equal(unverifiedBrand('Claude Code (concierge)', ['https://evil.example/cb'], own)?.name, 'Concierge');
  });

  test('PROTECTED_BRANDS replaces the built-in brands but never the service\'s own name, verified on its own host', () => {
    const brands = protectedBrands('Acme=acme.example,Globex', 'concierge.example.com');
    assert.deepEqual(brands.map((b) => b.name), ['Concierge', 'Acme', 'Globex']);
    for (const name of ['Concierge', 'C0ncierge Helper', 'My Concierge']) {
      assert.equal(unverifiedBrand(name, ['https://evil.example/cb'], brands)?.name, 'Concierge', name);
      // Loopback stays, whatever the list says: the service's own native clients need it.
      assert.equal(unverifiedBrand(name, ['http://127.0.0.1:9000/cb'], brands), null, name);
    }
    assert.equal(unverifiedBrand('Concierge', ['https://concierge.example.com/cb'], brands), null);
    assert.equal(unverifiedBrand('Google', ['https://evil.example/cb'], brands), null, 'the built-in brands were replaced');
    // The built-in table gets the own host too; an operator's entry for the name adds to it, never removes it.
    assert.equal(unverifiedBrand('Concierge', ['https://concierge.example.com/cb'], protectedBrands(undefined, 'concierge.example.com')), null);
    assert.equal(unverifiedBrand('Concierge', ['https://evil.example/cb'], protectedBrands(undefined, 'concierge.example.com'))?.name, 'Concierge');
    const widened = protectedBrands('C0NCIERGE=partner.example,Acme', 'concierge.example.com');
    assert.deepEqual(widened.map((b) => b.name), ['Concierge', 'Acme']);
    assert.equal(unverifiedBrand('Concierge', ['https://partner.example/cb', 'https://concierge.example.com/cb'], widened), null);
    assert.equal(unverifiedBrand('Concierge', ['https://evil.example/cb'], widened)?.name, 'Concierge');
  });

  test('PROTECTED_BRANDS replaces the list: brand=domain|domain|loopback,brand', () => {
    const brands = parseBrandList(' Acme=acme.example|acme.test|Loopback , Globex ');
    assert.deepEqual(brands, [
      { name: 'Acme', verifiedDomains: ['acme.example', 'acme.test'], loopback: true },
      { name: 'Globex', verifiedDomains: [], loopback: false },
    ]);
    assert.equal(unverifiedBrand('Acme desktop', ['http://127.0.0.1:9000/cb'], brands), null);
    assert.equal(unverifiedBrand('Globex desktop', ['http://127.0.0.1:9000/cb'], brands)?.name, 'Globex');
    // "loopback" names a kind of location, not a host called "loopback".
    assert.equal(unverifiedBrand('Acme', ['https://loopback/cb'], brands)?.name, 'Acme');
    assert.equal(unverifiedBrand('Acme helper', ['https://app.acme.example/cb'], brands), null);
    assert.equal(unverifiedBrand('Gl0bex', ['https://globex.example/cb'], brands)?.name, 'Globex');
    assert.equal(unverifiedBrand('Google', ['https://x.example/cb'], brands), null);
  });
});
