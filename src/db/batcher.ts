/**
 * Groups concurrent calls into one database statement. Each statement and commit has a fixed cost
 * (on PGlite most of a round trip), so under load N round trips and N commits become one.
 *
 * A batch starts on the next turn of the event loop, after the requests already received have
 * been read (PGlite runs queries on this thread: a batch started at once would keep them out);
 * calls that arrive while `concurrency` batches are in flight wait and go together in the next.
 */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #max: number;
  readonly #concurrency: number;
  #queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  #active = 0;
  #scheduled = false;

  /** `run` gets the batch and returns one result per item, in order. */
  constructor(run: (items: I[]) => Promise<O[]>, options: { max?: number; concurrency?: number } = {}) {
    this.#run = run;
    this.#max = options.max ?? 128;
    this.#concurrency = options.concurrency ?? 1;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#active >= this.#concurrency || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#runOne();
    });
  }

  async #runOne(): Promise<void> {
    if (this.#active >= this.#concurrency || this.#queue.length === 0) return;
    this.#active++;
    const batch = this.#queue.splice(0, this.#max);
    // Another slot may start on what is left (or arrives) while this one runs.
    this.#schedule();
    try {
      const results = await this.#run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i]!));
    } catch (error) {
      for (const b of batch) b.reject(error);
    } finally {
      this.#active--;
      this.#schedule();
    }
  }
}
