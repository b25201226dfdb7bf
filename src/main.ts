// The entry point (bin/concierge, npm start). Before anything else is loaded it turns on Node's
// on-disk compile cache: compiling the service's modules (TypeScript stripped, then parsed and
// compiled by V8) was about half of the CPU `concierge serve` spent before it was ready, and with
// the cache a later start reuses that work. The cache is keyed by each file's content and the Node
// version, so an edited file is compiled afresh; it lives in the OS temporary directory
// (NODE_COMPILE_CACHE=<dir> moves it, NODE_DISABLE_COMPILE_CACHE=1 turns it off), and a directory
// that cannot be written only means no cache. The CLI itself is in ./cli/main.ts, imported after
// this so that its module graph is the one the cache serves.
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./cli/main.ts');
