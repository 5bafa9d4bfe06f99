import { busy, errorBox, errorMessage, field, h } from "../dom.js";
import { tt } from "../i18n-team.js";
import { rpc } from "../rpc.js";

/**
 * An invitation or password-reset link (#/invitation/<token>; docs/guide/dashboard.md#the-team):
 * who it is for, then a new password. An invitee is signed in and set up TOTP next; a user with
 * TOTP whose password was reset signs in with the new one.
 */
export async function invitationView(token: string, onSignedIn: () => Promise<void>): Promise<HTMLElement> {
  const section = h("section", {});
  let invitation: Awaited<ReturnType<typeof rpc.getInvitation>>;
  try {
    invitation = await rpc.getInvitation({ token });
  } catch (error) {
    section.append(
      h("h1", { tabindex: -1 }, tt().linkTitle),
      h("p", { class: "error", role: "alert" }, errorMessage(error)),
      h("p", {}, h("a", { href: "#/" }, tt().toSignIn)),
    );
    return section;
  }
  const heading = invitation.passwordReset ? tt().resetTitle : tt().invitationTitle(invitation.merchantName);
  const email = h("input", { type: "email", value: invitation.email, readonly: true, autocomplete: "username" });
  const password = h("input", { type: "password", required: true, minlength: 12, autocomplete: "new-password" });
  const submit = h("button", { type: "submit" }, invitation.passwordReset ? tt().setPassword : tt().join);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card narrow" },
    h("p", {}, tt().invitationIntro(invitation.email, tt().roles[invitation.role] ?? "")),
    field(tt().email, email),
    field(tt().newPassword, password),
    problem,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, problem, async () => {
      const accepted = await rpc.acceptInvitation({ token, password: password.value });
      history.replaceState(null, "", location.pathname);
      if (accepted.user) return onSignedIn();
      form.replaceWith(
        h("p", { class: "ok", role: "status" }, tt().resetDone, " ", h("a", { href: "#/" }, tt().toSignIn)),
      );
    });
  });
  section.append(h("h1", { tabindex: -1 }, heading), form);
  return section;
}
