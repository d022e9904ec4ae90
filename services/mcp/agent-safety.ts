import { createHash } from 'node:crypto';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createMcpSafetyRepository, type ConfirmationRow, type RefundUsage } from '../../db/mcp-safety';
import { createMerchantRepository } from '../../db/merchants';
import { ApiError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { randomBase62 } from '../../domain/ids';
import { CONFIRMATION_TTL_SECONDS, mcpSettingsOf, type McpSettings } from '../../domain/mcp-settings';
import { unix } from '../../domain/unix-time';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const TOKEN_SHAPE = /^rfc_[0-9A-Za-z]{32}$/;

/** 403 refund_limit_exceeded: the key's refunds today, with this one, pass a daily limit. */
function limitError(usage: RefundUsage, amount: number, settings: McpSettings): ApiError {
  if (usage.refund_count + 1 > settings.daily_refund_count)
    return new ApiError(
      403,
      'permission_error',
      `This API key has made ${usage.refund_count} refunds through the MCP tools today, the merchant's daily_refund_count of ${settings.daily_refund_count}. Ask a person to refund it, or to raise the limit.`,
      'refund_limit_exceeded',
    );
  return new ApiError(
    403,
    'permission_error',
    `Refunding ${amount} ISK would take this API key to ${usage.refund_amount + amount} ISK refunded through the MCP tools today, over the merchant's daily_refund_amount of ${settings.daily_refund_amount} ISK. Ask a person to refund it, or to raise the limit.`,
    'refund_limit_exceeded',
    'amount',
  );
}

const badToken = (message: string, code: string) =>
  new InvalidRequestError(message, { code, param: 'confirmation_token' });

/**
 * What keeps agents that move money safe through the MCP tools (decisions 0121, 0122, 0202): the
 * merchant's settings, each key's daily refund limits, and the confirmation tokens of refunds and
 * of live subscription and krafa changes.
 */
export function createAgentSafety(deps: { knex: Knex }) {
  const repo = createMcpSafetyRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);

  /**
   * The confirmation a token stands for, if it was issued to this key for this very call, expired
   * or not: a confirmed call answered once is answered again after its token expires (decision 0202).
   */
  async function issuedFor(
    scope: Scope,
    apiKeyId: string,
    token: string,
    call: { tool: string; requestHash: string },
  ): Promise<ConfirmationRow> {
    const row = TOKEN_SHAPE.test(token) ? await repo.findConfirmation(scope, hashToken(token)) : undefined;
    if (!row || row.api_key_id !== apiKeyId)
      throw badToken(
        'No such confirmation_token for this API key. Call without one for a preview and a new token.',
        'confirmation_token_invalid',
      );
    if (row.tool !== call.tool || row.request_hash !== call.requestHash)
      throw badToken(
        `This confirmation_token confirms ${row.tool}${row.object_id ? ` of ${row.object_id}` : ''} (${row.amount} ISK) with the arguments of its preview; send exactly those, or call without a token for a new preview.`,
        'confirmation_token_mismatch',
      );
    return row;
  }

  /** A 400 naming confirmation_token when the confirmation's five minutes are over. */
  async function checkUnexpired(row: ConfirmationRow): Promise<void> {
    if (await repo.isExpired(row.id))
      throw badToken(
        'This confirmation_token has expired. Call without one for a new preview and token.',
        'confirmation_token_expired',
      );
  }

  return {
    async settings(scope: Scope): Promise<McpSettings> {
      const merchant = await merchants.findById(scope.merchantId);
      if (!merchant) throw new NotFoundError(`No such merchant: '${scope.merchantId}'`);
      return mcpSettingsOf(merchant.mcp);
    },

    async refundUsage(apiKeyId: string): Promise<RefundUsage> {
      return repo.refundUsage(apiKeyId);
    },

    /** Refuses, changing nothing, a refund of `amount` that today's limits of the key would refuse. */
    async checkRefundLimits(apiKeyId: string, settings: McpSettings, amount: number): Promise<void> {
      const usage = await repo.refundUsage(apiKeyId);
      if (
        usage.refund_count + 1 > settings.daily_refund_count ||
        usage.refund_amount + amount > settings.daily_refund_amount
      )
        throw limitError(usage, amount, settings);
    },

    /**
     * The refund service's `withinLimits`: counts the refund against the key's day inside the
     * refund's transaction, or refuses it; concurrent refunds by one key queue on the key's row.
     */
    refundLimits(scope: Scope, apiKeyId: string, settings: McpSettings) {
      return async (trx: Knex.Transaction, amount: number): Promise<void> => {
        const counted = await repo.reserveRefund(trx, scope, {
          apiKeyId,
          amount,
          maxCount: settings.daily_refund_count,
          maxAmount: settings.daily_refund_amount,
        });
        if (!counted) throw limitError(await repo.refundUsage(apiKeyId, trx), amount, settings);
      };
    },

    /**
     * A token that confirms this one previewed call (a refund, a live subscription or krafa change:
     * decision 0202), for this key, for a few minutes.
     */
    async issueConfirmation(
      scope: Scope,
      apiKeyId: string,
      input: { tool: string; requestHash: string; objectId: string | null; amount: number },
    ): Promise<{ token: string; expiresAt: number }> {
      await repo.purgeExpiredConfirmations(apiKeyId);
      const token = `rfc_${randomBase62(32)}`;
      const row = await repo.insertConfirmation({
        id: `rfcid_${randomBase62(24)}`,
        merchant_id: scope.merchantId,
        livemode: scope.livemode,
        api_key_id: apiKeyId,
        token_hash: hashToken(token),
        tool: input.tool,
        request_hash: input.requestHash,
        object_id: input.objectId,
        amount: input.amount,
        ttlSeconds: CONFIRMATION_TTL_SECONDS,
      });
      return { token, expiresAt: unix(row.expires_at) };
    },

    /**
     * The confirmation a token stands for, if it was issued to this key for this very call (the
     * same tool and arguments) and has not expired; otherwise a 400 naming confirmation_token.
     */
    async confirmation(
      scope: Scope,
      apiKeyId: string,
      token: string,
      call: { tool: string; requestHash: string },
    ): Promise<ConfirmationRow> {
      const row = await issuedFor(scope, apiKeyId, token, call);
      await checkUnexpired(row);
      return row;
    },

    issuedFor,
    checkUnexpired,
  };
}

export type AgentSafety = ReturnType<typeof createAgentSafety>;
