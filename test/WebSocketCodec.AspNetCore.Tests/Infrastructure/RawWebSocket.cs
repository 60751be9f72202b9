using System.Buffers;
using System.Diagnostics;
using System.Net.Security;
using System.Net.Sockets;
using System.Text;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>
/// A hand-driven websocket client over a socket (or TLS): sends any bytes, including what a correct client never
/// would, and reads the server's frames until its TCP close.
/// </summary>
public sealed class RawWebSocket : IAsyncDisposable
{
    private readonly Socket? _socket;
    private readonly Stream _stream;
    private readonly IDisposable? _owner;
    private readonly List<byte> _pending = [];

    private RawWebSocket(Socket? socket, Stream stream, IDisposable? owner = null)
    {
        _socket = socket;
        _stream = stream;
        _owner = owner;
    }

    /// <summary>Opens the echo over HTTP/2 with an extended CONNECT (asserting 200) on <paramref name="invoker"/>'s
    /// connection, or on a new connection of its own.</summary>
    public static Task<RawWebSocket> OpenHttp2Async(EchoServerHost server, HttpMessageInvoker? invoker = null) =>
        OpenHttp2Async(server.BaseUrl, EchoServerHost.EchoPath, invoker);

    /// <summary>Opens a websocket at <paramref name="path"/> over HTTP/2 (asserting 200).</summary>
    public static async Task<RawWebSocket> OpenHttp2Async(Uri baseUrl, string path, HttpMessageInvoker? invoker = null)
    {
        HttpMessageInvoker? owned = invoker is null ? new HttpMessageInvoker(Http2Requests.Handler()) : null;
        HttpResponseMessage response = await (invoker ?? owned!).SendAsync(Http2Requests.ExtendedConnect(baseUrl, path), RawHttp.Timeout());
        Assert.Equal(System.Net.HttpStatusCode.OK, response.StatusCode);
        Stream stream = await response.Content.ReadAsStreamAsync(RawHttp.Timeout());
        return new RawWebSocket(null, stream, owned);
    }

    /// <summary>A websocket over a stream opened elsewhere (an HTTP/2 stream, say).</summary>
    public static RawWebSocket Over(Stream stream) => new(null, stream);

    /// <summary>Connects and completes the opening handshake (asserting 101).</summary>
    public static Task<RawWebSocket> OpenAsync(EchoServerHost server) => OpenAsync(server.Url, server.EndPoint);

    /// <summary>Connects to any websocket server (<c>wss://</c> with TLS, any certificate) and completes the opening
    /// handshake at the URL's path (asserting 101).</summary>
    public static async Task<RawWebSocket> OpenAsync(Uri url, System.Net.IPEndPoint? endPoint = null)
    {
        endPoint ??= new System.Net.IPEndPoint(System.Net.IPAddress.Parse(url.Host.Trim('[', ']')), url.Port);
        Socket socket = await RawHttp.ConnectAsync(endPoint);
        Stream stream = new NetworkStream(socket, ownsSocket: false);
        if (url.Scheme == "wss")
        {
            var tls = new SslStream(stream, false);
            await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions { TargetHost = "localhost", RemoteCertificateValidationCallback = (_, _, _, _) => true }, RawHttp.Timeout());
            stream = tls;
        }

