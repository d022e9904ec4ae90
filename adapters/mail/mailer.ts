import nodemailer from 'nodemailer';

/** A file sent with a message (an invoice PDF, a receipt). */
export interface MailAttachment {
  filename: string;
  content: Buffer | string;
  contentType?: string;
}

/** One message to one address: a plain-text body always, an HTML body when the sender has one. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

/** Sends mail; every service that mails (accounts, invoices, receipts) takes one of these. */
export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…` (nodemailer's connection URL). */
  url: string;
  /** The From header, e.g. `Skil <no-reply@skil.is>`. */
  from: string;
}

/**
 * Mail over SMTP to the configured server with nodemailer (decision 0114). A pooled connection
 * is reused across messages; a failed send rejects, and the caller decides whether that matters.
 */
export function createSmtpMailer(opts: SmtpMailerOptions): Mailer {
  const transport = nodemailer.createTransport(opts.url, { from: opts.from });
  return {
    async send(message) {
      const info = await transport.sendMail({
        from: opts.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined && { html: message.html }),
        ...(message.attachments && { attachments: message.attachments }),
      });
      return { messageId: String(info.messageId) };
    },
    close() {
      transport.close();
    },
  };
}

/** A mailer for processes with no mail server configured: every send is refused, loudly. */
export function unconfiguredMailer(): Mailer {
  return {
    send() {
      return Promise.reject(new Error('no mail server configured: set SMTP_URL'));
    },
    close() {},
  };
}
