import {
  DunningAction,
  FirstPeriodRule,
  IntervalUnit,
  PastDueReason,
  type Plan,
  SubscriptionStatus,
} from "../../../gen/payments/v1/subscription_service_pb.js";
import { limits } from "../../domain/limits.js";
import { planFormBounds } from "../../domain/plan-form.js";
import { formatYen } from "../../domain/display-format.js";
import { lang } from "./i18n.js";

const b = planFormBounds;

/** Why a plan form field is refused (domain/plan-form.ts's rule keys), in Japanese. */
const planRulesJa: Record<string, string> = {
  name: `プラン名を${b.nameLengthMax}文字以内で入力してください。`,
  amount: `料金は${b.amountMin}円以上${b.amountMax.toLocaleString("ja-JP")}円以下の整数にしてください。`,
  "intervalCount.month": `月ごとの間隔は${b.intervalCountMin}〜${b.intervalMonthsMax}か月です。`,
  "intervalCount.year": `年ごとの間隔は${b.intervalCountMin}〜${b.intervalYearsMax}年です。`,
  debitDay: `振替日は1〜${b.debitDayMax}（末日は0）です。`,
  "discountValue.amount": `割引額は1円以上${b.discountAmountMax.toLocaleString("ja-JP")}円以下の整数にしてください。`,
  "discountValue.percent": `割引率は1〜${b.discountPercentMax}%の整数にしてください。`,
  discountPeriods: `割引する回数は1〜${b.discountPeriodsMax}回です。`,
  retryAfterDays: `再振替までの日数は1〜${b.retryAfterDaysMax}日です。`,
  maxAttempts: `振替回数の上限は1〜${b.maxAttemptsMax}回です。`,
  noticeDays: `お知らせは振替日の0〜${b.noticeDaysMax}日前です。`,
};

const planRulesEn: Record<string, string> = {
  name: `Name the plan in at most ${b.nameLengthMax} characters.`,
  amount: `The price is whole yen from ${b.amountMin} to ${b.amountMax.toLocaleString("en")}.`,
  "intervalCount.month": `A monthly interval is ${b.intervalCountMin} to ${b.intervalMonthsMax} months.`,
  "intervalCount.year": `A yearly interval is ${b.intervalCountMin} to ${b.intervalYearsMax} years.`,
  debitDay: `The debit day is 1 to ${b.debitDayMax} (0 for the last day).`,
  "discountValue.amount": `The discount is whole yen from 1 to ${b.discountAmountMax.toLocaleString("en")}.`,
  "discountValue.percent": `The discount is a whole percentage from 1 to ${b.discountPercentMax}.`,
  discountPeriods: `Discount 1 to ${b.discountPeriodsMax} periods.`,
  retryAfterDays: `Re-debit 1 to ${b.retryAfterDaysMax} days later.`,
  maxAttempts: `Debit a period 1 to ${b.maxAttemptsMax} times.`,
  noticeDays: `Send the notice 0 to ${b.noticeDaysMax} days before.`,
};

