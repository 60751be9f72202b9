using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Testing.Contract;

/// <summary>A raw websocket client for the contract suite, over HTTP/1.1 (an upgraded socket) or HTTP/2 (an extended
/// CONNECT stream of .NET's own HTTP/2 client), as the server asks: masked frames of any kind out, the server's frames
/// in (every rule checked), and the end of the server's direction (a FIN, END_STREAM) seen as the end.</summary>
public sealed class ContractClient : IDisposable
{
    private readonly Stream _stream;
    private readonly Action _fin;
    private readonly IDisposable? _owner;
    private readonly ContractFrameReader _frames;

    private ContractClient(Stream stream, Action fin, string? extensions, IDisposable? owner = null)
    {
        _stream = stream;
        _fin = fin;
        _owner = owner;
        Extensions = extensions;
        bool deflate = extensions?.StartsWith("permessage-deflate", StringComparison.Ordinal) == true;
        _frames = new ContractFrameReader(stream, WebSocketRole.Client, deflate);
    }

    /// <summary>The extensions the server's answer settled (<c>Sec-WebSocket-Extensions</c>), or null.</summary>
    public string? Extensions { get; }

    /// <summary>Whether the last message <see cref="ReadMessageAsync"/> returned came compressed (RSV1).</summary>
    public bool LastMessageCompressed => _frames.LastMessageCompressed;

    /// <summary>The offer of a client that asks for permessage-deflate.</summary>
    private const string DeflateOffer = "permessage-deflate; client_max_window_bits";

    /// <summary>Whether the websocket runs on an HTTP/2 stream.</summary>
    public bool IsHttp2 => _owner is not null;

    /// <summary>Connects and completes the opening handshake at <c>/ws</c> (asserting 101, or 200 over HTTP/2).</summary>
    /// <param name="server">The server.</param>
    /// <param name="receiveBufferSize">The socket's receive buffer, when a test needs a peer that stops reading to
    /// hold back the server soon.</param>
    /// <param name="offerDeflate">Whether to offer permessage-deflate (see <see cref="Extensions"/> for the answer).</param>
    public static async Task<ContractClient> ConnectAsync(IContractServer server, int? receiveBufferSize = null, bool offerDeflate = false)
    {
        (ContractClient? client, int status) = await TryConnectAsync(server, receiveBufferSize, offerDeflate);
        Assert.True(client is not null, $"the server refused the websocket: {status}");
        return client;
    }

    /// <summary>Tries the opening handshake at <c>/ws</c>: the client when the server accepted (101; 200 over HTTP/2),
    /// else null and the server's status.</summary>
    public static async Task<(ContractClient? Client, int Status)> TryConnectAsync(
        IContractServer server, int? receiveBufferSize = null, bool offerDeflate = false)
    {
        if (server.IsHttp2)
        {
            return await ConnectHttp2Async(server, receiveBufferSize, offerDeflate);
        }

        Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        if (receiveBufferSize is { } size)
        {
            socket.ReceiveBufferSize = size;
        }

        string extra = offerDeflate ? $"Sec-WebSocket-Extensions: {DeflateOffer}\r\n" : "";
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws", extra)), RawHttp.Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        int status = int.Parse(head.AsSpan(9, 3), System.Globalization.CultureInfo.InvariantCulture); // "HTTP/1.1 101 ..."
        if (status != 101)
        {
            socket.Dispose();
            return (null, status);
        }

        string? extensions = head.Split("\r\n").Select(line => line.Split(':', 2))
            .Where(parts => parts.Length == 2 && parts[0].Trim().Equals("Sec-WebSocket-Extensions", StringComparison.OrdinalIgnoreCase))
            .Select(parts => parts[1].Trim()).FirstOrDefault();
        return (new ContractClient(new NetworkStream(socket, ownsSocket: true), () => socket.Shutdown(SocketShutdown.Send), extensions), status);
    }

