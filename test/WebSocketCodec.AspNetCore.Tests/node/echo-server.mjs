// node's ws as a server: echoes every message with its type, on 127.0.0.1 and a free port (or the one given as the
// first argument), printed as "port <n>".
// Exits when stdin closes.
import { WebSocketServer } from 'ws';

const server = new WebSocketServer({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0), perMessageDeflate: false });
server.on('connection', socket => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
});
server.on('listening', () => console.log(`port ${server.address().port}`));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
