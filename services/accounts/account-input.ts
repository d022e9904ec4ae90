import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/password';
import { isMemberRole, type MemberRole } from '../../domain/member-roles';

/** What is wrong with one field of an account form; the page words it in the reader's language. */
export interface FieldIssue {
  param: 'business_name' | 'email' | 'password' | 'role' | 'token';
  code:
    | 'business_name_missing'
    | 'business_name_too_long'
    | 'email_invalid'
    | 'email_taken'
    | 'already_member'
    | 'password_too_short'
    | 'password_too_long'
    | 'role_invalid'
    | 'token_invalid';
}

export const BUSINESS_NAME_MAX = 255;
/** RFC 5321's longest forward path, less the angle brackets. */
export const EMAIL_MAX = 254;

export function emailIssue(email: string): FieldIssue | null {
  const e = email.trim();
  if (e.length === 0 || e.length > EMAIL_MAX || !/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(e))
    return { param: 'email', code: 'email_invalid' };
  return null;
}

export function passwordIssue(password: string): FieldIssue | null {
  if (password.length < PASSWORD_MIN_LENGTH) return { param: 'password', code: 'password_too_short' };
  if (password.length > PASSWORD_MAX_LENGTH) return { param: 'password', code: 'password_too_long' };
  return null;
}

export function businessNameIssue(name: string): FieldIssue | null {
  const n = name.trim();
  if (n.length === 0) return { param: 'business_name', code: 'business_name_missing' };
  if (n.length > BUSINESS_NAME_MAX) return { param: 'business_name', code: 'business_name_too_long' };
  return null;
}

export function roleIssue(role: string): FieldIssue | null {
  return isMemberRole(role) ? null : { param: 'role', code: 'role_invalid' };
}

export function asRole(role: string): MemberRole {
  if (!isMemberRole(role)) throw new Error(`not a role: ${role}`);
  return role;
}

/** Whether an error is PostgreSQL's unique violation of `constraint`. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === constraint;
}
