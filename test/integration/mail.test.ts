import { startMailCatcher, type MailCatcher } from '../../simulators/mail/mail-catcher';
import { createSmtpMailer, type Mailer } from '../../adapters/mail/mailer';

// The mail room (decision 0114): a message sent over real SMTP by the service's mailer is caught,
// parsed, listed on the catcher's page and shown there with its links clickable.
let catcher: MailCatcher;
let mailer: Mailer;

beforeAll(async () => {
  catcher = await startMailCatcher();
  mailer = createSmtpMailer({ url: catcher.smtpUrl, from: 'Skil <no-reply@skil.test>' });
});

afterAll(async () => {
  mailer.close();
  await catcher.stop();
});

test('a message sent over SMTP is caught, parsed and shown with clickable links', async () => {
  const link = 'http://127.0.0.1:3000/dashboard/verify-email?token=abc&x=1';
  const sent = await mailer.send({
    to: 'Owner@Example.is',
    subject: 'Staðfestu netfangið þitt',
    text: `Halló.\n\nSmelltu hér: ${link}\n`,
    html: `<p>Halló.</p><p><a href="${link}">Staðfesta</a></p>`,
    attachments: [{ filename: 'kvittun.txt', content: 'greitt 4990 kr.', contentType: 'text/plain' }],
  });
  expect(sent.messageId).toMatch(/@/);

  const message = await catcher.waitFor((m) => m.subject === 'Staðfestu netfangið þitt');
  expect(message.to).toEqual(['owner@example.is']);
  expect(message.from).toContain('no-reply@skil.test');
  expect(message.text).toContain(link);
  expect(message.html).toContain('<a href=');
  expect(message.attachments).toEqual([{ filename: 'kvittun.txt', contentType: 'text/plain', size: 15 }]);

  const list = await fetch(catcher.pageUrl + '/');
  expect(list.status).toBe(200);
  const listHtml = await list.text();
  expect(listHtml).toContain(`href="/messages/${message.id}"`);
  expect(listHtml).toContain('Staðfestu netfangið þitt');

  const shown = await (await fetch(`${catcher.pageUrl}/messages/${message.id}`)).text();
  expect(shown).toContain(`<a href="${link.replace('&', '&amp;')}">`);
  expect(shown).toContain('kvittun.txt');

  const json = (await (await fetch(catcher.pageUrl + '/messages.json')).json()) as { data: { id: string }[] };
  expect(json.data.map((m) => m.id)).toContain(message.id);
});

test('a send to a server that is not there rejects', async () => {
  const nowhere = createSmtpMailer({ url: 'smtp://127.0.0.1:1', from: 'Skil <no-reply@skil.test>' });
  await expect(nowhere.send({ to: 'a@b.is', subject: 's', text: 't' })).rejects.toThrow();
  nowhere.close();
});

test('with a data folder, the caught messages are listed again after a restart', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'skil-mail-'));
  const first = await startMailCatcher({ dataDir });
  const sender = createSmtpMailer({ url: first.smtpUrl, from: 'Skil <no-reply@skil.test>' });
  await sender.send({ to: 'kept@example.is', subject: 'Kept across restarts', text: 'hello' });
  sender.close();
  const caught = await first.waitFor((m) => m.subject === 'Kept across restarts');
  await first.stop();

  const second = await startMailCatcher({ dataDir });
  try {
    expect(second.messages().map((m) => [m.id, m.subject, m.to])).toEqual([
      [caught.id, 'Kept across restarts', ['kept@example.is']],
    ]);
    expect(await (await fetch(`${second.pageUrl}/messages/${caught.id}`)).text()).toContain('hello');
  } finally {
    await second.stop();
  }
});
