/** Runs the sandbox standalone: `PORT=4100 node sandbox/main.ts`. */
import { CORPUS, PROVIDERS, startSandbox } from './index.ts';

const port = Number(process.env.PORT ?? 4100);
const holdSeconds = process.env.HOLD_SECONDS ? Number(process.env.HOLD_SECONDS) : undefined;
const sandbox = await startSandbox({ port, host: process.env.HOST ?? '127.0.0.1', holdSeconds });

console.log(`Concierge sandbox listening on port ${sandbox.port}`);
for (const p of PROVIDERS) {
  console.log(`  ${p.scenario.padEnd(10)} ${p.firstChoice ? 'first ' : 'second'}  ${p.name.padEnd(11)} ${sandbox.origin(p.id)}/`);
}
for (const c of CORPUS) {
  console.log(`  ${c.scenario.padEnd(10)} corpus  ${c.name.padEnd(11)} ${sandbox.origin(c.id)}${c.startPath}`);
}
console.log(`  adversarial                    ${sandbox.origin('adversarial')}/`);
console.log(`  payments (iframe content)      ${sandbox.origin('payments')}/`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  const received = sandbox.cardCodesReceived().length;
  console.log(`\nStopping. Card codes received: ${received}; confirmations: ${sandbox.confirmations().length}.`);
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
