import { expect, it } from "vitest";
import { japaneseNationalHolidays } from "./national-holidays.js";

it("lists every national holiday once, in order, through 2050", () => {
  expect([...japaneseNationalHolidays].sort()).toEqual(japaneseNationalHolidays);
  expect(new Set(japaneseNationalHolidays).size).toBe(japaneseNationalHolidays.length);
  for (const year of [2025, 2030, 2035, 2050]) {
    const count = japaneseNationalHolidays.filter((date) => date.startsWith(`${year}-`)).length;
    expect(count, String(year)).toBeGreaterThanOrEqual(16);
  }
  // The table this replaced (the Cabinet Office's, 2026): the package agrees.
  const y2026 = japaneseNationalHolidays.filter((date) => date.startsWith("2026-"));
  expect(y2026).toEqual(
    ["01-01", "01-12", "02-11", "02-23", "03-20", "04-29", "05-03", "05-04", "05-05", "05-06"]
      .concat(["07-20", "08-11", "09-21", "09-22", "09-23", "10-12", "11-03", "11-23"])
      .map((day) => `2026-${day}`),
  );
});
