// dns-packet ships its lookup tables as plain CommonJS files without type declarations.
declare module 'dns-packet/types.js' {
  export function toString(type: number): string;
  export function toType(name: string): number;
}
declare module 'dns-packet/classes.js' {
  export function toString(klass: number): string;
  export function toClass(name: string): number;
}
