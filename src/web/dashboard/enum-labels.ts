import {
  ApiSource,
  ChargeStatus,
  ContractStatus,
  DeliveryStatus,
  ErrorType,
  EventType,
  KycStatus,
  MandateVerification,
  PaymentAuthorizationStatus,
  RefundStatus,
} from "../../../gen/payments/v1/enums_pb.js";
import {
  chargeStatusWording,
  contractStatusWording,
  refundStatusWording,
  type Wording,
} from "../../domain/display-format.js";
import { errorTypeMessages, errorTypeMessagesJa } from "../../domain/payment-failure.js";
import { lang, type Lang } from "./i18n.js";

/**
 * The words for the generated enums, from the enums themselves (a new value fails the type check
 * until it has its words): the dashboard never shows a raw enum name.
 */
type Words<E extends number> = Readonly<Record<E, string>>;
type Both<E extends number> = Readonly<Record<Lang, Words<E>>>;

/** The statuses are the vocabulary every screen shares (domain/display-format.ts), split by language. */
function bothOf<E extends number>(wording: Readonly<Record<E, Wording>>): Both<E> {
  const pick = (language: Lang) =>
    Object.fromEntries(Object.entries<Wording>(wording).map(([value, words]) => [value, words[language]])) as Words<E>;
  return { ja: pick("ja"), en: pick("en") };
}

const chargeStatus: Both<ChargeStatus> = bothOf(chargeStatusWording);

const refundStatus: Both<RefundStatus> = bothOf(refundStatusWording);

const contractStatus: Both<ContractStatus> = bothOf(contractStatusWording);

const paymentAuthorization: Both<PaymentAuthorizationStatus> = {
  ja: {
    [PaymentAuthorizationStatus.UNSPECIFIED]: "不明",
    [PaymentAuthorizationStatus.AUTHORIZED]: "口座振替可",
    [PaymentAuthorizationStatus.NOT_AUTHORIZED]: "口座振替不可",
  },
  en: {
    [PaymentAuthorizationStatus.UNSPECIFIED]: "Unknown",
    [PaymentAuthorizationStatus.AUTHORIZED]: "Authorized",
    [PaymentAuthorizationStatus.NOT_AUTHORIZED]: "Not authorized",
  },
};

const kycStatus: Both<KycStatus> = {
  ja: {
    [KycStatus.UNSPECIFIED]: "不明",
    [KycStatus.APPROVED]: "確認済み",
    [KycStatus.NOT_SUBMITTED]: "未提出",
    [KycStatus.IN_REVIEW]: "審査中",
    [KycStatus.DENIED]: "否認",
  },
  en: {
    [KycStatus.UNSPECIFIED]: "Unknown",
    [KycStatus.APPROVED]: "Approved",
    [KycStatus.NOT_SUBMITTED]: "Not submitted",
    [KycStatus.IN_REVIEW]: "In review",
    [KycStatus.DENIED]: "Denied",
  },
};

const deliveryStatus: Both<DeliveryStatus> = {
  ja: {
    [DeliveryStatus.UNSPECIFIED]: "不明",
    [DeliveryStatus.PENDING]: "配信待ち",
    [DeliveryStatus.DELIVERED]: "配信済み",
    [DeliveryStatus.FAILED]: "配信失敗",
  },
  en: {
    [DeliveryStatus.UNSPECIFIED]: "Unknown",
    [DeliveryStatus.PENDING]: "Pending",
    [DeliveryStatus.DELIVERED]: "Delivered",
    [DeliveryStatus.FAILED]: "Failed",
  },
};

