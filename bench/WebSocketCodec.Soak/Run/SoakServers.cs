using Microsoft.AspNetCore.Builder;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Soak;

/// <summary>
/// The servers under soak, in this process: the sample echo server (<see cref="EchoServerHost"/>, HTTP/1.1 and HTTP/2
/// on one port, permessage-deflate accepted when offered) twice, cleartext and TLS (self-signed), with a counting pool
/// under every websocket's gathered frames and joined messages, so the pool's balance can be checked once every
/// websocket closed.
/// </summary>
public sealed class SoakServers : IAsyncDisposable
{
    private readonly Func<ValueTask> _dispose;

    private SoakServers(Uri plain, Uri tls, CountingArrayPool pool, Func<ValueTask> dispose, Uri? spanNetty = null)
    {
        Plain = plain;
        Tls = tls;
        SpanNetty = spanNetty;
        Pool = pool;
        _dispose = dispose;
    }

    /// <summary>The cleartext echo, <c>ws://127.0.0.1:port/echo</c>.</summary>
    public Uri Plain { get; }

    /// <summary>The TLS echo, <c>wss://127.0.0.1:port/echo</c>.</summary>
    public Uri Tls { get; }

    /// <summary>The SpanNetty echo (our codec on SpanNetty, HTTP/1.1 and HTTP/2 on one port), cleartext: only in a build
    /// with <c>-p:WithSpanNetty=true</c>, else null. Its sessions' gathered frames come from <see cref="Pool"/>; the
    /// sample's message echo joins fragments in the shared pool, which is not counted.</summary>
    public Uri? SpanNetty { get; }

    /// <summary>The pool under the servers' websockets.</summary>
    public CountingArrayPool Pool { get; }

    /// <summary>Starts both echo servers on free ports, accepting permessage-deflate as <see cref="SoakDeflate.Server"/>
    /// unless <paramref name="acceptDeflate"/> is false (for proving that a deflate transport without it fails).</summary>
    public static async Task<SoakServers> StartAsync(bool acceptDeflate = true, CancellationToken cancellationToken = default)
    {
        var pool = new CountingArrayPool();
        var options = new EchoServerOptions { Port = 0, Pool = pool, Deflate = acceptDeflate, DeflateOptions = SoakDeflate.Server };
        EchoServerHost plain = await EchoServerHost.StartAsync(options, cancellationToken).ConfigureAwait(false);
        EchoServerHost tls;
        try
        {
            tls = await EchoServerHost.StartAsync(options with { Tls = true }, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await plain.DisposeAsync().ConfigureAwait(false);
            throw;
        }

#if WITH_SPANNETTY
        Samples.SpanNettyEchoServer.SpanNettyEchoHost spanNetty;
        try
        {
            spanNetty = await Samples.SpanNettyEchoServer.SpanNettyEchoHost.StartAsync(new Samples.SpanNettyEchoServer.SpanNettyEchoOptions
            {
                Port = 0,
                Codec = "ours",
                Session = options.Session,
            }).ConfigureAwait(false);
        }
        catch
        {
            await plain.DisposeAsync().ConfigureAwait(false);
            await tls.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        return new SoakServers(plain.Url, tls.Url, pool, async () =>
        {
            await plain.DisposeAsync().ConfigureAwait(false);
            await tls.DisposeAsync().ConfigureAwait(false);
            await spanNetty.DisposeAsync().ConfigureAwait(false);
        }, spanNetty.Url);
#else
        return new SoakServers(plain.Url, tls.Url, pool, async () =>
        {
            await plain.DisposeAsync().ConfigureAwait(false);
            await tls.DisposeAsync().ConfigureAwait(false);
        });
#endif
    }

    /// <summary>For proving the soak can fail: echo servers that change one byte of every <paramref name="corruptEvery"/>-th
    /// binary message they echo (per websocket).</summary>
    public static async Task<SoakServers> StartCorruptingAsync(int corruptEvery, CancellationToken cancellationToken = default)
    {
        var pool = new CountingArrayPool();
        WebApplication plain = Corrupting(pool, tls: false, corruptEvery);
        WebApplication tls = Corrupting(pool, tls: true, corruptEvery);
        await plain.StartAsync(cancellationToken).ConfigureAwait(false);
        await tls.StartAsync(cancellationToken).ConfigureAwait(false);
        static Uri Echo(WebApplication app) => new UriBuilder(SampleHosting.BaseUrl(app))
        {
            Scheme = SampleHosting.BaseUrl(app).Scheme == "https" ? "wss" : "ws",
            Path = EchoServerHost.EchoPath,
        }.Uri;
        return new SoakServers(Echo(plain), Echo(tls), pool, async () =>
        {
            await plain.StopAsync().ConfigureAwait(false);
            await plain.DisposeAsync().ConfigureAwait(false);
            await tls.StopAsync().ConfigureAwait(false);
            await tls.DisposeAsync().ConfigureAwait(false);
        });
    }

    /// <summary>Stops both servers.</summary>
    public ValueTask DisposeAsync() => _dispose();

    private static WebApplication Corrupting(CountingArrayPool pool, bool tls, int corruptEvery)
    {
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls).Build();
        var session = new WebSocketSessionOptions { Pool = pool };
        app.MapWebSocket(EchoServerHost.EchoPath, (_, sender) =>
        {
            int binary = 0;
            return new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, type, payload) =>
            {
                if (type == System.Net.WebSockets.WebSocketMessageType.Binary && payload.Length > 0 && ++binary % corruptEvery == 0)
                {
                    byte[] changed = payload.ToArray();
                    changed[changed.Length / 2] ^= 0x20;
                    s.Send(WebSocketOpcode.Binary, changed);
                    return;
                }

                s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);
            }, pool);
        }, o =>
        {
            o.Session = session;
            o.Deflate = SoakDeflate.Server;
        });
        return app;
    }
}
