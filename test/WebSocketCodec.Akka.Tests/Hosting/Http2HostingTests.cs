using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>HTTP/2 (<c>http2 = on</c>): three actor systems served by one ASP.NET Core application on one port,
/// dispatched by the system name in the path; a client that associates with all three opens one TCP connection and
/// one HTTP/2 stream per association.</summary>
public sealed class Http2HostingTests : IAsyncLifetime
{
    private static readonly string[] Names = ["alpha", "beta", "gamma"];
    private RemotingApp _app = null!;
    private ActorSystem _client = null!;

    public async Task InitializeAsync()
    {
        _app = await RemotingApp.StartAsync();
        foreach (string name in Names)
        {
            _app.StartSystem(name).ActorOf(Props.Create<NameEcho>(), "echo");
        }

        _client = Nodes.Start("client", websocket: "http2 = on");
    }

    public async Task DisposeAsync()
    {
        await _client.Terminate();
        await _app.DisposeAsync();
    }

    [Fact]
    public async Task A_client_reaches_three_systems_on_one_port_over_one_connection_and_three_streams()
    {
        // All three at once: the associations race to open the connection, and still share one.
        string[] answers = await Task.WhenAll(Names.Select(name =>
            _client.ActorSelection(new RootActorPath(new Address("akka.ws", name, "127.0.0.1", _app.Port)) / "user" / "echo")
                .Ask<string>("hello", TimeSpan.FromSeconds(10))));

        Assert.Equal(Names.Select(name => $"{name}: hello"), answers); // the system named in the path answered

        SeenRequest[] associations = [.. _app.Requests.Where(request => request.Path.StartsWithSegments("/akka"))];
        Assert.Equal(["/akka/alpha", "/akka/beta", "/akka/gamma"], associations.Select(request => request.Path.Value).Order());
        Assert.All(associations, request => Assert.Equal("HTTP/2", request.Protocol));
        Assert.Single(associations.Select(request => request.ConnectionId).Distinct());
        Assert.Equal(1, _app.AcceptedConnections);
    }

    /// <summary>Answers with its actor system's name and the message.</summary>
    private sealed class NameEcho : ReceiveActor
    {
        public NameEcho() => Receive<string>(message => Sender.Tell($"{Context.System.Name}: {message}"));
    }
}
