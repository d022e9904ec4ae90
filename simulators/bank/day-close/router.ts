import express, { type Request, type Response, type Router } from 'express';
import { DayCloseError, type DayCloseResult } from './close-day';

/**
 * `POST /_sim/bank/close-day {date?}`: closes a banking day (default: today) and publishes its
 * files into the SFTP inbox. Closing a closed day again answers 200 with `alreadyClosed: true`.
 */
export function createDayCloseRouter(
  closeDay: ((date?: string) => Promise<DayCloseResult>) | undefined,
): Router {
  const router = express.Router();
  router.post('/_sim/bank/close-day', express.json({ limit: '1kb' }), (req: Request, res: Response) => {
    if (!closeDay)
      return void res.status(409).json({ error: 'this bank has no file exchange (no SFTP root)' });
    const date = (req.body as { date?: unknown } | undefined)?.date;
    if (date !== undefined && (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)))
      return void res.status(400).json({ error: 'date must be YYYY-MM-DD' });
    closeDay(date).then(
      (result) => res.status(result.alreadyClosed ? 200 : 201).json(result),
      (err: unknown) => {
        if (err instanceof DayCloseError) return void res.status(409).json({ error: err.message });
        res.status(500).json({ error: 'close failed' });
      },
    );
  });
  return router;
}
