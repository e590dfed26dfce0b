import type { Controller, Handler, PluginDefinition, Request, ResponseWriter } from '@foghorn/core';

export declare function parseHello(c: Controller): { greeting: string };
export declare class Hello implements Handler {
  readonly name: 'hello';
  constructor(greeting: string, zones: readonly string[], next: Handler | null);
  serveDNS(req: Request, w: ResponseWriter): number | Promise<number>;
}
declare const plugin: PluginDefinition;
export default plugin;
