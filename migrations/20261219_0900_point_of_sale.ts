import type { Knex } from 'knex';

/**
 * The point of sale (decisions 0126-0129): registers, their paired devices and terminals, staff with PINs,
 * drawer shifts, sales with their lines and payment parts, refunds, and Z-reports. A Z-report is
 * immutable once made: a trigger refuses every UPDATE and DELETE of pos_z_reports (decision 0128).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table pos_registers (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      name text not null,
      location text,
      next_sale_number integer not null default 1,
      created_at timestamptz not null default now()
    );
    create index pos_registers_tenant on pos_registers (merchant_id, livemode, created_at desc, id desc);

    create table pos_pairing_codes (
      code_hash text primary key,
      merchant_id text not null,
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    );

    create table pos_staff (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      name text not null,
      role text not null check (role in ('cashier', 'manager')),
      pin_hash text not null,
      failed_pin_attempts integer not null default 0 check (failed_pin_attempts >= 0),
      locked_until timestamptz,
      active boolean not null default true,
      created_at timestamptz not null default now(),
      -- No shared codes: a PIN (keyed hash per merchant and mode) names one person.
      unique (merchant_id, livemode, pin_hash)
    );
    create index pos_staff_tenant on pos_staff (merchant_id, livemode, created_at desc, id desc);

    create table pos_devices (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      secret_hash text not null unique,
      signed_in_staff_id text references pos_staff(id),
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    );

    create table pos_terminal_announcements (
      registration_code text primary key,
      url text not null,
      device_type text not null check (device_type in ('simulated_reader', 'tap_to_pay')),
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    );

    create table pos_terminals (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      label text,
      device_type text not null,
      url text not null,
      secret text not null,
      created_at timestamptz not null default now()
    );
    create index pos_terminals_register on pos_terminals (register_id, created_at desc);

    create table pos_shifts (
      id text primary key,
      merchant_id text not null,
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      opened_by text not null references pos_staff(id),
      opening_float bigint not null check (opening_float >= 0),
      opened_at timestamptz not null default now(),
      closed_by text references pos_staff(id),
      closed_at timestamptz,
      counted_cash bigint check (counted_cash >= 0),
      expected_cash bigint,
      z_report_id text
    );
    create unique index pos_shifts_one_open on pos_shifts (register_id) where closed_at is null;

    create table pos_drawer_events (
      id text primary key,
      merchant_id text not null,
      livemode boolean not null,
      shift_id text not null references pos_shifts(id),
      staff_id text not null references pos_staff(id),
      kind text not null check (kind in ('paid_in', 'paid_out', 'no_sale')),
      amount bigint not null default 0 check (amount >= 0),
      reason text,
      created_at timestamptz not null default now()
    );

    create table pos_sales (
      id text primary key,
      merchant_id text not null,
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      shift_id text not null references pos_shifts(id),
      staff_id text not null references pos_staff(id),
      number integer not null,
      total bigint not null check (total >= 0),
      discount bigint not null default 0 check (discount >= 0),
      change_due bigint not null default 0 check (change_due >= 0),
      amount_refunded bigint not null default 0,
      email text,
      z_report_id text,
      created_at timestamptz not null default now(),
      unique (register_id, number),
      check (amount_refunded between 0 and total)
    );
    create index pos_sales_tenant on pos_sales (merchant_id, livemode, created_at desc, id desc);

    create table pos_sale_lines (
      sale_id text not null references pos_sales(id),
      position integer not null,
      product_id text,
      variant_id text,
      description text not null,
      quantity integer not null check (quantity > 0),
      unit_amount bigint not null check (unit_amount >= 0),
      discount_amount bigint not null default 0 check (discount_amount >= 0),
      vat_rate integer not null check (vat_rate in (0, 11, 24)),
      amount bigint not null check (amount >= 0),
      primary key (sale_id, position)
    );

    create table pos_sale_payments (
      sale_id text not null references pos_sales(id),
      position integer not null,
      method text not null check (method in ('cash', 'card')),
      amount bigint not null check (amount > 0),
      tendered bigint,
      payment_intent_id text references payment_intents(id),
      primary key (sale_id, position)
    );

    create table pos_refunds (
      id text primary key,
      merchant_id text not null,
      livemode boolean not null,
      sale_id text not null references pos_sales(id),
      register_id text not null references pos_registers(id),
      shift_id text not null references pos_shifts(id),
      staff_id text not null references pos_staff(id),
      method text not null check (method in ('cash', 'card')),
      amount bigint not null check (amount > 0),
      refund_id text,
      idempotency_key text not null,
      z_report_id text,
      created_at timestamptz not null default now(),
      unique (sale_id, idempotency_key)
    );

    create table pos_z_reports (
      id text primary key,
      merchant_id text not null,
      livemode boolean not null,
      register_id text not null references pos_registers(id),
      number integer not null check (number > 0),
      period_start timestamptz,
      period_end timestamptz not null,
      grand_total bigint not null,
      report jsonb not null,
      made_by text not null references pos_staff(id),
      created_at timestamptz not null default now(),
      unique (register_id, number)
    );

    create function pos_z_reports_immutable() returns trigger language plpgsql as $$
    begin
      raise exception 'a Z-report is immutable once made (%)', old.id using errcode = 'integrity_constraint_violation';
    end $$;
    create trigger pos_z_reports_immutable before update or delete on pos_z_reports
      for each row execute function pos_z_reports_immutable();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger pos_z_reports_immutable on pos_z_reports;
    drop function pos_z_reports_immutable();
    drop table pos_z_reports, pos_refunds, pos_sale_payments, pos_sale_lines, pos_sales,
      pos_drawer_events, pos_shifts, pos_terminals, pos_terminal_announcements, pos_devices,
      pos_staff, pos_pairing_codes, pos_registers;
  `);
}