/** The words of the recurring-billing page (docs/guide/dashboard.md#recurring-billing), Japanese first. */
const ja = {
  navBilling: "定期課金",
  calendar: "今後の振替日",
  calendarEmpty: "今後31日間に振替予定はありません。",
  debitDate: "振替日",
  subscriptionCount: "件数",
  expected: "振替予定額",
  carried: "うち合算額",
  redebits: "再振替・未収の定期課金",
  redebitsEmpty: "未収の定期課金はありません。",
  plans: "プラン",
  plansEmpty: "プランはまだありません。",
  subscriptions: "定期課金",
  subscriptionsEmpty: "定期課金はまだありません。",
  name: "名前",
  price: "料金",
  interval: "周期",
  debitDay: "振替日",
  lastDay: "末日",
  everyMonths: (n: number) => (n === 1 ? "毎月" : `${n}か月ごと`),
  everyYears: (n: number) => (n === 1 ? "毎年" : `${n}年ごと`),
  customer: "顧客",
  plan: "プラン",
  status: "状態",
  nextDebit: "次回の振替",
  pastDue: "未収の理由",
  stopRequested: "顧客から解約の依頼",
  actions: "操作",
  pause: "一時停止",
  resume: "再開",
  cancelAtPeriodEnd: "期末で解約",
  confirmCancel: (id: string) => `${id} を今の期の終わりで解約します。よろしいですか?`,
  paused: (id: string) => `${id} を一時停止しました。`,
  resumed: (id: string) => `${id} を再開しました。`,
  cancelled: (id: string) => `${id} は今の期の終わりで解約されます。`,
  newPlan: "プランを作成",
  planName: "プラン名",
  amount: "1回の料金（円）",
  dayOfMonth: "振替日（1〜28、末日は0）",
  create: "作成する",
  created: (name: string) => `プラン「${name}」を作成しました。`,
  imports: "定期課金のCSV取り込み",
  listSeparator: "、",
  unitMonth: "月ごと",
  unitYear: "年ごと",
  intervalUnit: "周期の単位",
  intervalCount: "間隔（月は1〜12、年は1〜3）",
  firstPeriod: "初回の期",
  firstPeriodFull: "初回から請求する",
  firstPeriodNone: "初回は請求しない",
  discount: "割引",
  discountKind: "割引の種類",
  discountNone: "割引なし",
  discountAmount: "金額で割引（円）",
  discountPercent: "割合で割引（%）",
  discountValue: "割引額（円）または割引率（%）",
  discountPeriods: "割引する回数（初回から、1〜120）",
  dunning: "資金不足のとき",
  dunningAction: "資金不足のときの扱い",
  dunningStop: "再振替しない",
  dunningRetry: "同じ月に再振替する",
  dunningCarry: "次回の振替に合算する",
  retryAfterDays: "再振替までの日数（1〜20）",
  maxAttempts: "1つの期の振替回数の上限（初回を含む、1〜4）",
  cancelOnGiveUp: "回収できなければ解約する",
  noticeDays: "振替予定のお知らせ（振替日の何日前、0〜14）",
  noticeDaysHint: "0にするとお知らせを送りません。",
  planRule: (rule: string) => planRulesJa[rule] ?? "入力を確認してください。",
  discountShown: (off: string, periods: number) => `${off}引き（初回から${periods}回）`,
  firstFree: "初回は請求なし",
  dunningShown: {
    stop: "再振替しない",
    retry: (days: number, attempts: number) => `${days}日後に再振替（最大${attempts}回）`,
    carry: (attempts: number) => `次回に合算（最大${attempts}回）`,
    cancel: "回収できなければ解約",
  },
  importsEmpty: "取り込みはまだありません。",
  importTitle: "定期課金をCSVで取り込む",
  importFile: "CSVファイル",
  importHelp: `列:customer_email, customer_id, plan_id, start_period[, amount]。顧客はメールアドレスか顧客IDで指定します(有効な契約が必要)。start_period は YYYY-MM(空なら次の振替から)、amount は空ならプランの料金。${limits.subscriptionImportRowsMax}行まで。`,
  importTotpNeeded: "定期課金のCSV取り込みには2段階認証が必要です。",
  importPreview: "取り込みの確認",
  importValid: "作成される定期課金",
  importInvalid: "作成されない行",
  importNoneValid: "作成される定期課金はありません。",
  importCreated: "作成",
  importConfirm: "確定して作成する",
  importConfirmHelp: "認証アプリの現在のコードを入力すると、上の定期課金を作成します。",
  importConfirmQuestion: (n: number) => `${n}件の定期課金を作成します。よろしいですか?`,
  importDone: (created: number, failed: number) =>
    `${created}件の定期課金を作成しました${failed ? `(作成されなかった行: ${failed}件)` : ""}。`,
  importStatus: { uploaded: "確定待ち", completed: "完了" },
  review: "確認する",
  startPeriod: "開始期",
  firstDebit: "初回の振替日",
  firstAmount: "初回の振替額",
  status_: {
    [SubscriptionStatus.UNSPECIFIED]: "—",
    [SubscriptionStatus.ACTIVE]: "有効",
    [SubscriptionStatus.PAUSED]: "一時停止中",
    [SubscriptionStatus.PAST_DUE]: "未収あり",
    [SubscriptionStatus.CANCELLED]: "解約済み",
    [SubscriptionStatus.ENDED]: "終了",
  } satisfies Record<SubscriptionStatus, string>,
  pastDueReason: {
    [PastDueReason.UNSPECIFIED]: "",
    [PastDueReason.RETRYING]: "再振替の予定あり",
    [PastDueReason.NOT_RETRIED]: "再振替しない設定",
    [PastDueReason.NOT_RETRYABLE]: "再振替できない結果",
    [PastDueReason.ATTEMPTS_EXHAUSTED]: "再振替の回数の上限",
    [PastDueReason.NO_RETRY_DATE]: "同じ月に再振替日がない",
    [PastDueReason.CARRIED_OVER]: "次回に合算",
  } satisfies Record<PastDueReason, string>,
};

