import { startMailCatcher, type CaughtMessage, type MailCatcher } from '../../simulators/mail/mail-catcher';
import { createSmtpMailer, type Mailer } from '../../adapters/mail/mailer';

export type { CaughtMessage, MailCatcher };

/** A local mail catcher and a real SMTP mailer pointed at it, as `npm start` wires them. */
export async function startTestMail(): Promise<{
  catcher: MailCatcher;
  mailer: Mailer;
  stop(): Promise<void>;
}> {
  const catcher = await startMailCatcher();
  const mailer = createSmtpMailer({ url: catcher.smtpUrl, from: 'Skil <no-reply@skil.test>' });
  return {
    catcher,
    mailer,
    async stop() {
      mailer.close();
      await catcher.stop();
    },
  };
}

/** The first link in a caught message's text that starts with `prefix`. */
export function linkIn(message: CaughtMessage, prefix: string): string {
  const found = message.text.match(/https?:\/\/[^\s<>"']+/g)?.find((u) => u.startsWith(prefix));
  if (!found) throw new Error(`no link starting ${prefix} in mail "${message.subject}":\n${message.text}`);
  return found;
}
