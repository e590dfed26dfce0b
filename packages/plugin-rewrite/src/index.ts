/**
 * rewrite: rewrites the question (name, type, class) and EDNS0 options of queries before the
 * plugins below see them, and the reply on its way back (names, values, TTLs, rcode), so the
 * client sees the question it asked, as CoreDNS's rewrite plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'rewrite', setup });
export default plugin;

export { parseRewrite, setup } from './setup.js';
export { Rewrite } from './handler.js';
export { ClassRule, CnameRule, NameMatcher, NameRule, OptionRule, RcodeRule, SubnetRule, TtlRule, TypeRule } from './rules.js';
export type { EdnsAction, MatchType, Mode, Rule } from './rules.js';
export type { ResponseRule } from './response.js';
