// Types of scripts/release-stage.mjs, for the tests.
export declare function copyProgram(root: string, stage: string): Promise<void>;
