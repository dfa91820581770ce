// Types of scripts/latin1-source.mjs, for the tests.
export declare function latin1Source(code: string): string;
