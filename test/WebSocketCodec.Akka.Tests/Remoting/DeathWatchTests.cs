using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary>Remote DeathWatch over the websocket transport: a watcher gets <see cref="Terminated"/> when the watched
/// actor's system shuts down, and when the connection to it is killed and stays down (the failure detector, with
/// pauses shortened for the test).</summary>
public sealed class DeathWatchTests() : TwoNodeSpec(extra: FastFailureDetection)
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Terminated_arrives_when_the_remote_system_shuts_down()
    {
        Server.ActorOf(Props.Create<Echo>(), "watched");
        IActorRef watched = await Sys.ActorSelection(new RootActorPath(ServerAddress) / "user" / "watched").ResolveOne(Wait);
        Watch(watched);

        await Server.Terminate().WaitAsync(Wait);

        ExpectTerminated(watched, Wait);
    }

    [Fact]
    public async Task Terminated_arrives_when_the_connection_is_killed_and_stays_down()
    {
        // The hidden node advertises the relay's port, so every association with it runs through the relay.
        int port = RawServers.ClosedPort();
        using var relay = new TcpRelay(port);
        ActorSystem hidden = Nodes.Start("hidden", $"port = {port}\npublic-port = {relay.Port}", FastFailureDetection);
        try
        {
            Address address = Nodes.AddressOf(hidden);
            Assert.Equal(relay.Port, address.Port);
            hidden.ActorOf(Props.Create<Echo>(), "watched");
            IActorRef watched = await Sys.ActorSelection(new RootActorPath(address) / "user" / "watched").ResolveOne(Wait);
            Watch(watched);
            watched.Tell("still there?", TestActor);
            ExpectMsg("still there?", Wait);
            Assert.True(relay.Accepted > 0);

            relay.Kill(); // both ends get RST, and reconnecting is refused from now on

            ExpectTerminated(watched, Wait);
        }
        finally
        {
            await hidden.Terminate().WaitAsync(Wait);
        }
    }
}
