import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import log from '@foghorn/plugin-log';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'log', directives: directivesOf(log, whoami), sections: ['Metrics'], minExamples: 4 });
