import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import nsid from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'nsid', directives: directivesOf(nsid, whoami), metrics: { corefile: '.:0 {\n nsid\n whoami\n}\n' } });
