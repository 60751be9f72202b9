using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// A TestKit whose own system (<c>Sys</c>, named client) and a second system (<see cref="Server"/>, named server) run
/// Akka.Remote over the websocket transport, each with <paramref name="websocket"/> under akka.remote.websocket and
/// <paramref name="extra"/> at the root. The server is terminated with the test.
/// </summary>
public abstract class TwoNodeSpec(string websocket = "", string extra = "", string serverWebsocket = "")
    : global::Akka.TestKit.Xunit2.TestKit(Nodes.Config(websocket, extra), "client")
{
    /// <summary>Short failure-detector pauses, so a dead node is noticed within a few seconds.</summary>
    public const string FastFailureDetection = """
        akka.remote {
          watch-failure-detector {
            heartbeat-interval = 200 ms
            acceptable-heartbeat-pause = 1 s
            expected-response-after = 200 ms
            unreachable-nodes-reaper-interval = 200 ms
          }
          retry-gate-closed-for = 200 ms
        }
        """;

    private ActorSystem? _server;

    /// <summary>The second node (started on first use).</summary>
    protected ActorSystem Server => _server ??= Nodes.Start("server", websocket + "\n" + serverWebsocket, extra);

    /// <summary>The server's address.</summary>
    protected Address ServerAddress => Nodes.AddressOf(Server);

    protected override void Dispose(bool disposing)
    {
        if (disposing && _server is not null)
        {
            _server.Terminate().Wait(TimeSpan.FromSeconds(20));
        }

        base.Dispose(disposing);
    }
}
