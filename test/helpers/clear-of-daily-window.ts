import { addDays, jstDateOf, jstInstant } from "../../src/domain/jst.js";

/**
 * How far to move a test server's clock, which runs with the real time, so that it starts clear of
 * the simulated banks' daily maintenance (Sandbox Daily Window Bank, 23:55–00:05 JST;
 * docs/guide/simulated-bank.md): from 23:40 JST to 00:10 JST it is moved on to 00:10, else not at all.
 * Without it, a suite run around 15:00 UTC fails every test that pays at that bank.
 */
export function msClearOfDailyWindow(now: Date): number {
  const today = jstDateOf(now);
  const from = jstInstant(today, "23:40");
  if (now >= from) return jstInstant(addDays(today, 1), "00:10").getTime() - now.getTime();
  const until = jstInstant(today, "00:10");
  return now < until ? until.getTime() - now.getTime() : 0;
}
