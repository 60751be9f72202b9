using System.IO.Pipelines;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
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
/// necessarily written to the socket, and Kestrel tells nobody when they are: shutting the socket down before that send
/// would lose them. Every step between (Kestrel's send loop on its I/O queue; under TLS first the copy into the TLS
/// stream) is thread-pool work queued, in order, when our flush wakes it, and each writes everything it holds at once.
/// So the shutdown waits for the thread pool to take, in turn, <see cref="PoolHops"/> items queued behind that work
/// (the global queue is first in, first out: a busy or starved pool delays them alike), then <see cref="Settle"/> for
/// the last step's send call to return. This bounds the wait by the pool's progress rather than by a guess of time;
/// it is not a proof (Kestrel exposes no "sent" signal), and the violation tests measure the gap it costs.</remarks>
internal static class SocketHalfClose
{
    /// <summary>Thread-pool turns to wait (the TLS copy, the send loop, and one more).</summary>
    public const int PoolHops = 4;

    /// <summary>The time the last step is left for its send call after the turns.</summary>
    public static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(2);

    /// <summary>The half-close of the connection whose features these are, or null when it has no socket (another
    /// transport, a test server): a transport without it waits for the peer's end or the close timeout.</summary>
    public static Func<ValueTask>? For(IFeatureCollection features) =>
        features.Get<IConnectionSocketFeature>()?.Socket is { } socket ? () => ShutdownSendAsync(socket) : null;

    private static async ValueTask ShutdownSendAsync(Socket socket)
    {
        for (int hop = 0; hop < PoolHops; hop++)
        {
            await default(GlobalQueueHop);
        }

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

    /// <summary>Continues on the thread pool's global queue, behind every item queued there before.</summary>
    private readonly struct GlobalQueueHop : ICriticalNotifyCompletion
    {
        public bool IsCompleted => false;

        public GlobalQueueHop GetAwaiter() => this;

        public void GetResult()
        {
        }

        public void OnCompleted(Action continuation) =>
            ThreadPool.QueueUserWorkItem(static next => next(), continuation, preferLocal: false);

        public void UnsafeOnCompleted(Action continuation) =>
            ThreadPool.UnsafeQueueUserWorkItem(static next => next(), continuation, preferLocal: false);
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
