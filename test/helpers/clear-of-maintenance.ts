import { simulatedBankProfiles } from "../../src/domain/bank-profile.js";
import { maintenanceAt } from "../../src/domain/maintenance-window.js";

/**
 * The simulated banks whose maintenance a test on the real clock may meet (docs/guide/simulated-bank.md):
 * all but Sandbox Daytime Bank (9904), closed every night, whose tests set their own clock.
 */
const banks = simulatedBankProfiles.filter((profile) => profile.bankCode !== "9904");
/** A test runs for minutes after its server starts: a window starting within this is met. */
const aheadMs = 15 * 60_000;
const minuteMs = 60_000;

/**
 * How far to move a test server's clock, which runs with the real time, so that it starts clear of
 * the simulated banks' maintenance: a window open now or opening within 15 minutes is passed, to
 * 5 minutes after its end, until none is. Without it, a suite run in Sandbox Daily Window Bank's
 * window (daily around 15:00 UTC), or on the Sunday evening (UTC) before the 1st and 3rd Mondays,
 * or on the 2nd Saturday afternoon, fails every test that pays at those banks.
 */
export function msClearOfMaintenance(now: Date): number {
  let at = now.getTime();
  for (let end = openWithin(at); end !== undefined; end = openWithin(at)) at = end + 5 * minuteMs;
  return at - now.getTime();
}

/** The end of a window of those banks open at some minute from `at` to `at` + 15 minutes. */
function openWithin(at: number): number | undefined {
  for (let t = at; t <= at + aheadMs; t += minuteMs)
    for (const bank of banks) {
      const period = maintenanceAt(bank.maintenance, new Date(t));
      if (period) return period.end.getTime();
    }
  return undefined;
}
