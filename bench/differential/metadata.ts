/**
 * metadata: labels published by view and kubernetes, read by template (`.Meta`) and rewrite
 * (`{label}` as an EDNS0 option the upstream echoes back as TXT), the same in both servers.
 * The kubernetes case watches testkit's API server, which both servers reach over HTTP.
 */
import type { Answer, OptAnswer } from 'dns-packet';
import { reply, startUpstream } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { DifferentialCase } from './case.js';

/** TXT answers with the data of every EDNS0 option of the query, as `CODE=TEXT`. */
async function optionEcho(): Promise<{ vars: Record<string, string>; close(): Promise<void> }> {
  const upstream = await startUpstream((query) => {
    const opt = query.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
    const name = query.questions[0]?.name ?? '.';
    const answers: Answer[] = (opt?.options ?? []).map((o) => ({ type: 'TXT', name, ttl: 60, data: `${o.code}=${Buffer.from(o.data ?? []).toString()}` }));
    // An OPT without options, as a resolver answers an EDNS query.
    const additionals = opt === undefined ? [] : [{ ...opt, options: [] }];
    return [{ ...reply(query, { answers }), additionals }];
  });
  return { vars: { upstream: upstream.address }, close: () => upstream.close() };
}

/** Labels of *kubernetes* read back as one TXT string, each in brackets (`[]` when empty or not set). */
const kubernetesLabels = ['kind', 'namespace', 'service', 'endpoint', 'port-name', 'protocol', 'parse-error', 'client-namespace', 'client-pod-name', 'client-label/app'];
const metaTxt = kubernetesLabels.map((label) => `[{{ .Meta \\"kubernetes/${label}\\" }}]`).join('');

const cases: DifferentialCase[] = [
  {
    plugin: 'metadata',
    name: 'metadata read by rewrite: an EDNS0 option from the view name, none from a missing label',
    corefile: [
      '.:{port} {',
      '  bind 127.0.0.1',
      '  metadata',
      '  view everyone {',
      '    expr true',
      '  }',
      '  rewrite edns0 local set 0xffee {view/name}',
      '  rewrite edns0 local set 0xffef {nobody/sets-this}',
      '  forward . {upstream}',
      '}',
      '',
    ].join('\n'),
    setup: optionEcho,
    queries: [
      { name: 'example.org.', type: 'TXT' },
      { name: 'example.org.', type: 'TXT', transport: 'tcp' },
      { name: 'example.org.', type: 'TXT', udpSize: 1232 },
    ],
    kept: {
      'example.org. TXT': "the OPT record rewrite added to the query is not shown to a client that sent none (RFC 6891 §7; the rewrite plugin's Differences); CoreDNS answers that client with an OPT record",
      'example.org. TXT tcp': 'the same, over TCP',
    },
  },
  {
    plugin: 'metadata',
    name: 'metadata ZONES and a block without metadata: template .Meta',
    corefile: [
      'example.org:{port} {',
      '  bind 127.0.0.1',
      '  metadata example.org',
      '  view in {',
      '    expr true',
      '  }',
      '  template IN TXT example.org {',
      '    answer "{{ .Name }} 60 IN TXT \\"[{{ .Meta \\"view/name\\" }}]\\""',
      '  }',
      '}',
      'example.net:{port} {',
      '  bind 127.0.0.1',
      '  metadata example.com',
      '  view out {',
      '    expr true',
      '  }',
      '  template IN TXT example.net {',
      '    answer "{{ .Name }} 60 IN TXT \\"[{{ .Meta \\"view/name\\" }}]\\""',
      '  }',
      '}',
      'example.com:{port} {',
      '  bind 127.0.0.1',
      '  view none {',
      '    expr true',
      '  }',
      '  template IN TXT example.com {',
      '    answer "{{ .Name }} 60 IN TXT \\"[{{ .Meta \\"view/name\\" }}]\\""',
      '  }',
      '}',
      '',
    ].join('\n'),
    queries: [
      { name: 'a.example.org.', type: 'TXT' },
      { name: 'a.example.net.', type: 'TXT' },
      { name: 'a.example.com.', type: 'TXT' },
    ],
  },
  {
    plugin: 'metadata',
    name: 'metadata of kubernetes (pods verified) read by template',
    corefile: [
      '.:{port} {',
      '  bind 127.0.0.1',
      '  metadata',
      '  template IN TXT cluster.local {',
      `    answer "{{ .Name }} 60 IN TXT \\"${metaTxt}\\""`,
      '  }',
      '  kubernetes cluster.local {',
      '    endpoint {api}',
      '    pods verified',
      '  }',
      '}',
      '',
    ].join('\n'),
    async setup() {
      const api = await startKubeApiServer();
      api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'podns' } });
      // The client of both servers: the differential queries from 127.0.0.1.
      api.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client', namespace: 'podns', labels: { app: 'dig' } }, status: { podIP: '127.0.0.1', phase: 'Running' } });
      return { vars: { api: api.url }, close: () => api.close() };
    },
    settleMs: 500,
    queries: [
      { name: 'foo.bar.notapod.cluster.local.', type: 'TXT' },
      { name: '10-240-0-1.podns.pod.cluster.local.', type: 'TXT' },
      { name: 's.ns.svc.cluster.local.', type: 'TXT' },
      { name: '_http._tcp.s.ns.svc.cluster.local.', type: 'TXT' },
      { name: 'ep.s.ns.svc.cluster.local.', type: 'TXT' },
      { name: 'cluster.local.', type: 'TXT' },
    ],
  },
];
export default cases;
