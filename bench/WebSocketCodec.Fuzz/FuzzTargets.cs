namespace WebSocketCodec.Fuzz;

/// <summary>The targets by name.</summary>
public static class FuzzTargets
{
    /// <summary>Every target name, in run order.</summary>
    public static readonly string[] Names = ["frames", "session", "http1", "h2connect", "h2response", "inflate", "negotiation", "http101", "akka"];

    /// <summary>A new target named <paramref name="name"/>.</summary>
    public static IFuzzTarget Create(string name) => name switch
    {
        "frames" => new FrameTarget(),
        "session" => new SessionTarget(),
        "http1" => new Http1Target(),
        "h2connect" => new ExtendedConnectTarget(),
        "h2response" => new ExtendedConnectResponseTarget(),
        "inflate" => new InflateTarget(),
        "negotiation" => new NegotiationTarget(),
        "http101" => new Http101Target(),
        "akka" => new AkkaTarget(),
        _ => throw new ArgumentException($"Unknown target '{name}': one of {string.Join(", ", Names)}.", nameof(name)),
    };
}
