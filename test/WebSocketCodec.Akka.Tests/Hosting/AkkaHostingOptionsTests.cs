using Akka.Actor;
using Akka.Cluster.Hosting;
using Akka.Configuration;
using Akka.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary><c>WithWebSocketRemoting</c>'s options as the HOCON the transport reads: every option set becomes its key,
/// the transport is enabled alone, the provider is remote unless clustering chose cluster, bad values are refused when
/// configured (not when the host starts), and what HOCON cannot carry goes into the setup.</summary>
public sealed class AkkaHostingOptionsTests
{
    [Fact]
    public void Every_option_becomes_its_key_under_akka_remote_websocket()
    {
        AkkaConfigurationBuilder builder = Builder().WithWebSocketRemoting(new WebSocketRemotingOptions
        {
            HostName = "10.0.0.5",
            Port = 4053,
            PublicHostName = "node-1.example",
            PublicPort = 443,
            Path = "/remoting \"v2\"",
            Http2 = true,
            Tls = new WebSocketRemotingTlsOptions { CertificatePath = "C:\\certs\\node.pfx", CertificatePassword = "p\"w\\d", SuppressValidation = true },
            MaximumFrameSize = 256_000,
            ConnectionTimeout = TimeSpan.FromSeconds(7),
            OutboundHighWaterMark = 8 << 20,
            OutboundLowWaterMark = 1 << 20,
            KeepAliveInterval = TimeSpan.Zero,
            KeepAliveTimeout = TimeSpan.FromMilliseconds(1500),
            CloseTimeout = TimeSpan.FromSeconds(2),
        });

        Config config = builder.Configuration.Value;
        Assert.Equal(["akka.remote.websocket"], config.GetStringList("akka.remote.enabled-transports"));
        Config websocket = config.GetConfig("akka.remote.websocket");
        Assert.Equal("WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka", websocket.GetString("transport-class"));
        Assert.Equal("10.0.0.5", websocket.GetString("hostname"));
        Assert.Equal(4053, websocket.GetInt("port"));
        Assert.Equal("node-1.example", websocket.GetString("public-hostname"));
        Assert.Equal(443, websocket.GetInt("public-port"));
        Assert.Equal("/remoting \"v2\"", websocket.GetString("path"));
        Assert.True(websocket.GetBoolean("http2"));
        Assert.True(websocket.GetBoolean("tls.enabled"));
        Assert.Equal("C:\\certs\\node.pfx", websocket.GetString("tls.certificate.path"));
        Assert.Equal("p\"w\\d", websocket.GetString("tls.certificate.password"));
        Assert.True(websocket.GetBoolean("tls.suppress-validation"));
        Assert.Equal(256_000, websocket.GetByteSize("maximum-frame-size"));
        Assert.Equal(TimeSpan.FromSeconds(7), websocket.GetTimeSpan("connection-timeout"));
        Assert.Equal(8 << 20, websocket.GetByteSize("outbound-high-water-mark"));
        Assert.Equal(1 << 20, websocket.GetByteSize("outbound-low-water-mark"));
        Assert.Equal(TimeSpan.Zero, websocket.GetTimeSpan("keep-alive-interval"));
        Assert.Equal(TimeSpan.FromMilliseconds(1500), websocket.GetTimeSpan("keep-alive-timeout"));
        Assert.Equal(TimeSpan.FromSeconds(2), websocket.GetTimeSpan("close-timeout"));
        Assert.IsType<ProviderSelection.Remote>(builder.ActorRefProvider.Value);
        Assert.DoesNotContain(builder.Setups, setup => setup is WebSocketRemotingSetup); // nothing HOCON cannot say
    }

    [Fact]
    public void Options_left_unset_keep_what_the_configuration_says()
    {
        AkkaConfigurationBuilder builder = Builder()
            .AddHocon("akka.remote.websocket { port = 5000, close-timeout = 9s }", HoconAddMode.Prepend)
            .WithWebSocketRemoting(options => options.HostName = "127.0.0.1");

        Config websocket = builder.Configuration.Value.GetConfig("akka.remote.websocket");
        Assert.Equal("127.0.0.1", websocket.GetString("hostname"));
        Assert.Equal(5000, websocket.GetInt("port"));
        Assert.Equal(TimeSpan.FromSeconds(9), websocket.GetTimeSpan("close-timeout"));
        Assert.False(websocket.HasPath("tls.enabled")); // reference.conf's default (off) applies in the transport
    }

    [Fact]
    public void Clustering_keeps_the_cluster_provider_before_or_after()
    {
        var clustering = new ClusterOptions { SeedNodes = ["akka.ws://cluster@127.0.0.1:4053"] };
        AkkaConfigurationBuilder before = Builder().WithClustering(clustering).WithWebSocketRemoting(_ => { });
        AkkaConfigurationBuilder after = Builder().WithWebSocketRemoting(_ => { }).WithClustering(clustering);

        Assert.IsType<ProviderSelection.Cluster>(before.ActorRefProvider.Value);
        Assert.IsType<ProviderSelection.Cluster>(after.ActorRefProvider.Value);
        Assert.Equal(["akka.remote.websocket"], after.Configuration.Value.GetStringList("akka.remote.enabled-transports"));
    }

    [Fact]
    public void What_HOCON_cannot_carry_goes_into_the_setup_once()
    {
        using var certificate = WebSocketCodec.Samples.EchoServer.SelfSignedCertificate.Create();
        var services = new ServiceCollection().BuildServiceProvider();
        AkkaConfigurationBuilder builder = Builder()
            .WithWebSocketRemoting(options => options.ApplicationServices = new ServiceCollection().BuildServiceProvider())
            .WithWebSocketRemoting(options =>
            {
                options.ApplicationServices = services;
                options.Tls = new WebSocketRemotingTlsOptions { Certificate = certificate };
            });

        WebSocketRemotingSetup setup = Assert.Single(builder.Setups.OfType<WebSocketRemotingSetup>());
        Assert.Same(services, setup.Services);
        Assert.Same(certificate, setup.ServerCertificate);
        Assert.True(builder.Configuration.Value.GetBoolean("akka.remote.websocket.tls.enabled"));
    }

    [Theory]
    [InlineData("water marks")]
    [InlineData("frame size")]
    [InlineData("port")]
    [InlineData("duration")]
    public void Bad_options_are_refused_when_configured(string bad)
    {
        var options = new WebSocketRemotingOptions();
        switch (bad)
        {
            case "water marks":
                options.OutboundHighWaterMark = 1 << 20;
                options.OutboundLowWaterMark = 2 << 20;
                break;
            case "frame size":
                options.MaximumFrameSize = 1000;
                break;
            case "port":
                options.Port = 70000;
                break;
            default:
                options.CloseTimeout = TimeSpan.FromSeconds(-1);
                break;
        }

        ConfigurationException refused = Assert.Throws<ConfigurationException>(() => Builder().WithWebSocketRemoting(options));
        Assert.Contains("akka.remote.websocket", refused.Message, StringComparison.Ordinal);
    }

    private static AkkaConfigurationBuilder Builder() => new(new ServiceCollection(), "options");
}
