using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Net.WebSockets;
using WebSocketCodec.Lean;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Samples.Chat;

/// <summary>The chat on the lean transport (<c>--transport lean</c>, Linux): <c>/chat/{room}</c> over HTTP/1.1 upgrades
/// with the same rooms and rules as on Kestrel (see <see cref="ChatEndpoint"/>); no page (serve it from Kestrel, or open
/// the rooms with any websocket client).</summary>
public sealed class LeanChatServerHost : IAsyncDisposable
{
    private const string Prefix = "/chat/";
    private readonly LeanWebSocketServer _server;

    private LeanChatServerHost(LeanWebSocketServer server, ChatRooms rooms)
    {
        _server = server;
        Rooms = rooms;
    }

    /// <summary>The rooms with members now.</summary>
    public ChatRooms Rooms { get; }

    /// <summary>Where the rooms are, e.g. <c>ws://127.0.0.1:8080/chat/</c>.</summary>
    public Uri Url => new(_server.Uri, Prefix);

    /// <summary>The websocket URL of a room, e.g. <c>ws://127.0.0.1:8080/chat/lobby</c>.</summary>
    public Uri RoomUrl(string room) => new(_server.Uri, Prefix + Uri.EscapeDataString(room));

    /// <summary>Starts the server.</summary>
    /// <exception cref="IOException">The address cannot be listened on.</exception>
    /// <exception cref="ArgumentException">Not an IP address, or not on Linux.</exception>
    public static LeanChatServerHost Start(ChatOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!LeanWebSocketServer.IsSupported)
        {
            throw new ArgumentException("--transport lean runs on Linux only (epoll); use --transport kestrel here.", nameof(options));
        }

        var accept = new WebSocketAcceptOptions();
        options.ConfigureAccept(accept);
        var rooms = new ChatRooms(options.Pool);
        var lean = new LeanWebSocketServerOptions
        {
            EndPoint = new IPEndPoint(SampleHosting.ParseAddress(options.Host), options.Port),
            Accept = accept,
            IsPathServed = path => RoomOf(path) is not null,
            Tls = options.Tls
                ? new SslServerAuthenticationOptions { ServerCertificate = SelfSignedCertificate.Create(), ApplicationProtocols = [SslApplicationProtocol.Http11] }
                : null,
            OnError = error => Console.Error.WriteLine($"error: {error.Message}"),
        };
        try
        {
            return new LeanChatServerHost(LeanWebSocketServer.Start(lean, (request, sender) => Join(rooms, RoomOf(request.Path)!, sender)), rooms);
        }
        catch (SocketException error)
        {
            throw new IOException($"{lean.EndPoint}: {error.Message}", error);
        }
    }

    /// <summary>Waits for Ctrl+C, SIGTERM or <paramref name="cancellationToken"/>.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822", Justification = "An instance member, as the Kestrel host's.")]
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => LeanSignals.WaitAsync(cancellationToken);

    /// <summary>Stops gracefully: open websockets get Close 1001 first.</summary>
    public ValueTask DisposeAsync() => _server.DisposeAsync();

    /// <summary>The room of <c>/chat/{room}</c> (1 to 64 characters, unescaped), or null.</summary>
    private static string? RoomOf(string path)
    {
        if (!path.StartsWith(Prefix, StringComparison.Ordinal))
        {
            return null;
        }

        string room = Uri.UnescapeDataString(path[Prefix.Length..]);
        return room.Length is >= 1 and <= 64 && !room.Contains('/', StringComparison.Ordinal) ? room : null;
    }

    private static WebSocketMessageListener<WebSocketDriver> Join(ChatRooms rooms, string name, WebSocketFrameSender sender)
    {
        WebSocketDriver driver = sender.Driver;
        ChatRoom room = rooms.Join(name, driver);
        return new WebSocketMessageListener<WebSocketDriver>(
            driver,
            (member, type, payload) =>
            {
                if (type == WebSocketMessageType.Text)
                {
                    room.Relay(payload);
                }
                else
                {
                    _ = member.CloseAsync(CloseStatus.UnsupportedData, "text messages only");
                }
            },
            driver.Options.Pool,
            ended =>
            {
                if (ended.EndReason == WebSocketEndReason.SlowConsumer)
                {
                    room.CountSlowMember();
                }

                rooms.Leave(room, driver);
            });
    }
}
