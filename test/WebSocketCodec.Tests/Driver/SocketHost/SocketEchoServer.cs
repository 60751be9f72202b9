using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Net.WebSockets;

namespace WebSocketCodec.Tests.Driver.SocketHost;

/// <summary>
/// A websocket echo server of a few dozen lines on the core package alone: a listening <see cref="Socket"/>, the
/// core's HTTP/1.1 head parser and handshake, and <see cref="SocketTransport"/> hosting the driver. Every websocket's
/// end is recorded.
/// </summary>
public sealed class SocketEchoServer : IAsyncDisposable
{
    private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _accepting;
    private readonly WebSocketSessionOptions? _options;
    private readonly WebSocketAcceptOptions _accept;

    /// <summary>What the server accepts: permessage-deflate when offered, with the default level and threshold.</summary>
    private static readonly WebSocketAcceptOptions Accept = new() { Deflate = new PerMessageDeflateOptions() };

    private readonly Func<WebSocketFrameSender, IWebSocketFrameListener>? _listener;

    private SocketEchoServer(
        WebSocketSessionOptions? options, Func<WebSocketFrameSender, IWebSocketFrameListener>? listener, WebSocketAcceptOptions? accept)
    {
        _options = options;
        _accept = accept ?? Accept;
        _listener = listener;
        _socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _socket.Listen(64);
        _accepting = AcceptAsync();
    }

    /// <summary>Where it listens.</summary>
    public Uri Uri => new($"ws://127.0.0.1:{((IPEndPoint)_socket.LocalEndPoint!).Port}/echo");

    /// <summary>The ends of the websockets served, in order.</summary>
    public System.Threading.Channels.Channel<WebSocketCloseInfo> Ends { get; } =
        System.Threading.Channels.Channel.CreateUnbounded<WebSocketCloseInfo>();

    private int _pongs;

    /// <summary>Pongs the websockets' listeners were given (<see cref="IWebSocketFrameListener.OnPong"/>).</summary>
    public int Pongs => Volatile.Read(ref _pongs);

    /// <summary>The drivers of the websockets served so far.</summary>
    public List<WebSocketDriver> Drivers { get; } = [];

    /// <summary>Starts the server; its websockets echo whole messages, or run <paramref name="listener"/>; it accepts
    /// what <paramref name="accept"/> allows (permessage-deflate when offered, by default).</summary>
    public static SocketEchoServer Start(
        WebSocketSessionOptions? options = null, Func<WebSocketFrameSender, IWebSocketFrameListener>? listener = null, WebSocketAcceptOptions? accept = null) =>
        new(options, listener, accept);

    /// <summary>Where it listens.</summary>
    public IPEndPoint EndPoint => (IPEndPoint)_socket.LocalEndPoint!;

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _socket.Dispose();
        await _accepting.ConfigureAwait(false);
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _socket.AcceptAsync(_stop.Token);
            }
            catch (Exception error) when (error is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            _ = ServeAsync(socket);
        }
    }

    private async Task ServeAsync(Socket socket)
    {
        byte[] head = new byte[HttpHeadParser.DefaultMaxHeadLength];
        int length = 0;
        HttpHead? request;
        int headLength;
        while (true)
        {
            int read = await socket.ReceiveAsync(head.AsMemory(length), SocketFlags.None);
            length += read;
            OperationStatus status = HttpHeadParser.TryParse(head.AsSpan(0, length), out request, out headLength, out _);
            if (status == OperationStatus.Done)
            {
                break;
            }

            if (status == OperationStatus.InvalidData || read == 0)
            {
                socket.Dispose();
                return;
            }
        }

        // The core decides (validation, route, subprotocol, deflate, the open-websocket cap) and writes the answer.
        WebSocketAdmission? admission = WebSocketAdmission.For(_accept);
        bool admitted = admission?.TryEnter() ?? true;
        var answer = new ArrayBufferWriter<byte>();
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(
            new WebSocketHandshakeFacts { Method = request!.Method, HttpVersion = request.Version, Headers = request, Target = request.Target, OverCapacity = !admitted },
            _accept);
        Http1Handshake.WriteResponse(answer, decision);
        await socket.SendAsync(answer.WrittenMemory, SocketFlags.None);
        if (!decision.IsAccepted)
        {
            if (admitted)
            {
                admission?.Leave();
            }

            socket.Dispose();
            return;
        }

        var transport = new SocketTransport(socket, WebSocketRole.Server, _options);
        if (decision.Deflate is { } deflate)
        {
            transport.Driver.EnablePerMessageDeflate(deflate, _accept.Deflate!); // permessage-deflate, as negotiated
        }

        admission?.LeaveWhenEnded(transport.Driver);
        lock (Drivers)
        {
            Drivers.Add(transport.Driver);
        }

        IWebSocketFrameListener listener = _listener?.Invoke(transport.Driver.Sender) ?? new EchoListener(this, transport.Driver.Sender);
        WebSocketCloseInfo end = await transport.RunAsync(listener, head.AsMemory(headLength, length - headLength));
        Ends.Writer.TryWrite(end);
    }

    /// <summary>Echoes whole messages and counts Pongs.</summary>
    private sealed class EchoListener(SocketEchoServer server, WebSocketFrameSender sender) : IWebSocketFrameListener, IDisposable
    {
        private readonly WebSocketMessageListener<WebSocketFrameSender> _messages = new(
            sender,
            static (sender, type, payload) => sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload));

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => _messages.OnFrame(opcode, fin, rsv, payload);

        public void OnPong(ReadOnlySpan<byte> payload) => Interlocked.Increment(ref server._pongs);

        public void OnClose(WebSocketCloseInfo info) => _messages.OnClose(info);

        public void Dispose() => _messages.Dispose();
    }
}
