import { z } from 'zod';
import {
  RegistryUnavailableError,
  type CompanyRegistry,
  type RegistryCompany,
} from '../../domain/company-registry';

/**
 * Skatturinn's company registry (fyrirtækjaskrá) REST interface as it publishes it over X-Road
 * ("Iceland Company Registry - XRoad - REST API", decision 0166): `GET /{kennitala}` answers the
 * company, 404 when there is none. Field names are the registry's own (Icelandic).
 */
export const RskAddress = z
  .object({
    gerd: z.string(),
    heimilisfang: z.string(),
    postnumer: z.string(),
    stadur: z.string(),
    sveitarfelaganumer: z.string(),
    land: z.string(),
    er_postholf: z.string(),
    byggd: z.string(),
  })
  .passthrough();

export const RskCompany = z
  .object({
    kennitala: z.string(),
    nafn: z.string(),
    skrad: z.string(),
    stada: z.string(),
    heimilisfang: z.array(RskAddress).optional(),
    rekstrarform: z.array(z.object({ tegund: z.string(), heiti: z.string() }).passthrough()).optional(),
    sidast_uppfaert: z.string().optional(),
  })
  .passthrough();

export const RskError = z
  .object({ code: z.number().int(), message: z.string(), type: z.string(), instance: z.string() })
  .passthrough();

export interface RskRegistryOptions {
  /** The service's base path, e.g. `https://<x-road-server>/r1/<provider id>`. */
  baseUrl: string;
  /** This service's X-Road client id (`X-Road-Client` header); unset when the base URL needs none. */
  xroadClient?: string | undefined;
  timeoutMs?: number;
}

/** The registered (legal) address: the registry's lögheimili when it lists several. */
function legalAddress(addresses: z.infer<typeof RskAddress>[]): RegistryCompany['legal_address'] | null {
  const a = addresses.find((x) => /^l[öo]gheimili/i.test(x.gerd)) ?? addresses[0];
  if (!a) return null;
  return {
    street: a.heimilisfang,
    city: a.stadur,
    postalCode: a.postnumer,
    // The registry writes the country as a code or as a name; Iceland's companies are in Iceland.
    country: /^(is|ísland|island|iceland)$/i.test(a.land) || a.land === '' ? 'IS' : a.land,
  };
}

/** The live `CompanyRegistry`: Skatturinn's register read over its published REST interface. */
export function createRskCompanyRegistry(opts: RskRegistryOptions): CompanyRegistry {
  const base = opts.baseUrl.replace(/\/$/, '');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    source: 'skatturinn_fyrirtaekjaskra',
    async lookup(kennitala) {
      let res: Response;
      try {
        res = await fetch(`${base}/${encodeURIComponent(kennitala)}`, {
          headers: {
            accept: 'application/json',
            ...(opts.xroadClient && { 'x-road-client': opts.xroadClient }),
          },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new RegistryUnavailableError((err as Error).message);
      }
      const body: unknown = await res.json().catch(() => undefined);
      if (res.status === 404) return null;
      if (res.status !== 200) {
        const e = RskError.safeParse(body);
        throw new RegistryUnavailableError(
          `the registry answered ${res.status}${e.success ? `: ${e.data.message}` : ''}`,
        );
      }
      const parsed = RskCompany.safeParse(body);
      if (!parsed.success)
        throw new RegistryUnavailableError(
          `the registry's answer does not match its schema: ${parsed.error.message}`,
        );
      const company = parsed.data;
      // The registry answers the kennitala asked for; anything else is not this company.
      if (company.kennitala !== kennitala) return null;
      const address = legalAddress(company.heimilisfang ?? []);
      if (!address) throw new RegistryUnavailableError(`the registry lists no address for ${kennitala}`);
      return { kennitala: company.kennitala, name: company.nafn, legal_address: address };
    },
  };
}
