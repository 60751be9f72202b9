using System.Net;
using Akka.Actor;
using Akka.Cluster;
using Akka.Cluster.Hosting;
using Akka.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using ClusterExtension = Akka.Cluster.Cluster;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>
/// A cluster set up through Akka.Hosting alone (no HOCON): <c>WithWebSocketRemoting</c> and Akka.Cluster.Hosting's
/// <c>WithClustering</c> on three hosts: two self-hosted (one sending over HTTP/2) and one in endpoint mode, inside an
/// ASP.NET Core application on its own port. The three see each other up and ask each other's actors. Over TLS, two
/// nodes with a PKCS#12 file ask each other.
/// </summary>
public sealed class AkkaHostingClusterTests : IAsyncLifetime
{
    private readonly List<IHost> _hosts = [];

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        foreach (IHost host in _hosts)
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(15));
            await host.StopAsync(timeout.Token);
            host.Dispose();
        }
    }

    [Fact]
    public async Task Three_hosts_form_a_cluster_over_websockets_and_ask_each_other()
    {
        int seedPort = FreePorts.Next();
        string seed = $"akka.ws://cluster@127.0.0.1:{seedPort}";
        var clustering = new ClusterOptions { SeedNodes = [seed] };

        IHost first = await StartAsync(Host.CreateApplicationBuilder(), akka => akka
            .WithWebSocketRemoting(new WebSocketRemotingOptions { HostName = "127.0.0.1", Port = seedPort })
            .WithClustering(clustering));
        IHost second = await StartAsync(Host.CreateApplicationBuilder(), akka => akka
            .WithClustering(clustering) // either order
            .WithWebSocketRemoting(options =>
            {
                options.HostName = "127.0.0.1";
                options.Http2 = true;
            }));
        int applicationPort = FreePorts.Next();
        IHost third = await StartEndpointNodeAsync(applicationPort, clustering);

        ActorSystem[] systems = [.. new[] { first, second, third }.Select(host => host.Services.GetRequiredService<ActorSystem>())];
        Assert.Equal($"akka.ws://cluster@127.0.0.1:{applicationPort}", Nodes.AddressOf(systems[2]).ToString());
        try
        {
            // Akka's own join retries (seed-node-timeout 5 s) bound this; dotnet test runs the projects side by side.
            await Eventually.True(
                () => systems.All(system => ClusterExtension.Get(system).State.Members.Count(m => m.Status == MemberStatus.Up) == 3),
                TimeSpan.FromSeconds(45));
        }
        catch (TimeoutException timeout)
        {
            string seen = string.Join("; ", systems.Select(system => $"{Nodes.AddressOf(system).Port}: "
                + string.Join(", ", ClusterExtension.Get(system).State.Members.Select(m => $"{m.Address.Port} {m.Status}"))));
            throw new TimeoutException($"{timeout.Message} (members seen: {seen})", timeout);
        }

        foreach (ActorSystem system in systems)
        {
            system.ActorOf(Props.Create<Echo>(), "echo");
        }

        foreach (ActorSystem from in systems)
        {
            foreach (ActorSystem to in systems.Where(to => to != from))
            {
                string message = $"{Nodes.AddressOf(from).Port} to {Nodes.AddressOf(to).Port}";
                Assert.Equal(message, await AskAsync(from, to, message));
            }
        }
    }

    [Fact]
    public async Task Two_hosts_ask_each_other_over_TLS_with_a_PKCS12_file()
    {
        using PfxFile pfx = PfxFile.Create();
        var tls = new WebSocketRemotingTlsOptions { CertificatePath = pfx.Path, CertificatePassword = pfx.Password, SuppressValidation = true };
        IHost server = await StartAsync(Host.CreateApplicationBuilder(), akka => akka.WithWebSocketRemoting(o => { o.HostName = "127.0.0.1"; o.Tls = tls; }), "server");
        IHost client = await StartAsync(Host.CreateApplicationBuilder(), akka => akka.WithWebSocketRemoting(o => { o.HostName = "127.0.0.1"; o.Tls = tls; }), "client");
        ActorSystem serverSystem = server.Services.GetRequiredService<ActorSystem>();
        ActorSystem clientSystem = client.Services.GetRequiredService<ActorSystem>();
        serverSystem.ActorOf(Props.Create<Echo>(), "echo");

        Address address = Nodes.AddressOf(serverSystem);
        Assert.Equal("akka.wss", address.Protocol);
        Assert.Equal("over TLS", await AskAsync(clientSystem, serverSystem, "over TLS"));
    }

    [Fact]
    public async Task Endpoint_mode_without_a_port_fails_the_start_and_says_which_option_to_set()
    {
        // Akka.Hosting starts the actor system before the application binds: the port cannot be taken from it.
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0));
        builder.Services.AddAkkaRemoting();
        builder.Services.AddAkka("portless", (akka, services) => akka
            .WithWebSocketRemoting(new WebSocketRemotingOptions { HostName = "127.0.0.1", ApplicationServices = services }));
        await using WebApplication app = builder.Build();
        app.MapAkkaRemoting();

        Exception failed = await Assert.ThrowsAnyAsync<Exception>(() => app.StartAsync());
        Assert.Contains("WebSocketRemotingOptions.Port", failed.ToString(), StringComparison.Ordinal);
    }

    /// <summary>Asks <paramref name="to"/>'s echo from <paramref name="from"/>, again while no answer comes within 2 s:
    /// remoting is at most once, and a message sent while two new nodes settle their associations (both sides opening
    /// one at once) can be dropped with the association that loses, and its address gated for a while (5 s by default).</summary>
    private static async Task<string> AskAsync(ActorSystem from, ActorSystem to, string message)
    {
        ActorSelection echo = from.ActorSelection(new RootActorPath(Nodes.AddressOf(to)) / "user" / "echo");
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return await echo.Ask<string>(message, TimeSpan.FromSeconds(2));
            }
            catch (AskTimeoutException) when (attempt < 15)
            {
            }
        }
    }

    private async Task<IHost> StartAsync(HostApplicationBuilder builder, Action<AkkaConfigurationBuilder> akka, string name = "cluster")
    {
        builder.Logging.ClearProviders();
        builder.Services.AddAkka(name, akka);
        IHost host = builder.Build();
        _hosts.Add(host);
        await host.StartAsync();
        return host;
    }

    /// <summary>Endpoint mode: the node's remoting on an ASP.NET Core application's port, set up by Akka.Hosting with
    /// the application's services.</summary>
    private async Task<IHost> StartEndpointNodeAsync(int port, ClusterOptions clustering)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, port));
        builder.Services.AddAkkaRemoting();
        builder.Services.AddAkka("cluster", (akka, services) => akka
            .WithWebSocketRemoting(new WebSocketRemotingOptions { HostName = "127.0.0.1", Port = port, ApplicationServices = services })
            .WithClustering(clustering));
        WebApplication app = builder.Build();
        app.MapAkkaRemoting();
        _hosts.Add(app);
        await app.StartAsync();
        return app;
    }
}
