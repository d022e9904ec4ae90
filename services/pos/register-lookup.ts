import type { Scope } from '../../domain/scope';
import type { PosRepositories } from '../../db/pos-repositories';
import { findOr404 } from '../lookup';

/** A register by id, 404 naming the other mode when it is there (the setup's and the till's lookups). */
export function findRegister(pos: Pick<PosRepositories, 'registers'>, scope: Scope, id: string) {
  return findOr404(
    'pos.register',
    scope,
    id,
    () => pos.registers.find(scope, id),
    () => pos.registers.otherMode(scope, id),
  );
}
