import type { Db } from './knex';
import { randomBase62 } from '../domain/ids';
import { sha256 } from '../domain/device-codes';
import type { MemberRole } from '../domain/member-roles';
import { normalizeEmail } from './users';

export interface TeamInvitationRow {
  id: string;
  merchant_id: string;
  email: string;
  role: MemberRole;
  invited_by: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_user_id: string | null;
  revoked_at: Date | null;
}

/** Invitations to a merchant's team (decision 0117); the link's token is kept as its hash. */
export function createTeamInvitationRepository(db: Db) {
  const open = (trx: Db) =>
    trx<TeamInvitationRow>('team_invitations')
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', trx.fn.now());

  return {
    /** A new invitation; an open one to the same address is revoked first (the new link wins). */
    async create(
      input: { merchantId: string; email: string; role: MemberRole; invitedBy: string; ttlSeconds: number },
      trx: Db,
    ): Promise<{ row: TeamInvitationRow; token: string }> {
      const email = normalizeEmail(input.email);
      await trx('team_invitations')
        .where({ merchant_id: input.merchantId })
        .whereRaw('lower(email) = ?', [email])
        .whereNull('accepted_at')
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now() });
      const token = randomBase62(43);
      const [row] = await trx<TeamInvitationRow>('team_invitations')
        .insert({
          id: `inv_${randomBase62(20)}`,
          merchant_id: input.merchantId,
          email,
          role: input.role,
          invited_by: input.invitedBy,
          token_hash: sha256(token),
          expires_at: trx.raw(`now() + ? * interval '1 second'`, [input.ttlSeconds]) as never,
        })
        .returning('*');
      return { row: row!, token };
    },

    /** The open invitation of a link's token, if any. */
    async findOpenByToken(token: string, trx: Db = db): Promise<TeamInvitationRow | undefined> {
      return open(trx)
        .where({ token_hash: sha256(token) })
        .first();
    },

    /** Locks the open invitation of a token for its acceptance. */
    async lockOpenByToken(token: string, trx: Db): Promise<TeamInvitationRow | undefined> {
      return open(trx)
        .where({ token_hash: sha256(token) })
        .forUpdate()
        .first();
    },

    async markAccepted(id: string, userId: string, trx: Db): Promise<void> {
      await trx('team_invitations')
        .where({ id })
        .update({ accepted_at: trx.fn.now(), accepted_user_id: userId });
    },

    /** The merchant's open invitations, newest first. */
    async listOpen(merchantId: string, trx: Db = db): Promise<TeamInvitationRow[]> {
      return open(trx).where({ merchant_id: merchantId }).orderBy('created_at', 'desc');
    },

    async revoke(merchantId: string, id: string, trx: Db = db): Promise<boolean> {
      const n = await open(trx).where({ merchant_id: merchantId, id }).update({ revoked_at: trx.fn.now() });
      return n > 0;
    },
  };
}
