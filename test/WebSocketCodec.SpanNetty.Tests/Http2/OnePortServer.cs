using System.Net;
using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>A SpanNetty server on a free loopback port serving HTTP/1.1 websockets (our upgrade handler, message echo at
/// <c>/ws</c>) and HTTP/2 (<see cref="OnePortGetResponder"/>) on one port: in cleartext behind
/// <see cref="Http2PriorKnowledgeDetector"/>, with a certificate behind <see cref="SslStreamHandler"/> and
/// <see cref="AlpnProtocolSelector"/>. Counts the connections each side took.</summary>
internal sealed class OnePortServer : IAsyncDisposable
{
    private readonly IChannel _bound;
    private readonly List<IChannel> _children;
    private int _http1;
    private int _http2;

    private OnePortServer(IChannel bound, List<IChannel> children)
    {
        _bound = bound;
        _children = children;
    }

    public int Port => ((IPEndPoint)_bound.LocalAddress).Port;

    public IPEndPoint EndPoint => new(IPAddress.Loopback, Port);

    /// <summary>Connections handed to the HTTP/1.1 pipeline.</summary>
    public int Http1Connections => Volatile.Read(ref _http1);

    /// <summary>Connections handed to the HTTP/2 pipeline.</summary>
    public int Http2Connections => Volatile.Read(ref _http2);

    public static async Task<OnePortServer> StartAsync(X509Certificate2? certificate = null, TimeSpan? detectionTimeout = null)
    {
        var children = new List<IChannel>();
        OnePortServer? server = null;
        IChannel bound = await new ServerBootstrap()
            .Group(CallbacksServer.Loops)
            .Channel<TcpServerSocketChannel>()
            .ChildOption(ChannelOption.TcpNodelay, true)
            .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
            {
                lock (children)
                {
                    children.Add(channel);
                }

                server!.Configure(channel.Pipeline, certificate, detectionTimeout);
            }))
            .BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
        server = new OnePortServer(bound, children);
        return server;
    }

    /// <summary>A throwaway certificate for localhost and 127.0.0.1.</summary>
    public static X509Certificate2 CreateCertificate()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        using X509Certificate2 made = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1));
        return X509CertificateLoader.LoadPkcs12(made.Export(X509ContentType.Pkcs12), null);
    }

    private void Configure(IChannelPipeline pipeline, X509Certificate2? certificate, TimeSpan? detectionTimeout)
    {
        if (certificate is null)
        {
            pipeline.AddLast("detect", new Http2PriorKnowledgeDetector(Http1, Http2, detectionTimeout));
            return;
        }

        pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
        {
            ServerCertificate = certificate,
            ApplicationProtocols = [.. AlpnProtocolSelector.ApplicationProtocols],
        }));
        pipeline.AddLast("alpn", new AlpnProtocolSelector(Http1, Http2));
    }

    private void Http1(IChannelPipeline pipeline)
    {
        Interlocked.Increment(ref _http1);
        pipeline.AddLast("upgrade", new WebSocketServerUpgradeHandler("/ws", sender => EchoCallbacks.Messages(sender)));
    }

    private void Http2(IChannelPipeline pipeline)
    {
        Interlocked.Increment(ref _http2);
        OnePortGetResponder.Configure(pipeline);
    }

    public async ValueTask DisposeAsync()
    {
        IChannel[] children;
        lock (_children)
        {
            children = [.. _children];
        }

        await Task.WhenAll(children.Select(child => child.CloseAsync()));
        await _bound.CloseAsync();
    }
}
