/**
 * Skil's icon: a gold S on the dashboard's navy, as SVG. `tools/generate-favicon-ico.ts` renders it
 * into web/favicon-ico.ts for the browsers that only ask for /favicon.ico (decision 0203).
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#14213d"/>' +
  '<path d="M21.6 10.2C20.6 8.8 18.6 8 16.2 8 13 8 10.8 9.7 10.8 12.1c0 5.6 11 3.2 11 8.4 0 2.2-2.3 3.9-5.6 3.9-2.6 0-4.7-.9-5.8-2.6" ' +
  'fill="none" stroke="#ffb703" stroke-width="3.4" stroke-linecap="round"/></svg>';
