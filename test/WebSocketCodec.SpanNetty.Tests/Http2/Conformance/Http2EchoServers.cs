using System.Threading.Channels;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Http2.Conformance;

/// <summary>
/// The SpanNetty echo server (<c>ours</c>: HTTP/1.1 and HTTP/2 on one port, cleartext and TLS with ALPN) with a 60 s
/// close timeout and a <see cref="CountingPool"/>, recording how each websocket ended. <see cref="AssertBalancedAsync"/>
/// waits until every websocket a test opened has ended on the server, then checks the pool and the leak detector.
/// </summary>
public sealed class Http2EchoServers : IAsyncLifetime
{
    private readonly Channel<ServerEnd> _ends = Channel.CreateUnbounded<ServerEnd>();
    private SpanNettyEchoHost? _plain;
    private SpanNettyEchoHost? _tls;
    private int _opened;
    private int _ended;

    public CountingPool Pool { get; } = new();

    /// <summary>The HTTP/2 base address: <c>http://</c> (h2c prior knowledge) or <c>https://</c> (ALPN h2).</summary>
    public Uri BaseUrl(bool tls)
    {
        Uri url = (tls ? _tls : _plain)!.Url;
        return new Uri($"{(tls ? "https" : "http")}://{url.Host}:{url.Port}/");
    }

    /// <summary>Opens a websocket to the echo over its own HTTP/2 connection (extended CONNECT, asserting 200).</summary>
    public async Task<RawWebSocket> OpenAsync(bool tls)
    {
        RawWebSocket socket = await RawWebSocket.OpenHttp2Async(BaseUrl(tls), "/echo");
        Interlocked.Increment(ref _opened);
        return socket;
    }

    public ValueTask<ServerEnd> NextEndAsync(CancellationToken cancellationToken) => _ends.Reader.ReadAsync(cancellationToken);

    /// <summary>Every websocket opened has ended on the server, the pool has every array back, and no buffer leaked.</summary>
    public async Task AssertBalancedAsync()
    {
        for (int i = 0; i < 200 && Volatile.Read(ref _ended) < Volatile.Read(ref _opened); i++)
        {
            await Task.Delay(50);
        }

        Assert.True(Volatile.Read(ref _ended) >= Volatile.Read(ref _opened), $"{_ended} of {_opened} websockets ended on the server");
        Assert.Equal(0, Pool.Outstanding);
        Assert.Equal(0, Pool.BadReturns);
        LeakDetection.AssertNoLeaks();
    }

    public async Task InitializeAsync()
    {
        var options = new SpanNettyEchoOptions
        {
            Port = 0,
            Threads = 2,
            Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60), Pool = Pool },
            Ended = info =>
            {
                _ends.Writer.TryWrite(new ServerEnd(
                    (int?)info.SentStatus, (int?)info.ReceivedStatus,
                    info.EndReason is WebSocketEndReason.KeepAliveTimeout or WebSocketEndReason.IdleTimeout or WebSocketEndReason.CloseTimeout,
                    info.Error?.Message));
                Interlocked.Increment(ref _ended);
            },
        };
        _plain = await SpanNettyEchoHost.StartAsync(options);
        _tls = await SpanNettyEchoHost.StartAsync(options with { Tls = true });
    }

    public async Task DisposeAsync()
    {
        await _plain!.DisposeAsync();
        await _tls!.DisposeAsync();
        LeakDetection.AssertNoLeaks();
    }
}
