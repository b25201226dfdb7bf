// A webhook receiver for bench/webhooks.ts, in its own process so that receiving does not share the
// service's event loop and the moment of receipt is read by a process that does nothing else.
// Answers every POST 200 at once. Reports {url} over IPC; answers 'receipts' with what it received
// since the last ask ({webhookId, jobId, at}: at is Date.now() when the body had arrived), and
// stops on 'stop'.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

interface Receipt {
  webhookId: string | null;
  jobId: string | null;
  at: number;
}

let receipts: Receipt[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    let jobId: string | null = null;
    try {
      jobId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { jobId?: string } }).data?.jobId ?? null;
    } catch {
      // The reference loop's bodies are the same shape; anything else is counted without a job.
    }
    receipts.push({ webhookId: (req.headers['webhook-id'] as string | undefined) ?? null, jobId, at });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });
process.on('message', (m) => {
  if (m === 'receipts') {
    process.send!(receipts);
    receipts = [];
  }
  if (m === 'stop') server.close(() => process.exit(0));
});
