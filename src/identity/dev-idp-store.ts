// In-memory storage for the development identity provider (oidc-provider's adapter interface).
// Nothing here survives a restart, which is fine for development sign-ins and keeps the
// development provider free of any table.

type Payload = Record<string, unknown> & { uid?: string; grantId?: string; consumed?: number };

interface Entry {
  payload: Payload;
  expiresAt: number;
}

export function memoryAdapterFactory(): new (model: string) => object {
  const entries = new Map<string, Entry>();
  const byUid = new Map<string, string>();
  const byGrant = new Map<string, Set<string>>();

  const live = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };

  return class MemoryAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    key(id: string): string {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
      if (this.model === 'Session' && payload.uid) byUid.set(payload.uid, id);
      if (payload.grantId) {
        const members = byGrant.get(payload.grantId) ?? new Set<string>();
        members.add(key);
        byGrant.set(payload.grantId, members);
      }
    }
    async find(id: string): Promise<Payload | undefined> {
      return live(this.key(id));
    }
    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = byUid.get(uid);
      return id === undefined ? undefined : live(this.key(id));
    }
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      entries.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
      byGrant.delete(grantId);
    }
  };
}
