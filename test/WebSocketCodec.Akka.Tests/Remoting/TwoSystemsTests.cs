using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary>Two actor systems talk over the websocket transport.</summary>
public sealed class TwoSystemsTests : IAsyncLifetime
{
    private ActorSystem _server = null!;
    private ActorSystem _client = null!;

    public Task InitializeAsync()
    {
        _server = Nodes.Start("server");
        _client = Nodes.Start("client");
        return Task.CompletedTask;
    }

    public async Task DisposeAsync()
    {
        await _client.Terminate();
        await _server.Terminate();
    }

    [Fact]
    public async Task An_actor_selection_and_ask_reach_the_other_system_over_ws()
    {
        Address server = Nodes.AddressOf(_server);
        Assert.Equal("akka.ws", server.Protocol);
        _server.ActorOf(Props.Create<Echo>(), "echo");

        string answer = await _client.ActorSelection(new RootActorPath(server) / "user" / "echo").Ask<string>("hello", TimeSpan.FromSeconds(10));

        Assert.Equal("hello", answer);
    }
}
