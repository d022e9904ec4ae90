export { Skil } from './client';
export type { SkilOptions, RequestOptions } from './http';
export type { ListPage, ListPromise } from './pagination';
export type { RequestBody, QueryParams, Result } from './operations';
export type { SkilEvent } from './webhooks';
export { constructEvent } from './webhooks';
export * from './errors';
export type { paths } from './api-types';
