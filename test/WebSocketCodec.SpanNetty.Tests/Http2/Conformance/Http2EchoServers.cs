using System.Threading.Channels;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using DotNetty.Transport.Channels;
using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Http2.Conformance;

/// <summary>
/// The message echo of the SpanNetty echo server over <see cref="Http2WebSocketServer"/>, h2c prior knowledge and TLS
/// with ALPN h2, with a 60 s close timeout and a <see cref="CountingPool"/>, recording how each websocket ended.
/// <see cref="AssertBalancedAsync"/> waits until every websocket a test opened has ended on the server, then checks the
/// pool and the leak detector.
/// </summary>
/// <remarks>The raw client never ends its side of a stream (no END_STREAM): after the close exchange the server waits
/// <see cref="Http2WebSocketServerOptions.EndStreamTimeout"/> for it before the stream, and with it the websocket, ends.
/// It is 250 ms here (5 s by default), so the cases do not each wait 5 s.</remarks>
public sealed class Http2EchoServers : IAsyncLifetime
{
    private static readonly Lazy<X509Certificate2> Certificate = new(OnePortServer.CreateCertificate);
    private readonly System.Threading.Channels.Channel<ServerEnd> _ends = System.Threading.Channels.Channel.CreateUnbounded<ServerEnd>();
    private Http2Server? _plain;
    private Http2Server? _tls;
    private int _opened;
    private int _ended;

    public CountingPool Pool { get; } = new();

    /// <summary>The HTTP/2 base address: <c>http://</c> (h2c prior knowledge) or <c>https://</c> (ALPN h2).</summary>
    public Uri BaseUrl(bool tls)
    {
        int port = (tls ? _tls : _plain)!.Port;
        return new Uri($"{(tls ? "https" : "http")}://127.0.0.1:{port}/");
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
        var accept = new WebSocketAcceptOptions { Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60), Pool = Pool } };
        var http2 = new Http2WebSocketServerOptions { EndStreamTimeout = TimeSpan.FromMilliseconds(250) };
        void Echo(IChannelPipeline pipeline) =>
            Http2WebSocketServer.Configure(pipeline, "/echo", sender => EchoCallbacks.Messages(sender, Ended), accept, http2: http2);
        _plain = await Http2Server.StartAsync(Echo);
        _tls = await Http2Server.StartAsync(pipeline =>
        {
            pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
            {
                ServerCertificate = Certificate.Value,
                ApplicationProtocols = [SslApplicationProtocol.Http2],
            }));
            Echo(pipeline);
        });
    }

    private void Ended(WebSocketCloseInfo info)
    {
        _ends.Writer.TryWrite(new ServerEnd(
            (int?)info.SentStatus, (int?)info.ReceivedStatus,
            info.EndReason is WebSocketEndReason.KeepAliveTimeout or WebSocketEndReason.IdleTimeout or WebSocketEndReason.CloseTimeout,
            info.Error?.Message));
        Interlocked.Increment(ref _ended);
    }

    public async Task DisposeAsync()
    {
        await _plain!.DisposeAsync();
        await _tls!.DisposeAsync();
        LeakDetection.AssertNoLeaks();
    }
}
