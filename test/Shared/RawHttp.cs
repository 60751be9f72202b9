using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Testing;

/// <summary>Raw sockets for requests no well-behaved client sends.</summary>
public static class RawHttp
{
    public static CancellationToken Timeout(int seconds = 20) => new CancellationTokenSource(TimeSpan.FromSeconds(seconds)).Token;

    public static string Upgrade(string path = "/ws", string extra = "") =>
        $"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        $"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{extra}\r\n";

    public static async Task<Socket> ConnectAsync(IPEndPoint endPoint)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(endPoint, Timeout());
        return socket;
    }

    /// <summary>Sends a request and returns the response head.</summary>
    public static async Task<string> ExchangeAsync(IPEndPoint endPoint, string request)
    {
        using Socket socket = await ConnectAsync(endPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(request), Timeout());
        return await ReadHeadAsync(socket);
    }

    public static async Task<string> ReadHeadAsync(Socket socket)
    {
        var head = new List<byte>();
        byte[] one = new byte[1];
        while (head.Count < 65536 && !(head.Count >= 4 && head[^4] == '\r' && head[^3] == '\n' && head[^2] == '\r' && head[^1] == '\n'))
        {
            if (await socket.ReceiveAsync(one, Timeout()) == 0)
            {
                break;
            }

            head.Add(one[0]);
        }

        return Encoding.ASCII.GetString([.. head]);
    }

    public static async Task<byte[]> ReadToEndAsync(Socket socket)
    {
        var received = new MemoryStream();
        byte[] buffer = new byte[4096];
        int read;
        while ((read = await socket.ReceiveAsync(buffer, Timeout())) > 0 && received.Length < 1 << 20)
        {
            received.Write(buffer, 0, read);
        }

        return received.ToArray();
    }
}
