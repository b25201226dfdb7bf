// The built-in (sandbox) providers, each with its scripted driver in a folder of its own name.
export const PROVIDER_IDS = ['tablebook', 'dinenow', 'staysearch', 'roomly', 'skyfare', 'jetdeck', 'tixhub', 'eventgo'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
