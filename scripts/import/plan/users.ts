// Users: each site user is imported, found already there (an earlier run), or skipped with a reason.

import { isUnusableHash, PASSWORD_USABLE_SQL, UNUSABLE_MARK } from "../../../src/db/schema";
import { sqlLiteral } from "../../lib/sql";
import type { SiteUser } from "../collect";
import { MAX_LISTED } from "../report";
import { emailKey, loginKey, parseRoles, passwordHashKind, utcSeconds } from "../site-values";
import { type PlannedUser, userInsert } from "../statements";
import type { TargetUser } from "../target";
import type { PlanContext } from "./context";

export type UserPlan = {
  /** WordPress id → the service's user (imported or already present). */
  users: Map<number, PlannedUser>;
  /** WordPress id → why it is not imported. */
  userSkips: Map<number, string>;
  /** Users the dump itself rules out (an empty or repeated login or e-mail): the plan refuses. */
  leftOut: number;
};

export function planUsers(ctx: PlanContext): UserPlan {
  const { collector, report, target } = ctx;
  const plan: UserPlan = { users: new Map(), userSkips: new Map(), leftOut: 0 };
  const seen = { names: new Map<string, number>(), emails: new Map<string, number>() };
  for (const u of [...collector.users.values()].sort((a, b) => a.id - b.id)) {
    const user = siteUser(ctx, u);
    const skip = (reason: string) => {
      plan.userSkips.set(u.id, reason);
      report.users.skipped.add(reason, { id: u.id, username: user.username });
    };
    const duplicate = duplicateInDump(user, seen);
    if (duplicate) {
      skip(duplicate);
      plan.leftOut++;
      continue;
    }
    const there = alreadyThere(ctx, user);
    if (there && "conflict" in there) {
      skip(there.conflict);
      continue;
    }
    if (there) {
      plan.users.set(u.id, there);
      report.users.alreadyPresent++;
      continue;
    }
    const hashKind = passwordHashKind(String(u.pass));
    report.users.passwordHashes[hashKind] = (report.users.passwordHashes[hashKind] ?? 0) + 1;
    if (u.spam) report.users.signInDisabled.add(SPAM, { id: u.id, username: user.username });
    else if (hashKind === "unknown")
      ctx.warn(
        `user ${u.id} (${user.username}): password hash of an unknown kind or work factor; this user must reset the password`,
      );
    else if (hashKind === "unusable")
      ctx.warn(
        `user ${u.id} (${user.username}): password hash beginning with ${UNUSABLE_MARK}, the mark of an unusable password: this user can neither sign in nor reset the password`,
      );
    plan.users.set(u.id, user);
    report.users.imported++;
    ctx.emit(userInsert(user), "user", `user ${user.id} (${user.username})`);
  }
  report.users.inDump = collector.users.size;
  if (collector.users.size === 0 && target.users.size > 0)
    report.conflicts.push({
      kind: "user",
      id: "*",
      problem: "the dump holds no user, and the database does (is --prefix right?)",
    });
  warnUsersGone(ctx);
  demoteAdministrators(ctx, plan);
  reportLoginCollisions(ctx, plan);
  return plan;
}

/** Names each user an earlier run imported (its entries say so) that the dump no longer has. */
function warnUsersGone({ collector, target, warn }: PlanContext) {
  for (const [id, n] of target.importedByUser)
    if (n > 0 && !collector.users.has(id))
      warn(
        `user ${id} (${target.users.get(id)?.username}) is not in the dump (deleted on the site?): kept here, with its ${n} imported entries`,
      );
}

/**
 * Lists every username that is another user's e-mail, case-folded, among the users the database
 * will hold (those it has, and those imported): WordPress allowed such pairs, the service refuses
 * them for new users, and a login text names the e-mail's owner. They are imported as they are.
 */
