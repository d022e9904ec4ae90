import { can, DASHBOARD_ACTIONS, isMemberRole, MEMBER_ROLES } from '../../domain/member-roles';

test('the owner may do everything; read-only members only read', () => {
  for (const action of DASHBOARD_ACTIONS) expect(can('owner', action)).toBe(true);
  expect(DASHBOARD_ACTIONS.filter((a) => can('read_only', a))).toEqual(['read']);
});

test('finance members refund and read settlement, and change nothing else', () => {
  expect(DASHBOARD_ACTIONS.filter((a) => can('finance', a))).toEqual(['read', 'refund', 'read_settlement']);
});

test('developers manage keys and webhooks but neither refund nor read settlement', () => {
  expect(can('developer', 'manage_keys')).toBe(true);
  expect(can('developer', 'manage_webhooks')).toBe(true);
  expect(can('developer', 'refund')).toBe(false);
  expect(can('developer', 'read_settlement')).toBe(false);
  expect(can('developer', 'manage_team')).toBe(false);
});

test('roles are recognised exactly', () => {
  for (const role of MEMBER_ROLES) expect(isMemberRole(role)).toBe(true);
  for (const other of ['Owner', 'admin', '', null, 1]) expect(isMemberRole(other)).toBe(false);
});
