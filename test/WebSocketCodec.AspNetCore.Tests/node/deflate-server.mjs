// node's ws as a permessage-deflate server for our client: echoes every message with its type; the text message
// "stats" is answered with JSON instead: the raw bytes read from the socket so far and the negotiated extensions.
// Arguments: serverNoContextTakeover clientNoContextTakeover serverMaxWindowBits (0: default) clientMaxWindowBits (0:
// default), e.g. "false false 0 0". Listens on 127.0.0.1 and a free port, printed as "port <n>"; exits when stdin closes.
import { WebSocketServer } from 'ws';

const [serverNoContext, clientNoContext, serverBits, clientBits] = process.argv.slice(2);
const perMessageDeflate = {
  threshold: 0,
  serverNoContextTakeover: serverNoContext === 'true',
  clientNoContextTakeover: clientNoContext === 'true',
};
if (Number(serverBits) > 0) perMessageDeflate.serverMaxWindowBits = Number(serverBits);
if (Number(clientBits) > 0) perMessageDeflate.clientMaxWindowBits = Number(clientBits);

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate, maxPayload: 64 * 1024 * 1024 });
server.on('connection', (socket, request) => {
  const offer = request.headers['sec-websocket-extensions'] ?? '';
  socket.on('message', (data, isBinary) => {
    if (!isBinary && data.toString() === 'stats') {
      socket.send(JSON.stringify({ bytesRead: socket._socket.bytesRead, extensions: socket.extensions, offer }));
      return;
    }
    socket.send(data, { binary: isBinary, compress: true });
  });
});
server.on('listening', () => console.log(`port ${server.address().port}`));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
