/**
 * A merchant's team roles and what each may do in the dashboard. The one table every page and
 * dashboard form consults; the API keys are not roles (a key opens its whole environment).
 * Merchant `finance` members are the merchant's own bookkeepers, not the platform's finance
 * operators (users of kind `operator`).
 */
export const MEMBER_ROLES = ['owner', 'developer', 'finance', 'read_only'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const DASHBOARD_ACTIONS = [
  /** Read payments, customers, subscriptions, catalog, kröfur, events. */
  'read',
  /** Refund a payment. */
  'refund',
  /** Create or change products, prices, payment links, coupons. */
  'write_catalog',
  /** Cancel or change subscriptions, cancel kröfur. */
  'write_billing',
  /** Webhook channels, their secrets, resends and test sends. */
  'manage_webhooks',
  /** API keys and device-login approvals. */
  'manage_keys',
  /** Read the merchant's settlement runs, payouts and their CSV. */
  'read_settlement',
  /** Profile, theme, claim terms, the live application. */
  'manage_settings',
  /** Invite, change and remove team members. */
  'manage_team',
  /** Read and export the merchant's audit log (decision 0227). */
  'read_audit_log',
] as const;
export type DashboardAction = (typeof DASHBOARD_ACTIONS)[number];

const ALLOWED: Record<MemberRole, ReadonlySet<DashboardAction>> = {
  owner: new Set(DASHBOARD_ACTIONS),
  developer: new Set(['read', 'write_catalog', 'manage_webhooks', 'manage_keys']),
  finance: new Set(['read', 'refund', 'read_settlement']),
  read_only: new Set(['read']),
};

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);
}

/** Whether a member with `role` may take `action`. */
export function can(role: MemberRole, action: DashboardAction): boolean {
  return ALLOWED[role].has(action);
}
