import type { Knex } from '../../db/knex';
import type { PosRepositories } from '../../db/pos-repositories';
import type { PosTerminal } from '../../adapters/terminal/pos-terminal';
import type { PosAccess } from './access';
import { createDeviceSetup } from './device-setup';
import { createRegisterSetup } from './register-setup';
import { createStaffSetup } from './staff-setup';
import { createTerminalSetup } from './terminal-setup';

export interface PosSetupDeps {
  knex: Knex;
  pos: PosRepositories;
  access: PosAccess;
  terminal: PosTerminal;
  /** The server key PIN hashes are made under (decision 0127). */
  pinKey: string;
}

/**
 * Registers, the tills and card terminals paired to them (decisions 0126 and 0131), and staff with
 * their own PINs (decision 0127): the set-up side of the point of sale, one module per resource.
 */
export function createPosSetupService(deps: PosSetupDeps) {
  return {
    ...createRegisterSetup(deps),
    ...createDeviceSetup(deps),
    ...createStaffSetup(deps),
    ...createTerminalSetup(deps),
  };
}

export type PosSetupService = ReturnType<typeof createPosSetupService>;
