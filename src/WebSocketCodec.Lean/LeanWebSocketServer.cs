using System.Net;
using WebSocketCodec.Lean.Loop;

namespace WebSocketCodec.Lean;

/// <summary>A websocket server for Linux that leaves Kestrel out: reach for it for a process that serves only
/// websockets and should spend the least CPU and memory on each. Stay on Kestrel (<c>WebSocketCodec.AspNetCore</c>) for
/// HTTP/2 websockets, other HTTP endpoints on the same port, or Windows and macOS (see
/// <see cref="IsSupported"/>).</summary>
/// <remarks>One epoll event loop per core accepts from one listening socket, reads every connection of the loop into
/// one shared receive buffer that the core's driver parses in place (a partial frame is the only thing copied to its
/// websocket, so an idle websocket holds no buffer), writes output straight to the socket (the sends of one loop
/// iteration go out once per socket, only the unsent remainder is kept), and answers the HTTP/1.1 upgrade with the
/// core's head parser and decision. TLS goes through <c>SslStream</c>. Every websocket behaviour (limits, timeouts,
/// close handshake, backpressure, groups, telemetry) is the core driver's, as on every other host. HTTP/2 websockets
/// stay on Kestrel.</remarks>
/// <example>
/// <code>
/// await using var server = LeanWebSocketServer.StartMessages(
///     new LeanWebSocketServerOptions { EndPoint = new IPEndPoint(IPAddress.Any, 8080), Path = "/echo" },
///     async (request, websocket) =>
///     {
///         while (await websocket.ReceiveAsync() is { } message)
///         {
///             using (message) await websocket.SendAsync(message.Payload, message.Type);
///         }
///     });
/// </code>
/// </example>
public sealed class LeanWebSocketServer : IAsyncDisposable
{
    private readonly LeanServerCore _core;
    private readonly EventLoop[] _loops;
    private int _disposed;

    private LeanWebSocketServer(LeanServerCore core, EventLoop[] loops)
    {
        _core = core;
        _loops = loops;
    }

    /// <summary>The event loops (for tests and diagnostics).</summary>
    internal IReadOnlyList<EventLoop> Loops => _loops;

    /// <summary>Whether the server can run here (Linux).</summary>
    public static bool IsSupported => OperatingSystem.IsLinux();

    /// <summary>Where it listens (the port chosen when the options asked for 0).</summary>
    public IPEndPoint EndPoint => _core.EndPoint;

    /// <summary>The URL clients connect to: <c>ws://</c> or <c>wss://</c>, the address, the port, and the served path
    /// (or <c>/</c>).</summary>
    public Uri Uri
    {
        get
        {
            IPAddress address = EndPoint.Address;
            if (address.Equals(IPAddress.Any))
            {
                address = IPAddress.Loopback;
            }
            else if (address.Equals(IPAddress.IPv6Any))
            {
                address = IPAddress.IPv6Loopback;
            }

            string host = address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? $"[{address}]" : address.ToString();
            return new Uri($"{(_core.TlsOptions is null ? "ws" : "wss")}://{host}:{EndPoint.Port}{_core.Options.Path ?? "/"}");
        }
    }

    /// <summary>The websockets open now.</summary>
    public int OpenWebSockets => _core.OpenCount;

    /// <summary>The connections open now: websockets, and handshakes or refusals in progress.</summary>
    public int OpenConnections => _core.ConnectionCount;

