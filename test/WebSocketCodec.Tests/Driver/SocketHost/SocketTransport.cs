using System.Net.Sockets;

namespace WebSocketCodec.Tests.Driver.SocketHost;

/// <summary>
/// A host of the core driver over a plain <see cref="Socket"/>, written only against the core package's public API (no
/// System.IO.Pipelines): the proof that anyone can host a websocket on the port. Its loop is a lock: received bytes,
/// the end of a read and the driver's turns run under it, one at a time. Output is gathered into one array and sent by
/// <see cref="FlushAsync"/>; a flush the socket holds back is the backpressure the driver measures.
/// </summary>
public sealed class SocketTransport : IWebSocketTransport, IDisposable
{
    private readonly Socket _socket;
    private readonly object _loop = new();
    private readonly SemaphoreSlim _resumed = new(0);
    private readonly CancellationTokenSource _stop = new();
    private byte[] _output = new byte[16 * 1024];
    private int _committed;
    private volatile bool _paused;

    /// <summary>Creates the transport of one websocket whose opening handshake is done.</summary>
    public SocketTransport(Socket socket, WebSocketRole role, WebSocketSessionOptions? options = null)
    {
        _socket = socket;
        Driver = new WebSocketDriver(this, role, options);
    }

    /// <summary>The websocket.</summary>
    public WebSocketDriver Driver { get; }

    /// <summary>Runs the websocket: reads until the driver stops reading, then waits for its end and closes the socket.
    /// <paramref name="received"/> holds bytes that came right behind the handshake.</summary>
    public async Task<WebSocketCloseInfo> RunAsync(IWebSocketFrameListener listener, ReadOnlyMemory<byte> received = default)
    {
        lock (_loop)
        {
            Driver.Start(listener);
            if (!received.IsEmpty)
            {
                Driver.Receive(received.ToArray());
                Driver.ReadComplete();
            }
        }

        byte[] buffer = new byte[16 * 1024];
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                if (_paused)
                {
                    await _resumed.WaitAsync(_stop.Token);
                    continue;
                }

                int read = await _socket.ReceiveAsync(buffer, SocketFlags.None, _stop.Token);
                lock (_loop)
                {
                    if (read == 0)
                    {
                        Driver.InputEnded();
                        break;
                    }

                    Driver.Receive(buffer.AsSpan(0, read));
                    Driver.ReadComplete();
                }
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            // The driver stopped reading.
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            lock (_loop)
            {
                Driver.InputEnded(error);
            }
        }

        WebSocketCloseInfo info = await Driver.Completion;
        Dispose();
        return info;
    }

    /// <summary>Closes the socket (the driver's end does it).</summary>
    public void Dispose()
    {
        _socket.Dispose();
        _stop.Dispose();
        _resumed.Dispose();
    }

    public bool CanHalfClose => true;

    public Memory<byte> GetOutputMemory(int sizeHint)
    {
        if (_output.Length - _committed < Math.Max(sizeHint, 1024))
        {
            Array.Resize(ref _output, Math.Max(_output.Length * 2, _committed + sizeHint + 1024));
        }

        return _output.AsMemory(_committed);
    }

    public void AdvanceOutput(int count) => _committed += count;

    public async ValueTask<bool> FlushAsync()
    {
        try
        {
            int sent = 0;
            while (sent < _committed)
            {
                sent += await _socket.SendAsync(_output.AsMemory(sent, _committed - sent), SocketFlags.None);
            }

            _committed = 0;
            return true;
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            return false;
        }
    }

    public void CancelPendingFlush()
    {
        // A pending send ends when the socket is torn down (Abort).
    }

    public void OnOutputEnding(long bytes)
    {
    }

    public ValueTask EndOutputAsync(bool halfClose)
    {
        try
        {
            _socket.Shutdown(SocketShutdown.Send); // FIN after everything sent
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            // Gone already.
        }

        return ValueTask.CompletedTask;
    }

    public void Abort() => _socket.Dispose();

    public void PauseReading() => _paused = true;

    public void ResumeReading()
    {
        _paused = false;
        _resumed.Release();
    }

    public void StopReading() => _stop.Cancel();

    public void ScheduleTurn() => ThreadPool.UnsafeQueueUserWorkItem(
        static transport =>
        {
            lock (transport._loop)
            {
                transport.Driver.RunTurn();
            }
        },
        this,
        preferLocal: false);
}
