using System.Collections.Concurrent;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.AspNetCore.Tests.Infrastructure;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>
/// A Kestrel server that records every text it receives with the number of the websocket it came on (<c>/log</c>),
/// answers each with an echo, and counts the websockets open now and ever. <c>/close/{code}</c> closes each websocket
/// at once with that status; <c>/refuse/{status}</c> answers the handshake with that status (and
/// <c>Retry-After: 1</c> for 429 and 503) for as many requests as <see cref="Refusals"/> says, then accepts.
/// </summary>
public sealed class MessageLogServer : IAsyncDisposable
{
    private int _websockets;
    private int _open;

    private MessageLogServer(KestrelHost host) => Host = host;

    public KestrelHost Host { get; }

    public ConcurrentQueue<(int WebSocket, string Text)> Log { get; } = new();

    public int WebSockets => Volatile.Read(ref _websockets);

    private readonly ConcurrentDictionary<string, byte> _texts = new(StringComparer.Ordinal);

    /// <summary>Whether any websocket sent this text.</summary>
    public bool Received(string text) => _texts.ContainsKey(text);

    public int Open => Volatile.Read(ref _open);

    private int _refusals;

    /// <summary>How many more handshakes <c>/refuse/{status}</c> refuses.</summary>
    public int Refusals
    {
        get => Volatile.Read(ref _refusals);
        set => Volatile.Write(ref _refusals, value);
    }

    public int Port => Host.BaseUrl.Port;

    public Uri Url(string path) => Host.WebSocketUrl(path);

    public static async Task<MessageLogServer> StartAsync(
        int port = 0, bool sharedPort = false, bool tls = false, Action<Microsoft.AspNetCore.Server.Kestrel.Core.ListenOptions>? listen = null)
    {
        MessageLogServer? server = null;
        KestrelHost host = await KestrelHost.StartAsync(
            map: app =>
            {
                app.Use(async (context, next) =>
                {
                    string path = context.Request.Path.Value ?? "";
                    if (path.StartsWith("/refuse/", StringComparison.Ordinal) && Interlocked.Decrement(ref server!._refusals) >= 0)
                    {
                        int status = int.Parse(path["/refuse/".Length..], System.Globalization.CultureInfo.InvariantCulture);
                        context.Response.StatusCode = status;
                        if (status is 429 or 503)
                        {
                            context.Response.Headers.RetryAfter = "1";
                        }

                        return;
                    }

                    await next(context);
                });
                app.MapWebSocketMessages("/log", (context, webSocket) => server!.RecordAsync(webSocket));
                app.MapWebSocketMessages("/refuse/{status}", (context, webSocket) => server!.RecordAsync(webSocket));
                app.MapWebSocketMessages("/close/{code}", async (context, webSocket) =>
                {
                    Interlocked.Increment(ref server!._websockets);
                    var code = (CloseStatus)int.Parse((string)context.Request.RouteValues["code"]!, System.Globalization.CultureInfo.InvariantCulture);
                    await webSocket.CloseAsync(code, "test");
                });
            },
            port: port,
            sharedPort: sharedPort,
            tls: tls,
            listen: listen);
        server = new MessageLogServer(host);
        return server;
    }

    public async ValueTask DisposeAsync() => await Host.DisposeAsync();

    private async Task RecordAsync(MessageWebSocket webSocket)
    {
        int number = Interlocked.Increment(ref _websockets);
        Interlocked.Increment(ref _open);
        try
        {
            while (await webSocket.ReceiveAsync() is { } message)
            {
                using (message)
                {
                    string text = Encoding.UTF8.GetString(message.Payload.Span);
                    Log.Enqueue((number, text));
                    _texts.TryAdd(text, 0);
                    try
                    {
                        await webSocket.SendTextAsync(text);
                    }
                    catch (InvalidOperationException)
                    {
                        // the websocket is closing: the log has the text
                    }
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _open);
        }
    }
}
