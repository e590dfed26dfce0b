import { setupTable } from '@foghorn/testkit';
import route53, { parseRoute53 } from '@foghorn/plugin-route53';
import type { Route53Options } from '@foghorn/plugin-route53';

const zones = (entries: [string, string[]][]): ReadonlyMap<string, readonly string[]> => new Map(entries);
const defaults = { accessKey: undefined, endpoint: 'https://route53.amazonaws.com', profile: undefined, credentialsFile: undefined, fallthrough: null, refreshMs: 60_000 };

// CoreDNS plugin/route53/setup_test.go: TestSetupRoute53, with each error's position and text.
setupTable<Route53Options[]>('route53', parseRoute53, {
  plugin: route53,
  good: [
    { input: 'route53', want: [{ zones: zones([]), ...defaults }] },
    { input: 'route53 example.org:12345678', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults }] },
    { input: 'route53 example.org:12345678 { }', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults }] },
    { input: 'route53 example.org:12345678 {\n    aws_access_key ACCESS_KEY_ID SEKRIT_ACCESS_KEY\n}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, accessKey: { accessKeyId: 'ACCESS_KEY_ID', secretAccessKey: 'SEKRIT_ACCESS_KEY' } }] },
    { input: 'route53 example.org:12345678 {\n    fallthrough\n}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, fallthrough: ['.'] }] },
    { input: 'route53 example.org:12345678 {\n\t\tcredentials default\n\t}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, profile: 'default' }] },
    { input: 'route53 example.org:12345678 {\n\t\tcredentials default credentials\n\t}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, profile: 'default', credentialsFile: 'credentials' }] },
    { input: 'route53 example.org:12345678 {\n\trefresh 90\n}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, refreshMs: 90_000 }] },
    { input: 'route53 example.org:12345678 {\n\trefresh 5m\n}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, refreshMs: 300_000 }] },
    { input: 'route53 example.org:12345678 {\n    aws_endpoint https://localhost\n}', want: [{ zones: zones([['example.org', ['12345678']]]), ...defaults, endpoint: 'https://localhost' }] },
    { input: 'route53 example.org.:Z1 example.org.:Z2 example.gov.:Z3 {\n upstream\n}', want: [{ zones: zones([['example.org.', ['Z1', 'Z2']], ['example.gov.', ['Z3']]]), ...defaults }] },
    { input: 'route53 a.:Z1\nroute53 b.:Z2', want: [{ zones: zones([['a.', ['Z1']]]), ...defaults }, { zones: zones([['b.', ['Z2']]]), ...defaults }] },
  ],
  bad: [
    { input: 'route53 :', error: 'Corefile:2:9 - Error during parsing: invalid zone ":"' },
    { input: 'route53 example.org:12345678 {\n    aws_access_key\n}', error: "Corefile:3:5 - Error during parsing: invalid access key: '[]'" },
    { input: 'route53 example.org:12345678 { wat\n}', error: 'Corefile:2:32 - Error during parsing: unknown property "wat"' },
    { input: 'route53 example.org:12345678 {\n\t\tcredentials\n\t}', error: "Corefile:3:3 - Error during parsing: Wrong argument count or unexpected line ending after 'credentials'" },
    { input: 'route53 example.org:12345678 {\n\t\tcredentials default credentials extra-arg\n\t}', error: 'Corefile:3:35 - Error during parsing: unknown property "extra-arg"' },
    { input: 'route53 example.org:12345678 example.org:12345678 {\n\t}', error: 'Corefile:2:30 - Error during parsing: conflict zone "example.org:12345678"' },
    { input: 'route53 example.org:12345678 {\n\trefresh\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'refresh'" },
    { input: 'route53 example.org:12345678 {\n\trefresh foo\n}', error: 'Corefile:3:10 - Error during parsing: Unable to parse duration: time: invalid duration "foo"' },
    { input: 'route53 example.org:12345678 {\n\trefresh -1m\n}', error: 'Corefile:3:10 - Error during parsing: refresh interval must be greater than 0: "-1m"' },
    { input: 'route53 example.org {\n\t}', error: 'Corefile:2:9 - Error during parsing: invalid zone "example.org"' },
    { input: 'route53 example.org:12345678 {\n    aws_endpoint\n}', error: "Corefile:3:5 - Error during parsing: Wrong argument count or unexpected line ending after 'aws_endpoint'" },
  ],
});
