/**
 * The classes a `log` rule selects with `class success|denial|error|all`; replies are sorted
 * with core's `typify` and `responseClass` (CoreDNS's plugin/pkg/response).
 */

/** A class a rule can select. `all` selects every response. */
export type LogClass = 'all' | 'success' | 'denial' | 'error';

/** Classes as bits, so the per-query check is one AND. */
export const ClassBit = { success: 1, denial: 2, error: 4, all: 7 } as const satisfies Record<LogClass, number>;
