/** The gRPC DnsService double, asked by a client compiled from the same proto with @grpc/proto-loader. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { answeringFrom, grpcUpstreamFor, GrpcStatus, makeQuery, RawResponse } from '../src/index.js';

type Query = (packet: { msg: Buffer }, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply?: { msg: Buffer }) => void) => void;

async function client(address: string): Promise<{ ask(wire: Buffer): Promise<Buffer>; close(): void }> {
  const definition = await protoLoader.load(fileURLToPath(new URL('../../proto/dns.proto', import.meta.url)), { keepCase: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { coredns: { dns: { DnsService: grpc.ServiceClientConstructor } } };
  const c = new pkg.coredns.dns.DnsService(address, grpc.credentials.createInsecure());
  const query = (c as unknown as { Query: Query }).Query.bind(c);
  return {
    ask: (wire) => new Promise((resolve, reject) => query({ msg: wire }, { deadline: Date.now() + 2000 }, (error, reply) => (error ? reject(error) : resolve(reply!.msg)))),
    close: () => c.close(),
  };
}

test('the gRPC double answers from zone records, returns statuses and raw bytes, and records the calls', async (t) => {
  let mode: 'zone' | 'status' | 'raw' = 'zone';
  const zone = answeringFrom('a.example. 60 IN A 192.0.2.1');
  const upstream = await grpcUpstreamFor(t, (q, raw) => (mode === 'zone' ? zone(q, raw) : mode === 'status' ? new GrpcStatus(5) : new RawResponse(Buffer.from([0x0a, 0x01, 0x07]))));
  const c = await client(upstream.address);
  t.after(() => c.close());
  const a = dnsPacket.decode(await c.ask(makeQuery('a.example', 'A', { id: 9 })));
  assert.equal(a.id, 9);
  assert.deepEqual(a.answers?.map((r) => (r as { data: string }).data), ['192.0.2.1']);
  const nx = dnsPacket.decode(await c.ask(makeQuery('b.example', 'A')));
  assert.equal((nx as { rcode?: string }).rcode, 'NXDOMAIN');
  const nodata = dnsPacket.decode(await c.ask(makeQuery('a.example', 'AAAA')));
  assert.deepEqual([(nodata as { rcode?: string }).rcode, nodata.answers?.length], ['NOERROR', 0]);
  mode = 'status';
  await assert.rejects(c.ask(makeQuery('a.example', 'A')), { code: 5 });
  mode = 'raw';
  assert.deepEqual(await c.ask(makeQuery('a.example', 'A')), Buffer.from([0x07]));
  assert.deepEqual(upstream.calls.map((call) => `${call.name} ${call.type}`), ['a.example A', 'b.example A', 'a.example AAAA', 'a.example A', 'a.example A']);
  assert.equal(upstream.calls[0]?.authority, upstream.address);
});
