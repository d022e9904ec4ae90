import type { Scope } from '../../domain/scope';
import type { PosSetupDeps } from './pos-setup';
import { type PageOptions } from '../../db/tenant';
import { ID_PREFIX, newId } from '../../domain/ids';
import { findRegister } from './register-lookup';
import type { PosActor } from './access';
import { presentRegister } from './register-object';

/**
 * Registers: the tills of a merchant, each at a location.
 */
export function createRegisterSetup(deps: Pick<PosSetupDeps, 'pos' | 'access'>) {
  const { pos, access } = deps;
  const register = (scope: Scope, id: string) => findRegister(pos, scope, id);

  return {
    async createRegister(
      scope: Scope,
      actor: PosActor,
      body: { name: string; location?: string | null | undefined },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      return presentRegister(
        await pos.registers.create(scope, {
          id: newId(ID_PREFIX.posRegister),
          name: body.name,
          location: body.location ?? null,
        }),
      );
    },
    async listRegisters(scope: Scope, opts: PageOptions) {
      await access.assertEnabled(scope);
      const page = await pos.registers.list(scope, opts);
      return { data: page.data.map(presentRegister), hasMore: page.hasMore };
    },
    async retrieveRegister(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const row = await register(scope, id);
      access.assertRegister(actor, row.id);
      return presentRegister(row);
    },
  };
}
