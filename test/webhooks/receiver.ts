import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

// A local webhook receiver, as a client would run one: records every request, answers with the
// status the test asks for (fail some, then recover).

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status of the next answers: each call to answer() takes the first, the last one stays. */
  answers: number[];
  /** Distinct events by webhook-id (a receiver's dedupe). */
  unique(): Map<string, Received>;
  close(): Promise<void>;
}

export async function startReceiver(answers: number[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  const state = { answers };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = state.answers.length > 1 ? state.answers.shift()! : state.answers[0] ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get answers() {
      return state.answers;
    },
    set answers(value: number[]) {
      state.answers = value;
    },
    unique() {
      return new Map(received.map((r) => [String(r.headers['webhook-id']), r]));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
