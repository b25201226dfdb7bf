import { chromium } from 'playwright-core';

// A remote browser for test/cluster/remote-browser.test.ts, in a process of its own as an operator
// runs one: playwright-core's browser server over the OS Chromium, on the port and path given
// (fixed, so that a restarted server is found at the same BROWSER_WS_ENDPOINT). Prints its endpoint.
const [port, wsPath] = process.argv.slice(2);
const server = await chromium.launchServer({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  headless: true,
  host: '127.0.0.1',
  port: Number(port),
  wsPath,
});
process.stdout.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint() })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
