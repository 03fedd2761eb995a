// Wallets: the list, and a new wallet.

import { Hono } from "hono";
import { WalletParams, walletOf } from "../http/fields";
import { parseFields } from "../http/validation";
import { allWallets, newWallet } from "../wallet/wallets";
import { attempt, backRefused } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, fieldsOf, noticeOf, type Wallet } from "./page";
import { BASE } from "./session";
import { Choice, Field, NewForm, type Notice, Page, refusedForm, Table } from "./views";

export const walletsScreen = new Hono<ConsoleEnv>({ strict: false });

const page = `${BASE}/wallets`;

function WalletsView(props: { wallets: Wallet[]; session: Session; notice: Notice }) {
  const refused = refusedForm(props.notice, "new-wallet");
  return (
    <Page title="Wallets" session={props.session} current="wallets" notice={props.notice}>
      <section>
        <Table
          cols={["ID", "Name", "Symbol", "Position", "Decimals"]}
          num={["Decimals"]}
          empty="No wallets yet."
        >
          {props.wallets.map((w) => (
            <tr>
              <td>{w.id}</td>
              <td>{w.name}</td>
              <td>{w.symbol}</td>
              <td>{w.symbolPosition}</td>
              <td class="num">{w.decimals}</td>
            </tr>
          ))}
        </Table>
      </section>
      <NewForm title="New wallet" action={page} session={props.session} button="Create wallet">
        <Field
          label="Wallet id"
          name="wallet_id"
          refused={refused}
          required
          autocomplete="off"
          placeholder="ngn"
        />
        <Field label="Name" name="wallet_name" refused={refused} required autocomplete="off" />
        <Field label="Symbol" name="wallet_symbol" refused={refused} required autocomplete="off" />
        <Choice
          label="Symbol position"
          name="wallet_symbol_position"
          refused={refused}
          options={(kept) => (
            <>
              <option value="left">left</option>
              <option value="right" selected={kept === "right"}>
                right
              </option>
            </>
          )}
        />
        <Field
          label="Decimals"
          name="wallet_decimal"
          refused={refused}
          inputmode="numeric"
          value="2"
          required
        />
      </NewForm>
    </Page>
  );
}

walletsScreen.get("/wallets", async (c) => {
  const wallets = await allWallets(c.var.service);
  return c.html(
    <WalletsView wallets={wallets} session={c.var.session} notice={await noticeOf(c)} />,
  );
});
walletsScreen.post("/wallets", async (c) => {
  const typed = fieldsOf(c.var.form, [
    "wallet_id",
    "wallet_name",
    "wallet_symbol",
    "wallet_symbol_position",
    "wallet_decimal",
  ]);
  const created = await attempt(c, () =>
    newWallet(c.var.service, walletOf(parseFields(WalletParams, typed))),
  );
  // Refused, the form is drawn again as typed.
  if (!created.ok)
    return backRefused(c, page, "New wallet", created.refusal, {
      form: "new-wallet",
      fields: typed,
    });
  return back(c, page, { kind: "ok", text: `Wallet ${created.value.wallet.id} created.` });
});
