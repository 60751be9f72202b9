using System.Collections.Concurrent;
using System.Net;
using System.Threading.Channels;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>An echo at <c>/echo</c> on the Kestrel endpoint with <see cref="WebSocketAcceptOptions.Deflate"/> as the
/// test says, every pooled buffer from a <see cref="PeakPool"/>; it keeps the <c>Sec-WebSocket-Extensions</c> offers
/// it was sent, counts the bytes on its sockets, and tells how each websocket ended.</summary>
public sealed class DeflateEchoHost : IAsyncDisposable
{
    private readonly Channel<WebSocketCloseInfo> _ends;

    private DeflateEchoHost(KestrelHost host, PeakPool pool, WireCounter wire, ConcurrentQueue<string> offers, Channel<WebSocketCloseInfo> ends)
    {
        _ends = ends;
        Host = host;
        Pool = pool;
        Wire = wire;
        Offers = offers;
    }

    public KestrelHost Host { get; }

    public PeakPool Pool { get; }

    public WireCounter Wire { get; }

    /// <summary>The request's <c>Sec-WebSocket-Extensions</c> of every websocket request ("" when it had none).</summary>
    public ConcurrentQueue<string> Offers { get; }

    public Uri Url => Host.WebSocketUrl("/echo");

    public IPEndPoint EndPoint => Host.EndPoint;

    /// <summary>Starts the echo; <paramref name="session"/> (its pool replaced by <see cref="Pool"/>) defaults to
    /// <see cref="WebSocketSessionOptions.Default"/> with a 1 s close timeout.</summary>
    public static async Task<DeflateEchoHost> StartAsync(PerMessageDeflateOptions? deflate, WebSocketSessionOptions? session = null)
    {
        var pool = new PeakPool();
        var wire = new WireCounter();
        var offers = new ConcurrentQueue<string>();
        Channel<WebSocketCloseInfo> ends = Channel.CreateUnbounded<WebSocketCloseInfo>();
        WebSocketSessionOptions settings = (session ?? WebSocketSessionOptions.Default with { CloseTimeout = TimeSpan.FromSeconds(1) }) with { Pool = pool };
        KestrelHost host = await KestrelHost.StartAsync(
            map: app =>
            {
                app.Use(async (HttpContext context, RequestDelegate next) =>
                {
                    offers.Enqueue(string.Join(", ", context.Request.Headers.SecWebSocketExtensions.ToArray()));
                    await next(context);
                });
                app.MapWebSocket(
                    "/echo",
                    (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(
                        sender,
                        static (s, type, payload) => s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload),
                        pool,
                        info => ends.Writer.TryWrite(info)),
                    options =>
                    {
                        options.Deflate = deflate;
                        options.Session = settings;
                    });
            },
            listen: options => options.Use(wire.Wrap));
        return new DeflateEchoHost(host, pool, wire, offers, ends);
    }

    /// <summary>The next websocket that ended, with how it ended (after its session returned its buffers).</summary>
    public async Task<WebSocketCloseInfo> NextEndAsync() => await _ends.Reader.ReadAsync(RawHttp.Timeout(10));

    /// <summary>Asserts every pooled buffer came back exactly once, once the websockets ended (the compressor's
    /// buffer is released when the output ends, which can follow the listener's OnClose).</summary>
    public async Task AssertPoolBalancedAsync()
    {
        await Eventually.True(() => Pool.Counting.Outstanding == 0, TimeSpan.FromSeconds(10));
        Pool.Counting.AssertBalanced();
    }

    public ValueTask DisposeAsync() => Host.DisposeAsync();
}