function reportLoginCollisions({ target, report }: PlanContext, plan: UserPlan) {
  const accounts = new Map<number, { username: string; email: string }>();
  for (const u of target.users.values())
    accounts.set(Number(u.id), { username: String(u.username), email: String(u.email) });
  for (const u of plan.users.values()) if (!accounts.has(u.id)) accounts.set(u.id, u);
  const emailOwners = new Map<string, number>();
  for (const [id, u] of accounts) emailOwners.set(emailKey(u.email), id);
  const found = report.users.loginCollisions;
  for (const [id, u] of [...accounts].sort(([a], [b]) => a - b)) {
    const owner = emailOwners.get(loginKey(u.username));
    if (owner === undefined || owner === id) continue;
    found.total++;
    if (found.list.length < MAX_LISTED)
      found.list.push({
        userId: id,
        username: u.username,
        emailOwnerId: owner,
        emailOwner: accounts.get(owner)!.username,
      });
  }
}

/** The service's user of a site user: role from its capabilities, an e-mail even if it had none. */
function siteUser({ collector, report, warn }: PlanContext, u: SiteUser): PlannedUser {
  const meta = collector.userMeta.get(u.id)?.fields ?? {};
  const capabilities = meta[collector.capabilitiesKey];
  const roles = capabilities === undefined ? null : parseRoles(capabilities);
  const roleKey = roles === null ? "(none)" : roles.length === 0 ? "(no role)" : roles.join("+");
  report.users.roles[roleKey] = (report.users.roles[roleKey] ?? 0) + 1;
  let email = String(u.email).trim();
  if (email === "") {
    email = `wp-user-${u.id}@users.invalid`;
    warn(`user ${u.id} (${u.login}) has no e-mail: imported as ${email}`);
  }
  return {
    id: u.id,
    username: String(u.login),
    email,
    // A network's spam user stays refused: its hash is kept behind the mark no sign-in reads.
    passwordHash: u.spam ? `${UNUSABLE_MARK}${u.pass}` : String(u.pass),
    firstName: String(meta.first_name ?? ""),
    lastName: String(meta.last_name ?? ""),
    role: roles?.includes("administrator") ? "administrator" : "subscriber",
    registeredAtMs: (utcSeconds(u.registered) ?? 0) * 1000,
  };
}

/** Why the dump itself rules this user out (an empty or repeated username or e-mail), if it does. */
function duplicateInDump(
  user: PlannedUser,
  seen: { names: Map<string, number>; emails: Map<string, number> },
) {
  const [name, email] = [loginKey(user.username), emailKey(user.email)];
  if (name === "") return "empty username";
  if (seen.names.has(name)) return `username taken by user ${seen.names.get(name)} in the dump`;
  if (seen.emails.has(email)) return `e-mail taken by user ${seen.emails.get(email)} in the dump`;
  seen.names.set(name, user.id);
  seen.emails.set(email, user.id);
  return null;
}

const instant = (ms: unknown) => new Date(Number(ms)).toISOString().replace(".000Z", "Z");

const EXISTING = { conflict: "conflicts with an existing user" };

/**
 * The database's side: the same user from an earlier run (as the database has it), a conflict
 * (reported; its reason to skip the user), or null when the user is new.
 */
