import type { TestStack } from './stack';
import { createOperator } from './accounts';
import { startSimulatedTerminal, type SimulatedTerminal } from '../../simulators/pos-terminal/service';

/** Switches features.pos for a merchant through the operator API, as an operator would. */
export async function setPos(stack: TestStack, merchantId: string, on: boolean): Promise<void> {
  const op = await createOperator(stack.knex);
  const res = await fetch(`${stack.url}/v1/operator/merchants/${merchantId}/features`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${op.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pos: on }),
  });
  if (res.status !== 200) throw new Error(`features: ${res.status} ${await res.text()}`);
}

/** A simulated terminal on the stack's acquirer, announced to the stack. */
export function startTerminal(
  stack: TestStack,
  deviceType: 'simulated_reader' | 'tap_to_pay' = 'simulated_reader',
): Promise<SimulatedTerminal> {
  return startSimulatedTerminal({
    acquirer: stack.acquirer.client,
    skilUrl: stack.url,
    deviceType,
    waitForCardMs: 5_000,
  });
}

/** A register with a manager and a cashier, a paired till (its device credential) and a terminal. */
export async function setUpTill(stack: TestStack, key: string, opts: { terminal?: SimulatedTerminal } = {}) {
  const call = async (path: string, json?: unknown, auth: string = key) => {
    const res = await stack.api(auth, path, json === undefined ? {} : { method: 'POST', json });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const pin = () => String(1000 + Math.floor(Math.random() * 9_000_000)).padStart(4, '0');
  const register = await call('/v1/pos/registers', { name: 'Kassi 1', location: 'Laugavegur 1' });
  const managerPin = pin();
  const cashierPin = pin();
  const manager = await call('/v1/pos/staff', { name: 'Guðrún', role: 'manager', pin: managerPin });
  const cashier = await call('/v1/pos/staff', { name: 'Jón', role: 'cashier', pin: cashierPin });
  const code = await call(`/v1/pos/registers/${register.id}/pairing_codes`, {});
  const device = (await (
    await fetch(`${stack.url}/v1/pos/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pairing_code: code.code }),
    })
  ).json()) as { credential: string };
  let terminal = null;
  if (opts.terminal)
    terminal = await call('/v1/pos/terminals', {
      register: register.id,
      registration_code: opts.terminal.registrationCode,
    });
  return {
    register,
    manager,
    managerPin,
    cashier,
    cashierPin,
    credential: device.credential,
    terminal,
    call,
  };
}
