import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bankAuthenticationRules } from "../domain/bank-authentication.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  bankAuthorise,
  bankLoginView,
  bankRedeemCode,
  finishedRequestReturn,
  type BankLoginView,
} from "../flows/sandbox-bank-site.js";
import { zenginMagicAccountPrefix } from "../domain/zengin-result.js";

/**
 * The simulated bank's own web site, on an origin of its own (SANDBOX_BANK_PORT): the login page
 * a customer is sent to to authorise a direct debit (GET and POST /authorize), and the token
 * endpoint the service confirms the authorisation code at, server to server (POST /token).
 */
const headers = Object.freeze({
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 8192) throw new Error("form too large");
  }
  return new URLSearchParams(body);
}

function page(status: number, res: ServerResponse, title: string, main: string): void {
  res.writeHead(status, { ...headers, "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — サンドボックス銀行</title>
<style>
body { font-family: "Noto Sans CJK JP", "Hiragino Sans", sans-serif; margin: 0; background: #eef3f1; color: #1b2b26; line-height: 1.6; }
header { background: #0b5d43; color: #fff; padding: 0.75rem 1rem; }
header p { margin: 0; font-weight: bold; }
main { max-width: 32rem; margin: 1rem auto; padding: 1rem; background: #fff; border-radius: 8px; }
h1 { font-size: 1.3rem; margin-top: 0; }
a { color: #0b5d43; font-weight: bold; display: inline-block; padding: 0.5rem 0; }
label { display: block; font-weight: bold; margin-top: 1rem; }
input { font-size: 1.2rem; padding: 0.5rem; width: 100%; box-sizing: border-box; border: 1px solid #4d5f59; border-radius: 4px; }
button { font-size: 1rem; padding: 0.75rem 1rem; margin-top: 1rem; width: 100%; border-radius: 4px; border: 1px solid #0b5d43; }
button.primary { background: #0b5d43; color: #fff; }
button.secondary { background: #fff; color: #0b5d43; }
.alert { background: #fdecea; color: #8a1c12; padding: 0.75rem; border-radius: 4px; }
.test { background: #fff6d5; padding: 0.75rem; border-radius: 4px; font-size: 0.9rem; }
dt { font-weight: bold; }
dd { margin: 0 0 0.5rem; }
</style>
</head>
<body>
<header><p>サンドボックス銀行 <span lang="en">Sandbox Bank</span></p></header>
<main>
${main}
</main>
</body>
</html>`);
}

function loginPage(
  res: ServerResponse,
  request: { verificationId: string; state: string },
  view: BankLoginView,
  error = "",
): void {
  const alert = error ? `<p class="alert" role="alert" id="bank-error">${escapeHtml(error)}</p>` : "";
  page(
    error ? 422 : 200,
    res,
    "口座振替のお申し込み",
    `<h1>口座振替のお申し込み <span lang="en">Direct debit authorisation</span></h1>
<p>${escapeHtml(view.merchantName)} からの口座振替（自動引き落とし）のお申し込みです。ご本人確認のため、当行の暗証番号とワンタイムパスワードを入力してください。</p>
<p lang="en">${escapeHtml(view.merchantName)} asks to debit this account. Confirm it is you with this bank's PIN and one-time password.</p>
<dl>
<dt>口座 <span lang="en">Account</span></dt><dd id="bank-account">${escapeHtml(view.accountDisplay)}</dd>
<dt>口座名義 <span lang="en">Holder</span></dt><dd>${escapeHtml(view.accountHolder)}</dd>
</dl>
${alert}
<form method="post" action="/authorize">
<input type="hidden" name="request" value="${escapeHtml(request.verificationId)}">
<input type="hidden" name="state" value="${escapeHtml(request.state)}">
<label for="pin">暗証番号（4桁） <span lang="en">PIN (4 digits)</span></label>
<input id="pin" name="pin" inputmode="numeric" autocomplete="off" maxlength="4" ${error ? 'aria-describedby="bank-error"' : ""}>
<label for="one_time_password">ワンタイムパスワード（6桁） <span lang="en">One-time password (6 digits)</span></label>
<input id="one_time_password" name="one_time_password" inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<p class="test">テスト用の値 <span lang="en">(test values)</span>: 暗証番号 ${bankAuthenticationRules.sandboxPin}、ワンタイムパスワード ${bankAuthenticationRules.sandboxOneTimePassword}。誤った入力が1日に${bankAuthenticationRules.wrongEntriesPerDay}回続くと、この口座は当日 24:00 までロックされます。口座番号 ${zenginMagicAccountPrefix}N は引き落とし時に振替結果コード N を返します。</p>
<button class="primary" type="submit" name="action" value="approve">認証して申し込む <span lang="en">Authorise</span></button>
<button class="secondary" type="submit" name="action" value="cancel">申し込まずにお店に戻る <span lang="en">Cancel and go back</span></button>
</form>`,
  );
}

function unknownRequest(res: ServerResponse): void {
  page(
    400,
    res,
    "お申し込みが見つかりません",
    `<h1>お申し込みが見つかりません <span lang="en">Request not found</span></h1>
<p>この口座振替のお申し込みは無効か、すでに終了しています。お店のページからやり直してください。</p>
<p lang="en">This request is not valid or has already ended. Start again from the shop's page.</p>`,
  );
}

/** A request already answered (the customer came back to it with Back): no form, the way back to the shop's page. */
function finishedRequest(res: ServerResponse, returnUrl: string): void {
  page(
    200,
    res,
    "お申し込みの手続きは終わっています",
    `<h1>お申し込みの手続きは終わっています <span lang="en">This request is finished</span></h1>
<p>この口座振替のお申し込みは、すでに手続きが終わっています。お支払いのページに戻って続けてください。</p>
<p lang="en">This direct-debit request has already been answered. Go back to the payment page to continue.</p>
<p><a id="bank-back" href="${escapeHtml(returnUrl)}">お支払いのページに戻る <span lang="en">Back to the payment page</span></a></p>`,
  );
}

const retryMessages = {
  missing: "暗証番号とワンタイムパスワードを入力してください。 Enter the PIN and the one-time password.",
  wrong: (left: number) =>
    `暗証番号またはワンタイムパスワードが違います（本日あと${left}回）。 The PIN or the one-time password is wrong (${left} attempt(s) left today).`,
};

export function createSandboxBankSite(ctx: FlowContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://bank.invalid");
    if (url.pathname === "/authorize" && req.method === "GET") {
      const request = {
        verificationId: url.searchParams.get("request") ?? "",
        state: url.searchParams.get("state") ?? "",
      };
      const view = await bankLoginView(ctx, request.verificationId, request.state);
      if (view) return loginPage(res, request, view);
      const returnUrl = await finishedRequestReturn(ctx, request.verificationId, request.state);
      return returnUrl ? finishedRequest(res, returnUrl) : unknownRequest(res);
    }
    if (url.pathname === "/authorize" && req.method === "POST") {
      const form = await formOf(req);
      const request = { verificationId: form.get("request") ?? "", state: form.get("state") ?? "" };
      const answer = await bankAuthorise(ctx, {
        ...request,
        pin: form.get("pin") ?? "",
        oneTimePassword: form.get("one_time_password") ?? "",
        cancel: form.get("action") === "cancel",
      });
      if (answer.kind === "unknown") return unknownRequest(res);
      if (answer.kind === "back") {
        res.writeHead(303, { ...headers, location: answer.location.toString() });
        return void res.end();
      }
      const view = await bankLoginView(ctx, request.verificationId, request.state);
      if (!view) return unknownRequest(res);
      const { verdict } = answer;
      return loginPage(
        res,
        request,
        view,
        verdict.kind === "missing" ? retryMessages.missing : retryMessages.wrong(verdict.attemptsLeft),
      );
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = await formOf(req);
      const ok = await bankRedeemCode(ctx, form.get("request") ?? "", form.get("code") ?? "");
      res.writeHead(ok ? 200 : 400, { ...headers, "content-type": "application/json" });
      return void res.end(JSON.stringify(ok ? { verified: true } : { error: "invalid_grant" }));
    }
    res.writeHead(404, { ...headers, "content-type": "text/plain; charset=utf-8" });
    res.end("not found");
  };
}

/** Starts the bank site; port 0 picks a free one. */
export async function listenSandboxBankSite(
  ctx: FlowContext,
  options: { host: string; port: number; onError: (error: unknown) => void },
): Promise<{ port: number; close(): Promise<void> }> {
  const site = createSandboxBankSite(ctx);
  const server: Server = createServer((req, res) => {
    site(req, res).catch((error) => {
      options.onError(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
