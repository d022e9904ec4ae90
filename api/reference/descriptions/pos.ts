/**
 * Descriptions of the point of sale (decision 0252; decisions 0126–0131). Every one answers 403
 * `pos_not_enabled` while the merchant’s `features.pos` is off; the descriptions name the rest.
 */
const TILL_OR_KEY =
  'Called by a paired till (its device credential, its own register only) or with the API key naming the acting `staff`.';

export const POS_DESCRIPTIONS: Record<string, string> = {
  'POST /v1/pos/registers':
    'Creates a register: one till at a location, with its own drawer, shifts, sales and Z-reports. The first step in setting up a shop’s point of sale, with the API key (403 `pos_device_not_allowed` from a till).',
  'GET /v1/pos/registers': 'Lists the merchant’s registers newest first.',
  'GET /v1/pos/registers/{id}':
    'Retrieves a register. 403 `pos_device_wrong_register` for a till paired to another register.',
  'POST /v1/pos/registers/{id}/pairing_codes':
    'Makes a single-use code, valid ten minutes, that a till types at `/pos` to pair itself to this register (`POST /v1/pos/devices`). With the API key only (403 `pos_device_not_allowed` from a till).',
  'GET /v1/pos/device':
    'The paired till calling, with its register and who is signed in on it. 403 `pos_device_required` with an API key: only a till has a device.',
  'POST /v1/pos/sign_in':
    'A staff member signs in on the paired till with their PIN; the sign-in lasts 12 hours or until sign-out. 400 `pos_pin_incorrect`; 403 `pos_staff_locked` after repeated wrong PINs (for some minutes, or until a manager unlocks them), `pos_staff_inactive`, `pos_device_required` with an API key.',
  'POST /v1/pos/sign_out':
    'Signs the staff member out of the till, at the end of their turn or before handing the till over. 403 `pos_device_required` with an API key.',
  'GET /v1/pos/registers/{id}/shift':
    'The register’s open drawer shift with its float and what the drawer should hold now. 409 `pos_no_open_shift` when none is open.',
  'POST /v1/pos/registers/{id}/shift/open': `Opens a drawer shift with the float counted into the drawer; sales in cash need an open shift. ${TILL_OR_KEY} 409 \`pos_shift_open\` when one is open already.`,
  'POST /v1/pos/registers/{id}/shift/close': `Closes the drawer shift with the cash counted; the expected amount, the counted one and the difference are kept for the Z-report. ${TILL_OR_KEY} 409 \`pos_no_open_shift\`.`,
  'POST /v1/pos/registers/{id}/drawer_events': `Records cash put into the drawer (\`paid_in\`), taken out (\`paid_out\`, a manager only: 403 \`pos_manager_required\`) or the drawer opened without a sale (\`no_sale\`), so the count at close can be explained. ${TILL_OR_KEY} 400 \`parameter_missing\` (param \`amount\`) for paid in or out without an amount; 409 \`pos_no_open_shift\`.`,
  'POST /v1/pos/registers/{id}/sales': `Makes a sale: lines of products or free amounts with VAT, paid in cash (with the change due), by card on the register’s paired terminal, or split between the two. A business \`customer\` is also invoiced with a UBL e-invoice; \`email\` sends the receipt. ${TILL_OR_KEY} 400 \`pos_payments_mismatch\` when the payments do not sum to the total, \`customer_not_business\`; 402 \`card_declined\`; 409 \`pos_no_open_shift\`, \`pos_no_terminal\`; 503 \`pos_terminal_unavailable\` (nothing was charged).`,
  'GET /v1/pos/sales':
    'Lists sales newest first, with their lines and payments; filter by `register`. A till sees only its own register’s.',
  'GET /v1/pos/sales/{id}':
    'Retrieves a sale. 403 `pos_device_wrong_register` for another register’s sale on a till.',
  'GET /v1/pos/sales/{id}/receipt':
    'The sale’s receipt, in Icelandic or English (`locale`): the printable 80 mm page and the email body, with VAT per rate, as the law requires of a receipt.',
  'POST /v1/pos/sales/{id}/refunds': `Refunds all or part of a sale, a manager only (403 \`pos_manager_required\`), in cash from the drawer or to the card it was paid with. ${TILL_OR_KEY} 400 \`amount_too_large\` above what is left (or what the card paid), \`parameter_invalid\` (param \`method\`) for a card refund of a cash sale; 409 \`charge_already_refunded\`.`,
  'GET /v1/pos/registers/{id}/x_report':
    'The X-report: the register’s running figures since its last Z-report (sales, refunds, payments by method, VAT per rate, the drawer); nothing is closed, so it can be read any time.',
  'POST /v1/pos/registers/{id}/z_reports': `Makes the Z-report that closes the register’s day: its figures are frozen and numbered, and the next X-report starts from zero. A manager only (403 \`pos_manager_required\`). ${TILL_OR_KEY} 409 \`pos_shift_open\`: count the drawer and close the shift first.`,
  'GET /v1/pos/z_reports': 'Lists Z-reports newest first; they cannot be changed or deleted.',
  'GET /v1/pos/z_reports/{id}': 'Retrieves a Z-report with its frozen figures.',
  'POST /v1/pos/staff':
    'Adds a staff member with a role (`cashier` or `manager`) and their own PIN. With the API key only (403 `pos_device_not_allowed` from a till). 400 `pos_pin_taken` when another staff member has that PIN: each person needs their own.',
  'GET /v1/pos/staff': 'Lists staff newest first; PINs are never shown.',
  'GET /v1/pos/staff/{id}': 'Retrieves a staff member with their role and whether they are locked out.',
  'POST /v1/pos/staff/{id}':
    'Changes a staff member’s name, role or PIN, deactivates them, or unlocks them after wrong PINs. With the API key only. 400 `pos_pin_taken`.',
  'POST /v1/pos/terminals':
    'Pairs a card terminal to a register by the registration code it shows, after it announced itself (`POST /v1/pos/terminal_announcements`); card sales on that register then go to it. 400 `pos_registration_code_invalid`; 409 `pos_terminal_insecure` for a live terminal not reached over https; 503 `pos_terminal_unavailable`.',
  'GET /v1/pos/terminals': 'Lists paired card terminals newest first, with their register.',
  'GET /v1/pos/terminals/{id}': 'Retrieves a paired card terminal, with the register it serves.',
};
