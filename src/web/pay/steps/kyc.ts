import { KycMethod, KycStatus } from "../../../../gen/payments/v1/enums_pb.js";
import { load, render, session } from "../session.js";
import { readForm, showServerError } from "../form.js";
import { announce, hasMessage, state } from "../page.js";
import { call, page, type PageError } from "../rpc.js";

/** The identity form (when the merchant set force_kyc). */
export async function submitKyc(form: HTMLFormElement): Promise<void> {
  const values = readForm(form, "kyc");
  if (!values) return;
  let kycStatus: KycStatus;
  try {
    ({ kycStatus } = await call(() =>
      page.submitKyc({
        token: state.token,
        name: values.name,
        katakanaLastName: values.katakana_last_name,
        katakanaFirstName: values.katakana_first_name,
        birthDate: values.birth_date,
        address: values.address,
        gender: values.gender ?? "",
        method: KycMethod.UNSPECIFIED,
      }),
    ));
  } catch (error) {
    if (showServerError(form, "kyc", error as PageError)) await load();
    return;
  }
  session().kycSubmitted = true;
  const key = `kyc.status.${KycStatus[kycStatus]}`;
  announce(hasMessage(key) ? key : "kyc.status.other");
  render();
}
