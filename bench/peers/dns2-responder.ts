/**
 * The npm `dns2` package's UDP server answering whoami (A with the client's address, SRV with its
 * port), written as its README shows: the figure an application author gets from a pure-JS DNS
 * library. Prints `PORT <n>` once listening.
 */
import type { RemoteInfo } from 'node:dgram';
import dns2 from 'dns2';

const { Packet } = dns2;
const server = dns2.createUDPServer((request, send, client) => {
  const rinfo = client as RemoteInfo;
  const response = Packet.createResponseFromRequest(request);
  const question = request.questions[0];
  if (question) {
    const name = question.name.toLowerCase();
    response.header.aa = 1;
    response.additionals.push(
      new Packet.Resource({ name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 0, address: rinfo.address }),
      new Packet.Resource({ name: `_udp.${name}`, type: Packet.TYPE.SRV, class: Packet.CLASS.IN, ttl: 0, priority: 0, weight: 0, port: rinfo.port, target: '.' }),
    );
  }
  void send(response);
});
await server.listen(0, '127.0.0.1');
process.stdout.write(`PORT ${server.address().port}\n`);
