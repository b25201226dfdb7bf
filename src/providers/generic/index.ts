import type { Driver } from '../types.ts';
import type { Scenario } from '../../jobs/types.ts';
export interface GenericProvider { id: string; name: string; scenario: Scenario; startUrl: string }
export function genericDriver(provider: GenericProvider): Driver { throw new Error(`the generic driver is not built yet (${provider.id})`); }
