// Types of wordpress.mjs, for the TypeScript tests that import it. The report is plain JSON.
export type ImportOptions = {
  prefix?: string;
  namespace?: string;
  balances?: "ledger" | "site";
  force?: boolean;
};
// biome-ignore lint/suspicious/noExplicitAny: the report is JSON whose shape the tests read field by field
export type Report = Record<string, any>;
export type TargetRows = Partial<
  Record<keyof typeof TARGET_QUERIES | "foreignIds", Record<string, unknown>[]>
>;
export type Target = ReturnType<typeof targetState>;
export const DEFAULT_OPTIONS: Required<ImportOptions>;
export const IMPORT_KEY_PREFIX: string;
export const TARGET_QUERIES: { users: string; wallets: string; pairs: string; foreign: string };
export const FOREIGN_IDS_QUERY: string;
export const SCHEMA_CHECK_QUERY: string;
export function targetState(rows: TargetRows): { __target: true };
export function emptyTarget(): Target;
export function decodeEntities(text: string): string;
export function parseRoles(serialized: string | null | undefined): string[];
export function passwordHashKind(
  hash: string,
): "md5" | "wp-bcrypt" | "phpass" | "bcrypt" | "pbkdf2" | "unknown";
export function utcSeconds(text: string | null | undefined): number | null;
export function sqlLiteral(value: string | number | null | undefined): string;
export class MemoryBuckets {
  constructor(width?: number);
}
export type ImportRun = { statements: string[]; report: Report };
export function importFromText(
  text: string,
  options?: { options?: ImportOptions; target?: Target; nowMs?: number; chunkSize?: number },
): ImportRun;
export function importFromChunks(
  chunks: string[],
  options?: {
    options?: ImportOptions;
    target?: Target;
    nowMs?: number;
    chunkSize?: number;
    bucketWidth?: number;
  },
): ImportRun;
