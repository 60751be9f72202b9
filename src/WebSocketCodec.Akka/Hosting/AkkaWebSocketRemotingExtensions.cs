using Akka.Actor;
using Akka.Configuration;
using Akka.Hosting;

namespace WebSocketCodec.Akka;

/// <summary>Akka.Hosting set-up of the websocket transport: reach for it when the actor system is built with
/// Akka.Hosting, instead of writing HOCON.</summary>
/// <remarks>Call <c>services.AddAkka("name", builder =&gt; builder.WithWebSocketRemoting(options))</c>, then
/// <c>WithClustering(...)</c> of Akka.Cluster.Hosting on top for a cluster. No HOCON to write; what HOCON cannot carry
/// (a certificate object, client TLS options, an application's services) goes into the actor system's setup.</remarks>
public static class AkkaWebSocketRemotingExtensions
{
    /// <summary>Enables Akka.Remote on the websocket transport (and only on it) with these settings.</summary>
    /// <param name="builder">The actor system's Akka.Hosting builder.</param>
    /// <param name="configure">Sets the transport's options (every one has a default).</param>
    /// <returns>The builder.</returns>
    public static AkkaConfigurationBuilder WithWebSocketRemoting(
        this AkkaConfigurationBuilder builder, Action<WebSocketRemotingOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        var options = new WebSocketRemotingOptions();
        configure(options);
        return builder.WithWebSocketRemoting(options);
    }

    /// <summary>Enables Akka.Remote on the websocket transport (and only on it) with these settings: the actor
    /// reference provider becomes remote unless it is cluster already (<c>WithClustering</c> may come before or after).</summary>
    /// <param name="builder">The actor system's Akka.Hosting builder.</param>
    /// <param name="options">The transport's options; null ones keep the configuration's values or the defaults.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ConfigurationException">An option is out of range (the same checks as the transport's).</exception>
    public static AkkaConfigurationBuilder WithWebSocketRemoting(this AkkaConfigurationBuilder builder, WebSocketRemotingOptions options)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(options);
        Config hocon = WebSocketRemotingHocon.From(options);
        // The checks the transport makes when Akka starts it, now, on what these options set over the defaults.
        _ = new WebSocketTransportSettings(hocon.GetConfig("akka.remote.websocket"));
        builder.AddHocon(hocon, HoconAddMode.Prepend);

        WebSocketRemotingSetup? setup = SetupOf(options);
        if (setup is not null)
        {
            builder.Setups.RemoveWhere(existing => existing is WebSocketRemotingSetup);
            builder.AddSetup(setup);
        }

        if (!builder.ActorRefProvider.HasValue || builder.ActorRefProvider.Value is not ProviderSelection.Cluster)
        {
            builder.WithActorRefProvider(ProviderSelection.Remote.Instance);
        }

        return builder;
    }

    private static WebSocketRemotingSetup? SetupOf(WebSocketRemotingOptions options) =>
        options.ApplicationServices is null && options.Tls?.Certificate is null && options.Tls?.ClientAuthentication is null
            && options.Tls?.ClientCertificate is null
            ? null
            : new WebSocketRemotingSetup
            {
                Services = options.ApplicationServices,
                ServerCertificate = options.Tls?.Certificate,
                ClientTls = options.Tls?.ClientAuthentication,
                ClientCertificate = options.Tls?.ClientCertificate,
            };
}
