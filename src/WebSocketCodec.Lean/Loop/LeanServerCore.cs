using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;

namespace WebSocketCodec.Lean.Loop;

/// <summary>What every loop of one server shares: the listening socket, the accept options and the open-websocket
/// cap, the application's listener factory, the websockets open now, and where failures are reported.</summary>
internal sealed class LeanServerCore : IDisposable
{
    private readonly Func<LeanWebSocketRequest, WebSocketFrameSender, IWebSocketFrameListener> _factory;
    private readonly ConcurrentDictionary<WebSocketDriver, byte> _open = new();
    private readonly Socket _listener;
    /// <summary>Under the WebSocketCodec meter, as Kestrel's <c>kestrel.active_connections</c>, tagged with the
    /// listening port (<c>server.port</c>).</summary>
    private static readonly UpDownCounter<long> ActiveConnections = new Meter(WebSocketTelemetry.Name).CreateUpDownCounter<long>(
        "websocketcodec.lean.connections.active", "{connection}", "Connections of the lean transport open now (handshakes included).");

    private readonly KeyValuePair<string, object?> _portTag;
    private int _openCount;
    private int _connectionCount;

    public LeanServerCore(
        LeanWebSocketServerOptions options, Func<LeanWebSocketRequest, WebSocketFrameSender, IWebSocketFrameListener> factory)
    {
        Options = options;
        Accept = options.Accept;
        // Frames cut by the end of a read are gathered in the session's pool. A loop serves many websockets from one
        // buffer, so many such frames may be out at once, more than the shared pool keeps per core (it then allocates);
        // unless the application chose a pool, the server's own keeps up to 128 arrays per size up to 64 KiB.
        Session = options.Accept.Session.Pool is null
            ? options.Accept.Session with { Pool = ArrayPool<byte>.Create(64 * 1024, 128) }
            : options.Accept.Session;
        Admission = WebSocketAdmission.For(options.Accept);
        TlsOptions = options.Tls;
        _factory = factory;
        if (options.Path is { } path)
        {
            IsServed = (_, target) => PathOf(target) == path;
        }
        else if (options.IsPathServed is { } served)
        {
            IsServed = (_, target) => served(PathOf(target));
        }

        _listener = new Socket(options.EndPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            if (options.EndPoint.AddressFamily == AddressFamily.InterNetworkV6 && options.EndPoint.Address.Equals(IPAddress.IPv6Any))
            {
                _listener.DualMode = true;
            }

            // No SO_REUSEADDR: .NET sets SO_REUSEPORT with it on Linux, and a second server would then share the port
            // silently instead of failing to start.
            _listener.Bind(options.EndPoint);
            _listener.Listen(options.Backlog);
            _listener.Blocking = false;
        }
        catch
        {
            _listener.Dispose();
            throw;
        }

        EndPoint = (IPEndPoint)_listener.LocalEndPoint!;
        _portTag = new KeyValuePair<string, object?>("server.port", EndPoint.Port);
        ListenerFd = (int)_listener.SafeHandle.DangerousGetHandle();
    }

    public LeanWebSocketServerOptions Options { get; }

    public WebSocketAcceptOptions Accept { get; }

    /// <summary>The websockets' options: the application's, with the server's pool when it chose none.</summary>
    public WebSocketSessionOptions Session { get; }

    public WebSocketAdmission? Admission { get; }

    public SslServerAuthenticationOptions? TlsOptions { get; }

    public Func<WebSocketUpgradeRequest, string, bool>? IsServed { get; }

    public IPEndPoint EndPoint { get; }

    public int ListenerFd { get; }

    /// <summary>The TLS websockets open now (the loops know their own).</summary>
    public ICollection<WebSocketDriver> OpenTls => _open.Keys;

    public int OpenCount => Volatile.Read(ref _openCount);

    /// <summary>Accepted connections not yet closed (handshakes and refusals in progress included).</summary>
    public int ConnectionCount => Volatile.Read(ref _connectionCount);

    public void OnConnectionOpened()
    {
        Interlocked.Increment(ref _connectionCount);
        ActiveConnections.Add(1, _portTag);
    }

    public void OnConnectionClosed()
    {
        Interlocked.Decrement(ref _connectionCount);
        ActiveConnections.Add(-1, _portTag);
    }

    public void OnWebSocketOpened() => Interlocked.Increment(ref _openCount);

    public void OnWebSocketEnded(bool admitted)
    {
        Interlocked.Decrement(ref _openCount);
        Leave(admitted);
    }

    public IWebSocketFrameListener CreateListener(LeanWebSocketRequest request, WebSocketFrameSender sender) => _factory(request, sender);

    public void TrackTls(WebSocketDriver driver)
    {
        _open.TryAdd(driver, 0);
        OnWebSocketOpened();
    }

    public void UntrackTls(WebSocketDriver driver)
    {
        _open.TryRemove(driver, out _);
        Interlocked.Decrement(ref _openCount);
    }

    public void ServeTls(int fd, IPEndPoint? remote) => _ = Tls.TlsConnection.ServeAsync(this, fd, remote);

    public void CloseListener() => _listener.Dispose();

    public void Dispose() => _listener.Dispose();

    public void ReportConnectionFailure(Exception error) => Report(error);

    public void ReportLoopFailure(Exception error) => Report(error);

    public void ReportAcceptPaused(int errno) =>
        Report(new SocketException(errno, $"Accepting paused for a quarter second: out of descriptors or memory (errno {errno})."));

    /// <summary>The core's decision on a request head, counted against the open-websocket cap.</summary>
    /// <param name="head">The request head.</param>
    /// <param name="admitted">Whether the cap let it in (leave the admission when the decision refuses or the websocket
    /// ends).</param>
    public WebSocketAcceptDecision Decide(HttpHead head, out bool admitted)
    {
        admitted = Admission?.TryEnter() ?? true;
        try
        {
            return WebSocketAcceptDecision.Decide(
                new WebSocketHandshakeFacts
                {
                    Method = head.Method, HttpVersion = head.Version, Headers = head, Target = head.Target, OverCapacity = !admitted,
                },
                Accept, IsServed);
        }
        catch (Exception error)
        {
            // The application's subprotocol selection failed.
            Leave(admitted);
            admitted = false;
            Report(error);
            return WebSocketAcceptDecision.Refuse(new HandshakeFailure(500, "The server failed to accept the websocket."));
        }
    }

    public void Leave(bool admitted)
    {
        if (admitted)
        {
            Admission?.Leave();
        }
    }

    private static string PathOf(string target) => target.IndexOf('?') is var query and >= 0 ? target[..query] : target;

    private void Report(Exception error)
    {
        try
        {
            Options.OnError?.Invoke(error);
        }
        catch
        {
            // The reporter's own failure is not the loop's end.
        }
    }
}
