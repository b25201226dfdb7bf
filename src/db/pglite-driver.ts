import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

// Kysely has no PGlite dialect of its own and the community one pins an older PGlite. PGlite is a
// single connection whose `transaction()` holds an exclusive lock for the callback's lifetime, so a
// Kysely transaction is mapped onto one such callback kept open until commit or rollback; queries
// outside it queue behind it instead of slipping into it.
class PGliteConnection implements DatabaseConnection {
  readonly #pg: PGlite;
  #tx: Transaction | null = null;
  #settle: ((outcome: 'commit' | 'rollback') => void) | null = null;
  #running: Promise<void> | null = null;

  constructor(pg: PGlite) {
    this.#pg = pg;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.#tx ?? this.#pg;
    const result = await target.query<R>(query.sql, query.parameters as unknown[]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }

  async begin(): Promise<void> {
    const decided = new Promise<'commit' | 'rollback'>((resolve) => (this.#settle = resolve));
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    this.#running = this.#pg.transaction(async (tx) => {
      this.#tx = tx;
      opened();
      if ((await decided) === 'rollback') await tx.rollback();
    });
    await Promise.race([isOpen, this.#running]);
  }

  async end(outcome: 'commit' | 'rollback'): Promise<void> {
    this.#settle?.(outcome);
    try {
      await this.#running;
    } catch (error) {
      if (outcome === 'commit') throw error;
    } finally {
      this.#tx = null;
      this.#settle = null;
      this.#running = null;
    }
  }
}

class PGliteDriver implements Driver {
  readonly #pg: PGlite;
  constructor(pg: PGlite) {
    this.#pg = pg;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.#pg);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).begin();
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end('commit');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end('rollback');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  readonly #pg: PGlite;
  constructor(pg: PGlite) {
    this.#pg = pg;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.#pg);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
