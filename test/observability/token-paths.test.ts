import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sessionViewToken } from '../../src/handoff/session-view.ts';
import { redactPath } from '../../src/observability/logger.ts';
import { rawCall } from '../helpers/http.ts';
import { capturingLogger } from '../handoff/helpers.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';

// A handoff or watch token is a capability: it must reach no log line and no response body, however
// the path that carries it is spelled. The router serves `//handoff/T` and `/%68andoff/T` like
// `/handoff/T`; `/HANDOFF/T` is a 404 that names its path. Each spelling is requested over a raw
// socket (fetch would normalise some of them) against the real service, with a real token.

for (const backend of BACKENDS) {
  describe(`tokens in paths, on ${backend.name}`, () => {
    let service: TestService;
    const captured = capturingLogger();

    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '1' }, { sandbox: true, log: captured.log });
    });
    after(async () => {
      await service?.close();
    });

    test('every spelling of a handoff or watch path keeps its token out of the logs and the bodies', async () => {
      const key = await service.mintKey();
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Redacted Rasoi' }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment', paused.summary);
      const token: string = paused.handoffUrl.split('/').pop();
      const watch = sessionViewToken(service.services.secretKey, jobId);
      const encoded = (t: string) => [...t].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
      const paths: Array<[string, string]> = [
        ['GET', `/handoff/${token}`],
        ['GET', `//handoff/${token}`],
        ['GET', `/%68andoff/${token}`],
        ['GET', `/%68andoff/${token}/status`],
        ['GET', `/HANDOFF/${token}`],
        ['GET', `/Handoff/${token}/status`],
        ['POST', `/HANDOFF/${token}/cancel`],
        ['GET', `/handoff//${token}`],
        ['GET', `/handoff/${encoded(token)}`],
        ['GET', `/handoff/%25${encoded(token).slice(1)}`],
        ['GET', `/handoff/${token}/nothing-here?x=1`],
        ['GET', `/handoff/${token}/%zz`],
        ['GET', `/elsewhere/${token}`],
        ['GET', `/watch/${jobId}/${watch}`],
        ['GET', `//watch/${jobId}/${watch}`],
        ['GET', `/WATCH/${jobId}/${watch}`],
        ['GET', `/%77atch/${jobId}/${watch}/live`],
      ];
      const answers: Array<{ path: string; status: number; text: string }> = [];
      for (const [method, path] of paths) {
        const reply = await rawCall(service.url, method, path, { origin: service.url, 'sec-fetch-site': 'same-origin' });
        answers.push({ path, status: reply.status, text: reply.text });
      }
      // The spellings the router serves are served: these are the paths the redaction must cover.
      const status = (path: string) => answers.find((a) => a.path === path)!.status;
      assert.equal(status(`//handoff/${token}`), 200);
      assert.equal(status(`/%68andoff/${token}`), 200);
      assert.equal(status(`/HANDOFF/${token}`), 404);
      await new Promise((r) => setTimeout(r, 200));

      const lines = captured.lines();
      assert.ok(lines.filter((l) => l.includes('"req"')).length >= paths.length, 'every request was logged');
      // The token, or all of it but its first characters (a path that spells them encoded).
      for (const secret of [token, token.slice(3), watch, watch.slice(3)]) {
        const leaked = lines.filter((line) => line.includes(secret));
        assert.deepEqual(leaked, [], 'no log line carries a token');
        // The payment page the token opens names it (its socket, status and cancel paths); no other answer does.
        for (const answer of answers.filter((a) => !(a.status === 200 && a.text.includes('data-live-view')))) {
          assert.ok(!answer.text.includes(secret), `the answer to ${redactPath(answer.path)} (${answer.status}) does not carry the token`);
        }
      }
      assert.ok(lines.some((line) => line.includes('/handoff/[redacted]')), 'the paths are logged, redacted');
      const notFound = answers.find((a) => a.path === `/HANDOFF/${token}`)!;
      assert.match(notFound.text, /no route GET \/HANDOFF\/\[redacted\]/);
    });
  });
}
