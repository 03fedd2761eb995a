// Preloaded into wrangler (node --import) by runWranglerSql in ./wrangler.ts: appends `--command`
// and the SQL read from stdin to wrangler's argv, inside its process. What the machine lists for
// the process (ps, /proc/PID/cmdline) stays the command line it was started with, without the SQL.
import { readFileSync } from "node:fs";

process.argv.push("--command", readFileSync(0, "utf8"));
