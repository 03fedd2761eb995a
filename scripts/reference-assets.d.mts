// Types of reference-assets.mjs, a plain Node script (wrangler runs it without tsx).
export declare const ASSETS_DIR: string;
export declare function copyReferenceAssets(): void;