const eventType: Both<EventType> = {
  ja: {
    [EventType.UNSPECIFIED]: "不明",
    [EventType.CHARGE_SUCCESS]: "決済成功",
    [EventType.CHARGE_FAIL]: "決済失敗",
    [EventType.REFUND_SUCCEEDED]: "返金成功",
    [EventType.REFUND_FAILED]: "返金失敗",
    [EventType.CONTRACT_ACTIVATED]: "契約開始",
    [EventType.TEST_CHARGE_CREATED]: "テスト: 決済作成",
    [EventType.TEST_CHARGE_FAIL]: "テスト: 決済失敗",
    [EventType.CONTRACT_STOP_REQUESTED]: "停止の依頼",
    [EventType.SUBSCRIPTION_CREATED]: "定期課金の開始",
    [EventType.SUBSCRIPTION_PAYMENT_SCHEDULED]: "定期課金の請求作成",
    [EventType.SUBSCRIPTION_PAST_DUE]: "定期課金の未収",
    [EventType.SUBSCRIPTION_CANCELLED]: "定期課金の終了",
  },
  en: {
    [EventType.UNSPECIFIED]: "Unknown",
    [EventType.CHARGE_SUCCESS]: "Charge succeeded",
    [EventType.CHARGE_FAIL]: "Charge failed",
    [EventType.REFUND_SUCCEEDED]: "Refund succeeded",
    [EventType.REFUND_FAILED]: "Refund failed",
    [EventType.CONTRACT_ACTIVATED]: "Contract activated",
    [EventType.TEST_CHARGE_CREATED]: "Test: charge created",
    [EventType.TEST_CHARGE_FAIL]: "Test: charge failed",
    [EventType.CONTRACT_STOP_REQUESTED]: "Stop requested",
    [EventType.SUBSCRIPTION_CREATED]: "Subscription created",
    [EventType.SUBSCRIPTION_PAYMENT_SCHEDULED]: "Subscription payment scheduled",
    [EventType.SUBSCRIPTION_PAST_DUE]: "Subscription past due",
    [EventType.SUBSCRIPTION_CANCELLED]: "Subscription cancelled",
  },
};

const mandateVerification: Both<MandateVerification> = {
  ja: {
    [MandateVerification.UNSPECIFIED]: "不明",
    [MandateVerification.BANK_REDIRECT]: "銀行サイトで確認",
    [MandateVerification.FIRST_DEBIT]: "初回引落で登録",
  },
  en: {
    [MandateVerification.UNSPECIFIED]: "Unknown",
    [MandateVerification.BANK_REDIRECT]: "Confirmed on the bank's site",
    [MandateVerification.FIRST_DEBIT]: "Registered with the first debit",
  },
};

const apiSource: Both<ApiSource> = {
  ja: {
    [ApiSource.UNSPECIFIED]: "不明",
    [ApiSource.OFF_SESSION_SYNC]: "オフセッション（同期）",
    [ApiSource.OFF_SESSION_ASYNC]: "オフセッション（非同期）",
    [ApiSource.ON_SESSION]: "オンセッション",
  },
  en: {
    [ApiSource.UNSPECIFIED]: "Unknown",
    [ApiSource.OFF_SESSION_SYNC]: "Off-session (sync)",
    [ApiSource.OFF_SESSION_ASYNC]: "Off-session (async)",
    [ApiSource.ON_SESSION]: "On-session",
  },
};

const errorTypeText: Both<ErrorType> = { ja: errorTypeMessagesJa, en: errorTypeMessages };

const tables = {
  chargeStatus,
  refundStatus,
  contractStatus,
  paymentAuthorization,
  kycStatus,
  deliveryStatus,
  eventType,
  mandateVerification,
  apiSource,
  errorType: errorTypeText,
};

export type LabelKind = keyof typeof tables;

/** An enum value in the user's language. */
export function label(kind: LabelKind, value: number): string {
  const words = tables[kind][lang()] as Readonly<Record<number, string>>;
  return words[value] ?? words[0];
}

/** The values of a kind a filter offers (all but UNSPECIFIED). */
export function choices(kind: LabelKind): Array<[number, string]> {
  return Object.keys(tables[kind][lang()])
    .map(Number)
    .filter((value) => value !== 0)
    .map((value) => [value, label(kind, value)]);
}
