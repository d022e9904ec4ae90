import type { Knex } from 'knex';

/**
 * A billing run's lane takes the due subscriptions whose `(hashtext(id) & 2147483647) % lanes` is its
 * number (decision 0189). Without statistics on that expression the planner guessed it kept 1 row
 * in 200, not 1 in `lanes`, expected fewer rows than the page, and read every subscription and
 * sorted them for each page instead of walking the due index until the page was full: 90 ms a page
 * at 100,000 subscriptions, growing with the table (decision 0190). Runs use two lanes or four.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create statistics subscriptions_lane_of_two on ((hashtext(id) & 2147483647) % 2) from subscriptions;
    create statistics subscriptions_lane_of_four on ((hashtext(id) & 2147483647) % 4) from subscriptions;
    analyze subscriptions;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop statistics subscriptions_lane_of_two;
    drop statistics subscriptions_lane_of_four;
  `);
}