    /// <summary>Starts a server whose websockets run the callbacks API: <paramref name="listenerFactory"/> gets each
    /// accepted request and its websocket's frame sender, on the websocket's loop before its first read, and returns the
    /// websocket's listener (a throw refuses the handshake with 500).</summary>
    /// <param name="options">Where to listen and what to accept.</param>
    /// <param name="listenerFactory">Creates each websocket's listener.</param>
    /// <returns>The running server: it accepts from now on.</returns>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    public static LeanWebSocketServer Start(
        LeanWebSocketServerOptions options, Func<LeanWebSocketRequest, WebSocketFrameSender, IWebSocketFrameListener> listenerFactory)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(listenerFactory);
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException(
                "The lean websocket server runs on Linux only (it is built on epoll); serve websockets with Kestrel (MapWebSocket) elsewhere.");
        }

        options.Validate();
        var core = new LeanServerCore(options, listenerFactory);
        var loops = new EventLoop[options.LoopCount];
        try
        {
            for (int i = 0; i < loops.Length; i++)
            {
                loops[i] = new EventLoop(core, i);
            }

            foreach (EventLoop loop in loops)
            {
                loop.Listen();
                loop.Start();
            }
        }
        catch
        {
            core.CloseListener();
            foreach (EventLoop? loop in loops)
            {
                loop?.Stop();
                loop?.Dispose();
            }

            throw;
        }

        return new LeanWebSocketServer(core, loops);
    }

    /// <summary>Starts a server whose websockets run the message API: <paramref name="application"/> gets each accepted
    /// request and its <see cref="MessageWebSocket"/>; when it returns, a websocket still open is closed with 1000;
    /// when it throws, with 1011.</summary>
    /// <param name="options">Where to listen and what to accept.</param>
    /// <param name="application">Runs each websocket.</param>
    /// <returns>The running server.</returns>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    public static LeanWebSocketServer StartMessages(LeanWebSocketServerOptions options, Func<LeanWebSocketRequest, MessageWebSocket, Task> application)
    {
        ArgumentNullException.ThrowIfNull(application);
        return Start(options, (request, sender) =>
        {
            var messages = new MessageWebSocket(sender);
            _ = RunMessagesAsync(application, request, messages);
            return messages.Listener;
        });
    }

    /// <summary>Stops accepting, closes every open websocket with 1001 and waits for their close handshakes up to
    /// <see cref="LeanWebSocketServerOptions.ShutdownTimeout"/>, tears the rest down, and stops the loops.</summary>
    /// <returns>Completes when the loops have stopped.</returns>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        // The listener is closed only once no loop can touch it any more (its number could be reused at once).
        Task released = Task.WhenAll(_loops.Select(loop => loop.StopListeningAsync()));
        try
        {
            await released.WaitAsync(_core.Options.ShutdownTimeout).ConfigureAwait(false);
            _core.CloseListener();
        }
        catch (TimeoutException)
        {
            // A loop that does not answer keeps the listener open (leaked rather than handed to a stranger).
        }
        const string Reason = "server shutting down";
        List<WebSocketDriver> open = [.. _core.OpenTls];
        foreach (WebSocketDriver tls in open)
        {
            _ = tls.CloseAsync(CloseStatus.GoingAway, Reason);
        }

        Task<List<WebSocketDriver>[]> asked = Task.WhenAll(_loops.Select(loop => loop.CloseAllAsync(CloseStatus.GoingAway, Reason)));
        try
        {
            foreach (List<WebSocketDriver> closing in await asked.WaitAsync(_core.Options.ShutdownTimeout).ConfigureAwait(false))
            {
                open.AddRange(closing);
            }
        }
        catch (TimeoutException)
        {
            // A loop held by its application: its websockets are torn down with it below.
        }

        Task all = Task.WhenAll(open.Select(driver => driver.Completion));
        try
        {
            await all.WaitAsync(_core.Options.ShutdownTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            foreach (WebSocketDriver driver in open.Where(d => !d.Completion.IsCompleted))
            {
                driver.Abort();
            }

            await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(1))).ConfigureAwait(false);
        }

        foreach (EventLoop loop in _loops)
        {
            loop.Stop();
            loop.Dispose();
        }

        if (released.IsCompletedSuccessfully)
        {
            _core.CloseListener(); // idempotent; closes it when the loops answered only as they stopped
        }
    }

    private static async Task RunMessagesAsync(
        Func<LeanWebSocketRequest, MessageWebSocket, Task> application, LeanWebSocketRequest request, MessageWebSocket messages)
    {
        await Task.Yield(); // never on the loop: the application may do anything before its first await
        await using (messages.ConfigureAwait(false))
        {
            try
            {
                await application(request, messages).ConfigureAwait(false);
                await messages.CloseAsync().ConfigureAwait(false);
            }
            catch (Exception)
            {
                await messages.CloseAsync(CloseStatus.InternalError).ConfigureAwait(false);
            }
        }
    }
}
