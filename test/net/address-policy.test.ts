import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { AddressPolicyError, assertPublicUrl, isPublicAddress } from '../../src/net/address-policy.ts';

// The address policy against server-side request forgery, without the network: IP literals as URLs
// and DNS write them, the loopback names, and names whose (given) resolution is private.

const NOT_PUBLIC = [
  '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.0.1', '192.168.255.255',
  '100.64.0.1', '100.127.255.255', '169.254.169.254', '169.254.0.1', '224.0.0.1', '255.255.255.255', '192.0.2.10', '198.18.0.1',
  '::1', '::', '[::1]', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '2001:db8::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::ffff:192.168.1.1', '64:ff9b::7f00:1', '2002:c0a8:101::1', '::127.0.0.1',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.63.255.255', '100.128.0.1', '169.255.0.1', '11.0.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808'];

describe('isPublicAddress', () => {
  test('loopback, private, carrier-grade NAT, link-local, unique-local, multicast, reserved and IPv4-mapped private addresses are not public', () => {
    for (const ip of NOT_PUBLIC) assert.equal(isPublicAddress(ip), false, ip);
  });
  test('public addresses, IPv4-mapped ones included, are public; what is not an address is not', () => {
    for (const ip of PUBLIC) assert.equal(isPublicAddress(ip), true, ip);
    for (const junk of ['', 'localhost', 'example.com', '999.1.1.1', '1.2.3']) assert.equal(isPublicAddress(junk), false, junk);
  });
});

describe('assertPublicUrl', () => {
  const never = async (): Promise<string[]> => assert.fail('an IP literal or a loopback name is decided without DNS');
  const refused = (url: string, resolve: (h: string) => Promise<string[]> = never) => assert.rejects(assertPublicUrl(url, { allowPrivate: false, resolve }), AddressPolicyError, url);

  test('IP literals in URLs, however the URL spells them, are refused when not public', async () => {
    for (const url of ['http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://0x7f000001/', 'https://10.0.0.5:8443/book', 'http://172.20.1.1/', 'http://192.168.1.10/', 'http://100.100.100.100/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://[fd00::5]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:169.254.169.254]/', 'http://0.0.0.0/']) {
      await refused(url);
    }
  });

  test('localhost and every *.localhost name are loopback whatever DNS says', async () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST:3000/', 'http://localhost./', 'http://tablebook.localhost:4100/', 'http://a.b.localhost/']) await refused(url);
  });

  test('a name is refused when any address it resolves to is not public, or when it does not resolve', async () => {
    await refused('https://rebind.example/', async () => ['93.184.216.34', '10.0.0.7']);
    await refused('https://inner.example/', async () => ['::ffff:192.168.0.1']);
    await refused('https://gone.example/', async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.example'), { code: 'ENOTFOUND' });
    });
    await refused('https://empty.example/', async () => []);
    const asked: string[] = [];
    await assertPublicUrl('https://Booking.Example.COM/start', { allowPrivate: false, resolve: async (h) => (asked.push(h), ['93.184.216.34', '2606:2800:220:1::1']) });
    assert.deepEqual(asked, ['booking.example.com']);
    await assertPublicUrl('https://8.8.8.8/', { allowPrivate: false, resolve: never });
  });

  test('the operator may allow private addresses; the scheme is checked either way', async () => {
    await assertPublicUrl('http://127.0.0.1:4100/', { allowPrivate: true, resolve: never });
    await assertPublicUrl('http://tablebook.localhost:4100/', { allowPrivate: true, resolve: never });
    await assert.rejects(assertPublicUrl('ftp://example.com/', { allowPrivate: true }), /http:\/\/ or https:\/\//);
    await assert.rejects(assertPublicUrl('not a url', { allowPrivate: true }), /not a URL/);
  });
});

describe('PROVIDER_ALLOW_PRIVATE_ADDRESSES', () => {
  test('off by default; true or 1 turns it on; anything else stops the process naming it', () => {
    assert.equal(loadConfig({}).PROVIDER_ALLOW_PRIVATE_ADDRESSES, false);
    assert.equal(loadConfig({ PROVIDER_ALLOW_PRIVATE_ADDRESSES: 'true' }).PROVIDER_ALLOW_PRIVATE_ADDRESSES, true);
    assert.equal(loadConfig({ PROVIDER_ALLOW_PRIVATE_ADDRESSES: '1' }).PROVIDER_ALLOW_PRIVATE_ADDRESSES, true);
    assert.throws(() => loadConfig({ PROVIDER_ALLOW_PRIVATE_ADDRESSES: 'yes' }), /PROVIDER_ALLOW_PRIVATE_ADDRESSES/);
  });
});