function alreadyThere(
  ctx: PlanContext,
  user: PlannedUser,
): PlannedUser | { conflict: string } | null {
  const { target, report, warn } = ctx;
  const [name, email] = [loginKey(user.username), emailKey(user.email)];
  const there = target.users.get(user.id);
  // A deleted user's id is never given again: another isolate may still know it by the deleted
  // user's username (src/db/isolate-cache.ts), and the database refuses it (0023).
  const deletedAtMs = there ? undefined : target.deletedUsers.get(user.id);
  if (deletedAtMs !== undefined) {
    report.conflicts.push({
      kind: "user",
      id: user.id,
      problem: `user id ${user.id} (${user.username}): a user of that id was deleted from the database at ${instant(deletedAtMs)}, and a deleted user's id is never given again; this user and its entries cannot be imported`,
    });
    return { conflict: "its id was deleted from the database" };
  }
  if (there) {
    const sameName = loginKey(String(there.username)) === name;
    const sameEmail = emailKey(String(there.email)) === email;
    // The same user from an earlier run has the site's registration time. A user the service made
    // (`npm run dev`'s administrator, deploy's, admin:create's) has its own, even under the site's
    // username, and is not the site's user. A changed e-mail or username on the site since is not
    // carried over (the service changes them too): the database's is kept.
    const earlierRun = Number(there.registered_at_ms) === user.registeredAtMs;
    if (earlierRun && (sameName || sameEmail)) {
      if (!(sameName && sameEmail))
        warn(
          `user ${user.id}: the database has ${there.username} <${there.email}>, the site ${user.username} <${user.email}>; kept the database's`,
        );
      const passwordHash = carryOver(ctx, there, user);
      return { ...user, username: there.username, passwordHash };
    }
    report.conflicts.push({
      kind: "user",
      id: user.id,
      problem: `user id ${user.id} (${user.username}) is taken by ${there.username} <${there.email}>${sameName || sameEmail ? `, registered ${instant(there.registered_at_ms)}, the site's user ${instant(user.registeredAtMs)}` : ""}`,
    });
    return EXISTING;
  }
  const other = target.usernames.get(name) ?? target.emails.get(email);
  if (other === undefined) return null;
  report.conflicts.push({
    kind: "user",
    id: user.id,
    problem: `user ${user.id} (${user.username} <${user.email}>): username or e-mail belongs to existing user ${other}`,
  });
  return EXISTING;
}

/**
 * What changed on the site since an earlier run and is carried over. The role: the service never
 * changes one, so a difference is the site's (a demotion is demoteAdministrators'). The password,
 * while the database still holds a hash an import wrote: a sign-in or a reset here replaces it
 * with the service's own, which then has the last word (a `pbkdf2_sha256$…` of Django's, which a
 * sign-in replaces too, or one no sign-in can check, is the site's). Each UPDATE applies only to
 * the value read, so a change made here meanwhile is kept. Answers the hash the user will have.
 */
function carryOver(
  { emit, report, warn }: PlanContext,
  there: TargetUser,
  user: PlannedUser,
): string {
  const id = sqlLiteral(user.id);
  const example = { id: user.id, username: user.username };
  if (there.role === "subscriber" && user.role === "administrator") {
    emit(
      `UPDATE users SET role = 'administrator' WHERE id = ${id} AND role = 'subscriber';`,
      "user",
      `user ${user.id}'s role`,
    );
    report.users.updated.add("role subscriber → administrator", example);
  }
  const hash = String(there.password_hash);
  if (hash === user.passwordHash) return hash;
  const [marked, wasMarked] = [isUnusableHash(user.passwordHash), isUnusableHash(hash)];
  if (passwordHashKind(hash) === "pbkdf2") {
    if (marked)
      warn(
        `user ${user.id} (${user.username}) is marked as spam on the network, and has signed in here since the earlier run: it still can`,
      );
    return hash;
  }
  // Kept over a hash a sign-in takes; a marked one takes none either, and the site's lets a reset in.
  if (passwordHashKind(user.passwordHash) === "unknown" && !wasMarked) {
    warn(
      `user ${user.id} (${user.username}): the site's new password hash is of a kind no sign-in takes; kept the database's`,
    );
    return hash;
  }
  emit(
    `UPDATE users SET password_hash = ${sqlLiteral(user.passwordHash)} WHERE id = ${id} AND password_hash = ${sqlLiteral(hash)};`,
    "user",
    `user ${user.id}'s password`,
  );
  const change =
    marked && !wasMarked
      ? `sign-in disabled (${SPAM})`
      : !marked && wasMarked
        ? "sign-in enabled (no longer marked as spam on the network)"
        : "password (not signed in here since the earlier run)";
  report.users.updated.add(change, example);
  return user.passwordHash;
}

const SPAM = "marked as spam on the network";

/**
 * The database's administrators the site no longer has as such become subscribers, their
 * sessions ended (revoked first, so a run stopped between the two statements still sees the role
 * on its next run): one the site made a subscriber, and one it deleted whose imported entries show
 * it was the site's. The last administrator that can sign in stays one, as the service always
 * keeps one; an administrator absent from the dump with no imported entries (this service's own,
 * or one the site deleted) is named.
 */
