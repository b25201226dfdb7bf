import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { checkNewProvider, insertProvider, ProviderInputError, providerAddressPolicy, removeProvider, type NewProvider, type ProviderView, type RemoveResult } from '../providers/store.ts';
import type { Operator } from './access.ts';
import { recordOperatorAction } from './audit.ts';
import { OperatorInputError } from './errors.ts';

// Registered providers from the console: exactly the checks of `concierge providers add`
// (providers/store.ts), with each change on the operator trail.

/** Checks and registers a provider; the provider and its record commit together. */
export async function addProviderAs(db: Kysely<DB>, config: Config, actor: Operator, input: NewProvider): Promise<ProviderView> {
  try {
    // Checked before any transaction opens: the check may resolve the host name (DNS).
    const checked = await checkNewProvider(input, providerAddressPolicy(config));
    return await db.transaction().execute(async (trx) => {
      const provider = await insertProvider(trx, checked);
      await recordOperatorAction(trx, actor, 'provider.add', `provider ${provider.id}`, { name: provider.name, scenario: provider.scenario, startUrl: provider.startUrl, driver: provider.driver, priority: provider.priority, mode: provider.mode });
      return provider;
    });
  } catch (error) {
    // The CLI's words name its flags (--url …); on the page they name the form's fields.
    if (error instanceof ProviderInputError) throw new OperatorInputError(error.message.replace(/--([a-z]+)/g, '$1'));
    throw error;
  }
}

/** Removes a registered provider (a built-in one cannot be); the removal and its record commit together. */
export async function removeProviderAs(db: Kysely<DB>, actor: Operator, id: string): Promise<RemoveResult> {
  return db.transaction().execute(async (trx) => {
    const result = await removeProvider(trx, id);
    if (result === 'removed') await recordOperatorAction(trx, actor, 'provider.remove', `provider ${id}`);
    return result;
  });
}
