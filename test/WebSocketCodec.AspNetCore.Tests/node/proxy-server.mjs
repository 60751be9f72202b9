// An HTTP proxy (npm's `proxy` package) on a free loopback port for the client's proxy tests.
// Usage: node proxy-server.mjs [user:password]   (with credentials, CONNECT without them gets 407)
// Prints "port N" once listening, then "CONNECT host:port <authorized|refused>" for each CONNECT.
import http from 'node:http';
import { createProxy } from 'proxy';

const credentials = process.argv[2];
const server = createProxy(http.createServer());
server.authenticate = (req) => {
  const given = req.headers['proxy-authorization'] ?? '';
  const ok = !credentials || given === 'Basic ' + Buffer.from(credentials).toString('base64');
  console.log(`CONNECT ${req.url} ${ok ? 'authorized' : 'refused'}`);
  return ok;
};
server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
process.stdin.on('end', () => process.exit(0)); // the test closes stdin (or kills us) to stop
process.stdin.resume();
