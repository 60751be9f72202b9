using Akka.Actor;

namespace WebSocketCodec.Akka.PingPong;

/// <summary>Replies to every message with the message itself (deployed in the second system).</summary>
public sealed class EchoActor : UntypedActor
{
    /// <inheritdoc />
    protected override void OnReceive(object message) => Sender.Tell(message);
}

/// <summary>One client: on <see cref="PingClient.Start"/> it sends <c>window</c> messages to its echo actor, then one
/// more for each reply until it has sent <c>roundTrips</c>; it completes its task when every reply is in.</summary>
public sealed class PingClient : UntypedActor
{
    /// <summary>The message that starts a client.</summary>
    public static readonly object Start = new StartMessage();

    private const string Ping = "hit";
    private readonly IActorRef _echo;
    private readonly int _roundTrips;
    private readonly int _window;
    private readonly TaskCompletionSource _done;
    private int _sent;
    private int _received;

    /// <summary>A client of <paramref name="echo"/>.</summary>
    public PingClient(IActorRef echo, int roundTrips, int window, TaskCompletionSource done)
    {
        _echo = echo;
        _roundTrips = roundTrips;
        _window = window;
        _done = done;
    }

    /// <inheritdoc />
    protected override void OnReceive(object message)
    {
        if (message is StartMessage)
        {
            for (int i = 0; i < _window && _sent < _roundTrips; i++)
            {
                _sent++;
                _echo.Tell(Ping, Self);
            }

            return;
        }

        _received++;
        if (_sent < _roundTrips)
        {
            _sent++;
            _echo.Tell(message, Self);
        }
        else if (_received == _roundTrips)
        {
            _done.TrySetResult();
        }
    }

    private sealed class StartMessage;
}
