// Writes WordPress tables the way mysqldump does (CREATE TABLE, extended INSERTs, MySQL escaping):
// used by the test fixture's generator and by generate-large-dump.ts.

export type DumpCell = string | number | bigint | null | undefined;

const ESCAPES: Record<string, string> = {
  "\0": "\\0",
  "\n": "\\n",
  "\r": "\\r",
  "\\": "\\\\",
  "'": "\\'",
  '"': '\\"',
  "\x1a": "\\Z",
};

/** A MySQL literal as mysqldump writes it. */
export function mysqlValue(value: DumpCell) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the bytes mysqldump escapes
  const escaped = String(value).replace(/[\0\n\r\\'"\x1a]/g, (ch) => ESCAPES[ch]!);
  return `'${escaped}'`;
}

const WP_TABLES: Record<string, string> = {
  users: `  \`ID\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`user_login\` varchar(60) NOT NULL DEFAULT '',
  \`user_pass\` varchar(255) NOT NULL DEFAULT '',
  \`user_nicename\` varchar(50) NOT NULL DEFAULT '',
  \`user_email\` varchar(100) NOT NULL DEFAULT '',
  \`user_url\` varchar(100) NOT NULL DEFAULT '',
  \`user_registered\` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  \`user_activation_key\` varchar(255) NOT NULL DEFAULT '',
  \`user_status\` int(11) NOT NULL DEFAULT 0,
  \`display_name\` varchar(250) NOT NULL DEFAULT '',
  PRIMARY KEY (\`ID\`),
  KEY \`user_login_key\` (\`user_login\`),
  KEY \`user_email\` (\`user_email\`)`,
  usermeta: `  \`umeta_id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`user_id\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`meta_key\` varchar(255) DEFAULT NULL,
  \`meta_value\` longtext DEFAULT NULL,
  PRIMARY KEY (\`umeta_id\`),
  KEY \`user_id\` (\`user_id\`)`,
  posts: `  \`ID\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`post_author\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`post_date\` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  \`post_date_gmt\` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  \`post_content\` longtext NOT NULL,
  \`post_title\` text NOT NULL,
  \`post_excerpt\` text NOT NULL,
  \`post_status\` varchar(20) NOT NULL DEFAULT 'publish',
  \`comment_status\` varchar(20) NOT NULL DEFAULT 'open',
  \`ping_status\` varchar(20) NOT NULL DEFAULT 'open',
  \`post_password\` varchar(255) NOT NULL DEFAULT '',
  \`post_name\` varchar(200) NOT NULL DEFAULT '',
  \`to_ping\` text NOT NULL,
  \`pinged\` text NOT NULL,
  \`post_modified\` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  \`post_modified_gmt\` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  \`post_content_filtered\` longtext NOT NULL,
  \`post_parent\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`guid\` varchar(255) NOT NULL DEFAULT '',
  \`menu_order\` int(11) NOT NULL DEFAULT 0,
  \`post_type\` varchar(20) NOT NULL DEFAULT 'post',
  \`post_mime_type\` varchar(100) NOT NULL DEFAULT '',
  \`comment_count\` bigint(20) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`ID\`),
  KEY \`post_name\` (\`post_name\`(191)),
  KEY \`type_status_date\` (\`post_type\`,\`post_status\`,\`post_date\`,\`ID\`)`,
  postmeta: `  \`meta_id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`post_id\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`meta_key\` varchar(255) DEFAULT NULL,
  \`meta_value\` longtext DEFAULT NULL,
  PRIMARY KEY (\`meta_id\`),
  KEY \`post_id\` (\`post_id\`)`,
  terms: `  \`term_id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`name\` varchar(200) NOT NULL DEFAULT '',
  \`slug\` varchar(200) NOT NULL DEFAULT '',
  \`term_group\` bigint(10) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`term_id\`)`,
  term_taxonomy: `  \`term_taxonomy_id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`term_id\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`taxonomy\` varchar(32) NOT NULL DEFAULT '',
  \`description\` longtext NOT NULL,
  \`parent\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`count\` bigint(20) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`term_taxonomy_id\`)`,
  term_relationships: `  \`object_id\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`term_taxonomy_id\` bigint(20) unsigned NOT NULL DEFAULT 0,
  \`term_order\` int(11) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`object_id\`,\`term_taxonomy_id\`)`,
};

export const DUMP_HEADER = `-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: wordpress
-- ------------------------------------------------------
-- Server version\t8.0.36

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
`;

export const DUMP_FOOTER = `/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;
/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;

-- Dump completed on 2024-03-01 10:00:00
`;

function tableHead(prefix: string, kind: string) {
  const name = `${prefix}${kind}`;
  return `
--
-- Table structure for table \`${name}\`
--

DROP TABLE IF EXISTS \`${name}\`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE \`${name}\` (
${WP_TABLES[kind]}
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table \`${name}\`
--

LOCK TABLES \`${name}\` WRITE;
/*!40000 ALTER TABLE \`${name}\` DISABLE KEYS */;
`;
}

function tableTail(prefix: string, kind: string) {
  const name = `${prefix}${kind}`;
  return `/*!40000 ALTER TABLE \`${name}\` ENABLE KEYS */;
UNLOCK TABLES;
`;
}

/**
 * Writes a table's rows as extended INSERTs of at most `lineBytes` characters (mysqldump's
 * --net-buffer-length), through `write(text)`. `rows` is any iterable of value arrays.
 */
export function writeTable(
  write: (text: string) => void,
  prefix: string,
  kind: string,
  rows: Iterable<DumpCell[]>,
  { lineBytes = 1_000_000, columns = null as string[] | null } = {},
) {
  write(tableHead(prefix, kind));
  const head = `INSERT INTO \`${prefix}${kind}\`${columns ? ` (${columns.map((c) => `\`${c}\``).join(", ")})` : ""} VALUES `;
  let line = "";
  for (const row of rows) {
    const tuple = `(${row.map(mysqlValue).join(",")})`;
    if (line && line.length + tuple.length > lineBytes) {
      write(`${line};\n`);
      line = "";
    }
    line = line ? `${line},${tuple}` : head + tuple;
  }
  if (line) write(`${line};\n`);
  write(tableTail(prefix, kind));
}
