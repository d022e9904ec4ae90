import type { AuditActor } from '../../db/audit-log';
import type { Operator } from '../access';

/** The operator as an audited actor, named as the audit log and approved runs show them. */
export function operatorActor(operator: Operator): AuditActor {
  return { kind: 'operator', id: operator.id, name: operator.name ?? operator.email };
}
