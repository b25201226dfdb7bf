import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isCardCodeName, looksLikeCardCode } from '../../src/driver/card-fields.ts';
import { cardFieldInMessage, cardFieldInRequest } from '../../src/executor/guard/request-scan.ts';
import { describeOrigin, describeUrl } from '../../src/executor/guard/events.ts';

// The classifier every guard layer shares, and the network layer's reading of requests: pure checks.

describe('what is a card security code field', () => {
  test('names, labels and hints that mean a card code', () => {
    for (const text of ['cvc', 'CVV', 'cvv2', 'cvc2', 'csc', 'cid', 'card_cvc', 'payment[cvc]', 'securityCode', 'card_security_code', 'cc-csc',
      'Security code (3 digits on the back)', 'Card verification value', 'Verification number', 'Code from the back of your card',
      'CID (4 digits on the front)', 'Card code', 'Enter the code printed next to the signature strip']) {
      assert.equal(looksLikeCardCode(text), true, text);
    }
  });

  test('ordinary booking fields are not', () => {
    for (const text of ['restaurant_name', 'city', 'party_size', 'given_name', 'family_name', 'email', 'tel', 'special_requests', 'passport_number',
      'p1_known_traveler_number', 'room_preference', 'Postal code', 'Promo code', 'Digit 1', 'time_slot', 'fare', 'return_to']) {
      assert.equal(looksLikeCardCode(text), false, text);
    }
    assert.equal(isCardCodeName('f7'), false);
    assert.equal(isCardCodeName('f7', new Set(['f7'])), true, 'a name learned from the page');
  });
});

describe('the network layer reads every encoding', () => {
  const learned = new Set(['f7']);
  const scan = (url: string, body: string | null, type = '') => cardFieldInRequest(url, body === null ? null : Buffer.from(body), type, learned);
  test('query, urlencoded, JSON at any depth and smuggled in strings, multipart, text/plain forms, WebSocket messages', () => {
    assert.equal(scan('http://x/collect?cvc=1', null), 'cvc');
    assert.equal(scan('http://x/collect?cvc=', null), 'cvc', 'whatever its value');
    assert.equal(scan('http://x/p', 'holder=A&f7=1', 'application/x-www-form-urlencoded'), 'f7');
    assert.equal(scan('http://x/p', JSON.stringify({ a: { card: { securityCode: '1' } } }), 'application/json'), 'a.card.securityCode');
    assert.equal(scan('http://x/p', JSON.stringify({ wrapped: JSON.stringify({ cvv: '1' }) }), 'text/plain'), 'wrapped.cvv');
    assert.equal(scan('http://x/p', '--b\r\nContent-Disposition: form-data; name="payment[cvc]"\r\n\r\n1\r\n--b--', 'multipart/form-data; boundary=b'), 'payment[cvc]');
    assert.equal(scan('http://x/p', 'a=1\r\ncard_security_code=2', 'text/plain'), 'card_security_code');
    assert.equal(cardFieldInMessage(JSON.stringify({ type: 'card', cvc: '1' }), learned), 'cvc');
  });

  test('ordinary requests pass, free text mentioning a code is not a field', () => {
    assert.equal(scan('http://x/search', 'restaurant_name=Security+Code+Bar&city=Paris&party_size=2', 'application/x-www-form-urlencoded'), null);
    assert.equal(scan('http://x/p', JSON.stringify({ note: 'my cvc is on the back' }), 'application/json'), null);
    assert.equal(scan('http://x/?q=1', null), null);
  });
});

describe('how the guard names a URL in its audit messages', () => {
  test('origin and path, never the query, and no digit anywhere (the page chooses host, port and path, and may put a code it holds in any of them)', () => {
    assert.equal(describeUrl('https://pay.example/checkout/pay?cvc=123&card=4242'), 'https://pay.example/checkout/pay');
    assert.equal(describeUrl('https://pay.example/collect/4821/v2'), 'https://pay.example/collect/####/v#');
    assert.equal(describeUrl('https://4821.pay.example:4821/x'), 'https://####.pay.example:####/x');
    assert.equal(describeUrl('http://tablebook.localhost:4100/book'), 'http://tablebook.localhost:####/book');
    assert.equal(describeOrigin('https://4821.pay.example/frame/card?cvc=1'), 'https://####.pay.example');
    assert.equal(describeUrl('about:srcdoc'), 'about:srcdoc');
    assert.equal(describeUrl('data:text/html,<p>1234</p>'), 'data:');
    assert.equal(describeUrl('blob:https://pay.example/5f3e1234-0a1b-4c2d-8e9f-0123456789ab'), 'blob:');
  });
});
