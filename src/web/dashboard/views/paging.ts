import { h } from "../dom.js";
import { t } from "../i18n.js";

/**
 * Keyset paging: loads the first page now, and each next one when the button is pressed; `load`
 * appends its page and answers the next page's token ("" at the end, which hides the button).
 */
export async function moreButton(load: (pageToken: string) => Promise<string>): Promise<HTMLButtonElement> {
  const more = h("button", { type: "button", class: "secondary" }, t().more);
  let token = await load("");
  more.hidden = token === "";
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      token = await load(token);
      more.hidden = token === "";
    } finally {
      more.disabled = false;
    }
  });
  return more;
}
