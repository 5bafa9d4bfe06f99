import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { hashPassword, verifyPassword } from "./domain/password-hash.js";

describe("BANK_CONNECTOR and the Zengin settings", () => {
  it("defaults to the simulated bank in the sandbox and to the Zengin files in production", () => {
    expect(loadConfig({}).bankConnector).toBe("simulated");
    expect(loadConfig({ MODE: "production" }).bankConnector).toBe("zengin");
  });

  it("refuses the simulated Zengin bank in production (the simulated bank is refused by the preflight)", () => {
    expect(loadConfig({ MODE: "production", BANK_CONNECTOR: "" }).bankConnector).toBe("zengin");
    expect(() => loadConfig({ MODE: "production", ZENGIN_SIMULATED_BANK: "on" })).toThrow(/ZENGIN_SIMULATED_BANK/);
    expect(() => loadConfig({ BANK_CONNECTOR: "paper" })).toThrow(/simulated or zengin/);
  });

  it("reads the timetable, the folder and SFTP settings", () => {
    const config = loadConfig({
      BANK_CONNECTOR: "zengin",
      ZENGIN_DIR: "/srv/zengin",
      ZENGIN_LEAD_DAYS: "3",
      ZENGIN_FILE_CUTOFF: "14:30",
      ZENGIN_RESULT_DEADLINE_DAYS: "7",
    });
    expect(config.zengin).toMatchObject({
      dir: "/srv/zengin",
      simulatedBank: true,
      leadDays: 3,
      fileCutoff: "14:30",
      resultDeadlineDays: 7,
      sftp: undefined,
    });
    expect(() => loadConfig({ ZENGIN_FILE_CUTOFF: "3pm" })).toThrow(/HH:MM/);
    expect(() => loadConfig({ ZENGIN_SFTP_URL: "sftp://bank@127.0.0.1:22/in" })).toThrow(/ZENGIN_SFTP_HOST_KEY/);
  });

  it("hashes passwords at OWASP's scrypt cost unless a sandbox lowers N for a test suite", async () => {
    expect(loadConfig({}).passwordHashCost).toEqual({ N: 2 ** 15, r: 8, p: 3 });
    expect(loadConfig({ PASSWORD_HASH_SCRYPT_N: "1024" }).passwordHashCost.N).toBe(1024);
    expect(() => loadConfig({ MODE: "production", PASSWORD_HASH_SCRYPT_N: "1024" })).toThrow(/32768/);
    expect(loadConfig({ MODE: "production", PASSWORD_HASH_SCRYPT_N: "65536" }).passwordHashCost.N).toBe(65536);
    expect(() => loadConfig({ PASSWORD_HASH_SCRYPT_N: "1000" })).toThrow(/power of two/);
    const cheap = loadConfig({ PASSWORD_HASH_SCRYPT_N: "1024" }).passwordHashCost;
    const hash = await hashPassword("correct horse battery", cheap);
    expect(hash.split("$").slice(0, 4)).toEqual(["scrypt", "1024", "8", "3"]);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery!", hash)).toBe(false);
  });
});
