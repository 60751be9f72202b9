using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.Features;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>
/// Ends our direction of a Kestrel TCP connection alone (a TCP FIN while the peer's side stays readable), for a
/// websocket that failed the connection: its Close, then FIN, then the peer's input drained until the peer's FIN, so
/// that closing never resets the connection under a Close the peer has not read. Kestrel cannot do this itself:
/// completing a connection's output shuts the socket down both ways and disposes it (dotnet/aspnetcore#14937), and an
/// upgraded HTTP/1.1 response that is completed sends nothing. So the send side of the connection's socket
/// (<see cref="IConnectionSocketFeature"/>) is shut down, once the Close is on the wire.
/// </summary>
/// <remarks>When our output is idle, our bytes are in Kestrel's transport pipe (under TLS: in its TLS pipe), not yet
/// necessarily written to the socket by Kestrel's send loop, and Kestrel tells nobody when they are: shutting the socket
/// down before that send would lose them. The send loop runs on the thread pool as soon as a flush wakes it (under TLS
/// after one more hop through the TLS stream) and writes everything it holds in one call; <see cref="Settle"/> leaves it
/// that long, a margin of orders of magnitude over the microseconds it takes on an idle or a loaded machine, and is a
/// bounded part of the gap between our Close and the FIN (measured in the violation tests).</remarks>
internal static class SocketHalfClose
{
    /// <summary>How long Kestrel's send loop is left to write what it holds before the send side is shut down.</summary>
    public static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(10);

    /// <summary>The half-close of the connection whose features these are, or null when it has no socket (another
    /// transport, a test server): a transport without it waits for the peer's end or the close timeout.</summary>
    public static Func<ValueTask>? For(IFeatureCollection features) =>
        features.Get<IConnectionSocketFeature>()?.Socket is { } socket ? () => ShutdownSendAsync(socket) : null;

    private static async ValueTask ShutdownSendAsync(Socket socket)
    {
        await Task.Delay(Settle).ConfigureAwait(false);
        try
        {
            socket.Shutdown(SocketShutdown.Send);
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            // The connection is gone already: nothing left to end.
        }
    }

    /// <summary>A Kestrel connection's own pipes (the fast path) as a transport that half-closes through the socket:
    /// its output is not completed (that would close both ways); Kestrel completes it when the connection ends.</summary>
    public sealed class ConnectionTransport(ConnectionContext connection) : IHalfClosingDuplexPipe
    {
        private readonly Func<ValueTask>? _endOutput = For(connection.Features);

        /// <inheritdoc />
        public PipeReader Input { get; } = connection.Transport.Input;

        /// <inheritdoc />
        public PipeWriter Output { get; } = connection.Transport.Output;

        /// <inheritdoc />
        public bool CanHalfClose => _endOutput is not null;

        /// <inheritdoc />
        public ValueTask CloseOutputAsync() => _endOutput?.Invoke() ?? ValueTask.CompletedTask;
    }
}
