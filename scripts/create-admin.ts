// `npm run admin:create -- --remote --username NAME --email ADDRESS`: the first administrator of a
// deployed service. The password comes from WALLET_ADMIN_PASSWORD or is asked for; never a default.
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { ensureAdmin } from "./lib/admin";

const { values } = parseArgs({
  options: {
    remote: { type: "boolean" },
    local: { type: "boolean" },
    username: { type: "string" },
    email: { type: "string" },
  },
});
if (!values.username || !values.email || values.remote === values.local) {
  console.error(
    "usage: npm run admin:create -- (--remote|--local) --username NAME --email ADDRESS",
  );
  process.exit(2);
}
let password = process.env.WALLET_ADMIN_PASSWORD;
if (!password) {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  password = await rl.question("Password for the new administrator: ");
  rl.close();
}
const result = await ensureAdmin({
  target: values.remote ? "--remote" : "--local",
  username: values.username,
  email: values.email,
  password,
});
console.log(
  result.created
    ? `Administrator ${values.username} created (id ${result.id}).`
    : "That username or e-mail names an existing user (as a username or an e-mail), or the username is an e-mail address other than --email; nothing changed.",
);
