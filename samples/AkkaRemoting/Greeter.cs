using Akka.Actor;

namespace WebSocketCodec.Samples.AkkaRemoting;

/// <summary>The server's actor (<c>/user/greeter</c>): answers every text with who answered and the text.</summary>
public sealed class Greeter : ReceiveActor
{
    /// <summary>The actor's name under /user.</summary>
    public const string Name = "greeter";

    /// <summary>Creates the actor.</summary>
    public Greeter() => Receive<string>(text => Sender.Tell($"{Context.System.Name} got '{text}'"));
}
