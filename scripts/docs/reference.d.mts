export declare const REFERENCE_DIR: string
export declare function generateReference(root: string): Promise<Map<string, string>>
