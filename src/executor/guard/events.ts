// How the guard reports what it did. Every refusal becomes an `action_denied` audit event naming the
// layer and the field; values never appear (the guard never reads them).
export type GuardLayer = 'driver' | 'page' | 'network';

export const LAYER_NAMES: Record<GuardLayer, string> = {
  driver: 'driver layer',
  page: 'in-page layer',
  network: 'network layer',
};

export interface GuardEvents {
  denied(layer: GuardLayer, message: string): void;
  allowed(message: string): void;
}

/** For code that runs a page without a job (tests, tools): remembers what the guard said. */
export class GuardLog implements GuardEvents {
  readonly entries: Array<{ kind: 'denied' | 'allowed'; layer?: GuardLayer; message: string }> = [];
  denied(layer: GuardLayer, message: string): void {
    this.entries.push({ kind: 'denied', layer, message });
  }
  allowed(message: string): void {
    this.entries.push({ kind: 'allowed', message });
  }
  deniedBy(layer: GuardLayer): string[] {
    return this.entries.filter((e) => e.kind === 'denied' && e.layer === layer).map((e) => e.message);
  }
}