function demoteAdministrators(ctx: PlanContext, plan: UserPlan) {
  const { target, emit, report, warn, nowMs } = ctx;
  const demote: { id: number; username: string; why: string }[] = [];
  const left = new Set<number>();
  for (const there of target.users.values()) {
    const id = Number(there.id);
    if (there.role !== "administrator") continue;
    const site = plan.users.get(id);
    if (site?.role === "subscriber")
      demote.push({ id, username: there.username, why: "a subscriber on the site" });
    else if (site || plan.userSkips.has(id)) left.add(id);
    // A dump that holds no user (its users' table left out of the export) says nothing of who was
    // deleted.
    else if ((target.importedByUser.get(id) ?? 0) > 0 && ctx.collector.users.size > 0)
      demote.push({ id, username: there.username, why: "not in the dump (deleted on the site?)" });
    else {
      left.add(id);
      warn(
        `administrator ${id} (${there.username}) is not in the dump: this service's own stays as it is; one the site deleted keeps its role here (end its sessions in the console, revoke its keys)`,
      );
    }
  }
  for (const u of plan.users.values()) if (u.role === "administrator") left.add(u.id);
  // One whose hash is marked unusable after this run (a network's spam user) runs nothing.
  const signsIn = (id: number) => !isUnusableHash(hashAfter(ctx, plan, id));
  for (const { id, username, why } of demote.sort((a, b) => a.id - b.id)) {
    if (![...left].some(signsIn)) {
      const none = left.size === 0 ? "none left" : "none left that can sign in";
      left.add(id);
      warn(
        `user ${id} (${username}) is ${why} but stays an administrator here: the database would have ${none} (make another with npm run admin:create, then run the import again)`,
      );
      continue;
    }
    // Judged again when the statements run: an administrator `left` counted on may have been
    // deleted since the plan was made (DELETE users/{user_id} needs only another that signs in).
    const another = `EXISTS (SELECT 1 FROM users WHERE role = 'administrator' AND id <> ${id} AND ${PASSWORD_USABLE_SQL})`;
    emit(
      `UPDATE sessions SET revoked_at_ms = ${sqlLiteral(nowMs)} WHERE user_id = ${id} AND revoked_at_ms IS NULL AND ${another};`,
      "user",
      `user ${id}'s sessions`,
    );
    emit(
      `UPDATE users SET role = 'subscriber' WHERE id = ${id} AND role = 'administrator' AND ${another};`,
      "user",
      `user ${id}'s role`,
    );
    report.users.updated.add(`role administrator → subscriber (${why})`, { id, username });
  }
  warnNoAdministratorSignsIn(ctx, plan, left);
}

/**
 * Names the administrators the database keeps when none of them can sign in (each marked as spam
 * on the network, as a fresh import of such a site's only ones leaves them): the console has no one.
 */
function warnNoAdministratorSignsIn(
  { target, warn }: PlanContext,
  plan: UserPlan,
  left: Set<number>,
) {
  const admins = [...left]
    .sort((a, b) => a - b)
    .map((id) => ({
      name: `user ${id} (${plan.users.get(id)?.username ?? target.users.get(id)?.username})`,
      hash: hashAfter({ target }, plan, id),
    }));
  if (admins.length === 0 || admins.some((a) => !isUnusableHash(a.hash))) return;
  const names = admins.map((a) => a.name).join(", ");
  warn(
    `no administrator here can sign in after this run: ${names} ${admins.length === 1 ? "is" : "are"} marked as spam on the network; make one with npm run admin:create (npm run deploy asks for one)`,
  );
}

/** The password hash user `id` holds after this run: the plan's (carried over), else the database's. */
const hashAfter = ({ target }: Pick<PlanContext, "target">, plan: UserPlan, id: number) =>
  String(plan.users.get(id)?.passwordHash ?? target.users.get(id)?.password_hash ?? "");
