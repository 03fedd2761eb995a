// Types of sql-dump.mjs, for the TypeScript tests that import it.
export type DumpValue = string | null;
export class DumpSyntaxError extends Error {}
export function createTableColumns(statement: string): string[];
export class DumpParser {
  constructor(options: {
    onRow: (table: string, values: DumpValue[], columns: string[] | null) => void;
    onTable?: (table: string, columns: string[]) => void;
    wantTable?: (table: string) => boolean;
  });
  rows: number;
  push(text: string): void;
  end(): void;
}
export function parseDumpText(
  text: string,
  chunkSize?: number,
): Record<string, { columns: string[] | null; rows: DumpValue[][] }>;
