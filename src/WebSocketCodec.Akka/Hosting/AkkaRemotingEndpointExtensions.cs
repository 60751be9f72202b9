using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using WebSocketCodec.AspNetCore;

namespace WebSocketCodec.Akka;

/// <summary>Endpoint mode, Akka.Remote on an ASP.NET Core application's own port: reach for it when remoting should sit
/// beside the application's other endpoints, on its port and behind its TLS, rather than bind a Kestrel listener of its
/// own.</summary>
/// <remarks>Call <see cref="AddAkkaRemoting"/> on the services and <see cref="MapAkkaRemoting"/> on the application,
/// start it, then create the actor system with a <see cref="WebSocketRemotingSetup"/> holding the application's
/// services. Several actor systems may share one application: each is reached at <c>{path}/{system name}</c>.</remarks>
public static class AkkaRemotingEndpointExtensions
{
    /// <summary>Registers what <see cref="MapAkkaRemoting"/> and the transports of this application share.</summary>
    public static IServiceCollection AddAkkaRemoting(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.TryAddSingleton<AkkaRemotingHub>();
        return services;
    }

    /// <summary>Maps the websocket endpoint of Akka.Remote at <paramref name="path"/><c>/{system}</c> (HTTP/1.1 upgrades
    /// and HTTP/2 extended CONNECT). A request for an actor system this application does not serve gets 404. The
    /// application's Kestrel owns TLS here: for mutual TLS configure its HTTPS endpoint to ask for client certificates
    /// during the handshake (<c>ClientCertificateMode.RequireCertificate</c>) and to validate them (Kestrel rejects a
    /// certificate whose chain does not validate unless its <c>ClientCertificateValidation</c> says otherwise); an
    /// actor system with <c>tls.require-client-certificate = on</c> then also refuses, with 403, a websocket whose
    /// connection presented no client certificate (it checks that one is present, not its chain).</summary>
    /// <param name="endpoints">The application.</param>
    /// <param name="path">The transport's <c>path</c> setting (the same on every node).</param>
    /// <param name="configure">Adjusts the accept options; the session limits default to the transport's defaults
    /// (maximum-frame-size 128000b and the water marks of reference.conf).</param>
    public static IEndpointConventionBuilder MapAkkaRemoting(
        this IEndpointRouteBuilder endpoints, string path = "/akka", Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        AkkaRemotingHub hub = endpoints.ServiceProvider.GetService<AkkaRemotingHub>()
            ?? throw new InvalidOperationException("Call services.AddAkkaRemoting() before app.MapAkkaRemoting().");
        string normalized = "/" + path.Trim().Trim('/');
        hub.Path = normalized;
        WebSocketSessionOptions session = new WebSocketTransportSettings(null).SessionOptions();
        IEndpointConventionBuilder endpoint = endpoints.MapWebSocket(
            normalized + "/{" + AkkaRemotingHub.SystemRouteValue + "}",
            hub.RunAsync,
            options =>
            {
                options.Session = session;
                configure?.Invoke(options);
            });
        endpoint.Add(builder =>
        {
            RequestDelegate accept = builder.RequestDelegate!;
            builder.RequestDelegate = context =>
            {
                if (hub.Refusal(context) is not { } status)
                {
                    return accept(context);
                }

                context.Response.StatusCode = status;
                return Task.CompletedTask;
            };
        });
        return endpoint;
    }
}
