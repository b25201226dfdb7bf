/**
 * Groups concurrent calls into one database statement. The first call runs at once (no added
 * latency when idle); calls that arrive while a batch is in flight wait for it and then run
 * together as the next batch. Each statement and commit has a fixed cost (on PGlite most of it),
 * so under load this turns N round trips and N commits into one.
 */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #max: number;
  #queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  #running = false;

  /** `run` gets the batch and returns one result per item, in order. */
  constructor(run: (items: I[]) => Promise<O[]>, max = 128) {
    this.#run = run;
    this.#max = max;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length) {
        const batch = this.#queue.splice(0, this.#max);
        try {
          const results = await this.#run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i]!));
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
