import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import local from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'local', directives: directivesOf(local, whoami), sections: ['Metrics'], metrics: { corefile: '.:0 {\n local\n whoami\n}\n' } });
