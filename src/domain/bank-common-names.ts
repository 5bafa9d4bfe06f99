/**
 * How people read and call the banks they know (docs/guide/hosted-page.md#the-steps): the
 * Zengin master writes readings in large kana with － for ー (ミツビシユ－エフジエイ, ゆうちよ), which
 * nobody types or reads so. Here: the reading as spoken, in hiragana with its small kana, and the
 * common names and abbreviations customers type (しずぎん, 三菱UFJ, MUFG, ゆうちょ). A bank not
 * listed reads as the master writes it, its dashes made ー (commonReading).
 */
const commonNames: Readonly<Record<string, readonly [reading: string, ...aliases: string[]]>> = Object.freeze({
  "0001": ["みずほ", "みずほ銀行", "mizuho"],
  "0005": ["みつびしゆーえふじぇい", "三菱UFJ", "三菱UFJ銀行", "MUFG", "みつびし", "三菱", "UFJ", "ゆーえふじぇい"],
  "0009": ["みついすみとも", "SMBC", "三井住友銀行"],
  "0010": ["りそな", "りそな銀行"],
  "0017": ["さいたまりそな", "埼玉りそな銀行"],
  "0033": ["ぺいぺい", "PayPay", "ペイペイ"],
  "0034": ["せぶん", "セブン銀行"],
  "0035": ["そにー", "ソニー銀行"],
  "0036": ["らくてん", "楽天銀行"],
  "0038": ["どこもえすえむてぃーびーねっと", "住信SBI", "すみしんえすびーあい", "ドコモSMTB"],
  "0039": ["えーゆーじぶん", "auじぶん", "じぶん銀行"],
  "0040": ["いおん", "イオン銀行"],
  "0041": ["だいわねくすと", "大和ネクスト銀行"],
  "0042": ["ろーそん", "ローソン銀行"],
  "0043": ["みんなの", "みんなの銀行"],
  "0116": ["ほっかいどう", "どうぎん", "道銀"],
  "0121": ["しょうない", "荘内銀行"],
  "0125": ["しちじゅうしち", "しちしち", "77銀行"],
  "0128": ["ぐんま", "ぐんぎん", "群銀"],
  "0130": ["じょうよう", "じょうようぎん"],
  "0134": ["ちば", "ちばぎん", "千葉銀"],
  "0135": ["ちばこうぎょう", "ちばこう"],
  "0138": ["よこはま", "はまぎん", "浜銀"],
  "0142": ["やまなしちゅうおう", "ちゅうぎん"],
  "0143": ["はちじゅうにながの", "はちじゅうに", "82銀行", "八十二"],
  "0144": ["ほくりく", "ほくぎん", "北銀"],
  "0146": ["ほっこく", "北國銀行"],
  "0149": ["しずおか", "しずぎん", "静銀"],
  "0152": ["おおがききょうりつ", "きょうりつ", "OKB"],
  "0153": ["じゅうろく", "16銀行"],
  "0154": ["さんじゅうさん", "33銀行"],
  "0155": ["ひゃくご", "105銀行"],
  "0158": ["きょうと", "きょうぎん", "京銀"],
  "0161": ["いけだせんしゅう", "せんしゅう"],
  "0166": ["とっとり", "とりぎん", "鳥取銀行"],
  "0168": ["ちゅうごく", "ちゅうぎん"],
  "0173": ["ひゃくじゅうし", "114銀行"],
  "0177": ["ふくおか", "ふくぎん", "福銀"],
  "0181": ["じゅうはちしんわ", "じゅうはち", "しんわ"],
  "0187": ["りゅうきゅう", "りゅうぎん", "琉銀"],
  "0190": ["にしにっぽんしてぃ", "にしにほんしてぃ", "NCB"],
  "0191": ["きたきゅうしゅう", "北九州銀行"],
  "0288": ["みつびしゆーえふじぇいしんたく", "三菱UFJ信託"],
  "0310": ["じーえむおーあおぞらねっと", "GMOあおぞら"],
  "0397": ["えすびーあいしんせい", "SBI新生", "しんせい", "新生銀行"],
  "9900": ["ゆうちょ", "ゆうちょ銀行", "郵便局", "ゆうびんきょく", "JPBANK"],
});

/** The reading people use: the curated one, else the master's with － and - written ー and letters folded (NFKC). */
export function commonReading(entry: { readonly code: string; readonly hira: string }, isBank: boolean): string {
  const curated = isBank ? commonNames[entry.code]?.[0] : undefined;
  return curated ?? entry.hira.normalize("NFKC").replace(/[－‐―−-]/g, "ー");
}

/** The names and abbreviations a bank is also found by (none for a bank not listed). */
export function commonAliases(code: string): readonly string[] {
  return commonNames[code] ?? [];
}