const en: typeof ja = {
  navBilling: "Recurring billing",
  calendar: "Upcoming debit dates",
  calendarEmpty: "No debits in the next 31 days.",
  debitDate: "Debit date",
  subscriptionCount: "Subscriptions",
  expected: "Expected amount",
  carried: "Of which carried over",
  redebits: "Re-debits and unpaid subscriptions",
  redebitsEmpty: "No unpaid subscriptions.",
  plans: "Plans",
  plansEmpty: "No plans yet.",
  subscriptions: "Subscriptions",
  subscriptionsEmpty: "No subscriptions yet.",
  name: "Name",
  price: "Price",
  interval: "Interval",
  debitDay: "Debit day",
  lastDay: "Last day",
  everyMonths: (n: number) => (n === 1 ? "Monthly" : `Every ${n} months`),
  everyYears: (n: number) => (n === 1 ? "Yearly" : `Every ${n} years`),
  customer: "Customer",
  plan: "Plan",
  status: "Status",
  nextDebit: "Next debit",
  pastDue: "Unpaid because",
  stopRequested: "The customer asked to stop",
  actions: "Actions",
  pause: "Pause",
  resume: "Resume",
  cancelAtPeriodEnd: "Cancel at period end",
  confirmCancel: (id: string) => `Cancel ${id} at the end of its current period?`,
  paused: (id: string) => `${id} paused.`,
  resumed: (id: string) => `${id} resumed.`,
  cancelled: (id: string) => `${id} ends at the end of its current period.`,
  newPlan: "Create a plan",
  planName: "Plan name",
  amount: "Price per period (yen)",
  dayOfMonth: "Debit day (1–28; 0 for the last day)",
  create: "Create",
  created: (name: string) => `Plan "${name}" created.`,
  imports: "Subscription CSV imports",
  listSeparator: ", ",
  unitMonth: "Months",
  unitYear: "Years",
  intervalUnit: "Interval unit",
  intervalCount: "Every (1–12 months, 1–3 years)",
  firstPeriod: "First period",
  firstPeriodFull: "Charged",
  firstPeriodNone: "Not charged",
  discount: "Discount",
  discountKind: "Kind of discount",
  discountNone: "No discount",
  discountAmount: "Yen off",
  discountPercent: "Percent off",
  discountValue: "Yen or percent off",
  discountPeriods: "Discounted periods (from the first, 1–120)",
  dunning: "On insufficient funds",
  dunningAction: "When a debit fails for insufficient funds",
  dunningStop: "No re-debit",
  dunningRetry: "Re-debit in the same month",
  dunningCarry: "Add it to the next debit",
  retryAfterDays: "Days until the re-debit (1–20)",
  maxAttempts: "Debits of a period at most (the first included, 1–4)",
  cancelOnGiveUp: "Cancel when it stays unpaid",
  noticeDays: "Debit notice (days before the debit date, 0–14)",
  noticeDaysHint: "0 sends no notice.",
  planRule: (rule: string) => planRulesEn[rule] ?? "Check this value.",
  discountShown: (off: string, periods: number) => `${off} off (first ${periods} periods)`,
  firstFree: "First period free",
  dunningShown: {
    stop: "No re-debit",
    retry: (days: number, attempts: number) => `Re-debit after ${days} days (at most ${attempts})`,
    carry: (attempts: number) => `Added to the next debit (at most ${attempts})`,
    cancel: "cancelled when unpaid",
  },
  importsEmpty: "No imports yet.",
  importTitle: "Import subscriptions from a CSV file",
  importFile: "CSV file",
  importHelp: `Columns: customer_email, customer_id, plan_id, start_period[, amount]. The customer by e-mail or customer ID (with an active contract); start_period YYYY-MM (empty: from the next debit); amount empty: the plan's price. At most ${limits.subscriptionImportRowsMax} rows.`,
  importTotpNeeded: "Turn on two-step verification before importing subscriptions.",
  importPreview: "Review the import",
  importValid: "Subscriptions to create",
  importInvalid: "Rows not imported",
  importNoneValid: "No subscription will be created.",
  importCreated: "Created",
  importConfirm: "Confirm and create",
  importConfirmHelp: "Enter the current code of your authenticator app to create the subscriptions above.",
  importConfirmQuestion: (n: number) => `Create ${n} subscriptions?`,
  importDone: (created: number, failed: number) =>
    `${created} subscriptions created${failed ? ` (${failed} rows not imported)` : ""}.`,
  importStatus: { uploaded: "Waiting for confirmation", completed: "Completed" },
  review: "Review",
  startPeriod: "Start period",
  firstDebit: "First debit date",
  firstAmount: "First debit amount",
  status_: {
    [SubscriptionStatus.UNSPECIFIED]: "—",
    [SubscriptionStatus.ACTIVE]: "Active",
    [SubscriptionStatus.PAUSED]: "Paused",
    [SubscriptionStatus.PAST_DUE]: "Past due",
    [SubscriptionStatus.CANCELLED]: "Cancelled",
    [SubscriptionStatus.ENDED]: "Ended",
  },
  pastDueReason: {
    [PastDueReason.UNSPECIFIED]: "",
    [PastDueReason.RETRYING]: "Re-debit scheduled",
    [PastDueReason.NOT_RETRIED]: "The plan does not re-debit",
    [PastDueReason.NOT_RETRYABLE]: "A failure that is not re-debited",
    [PastDueReason.ATTEMPTS_EXHAUSTED]: "Attempts used up",
    [PastDueReason.NO_RETRY_DATE]: "No re-debit date in the month",
    [PastDueReason.CARRIED_OVER]: "Added to the next debit",
  },
};

