import pg from 'pg';

/** The PostgreSQL the benchmarks use: BENCH_DATABASE_URL, else this project's machines' local server
 *  (`none` leaves PostgreSQL out). Each run works in a schema of its own and drops it after. */
export const BENCH_POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The URL when that server answers, else null (the caller says it skipped PostgreSQL, and why). */
export async function reachablePostgres(url = BENCH_POSTGRES_URL): Promise<string | null> {
  if (url === 'none' || !url.startsWith('postgres')) return null;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
}
