/**
 * The Zengin bank and branch master (金融機関コード・支店コード), searched as a customer types: by
 * code, by the name in kanji, or by its reading in hiragana, katakana or romaji. The master itself
 * is loaded by ports/bank-master.ts (the `zengin-code` package, updated with the lock file).
 */
import { commonAliases, commonReading } from "./bank-common-names.js";
import { fullSizeOfSmall } from "./kana.js";

export interface DirectoryEntry {
  readonly code: string;
  /** As the master writes it, without 銀行 / 支店: みずほ, 渋谷. */
  readonly name: string;
  /** The reading in katakana, as the master writes it (large kana: トウキヨウ). */
  readonly kana: string;
  readonly hira: string;
  readonly roma: string;
}

export interface DirectoryBank extends DirectoryEntry {
  readonly branches: Readonly<Record<string, DirectoryEntry>>;
}

export type BankMaster = Readonly<Record<string, DirectoryBank>>;

/**
 * One spelling for comparing: NFKC (full-width letters and half-width kana folded), lower case,
 * hiragana as katakana, small kana full size and every dash as "-" (the master writes readings so).
 */
export function searchKey(input: string): string {
  let out = "";
  for (const char of input.normalize("NFKC").toLowerCase().trim()) {
    const code = char.charCodeAt(0);
    const katakana = code >= 0x3041 && code <= 0x3096 ? String.fromCharCode(code + 0x60) : char;
    const large = fullSizeOfSmall[katakana] ?? katakana;
    out += /[ー－‐―−]/.test(large) ? "-" : large;
  }
  return out.replace(/\s+/g, "");
}

/**
 * How well an entry answers a query: lower is better; undefined when it does not. A bank is also
 * found by its common names and abbreviations (しずぎん, 三菱UFJ, MUFG: domain/bank-common-names.ts).
 */
function rank(entry: DirectoryEntry, key: string, aliases: readonly string[]): number | undefined {
  if (/^[0-9]+$/.test(key)) {
    if (entry.code === key.padStart(entry.code.length, "0") && key.length >= 3) return 0;
    if (entry.code.startsWith(key)) return 1;
  }
  const fields = [searchKey(entry.name), searchKey(entry.kana), entry.roma.toLowerCase(), ...aliases.map(searchKey)];
  if (fields.some((field) => field === key)) return 2;
  if (fields.some((field) => field.startsWith(key))) return 3;
  if (fields.some((field) => field.includes(key))) return 4;
  return undefined;
}

function search<T extends DirectoryEntry>(
  entries: readonly T[],
  query: string,
  limit: number,
  aliasesOf: (entry: T) => readonly string[],
): T[] {
  const key = searchKey(query);
  if (!key) return [];
  return entries
    .map((entry) => ({ entry, rank: rank(entry, key, aliasesOf(entry)) }))
    .filter((found): found is { entry: T; rank: number } => found.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.entry.code.localeCompare(b.entry.code))
    .slice(0, limit)
    .map((found) => found.entry);
}

export function searchBanks(master: BankMaster, query: string, limit = 20): DirectoryBank[] {
  return search(Object.values(master), query, limit, (bank) => commonAliases(bank.code));
}

export function searchBranches(bank: DirectoryBank, query: string, limit = 20): DirectoryEntry[] {
  return search(Object.values(bank.branches), query, limit, () => []);
}

/**
 * The bank's name as customers know it, its letters half-width: the master leaves out 銀行 for banks (codes below 1000 and
 * ゆうちょ), and writes 信用金庫, 信用組合 and the like as their short forms, which are kept.
 */
export function bankDisplayName(bank: Pick<DirectoryEntry, "code" | "name">): string {
  const isBank = Number(bank.code) < 1000 || bank.code === "9900";
  // Letters as people write them: 三菱UFJ, PayPay (the master's are full-width: 三菱ＵＦＪ).
  const name = bank.name.normalize("NFKC");
  return isBank && !name.endsWith("銀行") ? `${name}銀行` : name;
}

const branchSuffixes = ["支店", "本店", "出張所", "営業部", "支所", "代理店", "営業所", "部", "店"];

/** 渋谷 → 渋谷支店; 東京営業部 stays; ゆうちょ's 〇五八 → 〇五八店. */
export function branchDisplayName(bankCode: string, branch: Pick<DirectoryEntry, "name">): string {
  if (branchSuffixes.some((suffix) => branch.name.endsWith(suffix))) return branch.name;
  return `${branch.name}${bankCode === "9900" ? "店" : "支店"}`;
}

/** A bank's reading for people, in hiragana: みつびしゆーえふじぇい, ゆうちょ (not ミツビシユ－エフジエイ, ゆうちよ). */
export function bankReading(bank: Pick<DirectoryEntry, "code" | "hira">): string {
  return commonReading(bank, true);
}

/** A branch's reading for people: the master's hiragana with its dashes written ー. */
export function branchReading(branch: Pick<DirectoryEntry, "code" | "hira">): string {
  return commonReading(branch, false);
}
