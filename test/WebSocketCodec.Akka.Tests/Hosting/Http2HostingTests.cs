using System.Security.Cryptography.X509Certificates;
using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>HTTP/2 (<c>http2 = on</c>): three actor systems served by one ASP.NET Core application on one port,
/// dispatched by the system name in the path; a client that associates with all three opens one TCP connection and
/// one HTTP/2 stream per association, in cleartext (h2c prior knowledge) and over TLS (ALPN h2).</summary>
public sealed class Http2HostingTests
{
    private static readonly string[] Names = ["alpha", "beta", "gamma"];

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_client_reaches_three_systems_on_one_port_over_one_connection_and_three_streams(bool tls)
    {
        using PfxFile pfx = PfxFile.Create();
        using X509Certificate2 certificate = X509CertificateLoader.LoadPkcs12FromFile(pfx.Path, pfx.Password);
        string websocket = tls ? pfx.Hocon : "";
        await using RemotingApp app = await RemotingApp.StartAsync(certificate: tls ? certificate : null);
        foreach (string name in Names)
        {
            app.StartSystem(name, websocket).ActorOf(Props.Create<NameEcho>(), "echo");
        }

        ActorSystem client = Nodes.Start("client", websocket + "\nhttp2 = on");
        try
        {
            // All three at once: the associations race to open the connection, and still share one.
            string scheme = tls ? "akka.wss" : "akka.ws";
            string[] answers = await Task.WhenAll(Names.Select(name =>
                client.ActorSelection(new RootActorPath(new Address(scheme, name, "127.0.0.1", app.Port)) / "user" / "echo")
                    .Ask<string>("hello", TimeSpan.FromSeconds(10))));

            Assert.Equal(Names.Select(name => $"{name}: hello"), answers); // the system named in the path answered
            SeenRequest[] associations = [.. app.Requests.Where(request => request.Path.StartsWithSegments("/akka"))];
            Assert.Equal(["/akka/alpha", "/akka/beta", "/akka/gamma"], associations.Select(request => request.Path.Value).Order());
            Assert.All(associations, request => Assert.Equal("HTTP/2", request.Protocol));
            Assert.Single(associations.Select(request => request.ConnectionId).Distinct());
            Assert.Equal(1, app.AcceptedConnections);
        }
        finally
        {
            await client.Terminate();
        }
    }

    /// <summary>Answers with its actor system's name and the message.</summary>
    private sealed class NameEcho : ReceiveActor
    {
        public NameEcho() => Receive<string>(message => Sender.Tell($"{Context.System.Name}: {message}"));
    }
}
