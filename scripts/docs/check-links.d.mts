export declare const MARKDOWN: string[]
export declare function anchorsOf(text: string): Set<string>
export declare function brokenLinks(root: string): {file: string; target: string; problem: string}[]
