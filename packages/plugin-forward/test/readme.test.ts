import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import cache from '@foghorn/plugin-cache';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'forward', directives: directivesOf(cache, forward), sections: ['Metrics'], minExamples: 7 });
