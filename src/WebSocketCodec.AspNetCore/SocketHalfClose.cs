using System.Buffers.Binary;
using System.Diagnostics;
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
/// <remarks>
/// When our output is idle, our bytes are in Kestrel's transport pipe (under TLS: in its TLS pipe), not yet necessarily
/// written to the socket, and Kestrel tells nobody when they are: shutting the socket down before that send would lose
/// them. On Linux the kernel tells: right before the flush that carries the Close (<see cref="OnOutputEnding"/>) the
/// connection's count of bytes handed to TCP is read (<c>TCP_INFO</c>: sent once, plus not yet sent), and the
/// shutdown waits until it has grown by at least the bytes of that flush (TLS only adds to them), bounded by
/// <see cref="KernelBound"/> (past it the send side is left open: the close timeout or the peer's end closes the
/// connection, with our Close in it). Handed to TCP is enough: the FIN is queued behind every byte not yet sent. That
/// holds unless bytes of an earlier flush were still in Kestrel's pipes when the count was read. Elsewhere (no
/// <c>TCP_INFO</c>, or not Linux) no FIN is sent before the peer's end or the close timeout.
/// </remarks>
internal sealed class SocketHalfClose(Socket socket)
{
    /// <summary>How long the kernel's count may take to show our bytes before the send side is left open.</summary>
    public static readonly TimeSpan KernelBound = TimeSpan.FromSeconds(2);

    private const int TcpInfoLength = 232;
    private long _handedAtEnding = -1;
    private long _ending;

    /// <summary>The half-close of the connection whose features these are, or null when it has no socket (another
    /// transport, a test server): a transport without it waits for the peer's end or the close timeout.</summary>
    public static SocketHalfClose? For(IFeatureCollection features) =>
        OperatingSystem.IsLinux() && features.Get<IConnectionSocketFeature>()?.Socket is { } socket ? new SocketHalfClose(socket) : null;

    /// <summary>Takes the kernel's count right before the flush that carries <paramref name="bytes"/>, the last.</summary>
    public void OnOutputEnding(long bytes)
    {
        _ending = bytes;
        _handedAtEnding = HandedToTcp(socket);
    }

    /// <summary>Shuts the send side down once the last bytes reached the kernel (see the remarks).</summary>
    public async ValueTask ShutdownSendAsync()
    {
        if (_handedAtEnding < 0)
        {
            return; // the kernel's count was not to be had: no FIN (the peer's end or the close timeout ends it)
        }

        long started = Stopwatch.GetTimestamp();
        while (true)
        {
            // Handed to TCP is enough: the FIN is queued behind every byte not yet sent (a peer with a closed window
            // gets our Close first, whenever it reads).
            long handed = HandedToTcp(socket);
            if (handed < 0)
            {
                return; // the connection is gone
            }

            if (handed - _handedAtEnding >= _ending)
            {
                break;
            }

            if (Stopwatch.GetElapsedTime(started) > KernelBound)
            {
                return; // not seen in the kernel: better the close timeout than a FIN that loses our Close
            }

            await Task.Delay(1).ConfigureAwait(false);
        }

        try
        {
            socket.Shutdown(SocketShutdown.Send);
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            // The connection is gone already: nothing left to end.
        }
    }

    /// <summary>The bytes the peer has acknowledged on this connection so far (Linux's <c>TCP_INFO</c>
    /// <c>tcpi_bytes_acked</c>, since 4.1): what the slow-consumer rule counts as the peer's progress while Kestrel's
    /// pipes hold our next bytes back; -1 elsewhere or when the socket is gone.</summary>
    public long AcknowledgedBytes
    {
        get
        {
            Span<byte> info = stackalloc byte[TcpInfoLength];
            try
            {
                if (socket.GetRawSocketOption(6 /* IPPROTO_TCP */, 11 /* TCP_INFO */, info) < 128)
                {
                    return -1;
                }
            }
            catch (Exception error) when (error is SocketException or ObjectDisposedException or PlatformNotSupportedException)
            {
                return -1;
            }

            return (long)BinaryPrimitives.ReadUInt64LittleEndian(info.Slice(120)); // tcpi_bytes_acked
        }
    }

