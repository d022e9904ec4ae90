// The camt.053 / camt.054 parser: one entry point, its event and shape types, its errors.
export { parseCamt, type ParseCamtOptions } from './parse-camt';
export type * from './camt-types';
export { CamtError, CamtControlTotalError, type CamtErrorCode, type ControlCheck } from './errors';
export { parseMinorAmount, formatMinorAmount } from './amount';
export { minorUnitExponent } from './currency-exponents';