export function bt(): typeof ja {
  return lang() === "ja" ? ja : en;
}

/** 毎月 / 3か月ごと / 毎年. */
export function intervalText(unit: IntervalUnit, count: number): string {
  return unit === IntervalUnit.YEAR ? bt().everyYears(count) : bt().everyMonths(count);
}

/** 50%引き(初回から3回), ¥500引き…, or 初回は請求なし; "—" for neither. */
export function discountText(plan: Plan): string {
  const parts: string[] = [];
  if (plan.firstPeriod === FirstPeriodRule.NONE) parts.push(bt().firstFree);
  const off = plan.discount?.off;
  if (off?.case === "percent") parts.push(bt().discountShown(`${off.value}%`, plan.discount!.periods));
  if (off?.case === "amount") parts.push(bt().discountShown(formatYen(off.value), plan.discount!.periods));
  return parts.join(bt().listSeparator) || "—";
}

/** 5日後に再振替(最大2回), 次回に合算(最大2回) or 再振替しない, and whether it cancels. */
export function dunningText(plan: Plan): string {
  const dunning = plan.dunning;
  const shown = bt().dunningShown;
  const action =
    dunning?.action === DunningAction.RETRY
      ? shown.retry(dunning.retryAfterDays, dunning.maxAttempts)
      : dunning?.action === DunningAction.CARRY_OVER
        ? shown.carry(dunning.maxAttempts)
        : shown.stop;
  return dunning?.cancelOnGiveUp ? `${action}${bt().listSeparator}${shown.cancel}` : action;
}
