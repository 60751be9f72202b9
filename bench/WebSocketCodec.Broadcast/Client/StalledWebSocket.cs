using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// A websocket that stops reading (<c>--stalled</c>): a raw socket with a 4 KiB receive buffer (set before connect, so
/// the window it offers stays small), an upgrade to <c>/?stalled</c> (the server fills it before it joins), the 101 read,
/// then nothing read ever again. Disposed at the end (with unread bytes, so the kernel resets the connection).
/// </summary>
internal sealed class StalledWebSocket : IDisposable
{
    private static readonly byte[] Request = Encoding.ASCII.GetBytes(
        "GET /?stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");

    private readonly Socket _socket;

    private StalledWebSocket(Socket socket) => _socket = socket;

    public static async Task<StalledWebSocket> ConnectAsync(IPEndPoint server, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveBufferSize = 4096 };
        try
        {
            await socket.ConnectAsync(server, cancellationToken);
            await socket.SendAsync(Request, SocketFlags.None, cancellationToken);

            // The response head, a byte at a time so nothing after it is taken (not that it would matter).
            byte[] head = new byte[1024];
            int length = 0;
            while (length < 4 || !head.AsSpan(length - 4, 4).SequenceEqual("\r\n\r\n"u8))
            {
                if (length == head.Length || await socket.ReceiveAsync(head.AsMemory(length, 1), SocketFlags.None, cancellationToken) == 0)
                {
                    throw new IOException("No upgrade response.");
                }

                length++;
            }

            if (!head.AsSpan(0, length).StartsWith("HTTP/1.1 101"u8))
            {
                throw new IOException("The server refused the upgrade: " + Encoding.ASCII.GetString(head, 0, Math.Min(length, 64)));
            }

            return new StalledWebSocket(socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    public void Dispose() => _socket.Dispose();
}