        var raw = new RawWebSocket(socket, stream);
        await raw.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade(url.PathAndQuery)));
        string head = await raw.ReadHeadAsync();
        Assert.StartsWith("HTTP/1.1 101 ", head);
        return raw;
    }

    /// <summary>Sends a text message and asserts it comes back whole.</summary>
    public async Task AssertEchoAsync(string text)
    {
        await SendAsync(WireFrames.Client(WebSocketOpcode.Text, Encoding.UTF8.GetBytes(text)));
        var frame = await ReadFrameAsync();
        Assert.NotNull(frame);
        Assert.Equal(WebSocketOpcode.Text, frame.Value.Opcode);
        Assert.Equal(text, Encoding.UTF8.GetString(frame.Value.Payload));
    }

    public async Task SendAsync(params byte[] bytes)
    {
        await _stream.WriteAsync(bytes, RawHttp.Timeout());
        await _stream.FlushAsync(RawHttp.Timeout());
    }

    /// <summary>When the last read from the stream completed (a <see cref="Stopwatch"/> timestamp): for the frame just
    /// returned, when its last bytes arrived; after null, when the end of the stream did.</summary>
    public long LastReadAt { get; private set; }

    /// <summary>Ends our direction while the server's stays readable: a TCP half-close (FIN; under TLS after a
    /// close_notify), or, over HTTP/2, the end of our stream (the duplex stream disposed).</summary>
    public async Task EndOutputAsync()
    {
        if (_socket is null)
        {
            await _stream.DisposeAsync();
            return;
        }

        if (_stream is SslStream tls)
        {
            await tls.ShutdownAsync();
        }

        _socket.Shutdown(SocketShutdown.Send);
    }

    /// <summary>Reads the next whole frame from the server.</summary>
    public async Task<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)?> ReadFrameAsync()
    {
        var decoder = new FrameDecoder(WebSocketRole.Client, new FrameDecoderOptions { ValidateUtf8 = false, MaxFramePayloadLength = 64 << 20, MaxMessagePayloadLength = 64 << 20 });
        while (true)
        {
            byte[] buffered = [.. _pending];
            if (buffered.Length > 0)
            {
                var status = decoder.ReadFrame(buffered, out FrameHeader header, out Span<byte> payload, out _);
                Assert.NotEqual(OperationStatus.InvalidData, status);
                if (status == OperationStatus.Done)
                {
                    _pending.RemoveRange(0, (int)header.FrameLength);
                    return (header.Opcode, header.Fin, payload.ToArray());
                }
            }

            byte[] chunk = new byte[64 * 1024];
            int read = await _stream.ReadAsync(chunk, RawHttp.Timeout());
            LastReadAt = Stopwatch.GetTimestamp();
            if (read == 0)
            {
                Assert.Empty(_pending); // no partial frame before the close
                return null;
            }

            _pending.AddRange(chunk.AsSpan(0, read));
        }
    }

    /// <summary>Reads the next frame that is not a Ping, answering each Ping before it with its Pong (a server with a
    /// short keep-alive interval pings a peer whose message takes a while to send or to come back).</summary>
    public async Task<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)?> ReadAnsweringPingsAsync()
    {
        while (await ReadFrameAsync() is { } frame)
        {
            if (frame.Opcode != WebSocketOpcode.Ping)
            {
                return frame;
            }

            await SendAsync(WireFrames.Client(WebSocketOpcode.Pong, frame.Payload));
        }

        return null;
    }

    /// <summary>Reads frames until the server's Close, asserts the TCP close follows, and returns the Close's status
    /// (1005 for an empty Close) with the frames before it.</summary>
    public async Task<(int Status, List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Before)> ReadUntilCloseAsync(bool answer = true)
    {
        var before = new List<(WebSocketOpcode, bool, byte[])>();
        while (true)
        {
            var frame = await ReadFrameAsync();
            Assert.True(frame is not null, "The connection closed without a Close frame.");
            if (frame.Value.Opcode == WebSocketOpcode.Close)
            {
                int status = WireFrames.CloseStatusOf(frame.Value.Payload);
                if (answer)
                {
                    // A server that has finished the closing handshake may close its socket before our answer arrives;
                    // the kernel then resets the connection, which ends the stream as a close does.
                    Assert.True(await ClosedAfterAnswerAsync(WireFrames.ClientClose((ushort)(status == 1005 ? 1000 : status))), "The server kept the connection open after its Close.");
                }
                else
                {
                    Assert.Null(await ReadFrameAsync()); // then the server closes the TCP connection
                }

                return (status, before);
            }

            before.Add(frame.Value);
        }
    }

    /// <summary>Sends <paramref name="close"/> and reads to the end: true when the stream ended with no further frame,
    /// either closed or reset by the server.</summary>
    private async Task<bool> ClosedAfterAnswerAsync(byte[] close)
    {
        try
        {
            await SendAsync(close);
            return await ReadFrameAsync() is null;
        }
        catch (IOException e) when (e.InnerException is SocketException { SocketErrorCode: SocketError.ConnectionReset or SocketError.Shutdown })
        {
            return true;
        }
    }

    private async Task<string> ReadHeadAsync()
    {
        var head = new List<byte>();
        byte[] one = new byte[1];
        while (!(head.Count >= 4 && head[^4] == '\r' && head[^3] == '\n' && head[^2] == '\r' && head[^1] == '\n'))
        {
            if (await _stream.ReadAsync(one, RawHttp.Timeout()) == 0)
            {
                break;
            }

            head.Add(one[0]);
        }

        return Encoding.ASCII.GetString([.. head]);
    }

    public async ValueTask DisposeAsync()
    {
        await _stream.DisposeAsync();
        _socket?.Dispose();
        _owner?.Dispose();
    }
}
