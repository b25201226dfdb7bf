import { domStrategy } from './dom/index.ts';
import type { Strategy } from './strategy.ts';
import { webmcpStrategy } from './webmcp/index.ts';

// The generic driver's strategies, in the order each step is offered to them. The WebMCP strategy
// (src/providers/generic/webmcp/) goes in front of the DOM one: a page that publishes tools for
// agents is booked through them; the DOM reading answers whatever they decline.
export const STRATEGIES: readonly Strategy[] = [webmcpStrategy, domStrategy];
