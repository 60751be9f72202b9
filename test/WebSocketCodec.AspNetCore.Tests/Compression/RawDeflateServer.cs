using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>A hand-written server for checking what our client puts on the wire: answers one upgrade with a
/// <c>Sec-WebSocket-Extensions</c> value of the test's choosing, reads the client's frames raw (RSV bits, masking) and
/// compresses or inflates with <see cref="ReferenceDeflate"/>, independently of the library.</summary>
public sealed class RawDeflateServer : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);

    public RawDeflateServer() => _listener.Start();

    public Uri Url => new($"ws://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}/raw");

    /// <summary>Accepts one connection, reads its request head and answers 101 with <paramref name="extensions"/>
    /// (no header when null).</summary>
    /// <returns>The socket and the request head.</returns>
    public async Task<(Socket Socket, string Request)> AcceptAsync(string? extensions)
    {
        Socket socket = await _listener.AcceptSocketAsync(RawHttp.Timeout());
        string request = await RawHttp.ReadHeadAsync(socket);
        string key = request.Split("\r\n").First(line => line.StartsWith("Sec-WebSocket-Key:", StringComparison.OrdinalIgnoreCase))[18..].Trim();
        string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + $"Sec-WebSocket-Accept: {WebSocketHandshake.ComputeAccept(key)}\r\n"
            + (extensions is null ? "" : $"Sec-WebSocket-Extensions: {extensions}\r\n") + "\r\n";
        await socket.SendAsync(Encoding.ASCII.GetBytes(answer), RawHttp.Timeout());
        return (socket, request);
    }

    /// <summary>Reads one client frame: its first byte (FIN, RSV, opcode) and its unmasked payload.</summary>
    public static async Task<(byte First, byte[] Payload)> ReadFrameAsync(Socket socket)
    {
        byte[] head = await ReadExactlyAsync(socket, 2);
        Assert.True((head[1] & 0x80) != 0, "a client frame must be masked");
        long length = head[1] & 0x7F;
        if (length == 126)
        {
            byte[] extended = await ReadExactlyAsync(socket, 2);
            length = (extended[0] << 8) | extended[1];
        }
        else if (length == 127)
        {
            byte[] extended = await ReadExactlyAsync(socket, 8);
            length = (long)System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(extended);
        }

        byte[] mask = await ReadExactlyAsync(socket, 4);
        byte[] payload = await ReadExactlyAsync(socket, (int)length);
        for (int i = 0; i < payload.Length; i++)
        {
            payload[i] ^= mask[i & 3];
        }

        return (head[0], payload);
    }

    /// <summary>An unmasked server frame.</summary>
    public static byte[] ServerFrame(byte first, byte[] payload)
    {
        byte[] length = payload.Length < 126 ? [(byte)payload.Length]
            : payload.Length <= ushort.MaxValue ? [126, (byte)(payload.Length >> 8), (byte)payload.Length]
            : throw new ArgumentOutOfRangeException(nameof(payload));
        return [first, .. length, .. payload];
    }

    private static async Task<byte[]> ReadExactlyAsync(Socket socket, int count)
    {
        byte[] buffer = new byte[count];
        int read = 0;
        while (read < count)
        {
            int n = await socket.ReceiveAsync(buffer.AsMemory(read), RawHttp.Timeout());
            Assert.True(n > 0, "the client closed the connection early");
            read += n;
        }

        return buffer;
    }

    public void Dispose() => _listener.Stop();
}
