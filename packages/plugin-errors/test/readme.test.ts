import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import errors from '@foghorn/plugin-errors';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'errors', directives: directivesOf(errors, whoami), sections: ['Metrics'] });
