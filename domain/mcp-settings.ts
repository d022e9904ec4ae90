import { z } from 'zod';

/**
 * The merchant's settings for agents that use the MCP server (decisions 0121, 0122): whether a
 * refund made with a test key needs confirmation too (with a live key it always does), and how many
 * refunds, and how much, each API key may refund through the tools per day (Reykjavik calendar).
 */
export interface McpSettings {
  confirm_test_refunds: boolean;
  daily_refund_count: number;
  daily_refund_amount: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = {
  confirm_test_refunds: false,
  daily_refund_count: 20,
  daily_refund_amount: 500_000,
};

/** A confirmation token of a previewed refund is good for this long. */
export const CONFIRMATION_TTL_SECONDS = 300;

/** PATCH /v1/merchant `mcp`: only the fields sent change (merged like claim_terms). */
export const McpSettingsPatch = z
  .object({
    confirm_test_refunds: z
      .boolean()
      .describe('Refunds with a test key need a confirmation token too (live keys always do)'),
    daily_refund_count: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .describe('Refunds each API key may make through the MCP tools per day; 0 = none'),
    daily_refund_amount: z
      .number()
      .int()
      .min(0)
      .max(999_999_999_999)
      .describe('ISK each API key may refund through the MCP tools per day'),
  })
  .partial()
  .strict();

export type McpSettingsPatch = z.output<typeof McpSettingsPatch>;

/** The settings stored on a merchant (jsonb, possibly partial), with defaults filled in. */
export function mcpSettingsOf(stored: unknown): McpSettings {
  const parsed = McpSettingsPatch.safeParse(stored ?? {});
  return { ...DEFAULT_MCP_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}

/** Whether a refund needs a confirmation token: always with a live key, with a test key when set. */
export function refundNeedsConfirmation(livemode: boolean, settings: McpSettings): boolean {
  return livemode || settings.confirm_test_refunds;
}
