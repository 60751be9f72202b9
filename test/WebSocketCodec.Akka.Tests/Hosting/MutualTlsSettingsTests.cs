using Akka.Actor;
using Akka.Configuration;
using Akka.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>The mutual TLS keys (<c>tls.require-client-certificate</c>, <c>tls.client-certificate</c>) as settings:
/// off and empty by default, rendered from <see cref="WebSocketRemotingTlsOptions"/> (the certificate object into the
/// setup), and refused when they cannot work.</summary>
public sealed class MutualTlsSettingsTests
{
    [Fact]
    public void Mutual_tls_is_off_by_default()
    {
        Config tls = WebSocketTransport.DefaultConfig.GetConfig("akka.remote.websocket.tls");

        Assert.False(tls.GetBoolean("require-client-certificate"));
        Assert.Equal("", tls.GetString("client-certificate.path"));
        Assert.Equal("", tls.GetString("client-certificate.password"));
    }

    [Fact]
    public void The_hosting_options_become_the_keys()
    {
        AkkaConfigurationBuilder builder = Builder().WithWebSocketRemoting(options => options.Tls = new WebSocketRemotingTlsOptions
        {
            CertificatePath = "/certs/node.pfx",
            RequireClientCertificate = true,
            ClientCertificatePath = "/certs/client \"1\".pfx",
            ClientCertificatePassword = "p\\w",
        });

        Config tls = builder.Configuration.Value.GetConfig("akka.remote.websocket.tls");
        Assert.True(tls.GetBoolean("enabled"));
        Assert.True(tls.GetBoolean("require-client-certificate"));
        Assert.Equal("/certs/client \"1\".pfx", tls.GetString("client-certificate.path"));
        Assert.Equal("p\\w", tls.GetString("client-certificate.password"));
        Assert.DoesNotContain(builder.Setups, setup => setup is WebSocketRemotingSetup);
    }

    [Fact]
    public void A_client_certificate_object_goes_into_the_setup()
    {
        using var certificate = WebSocketCodec.Samples.EchoServer.SelfSignedCertificate.Create();
        AkkaConfigurationBuilder builder = Builder().WithWebSocketRemoting(options => options.Tls = new WebSocketRemotingTlsOptions
        {
            CertificatePath = "/certs/node.pfx",
            ClientCertificate = certificate,
        });

        WebSocketRemotingSetup setup = Assert.Single(builder.Setups.OfType<WebSocketRemotingSetup>());
        Assert.Same(certificate, setup.ClientCertificate);
        Assert.Null(setup.ServerCertificate);
        Assert.False(builder.Configuration.Value.GetBoolean("akka.remote.websocket.tls.require-client-certificate"));
    }

    [Fact]
    public void Requiring_client_certificates_without_tls_is_refused()
    {
        ConfigurationException refused = Assert.Throws<ConfigurationException>(() => Transport("tls.require-client-certificate = on"));

        Assert.Contains("akka.remote.websocket.tls.require-client-certificate", refused.Message, StringComparison.Ordinal);
        Assert.Contains("tls.enabled", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_client_certificate_file_that_cannot_be_loaded_is_refused_when_the_transport_starts()
    {
        string missing = Path.Combine(Path.GetTempPath(), $"missing-{Guid.NewGuid():N}.pfx");

        ConfigurationException refused = Assert.Throws<ConfigurationException>(
            () => Transport($"tls {{ enabled = on, client-certificate.path = \"{missing.Replace("\\", "/", StringComparison.Ordinal)}\" }}"));

        Assert.Contains("akka.remote.websocket.tls.client-certificate", refused.Message, StringComparison.Ordinal);
    }

    private static AkkaConfigurationBuilder Builder() => new(new ServiceCollection(), "options");

    /// <summary>Creates the transport as Akka.Remote does, on a local actor system, with these keys under
    /// akka.remote.websocket.</summary>
    private static void Transport(string websocket)
    {
        using ActorSystem system = ActorSystem.Create("settings", "akka.loglevel = OFF");
        _ = new WebSocketTransport(system, ConfigurationFactory.ParseString(websocket));
    }
}
