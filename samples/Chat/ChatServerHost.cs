using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Akka;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Samples.Chat;

/// <summary>The chat server on Kestrel: <c>/chat/{room}</c> relays texts to a room (see <see cref="ChatEndpoint"/>),
/// <c>/</c> serves the page. One port serves HTTP/1.1 upgrades and HTTP/2 extended CONNECT, as the echo server's.</summary>
public sealed class ChatServerHost : IAsyncDisposable
{
    private readonly WebApplication _app;

    private ChatServerHost(WebApplication app, Uri baseUrl, ChatRooms rooms)
    {
        _app = app;
        BaseUrl = baseUrl;
        Rooms = rooms;
    }

    /// <summary>The server's base URL (the page), e.g. <c>http://127.0.0.1:8080/</c>.</summary>
    public Uri BaseUrl { get; }

    /// <summary>The rooms with members now.</summary>
    public ChatRooms Rooms { get; }

    /// <summary>The websocket URL of a room, e.g. <c>ws://127.0.0.1:8080/chat/lobby</c>.</summary>
    public Uri RoomUrl(string room) => SampleHosting.WebSocketUrl(BaseUrl, "/chat/" + Uri.EscapeDataString(room));

    /// <summary>Builds and starts the server.</summary>
    public static async Task<ChatServerHost> StartAsync(ChatOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        WebApplicationBuilder builder = SampleHosting.CreateBuilder(options.Host, options.Port, options.Tls);
        bool clustered = options.Seeds.Count > 0;
        if (clustered)
        {
            ChatCluster.AddTo(builder, options);
        }

        WebApplication app = builder.Build();
        var rooms = new ChatRooms(options.Pool, clustered ? ChatCluster.Groups(app.Services, options) : null);
        app.Use((context, next) =>
        {
            if (SampleHosting.IsClassicConnect(context))
            {
                context.Response.StatusCode = StatusCodes.Status501NotImplemented; // a classic CONNECT: not a proxy
                return Task.CompletedTask;
            }

            return next(context);
        });
        app.MapGet("/", ChatPage.ServeAsync);
        app.MapGet("/health", () => "ok"); // what a load balancer asks (samples/ChatGateway)
        app.MapGet("/rooms/{room}", (string room) => rooms.Find(room)?.MemberCount ?? 0); // this node's members of a room
        ChatEndpoint.Map(app, rooms, options.ConfigureAccept);
        if (clustered)
        {
            app.MapAkkaRemoting(); // the node's Akka remoting on the chat's port: /akka/{system}
        }

        await app.StartAsync(cancellationToken);
        return new ChatServerHost(app, SampleHosting.BaseUrl(app), rooms);
    }

    /// <summary>Waits until the host is told to stop (Ctrl+C, SIGTERM, or <paramref name="cancellationToken"/>).</summary>
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => _app.WaitForShutdownAsync(cancellationToken);

    /// <summary>Stops gracefully: open websockets get Close 1001 first.</summary>
    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
