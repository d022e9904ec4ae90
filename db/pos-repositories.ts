import type { Knex } from './knex';
import { createPosDeviceRepository } from './pos-devices';
import { createPosRefundRepository } from './pos-refunds';
import { createPosRegisterRepository } from './pos-registers';
import { createPosReportRepository } from './pos-reports';
import { createPosSaleRepository } from './pos-sales';
import { createPosShiftRepository } from './pos-shifts';
import { createPosStaffRepository } from './pos-staff';
import { createPosTerminalRepository } from './pos-terminals';

/** The point of sale's repositories, one per aggregate, as the POS services take them. */
export function createPosRepositories(db: Knex) {
  return {
    registers: createPosRegisterRepository(db),
    devices: createPosDeviceRepository(db),
    staff: createPosStaffRepository(db),
    terminals: createPosTerminalRepository(db),
    shifts: createPosShiftRepository(db),
    sales: createPosSaleRepository(db),
    refunds: createPosRefundRepository(db),
    reports: createPosReportRepository(db),
  };
}

export type PosRepositories = ReturnType<typeof createPosRepositories>;
