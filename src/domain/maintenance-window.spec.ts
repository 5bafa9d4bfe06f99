import { describe, expect, it } from "vitest";
import { simulatedBankProfiles } from "./bank-profile.js";
import { maintenanceAt } from "./maintenance-window.js";

const jst = (local: string) => new Date(`${local}:00+09:00`);
const windowsOf = (bankCode: string) =>
  simulatedBankProfiles.find((profile) => profile.bankCode === bankCode)!.maintenance;

describe("maintenanceAt", () => {
  it("daily 23:55–00:05 crosses midnight", () => {
    const windows = windowsOf("9901");
    expect(maintenanceAt(windows, jst("2026-03-10T23:54"))).toBeUndefined();
    expect(maintenanceAt(windows, jst("2026-03-10T23:55"))?.end).toEqual(jst("2026-03-11T00:05"));
    expect(maintenanceAt(windows, jst("2026-03-11T00:04"))?.start).toEqual(jst("2026-03-10T23:55"));
    expect(maintenanceAt(windows, jst("2026-03-11T00:05"))).toBeUndefined();
  });

  it("Sunday 23:55 to Monday 06:00 only before the 1st and 3rd Mondays", () => {
    const windows = windowsOf("9902");
    expect(maintenanceAt(windows, jst("2026-03-01T23:55"))?.end).toEqual(jst("2026-03-02T06:00")); // 1st Monday: 2 March
    expect(maintenanceAt(windows, jst("2026-03-09T03:00"))).toBeUndefined(); // 2nd Monday
    expect(maintenanceAt(windows, jst("2026-03-16T05:59"))?.end).toEqual(jst("2026-03-16T06:00")); // 3rd Monday
    expect(maintenanceAt(windows, jst("2026-03-16T06:00"))).toBeUndefined();
  });

  it("the 2nd Saturday 21:00 to Sunday 07:00", () => {
    const windows = windowsOf("9903");
    expect(maintenanceAt(windows, jst("2026-03-07T22:00"))).toBeUndefined(); // 1st Saturday
    expect(maintenanceAt(windows, jst("2026-03-14T21:00"))?.end).toEqual(jst("2026-03-15T07:00"));
    expect(maintenanceAt(windows, jst("2026-03-15T06:59"))).toEqual({
      description: "2nd Saturday 21:00 to Sunday 07:00 JST",
      start: jst("2026-03-14T21:00"),
      end: jst("2026-03-15T07:00"),
    });
  });

  it("a bank open 08:00–22:00 only", () => {
    const windows = windowsOf("9904");
    expect(maintenanceAt(windows, jst("2026-03-10T07:59"))?.end).toEqual(jst("2026-03-10T08:00"));
    expect(maintenanceAt(windows, jst("2026-03-10T08:00"))).toBeUndefined();
    expect(maintenanceAt(windows, jst("2026-03-10T21:59"))).toBeUndefined();
    expect(maintenanceAt(windows, jst("2026-03-10T22:00"))?.end).toEqual(jst("2026-03-11T08:00"));
  });
});
