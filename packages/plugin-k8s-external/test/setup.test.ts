import { setupTable } from '@foghorn/testkit';
import k8sExternal, { parseK8sExternal } from '../src/index.js';
import type { ExternalOptions } from '../src/index.js';

// CoreDNS plugin/k8s_external/setup_test.go, and setup.go's errors with the positions Foghorn adds.
setupTable<ExternalOptions>('k8s_external', parseK8sExternal, {
  plugin: k8sExternal,
  partial: true,
  good: [
    { input: 'k8s_external', want: { zones: ['example.org.'], apex: 'dns', ttl: 5, headless: false, fallthrough: null } },
    { input: 'k8s_external', key: '.', want: { zones: ['.'] } },
    { input: 'k8s_external example.org', want: { zones: ['example.org.'], apex: 'dns', headless: false, fallthrough: null } },
    { input: 'k8s_external Example.ORG 10.0.0.0/24', want: { zones: ['example.org.', '0.0.10.in-addr.arpa.'] } },
    { input: 'k8s_external example.org {\n    apex testdns\n}', want: { zones: ['example.org.'], apex: 'testdns' } },
    { input: 'k8s_external example.org {\n    headless\n}', want: { headless: true, apex: 'dns', fallthrough: null } },
    { input: 'k8s_external example.org {\n    fallthrough\n}', want: { fallthrough: ['.'] } },
    { input: 'k8s_external example.org {\n    fallthrough ip6.arpa inaddr.arpa foo.com\n}', want: { fallthrough: ['ip6.arpa.', 'inaddr.arpa.', 'foo.com.'] } },
    { input: 'k8s_external example.org {\n    ttl 0\n}', want: { ttl: 0 } },
    { input: 'k8s_external example.org {\n    ttl 3600\n}', want: { ttl: 3600 } },
  ],
  bad: [
    { input: 'k8s_external {\n    ttl\n}', error: "Corefile:3:5 - Error during parsing: Wrong argument count or unexpected line ending after 'ttl'" },
    { input: 'k8s_external {\n    ttl five\n}', error: 'Corefile:3:9 - Error during parsing: strconv.Atoi: parsing "five": invalid syntax' },
    { input: 'k8s_external {\n    ttl 3601\n}', error: 'Corefile:3:9 - Error during parsing: ttl must be in range [0, 3600]: 3601' },
    { input: 'k8s_external {\n    ttl -1\n}', error: 'Corefile:3:9 - Error during parsing: ttl must be in range [0, 3600]: -1' },
    { input: 'k8s_external {\n    apex\n}', error: "Corefile:3:5 - Error during parsing: Wrong argument count or unexpected line ending after 'apex'" },
    { input: 'k8s_external {\n    notes yes\n}', error: "Corefile:3:5 - Error during parsing: unknown property 'notes'" },
  ],
});
