import type { AppContext } from "../app-context.js";
import { h } from "../dom.js";
import { st } from "../i18n-settings.js";
import { consignorContractsView } from "./consignor-contracts.js";

/** The 口座振替 consignor (委託者) contracts on a page of their own (docs/guide/dashboard.md#the-consignor-page). */
export async function consignorView(app: AppContext): Promise<HTMLElement> {
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, st().consignorTitle),
    h("p", {}, st().consignorIntro),
    await consignorContractsView(app),
  );
}
