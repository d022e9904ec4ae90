import { Readable } from 'node:stream';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import multer from 'multer';
import { InvalidRequestError } from '../../domain/errors';

/**
 * One request shape, four encodings (spec §4; architecture, "API conventions"): JSON, plain text
 * holding JSON, form-encoded and multipart form. Nested objects and arrays use bracket names in
 * the form encodings (`config[url]=…`, `event_subscriptions[]=…`), as Stripe's API does.
 */
export function bodyParsers(limitBytes: number): RequestHandler[] {
  const json = express.json({
    limit: limitBytes,
    strict: false,
    type: ['application/json', 'application/*+json'],
  });
  const text = express.text({ limit: limitBytes, type: 'text/plain' });
  const form = express.urlencoded({ limit: limitBytes, extended: true, parameterLimit: 1000 });
  const multipart = multer({ limits: { fieldSize: limitBytes, fields: 1000, files: 0, parts: 1000 } }).none();

  const guard: RequestHandler = (req, _res, next) => {
    const length = Number(req.headers['content-length'] ?? 0);
    const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
    if (length > limitBytes) return next(tooLarge(limitBytes));
    if (!hasBody) return next();
    if (
      !req.is([
        'application/json',
        'application/*+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ])
    ) {
      return next(
        new InvalidRequestError(
          `Unsupported Content-Type ${req.headers['content-type'] ?? '(none)'}: send application/json, text/plain, application/x-www-form-urlencoded or multipart/form-data`,
          { status: 415, code: 'unsupported_media_type' },
        ),
      );
    }
    next();
  };

  const textAsJson: RequestHandler = (req, _res, next) => {
    if (req.is('text/plain') && typeof req.body === 'string') {
      if (req.body.trim() === '') {
        req.body = {};
      } else {
        try {
          req.body = JSON.parse(req.body) as unknown;
        } catch {
          return next(
            new InvalidRequestError('The text/plain body must hold a JSON object', {
              code: 'invalid_json',
              param: 'body',
            }),
          );
        }
      }
    }
    next();
  };

  return [guard, json, text, textAsJson, form, multipart];
}

/**
 * The same four parsers for a body already read as raw bytes: a route that must check a signature
 * over the exact bytes received (the platform webhooks) reads them first, then replays them here,
 * so it takes every encoding the API declares with the same object shape (decision 0204). Resolves
 * with the parsed body; rejects with the parsers' own errors, which `bodyErrors` maps.
 */
export function rawBodyParser(limitBytes: number): (req: Request, bytes: Buffer) => Promise<unknown> {
  const parsers = bodyParsers(limitBytes);
  return async (req, bytes) => {
    // A plain readable, not a writable one: the parsers take an ended writable for a body already read.
    const replay = Readable.from([bytes], { objectMode: false });
    // The bytes are already decoded (Content-Encoding) and counted: the replay has neither to undo.
    const {
      'content-encoding': _encoding,
      'transfer-encoding': _transfer,
      'content-length': _length,
      ...headers
    } = req.headers;
    const replayed = Object.assign(replay, {
      headers: { ...headers, 'content-length': String(bytes.length) },
      method: req.method,
      url: req.url,
      body: undefined,
      is: (types: string | string[]) => req.is.call(replayed, types),
    });
    for (const parse of parsers)
      await new Promise<void>((resolve, reject) => {
        // A parser's refusal is an Error (an HttpError with its status); anything else passes on.
        parse(replayed as unknown as Request, {} as never, (err?: unknown) =>
          err instanceof Error ? reject(err) : resolve(),
        );
      });
    return replayed.body;
  };
}

function tooLarge(limitBytes: number): InvalidRequestError {
  return new InvalidRequestError(`Request body is larger than the limit of ${limitBytes} bytes`, {
    status: 413,
    code: 'body_too_large',
  });
}

/** Maps the parsers' own errors (body-parser, multer) to the envelope, before the generic handler. */
export function bodyErrors(limitBytes: number): ErrorRequestHandler {
  return (err: unknown, req, _res, next) => {
    const e = err as {
      type?: string;
      code?: string;
      status?: number;
      name?: string;
      message?: string;
      expose?: boolean;
      errno?: number;
    };
    if (
      e.type === 'entity.too.large' ||
      e.code === 'LIMIT_FIELD_VALUE' ||
      e.code === 'LIMIT_FIELD_COUNT' ||
      e.code === 'LIMIT_PART_COUNT'
    ) {
      return next(tooLarge(limitBytes));
    }
    if (e.type === 'entity.parse.failed') {
      return next(
        new InvalidRequestError('The request body is not valid JSON', {
          code: 'invalid_json',
          param: 'body',
        }),
      );
    }
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      return next(
        new InvalidRequestError(e.message ?? 'Unsupported body encoding', {
          status: 415,
          code: 'unsupported_media_type',
        }),
      );
    }
    if (
      e.type === 'request.aborted' ||
      e.type === 'request.size.invalid' ||
      e.type === 'parameters.too.many'
    ) {
      return next(new InvalidRequestError(e.message ?? 'Malformed request body', { code: 'invalid_body' }));
    }
    if (
      e.name === 'MulterError' ||
      (e.message ?? '').startsWith('Multipart:') ||
      e.message === 'Unexpected end of form'
    ) {
      return next(
        new InvalidRequestError(`Malformed multipart body: ${e.message ?? 'unreadable'}`, {
          code: 'invalid_body',
        }),
      );
    }
    if (typeof e.errno === 'number' && /^(Z_|ERR__ERROR)/.test(e.code ?? '')) {
      // zlib's own error (gzip, deflate, br): the body is not what its Content-Encoding says.
      const encoding = req.headers['content-encoding'] ?? 'compressed';
      return next(
        new InvalidRequestError(
          `The request body could not be decompressed: it is not valid ${encoding} data (${e.message ?? e.code})`,
          { code: 'invalid_body' },
        ),
      );
    }
    if (e.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      // Any other error the body parsers raise as the client's (http-errors' expose): still the body's.
      return next(
        new InvalidRequestError(`Malformed request body: ${e.message ?? 'unreadable'}`, {
          code: 'invalid_body',
        }),
      );
    }
    next(err);
  };
}

/**
 * A body is one object; anything else (an array, a number) is refused here. POST and PATCH without
 * a body have an empty one; a DELETE may carry one (a subscription's cancellation_reason).
 */
export const requireObjectBody: RequestHandler = (req, _res, next) => {
  const writes = req.method === 'POST' || req.method === 'PATCH';
  if (!writes && (req.method !== 'DELETE' || req.body === undefined)) return next();
  if (req.body === undefined || req.body === null) req.body = {};
  const body: unknown = req.body;
  if (typeof body !== 'object' || Array.isArray(body)) {
    return next(new InvalidRequestError('The request body must be an object', { code: 'invalid_body' }));
  }
  next();
};
