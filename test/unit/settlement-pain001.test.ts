import { writePain001, pain001FileName, PAIN001_NAMESPACE } from '../../adapters/banks/pain001';
import { createPain001SftpChannel } from '../../adapters/banks/payout-channel';
import { TransportError, type BankFileTransport } from '../../adapters/banks/bank-file-transport';
import { readPain001 } from '../../simulators/bank/pain001-reader';
import type { BankConnection } from '../../adapters/banks/bank-connections';

const payment = {
  runId: 'stl_run1',
  payoutId: 'po_payout1',
  amount: 66_238,
  requestedDate: '2026-11-23',
  createdAt: new Date('2026-11-21T10:15:30.123Z'),
  debtor: { name: 'Skil', account: '013326000133' },
  creditor: { name: 'Kaffi & <Kökur> ehf.', kennitala: '4709063520', account: '010126123456' },
};

test('writes pain.001.001.09 that the simulated bank reads back exactly', () => {
  const xml = writePain001(payment);
  expect(
    xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="' + PAIN001_NAMESPACE + '">'),
  ).toBe(true);
  expect(xml).toContain('<CreDtTm>2026-11-21T10:15:30+00:00</CreDtTm>');
  expect(xml).toContain('<Nm>Kaffi &amp; &lt;Kökur&gt; ehf.</Nm>');
  expect(xml).toContain('<InstdAmt Ccy="ISK">66238</InstdAmt>');
  expect(readPain001(xml)).toEqual({
    msgId: 'po_payout1',
    debtorAccount: '013326000133',
    payouts: [
      {
        payoutId: 'po_payout1',
        runId: 'stl_run1',
        amount: 66_238,
        creditorName: 'Kaffi & <Kökur> ehf.',
        creditorId: '4709063520',
        creditorAccount: '010126123456',
        remittance: 'stl_run1',
        requestedDate: '2026-11-23',
      },
    ],
  });
  // The same payout always gives the same bytes, so a retried upload is the same file.
  expect(writePain001(payment)).toBe(xml);
});

test('a run’s krafa refunds go in the same file, each a credit transfer to its payer (decision 0101)', () => {
  const xml = writePain001({
    ...payment,
    refunds: [
      {
        refundId: 're_one',
        amount: 5_000,
        creditor: { name: 'Jón Jónsson', kennitala: '1201603389', account: '000126603389' },
        remittance: 'Refund re_one Kaffi',
      },
    ],
  });
  expect(xml).toContain('<NbOfTxs>2</NbOfTxs>');
  expect(xml).toContain(`<CtrlSum>${66_238 + 5_000}</CtrlSum>`);
  // A person's kennitala is a private id; the merchant's stays an organisation id.
  expect(xml).toContain('<PrvtId>');
  expect(readPain001(xml).payouts).toEqual([
    expect.objectContaining({ payoutId: 'po_payout1', amount: 66_238, creditorId: '4709063520' }),
    {
      payoutId: 're_one',
      runId: 'stl_run1',
      amount: 5_000,
      creditorName: 'Jón Jónsson',
      creditorId: '1201603389',
      creditorAccount: '000126603389',
      remittance: 'Refund re_one Kaffi',
      requestedDate: '2026-11-23',
    },
  ]);
  expect(() =>
    writePain001({
      ...payment,
      refunds: [{ refundId: 're_x', amount: 0, creditor: payment.creditor, remittance: 'x' }],
    }),
  ).toThrow(RangeError);
});

test('refuses amounts and accounts the file cannot carry', () => {
  expect(() => writePain001({ ...payment, amount: 0 })).toThrow(RangeError);
  expect(() => writePain001({ ...payment, amount: 10.5 })).toThrow(RangeError);
  expect(() =>
    writePain001({ ...payment, creditor: { ...payment.creditor, account: '0101-26-123456' } }),
  ).toThrow('creditor account must be 12 digits');
  expect(() => writePain001({ ...payment, creditor: { ...payment.creditor, kennitala: '123' } })).toThrow(
    RangeError,
  );
});

const connection: BankConnection = {
  id: 'simulated',
  livemode: false,
  sftp: {
    host: '127.0.0.1',
    port: 22,
    username: 'skil',
    hostKeySha256: 'SHA256:x',
    folders: { inbox: '/inbox', archive: '/archive', outbox: '/outbox' },
  },
  collectionAccount: { account: '013326000133', kennitala: '5012131870' },
};

function recordingTransport(fail?: TransportError) {
  const uploads: { name: string; content: string }[] = [];
  let closed = 0;
  const transport: BankFileTransport = {
    listInbox: () => Promise.resolve([]),
    download: () => Promise.reject(new Error('not used')),
    archive: () => Promise.resolve(),
    upload: (name, content) => {
      if (fail) return Promise.reject(fail);
      uploads.push({ name, content: Buffer.isBuffer(content) ? content.toString('utf8') : 'stream' });
      return Promise.resolve();
    },
    close: () => {
      closed++;
      return Promise.resolve();
    },
  };
  return { transport, uploads, closed: () => closed };
}

test('the SFTP channel uploads pain001_{payout}.xml and treats an existing file as delivered', async () => {
  const ok = recordingTransport();
  const channel = createPain001SftpChannel(connection, { transport: () => ok.transport });
  const { debtor: _debtor, ...instruction } = payment;
  await expect(channel.submit(instruction)).resolves.toEqual({ fileName: pain001FileName('po_payout1') });
  expect(ok.uploads).toEqual([{ name: 'pain001_po_payout1.xml', content: writePain001(payment) }]);
  expect(ok.closed()).toBe(1);

  const exists = recordingTransport(new TransportError('already_exists', 'file exists', false));
  await expect(
    createPain001SftpChannel(connection, { transport: () => exists.transport }).submit(instruction),
  ).resolves.toEqual({ fileName: 'pain001_po_payout1.xml' });

  const down = recordingTransport(new TransportError('connection_failed', 'refused', true));
  await expect(
    createPain001SftpChannel(connection, { transport: () => down.transport }).submit(instruction),
  ).rejects.toMatchObject({ kind: 'connection_failed' });
  expect(down.closed()).toBe(1);
});
