// A limit the importer (scripts/import) shares with the dialect; no imports, so Node can load it.

/** The most JSON text a `meta_data` object may take (the plugin wrote each key as post meta). */
export const META_DATA_MAX = 4096;
