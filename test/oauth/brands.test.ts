import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brandsClaimedBy, DEFAULT_BRANDS, onVerifiedDomain, parseBrandList, unverifiedBrand } from '../../src/oauth/brands.ts';

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

  test('short brands match whole words only; ordinary names claim nothing', () => {
    for (const name of ['Trip Planner', 'Metadata Explorer', 'Lawsuit Tracker', 'Cloud Desktop', 'Gogol reader', 'Travel Buddy']) assert.deepEqual(claimed(name), [], name);
    assert.deepEqual(claimed('Meta AI'), ['Meta']);
    assert.deepEqual(claimed('my AWS agent'), ['AWS']);
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

  test('PROTECTED_BRANDS replaces the list: brand=domain|domain,brand', () => {
    const brands = parseBrandList(' Acme=acme.example|acme.test , Globex ');
    assert.deepEqual(brands, [
      { name: 'Acme', verifiedDomains: ['acme.example', 'acme.test'] },
      { name: 'Globex', verifiedDomains: [] },
    ]);
    assert.equal(unverifiedBrand('Acme helper', ['https://app.acme.example/cb'], brands), null);
    assert.equal(unverifiedBrand('Gl0bex', ['https://globex.example/cb'], brands)?.name, 'Globex');
    assert.equal(unverifiedBrand('Google', ['https://x.example/cb'], brands), null);
  });
});
