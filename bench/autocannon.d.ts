// autocannon ships no types; this declares the part the benchmarks use.
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Each connection cycles through these; setupRequest may rewrite a request before it is sent. */
    requests?: Array<{ setupRequest?: (request: RequestParams) => RequestParams }>;
  }
  interface RequestParams {
    path?: string;
    [option: string]: unknown;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
