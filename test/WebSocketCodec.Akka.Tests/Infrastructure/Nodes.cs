using Akka.Actor;
using Akka.Configuration;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>Actor systems whose remoting runs on the websocket transport, on 127.0.0.1 and a free port.</summary>
public static class Nodes
{
    /// <summary>Akka.Cluster with short gossip, leader and registry intervals, so cluster tests take seconds.</summary>
    public const string FastCluster = """
        akka.actor.provider = cluster
        akka.cluster {
          periodic-tasks-initial-delay = 100ms
          gossip-interval = 200ms
          leader-actions-interval = 200ms
          pub-sub.gossip-interval = 200ms
        }
        akka.remote.retry-gate-closed-for = 200ms

        """;

    /// <summary>The HOCON of a node; <paramref name="websocket"/> adds keys under akka.remote.websocket.</summary>
    public static Config Config(string websocket = "", string extra = "") => ConfigurationFactory.ParseString($$"""
        akka {
          loglevel = WARNING
          stdout-loglevel = WARNING
          log-dead-letters = off
          log-dead-letters-during-shutdown = off
          actor.provider = remote
          remote {
            enabled-transports = ["akka.remote.websocket"]
            websocket {
              transport-class = "WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka"
              hostname = "127.0.0.1"
              port = 0
              {{websocket}}
            }
          }
        }
        {{extra}}
        """);

    /// <summary>Starts an actor system named <paramref name="name"/> on the transport.</summary>
    public static ActorSystem Start(string name, string websocket = "", string extra = "", WebSocketRemotingSetup? setup = null)
    {
        BootstrapSetup bootstrap = BootstrapSetup.Create().WithConfig(Config(websocket, extra));
        return setup is null ? ActorSystem.Create(name, bootstrap) : ActorSystem.Create(name, bootstrap.And(setup));
    }

    /// <summary>The node's own address (akka.ws://name@127.0.0.1:port).</summary>
    public static Address AddressOf(ActorSystem system) => ((ExtendedActorSystem)system).Provider.DefaultAddress;
}

/// <summary>Answers every message with itself.</summary>
public sealed class Echo : ReceiveActor
{
    public Echo() => ReceiveAny(message => Sender.Tell(message));
}
