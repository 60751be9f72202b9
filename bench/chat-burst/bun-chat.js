// The chat's wire contract on Bun (uWebSockets), for the chat-burst runner: /chat/{room} joins the room; every text a
// member sends is relayed unchanged to every member of the room, the sender included, in the order the room got them
// (uWebSockets' pub/sub: server.publish reaches every subscriber); binary messages get 1003; texts over 4 KiB 1009
// (the sample's limit). Bun's other settings are its defaults (its backpressure limit, 16 MiB per socket, drops
// rather than closes). Prints "listening on ws://127.0.0.1:PORT/chat/" once ready; exits when stdin ends.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.argv[2] ?? 0),
  fetch(request, server) {
    const path = new URL(request.url).pathname;
    const room = path.startsWith("/chat/") ? decodeURIComponent(path.slice(6)) : "";
    if (room.length >= 1 && room.length <= 64 && server.upgrade(request, { data: { room } })) {
      return undefined;
    }
    return new Response("not a chat room", { status: 404 });
  },
  websocket: {
    perMessageDeflate: false,
    maxPayloadLength: 4 * 1024,
    idleTimeout: 0,
    open(ws) {
      ws.subscribe(ws.data.room);
    },
    message(ws, message) {
      if (typeof message !== "string") {
        ws.close(1003, "text messages only");
        return;
      }
      server.publish(ws.data.room, message);
    },
  },
});

process.stdout.write(`listening on ws://127.0.0.1:${server.port}/chat/\n`);
process.stdin.on("data", () => {});
process.stdin.on("end", () => process.exit(0));
