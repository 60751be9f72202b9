using System.Buffers;

namespace WebSocketCodec.Samples.Chat;

/// <summary>How the chat server listens, and the limits of its websockets.</summary>
public sealed record ChatOptions
{
    /// <summary>The address to listen on.</summary>
    public string Host { get; init; } = "127.0.0.1";

    /// <summary>The port (0: any free port).</summary>
    public int Port { get; init; } = 8080;

    /// <summary>Serve TLS with a self-signed certificate made at start.</summary>
    public bool Tls { get; init; }

    /// <summary>The seed nodes of the cluster to join (<c>--seeds</c>, their base URLs: <c>http://host:port</c>); empty:
    /// no cluster. On a cluster each room is a cluster group, and the node's Akka remoting shares its port.</summary>
    public IReadOnlyList<Uri> Seeds { get; init; } = [];

    /// <summary>The cluster's actor system name, the same on every node.</summary>
    public string ClusterName { get; init; } = "chat";

    /// <summary>The largest text message a member may send (Close 1009 beyond): 4 KiB.</summary>
    public int MaxMessageBytes { get; init; } = 4 * 1024;

    /// <summary>How long a member's peer may take none of its output before it is closed with 1008 (a member that
    /// stopped reading must not hold the room's messages for ever): the library's 30 s.</summary>
    public TimeSpan SlowConsumerTimeout { get; init; } = WebSocketSessionOptions.Default.SlowConsumerTimeout;

    /// <summary>The pool for the members' messages and the room's broadcast frames (e.g. a counting pool that proves
    /// every buffer came back); <see cref="ArrayPool{T}.Shared"/> if null.</summary>
    public ArrayPool<byte>? Pool { get; init; }

    /// <summary>The websocket session options these settings give: the library's defaults (water marks, the slow-member
    /// rule, the process's broadcast budget) but for the message size and the slow-consumer timeout.</summary>
    public WebSocketSessionOptions Session => WebSocketSessionOptions.Default with
    {
        MaxFramePayloadLength = MaxMessageBytes,
        MaxMessagePayloadLength = MaxMessageBytes,
        SlowConsumerTimeout = SlowConsumerTimeout,
        Pool = Pool,
    };

    /// <summary>Sets what the chat endpoint accepts.</summary>
    public void ConfigureAccept(WebSocketAcceptOptions accept)
    {
        ArgumentNullException.ThrowIfNull(accept);
        accept.Session = Session;
    }
}