    /// <summary>An RFC 8441 extended CONNECT to <c>/ws</c> on a connection of its own (h2c prior knowledge).</summary>
    private static async Task<(ContractClient? Client, int Status)> ConnectHttp2Async(IContractServer server, int? receiveBufferSize, bool offerDeflate)
    {
        var handler = new SocketsHttpHandler
        {
            ConnectCallback = async (_, cancellationToken) =>
            {
                var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                if (receiveBufferSize is { } size)
                {
                    socket.ReceiveBufferSize = size;
                }

                await socket.ConnectAsync(server.EndPoint, cancellationToken);
                return new NetworkStream(socket, ownsSocket: true);
            },
        };
        var invoker = new HttpMessageInvoker(handler);
        var request = new HttpRequestMessage(HttpMethod.Connect, new Uri($"http://{server.EndPoint}/ws"))
        {
            Version = System.Net.HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.Protocol = "websocket";
        request.Headers.TryAddWithoutValidation("sec-websocket-version", "13");
        if (offerDeflate)
        {
            request.Headers.TryAddWithoutValidation("sec-websocket-extensions", DeflateOffer);
        }

        HttpResponseMessage response = await invoker.SendAsync(request, RawHttp.Timeout());
        if (response.StatusCode != System.Net.HttpStatusCode.OK)
        {
            invoker.Dispose();
            return (null, (int)response.StatusCode);
        }

        string? extensions = response.Headers.TryGetValues("sec-websocket-extensions", out IEnumerable<string>? values) ? string.Join(", ", values) : null;
        Stream stream = await response.Content.ReadAsStreamAsync(RawHttp.Timeout());
        // .NET's client cannot end only its side of an extended CONNECT: disposing the stream resets it (RST_STREAM).
        return (new ContractClient(stream, stream.Dispose, extensions, invoker), 200);
    }

    /// <summary>Sends bytes as they are.</summary>
    public async Task SendAsync(byte[] bytes)
    {
        await _stream.WriteAsync(bytes, RawHttp.Timeout());
        await _stream.FlushAsync(RawHttp.Timeout());
    }

    /// <summary>Sends one masked frame.</summary>
    public Task SendAsync(WebSocketOpcode opcode, string payload) => SendAsync(WireFrames.Client(opcode, Encoding.UTF8.GetBytes(payload)));

    /// <summary>Ends our direction: a FIN; over HTTP/2 a reset of the stream (RST_STREAM CANCEL, all .NET's client can
    /// do), after which nothing more is read.</summary>
    public void Fin() => _fin();

    /// <summary>The server's next frame, or null when the server ended its direction.</summary>
    public Task<(WebSocketOpcode Opcode, byte[] Payload)?> ReadFrameAsync() => _frames.ReadFrameAsync();

    /// <summary>The server's next data message, its fragments joined (asserting the continuation rules) and inflated
    /// when it came compressed (<see cref="LastMessageCompressed"/>).</summary>
    public Task<(WebSocketOpcode Opcode, string Text)> ReadMessageAsync() => _frames.ReadMessageAsync();

    /// <summary>The server's next frame with its FIN and RSV bits, or null when the server ended its direction.</summary>
    public Task<(WebSocketOpcode Opcode, byte[] Payload, bool Fin, int Rsv)?> ReadFinFrameAsync() => _frames.ReadFinFrameAsync();

    /// <summary>Reads frames until the server's Close; returns its status and reason.</summary>
    public Task<(int Status, string Reason)> ReadCloseAsync() => _frames.ReadCloseAsync();

    /// <summary>Asserts that the server's next event is the end of its direction (nothing after its Close).</summary>
    public async Task AssertEndAsync() => Assert.Null(await ReadFrameAsync());

    /// <summary>Reads frames until the server's Close, as <see cref="ReadCloseAsync"/>; over HTTP/2 the stream may be reset
    /// first (a peer given up: .NET's client then drops what it had not read yet, our Close included), and that returns
    /// null.</summary>
    public async Task<(int Status, string Reason)?> ReadCloseUnlessResetAsync()
    {
        try
        {
            return await ReadCloseAsync();
        }
        catch (HttpProtocolException error) when (IsHttp2 && error.ErrorCode == 0x8)
        {
            return null; // CANCEL
        }
    }

    /// <summary>Asserts that the server gave this peer up: the end of its direction, or over HTTP/2 the reset of the
    /// stream (RST_STREAM CANCEL, as the endpoint ends a stream whose peer never finished closing: RFC 8441 section
    /// 5.1).</summary>
    public async Task AssertGivenUpAsync()
    {
        try
        {
            Assert.Null(await ReadFrameAsync());
        }
        catch (HttpProtocolException error) when (IsHttp2 && error.ErrorCode == 0x8)
        {
            // CANCEL
        }
    }

    public void Dispose()
    {
        _stream.Dispose();
        _owner?.Dispose();
    }
}
