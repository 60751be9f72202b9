using System.Net;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace WebSocketCodec.AspNetCore;

/// <summary>HTTP/1.1 and HTTP/2 prior knowledge (h2c) on one cleartext port: reach for it when cleartext clients of
/// both protocols (HTTP/1.1 upgrades, and <c>ws://</c> websockets over HTTP/2) must reach the same port.</summary>
/// <remarks>Kestrel alone picks HTTP/1.1 on a cleartext <c>Http1AndHttp2</c> endpoint and answers the HTTP/2 preface
/// with GOAWAY HTTP_1_1_REQUIRED; here one socket feeds two Kestrel endpoints, an HTTP/1.1 one and an HTTP/2-only one,
/// each connection sorted by its first bytes. With TLS none of this is needed: use <c>HttpProtocols.Http1AndHttp2</c>
/// and ALPN.</remarks>
public static class SharedPortExtensions
{
    /// <summary>Registers the listener factory that binds <see cref="ListenHttp1AndH2c"/> endpoints.</summary>
    public static IServiceCollection AddHttp2PriorKnowledgeDetection(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IConnectionListenerFactory, SharedPortListenerFactory>());
        return services;
    }

    /// <summary>
    /// Listens on <paramref name="endPoint"/> for HTTP/1.1 (with its upgrades) and HTTP/2 prior knowledge alike.
    /// Needs <see cref="AddHttp2PriorKnowledgeDetection"/>. <paramref name="configure"/> runs on both endpoints
    /// (after their <see cref="ListenOptions.Protocols"/> are set) and must not add TLS. A connection that has not sent
    /// enough bytes to tell the protocols apart within <paramref name="detectionTimeout"/> (default 10 s) is closed,
    /// as are connections beyond <paramref name="maxPendingDetections"/> still undecided.
    /// </summary>
    public static KestrelServerOptions ListenHttp1AndH2c(
        this KestrelServerOptions kestrel, IPEndPoint endPoint, Action<ListenOptions>? configure = null,
        TimeSpan? detectionTimeout = null, int maxPendingDetections = 1024)
    {
        ArgumentNullException.ThrowIfNull(kestrel);
        ArgumentNullException.ThrowIfNull(endPoint);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxPendingDetections);
        var socket = new SharedPortSocket(endPoint, detectionTimeout ?? TimeSpan.FromSeconds(10), maxPendingDetections);
        foreach (HttpProtocols protocol in (ReadOnlySpan<HttpProtocols>)[HttpProtocols.Http1, HttpProtocols.Http2])
        {
            kestrel.Listen(new SharedPortEndPoint(socket, protocol), listen =>
            {
                listen.Protocols = protocol;
                configure?.Invoke(listen);
            });
        }

        return kestrel;
    }

    /// <summary>
    /// Serves HTTP/1.1 (with its upgrades) and HTTP/2 (with extended CONNECT) on one port: with
    /// <paramref name="certificate"/>, over TLS with ALPN offering h2 and http/1.1; without, in cleartext through
    /// <see cref="ListenHttp1AndH2c"/> (which needs <see cref="AddHttp2PriorKnowledgeDetection"/>).
    /// </summary>
    public static KestrelServerOptions ListenHttp1AndHttp2(this KestrelServerOptions kestrel, IPEndPoint endPoint, X509Certificate2? certificate = null)
    {
        ArgumentNullException.ThrowIfNull(kestrel);
        ArgumentNullException.ThrowIfNull(endPoint);
        if (certificate is null)
        {
            return kestrel.ListenHttp1AndH2c(endPoint);
        }

        kestrel.Listen(endPoint, listen =>
        {
            listen.Protocols = HttpProtocols.Http1AndHttp2;
            listen.UseHttps(certificate);
        });
        return kestrel;
    }
}
