import { createRequire } from "node:module";
import type { BankMaster, DirectoryBank } from "../domain/bank-directory.js";
import { simulatedBankProfiles } from "../domain/bank-profile.js";

let zengin: BankMaster | undefined;

/**
 * The Zengin bank and branch master from the `zengin-code` package (about 1,150 banks and 29,000
 * branches; updated by upgrading the package with its lock file, never by hand), read once on
 * first use. In sandbox mode the simulated banks (99xx, domain/bank-profile.ts) are listed too,
 * each with one branch, 001.
 */
export function bankMaster(withSimulatedBanks: boolean): BankMaster {
  zengin ??= Object.freeze(createRequire(import.meta.url)("zengin-code") as BankMaster);
  if (!withSimulatedBanks) return zengin;
  return sandboxMaster(zengin);
}

let withSimulated: BankMaster | undefined;

function sandboxMaster(master: BankMaster): BankMaster {
  withSimulated ??= Object.freeze({
    ...master,
    ...Object.fromEntries(
      simulatedBankProfiles.map((profile): [string, DirectoryBank] => [
        profile.bankCode,
        {
          code: profile.bankCode,
          name: profile.name,
          kana: "サンドボックス",
          hira: "さんどぼっくす",
          roma: "sandbox",
          branches: { "001": { code: "001", name: "本店", kana: "ホンテン", hira: "ほんてん", roma: "honten" } },
        },
      ]),
    ),
  });
  return withSimulated;
}
