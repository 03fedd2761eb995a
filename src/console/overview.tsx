// The overview: the last 30 days at a glance.

import { Hono } from "hono";
import { siteOverview } from "../wallet/operators";
import { formatExact, formatMoney } from "../wallet/rules";
import type { ConsoleEnv, Session } from "./env";
import { noticeOf, plural, type Wallet } from "./page";
import { BASE } from "./session";
import { EntryType } from "./user";
import { Chart, type Notice, Page, Table, When } from "./views";

export const overviewScreen = new Hono<ConsoleEnv>({ strict: false });

type Overview = Awaited<ReturnType<typeof siteOverview>>;

/** How many UTC days, today's included, the overview sums. */
const DAYS = 30;

/** A wallet's money in and out on each of `days` (UTC): a chart and its figures. */
function DailyFlow(props: { wallet: Wallet; daily: Overview["daily"]; days: number[] }) {
  const { wallet, days } = props;
  const rows = props.daily.filter((d) => d.walletId === wallet.id);
  const at = (d: number, k: "credits" | "debits") => rows.find((r) => r.day === d)?.[k] ?? 0n;
  return (
    <section>
      <h2>
        {wallet.name}: money in and out per UTC day, last {DAYS} days
      </h2>
      <Chart
        title={`${wallet.name}: credits and debits per UTC day`}
        xSpan={[days[0]!, days.at(-1)!]}
        yLabel={`amount (${wallet.symbol})`}
        yFormat={(y) => formatMoney(y, wallet)}
        lines={[
          {
            label: "in (credits)",
            points: days.map((d) => ({ x: d, y: Number(at(d, "credits")) })),
          },
          {
            label: "out (debits)",
            dash: "6 4",
            points: days.map((d) => ({ x: d, y: Number(at(d, "debits")) })),
          },
        ]}
      />
      <details>
        <summary>Figures</summary>
        <Table
          cols={["Day (UTC)", "In", "Out"]}
          num={["In", "Out"]}
          empty={`Nothing moved in ${wallet.name} these ${DAYS} days.`}
        >
          {days
            .filter((d) => at(d, "credits") || at(d, "debits"))
            .map((d) => (
              <tr>
                <td>
                  <When ms={d * 1000} to="day" />
                </td>
                <td class="num">{formatExact(at(d, "credits"), wallet)}</td>
                <td class="num">{formatExact(at(d, "debits"), wallet)}</td>
              </tr>
            ))}
        </Table>
      </details>
    </section>
  );
}

function OverviewView(props: { data: Overview; session: Session; notice: Notice }) {
  const { data } = props;
  const byWallet = new Map(data.held.map((h) => [h.wallet.id, h.wallet]));
  return (
    <Page title="Overview" session={props.session} current="overview" notice={props.notice}>
      <div class="grid">
        <section>
          <h2>Users</h2>
          <p>
            <a href={`${BASE}/users`}>{plural(data.users, "account")}</a>
          </p>
        </section>
        {data.held.map((h) => (
          <section>
            <h2>{h.wallet.name}</h2>
            <p>
              {formatExact(h.held, h.wallet)} in the balances of {plural(h.holders, "user")}
            </p>
          </section>
        ))}
      </div>
      {data.held.map(({ wallet }) => (
        <DailyFlow wallet={wallet} daily={data.daily} days={data.days} />
      ))}
      <section>
        <h2>Latest transactions</h2>
        <Table
          cols={["ID", "User", "Type", "Amount", "Date (UTC)"]}
          num={["Amount"]}
          empty="No transactions yet."
        >
          {data.latest.map(({ entry, username }) => {
            const w = byWallet.get(entry.walletId);
            return (
              <tr>
                <td>{entry.id}</td>
                <td>
                  {/* A username has no space to break at: it breaks anywhere (console.css), the
                      dates kept on a phone's screen. */}
                  <a class="name" href={`${BASE}/users/${entry.userId}`}>
                    {username ?? entry.userId}
                  </a>
                </td>
                <td>
                  <EntryType e={entry} />
                </td>
                <td class="num">{w ? formatExact(entry.amountMinor, w) : entry.amountText}</td>
                <td>
                  <When ms={entry.createdAtS * 1000} to="day" />
                </td>
              </tr>
            );
          })}
        </Table>
      </section>
    </Page>
  );
}

overviewScreen.get("/", async (c) => {
  const data = await siteOverview(c.var.service, DAYS);
  return c.html(<OverviewView data={data} session={c.var.session} notice={await noticeOf(c)} />);
});
