using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary>Remote deployment over the websocket transport: Props with a RemoteScope create the actor on the other
/// system.</summary>
public sealed class RemoteDeploymentTests : TwoNodeSpec
{
    [Fact]
    public void An_actor_deployed_with_a_RemoteScope_runs_on_the_other_system()
    {
        Address server = ServerAddress;

        IActorRef deployed = Sys.ActorOf(Props.Create<SystemNameReply>().WithDeploy(new Deploy(new RemoteScope(server))), "deployed");
        deployed.Tell("where are you?", TestActor);

        Assert.Equal(server, deployed.Path.Address);
        Assert.Equal("server", ExpectMsg<string>(TimeSpan.FromSeconds(15)));
    }

    /// <summary>Answers every message with the name of the actor system it runs in.</summary>
    private sealed class SystemNameReply : ReceiveActor
    {
        public SystemNameReply() => ReceiveAny(_ => Sender.Tell(Context.System.Name));
    }
}
