import http from 'node:http';
import pg from 'pg';

/**
 * The baseline of bench/api-load.ts (decision 0188): bare node:http with one PostgreSQL statement per
 * request on the same database and pool size as the API. POST inserts one row; GET selects one page
 * of 25 events of a merchant. No framework, no auth, no logging: the floor the API is measured against.
 * Env: DATABASE_URL, PORT, MERCHANT_ID, POOL_MAX.
 */
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_MAX ?? 10),
});
const merchantId = process.env.MERCHANT_ID ?? '';

const server = http.createServer((req, res) => {
  const fail = (err: unknown) => {
    res.writeHead(500).end(String(err));
  };
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        amount: number;
        metadata: { bench_key: string };
      };
      pool
        .query(
          'insert into bench_baseline_rows (key, amount) values ($1, $2) returning key, amount, created_at',
          [body.metadata.bench_key, body.amount],
        )
        .then(({ rows }) => {
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(rows[0]));
        }, fail);
    });
    return;
  }
  pool
    .query(
      'select id, type, data, created_at from events where merchant_id = $1 and livemode = false order by created_at, seq limit 25',
      [merchantId],
    )
    .then(({ rows }) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: rows, has_more: true }));
    }, fail);
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
process.once('SIGTERM', () => {
  server.close(() => void pool.end().finally(() => process.exit(0)));
});
