import { readFileSync } from 'node:fs';
import type { Config } from '../../stack/config';
import type { SftpConnectionConfig } from './sftp-transport';

/**
 * A bank connection: the SFTP file exchange of one collection account, in one environment. Bank
 * sync fetches its statements and notifications; payouts are uploaded to its outbox. Bank files are
 * the service's own (not a merchant's), so a connection is scoped by environment only (decision 0090).
 */
export interface BankConnection {
  id: string;
  livemode: boolean;
  sftp: SftpConnectionConfig;
  /** The collection account (12 digits, 4-2-6 without dashes) and its owner's kennitala. */
  collectionAccount: { account: string; kennitala: string };
}

/** The configured connections: one from BANK_SFTP_*, or none when BANK_SFTP_HOST is unset. */
export function bankConnectionsFromConfig(config: Config): BankConnection[] {
  if (config.BANK_SFTP_HOST === undefined) return [];
  if (config.BANK_SFTP_HOST_KEY_SHA256 === undefined) {
    throw new Error('BANK_SFTP_HOST_KEY_SHA256 is required with BANK_SFTP_HOST: the host key is pinned');
  }
  if (config.BANK_SFTP_PASSWORD === undefined && config.BANK_SFTP_PRIVATE_KEY_PATH === undefined) {
    throw new Error('BANK_SFTP_PASSWORD or BANK_SFTP_PRIVATE_KEY_PATH is required with BANK_SFTP_HOST');
  }
  return [
    {
      id: config.BANK_CONNECTION_ID,
      livemode: config.BANK_LIVEMODE === 'true',
      sftp: {
        host: config.BANK_SFTP_HOST,
        port: config.BANK_SFTP_PORT,
        username: config.BANK_SFTP_USERNAME,
        ...(config.BANK_SFTP_PASSWORD !== undefined && { password: config.BANK_SFTP_PASSWORD }),
        ...(config.BANK_SFTP_PRIVATE_KEY_PATH !== undefined && {
          privateKey: readFileSync(config.BANK_SFTP_PRIVATE_KEY_PATH),
        }),
        hostKeySha256: config.BANK_SFTP_HOST_KEY_SHA256,
        folders: {
          inbox: config.BANK_SFTP_INBOX,
          archive: config.BANK_SFTP_ARCHIVE,
          outbox: config.BANK_SFTP_OUTBOX,
        },
      },
      collectionAccount: {
        account: config.BANK_COLLECTION_ACCOUNT,
        kennitala: config.BANK_COLLECTION_KENNITALA,
      },
    },
  ];
}