    /// <summary>The bytes the application handed to TCP on this connection so far (sent once, plus not yet sent) and
    /// those not yet sent, from Linux's <c>TCP_INFO</c>; -1 elsewhere or when the socket is gone.</summary>
    private static long HandedToTcp(Socket socket)
    {
        if (!OperatingSystem.IsLinux())
        {
            return -1;
        }

        Span<byte> info = stackalloc byte[TcpInfoLength];
        try
        {
            int length = socket.GetRawSocketOption(6 /* IPPROTO_TCP */, 11 /* TCP_INFO */, info);
            if (length < 216)
            {
                return -1; // a kernel before 4.19: no tcpi_bytes_sent
            }
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException or PlatformNotSupportedException)
        {
            return -1;
        }

        long unsent = BinaryPrimitives.ReadUInt32LittleEndian(info.Slice(144)); // tcpi_notsent_bytes
        long sent = (long)BinaryPrimitives.ReadUInt64LittleEndian(info.Slice(200)); // tcpi_bytes_sent
        long retransmitted = (long)BinaryPrimitives.ReadUInt64LittleEndian(info.Slice(208)); // tcpi_bytes_retrans
        return sent - retransmitted + unsent;
    }

    /// <summary>A Kestrel connection's own pipes (the fast path, or an upgraded HTTP/1.1 request's connection) as a
    /// transport that half-closes through the socket: its output is not completed (that would close both ways); Kestrel
    /// completes it when the connection ends.</summary>
    public sealed class ConnectionTransport(IDuplexPipe pipe, IFeatureCollection features, Action abort) : IWebSocketPipeTransport
    {
        private readonly SocketHalfClose? _end = For(features);

        /// <summary>A connection handler's connection.</summary>
        public ConnectionTransport(ConnectionContext connection)
            : this(connection.Transport, connection.Features, connection.Abort)
        {
        }

        /// <inheritdoc />
        public PipeReader Input { get; } = pipe.Input;

        /// <inheritdoc />
        public PipeWriter Output { get; } = pipe.Output;

        /// <inheritdoc />
        public bool CanHalfClose => _end is not null;

        /// <inheritdoc />
        public void OnOutputEnding(long bytes) => _end?.OnOutputEnding(bytes);

        /// <inheritdoc />
        public ValueTask CloseOutputAsync() => _end?.ShutdownSendAsync() ?? ValueTask.CompletedTask;

        /// <inheritdoc />
        public long AcknowledgedBytes => _end?.AcknowledgedBytes ?? -1;

        /// <inheritdoc />
        public void Abort() => abort();
    }

    /// <summary>An upgraded HTTP/1.1 request's stream transport that half-closes through the connection's socket once
    /// its own writer is completed (which leaves Kestrel's stream open).</summary>
    public sealed class UpgradedTransport(StreamTransport stream, SocketHalfClose end) : IWebSocketPipeTransport
    {
        /// <inheritdoc />
        public PipeReader Input => stream.Input;

        /// <inheritdoc />
        public PipeWriter Output => stream.Output;

        /// <inheritdoc />
        public bool CanHalfClose => true;

        /// <inheritdoc />
        public void OnOutputEnding(long bytes) => end.OnOutputEnding(bytes);

        /// <inheritdoc />
        public long AcknowledgedBytes => end.AcknowledgedBytes;

        /// <inheritdoc />
        public async ValueTask CloseOutputAsync()
        {
            await stream.Output.CompleteAsync().ConfigureAwait(false);
            await end.ShutdownSendAsync().ConfigureAwait(false);
        }

        /// <inheritdoc />
        public void Abort() => stream.Abort();
    }
}
