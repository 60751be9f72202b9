using System.Net;
using System.Threading.Channels;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Logging;

namespace WebSocketCodec.AspNetCore;

/// <summary>
/// One real socket listener whose accepted connections are sorted by their first bytes: the HTTP/2 preface goes to
/// the HTTP/2 endpoint, anything else to the HTTP/1.1 endpoint. Each side is an <see cref="IConnectionListener"/> that
/// Kestrel binds and runs like any other, so both keep every Kestrel limit, timeout and feature, and
/// <c>Request.Scheme</c> stays <c>http</c> (no TLS feature is faked).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The semaphore never allocates a wait handle; the socket lives as long as the server.")]
internal sealed partial class SharedPortSocket(IPEndPoint requestedEndPoint, TimeSpan detectionTimeout, int maxPendingDetections)
{
    private readonly SemaphoreSlim _bindLock = new(1, 1);
    private readonly Channel<ConnectionContext> _http1 = Channel.CreateUnbounded<ConnectionContext>();
    private readonly Channel<ConnectionContext> _http2 = Channel.CreateUnbounded<ConnectionContext>();
    private IConnectionListener? _inner;
    private Task? _acceptLoop;
    private int _pending;
    private int _openSides;
    private int _boundSides;
    private ILogger? _logger;

    public IPEndPoint RequestedEndPoint { get; } = requestedEndPoint;

    public IPEndPoint? BoundEndPoint { get; private set; }

    /// <summary>Binds the real socket the first time either side is bound.</summary>
    public async ValueTask<IConnectionListener> BindSideAsync(
        HttpProtocols protocol, IConnectionListenerFactory sockets, ILogger logger, CancellationToken cancellationToken)
    {
        await _bindLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_inner is null)
            {
                _logger = logger;
                _inner = await sockets.BindAsync(RequestedEndPoint, cancellationToken).ConfigureAwait(false);
                BoundEndPoint = (IPEndPoint)_inner.EndPoint;
                _acceptLoop = AcceptLoopAsync(_inner);
            }

            _openSides++;
            _boundSides++;
            return new Side(this, protocol);
        }
        finally
        {
            _bindLock.Release();
        }
    }

    private async Task AcceptLoopAsync(IConnectionListener inner)
    {
        try
        {
            while (await inner.AcceptAsync().ConfigureAwait(false) is { } connection)
            {
                if (Interlocked.Increment(ref _pending) > maxPendingDetections)
                {
                    Interlocked.Decrement(ref _pending);
                    await DropAsync(connection).ConfigureAwait(false);
                    continue;
                }

                _ = DetectAsync(connection);
            }
        }
        catch (Exception error) when (error is ObjectDisposedException or OperationCanceledException)
        {
            // Unbound while accepting.
        }
        catch (Exception error) when (_logger is not null)
        {
            // The socket listener failed for good: both sides stop accepting, which Kestrel sees and reports.
            LogAcceptFailed(_logger, RequestedEndPoint, error);
        }
        finally
        {
            _http1.Writer.TryComplete();
            _http2.Writer.TryComplete();
        }
    }

    private async Task DetectAsync(ConnectionContext connection)
    {
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(connection.ConnectionClosed);
            timeout.CancelAfter(detectionTimeout);
            bool http2 = await Http2PrefaceDetector.IsHttp2Async(connection.Transport.Input, timeout.Token).ConfigureAwait(false);
            if ((http2 ? _http2 : _http1).Writer.TryWrite(connection))
            {
                return;
            }
        }
        catch (Exception error) when (error is not OutOfMemoryException)
        {
            // A timeout, a reset, a connection torn down while we read: it never reached Kestrel, so drop it here.
            if (_logger is not null)
            {
                LogDetectionFailed(_logger, connection.RemoteEndPoint, error.Message);
            }
        }
        finally
        {
            Interlocked.Decrement(ref _pending);
        }

        await DropAsync(connection).ConfigureAwait(false);
    }

    private static async ValueTask DropAsync(ConnectionContext connection)
    {
        connection.Abort();
        await connection.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>Stops one side accepting; the real socket stops accepting when both sides did. Connections already
    /// handed to Kestrel live on.</summary>
    private async ValueTask UnbindSideAsync(HttpProtocols protocol)
    {
        Channel<ConnectionContext> queue = protocol == HttpProtocols.Http2 ? _http2 : _http1;
        queue.Writer.TryComplete();
        while (queue.Reader.TryRead(out ConnectionContext? orphan))
        {
            await DropAsync(orphan).ConfigureAwait(false);
        }

        await _bindLock.WaitAsync().ConfigureAwait(false);
        try
        {
            if (--_boundSides == 0 && _inner is not null)
            {
                await _inner.UnbindAsync().ConfigureAwait(false);
                if (_acceptLoop is not null)
                {
                    await _acceptLoop.ConfigureAwait(false);
                }
            }
        }
        finally
        {
            _bindLock.Release();
        }
    }

    /// <summary>Kestrel disposes a listener once its connections are done; the real listener (whose memory pool the
    /// connections of both sides use) is disposed after both sides.</summary>
    private async ValueTask DisposeSideAsync()
    {
        await _bindLock.WaitAsync().ConfigureAwait(false);
        try
        {
            if (--_openSides == 0 && _inner is not null)
            {
                await _inner.DisposeAsync().ConfigureAwait(false);
                _inner = null;
            }
        }
        finally
        {
            _bindLock.Release();
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "Accepting connections on {EndPoint} failed; the port stops accepting")]
    private static partial void LogAcceptFailed(ILogger logger, IPEndPoint endPoint, Exception error);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Connection from {Remote} closed before its protocol was known: {Reason}")]
    private static partial void LogDetectionFailed(ILogger logger, EndPoint? remote, string reason);

    /// <summary>The listener Kestrel runs for one protocol.</summary>
    private sealed class Side(SharedPortSocket socket, HttpProtocols protocol) : IConnectionListener
    {
        private int _unbound;
        private int _disposed;

        public EndPoint EndPoint => new SharedPortEndPoint(socket, protocol);

        public async ValueTask<ConnectionContext?> AcceptAsync(CancellationToken cancellationToken = default)
        {
            ChannelReader<ConnectionContext> reader = (protocol == HttpProtocols.Http2 ? socket._http2 : socket._http1).Reader;
            try
            {
                while (await reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    if (reader.TryRead(out ConnectionContext? connection))
                    {
                        return connection;
                    }
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
            }

            return null;
        }

        public ValueTask UnbindAsync(CancellationToken cancellationToken = default) =>
            Interlocked.Exchange(ref _unbound, 1) == 0 ? socket.UnbindSideAsync(protocol) : ValueTask.CompletedTask;

        public async ValueTask DisposeAsync()
        {
            await UnbindAsync().ConfigureAwait(false);
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                await socket.DisposeSideAsync().ConfigureAwait(false);
            }
        }
    }
}
