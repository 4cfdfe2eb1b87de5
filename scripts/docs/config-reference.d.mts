export declare const ENVIRONMENT: Record<string, string>
export declare function configReference(root: string): Promise<Map<string, string>>
