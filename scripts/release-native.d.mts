// Types of scripts/release-native.mjs, for the tests.
export interface NodeDist {
  dir: string;
  version: string;
  major: number;
  abi: string;
  node: string;
}
export declare const NODE_TARGETS: Record<string, string>;
export declare function cacheRoot(root: string): string;
export declare function npmFetch(name: string, version: string, dest: string): Promise<string>;
export declare function nodeDist(cache: string, arch: string, major: number | string): Promise<NodeDist>;
