import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import trace, { parseTrace } from '../src/index.js';
import type { TraceOptions } from '../src/index.js';

/** CoreDNS's plugin/trace/setup_test.go TestTraceParse, plus OTLP and the positions of the errors. */
const defaults: TraceOptions = {
  endpointType: 'zipkin',
  endpoint: 'http://localhost:9411/api/v2/spans',
  every: 1,
  serviceName: 'coredns',
  clientServer: false,
  datadogAnalyticsRate: 0,
  zipkinMaxBacklogSize: 0,
  zipkinMaxBatchSize: 0,
  zipkinMaxBatchIntervalMs: 0,
};

const good: GoodCase<TraceOptions>[] = [
  { input: '    trace', want: defaults },
  { input: '    trace localhost:1234', want: { ...defaults, endpoint: 'http://localhost:1234/api/v2/spans' } },
  { input: '    trace http://localhost:1234/somewhere/else', want: { ...defaults, endpoint: 'http://localhost:1234/somewhere/else' } },
  { input: '    trace zipkin localhost:1234', want: { ...defaults, endpoint: 'http://localhost:1234/api/v2/spans' } },
  { input: '    trace ZIPKIN localhost:1234', want: { ...defaults, endpoint: 'http://localhost:1234/api/v2/spans' } },
  { input: '    trace datadog localhost', want: { ...defaults, endpointType: 'datadog', endpoint: 'localhost' } },
  { input: '    trace datadog http://localhost:8127', want: { ...defaults, endpointType: 'datadog', endpoint: 'http://localhost:8127' } },
  { input: '    trace datadog localhost {\n        datadog_analytics_rate 0.1\n    }', want: { ...defaults, endpointType: 'datadog', endpoint: 'localhost', datadogAnalyticsRate: 0.1 } },
  { input: '    trace {\n        every 100\n    }', want: { ...defaults, every: 100 } },
  { input: '    trace {\n        every 100\n        service foobar\n        client_server\n    }', want: { ...defaults, every: 100, serviceName: 'foobar', clientServer: true } },
  { input: '    trace {\n        every 2\n        client_server true\n    }', want: { ...defaults, every: 2, clientServer: true } },
  { input: '    trace {\n        client_server false\n    }', want: defaults },
  {
    input: '    trace {\n        zipkin_max_backlog_size 100\n        zipkin_max_batch_size 200\n        zipkin_max_batch_interval 10s\n    }',
    want: { ...defaults, zipkinMaxBacklogSize: 100, zipkinMaxBatchSize: 200, zipkinMaxBatchIntervalMs: 10_000 },
  },
  // One argument is always a Zipkin endpoint, as in CoreDNS (`trace datadog` alone is a host named datadog).
  { input: '    trace otlp', want: { ...defaults, endpoint: 'http://otlp/api/v2/spans' } },
  { input: '    trace otlp collector:4318', want: { ...defaults, endpointType: 'otlp', endpoint: 'http://collector:4318/v1/traces' } },
  { input: '    trace otlp https://collector.example/v1/traces', want: { ...defaults, endpointType: 'otlp', endpoint: 'https://collector.example/v1/traces' } },
  { input: '    trace {\n        every 0\n    }', want: { ...defaults, every: 0 } },
];

const bad: BadCase[] = [
  { input: '    trace footype localhost:4321', error: "Corefile:2:19 - Error during parsing: tracing endpoint type 'footype' is not supported" },
  { input: '    trace zipkin localhost:1 extra', error: "Corefile:2:30 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'" },
  { input: '    trace {\n        every 2\n        client_server junk\n    }', error: 'Corefile:4:23 - Error during parsing: strconv.ParseBool: parsing "junk": invalid syntax' },
  { input: '    trace datadog localhost {\n        datadog_analytics_rate 2\n    }', error: "Corefile:3:32 - Error during parsing: datadog analytics rate must be between 0 and 1, '2.000000' is not supported" },
  { input: '    trace {\n        zipkin_max_backlog_size wrong\n    }', error: 'Corefile:3:33 - Error during parsing: strconv.Atoi: parsing "wrong": invalid syntax' },
  { input: '    trace {\n        zipkin_max_batch_size wrong\n    }', error: 'Corefile:3:31 - Error during parsing: strconv.Atoi: parsing "wrong": invalid syntax' },
  { input: '    trace {\n        zipkin_max_batch_interval wrong\n    }', error: 'Corefile:3:35 - Error during parsing: time: invalid duration "wrong"' },
  { input: '    trace {\n        zipkin_max_backlog_size\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'zipkin_max_backlog_size'" },
  { input: '    trace {\n        zipkin_max_batch_size\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'zipkin_max_batch_size'" },
  { input: '    trace {\n        zipkin_max_batch_interval\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'zipkin_max_batch_interval'" },
  { input: '    trace {\n        evrey 100\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'evrey'" },
  { input: '    trace {\n        every -1\n    }', error: 'Corefile:3:15 - Error during parsing: strconv.ParseUint: parsing "-1": invalid syntax' },
];

setupTable('trace', parseTrace, { good, bad, plugin: trace });
